"""A raw sensor recording (colour, depth, camera info, camera pose; the simulator's segmentation only
for the ground-truth backend) replayed offline through perception, the scene graph and memory:
the same path the nodes take live, writing a data directory the memory and scene-graph nodes then
serve. The topics are configurable (``RawTopics``; a robot's launch remaps its camera onto them).

    python -m mnemo_perception.replay BAG.mcap --data-dir DIR [--map SCENARIO.yaml] [--backend B]

``--map``: a household-scenario file whose rooms and furniture are the robot's map (fixture ids,
footprints, rooms). In honest mode (the default) a detector's instance ids never reach the graph.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Callable, Iterable, Optional

from mnemo_common import names
from mnemo_common.types import Observation
from mnemo_memory.ingest import RateLimiter, RecordBuilder


@dataclass(frozen=True)
class RawTopics:
    """The sensor topics of a recording (the perception node's defaults; a robot's launch remaps them)."""

    color: str = names.COLOR_IMAGE
    depth: str = names.DEPTH_IMAGE
    camera_info: str = names.CAMERA_INFO
    camera_pose: str = names.CAMERA_POSE  # PoseStamped of the optical frame in the map
    robot_pose: str = names.ROBOT_POSE  # optional; the camera's heading stands in when absent
    segmentation: str = ""  # the simulator's instance segmentation: only for the ground-truth backend

    def all(self) -> list[str]:
        return [t for t in (self.color, self.depth, self.camera_info, self.camera_pose, self.robot_pose,
                            self.segmentation) if t]


def frames_from_messages(messages: Iterable[tuple[str, Any]], topics: RawTopics, max_pose_age: float = 0.2):
    """perception Frames from a recording's (topic, message) stream in log order: colour, depth and
    segmentation grouped by header stamp, with the latest camera info and the camera pose nearest in
    time (frames without a pose within ``max_pose_age`` s are skipped)."""
    from mnemo_common.ros import camera_info_from_msg, pose_stamped_from_msg, robot_pose_from_msg, time_from_msg
    from mnemo_perception.conversions import color_from_msg, depth_from_msg, segmentation_from_msg
    from mnemo_perception.frame import Frame, Intrinsics
    from mnemo_perception.pipeline import StampedBuffer, StampSync

    streams = ("color", "depth", "segmentation") if topics.segmentation else ("color", "depth")
    sync = StampSync(streams, capacity=50)
    camera_poses: StampedBuffer = StampedBuffer(capacity=400)
    robot_poses: StampedBuffer = StampedBuffer(capacity=400)
    intrinsics = None
    pending: list[tuple[float, dict]] = []  # complete image groups waiting for a later pose

    def ready(flush: bool = False):
        while pending:
            stamp, group = pending[0]
            latest = camera_poses.latest()
            if not flush and (latest is None or latest[0] < stamp):
                return  # a pose at or after this stamp may still come
            pending.pop(0)
            pose = camera_poses.nearest(stamp, max_pose_age)
            if pose is None or intrinsics is None:
                continue
            robot = robot_poses.nearest(stamp, max_pose_age)
            yield Frame(stamp=stamp, rgb=color_from_msg(group["color"]), depth=depth_from_msg(group["depth"]),
                        intrinsics=intrinsics, camera_pose=pose[1], robot_pose=robot[1] if robot else None,
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


@dataclass
class RawIngestReport:
    frames: int = 0
    dropped: int = 0  # frames perception could not use
    records: int = 0
    nodes: int = 0


def ingest_frames(frames: Iterable[Any], memory: Any, builder: RecordBuilder, graph: Any, perception: Any,
                  rooms: Optional[Callable[[float, float], str]] = None, batch_size: int = 256) -> RawIngestReport:
    """Each frame through perception, the scene graph (association, supports) and, rate-limited and
    captioned from what the graph made of it, into memory. ``rooms(x, y)`` names the room of a position."""
    from mnemo_perception.conversions import camera_heading
    from mnemo_perception.pipeline import FrameError
    from mnemo_scene_graph.sightings import integrate_frame

    report, batch = RawIngestReport(), []
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
        seen = integrate_frame(graph, obs, detections)
        if builder.admit(seen):
            batch.append(seen)
        if len(batch) >= batch_size:
            report.records += len(memory.add(builder.build(batch, limited=False)))
            batch = []
    if batch:
        report.records += len(memory.add(builder.build(batch, limited=False)))
    report.nodes = len(graph)
    return report


def ingest_raw_bag(bag: str, data_dir: str, topics: RawTopics = RawTopics(), backend: str = "ground_truth",
                   map_scenario: str = "", honest: bool = True, rate_limiter: Optional[RateLimiter] = None,
                   qdrant_url: str = "", collection: str = "mnemo_memory") -> RawIngestReport:
    """A raw sensor recording into a data directory the memory and scene-graph nodes then serve:
    memory under ``data_dir`` and the scene graph under ``data_dir/scene_graph``. ``map_scenario``
    (a household-scenario file) gives the mapped furniture and rooms, as a robot's map does."""
    from mnemo_common.embedding import get_embedder
    from mnemo_perception.backends import BackendConfig, make_detector
    from mnemo_perception.pipeline import Perception
    from mnemo_scene_graph.persistence import GraphStore

    from mnemo_memory.bag import read_messages
    from mnemo_memory.service import MemoryService

    if backend == "ground_truth" and not topics.segmentation:
        topics = replace(topics, segmentation=names.SEGMENTATION)
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
        perception = Perception(make_detector(BackendConfig(backend=backend)), drop_instance_ids=honest)
        frames = frames_from_messages(read_messages(bag, topics.all()), topics)
        report = ingest_frames(frames, memory, RecordBuilder(embedder, rate_limiter=rate_limiter), graph,
                               perception, rooms)
    finally:
        memory.close()
        store.flush()
        store.snapshot(graph)
    return report


def main(argv: Optional[list[str]] = None) -> int:
    """``python -m mnemo_perception.replay BAG.mcap --data-dir DIR [--map SCENARIO] ...``: a raw sensor
    recording through perception, the scene graph and memory."""
    import argparse
    import time

    p = argparse.ArgumentParser(prog="python -m mnemo_perception.replay", description=main.__doc__.split(":", 1)[1])
    p.add_argument("bag")
    p.add_argument("--data-dir", default="data")
    p.add_argument("--map", default="", help="household-scenario file whose rooms and furniture are the map")
    p.add_argument("--backend", default="ground_truth", help="perception backend (ground_truth needs segmentation)")
    for field_name, default in RawTopics().__dict__.items():
        p.add_argument(f"--{field_name.replace('_', '-')}-topic", default=default)
    p.add_argument("--keep-instance-ids", action="store_true", help="keep a ground-truth detector's instance ids")
    p.add_argument("--all", action="store_true", help="store every frame (no rate limiting)")
    args = p.parse_args(argv)
    topics = RawTopics(**{f: getattr(args, f"{f}_topic") for f in RawTopics().__dict__})
    start = time.monotonic()
    report = ingest_raw_bag(args.bag, args.data_dir, topics, args.backend, args.map, not args.keep_instance_ids,
                            None if args.all else RateLimiter())
    print(f"read {report.frames} frames from {args.bag} ({report.dropped} unusable), stored {report.records} "
          f"records, scene graph of {report.nodes} nodes in {time.monotonic() - start:.1f} s under {args.data_dir}")
    return 0 if report.frames else 1


if __name__ == "__main__":
    import sys

    sys.exit(main())
