"""`mnemo memory ingest BAG.mcap --raw`: a recording of the simulator's raw sensor topics, as a robot's
bag holds them (no segmentation for a neural backend; the camera pose on a topic or only in /tf),
replayed through perception and the scene graph into a data directory the nodes then serve."""
from pathlib import Path

import numpy as np
import pytest

from mnemo_common import names
from mnemo_common.geometry import pose3d_from_pose2d
from mnemo_common.types import Pose3D
from mnemo_perception.tf_chain import compose, invert
from mnemo_scene_graph.graph import KIND_FIXTURE

SCENARIO = Path(__file__).resolve().parents[2] / "mnemo_sim" / "scenarios" / "student_flat.yaml"
TF_TYPE = "tf2_msgs/msg/TFMessage"
MAP_TO_ODOM = Pose3D((0.5, -0.3, 0.0), (0.0, 0.0, 0.0998334, 0.9950042))  # where odometry started


@pytest.fixture(scope="module")
def patrol():
    """(topic, datatype, message, stamp) of a day's patrol, a frame in 25, and each frame's poses."""
    pytest.importorskip("mujoco")
    from mnemo_common.embedding import get_embedder
    from mnemo_sim.recording import sensor_messages
    from mnemo_sim.render import Renderer, RenderUnavailable
    from mnemo_sim.patrol import DEFAULT_CAMERA
    from mnemo_sim.scenario import load_scenario
    from mnemo_sim.tasks import TaskRunner

    get_embedder()  # torch before the renderer's GL context
    scenario = load_scenario(SCENARIO)
    runner, cam = TaskRunner(scenario), DEFAULT_CAMERA
    try:
        renderer = Renderer(scenario, cam.width, cam.height_px, np.degrees(cam.vfov))
    except RenderUnavailable as exc:
        pytest.skip(f"no GL: {exc}")
    messages, poses = [], {}
    try:
        for i, obs in enumerate(runner.run_patrols(86400.0)):
            if i % 25 == 0 and len(poses) < 12:
                renderer.sync(runner.world)
                frame = renderer.render(obs.camera_pose, stamp=obs.stamp)
                messages += [(*m, obs.stamp) for m in sensor_messages(frame, obs.camera_pose, obs.robot_pose, True)]
                poses[obs.stamp] = (obs.camera_pose, obs.robot_pose)
    finally:
        renderer.close()
    return messages, poses


def test_robot_yaml_gives_topics_backend_and_frames(tmp_path):
    from dataclasses import fields

    from mnemo_memory.cli import RAW_STREAMS
    from mnemo_perception.replay import PoseSource, RawTopics, settings_from_yaml

    assert RAW_STREAMS == tuple(f.name for f in fields(RawTopics))  # the CLI's --<stream>-topic options
    tiago = settings_from_yaml(Path(__file__).resolve().parents[3] / "config" / "tiago.yaml")
    assert (tiago.detector.backend, tiago.poses.source, tiago.poses.map_frame) == ("yolo", "tf", "map")
    assert tiago.poses.camera_frame and tiago.detector.vocabulary
    root = Path(__file__).resolve().parents[3]
    for robot_name in ("tiago", "tidybot"):  # the YAMLs name the topics their launch files use
        topics = settings_from_yaml(root / "config" / f"{robot_name}.yaml").topics
        launch = (root / "launch" / f"{robot_name}.launch.py").read_text()
        assert all(f'"{t}"' in launch for t in (topics.color, topics.depth, topics.camera_info)), robot_name
    robot = tmp_path / "robot.yaml"
    robot.write_text("perception:\n  ros__parameters:\n    color_topic: /head/rgb\n    depth_topic: /head/depth\n"
                     "    backend: ground_truth\n    max_pose_age: 0.5\nmemory:\n  ros__parameters: {}\n")
    settings = settings_from_yaml(robot)
    assert settings.topics == RawTopics(color="/head/rgb", depth="/head/depth")
    assert settings.poses == PoseSource(max_pose_age=0.5) and settings.detector.backend == "ground_truth"


def test_ingest_of_a_raw_sensor_bag_without_raw_says_so(tmp_path, capsys):
    """A bag of camera images, no Observation messages: an error that suggests --raw, and no store."""
    from mnemo_common.ros import image_to_msg
    from mnemo_memory.bag import write_messages
    from mnemo_memory.cli import main as cli_main

    bag = tmp_path / "camera.mcap"
    write_messages(bag, [("/head/rgb", "sensor_msgs/msg/Image", image_to_msg(np.zeros((4, 4, 3), np.uint8), "rgb8",
                                                                             1.0, "camera"), 1.0)])
    data = tmp_path / "data"
    assert cli_main(["ingest", str(bag), "--data-dir", str(data)]) == 1
    err = capsys.readouterr().err
    assert "no Observation messages" in err and "/head/rgb" in err and "--raw" in err
    assert not data.exists()


def test_raw_ingest_without_perception_is_a_clear_error(tmp_path, capsys, monkeypatch):
    import sys

    from mnemo_memory.cli import main as cli_main

    monkeypatch.setitem(sys.modules, "mnemo_perception.replay", None)  # as if not installed
    assert cli_main(["ingest", str(tmp_path / "any.mcap"), "--raw", "--data-dir", str(tmp_path / "data")]) == 1
    assert "mnemo_perception" in capsys.readouterr().err


def _tf_schema() -> str:
    from mnemo_memory.bag import msgdef_text

    return (f"geometry_msgs/TransformStamped[] transforms\n{'=' * 80}\nMSG: geometry_msgs/msg/TransformStamped\n"
            + msgdef_text("geometry_msgs/msg/TransformStamped"))


