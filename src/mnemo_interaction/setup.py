from setuptools import find_packages, setup

package_name = "mnemo_interaction"

setup(
    name=package_name,
    version="0.1.0",
    packages=find_packages(exclude=["test"]),
    data_files=[
        ("share/ament_index/resource_index/packages", ["resource/" + package_name]),
        ("share/" + package_name, ["package.xml"]),
    ],
    install_requires=["setuptools"],
    zip_safe=True,
    maintainer="mnemo developers",
    maintainer_email="dev@mnemo-robotics.org",
    description="Interaction analyzer: turns what an action revealed (locked, opened, contents) into scene-graph updates.",
    license="Apache-2.0",
    tests_require=["pytest"],
    entry_points={"console_scripts": ["analyzer_node = mnemo_interaction.node:main"]},
)
