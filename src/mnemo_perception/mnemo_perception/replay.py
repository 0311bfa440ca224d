"""A raw sensor recording (colour, depth, camera info, camera pose or /tf; the simulator's
segmentation only for the ground-truth backend) replayed offline through perception, the scene
graph and memory: the same path the nodes take live, writing a data directory the memory and
scene-graph nodes then serve. The topics are configurable (``RawTopics``; a robot's launch remaps
its camera onto them), and so is the camera pose's source (``PoseSource``).

    python -m mnemo_perception.replay BAG.mcap --data-dir DIR [--map SCENARIO.yaml] [--backend B]
    mnemo memory ingest BAG.mcap --raw ...   (the same, with a robot YAML's perception parameters)

``--map``: a household-scenario file whose rooms and furniture are the robot's map (fixture ids,
footprints, rooms). In honest mode (the default) a detector's instance ids never reach the graph.
"""
from __future__ import annotations

import contextlib
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any, Callable, Iterable, Optional, Union

from mnemo_common import names
from mnemo_common.types import Observation, Pose3D, invalid
from mnemo_memory.ingest import RateLimiter, RecordBuilder
from mnemo_perception.backends import BackendConfig
from mnemo_perception.tf_chain import TransformBuffer, TransformError

POSE_SOURCES = ("auto", "topic", "tf")


@dataclass(frozen=True)
class RawTopics:
    """The topics of a recording (the perception node's defaults; a robot's launch remaps them)."""

    color: str = names.COLOR_IMAGE
    depth: str = names.DEPTH_IMAGE
    camera_info: str = names.CAMERA_INFO
    camera_pose: str = names.CAMERA_POSE  # PoseStamped of the optical frame in the map
    robot_pose: str = names.ROBOT_POSE  # optional; the camera's heading stands in when absent
    segmentation: str = ""  # the simulator's instance segmentation: only for the ground-truth backend
    tf: str = "/tf"  # tf2_msgs/TFMessage: the camera pose's other source
    tf_static: str = "/tf_static"

    def all(self) -> list[str]:
        """The sensor and pose topics rclpy decodes (the transforms are read apart: ``read_transforms``)."""
        return [t for t in (self.color, self.depth, self.camera_info, self.camera_pose, self.robot_pose,
                            self.segmentation) if t]


@dataclass(frozen=True)
class PoseSource:
    """Where a frame's camera pose comes from: ``topic`` (PoseStamped on RawTopics.camera_pose),
    ``tf`` (the transforms map_frame -> camera_frame on /tf and /tf_static; an empty camera_frame
    takes the colour image's frame_id) or ``auto`` (the topic when the recording holds it, else tf).
    A frame without a pose within ``max_pose_age`` s of its stamp is skipped."""

    source: str = "auto"
    map_frame: str = "map"
    camera_frame: str = ""
    max_pose_age: float = 0.2

    def __post_init__(self):
        if self.source not in POSE_SOURCES:
            raise invalid(f"pose source must be one of {POSE_SOURCES}, got {self.source!r}")


@dataclass(frozen=True)
class ReplaySettings:
    """What a robot's YAML says about its perception: topics, detector, camera pose source."""

    topics: RawTopics = RawTopics()
    detector: BackendConfig = BackendConfig()
    poses: PoseSource = PoseSource()


def settings_from_yaml(path: Union[str, Path], node: str = names.PERCEPTION_NODE) -> ReplaySettings:
    """The perception node's parameters of a robot YAML (keyed by node name, as the launch files pass
    them) as replay settings: ``<stream>_topic``, the backend's parameters, pose_source (``topic`` or
    ``tf``), map_frame, camera_frame, max_pose_age. What it leaves out keeps the defaults."""
    import yaml

    with open(path) as f:
        params = ((yaml.safe_load(f) or {}).get(node) or {}).get("ros__parameters") or {}
    topics = RawTopics(**{f.name: params[f"{f.name}_topic"] for f in fields(RawTopics) if f"{f.name}_topic" in params})
    detector = BackendConfig(**{f.name: tuple(params[f.name]) if isinstance(params[f.name], list) else params[f.name]
                                for f in fields(BackendConfig) if f.name in params})
    poses = PoseSource(**{f.name: params["pose_source" if f.name == "source" else f.name] for f in fields(PoseSource)
                          if ("pose_source" if f.name == "source" else f.name) in params})
    return ReplaySettings(topics, detector, poses)


