"""mnemo on a TidyBot++ (holonomic base with nav2, Kinova Gen3 arm and Robotiq gripper through
ros2_kortex, wrist RGB-D camera through kinova_vision):
    ros2 launch mnemo tidybot.launch.py
"""
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, IncludeLaunchDescription
from launch.launch_description_sources import PythonLaunchDescriptionSource
from launch.substitutions import LaunchConfiguration, PathJoinSubstitution
from launch_ros.substitutions import FindPackageShare


def generate_launch_description():
    share = FindPackageShare("mnemo")
    return LaunchDescription([
        DeclareLaunchArgument("config", default_value=PathJoinSubstitution([share, "config", "tidybot.yaml"]),
                              description="parameters YAML for TidyBot++ (topics, frames, vocabulary, endpoints)"),
        DeclareLaunchArgument("data_dir", default_value="data",
                              description="directory where memory, scene graph and keyframes persist"),
        DeclareLaunchArgument("operator_gate", default_value="true", choices=["true", "false"],
                              description="each physical primitive waits for the operator's approval"),
        DeclareLaunchArgument("policy", default_value="offline", choices=["offline", "llm"],
                              description="planner policy: offline (no model) or llm"),
        DeclareLaunchArgument("llm_base_url", default_value="",
                              description="OpenAI-compatible endpoint for the planner's llm policy, keyframe selection and the "
                                          "interaction analyzer's VLM; empty: offline everywhere"),
        DeclareLaunchArgument("color_topic", default_value="/camera/color/image_raw",
                              description="wrist camera colour topic (kinova_vision)"),
        DeclareLaunchArgument("depth_topic", default_value="/camera/depth_registered/image_rect",
                              description="wrist camera depth topic registered to colour (kinova_vision)"),
        DeclareLaunchArgument("camera_info_topic", default_value="/camera/color/camera_info",
                              description="wrist camera colour camera info topic"),
        IncludeLaunchDescription(
            PythonLaunchDescriptionSource(PathJoinSubstitution([share, "launch", "mnemo_stack.launch.py"])),
            launch_arguments={
                "config": LaunchConfiguration("config"), "data_dir": LaunchConfiguration("data_dir"),
                "use_sim_time": "false", "policy": LaunchConfiguration("policy"),
                "llm_base_url": LaunchConfiguration("llm_base_url"), "with_skills": "true",
                "skills_profile": PathJoinSubstitution([FindPackageShare("mnemo_skills"), "profiles",
                                                        "tidybot.yaml"]),
                "operator_gate": LaunchConfiguration("operator_gate"),
                "color_topic": LaunchConfiguration("color_topic"),
                "depth_topic": LaunchConfiguration("depth_topic"),
                "camera_info_topic": LaunchConfiguration("camera_info_topic"),
            }.items()),
    ])
