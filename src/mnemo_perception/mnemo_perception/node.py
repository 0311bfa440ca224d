"""Perception node: RGB-D frames -> DetectionArray in the map frame, and the Detect service.

Subscribes  colour (rgb8/bgr8), depth (32FC1 metres / 16UC1 millimetres), CameraInfo, the
            simulator's InstanceSegmentation (ground-truth backends only), the camera pose
            (PoseStamped, optical frame in map; or TF via tf2_ros with pose_source:=tf) and the
            robot pose (PoseStamped, base in map; optional).
Publishes   names.DETECTIONS (DetectionArray).
Serves      names.PERCEPTION_DETECT (Detect): the latest frame's detections matching an
            open-vocabulary query, with scene-graph node ids from names.GRAPH_QUERY when the
            scene graph is up.
Asks        optionally (``attribute_base_url``) an OpenAI-compatible VLM for the attributes pixels
            cannot give (brand, printed text, ...), from a worker of its own
            (``attribute_reader.py``): a frame carries what was read of its objects before it.

Streams are grouped by exact header stamp; a frame that cannot be used (sizes differ, no camera
info, no valid depth, no pose near its stamp, bad encoding) is dropped with a counted warning
at most once per ``warn_period`` per reason. The backend runs in a worker thread on the newest
complete frame; poses travel apart from images, so the worker waits up to ``pose_wait`` for a
camera pose at or after the frame's stamp before it takes the nearest one.
"""
from __future__ import annotations

import importlib
import math
import queue
import threading
from dataclasses import dataclass, replace
from typing import Any, Optional

import rclpy
from geometry_msgs.msg import PoseStamped
from rclpy.callback_groups import MutuallyExclusiveCallbackGroup, ReentrantCallbackGroup
from rclpy.node import Node
from sensor_msgs.msg import CameraInfo, Image

from mnemo_common import names
from mnemo_common.limits import check_message
from mnemo_common.llm import ChatClient, LlmConfig
from mnemo_common.ros import (
    camera_info_from_msg, declare_config, depth_from_msg, detection_to_msg, fill_error, pose2d_to_msg,
    pose_stamped_from_msg, robot_pose_from_msg, run_node, sensor_qos, time_from_msg,
)
from mnemo_common.streams import DropCounter, StampedBuffer
from mnemo_common.types import MnemoError, Pose3D, Status, check_perception_mode
from mnemo_interfaces.msg import DetectionArray, InstanceSegmentation
from mnemo_interfaces.srv import Detect, QueryObjects
from mnemo_perception.attribute_reader import READABLE_KEYS, AttributeReader, AttributeReaderConfig, ReadStatus
from mnemo_perception.backends import BackendConfig, make_detector, needs_segmentation
from mnemo_perception.conversions import (
    camera_heading, color_from_msg, frame_detections_to_msg, segmentation_from_msg,
)
from mnemo_perception.deproject import DeprojectionConfig
from mnemo_perception.frame import Frame, FrameDetections, Intrinsics
from mnemo_perception.pipeline import FrameError, Perception, StampSync
from mnemo_perception.query import match_query

NODE_NAME = names.PERCEPTION_NODE


@dataclass(frozen=True)
class PerceptionNodeConfig:
    backend: str = "ground_truth"
    weights: str = ""
    sam_checkpoint: str = ""
    sam_model_type: str = "vit_t"
    sam_box_source: str = "ground_truth"
    vocabulary: tuple[str, ...] = ()
    fixture_labels: tuple[str, ...] = ()
    min_score: float = 0.25
    device: str = "cpu"
    perception: str = "oracle"
    color_topic: str = names.COLOR_IMAGE
    depth_topic: str = names.DEPTH_IMAGE
    camera_info_topic: str = names.CAMERA_INFO
    segmentation_topic: str = names.SEGMENTATION
    camera_pose_topic: str = names.CAMERA_POSE
    robot_pose_topic: str = names.ROBOT_POSE
    pose_source: str = "topic"
    map_frame: str = "map"
    camera_frame: str = ""
    sensor_reliable: bool = False
    max_pose_age: float = 0.2
    pose_wait: float = 0.5
    outlier_method: str = "open3d"
    min_points: int = 10
    use_embedder: bool = True
    similarity_threshold: float = 0.55
    graph_timeout: float = 1.0
    graph_radius: float = 0.5
    warn_period: float = 5.0
    attribute_base_url: str = ""
    attribute_model: str = ""
    attribute_api_key: str = ""
    attribute_timeout: float = 10.0
    attribute_keys: tuple[str, ...] = READABLE_KEYS
    attribute_min_box_px: int = 48
    attribute_max_reads_per_frame: int = 2
    attribute_same_object_radius: float = 0.1
    attribute_retry_after: float = 30.0


