"""mnemo on a physical PAL Tiago: head camera, nav2 and the arm through the skill server.

Run beside Tiago's own bring-up (robot drivers, nav2 with a map, play_motion2):
    ros2 launch mnemo tiago.launch.py operator_gate:=true
"""
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, IncludeLaunchDescription
from launch.launch_description_sources import PythonLaunchDescriptionSource
from launch.substitutions import LaunchConfiguration, PathJoinSubstitution
from launch_ros.substitutions import FindPackageShare


def generate_launch_description():
    share = FindPackageShare("mnemo")
    return LaunchDescription([
        DeclareLaunchArgument("config", default_value=PathJoinSubstitution([share, "config", "tiago.yaml"]),
                              description="parameters YAML for Tiago (topics, frames, vocabulary, endpoints)"),
        DeclareLaunchArgument("data_dir", default_value="data",
                              description="directory where memory, scene graph and keyframes persist"),
        DeclareLaunchArgument("operator_gate", default_value="true", choices=["true", "false"],
                              description="each physical primitive waits for the operator's approval"),
        DeclareLaunchArgument("policy", default_value="offline", choices=["offline", "llm"],
                              description="planner policy: offline (no model) or llm"),
        DeclareLaunchArgument("llm_base_url", default_value="",
                              description="OpenAI-compatible endpoint for the planner's llm policy, keyframe selection and the "
                                          "interaction analyzer's VLM; empty: offline everywhere"),
        DeclareLaunchArgument("with_planner", default_value="true", choices=["true", "false"],
                              description="start the planner (RetrieveObject action)"),
        IncludeLaunchDescription(
            PythonLaunchDescriptionSource(PathJoinSubstitution([share, "launch", "mnemo_stack.launch.py"])),
            launch_arguments={
                "config": LaunchConfiguration("config"), "data_dir": LaunchConfiguration("data_dir"),
                "use_sim_time": "false", "policy": LaunchConfiguration("policy"),
                "llm_base_url": LaunchConfiguration("llm_base_url"),
                "with_planner": LaunchConfiguration("with_planner"), "with_skills": "true",
                "skills_profile": PathJoinSubstitution([FindPackageShare("mnemo_skills"), "profiles", "tiago.yaml"]),
                "operator_gate": LaunchConfiguration("operator_gate"),
                "color_topic": "/head_front_camera/rgb/image_raw",
                "depth_topic": "/head_front_camera/depth_registered/image_raw",
                "camera_info_topic": "/head_front_camera/rgb/camera_info",
            }.items()),
    ])
