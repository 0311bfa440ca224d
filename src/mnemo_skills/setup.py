from glob import glob

from setuptools import find_packages, setup

package_name = "mnemo_skills"

setup(
    name=package_name,
    version="0.1.0",
    packages=find_packages(exclude=["test"]),
    data_files=[
        ("share/ament_index/resource_index/packages", ["resource/" + package_name]),
        ("share/" + package_name, ["package.xml"]),
        ("share/" + package_name + "/profiles", glob("profiles/*.yaml")),
    ],
    install_requires=["setuptools"],
    zip_safe=True,
    maintainer="mnemo developers",
    maintainer_email="dev@mnemo-robotics.org",
    description="Skill server for real robots: nav2, arm controllers, pre-recorded motions, operator gate.",
    license="Apache-2.0",
    entry_points={"console_scripts": ["skills_node = mnemo_skills.node:main"]},
)
