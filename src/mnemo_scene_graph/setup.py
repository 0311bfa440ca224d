from setuptools import find_packages, setup

package_name = "mnemo_scene_graph"

setup(
    name=package_name,
    version="0.1.0",
    packages=find_packages(exclude=["test", "bench"]),
    data_files=[
        ("share/ament_index/resource_index/packages", ["resource/" + package_name]),
        ("share/" + package_name, ["package.xml"]),
    ],
    install_requires=["setuptools"],
    zip_safe=True,
    maintainer="mnemo developers",
    maintainer_email="dev@mnemo-robotics.org",
    description="Persistent 3D scene graph of objects and fixtures with typed, append-only state history.",
    license="Apache-2.0",
    entry_points={"console_scripts": ["scene_graph_node = mnemo_scene_graph.node:main"]},
)