CONFIG_TYPE = PerceptionNodeConfig

DESCRIPTIONS = {
    "backend": "detector backend: ground_truth | yolo | sam",
    "weights": "ultralytics segmentation weights file (.pt) for the yolo backend (never downloaded)",
    "sam_checkpoint": "SAM / MobileSAM checkpoint file for the sam backend (never downloaded)",
    "sam_model_type": "SAM architecture: vit_t (MobileSAM) | vit_b | vit_l | vit_h",
    "sam_box_source": "where the sam backend gets its box prompts: ground_truth | yolo",
    "vocabulary": "labels to detect (text prompts of open-vocabulary models); empty keeps every label",
    "fixture_labels": "labels the neural backends report with kind 'fixture'",
    "min_score": "minimum detector confidence",
    "perception": "oracle: detections keep the detector's instance ids (the ground-truth backend's are the "
                  "simulator's) | honest: object detections leave without them (identity is the scene graph's), "
                  "fixture ids as node ids (the map's)",
    "device": "torch device of the neural backends, e.g. cpu or cuda:0",
    "color_topic": "colour image topic (rgb8 or bgr8)",
    "depth_topic": "depth image topic (32FC1 metres or 16UC1 millimetres), registered to the colour image",
    "camera_info_topic": "CameraInfo topic of the colour camera",
    "segmentation_topic": "simulator instance segmentation topic (ground_truth box sources only)",
    "camera_pose_topic": "PoseStamped of the optical frame in the map frame (pose_source topic)",
    "robot_pose_topic": "PoseStamped of the robot base in the map frame (optional)",
    "pose_source": "camera pose from 'topic' or from 'tf' (needs tf2_ros)",
    "map_frame": "frame the detections are expressed in",
    "camera_frame": "optical frame id for TF look-ups; empty uses the colour image's frame_id",
    "sensor_reliable": "subscribe to the camera streams with RELIABLE instead of BEST_EFFORT",
    "max_pose_age": "seconds: a frame without a camera pose this close to its stamp is dropped",
    "pose_wait": "seconds a frame waits for a camera pose at or after its stamp (a pose can arrive after its "
                 "images) before the nearest pose is taken (pose_source topic)",
    "outlier_method": "outlier removal of each instance's points: open3d | numpy",
    "min_points": "instances with fewer valid depth pixels are skipped",
    "use_embedder": "match Detect queries by meaning (MiniLM) when no label matches by word",
    "similarity_threshold": "minimum cosine similarity of a query to '<colour> <label>'",
    "graph_timeout": "seconds to wait for the scene graph's node ids in Detect",
    "graph_radius": "metres: how near a scene-graph node must be to a detection to lend its id",
    "warn_period": "seconds between repeated warnings about the same kind of dropped frame",
    "attribute_base_url": "OpenAI-compatible VLM endpoint that reads attributes pixels cannot give (brand, printed "
                          "text, ...) from crops of the detections; empty (the default): none are read",
    "attribute_model": "VLM model name at attribute_base_url",
    "attribute_api_key": "API key of attribute_base_url; empty: OPENAI_API_KEY from the environment",
    "attribute_timeout": "seconds one attribute read may take",
    "attribute_keys": "the attributes the VLM may answer (colour and size are measured, never read)",
    "attribute_min_box_px": "short side in pixels of the smallest detection box worth reading",
    "attribute_max_reads_per_frame": "most attribute reads a frame asks for, and most waiting at once",
    "attribute_same_object_radius": "metres: a detection of the label within this of where it was read is that "
                                    "object, and carries what was read instead of being read again",
    "attribute_retry_after": "seconds without attribute reads after the endpoint failed",
}


