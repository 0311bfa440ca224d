"""The scene-graph node: a thin ROS wrapper over mnemo_scene_graph.graph.SceneGraph.

Subscribes  names.OBSERVATIONS (Observation; oracle sightings) and/or names.DETECTIONS (DetectionArray;
            perception), chosen by `input_mode`; with `perception` honest, detections only.
            With detections and `depth_misses`: `depth_topic` (Image) and `camera_info_topic`
            (CameraInfo), sensor-data QoS, whose frame of each DetectionArray's stamp judges its misses.
Publishes   names.SCENE_GRAPH (SceneGraph, latched), names.SCENE_GRAPH_MARKERS (MarkerArray, latched),
            names.SCENE_GRAPH_EVENTS (GraphEvent, one per change; the evidence ones, 'observed' and
            'missed', only on request);
            honest: names.OBSERVATIONS, one per frame of detections, its sightings named, supported and
            placed as the graph resolved them (``sightings.integrate_frame``), for memory and keyframes.
Map         `map_file` (a household-scenario file): its furniture (ids, classes, footprints, whether it
            has doors) is declared at start, and rooms of frames that carry none come from its rooms.
Serves      names.GRAPH_GET (GetSceneGraph), names.GRAPH_QUERY (QueryObjects),
            names.GRAPH_HISTORY (GetNodeHistory), names.GRAPH_UPDATE (UpdateNode).
Persists    `data_dir`/scene_graph/{snapshot.json, events.jsonl}; a restart restores the graph.

Concurrency: the executor runs one thread (``executor_threads``) whose callbacks are all short:
it answers the reads and hands each frame, in order, to an ingest thread and each due
publication to a publication thread (``serial_worker.SerialWorker``), so a read never waits
for a frame or for the whole-graph message (nor for rclpy's multi-threaded executor, whose wait
loop spins while a callback waits for a pool thread). An update runs on the ingest thread too,
next after the frame in progress, while its request waits in a group of its own (a coroutine
resumed when the job is done), so reads go on meanwhile. The live graph's lock covers one frame or
one update and the log append (fsync) that makes its events durable; events go out on the topic
only once logged. Reads (get, query, history) are answered from one mirror of the graph, the
publication and the snapshots are made from another (``mirror.GraphMirror``: replicas fed with the
logged events), so neither waits for a frame: a query serves every logged event, an acknowledged
update included, and no event a crash could lose.

Negative evidence: a node the camera looked at and did not see gets a 'missed' event. Looked at,
for a DetectionArray whose depth frame (same stamp, within `depth_stamp_tolerance`) came: its place
was in plain sight in that frame (``coverage.CameraView``: in the image, in range, nothing nearer in
front of it), as in the in-process honest mode. Without one (a robot without depth, a lost or
late frame) the frustum-and-room rule judges (inside the camera's frustum, in the frame's room;
occlusion unknown), and the node counts (``depth_fallbacks``) and logs it, rate-limited. Depth
frames wait undecoded in a short buffer; only the one a DetectionArray takes is decoded, on the
ingest thread, which waits a little (`depth_wait`) for a depth frame DDS delivers after the
detections made from it.

Bad input (NaN positions, empty labels, frames far older than the newest) is dropped item by
item with a counted, rate-limited warning; the node keeps running.
"""
from __future__ import annotations

import math
import threading
import time
from collections import Counter
from dataclasses import dataclass
from typing import Optional

from rclpy.callback_groups import MutuallyExclusiveCallbackGroup
from rclpy.node import Node
from rclpy.task import Future
from rclpy.qos import QoSProfile, ReliabilityPolicy

from mnemo_common import names
from mnemo_common.limits import check_message
from mnemo_common.ros import (
    declare_config, detection_from_msg, fill_error, guarded, latched_qos, observation_from_msg, observation_to_msg,
    pose2d_from_msg, pose3d_from_msg, run_node, sensor_qos, time_from_msg,
)
from mnemo_common.streams import DropCounter, StampedBuffer
from mnemo_common.types import MnemoError, Observation, Pose3D, Status, check_perception_mode, invalid
from mnemo_scene_graph.conversions import (
    camera_view_from_msgs, event_to_msg, graph_to_msg, markers_to_msg, node_to_msg, properties_from_msgs,
    query_from_request,
)
from mnemo_scene_graph.coverage import CameraView
from mnemo_scene_graph.geometry import frustum_visible_fn
from mnemo_scene_graph.graph import EVIDENCE_KINDS, GraphConfig, GraphEvent, IntegrationResult
from mnemo_scene_graph.mirror import GraphMirror
from mnemo_scene_graph.persistence import GraphStore
from mnemo_scene_graph.serial_worker import SerialWorker
from mnemo_scene_graph.sightings import named_observation

