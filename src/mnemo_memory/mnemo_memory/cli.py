"""``mnemo memory``: query the running memory node over ROS, or build memory offline from a bag.

    mnemo memory query "red mug" [--since T] [--until T] [--near X,Y --radius R] [--room R]
                                 [--label L ...] [--k N] [--by text|time|position] [--around T]
    mnemo memory ingest BAG.mcap [--topics T ...] [--data-dir DIR] [--all]
    mnemo memory ingest BAG.mcap --raw [--config ROBOT.yaml] [--map SCENARIO.yaml] [--backend B]
                                 [--color-topic T ...] [--camera-frame F --map-frame map] [--data-dir DIR]
    mnemo memory compact [--data-dir DIR] [--qdrant-url URL] [--collection C]
    mnemo memory reembed --into NEW [--embedding-model M] [--data-dir DIR] [--qdrant-url URL] [--collection C]

``ingest`` reads mnemo's Observation messages; with ``--raw`` a robot's raw sensor recording (colour,
depth, camera info, a camera pose topic or /tf) goes through perception and the scene graph too
(mnemo_perception.replay), writing the scene graph beside memory. ``reembed`` copies a store into
collection NEW with the vectors of another embedding model (a store opens only with the model that
built it); point the memory node's ``collection`` at NEW afterwards. A copy cut short leaves NEW
marked unfinished (it opens for nothing); run it again to start over (``reembed``).

Times are robot-clock seconds ("93600") or a scenario day and clock time ("1D 02:00", "1 02:00",
"02:00" = day 0).
"""
from __future__ import annotations

import argparse
import re
import sys
import time
from typing import Optional

from mnemo_common import names
from mnemo_common.types import MemoryFilter, MnemoError, Status, invalid

# mnemo_perception.replay.RawTopics' fields: the streams of a raw recording, each a --<stream>-topic
RAW_STREAMS = ("color", "depth", "camera_info", "camera_pose", "robot_pose", "segmentation", "tf", "tf_static")
EMBEDDING_MODEL_HELP = ("a locally installed sentence-transformers model: its directory or a name in the local "
                        "Hugging Face cache (the memory node's embedding_model); default: the bundled MiniLM")
_DAY_TIME = re.compile(r"^(?:(\d+)\s*[dD]?\s+)?(\d{1,2}):(\d{2})(?::(\d{2}(?:\.\d+)?))?$")


def parse_time(text: str) -> float:
    """Seconds, or "[dD ]HH:MM[:SS]" on the scenario clock (seconds since day 0 00:00)."""
    text = text.strip()
    try:
        return float(text)
    except ValueError:
        pass
    m = _DAY_TIME.match(text)
    if not m:
        raise argparse.ArgumentTypeError(f"not a time: {text!r} (use seconds or 'dD HH:MM')")
    day, hh, mm, ss = int(m.group(1) or 0), int(m.group(2)), int(m.group(3)), float(m.group(4) or 0)
    if hh > 23 or mm > 59 or ss >= 60:
        raise argparse.ArgumentTypeError(f"not a clock time: {text!r}")
    return day * 86400 + hh * 3600 + mm * 60 + ss


def format_time(seconds: float) -> str:
    day, rest = divmod(seconds, 86400)
    return f"{int(day)}D {int(rest // 3600):02d}:{int(rest % 3600 // 60):02d}:{rest % 60:05.2f}"


