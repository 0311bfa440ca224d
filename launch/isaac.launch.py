"""mnemo against NVIDIA Isaac Sim through its ROS 2 bridge. The bridge's camera helper publishes
/rgb, /depth and /camera_info by default (rename them in your OmniGraph and pass them here); nav2
and the arm controllers run beside the simulation as on the real robot; time comes from /clock.
    ros2 launch mnemo isaac.launch.py robot:=tiago
"""
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, IncludeLaunchDescription
from launch.launch_description_sources import PythonLaunchDescriptionSource
from launch.substitutions import LaunchConfiguration, PathJoinSubstitution
from launch_ros.substitutions import FindPackageShare


def generate_launch_description():
    share = FindPackageShare("mnemo")
    robot = LaunchConfiguration("robot")
    return LaunchDescription([
        DeclareLaunchArgument("robot", default_value="tiago", choices=["tiago", "tidybot"],
                              description="simulated robot: selects config/<robot>.yaml and the skills profile"),
        DeclareLaunchArgument("data_dir", default_value="data_isaac",
                              description="directory where memory, scene graph and keyframes persist"),
        DeclareLaunchArgument("operator_gate", default_value="false", choices=["true", "false"],
                              description="each physical primitive waits for the operator's approval"),
        DeclareLaunchArgument("policy", default_value="offline", choices=["offline", "llm"],
                              description="planner policy: offline (no model) or llm"),
        DeclareLaunchArgument("llm_base_url", default_value="",
                              description="OpenAI-compatible endpoint for the planner's llm policy, keyframe selection and the "
                                          "interaction analyzer's VLM; empty: offline everywhere"),
        DeclareLaunchArgument("color_topic", default_value="/rgb",
                              description="Isaac Sim ROS 2 camera helper's colour topic"),
        DeclareLaunchArgument("depth_topic", default_value="/depth",
                              description="Isaac Sim ROS 2 camera helper's depth topic (32FC1, metres)"),
        DeclareLaunchArgument("camera_info_topic", default_value="/camera_info",
                              description="Isaac Sim ROS 2 camera helper's camera info topic"),
        IncludeLaunchDescription(
            PythonLaunchDescriptionSource(PathJoinSubstitution([share, "launch", "mnemo_stack.launch.py"])),
            launch_arguments={
                "config": PathJoinSubstitution([share, "config", [robot, ".yaml"]]),
                "data_dir": LaunchConfiguration("data_dir"), "use_sim_time": "true",
                "policy": LaunchConfiguration("policy"), "llm_base_url": LaunchConfiguration("llm_base_url"),
                "with_skills": "true",
                "skills_profile": PathJoinSubstitution([FindPackageShare("mnemo_skills"), "profiles",
                                                        [robot, ".yaml"]]),
                "operator_gate": LaunchConfiguration("operator_gate"),
                "color_topic": LaunchConfiguration("color_topic"),
                "depth_topic": LaunchConfiguration("depth_topic"),
                "camera_info_topic": LaunchConfiguration("camera_info_topic"),
            }.items()),
    ])
