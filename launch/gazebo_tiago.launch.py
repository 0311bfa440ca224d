"""mnemo against PAL's public Tiago Gazebo simulation (tiago_simulation), which publishes the same
head camera topics and runs nav2 and play_motion2 like the real robot. Start the simulation first:
    ros2 launch tiago_gazebo tiago_gazebo.launch.py navigation:=true moveit:=true world_name:=pal_office
    ros2 launch mnemo gazebo_tiago.launch.py
"""
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, IncludeLaunchDescription
from launch.launch_description_sources import PythonLaunchDescriptionSource
from launch.substitutions import LaunchConfiguration, PathJoinSubstitution
from launch_ros.substitutions import FindPackageShare


def generate_launch_description():
    share = FindPackageShare("mnemo")
    return LaunchDescription([
        DeclareLaunchArgument("data_dir", default_value="data_gazebo",
                              description="directory where memory, scene graph and keyframes persist"),
        DeclareLaunchArgument("operator_gate", default_value="false", choices=["true", "false"],
                              description="each physical primitive waits for the operator's approval"),
        DeclareLaunchArgument("policy", default_value="offline", choices=["offline", "llm"],
                              description="planner policy: offline (no model) or llm"),
        DeclareLaunchArgument("llm_base_url", default_value="",
                              description="OpenAI-compatible endpoint for the planner's llm policy, keyframe selection and the "
                                          "interaction analyzer's VLM; empty: offline everywhere"),
        IncludeLaunchDescription(
            PythonLaunchDescriptionSource(PathJoinSubstitution([share, "launch", "mnemo_stack.launch.py"])),
            launch_arguments={
                "config": PathJoinSubstitution([share, "config", "tiago.yaml"]),
                "data_dir": LaunchConfiguration("data_dir"), "use_sim_time": "true",
                "policy": LaunchConfiguration("policy"), "llm_base_url": LaunchConfiguration("llm_base_url"),
                "with_skills": "true",
                "skills_profile": PathJoinSubstitution([FindPackageShare("mnemo_skills"), "profiles", "tiago.yaml"]),
                "operator_gate": LaunchConfiguration("operator_gate"),
                "color_topic": "/head_front_camera/rgb/image_raw",
                "depth_topic": "/head_front_camera/depth_registered/image_raw",
                "camera_info_topic": "/head_front_camera/rgb/camera_info",
            }.items()),
    ])
