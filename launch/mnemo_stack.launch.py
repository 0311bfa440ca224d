"""The mnemo nodes above the robot: memory, perception, scene graph, keyframes, interaction
analyzer, planner and (on a robot) the skill server. Included by every deployment's launch file;
the deployment chooses the parameters YAML, the camera topics and whether skills run here."""
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument
from launch.conditions import IfCondition
from launch.substitutions import LaunchConfiguration, PathJoinSubstitution
from launch_ros.actions import Node
from launch_ros.substitutions import FindPackageShare

from mnemo_common import names

ARGUMENTS = [
    ("config", PathJoinSubstitution([FindPackageShare("mnemo"), "config", "sim.yaml"]),
     "parameters YAML keyed by node name (config/sim.yaml, tiago.yaml, tidybot.yaml)"),
    ("data_dir", "data", "directory where memory, scene graph and keyframes persist (keep it on a volume)"),
    ("use_sim_time", "false", "nodes take time from /clock (Gazebo, Isaac Sim)"),
    ("policy", "offline", "planner policy: offline (no model) or llm (OpenAI-compatible endpoint)"),
    ("llm_base_url", "", "OpenAI-compatible endpoint (planner llm policy, keyframe selection, interaction "
                         "analyzer VLM); empty: offline everywhere"),
    ("with_planner", "true", "start the planner (RetrieveObject action)"),
    ("with_skills", "true", "start the robot skill server (false when a simulator serves the skills)"),
    ("skills_profile", PathJoinSubstitution([FindPackageShare("mnemo_skills"), "profiles", "tiago.yaml"]),
     "robot profile of the skill server: controllers, gripper and per-primitive motions"),
    ("operator_gate", "true", "each physical primitive waits for the operator's approval on /mnemo/skills/confirm"),
    ("color_topic", names.COLOR_IMAGE, "robot's colour image topic (sensor_msgs/Image)"),
    ("depth_topic", names.DEPTH_IMAGE, "robot's depth image topic, registered to colour (sensor_msgs/Image)"),
    ("camera_info_topic", names.CAMERA_INFO, "robot's colour camera info topic (sensor_msgs/CameraInfo)"),
    ("perception", "oracle", "oracle: the simulator's instance ids pass through perception (an upper bound) | "
                             "honest: identity is the scene graph's, from detections alone (the simulator's "
                             "perception must match)"),
    ("map_file", "", "household-scenario file whose furniture and rooms the scene graph takes as the map; empty: none"),
    ("respawn", "true", "start a node again when it exits (crash, kill); the memory, scene graph and keyframes "
                        "reopen their stores under data_dir"),
]
RESPAWN_DELAY = 2.0  # s before a node that exited starts again

CHOICES = {"use_sim_time": ["true", "false"], "policy": ["offline", "llm"], "with_planner": ["true", "false"],
           "with_skills": ["true", "false"], "operator_gate": ["true", "false"], "respawn": ["true", "false"],
           "perception": ["oracle", "honest"]}


def generate_launch_description():
    declared = [DeclareLaunchArgument(name, default_value=default, description=description,
                                      choices=CHOICES.get(name))
                for name, default, description in ARGUMENTS]
    config = LaunchConfiguration("config")
    common = {"use_sim_time": LaunchConfiguration("use_sim_time")}
    persistent = {**common, "data_dir": LaunchConfiguration("data_dir")}
    with_llm = {**persistent, "llm_base_url": LaunchConfiguration("llm_base_url")}
    perception = {"perception": LaunchConfiguration("perception")}
    camera = [(names.COLOR_IMAGE, LaunchConfiguration("color_topic")),
              (names.DEPTH_IMAGE, LaunchConfiguration("depth_topic")),
              (names.CAMERA_INFO, LaunchConfiguration("camera_info_topic"))]
    supervised = {"respawn": LaunchConfiguration("respawn"), "respawn_delay": RESPAWN_DELAY}
    nodes = [
        Node(package="mnemo_memory", executable="memory_node", name=names.MEMORY_NODE, output="screen",
             **supervised, parameters=[config, persistent]),
        Node(package="mnemo_perception", executable="perception_node", name=names.PERCEPTION_NODE,
             output="screen", **supervised, parameters=[config, {**common, **perception}], remappings=camera),
        Node(package="mnemo_scene_graph", executable="scene_graph_node", name=names.SCENE_GRAPH_NODE,
             output="screen", **supervised, remappings=camera,  # (its depth frames judge misses)
             parameters=[config, {**persistent, **perception, "map_file": LaunchConfiguration("map_file")}]),
        Node(package="mnemo_keyframes", executable="keyframes_node", name=names.KEYFRAMES_NODE, output="screen",
             **supervised, parameters=[config, with_llm], remappings=camera),
        Node(package="mnemo_interaction", executable="analyzer_node", name=names.ANALYZER_NODE, output="screen",
             **supervised, parameters=[config, with_llm]),
        Node(package="mnemo_planner", executable="planner_node", name=names.PLANNER_NODE, output="screen",
             **supervised, parameters=[config, {**common, "policy": LaunchConfiguration("policy"),
                                                "llm_base_url": LaunchConfiguration("llm_base_url")}],
             condition=IfCondition(LaunchConfiguration("with_planner"))),
        Node(package="mnemo_skills", executable="skills_node", name=names.SKILLS_NODE, output="screen",
             **supervised, parameters=[config, {**common, "profile_file": LaunchConfiguration("skills_profile"),
                                                "operator_gate": LaunchConfiguration("operator_gate")}],
             condition=IfCondition(LaunchConfiguration("with_skills"))),
    ]
    return LaunchDescription(declared + nodes)
