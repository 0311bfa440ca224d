"""Default names of every mnemo topic, service and action (remappable per deployment).

One place, so the nodes agree from day one. The README's ROS API table lists the same names.
"""

# Node names (also the keys of the parameter YAMLs in config/).
SIM_NODE = "mnemo_sim"
MEMORY_NODE = "memory"
PERCEPTION_NODE = "perception"
SCENE_GRAPH_NODE = "scene_graph"
KEYFRAMES_NODE = "keyframes"
ANALYZER_NODE = "interaction_analyzer"
PLANNER_NODE = "planner"
SKILLS_NODE = "skills"

# Sensor streams (published by the simulator, or by the robot's drivers).
COLOR_IMAGE = "/camera/color/image_raw"  # sensor_msgs/Image rgb8
DEPTH_IMAGE = "/camera/depth/image_raw"  # sensor_msgs/Image 32FC1, metres
CAMERA_INFO = "/camera/color/camera_info"  # sensor_msgs/CameraInfo
SEGMENTATION = "/camera/segmentation"  # mnemo_interfaces/InstanceSegmentation (simulator only)
CAMERA_POSE = "/mnemo/camera_pose"  # geometry_msgs/PoseStamped, optical frame in map
ROBOT_POSE = "/mnemo/robot_pose"  # geometry_msgs/PoseStamped, base in map
CLOCK = "/clock"

# Memory streams.
OBSERVATIONS = "/mnemo/observations"  # mnemo_interfaces/Observation
DETECTIONS = "/mnemo/detections"  # mnemo_interfaces/DetectionArray
SCENE_GRAPH = "/mnemo/scene_graph"  # mnemo_interfaces/SceneGraph, latched
SCENE_GRAPH_MARKERS = "/mnemo/scene_graph/markers"  # visualization_msgs/MarkerArray, latched
SCENE_GRAPH_EVENTS = "/mnemo/scene_graph/events"  # mnemo_interfaces/GraphEvent
INTERACTIONS = "/mnemo/interactions"  # mnemo_interfaces/InteractionEvent
KEYFRAMES = "/mnemo/keyframes"  # mnemo_interfaces/Keyframe
PLANNER_STEPS = "/mnemo/planner/steps"  # mnemo_interfaces/PlannerStep

# Memory services.
MEMORY_SEARCH_TEXT = "/mnemo/memory/search_text"  # SearchMemoryByText
MEMORY_SEARCH_TIME = "/mnemo/memory/search_time"  # SearchMemoryByTime
MEMORY_SEARCH_POSITION = "/mnemo/memory/search_position"  # SearchMemoryByPosition
MEMORY_GET_RECORD = "/mnemo/memory/get_record"  # GetMemoryRecord
MEMORY_ADD_RECORD = "/mnemo/memory/add_record"  # AddMemoryRecord

# Scene graph services.
GRAPH_GET = "/mnemo/scene_graph/get"  # GetSceneGraph
GRAPH_QUERY = "/mnemo/scene_graph/query"  # QueryObjects
GRAPH_HISTORY = "/mnemo/scene_graph/history"  # GetNodeHistory
GRAPH_UPDATE = "/mnemo/scene_graph/update"  # UpdateNode

# Keyframe services.
KEYFRAMES_QUERY = "/mnemo/keyframes/query"  # QueryKeyframes
KEYFRAMES_RETRIEVE = "/mnemo/keyframes/retrieve"  # RetrieveKeyframes
KEYFRAMES_TAG = "/mnemo/keyframes/tag"  # TagKeyframes

# Perception.
PERCEPTION_DETECT = "/mnemo/perception/detect"  # Detect (latest frame)

# Skills (served by the simulator or by the robot's skill server; the planner cannot tell which).
SKILL_NAVIGATE = "/mnemo/skills/navigate"  # Navigate
SKILL_DETECT = "/mnemo/skills/detect"  # Detect
SKILL_OPEN = "/mnemo/skills/open"  # Open
SKILL_CLOSE = "/mnemo/skills/close"  # Close
SKILL_PEEK = "/mnemo/skills/peek"  # Peek
SKILL_PICK = "/mnemo/skills/pick"  # Pick
SKILL_PLACE = "/mnemo/skills/place"  # Place
OPERATOR_CONFIRM = "/mnemo/skills/confirm"  # ConfirmAction (operator gate)

# Simulator control and scoring.
SIM_RUN_PATROL = "/mnemo/sim/run_patrol"  # RunPatrol
SIM_START_TASK = "/mnemo/sim/start_task"  # StartTask
SIM_SCORE_TASK = "/mnemo/sim/score_task"  # ScoreTask

# Planner.
RETRIEVE_OBJECT = "/mnemo/retrieve_object"  # RetrieveObject action
