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
COLOR_IMAGE = "/camera/color/image_raw"  # sensor_msgs/Image, colour frames (rgb8)
DEPTH_IMAGE = "/camera/depth/image_raw"  # sensor_msgs/Image, depth frames (32FC1, metres)
CAMERA_INFO = "/camera/color/camera_info"  # sensor_msgs/CameraInfo, pinhole intrinsics
SEGMENTATION = "/camera/segmentation"  # InstanceSegmentation, per-pixel instances (simulator only; ground-truth perception)
CAMERA_POSE = "/mnemo/camera_pose"  # geometry_msgs/PoseStamped, camera optical frame in the map
ROBOT_POSE = "/mnemo/robot_pose"  # geometry_msgs/PoseStamped, robot base in the map
CLOCK = "/clock"  # rosgraph_msgs/Clock, simulated time (seconds since scenario day 0 00:00)

# Memory streams.
OBSERVATIONS = "/mnemo/observations"  # Observation, poses, room and visible objects (oracle: the simulator's; honest: the graph's)
DETECTIONS = "/mnemo/detections"  # DetectionArray, detections of a frame in the map frame
SCENE_GRAPH = "/mnemo/scene_graph"  # SceneGraph, the whole graph (latched)
SCENE_GRAPH_MARKERS = "/mnemo/scene_graph/markers"  # visualization_msgs/MarkerArray, the graph for RViz (latched)
SCENE_GRAPH_EVENTS = "/mnemo/scene_graph/events"  # GraphEvent, every append-only change to the graph
INTERACTIONS = "/mnemo/interactions"  # InteractionEvent, one per physical action, with outcome signals and frames
KEYFRAMES = "/mnemo/keyframes"  # Keyframe, metadata of each saved keyframe
PLANNER_STEPS = "/mnemo/planner/steps"  # PlannerStep, each (action, outcome) of the working memory

# Memory services.
MEMORY_SEARCH_TEXT = "/mnemo/memory/search_text"  # SearchMemoryByText, semantic search with optional filters
MEMORY_SEARCH_TIME = "/mnemo/memory/search_time"  # SearchMemoryByTime, records in a time window or around a time
MEMORY_SEARCH_POSITION = "/mnemo/memory/search_position"  # SearchMemoryByPosition, records within a radius or k nearest
MEMORY_GET_RECORD = "/mnemo/memory/get_record"  # GetMemoryRecord, one record and its raw observation path
MEMORY_ADD_RECORD = "/mnemo/memory/add_record"  # AddMemoryRecord, store an observation; acknowledged when durable

# Scene graph services.
GRAPH_GET = "/mnemo/scene_graph/get"  # GetSceneGraph, the graph with filters
GRAPH_QUERY = "/mnemo/scene_graph/query"  # QueryObjects, objects by label, attribute, place or fixture
GRAPH_HISTORY = "/mnemo/scene_graph/history"  # GetNodeHistory, a node and its append-only events
GRAPH_UPDATE = "/mnemo/scene_graph/update"  # UpdateNode, write properties, contents, outcomes

# Keyframe services.
KEYFRAMES_QUERY = "/mnemo/keyframes/query"  # QueryKeyframes, by node, label, time, trigger
KEYFRAMES_RETRIEVE = "/mnemo/keyframes/retrieve"  # RetrieveKeyframes, task-relevant keyframes
KEYFRAMES_TAG = "/mnemo/keyframes/tag"  # TagKeyframes, attach analyzer labels to keyframes

# Perception.
PERCEPTION_DETECT = "/mnemo/perception/detect"  # Detect, open-vocabulary detection on the latest frame

# Skills (served by the simulator or by the robot's skill server; the planner cannot tell which).
SKILL_NAVIGATE = "/mnemo/skills/navigate"  # Navigate, drive to a fixture or a pose
SKILL_DETECT = "/mnemo/skills/detect"  # Detect, what the camera sees now that matches a query
SKILL_OPEN = "/mnemo/skills/open"  # Open, open a container door or drawer
SKILL_CLOSE = "/mnemo/skills/close"  # Close, close a container
SKILL_PEEK = "/mnemo/skills/peek"  # Peek, look inside an open container
SKILL_PICK = "/mnemo/skills/pick"  # Pick, grasp a visible, reachable object
SKILL_PLACE = "/mnemo/skills/place"  # Place, put the held object on or in a fixture
OPERATOR_CONFIRM = "/mnemo/skills/confirm"  # ConfirmAction, operator gate: approve or reject the next motion

# Simulator control and scoring.
SIM_RUN_PATROL = "/mnemo/sim/run_patrol"  # RunPatrol, patrol up to a task, publishing observations
SIM_START_TASK = "/mnemo/sim/start_task"  # StartTask, set the world to a task's start
SIM_SCORE_TASK = "/mnemo/sim/score_task"  # ScoreTask, judge a task against the hidden truth (scorer only)

# Planner.
RETRIEVE_OBJECT = "/mnemo/retrieve_object"  # RetrieveObject, find and retrieve an object or answer a recall question (action)
