"""The whole stack against mnemo's built-in household simulator (no robot, no ROS install beyond
the wheels): the simulator serves the skills, so the robot skill server does not run."""
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, IncludeLaunchDescription
from launch.launch_description_sources import PythonLaunchDescriptionSource
from launch.substitutions import LaunchConfiguration, PathJoinSubstitution
from launch_ros.actions import Node
from launch_ros.substitutions import FindPackageShare

from mnemo_common import names


def generate_launch_description():
    share = FindPackageShare("mnemo")
    config = PathJoinSubstitution([share, "config", "sim.yaml"])
    return LaunchDescription([
        DeclareLaunchArgument("scenario",
                              default_value=PathJoinSubstitution([FindPackageShare("mnemo_sim"), "scenarios",
                                                                  "example_apartment.yaml"]),
                              description="household-scenario/1 YAML (the simulated home, and the scene graph's map "
                                          "in honest perception); default: the shipped example apartment"),
        DeclareLaunchArgument("seed", default_value="-1",
                              description="seed of the simulator's randomness (missed grasps); -1 uses the scenario's seed"),
        DeclareLaunchArgument("render", default_value="false", choices=["true", "false"],
                              description="oracle perception: also render RGB-D images with MuJoCo (honest perception "
                                          "always renders)"),
        DeclareLaunchArgument("perception", default_value="honest", choices=["oracle", "honest"],
                              description="honest (default, as on a robot): rendered RGB-D only; perception, "
                                          "scene-graph association and memory from pixels; skills take scene-graph "
                                          "node ids (the scenario is the scene graph's map) | oracle: the simulator's "
                                          "observations, with its instance ids, supports and authored attributes "
                                          "(an upper bound no robot reaches)"),
        DeclareLaunchArgument("data_dir", default_value="data",
                              description="directory where memory, scene graph and keyframes persist"),
        DeclareLaunchArgument("policy", default_value="offline", choices=["offline", "llm"],
                              description="planner policy: offline (no model) or llm"),
        DeclareLaunchArgument("llm_base_url", default_value="",
                              description="OpenAI-compatible endpoint for the planner's llm policy, keyframe selection and the "
                                          "interaction analyzer's VLM; empty: offline everywhere"),
        DeclareLaunchArgument("use_sim_time", default_value="false", choices=["true", "false"],
                              description="nodes take time from the simulator's /clock"),
        DeclareLaunchArgument("respawn", default_value="true", choices=["true", "false"],
                              description="start a node again when it exits (crash, kill)"),
        Node(package="mnemo_sim", executable="sim_node", name=names.SIM_NODE, output="screen",
             respawn=LaunchConfiguration("respawn"), respawn_delay=2.0,
             parameters=[config, {"scenario": LaunchConfiguration("scenario"),
                                  "seed": LaunchConfiguration("seed"),
                                  "render": LaunchConfiguration("render"),
                                  "perception": LaunchConfiguration("perception"),
                                  "data_dir": LaunchConfiguration("data_dir"),
                                  "use_sim_time": LaunchConfiguration("use_sim_time")}]),
        IncludeLaunchDescription(
            PythonLaunchDescriptionSource(PathJoinSubstitution([share, "launch", "mnemo_stack.launch.py"])),
            launch_arguments={"config": config, "data_dir": LaunchConfiguration("data_dir"),
                              "use_sim_time": LaunchConfiguration("use_sim_time"),
                              "policy": LaunchConfiguration("policy"),
                              "llm_base_url": LaunchConfiguration("llm_base_url"),
                              "respawn": LaunchConfiguration("respawn"), "with_skills": "false",
                              "perception": LaunchConfiguration("perception"),
                              "map_file": LaunchConfiguration("scenario")}.items()),
    ])