def frames_from_messages(messages: Iterable[tuple[str, Any]], topics: RawTopics, max_pose_age: float = 0.2,
                         camera_pose_at: Optional[Callable[[float, str], Pose3D]] = None,
                         report: Optional[RawIngestReport] = None):
    """perception Frames from a recording's (topic, message) stream in log order: colour, depth and
    segmentation grouped by header stamp, with the latest camera info and the camera pose nearest in
    time, or, given ``camera_pose_at(stamp, image frame_id)`` (raising TransformError), the pose it
    gives. Frames without camera info or a pose within ``max_pose_age`` s are skipped, counted in
    ``report``."""
    from mnemo_common.ros import (camera_info_from_msg, depth_from_msg, pose_stamped_from_msg, robot_pose_from_msg,
                                  time_from_msg)
    from mnemo_common.streams import StampedBuffer
    from mnemo_perception.conversions import color_from_msg, segmentation_from_msg
    from mnemo_perception.frame import Frame, Intrinsics
    from mnemo_perception.pipeline import StampSync

    streams = ("color", "depth", "segmentation") if topics.segmentation else ("color", "depth")
    sync = StampSync(streams, capacity=50)
    camera_poses: StampedBuffer = StampedBuffer(capacity=400)
    robot_poses: StampedBuffer = StampedBuffer(capacity=400)
    intrinsics = None
    pending: list[tuple[float, dict]] = []  # complete image groups waiting for a later pose

    def skip(reason: str) -> None:
        if report is not None:
            report.skipped += 1
            report.skip_reason = report.skip_reason or reason

    def pose_of(stamp: float, group: dict) -> Optional[Pose3D]:
        if camera_pose_at is not None:
            try:
                return camera_pose_at(stamp, group["color"].header.frame_id)
            except TransformError as exc:
                skip(str(exc))
                return None
        nearest = camera_poses.nearest(stamp, max_pose_age)
        if nearest is None:
            skip(f"no camera pose on {topics.camera_pose} within {max_pose_age} s of {stamp:.3f} s")
        return nearest[1] if nearest else None

    def ready(flush: bool = False):
        while pending:
            stamp, group = pending[0]
            latest = camera_poses.latest()
            if camera_pose_at is None and not flush and (latest is None or latest[0] < stamp):
                return  # a pose at or after this stamp may still come
            pending.pop(0)
            if intrinsics is None:
                skip(f"no camera info on {topics.camera_info} before {stamp:.3f} s")
                continue
            pose = pose_of(stamp, group)
            if pose is None:
                continue
            robot = robot_poses.nearest(stamp, max_pose_age)
            yield Frame(stamp=stamp, rgb=color_from_msg(group["color"]), depth=depth_from_msg(group["depth"]),
                        intrinsics=intrinsics, camera_pose=pose, robot_pose=robot[1] if robot else None,
                        segmentation=segmentation_from_msg(group["segmentation"]) if "segmentation" in group
                        else None)

    for topic, msg in messages:
        if topic == topics.camera_info:
            intrinsics = camera_info_from_msg(msg, Intrinsics)
        elif topic == topics.camera_pose:
            camera_poses.add(*pose_stamped_from_msg(msg))
        elif topic == topics.robot_pose:
            robot_poses.add(*robot_pose_from_msg(msg))
        else:
            stream = {topics.color: "color", topics.depth: "depth", topics.segmentation: "segmentation"}.get(topic)
            if stream is None:
                continue
            header = msg.mask.header if stream == "segmentation" else msg.header
            stamp = time_from_msg(header.stamp)
            group = sync.add(stream, int(round(stamp * 1e9)), msg)
            if group is not None:
                pending.append((stamp, group))
        yield from ready()
    yield from ready(flush=True)


def read_transforms(bag: Union[str, Path], topics: RawTopics, tolerance: float = 0.0) -> TransformBuffer:
    """Every transform on the recording's /tf and /tf_static, decoded from the schemas the bag stores
    (tf2_msgs need not be installed)."""
    from mcap.reader import make_reader
    from mcap_ros2.decoder import DecoderFactory

    from mnemo_perception.conversions import transform_stamped_from_msg

    buffer = TransformBuffer(tolerance)
    with open(bag, "rb") as f:
        reader = make_reader(f, decoder_factories=[DecoderFactory()])
        for _, channel, _, msg in reader.iter_decoded_messages(topics=[topics.tf, topics.tf_static],
                                                               log_time_order=True):
            for transform in msg.transforms:
                buffer.add(*transform_stamped_from_msg(transform), static=channel.topic == topics.tf_static)
    return buffer


def camera_pose_lookup(bag: Union[str, Path], topics: RawTopics,
                       poses: PoseSource) -> Optional[Callable[[float, str], Pose3D]]:
    """None when the camera pose comes from its topic; else ``(stamp, image frame_id) -> pose`` of the
    camera frame in the map frame from the recording's transforms."""
    from mnemo_memory.bag import read_messages

    if poses.source == "topic":
        return None
    if poses.source == "auto":
        with contextlib.closing(read_messages(bag, [topics.camera_pose])) as stream:
            if next(stream, None) is not None:
                return None
    buffer = read_transforms(bag, topics, poses.max_pose_age)
    if not len(buffer):
        raise invalid(f"{bag} holds no camera pose on {topics.camera_pose} and no transforms on {topics.tf} "
                      f"or {topics.tf_static}")

    def camera_pose_at(stamp: float, image_frame: str) -> Pose3D:
        camera_frame = poses.camera_frame or image_frame
        if not camera_frame:
            raise TransformError("the colour image has no frame_id: name the camera frame")
        return buffer.lookup(poses.map_frame, camera_frame, stamp)

    return camera_pose_at