class PerceptionNode(Node):
    def __init__(self, **kwargs: Any):
        super().__init__(NODE_NAME, **kwargs)
        self.config: PerceptionNodeConfig = declare_config(self, CONFIG_TYPE, DESCRIPTIONS)
        cfg = self.config
        if cfg.pose_source not in ("topic", "tf"):
            raise ValueError(f"pose_source must be 'topic' or 'tf', got {cfg.pose_source!r}")
        backend = BackendConfig(backend=cfg.backend, weights=cfg.weights, sam_checkpoint=cfg.sam_checkpoint,
                                sam_model_type=cfg.sam_model_type, sam_box_source=cfg.sam_box_source,
                                vocabulary=tuple(cfg.vocabulary), fixture_labels=tuple(cfg.fixture_labels),
                                min_score=cfg.min_score, device=cfg.device)
        self.perception = Perception(make_detector(backend, self.get_logger()),
                                     DeprojectionConfig(outlier_method=cfg.outlier_method, min_points=cfg.min_points),
                                     drop_instance_ids=check_perception_mode(cfg.perception) == "honest")
        if cfg.outlier_method == "open3d":  # loaded now rather than on the first frame (seconds on a small machine)
            importlib.import_module("open3d")
        self._detector_lock = threading.Lock()  # models are not thread-safe: worker and Detect take turns
        self.drops = DropCounter(cfg.warn_period)
        self.published = 0
        self._intrinsics: Optional[Intrinsics] = None
        self._camera_poses: StampedBuffer[Pose3D] = StampedBuffer()
        self._robot_poses = StampedBuffer()
        streams = ("color", "depth") + (("segmentation",) if needs_segmentation(backend) else ())
        self._sync = StampSync(streams)
        self._latest: Optional[tuple[Frame, FrameDetections]] = None  # newest processed frame
        self._latest_lock = threading.Lock()
        self._pending: Optional[dict[str, Any]] = None  # newest complete group of streams, not yet assembled
        self._wake = threading.Condition()
        self._stopping = False
        self._embedder = None
        self.attribute_reader = make_attribute_reader(cfg)
        self._attribute_requests: queue.SimpleQueue = queue.SimpleQueue()  # bounded by the reader's limits
        self._attribute_warnings = DropCounter(cfg.warn_period)

        self._tf_buffer = None
        if cfg.pose_source == "tf":
            try:
                import tf2_ros
            except ImportError as exc:
                raise RuntimeError("pose_source 'tf' needs tf2_ros, which is not installed here; "
                                   "use pose_source:=topic with a camera pose topic") from exc
            self._tf_buffer = tf2_ros.Buffer()
            self._tf_listener = tf2_ros.TransformListener(self._tf_buffer, self)
        else:
            self.create_subscription(PoseStamped, cfg.camera_pose_topic, self._on_camera_pose, 50)
        self.create_subscription(PoseStamped, cfg.robot_pose_topic, self._on_robot_pose, 50)

        image_qos = sensor_qos(reliable=cfg.sensor_reliable)
        self.create_subscription(Image, cfg.color_topic, lambda m: self._on_stream("color", m), image_qos)
        self.create_subscription(Image, cfg.depth_topic, lambda m: self._on_stream("depth", m), image_qos)
        self.create_subscription(CameraInfo, cfg.camera_info_topic, self._on_camera_info, image_qos)
        if "segmentation" in streams:
            self.create_subscription(InstanceSegmentation, cfg.segmentation_topic,
                                     lambda m: self._on_stream("segmentation", m), image_qos)
        self.publisher = self.create_publisher(DetectionArray, names.DETECTIONS, 20)

        self._graph_group = ReentrantCallbackGroup()
        self._graph_client = self.create_client(QueryObjects, names.GRAPH_QUERY, callback_group=self._graph_group)
        self.create_service(Detect, names.PERCEPTION_DETECT, self._on_detect,
                            callback_group=MutuallyExclusiveCallbackGroup())
        self._worker = threading.Thread(target=self._work, name="perception-worker", daemon=True)
        self._worker.start()
        self._attribute_worker = None
        if self.attribute_reader is not None:  # one request can take seconds: never on the frames' thread
            self._attribute_worker = threading.Thread(target=self._read_attributes, name="attribute-reader",
                                                      daemon=True)
            self._attribute_worker.start()
        self.get_logger().info(f"perception ready: backend={cfg.backend}, streams={list(streams)}, "
                               f"pose from {cfg.pose_source}, attributes read by "
                               + (f"{self.attribute_reader.client.config.model} at {cfg.attribute_base_url}"
                                  if self.attribute_reader is not None else "no VLM"))

    # -- inputs ----------------------------------------------------------------------
    def _on_camera_info(self, msg: CameraInfo) -> None:
        self._intrinsics = camera_info_from_msg(msg, Intrinsics)

    def _on_camera_pose(self, msg: PoseStamped) -> None:
        self._guard_input("camera pose", lambda: self._camera_poses.add(*pose_stamped_from_msg(msg)))
        with self._wake:
            self._wake.notify_all()  # the worker may be waiting for this pose

    def _on_robot_pose(self, msg: PoseStamped) -> None:
        self._guard_input("robot pose", lambda: self._robot_poses.add(*robot_pose_from_msg(msg)))

    def _guard_input(self, what: str, action: Any) -> Any:
        """Run one input callback's work; a malformed message is counted and ignored, never fatal."""
        try:
            return action()
        except (ValueError, TypeError) as exc:
            self._drop("bad_message", f"{what}: {exc}")
            return None

    def _on_stream(self, stream: str, msg: Any) -> None:
        group = self._guard_input(stream, lambda: self._sync.add(
            stream, rclpy.time.Time.from_msg(msg.header.stamp).nanoseconds, msg))
        if group is None:
            return
        with self._wake:
            if self._pending is not None:
                self.drops.counts["superseded"] += 1  # the worker is busy; only the newest frame matters
            self._pending = group
            self._wake.notify_all()

    def _assemble(self, group: dict[str, Any]) -> Frame:
        color_msg = group["color"]
        stamp = time_from_msg(color_msg.header.stamp)
        if self._intrinsics is None:
            raise FrameError("no_camera_info", "no CameraInfo received yet")
        seg_msg = group.get("segmentation")
        try:
            rgb, depth = color_from_msg(color_msg), depth_from_msg(group["depth"])
            segmentation = segmentation_from_msg(seg_msg) if seg_msg is not None else None
        except ValueError as exc:  # an encoding or size that does not decode
            raise FrameError("bad_message", str(exc)) from exc
        camera_pose = self._camera_pose_at(stamp, color_msg.header.frame_id, color_msg.header.stamp)
        robot = self._robot_poses.nearest(stamp, self.config.max_pose_age)
        return Frame(stamp=stamp, rgb=rgb, depth=depth, intrinsics=self._intrinsics, camera_pose=camera_pose,
                     robot_pose=robot[1] if robot else camera_heading(camera_pose), segmentation=segmentation)

    def _camera_pose_at(self, stamp: float, image_frame: str, stamp_msg: Any) -> Pose3D:
        if self._tf_buffer is not None:
            try:
                t = self._tf_buffer.lookup_transform(self.config.map_frame, self.config.camera_frame or image_frame,
                                                     rclpy.time.Time.from_msg(stamp_msg))
            except Exception as exc:  # noqa: BLE001 - tf2 raises several unrelated exception types
                raise FrameError("no_tf", str(exc)) from exc
            tr, q = t.transform.translation, t.transform.rotation
            return Pose3D((tr.x, tr.y, tr.z), (q.x, q.y, q.z, q.w))
        with self._wake:  # the pose of a frame can come after its images
            self._wake.wait_for(lambda: self._stopping or (self._camera_poses.latest() or (-math.inf,))[0] >= stamp,
                                timeout=self.config.pose_wait)
        nearest = self._camera_poses.nearest(stamp, self.config.max_pose_age)
        if nearest is None:
            latest = self._camera_poses.latest()
            detail = (f"newest camera pose is {stamp - latest[0]:.3f} s away from the frame" if latest
                      else "no camera pose received yet")
            raise FrameError("stale_pose" if latest else "no_pose", detail)
        return nearest[1]

    def _drop(self, reason: str, detail: str) -> None:
        if self.drops.drop(reason):
            self.get_logger().warning(f"dropped frame ({reason}): {detail} [{self.drops.counts[reason]} so far]")

    # -- processing ------------------------------------------------------------------
    def _process(self, frame: Frame) -> FrameDetections:
        with self._detector_lock:
            result = self.perception.process(frame)
        if self.attribute_reader is None:
            return result
        detections, requests = self.attribute_reader.select(frame.rgb, result.detections)
        for request in requests:
            self._attribute_requests.put(request)
        return replace(result, detections=detections)

    def _read_attributes(self) -> None:
        while (request := self._attribute_requests.get()) is not None:  # None: the node is closing
            if self._stopping:
                self.attribute_reader.cancel(request)
                continue
            try:
                result = self.attribute_reader.read(request)
            except Exception as exc:  # noqa: BLE001 - one bad crop must not end reading for good
                self.attribute_reader.cancel(request)
                self.get_logger().error(f"attribute read of a {request.label} failed: {type(exc).__name__}: {exc}")
                continue
            if result.status != ReadStatus.READ and self._attribute_warnings.drop(result.status.value):
                count = self.attribute_reader.counts[result.status.value]
                self.get_logger().warning(f"attribute read of a {request.label} {result.status.value}: "
                                          f"{result.detail} [{count} so far]")

    def _work(self) -> None:
        while True:
            with self._wake:
                while self._pending is None and not self._stopping:
                    self._wake.wait()
                if self._stopping:
                    return
                group, self._pending = self._pending, None
            try:
                frame = self._assemble(group)
                result = self._process(frame)
            except FrameError as exc:
                self._drop(exc.reason, exc.detail)
                continue
            except Exception as exc:  # noqa: BLE001 - one bad frame must not stop perception
                self.get_logger().error(f"perception failed on a frame: {type(exc).__name__}: {exc}")
                self.drops.counts["error"] += 1
                continue
            with self._latest_lock:
                self._latest = (frame, result)
            self.publisher.publish(frame_detections_to_msg(result, self.config.map_frame))
            self.published += 1

    def latest_frame(self) -> Optional[Frame]:
        with self._latest_lock:
            return self._latest[0] if self._latest else None

    # -- Detect ----------------------------------------------------------------------
    async def _on_detect(self, request: Detect.Request, response: Detect.Response) -> Detect.Response:
        try:
            check_message(request)
            with self._latest_lock:
                latest = self._latest
            if latest is None:
                raise MnemoError(Status.UNAVAILABLE, "no camera frame processed yet")
            result = latest[1]
            embedder = self._get_embedder() if self.config.use_embedder and request.query.strip() else None
            matches = [d for d, _ in match_query(request.query, result.detections, embedder,
                                                 self.config.similarity_threshold)]
            await self._fill_node_ids(matches)
            response.detections = [detection_to_msg(d) for d in matches]
            response.robot_pose = pose2d_to_msg(result.robot_pose)
            return fill_error(response, None)
        except Exception as exc:  # noqa: BLE001 - a service answers with an error code, never crashes
            if not isinstance(exc, (MnemoError, ValueError)):
                self.get_logger().error(f"Detect failed: {type(exc).__name__}: {exc}")
            return fill_error(response, exc)

    def _get_embedder(self):
        if self._embedder is None:
            from mnemo_common.embedding import get_embedder

            self._embedder = get_embedder()
        return self._embedder

    async def _fill_node_ids(self, detections: list) -> None:
        """Ask the scene graph for the node of each detection (same label, near its centroid).
        Missing scene graph or late answers leave node_id empty."""
        if not detections or not self._graph_client.service_is_ready():
            return
        futures = []
        for d in detections:
            request = QueryObjects.Request(label=d.label, use_region=True, x=float(d.centroid[0]),
                                           y=float(d.centroid[1]), radius=float(self.config.graph_radius), k=1)
            futures.append(self._graph_client.call_async(request))

        def give_up() -> None:
            for f in futures:
                if not f.done():
                    f.cancel()

        timer = self.create_timer(self.config.graph_timeout, give_up, callback_group=self._graph_group)
        try:
            for d, future in zip(detections, futures):
                answer = await future
                if answer is not None and answer.error_code == 0 and answer.nodes:
                    d.node_id = answer.nodes[0].id
        finally:
            timer.cancel()
            self.destroy_timer(timer)

    def close(self) -> None:
        with self._wake:
            self._stopping = True
            self._wake.notify_all()
        self._worker.join(timeout=5.0)
        if self._attribute_worker is not None:
            self._attribute_requests.put(None)
            self._attribute_worker.join(timeout=self.config.attribute_timeout + 1.0)  # (a read in flight ends)


def make_attribute_reader(cfg: PerceptionNodeConfig) -> Optional[AttributeReader]:
    """The VLM attribute reader the parameters ask for; None without an endpoint (offline)."""
    llm = LlmConfig.from_values(cfg.attribute_base_url, cfg.attribute_model, cfg.attribute_api_key,
                                cfg.attribute_timeout)
    if llm is None:
        return None
    return AttributeReader(ChatClient(llm), AttributeReaderConfig(
        keys=tuple(cfg.attribute_keys), min_box_px=cfg.attribute_min_box_px,
        max_reads_per_frame=cfg.attribute_max_reads_per_frame,
        same_object_radius=cfg.attribute_same_object_radius, retry_after=cfg.attribute_retry_after))


def main(args: Optional[list[str]] = None) -> None:
    run_node(PerceptionNode, args)


if __name__ == "__main__":
    main()
