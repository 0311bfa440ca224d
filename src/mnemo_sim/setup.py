from glob import glob

from setuptools import find_packages, setup

package_name = "mnemo_sim"

setup(
    name=package_name,
    version="0.1.0",
    packages=find_packages(exclude=["test"]),
    package_data={"mnemo_sim.generator": ["data/*.yaml"]},  # the generator's vocabulary and templates
    data_files=[
        ("share/ament_index/resource_index/packages", ["resource/" + package_name]),
        ("share/" + package_name, ["package.xml"]),
        ("share/" + package_name + "/scenarios", glob("scenarios/*.yaml")),
    ],
    install_requires=["setuptools"],
    zip_safe=True,
    maintainer="mnemo developers",
    maintainer_email="dev@mnemo-robotics.org",
    description="Built-in household simulator: scenarios, patrols, skills, rendering and task scoring.",
    license="Apache-2.0",
    entry_points={"console_scripts": ["sim_node = mnemo_sim.node:main"]},
)
