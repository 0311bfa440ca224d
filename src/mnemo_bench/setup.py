from setuptools import find_packages, setup

package_name = "mnemo_bench"

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
    description="Benchmark suite: task families, baselines and ablations over the simulator, with a report.",
    license="Apache-2.0",
    entry_points={"console_scripts": ["mnemo_bench = mnemo_bench.cli:main"]},
)