@dataclass
class RawIngestReport:
    frames: int = 0
    skipped: int = 0  # image groups without camera info or a camera pose: never reached perception
    skip_reason: str = ""  # the first one's
    dropped: int = 0  # frames perception could not use
    records: int = 0
    nodes: int = 0


def ingest_frames(frames: Iterable[Any], memory: Any, builder: RecordBuilder, graph: Any, perception: Any,
                  rooms: Optional[Callable[[float, float], str]] = None, batch_size: int = 256,
                  report: Optional[RawIngestReport] = None) -> RawIngestReport:
    """Each frame through perception, the scene graph (association, supports) and, rate-limited and
    captioned from what the graph made of it, into memory. ``rooms(x, y)`` names the room of a position."""
    from mnemo_perception.conversions import camera_heading
    from mnemo_perception.pipeline import FrameError
    from mnemo_scene_graph.coverage import CameraView
    from mnemo_scene_graph.sightings import integrate_frame

    report, batch = report or RawIngestReport(), []
    for frame in frames:
        report.frames += 1
        try:
            fd = perception.process(frame)
        except FrameError:
            report.dropped += 1
            continue
        detections = [replace(d, mask=None) for d in fd.detections]
        robot_pose = frame.robot_pose or camera_heading(frame.camera_pose)
        room = rooms(robot_pose.x, robot_pose.y) if rooms is not None else ""
        obs = Observation(stamp=frame.stamp, robot_pose=robot_pose, camera_pose=frame.camera_pose, room=room or "")
        k = frame.intrinsics  # the frame's depth says which nodes it showed empty, as live frames do
        view = CameraView.from_depth(frame.camera_pose, k.fx, k.fy, k.cx, k.cy, frame.depth)
        seen = integrate_frame(graph, obs, detections, view=view)
        if builder.admit(seen):
            batch.append(seen)
        if len(batch) >= batch_size:
            report.records += len(memory.add(builder.build(batch, limited=False)))
            batch = []
    if batch:
        report.records += len(memory.add(builder.build(batch, limited=False)))
    report.nodes = len(graph)
    return report


def ingest_raw_bag(bag: str, data_dir: str, topics: RawTopics = RawTopics(),
                   backend: Union[str, BackendConfig] = "ground_truth", map_scenario: str = "", honest: bool = True,
                   rate_limiter: Optional[RateLimiter] = None, qdrant_url: str = "", collection: str = "mnemo_memory",
                   poses: PoseSource = PoseSource()) -> RawIngestReport:
    """A raw sensor recording into a data directory the memory and scene-graph nodes then serve:
    memory under ``data_dir`` and the scene graph under ``data_dir/scene_graph``. ``backend``: a
    backend name or a whole BackendConfig. ``map_scenario`` (a household-scenario file) gives the
    mapped furniture and rooms, as a robot's map does."""
    from mnemo_common.embedding import get_embedder
    from mnemo_perception.backends import make_detector, needs_segmentation
    from mnemo_perception.pipeline import Perception
    from mnemo_scene_graph.persistence import GraphStore

    from mnemo_memory.bag import read_messages
    from mnemo_memory.service import MemoryService

    detector = BackendConfig(backend=backend) if isinstance(backend, str) else backend
    if needs_segmentation(detector) and not topics.segmentation:
        topics = replace(topics, segmentation=names.SEGMENTATION)
    camera_pose_at = camera_pose_lookup(bag, topics, poses)
    embedder = get_embedder()  # before any GL context a map's renderer might make (torch, then Mesa)
    store = GraphStore(data_dir)
    graph = store.load()
    store.attach(graph)
    rooms = None
    if map_scenario:
        from mnemo_scene_graph.map_fixtures import declare_map_fixtures
        from mnemo_sim.scenario import load_scenario

        home = load_scenario(map_scenario)
        declare_map_fixtures(graph, home)
        rooms = home.room_at
    memory = MemoryService.open(embedder, data_dir, url=qdrant_url, collection=collection)
    try:
        perception = Perception(make_detector(detector), drop_instance_ids=honest)
        report = RawIngestReport()
        frames = frames_from_messages(read_messages(bag, topics.all()), topics, poses.max_pose_age, camera_pose_at,
                                      report)
        ingest_frames(frames, memory, RecordBuilder(embedder, rate_limiter=rate_limiter), graph, perception, rooms,
                      report=report)
    finally:
        memory.close()
        store.flush()
        store.snapshot(graph)
    return report


def main(argv: Optional[list[str]] = None) -> int:
    """``python -m mnemo_perception.replay BAG.mcap [options]``: ``mnemo memory ingest BAG.mcap --raw``."""
    import sys

    from mnemo_memory.cli import main as memory_main

    return memory_main(["ingest", "--raw", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    import sys

    sys.exit(main())