def _write_bag(path, messages):
    """A rosbag2 MCAP file of (topic, datatype, message, stamp); TFMessages (lists of TransformStamped)
    are encoded from the schema text, as tf2_msgs is not installed here."""
    from mcap.writer import Writer
    from mcap_ros2._dynamic import serialize_dynamic
    from rclpy.serialization import serialize_message

    from mnemo_memory.bag import msgdef_text

    encode_tf = serialize_dynamic(TF_TYPE, _tf_schema())[TF_TYPE]
    schemas, channels = {}, {}
    with open(path, "wb") as f:
        writer = Writer(f)
        writer.start(profile="ros2", library="mnemo test")
        for seq, (topic, datatype, msg, stamp) in enumerate(messages):
            if datatype not in schemas:
                text = _tf_schema() if datatype == TF_TYPE else msgdef_text(datatype)
                schemas[datatype] = writer.register_schema(datatype, "ros2msg", text.encode())
            if topic not in channels:
                channels[topic] = writer.register_channel(topic, "cdr", schemas[datatype])
            data = encode_tf({"transforms": msg}) if datatype == TF_TYPE else serialize_message(msg)
            ns = int(round(stamp * 1e9))
            writer.add_message(channels[topic], log_time=ns, data=data, publish_time=ns, sequence=seq)
        writer.finish()


def _with_tf_instead_of_pose_topics(messages, poses):
    """The recording as a robot's: the camera pose only through map -> odom (static) -> base_link ->
    the camera's optical frame (dynamic, the head moves), no pose topics."""
    from mnemo_perception.conversions import transform_stamped_to_msg
    from mnemo_sim.recording import CAMERA_FRAME

    first = min(poses)
    out = [("/tf_static", TF_TYPE, [transform_stamped_to_msg("map", "odom", first, MAP_TO_ODOM)], first)]
    for topic, datatype, msg, stamp in messages:
        if topic in (names.CAMERA_POSE, names.ROBOT_POSE):
            continue
        if topic == names.COLOR_IMAGE:  # the transforms of a frame come before its images
            camera, robot = poses[stamp]
            base = pose3d_from_pose2d(robot)
            out.append(("/tf", TF_TYPE, [
                transform_stamped_to_msg("odom", "base_link", stamp, compose(invert(MAP_TO_ODOM), base)),
                transform_stamped_to_msg("base_link", CAMERA_FRAME, stamp, compose(invert(base), camera))], stamp))
        out.append((topic, datatype, msg, stamp))
    return out


def _served(data_dir):
    """What the memory and scene-graph nodes would serve from a data directory."""
    from mnemo_common.embedding import get_embedder
    from mnemo_memory.service import MemoryService
    from mnemo_scene_graph.persistence import GraphStore

    graph = GraphStore(data_dir).load()
    memory = MemoryService.open(get_embedder(), data_dir)
    try:
        return memory.count(), graph
    finally:
        memory.close()


@pytest.mark.slow
def test_neural_backend_without_segmentation(patrol, tmp_path, yolo_weights, capsys):
    """Plumbing only: the weights are random, so what the detector finds means nothing."""
    from mnemo_memory.cli import main

    messages, poses = patrol
    bag = tmp_path / "raw.mcap"
    _write_bag(bag, [m for m in messages if m[0] != names.SEGMENTATION])
    data = tmp_path / "data"
    assert main(["ingest", str(bag), "--raw", "--backend", "yolo", "--weights", yolo_weights, "--map", str(SCENARIO),
                 "--data-dir", str(data), "--all"]) == 0
    assert f"read {len(poses)} frames" in capsys.readouterr().out
    records, graph = _served(data)
    assert records == len(poses)
    assert len(graph) > 0 and all(n.kind == KIND_FIXTURE or not n.prop("instance_id") for n in graph.nodes())


@pytest.mark.slow
def test_camera_pose_from_tf(patrol, tmp_path):
    from mnemo_memory.cli import main
    from mnemo_perception.replay import PoseSource, RawTopics, camera_pose_lookup, ingest_raw_bag
    from mnemo_sim.recording import CAMERA_FRAME

    messages, poses = patrol
    bag = tmp_path / "tf.mcap"
    _write_bag(bag, _with_tf_instead_of_pose_topics(messages, poses))

    pose_at = camera_pose_lookup(bag, RawTopics(), PoseSource())  # auto: no pose topic, so /tf
    for stamp, (camera, _) in poses.items():
        found = pose_at(stamp, CAMERA_FRAME)
        assert np.allclose(found.position, camera.position, atol=1e-6)
        assert np.isclose(abs(np.dot(found.orientation, camera.orientation)), 1.0, atol=1e-6)

    data = tmp_path / "data"
    assert main(["ingest", str(bag), "--raw", "--camera-frame", CAMERA_FRAME, "--map-frame", "map",
                 "--map", str(SCENARIO), "--data-dir", str(data), "--all"]) == 0
    records, graph = _served(data)
    assert records == len(poses)
    assert any(n.kind != KIND_FIXTURE for n in graph.nodes())  # the ground-truth backend placed objects

    # a camera frame the transforms do not reach: every frame skipped, and the report says why
    report = ingest_raw_bag(str(bag), str(tmp_path / "none"), poses=PoseSource("tf", camera_frame="gripper"))
    assert report.frames == 0 and report.skipped == len(poses) and "'gripper'" in report.skip_reason