def parse_point(text: str) -> tuple[float, float]:
    try:
        x, y = (float(v) for v in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a point: {text!r} (use X,Y)") from None
    return x, y


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="mnemo memory", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    q = sub.add_parser("query", help="search the running memory node")
    q.add_argument("text", nargs="?", default="", help="what to look for (ranks results by meaning)")
    q.add_argument("--by", choices=("text", "time", "position"), help="which index leads (default: inferred)")
    q.add_argument("--since", type=parse_time)
    q.add_argument("--until", type=parse_time)
    q.add_argument("--around", type=parse_time, help="time search: records nearest this time")
    q.add_argument("--near", type=parse_point, help="X,Y in metres (map frame)")
    q.add_argument("--radius", type=float, default=0.0, help="metres around --near; 0 = the k nearest")
    q.add_argument("--room", default="")
    q.add_argument("--label", action="append", default=[], help="keep records that saw this label (repeatable)")
    q.add_argument("--objects", action="store_true",
                   help="text search: one record per object instance, its best sighting's")
    q.add_argument("--k", type=int, default=10)
    q.add_argument("--timeout", type=float, default=10.0, help="seconds to wait for the memory node")
    i = sub.add_parser("ingest", help="build memory offline from a rosbag2 MCAP file")
    i.add_argument("bag")
    i.add_argument("--topics", nargs="+", default=[names.OBSERVATIONS], help="Observation topics to read")
    i.add_argument("--data-dir", default="data")
    i.add_argument("--qdrant-url", default="")
    i.add_argument("--collection", default="mnemo_memory")
    i.add_argument("--all", action="store_true", help="store every observation (no rate limiting)")
    i.add_argument("--min-interval", type=float, default=2.0)
    i.add_argument("--min-translation", type=float, default=0.5)
    i.add_argument("--min-rotation", type=float, default=0.5)
    i.add_argument("--batch-size", type=int, default=256)
    i.add_argument("--embedding-model", default="", help=EMBEDDING_MODEL_HELP)
    raw = i.add_argument_group("raw sensor recordings (--raw): defaults from --config, else the perception node's")
    raw.add_argument("--raw", action="store_true",
                     help="replay colour, depth, camera info and camera pose (or /tf) through perception "
                          "and the scene graph (needs mnemo_perception)")
    raw.add_argument("--config", default="", help="robot YAML: its perception node's topics, backend and frames")
    raw.add_argument("--map", default="", help="household-scenario file whose rooms and furniture are the map")
    raw.add_argument("--backend", help="perception backend: ground_truth (needs segmentation) | yolo | sam")
    raw.add_argument("--weights", help="yolo weights file (.pt)")
    for stream in RAW_STREAMS:
        raw.add_argument(f"--{stream.replace('_', '-')}-topic", dest=f"{stream}_topic")
    raw.add_argument("--pose-source", choices=("auto", "topic", "tf"),
                     help="camera pose from its PoseStamped topic or /tf (auto: the topic when the bag has it)")
    raw.add_argument("--map-frame", help="the map frame of /tf look-ups")
    raw.add_argument("--camera-frame", help="the camera frame of /tf look-ups (implies --pose-source tf); "
                                            "default: the colour image's frame_id")
    raw.add_argument("--keep-instance-ids", action="store_true", help="keep a ground-truth detector's instance ids")
    c = sub.add_parser("compact", help="merge repeated views of unchanged places (stop the memory node first)")
    c.add_argument("--data-dir", default="data")
    c.add_argument("--qdrant-url", default="")
    c.add_argument("--collection", default="mnemo_memory")
    c.add_argument("--place-radius", type=float, default=0.5, help="metres between robot positions of one place")
    c.add_argument("--place-yaw", type=float, default=0.5, help="radians between headings of one place")
    r = sub.add_parser("reembed", help="copy a store into another collection with another embedding model's "
                                        "vectors (stop the memory node first)")
    r.add_argument("--into", required=True, help="the new collection (created; must not exist)")
    r.add_argument("--embedding-model", default="", help=EMBEDDING_MODEL_HELP)
    r.add_argument("--data-dir", default="data")
    r.add_argument("--qdrant-url", default="")
    r.add_argument("--collection", default="mnemo_memory", help="the store to copy")
    return parser


def choose_index(args) -> str:
    if args.by:
        return args.by
    if args.near is not None and not args.text:
        return "position"
    if args.around is not None or (not args.text and (args.since is not None or args.until is not None)):
        return "time"
    return "text"


def _query(args) -> int:
    import rclpy

    from mnemo_common.ros import memory_filter_to_msg, time_to_msg
    from mnemo_interfaces.srv import SearchMemoryByPosition, SearchMemoryByText, SearchMemoryByTime

    from mnemo_common.ros import memory_record_from_msg

    by = choose_index(args)
    if args.objects and by != "text":
        print(f"mnemo memory query: --objects is a text search, not a {by} search", file=sys.stderr)
        return 2
    f = MemoryFilter(room=args.room, labels=list(args.label))
    if by != "time" and (args.since is not None or args.until is not None):
        f.since, f.until = args.since, args.until
    if by != "position" and args.near is not None:
        if args.radius <= 0:
            print("mnemo memory query: --near needs --radius > 0 unless searching --by position", file=sys.stderr)
            return 2
        f.near, f.radius = args.near, args.radius
    if by == "text":
        srv_type, name = SearchMemoryByText, names.MEMORY_SEARCH_TEXT
        req = SearchMemoryByText.Request(text=args.text, k=args.k, filter=memory_filter_to_msg(f),
                                         objects=args.objects)
    elif by == "time":
        srv_type, name = SearchMemoryByTime, names.MEMORY_SEARCH_TIME
        req = SearchMemoryByTime.Request(text=args.text, k=args.k, filter=memory_filter_to_msg(f))
        if args.around is not None:
            req.around = time_to_msg(args.around)
        else:
            req.use_range = True
            req.since = time_to_msg(args.since if args.since is not None else 0.0)
            req.until = time_to_msg(args.until if args.until is not None else 4e9)
    else:
        if args.near is None:
            print("mnemo memory query: --by position needs --near X,Y", file=sys.stderr)
            return 2
        srv_type, name = SearchMemoryByPosition, names.MEMORY_SEARCH_POSITION
        req = SearchMemoryByPosition.Request(x=args.near[0], y=args.near[1], radius=args.radius, k=args.k,
                                             text=args.text, filter=memory_filter_to_msg(f))
    rclpy.init()
    node = rclpy.create_node("mnemo_memory_query")
    try:
        client = node.create_client(srv_type, name)
        if not client.wait_for_service(timeout_sec=args.timeout):
            print(f"mnemo memory query: no memory node answers on {name} (is it running, same ROS_DOMAIN_ID?)",
                  file=sys.stderr)
            return 3
        future = client.call_async(req)
        deadline = time.monotonic() + args.timeout
        while not future.done() and time.monotonic() < deadline:
            rclpy.spin_once(node, timeout_sec=0.1)
        if not future.done():
            print("mnemo memory query: the memory node did not answer in time", file=sys.stderr)
            return 3
        res = future.result()
    finally:
        node.destroy_node()
        rclpy.try_shutdown()
    if res.error_code:
        print(f"mnemo memory query: error {res.error_code}: {res.error_msg}", file=sys.stderr)
        return 1
    from mnemo_memory.caption import describe_sighting

    records = [memory_record_from_msg(m) for m in res.records]
    print(f"{len(records)} records ({by} index)")
    for r in records:
        print(f"{r.score:8.3f}  {format_time(r.stamp)}  ({r.robot_pose.x:6.2f}, {r.robot_pose.y:6.2f})  "
              f"{r.room or '-':<12} {r.caption}  [{r.id}]")
        if 0 <= r.matched_sighting < len(r.sightings):
            s = r.sightings[r.matched_sighting]
            print(f"{'':10}matched: {describe_sighting(s)}{f'  [{s.object_id}]' if s.object_id else ''}")
    return 0


def _rate_limiter(args):
    from mnemo_memory.ingest import RateLimiter

    return None if args.all else RateLimiter(args.min_interval, args.min_translation, args.min_rotation)


def _bag_image_topics(bag: str) -> list[str]:
    """The topics of a bag that carry sensor_msgs/Image."""
    from mcap.reader import make_reader

    with open(bag, "rb") as f:
        summary = make_reader(f).get_summary()
    if summary is None:
        return []
    images = {i for i, schema in summary.schemas.items() if schema.name == "sensor_msgs/msg/Image"}
    return sorted(c.topic for c in summary.channels.values() if c.schema_id in images)


def _ingest(args) -> int:
    if args.raw:
        return _ingest_raw(args)
    import contextlib

    from mnemo_common.embedding import get_embedder

    from mnemo_memory.bag import read_observations
    from mnemo_memory.ingest import RecordBuilder
    from mnemo_memory.service import MemoryService

    with contextlib.closing(read_observations(args.bag, args.topics)) as observations:
        if next(observations, None) is None:  # nothing to store: say why before creating a store
            images = _bag_image_topics(args.bag)
            hint = (f"; it holds images on {', '.join(images)}: a raw sensor recording? ingest it with --raw"
                    if images else "")
            raise invalid(f"no Observation messages on {', '.join(args.topics)} in {args.bag}{hint}")
    embedder = get_embedder(model=args.embedding_model)
    memory = MemoryService.open(embedder, args.data_dir, url=args.qdrant_url, collection=args.collection)
    builder = RecordBuilder(embedder, rate_limiter=_rate_limiter(args))
    seen = stored = 0
    start = time.monotonic()
    try:
        batch = []
        for obs in read_observations(args.bag, args.topics):
            seen += 1
            if builder.admit(obs):
                batch.append(obs)
            if len(batch) >= args.batch_size:
                stored += len(memory.add(builder.build(batch, limited=False)))
                batch = []
        if batch:
            stored += len(memory.add(builder.build(batch, limited=False)))
        total = memory.count()
    finally:
        memory.close()
    print(f"read {seen} observations from {args.bag}, stored {stored} records "
          f"({seen - stored} skipped by the rate limiter) in {time.monotonic() - start:.1f} s; "
          f"the store now holds {total}")
    return 0 if seen else 1


def _ingest_raw(args) -> int:
    from dataclasses import replace

    try:
        from mnemo_perception.replay import ReplaySettings, ingest_raw_bag, settings_from_yaml
    except ImportError as exc:
        raise MnemoError(Status.UNAVAILABLE, f"--raw replays through perception, and mnemo_perception does not "
                                             f"import here ({exc}); install it or ingest Observation bags") from exc
    settings = settings_from_yaml(args.config) if args.config else ReplaySettings()
    topics = replace(settings.topics, **{s: getattr(args, f"{s}_topic") for s in RAW_STREAMS
                                         if getattr(args, f"{s}_topic") is not None})
    detector = replace(settings.detector, **{k: getattr(args, k) for k in ("backend", "weights")
                                             if getattr(args, k) is not None})
    poses = settings.poses
    if args.camera_frame is not None:
        poses = replace(poses, source="tf", camera_frame=args.camera_frame)
    poses = replace(poses, **{k: v for k, v in (("source", args.pose_source), ("map_frame", args.map_frame))
                              if v is not None})
    start = time.monotonic()
    report = ingest_raw_bag(args.bag, args.data_dir, topics, detector, args.map, not args.keep_instance_ids,
                            _rate_limiter(args), args.qdrant_url, args.collection, poses)
    print(f"read {report.frames} frames from {args.bag} ({report.dropped} unusable), stored {report.records} "
          f"records, scene graph of {report.nodes} nodes in {time.monotonic() - start:.1f} s under {args.data_dir}")
    if report.skipped:
        print(f"skipped {report.skipped} frames without camera info or pose (first: {report.skip_reason})",
              file=sys.stderr)
    return 0 if report.frames else 1


def _compact(args) -> int:
    from mnemo_memory.compaction import CompactionConfig, compact_store
    from mnemo_memory.store import open_store

    store = open_store(args.data_dir, url=args.qdrant_url, collection=args.collection)
    start = time.monotonic()
    try:
        report = compact_store(store, CompactionConfig(args.place_radius, args.place_yaw))
    finally:
        store.close()
    share = report.after / report.before if report.before else 1.0
    print(f"compacted {report.before} records to {report.after} ({share:.1%}; {report.extended} merged runs) "
          f"in {time.monotonic() - start:.1f} s")
    return 0


def _reembed(args) -> int:
    from mnemo_common.embedding import get_embedder

    from mnemo_memory.reembed import reembed_store

    if args.into == args.collection:
        raise invalid(f"--into must name another collection than {args.collection!r}")
    embedder = get_embedder(model=args.embedding_model)
    start = time.monotonic()
    report = reembed_store(embedder, args.into, args.data_dir, url=args.qdrant_url, collection=args.collection)
    if report.discarded:
        print(f"discarded the unfinished copy in {args.into!r} ({report.discarded} stopped before it was done)")
    print(f"copied {report.copied} records of {args.collection!r} ({report.source_model}, {report.source_dim}-d) "
          f"into {args.into!r} ({embedder.name}, {embedder.dim}-d) in {time.monotonic() - start:.1f} s")
    return 0


def main(argv: Optional[list[str]] = None) -> int:
    args = build_parser().parse_args(argv)
    commands = {"query": _query, "ingest": _ingest, "compact": _compact, "reembed": _reembed}
    try:
        return commands[args.command](args)
    except MnemoError as exc:
        print(f"mnemo memory {args.command}: {exc.message}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