NODE_NAME = names.SCENE_GRAPH_NODE
INPUT_MODES = ("observations", "detections", "both")
FRAME_QUEUE_DEPTH = 50  # frames received and not yet integrated; beyond, the oldest is dropped (counted)


@dataclass(frozen=True)
class SceneGraphNodeConfig:
    data_dir: str = "data"
    input_mode: str = "observations"
    perception: str = "oracle"
    map_file: str = ""
    min_match_radius: float = 0.25
    size_match_factor: float = 1.5
    color_veto: bool = True
    attribute_veto: bool = True
    max_average_count: int = 50
    stale_after_misses: int = 1
    merge_on_stale: bool = True
    near_radius: float = 0.5
    max_stamp_lag: float = 3600.0
    mark_stale: bool = True
    depth_misses: bool = True
    depth_topic: str = names.DEPTH_IMAGE
    camera_info_topic: str = names.CAMERA_INFO
    sensor_reliable: bool = False
    depth_stamp_tolerance: float = 0.01
    depth_wait: float = 0.2
    depth_buffer_frames: int = 30
    camera_hfov_deg: float = 65.0
    camera_vfov_deg: float = 51.0
    camera_max_range: float = 4.5
    visibility_margin: float = 0.85
    publish_period: float = 1.0
    publish_cpu_share: float = 0.25
    snapshot_every: int = 2000
    publish_observed_events: bool = False
    frame_id: str = "map"
    marker_object_scale: float = 0.08
    marker_text_height: float = 0.08
    warn_period: float = 5.0

    def graph_config(self) -> GraphConfig:
        return GraphConfig(min_match_radius=self.min_match_radius, size_match_factor=self.size_match_factor,
                           color_veto=self.color_veto, attribute_veto=self.attribute_veto,
                           max_average_count=self.max_average_count,
                           stale_after_misses=self.stale_after_misses, merge_on_stale=self.merge_on_stale,
                           near_radius=self.near_radius, max_stamp_lag=self.max_stamp_lag)


CONFIG_TYPE = SceneGraphNodeConfig

DESCRIPTIONS = {
    "data_dir": "directory holding scene_graph/snapshot.json and scene_graph/events.jsonl",
    "input_mode": "observations (oracle sightings) | detections (perception) | both; honest perception: detections",
    "perception": "oracle | honest: integrate detections only (no simulator ids) and publish the observations "
                  "memory stores, named by this graph's nodes",
    "map_file": "household-scenario file whose furniture and rooms are the robot's map; empty: none",
    "min_match_radius": "smallest association gate in metres",
    "size_match_factor": "association gate = max(min_match_radius, size_match_factor * object size)",
    "color_veto": "never associate a sighting with a node of a different known colour",
    "attribute_veto": "never associate a sighting with a node that knows a different value of one of its lasting "
                      "attributes (brand, printed text, material, ...)",
    "max_average_count": "running-average window of a node's centroid (then exponential)",
    "stale_after_misses": "frames looking at a node without seeing it before it turns stale",
    "merge_on_stale": "a node found absent absorbs its single newer same-label look-alike (it moved)",
    "near_radius": "metres within which two nodes of one room are 'near'",
    "max_stamp_lag": "seconds: frames older than the newest one by more are dropped",
    "mark_stale": "turn nodes in the camera's view that were not seen stale",
    "depth_misses": "detections: a node counts as looked at only where the depth frame of the detections' stamp "
                    "shows its place in plain sight (in the image, in range, nothing nearer in front of it); "
                    "frames without one fall back to the frustum-and-room test of the camera_* parameters",
    "depth_topic": "depth image topic (32FC1 metres or 16UC1 millimetres), registered to the image the "
                   "detections come from, with the same stamps",
    "camera_info_topic": "CameraInfo topic of that image",
    "sensor_reliable": "subscribe to the depth and camera info with RELIABLE instead of BEST_EFFORT",
    "depth_stamp_tolerance": "seconds: the depth frame of a DetectionArray is the one nearest its stamp, if this close",
    "depth_wait": "seconds a DetectionArray waits for its depth frame, which can arrive after the detections made "
                  "from it; none waits again until a depth frame has come since the last wait in vain",
    "depth_buffer_frames": "latest depth frames kept, undecoded, to be found by stamp: deep enough to outlast "
                           "perception's delay at the camera's rate (each holds a whole image)",
    "camera_hfov_deg": "horizontal field of view of the looked-at test without depth (degrees)",
    "camera_vfov_deg": "vertical field of view of the looked-at test without depth (degrees)",
    "camera_max_range": "metres: farther nodes do not count as looked at (the test without depth)",
    "visibility_margin": "fraction of the field of view that counts as looked at (image borders excluded; the test "
                         "without depth)",
    "publish_period": "seconds between publications of the graph and markers (when changed)",
    "publish_cpu_share": "largest share of the time the whole-graph publication may take: a graph too large to "
                         "publish every publish_period is published less often",
    "snapshot_every": "events between two snapshots (the log is flushed after every message)",
    "publish_observed_events": "also publish the evidence events: 'observed' (one per sighting) and 'missed' "
                               "(one per node a frame looked at and did not see)",
    "frame_id": "frame of the graph and markers",
    "marker_object_scale": "smallest sphere diameter of an object marker (m)",
    "marker_text_height": "height of the label markers (m)",
    "warn_period": "seconds between two warnings about dropped input",
}


class SceneGraphNode(Node):
    executor_threads = 1  # run_node spins this node in one thread: its callbacks only hand work over

    def __init__(self, config: Optional[SceneGraphNodeConfig] = None, **kwargs):
        super().__init__(NODE_NAME, **kwargs)
        self.config = config or declare_config(self, CONFIG_TYPE, DESCRIPTIONS)
        if self.config.input_mode not in INPUT_MODES:
            raise ValueError(f"input_mode must be one of {INPUT_MODES}, got {self.config.input_mode!r}")
        self.honest = check_perception_mode(self.config.perception) == "honest"
        input_mode = "detections" if self.honest else self.config.input_mode
        if not 0.0 < self.config.publish_cpu_share <= 1.0:
            raise ValueError(f"publish_cpu_share must be in (0, 1], got {self.config.publish_cpu_share}")
        self._lock = threading.RLock()  # the live graph and its log
        self.store = GraphStore(self.config.data_dir)
        self.graph = self.store.load(self.config.graph_config())
        # Both before any listener: a mirror starts as a copy of the restored graph.
        self.read_mirror = GraphMirror(self.graph, self.store)
        self.publish_mirror = GraphMirror(self.graph, self.store)
        self.store.attach(self.graph)
        self.graph.add_listener(self._on_event)
        self._unlogged: list[GraphEvent] = []
        self._seq = 0
        self.dropped: Counter = Counter()
        self._drop_lock = threading.Lock()
        self._published_seq: Optional[int] = None
        self._next_publish = -math.inf
        self._last_warn = -math.inf

        from mnemo_interfaces.msg import DetectionArray, GraphEvent as GraphEventMsg, Observation as ObservationMsg
        from mnemo_interfaces.msg import SceneGraph as Msg
        from mnemo_interfaces.srv import GetNodeHistory, GetSceneGraph, QueryObjects, UpdateNode
        from sensor_msgs.msg import CameraInfo, Image
        from visualization_msgs.msg import MarkerArray

        # Frames in order on one thread, the publication on another; requests on the executor's.
        self.ingest = SerialWorker("scene_graph_ingest", FRAME_QUEUE_DEPTH, on_drop=self._frame_dropped,
                                   on_error=self._job_failed)
        self.publication = SerialWorker("scene_graph_publication", 1, on_error=self._job_failed)  # due or not
        self.graph_pub = self.create_publisher(Msg, names.SCENE_GRAPH, latched_qos())
        self.marker_pub = self.create_publisher(MarkerArray, names.SCENE_GRAPH_MARKERS, latched_qos())
        self.event_pub = self.create_publisher(GraphEventMsg, names.SCENE_GRAPH_EVENTS, 100)
        if input_mode in ("observations", "both"):
            self.create_subscription(ObservationMsg, names.OBSERVATIONS,
                                     lambda msg: self.ingest.submit(lambda: self._on_observation(msg)), 50)
        # Depth frames by stamp (undecoded), and the frames whose misses were judged without one, by reason.
        self.depth_frames: Optional[StampedBuffer] = None
        self.depth_fallbacks = DropCounter(self.config.warn_period)
        self.camera_info = None  # the latest CameraInfo received (None: none yet)
        self._depth_arrived = threading.Condition()
        self._depth_flowing = False  # a depth frame came since the last wait for one timed out
        if input_mode in ("detections", "both"):
            # Created first: the executor takes ready messages in the order of their subscriptions, so a
            # depth frame and the detections made from it that wait together are buffered in that order.
            if self.config.depth_misses and self.config.mark_stale:
                self.depth_frames = StampedBuffer(max(1, self.config.depth_buffer_frames))
                sensor = sensor_qos(reliable=self.config.sensor_reliable)
                self.create_subscription(Image, self.config.depth_topic, self._on_depth, sensor)
                self.create_subscription(CameraInfo, self.config.camera_info_topic, self._on_camera_info, sensor)
            self.create_subscription(DetectionArray, names.DETECTIONS,
                                     lambda msg: self.ingest.submit(lambda: self._on_detections(msg)), 50)
        # as deep as the simulator's: memory must not lose a patrol's frames
        self.observation_pub = self.create_publisher(ObservationMsg, names.OBSERVATIONS, QoSProfile(
            depth=10000, reliability=ReliabilityPolicy.RELIABLE)) if self.honest else None
        for srv_type, name, handler in ((GetSceneGraph, names.GRAPH_GET, self._get_graph),
                                        (QueryObjects, names.GRAPH_QUERY, self._query),
                                        (GetNodeHistory, names.GRAPH_HISTORY, self._history)):
            self.create_service(srv_type, name, guarded(self, handler))
        self._apply_update = guarded(self, self._update)
        self._job_done = self.create_guard_condition(lambda: None)  # wakes the executor to answer
        self.create_service(UpdateNode, names.GRAPH_UPDATE, self._update_on_ingest,
                            callback_group=MutuallyExclusiveCallbackGroup())
        self.create_timer(max(0.05, self.config.publish_period), lambda: self.publication.submit(self._on_timer))
        self.room_at = self._load_map(self.config.map_file) if self.config.map_file else None
        self.get_logger().info(f"scene graph with {len(self.graph)} nodes (seq {self.graph.seq}) from "
                               f"{self.store.dir}; input {input_mode}, perception {self.config.perception}"
                               + (f", misses judged by {self.config.depth_topic}" if self.depth_frames else "")
                               + (f", map {self.config.map_file}" if self.room_at else ""))
        self._publish_if_changed()

    # -- input ---------------------------------------------------------------------------
    def _visible_fn(self, camera_pose):
        if not self.config.mark_stale or not camera_pose.is_finite():
            return None
        c = self.config
        return frustum_visible_fn(camera_pose, math.radians(c.camera_hfov_deg), math.radians(c.camera_vfov_deg),
                                  c.camera_max_range, margin=c.visibility_margin)

    def _on_depth(self, msg) -> None:
        with self._depth_arrived:
            self.depth_frames.add(time_from_msg(msg.header.stamp), msg)  # decoded if a DetectionArray takes it
            self._depth_flowing = True
            self._depth_arrived.notify_all()

    def _await_depth(self, stamp: float) -> None:
        """Wait up to depth_wait for a depth frame at or after ``stamp``: DDS can deliver a large image
        after the detections made from it. Not while the stream is quiet (nothing received, or the last
        wait was in vain), so a robot without depth, or whose depth stopped, holds no frame up."""
        tolerance = self.config.depth_stamp_tolerance
        with self._depth_arrived:
            if self._depth_flowing and not self._depth_arrived.wait_for(
                    lambda: (self.depth_frames.latest() or (-math.inf,))[0] >= stamp - tolerance,
                    timeout=self.config.depth_wait):
                self._depth_flowing = False

    def _on_camera_info(self, msg) -> None:
        self.camera_info = msg

    def _depth_view(self, stamp: float, camera_pose: Pose3D) -> Optional[CameraView]:
        """The view of the depth frame of the detections' stamp, seen from their camera pose; None
        (the frustum-and-room rule judges the misses) without one, counted and logged by reason."""
        if self.depth_frames is None or not camera_pose.is_finite():
            return None
        self._await_depth(stamp)
        found = self.depth_frames.nearest(stamp, self.config.depth_stamp_tolerance)
        if found is None:
            nearest = self.depth_frames.nearest(stamp, math.inf)
            if nearest is None:
                return self._without_depth("no_depth_frame", f"nothing received on {self.config.depth_topic}")
            return self._without_depth("no_depth_at_stamp", f"the nearest depth frame kept (at most "
                                                            f"{self.config.depth_buffer_frames}) is "
                                                            f"{nearest[0] - stamp:+.3f} s from it")
        if self.camera_info is None:
            return self._without_depth("no_camera_info", f"nothing received on {self.config.camera_info_topic}")
        try:
            return camera_view_from_msgs(camera_pose, found[1], self.camera_info)
        except ValueError as exc:
            return self._without_depth("unreadable_depth", str(exc))

    def _without_depth(self, reason: str, detail: str) -> None:
        if self.depth_fallbacks.drop(reason):
            # (a robot without a depth camera is told once, then at info level: nothing is wrong there)
            log = self.get_logger().info if reason == "no_depth_frame" and self.depth_fallbacks.counts[reason] > 1 \
                else self.get_logger().warning
            log(
                f"misses of a frame judged without depth (frustum and room; occlusion unknown): {reason}: {detail} "
                f"[{self.depth_fallbacks.counts[reason]} frames so far]")

    def _on_observation(self, msg) -> None:
        try:
            obs = observation_from_msg(msg)
            with self._lock:
                result = self.graph.integrate_observation(obs, visible_fn=self._visible_fn(obs.camera_pose))
                self._after_integration(result)
        except Exception as exc:  # noqa: BLE001 - one bad message must not stop the node
            self._count_drop(Counter({f"unreadable_observation ({type(exc).__name__}: {exc})": 1}))

    def _load_map(self, path: str):
        """Declare the map's furniture (kept when already in a restored graph); returns its room lookup."""
        from mnemo_sim.scenario import load_scenario

        from mnemo_scene_graph.map_fixtures import declare_map_fixtures

        home = load_scenario(path)
        with self._lock:
            if any(fx.id not in self.graph for fx in home.fixtures):
                declare_map_fixtures(self.graph, home)
                self._log_events()
        return home.room_at

    def _on_detections(self, msg) -> None:
        try:
            detections = [detection_from_msg(d) for d in msg.detections]
            camera_pose = pose3d_from_msg(msg.camera_pose)
            stamp = time_from_msg(msg.header.stamp)
            robot_pose = pose2d_from_msg(msg.robot_pose)
            room = msg.room or (self.room_at(robot_pose.x, robot_pose.y) or "" if self.room_at else "")
            view = self._depth_view(stamp, camera_pose)  # before the lock: decoding takes a while
            with self._lock:
                result = self.graph.integrate_detections(detections, stamp, room=room, view=view,
                                                         visible_fn=self._visible_fn(camera_pose))  # (judges if no view)
                if self.honest:
                    self._seq += 1
                    frame = Observation(stamp=stamp, robot_pose=robot_pose, camera_pose=camera_pose, room=room,
                                        image_ref=msg.image_ref, seq=self._seq)
                    seen = named_observation(self.graph, frame, detections)
                    self.observation_pub.publish(observation_to_msg(seen, self.config.frame_id))
                self._after_integration(result)
        except Exception as exc:  # noqa: BLE001
            self._count_drop(Counter({f"unreadable_detections ({type(exc).__name__}: {exc})": 1}))

    def _after_integration(self, result: IntegrationResult) -> None:
        self._log_events()
        if result.dropped:
            self._count_drop(result.dropped)

    def _count_drop(self, reasons: Counter) -> None:
        with self._drop_lock:
            self.dropped.update(reasons)
            now = self.get_clock().now().nanoseconds / 1e9
            if now - self._last_warn < self.config.warn_period:
                return
            self._last_warn = now
            summary = ", ".join(f"{k}: {v}" for k, v in sorted(self.dropped.items()))
        self.get_logger().warning(f"dropped input items ({sum(self.dropped.values())} in all; {summary})")

    def _frame_dropped(self, job) -> None:
        self._count_drop(Counter({"frame_queue_full": 1}))

    def _job_failed(self, exc: BaseException) -> None:
        self.get_logger().error(f"scene graph worker job failed: {type(exc).__name__}: {exc}")

    def _on_event(self, event: GraphEvent) -> None:
        self._unlogged.append(event)

    def _log_events(self) -> None:
        """Append the new events to the log (fsync); once there, publish them and hand them to the
        mirrors. Called under the lock. A failed append (full disk) keeps them for the next one."""
        self.store.flush()
        events, self._unlogged = self._unlogged, []
        for event in events:
            if event.kind not in EVIDENCE_KINDS or self.config.publish_observed_events:
                self.event_pub.publish(event_to_msg(event))
        self.read_mirror.add(events)
        self.publish_mirror.add(events)

    # -- output --------------------------------------------------------------------------
    def _on_timer(self) -> None:
        """Keep the mirrors caught up (else the first read after a long patrol without one would
        apply every event of it), publish when due, snapshot when due."""
        self.read_mirror.catch_up()
        self.publish_mirror.catch_up()
        self._publish_if_changed()
        if self.publish_mirror.events_since_snapshot >= self.config.snapshot_every:
            self.publish_mirror.snapshot()

    def _publish_if_changed(self) -> None:
        """Publish the graph and markers from the mirror when it changed, at most publish_cpu_share
        of the time."""
        start = time.monotonic()
        if start < self._next_publish:
            return
        with self.publish_mirror.read() as replica:
            if replica.seq == self._published_seq:
                return
            self._published_seq = replica.seq
            stamp = replica.latest_stamp if math.isfinite(replica.latest_stamp) else 0.0
            nodes = replica.nodes()
            graph_msg = graph_to_msg(nodes, replica.relations(), stamp, self.config.frame_id)
            markers = markers_to_msg(nodes, stamp, self.config.frame_id, self.config.marker_object_scale,
                                     self.config.marker_text_height)
        self.graph_pub.publish(graph_msg)
        self.marker_pub.publish(markers)
        took = time.monotonic() - start
        self._next_publish = start + max(self.config.publish_period, took / self.config.publish_cpu_share)

    # -- services ------------------------------------------------------------------------
    def _get_graph(self, request, response):
        labels = {lbl for lbl in request.labels if lbl}
        kinds = {k for k in request.kinds if k}
        with self.read_mirror.read() as graph:
            nodes = []
            for label in labels or [None]:
                nodes += graph.query(label=label, room=request.room or None, include_stale=request.include_stale)
            nodes = [n for n in {n.id: n for n in nodes}.values() if not kinds or n.kind in kinds]
            ids = {n.id for n in nodes}
            relations = [r for r in graph.relations() if r[0] in ids]
            stamp = graph.latest_stamp if math.isfinite(graph.latest_stamp) else 0.0
            response.graph = graph_to_msg(sorted(nodes, key=lambda n: n.id), relations, stamp,
                                          self.config.frame_id)
        return response

    def _query(self, request, response):
        kwargs = query_from_request(request)
        if kwargs["k"] < 0:
            raise invalid(f"k must be >= 0, got {kwargs['k']}")
        with self.read_mirror.read() as graph:
            response.nodes = [node_to_msg(n) for n in graph.query(**kwargs)]
        return response

    def _history(self, request, response):
        if not request.node_id:
            raise invalid("node_id is empty")
        with self.read_mirror.read() as graph:
            response.events = [event_to_msg(e) for e in graph.history(request.node_id)]
            if request.node_id in graph:
                response.node = node_to_msg(graph.get(request.node_id))
        return response

    async def _update_on_ingest(self, request, response):
        """Answer an update once the ingest thread has applied it (next, after the frame in progress);
        a request beyond the limits is refused here, before it takes a place in the ingest queue."""
        try:
            check_message(request)
        except MnemoError as exc:
            return fill_error(response, exc)
        answered = Future()

        def job() -> None:
            try:
                answered.set_result(self._apply_update(request, response))
            finally:
                self._job_done.trigger()

        if not self.ingest.submit(job, urgent=True):
            return fill_error(response, MnemoError(Status.UNAVAILABLE, "the scene graph node is shutting down"))
        return await answered

    def _update(self, request, response):
        if not request.node_id:
            raise invalid("node_id is empty")
        properties = properties_from_msgs(request.properties)
        with self._lock:
            node = self.graph.update(request.node_id, properties, contents_add=list(request.contents_add),
                                     contents_remove=list(request.contents_remove), outcome=request.outcome,
                                     source=request.source or "interaction")
            self._log_events()
            response.node = node_to_msg(node)
        return response

    def close(self) -> None:
        """Integrate the frames received, flush and snapshot so the next start loads quickly."""
        self.ingest.close()
        self.publication.close()
        with self._lock:
            self._log_events()
            self.publish_mirror.snapshot()


def main(args=None) -> None:
    run_node(SceneGraphNode, args=args)


if __name__ == "__main__":
    main()
