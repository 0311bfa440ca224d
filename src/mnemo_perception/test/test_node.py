"""The perception node over DDS, in-process with a private domain: synthetic frames in,
DetectionArray out, Detect with and without a scene graph, bad input dropped and counted, and
attributes read by a (scripted) VLM reaching the detections and the scene graph."""
import json
import os
import threading
import time

import numpy as np
import pytest
import rclpy
from geometry_msgs.msg import PoseStamped
from rclpy.executors import MultiThreadedExecutor
from rclpy.parameter import Parameter
from sensor_msgs.msg import CameraInfo, Image

from mnemo_common import names
from mnemo_common.fake_openai import FakeOpenAI
from mnemo_common.processes import unique_domain_id
from mnemo_common.ros import camera_info_to_msg, image_to_msg, pose_stamped_to_msg
from mnemo_interfaces.msg import DetectionArray, InstanceSegmentation, ObjectNode
from mnemo_interfaces.srv import Detect, GetSceneGraph, QueryObjects
from mnemo_perception.conversions import segmentation_to_msg
from mnemo_perception.frame import Segmentation
from mnemo_perception.node import PerceptionNode

pytestmark = pytest.mark.ros


class Harness:
    """Perception node + a test node in one executor on a private domain."""

    def __init__(self, params: dict, scene_graph: bool = False):
        os.environ["ROS_AUTOMATIC_DISCOVERY_RANGE"] = "LOCALHOST"
        self.context = rclpy.Context()
        rclpy.init(context=self.context, domain_id=unique_domain_id())
        overrides = [Parameter(k, value=v) for k, v in params.items()]
        self.node = PerceptionNode(context=self.context, parameter_overrides=overrides)
        self.peer = rclpy.create_node("perception_test_peer", context=self.context)
        self.received: list[DetectionArray] = []
        self.peer.create_subscription(DetectionArray, names.DETECTIONS, self.received.append, 20)
        self.pubs = {
            "color": self.peer.create_publisher(Image, names.COLOR_IMAGE, 10),
            "depth": self.peer.create_publisher(Image, names.DEPTH_IMAGE, 10),
            "info": self.peer.create_publisher(CameraInfo, names.CAMERA_INFO, 10),
            "seg": self.peer.create_publisher(InstanceSegmentation, names.SEGMENTATION, 10),
            "pose": self.peer.create_publisher(PoseStamped, names.CAMERA_POSE, 10),
        }
        self.detect = self.peer.create_client(Detect, names.PERCEPTION_DETECT)
        self.graph_queries: list[QueryObjects.Request] = []
        if scene_graph:
            self.peer.create_service(QueryObjects, names.GRAPH_QUERY, self._graph)
        self.executor = MultiThreadedExecutor(num_threads=4, context=self.context)
        self.executor.add_node(self.node)
        self.executor.add_node(self.peer)
        self.thread = threading.Thread(target=self.executor.spin, daemon=True)
        self.thread.start()
        self.wait(lambda: all(p.get_subscription_count() > 0 for k, p in self.pubs.items()
                              if k != "seg" or self.node.config.backend == "ground_truth"), 10.0, "subscriptions")
        self.wait(lambda: self.node.count_publishers(names.DETECTIONS) > 0
                  and self.peer.count_subscribers(names.DETECTIONS) > 0, 5.0, "detections topic")

    def _graph(self, request, response):
        self.graph_queries.append(request)
        if request.label == "mug":
            response.nodes = [ObjectNode(id="mug_7", label="mug")]
        return response

    @staticmethod
    def wait(condition, timeout: float, what: str) -> None:
        deadline = time.monotonic() + timeout
        while not condition():
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what}")
            time.sleep(0.02)

    def publish(self, frame, stamp, info=True, pose_stamp=None, depth=None, depth_encoding="32FC1",
                color_encoding="rgb8", seg=None):
        fid = "camera_color_optical_frame"
        if info:
            self.pubs["info"].publish(camera_info_to_msg(frame.intrinsics, stamp, fid))
        self.pubs["pose"].publish(pose_stamped_to_msg(frame.camera_pose, stamp if pose_stamp is None else pose_stamp))
        time.sleep(0.05)  # pose and info first, as a simulator or driver would
        rgb = frame.rgb if color_encoding == "rgb8" else frame.rgb[..., ::-1]
        self.pubs["seg"].publish(segmentation_to_msg(seg or frame.segmentation, stamp, fid))
        self.pubs["color"].publish(image_to_msg(rgb, color_encoding, stamp, fid))
        self.pubs["depth"].publish(image_to_msg(frame.depth if depth is None else depth, depth_encoding, stamp, fid))

    def wait_frames(self, n: int, timeout: float = 10.0) -> DetectionArray:
        self.wait(lambda: len(self.received) >= n, timeout, f"{n} DetectionArray message(s)")
        return self.received[n - 1]

    def call_detect(self, query: str, timeout: float = 10.0) -> Detect.Response:
        self.wait(self.detect.service_is_ready, 5.0, "Detect service")
        future = self.detect.call_async(Detect.Request(query=query))
        self.wait(future.done, timeout, "Detect response")
        return future.result()

    def close(self):
        try:
            self.executor.shutdown(timeout_sec=2.0)
            self.node.close()
            self.node.destroy_node()
            self.peer.destroy_node()
        finally:
            rclpy.try_shutdown(context=self.context)
            self.thread.join(timeout=5.0)


@pytest.fixture
def harness(request):
    params = getattr(request, "param", {})
    h = Harness({"use_embedder": False, "warn_period": 0.0, **params.get("params", {})},
                scene_graph=params.get("scene_graph", False))
    try:
        yield h
    finally:
        h.close()


@pytest.mark.parametrize("harness", [{"scene_graph": True}], indirect=True)
def test_frames_become_detections_and_detect_answers_with_node_ids(harness, scene_frame):
    harness.publish(scene_frame, 100.0)
    msg = harness.wait_frames(1)
    assert msg.header.frame_id == "map"
    assert abs(msg.header.stamp.sec + msg.header.stamp.nanosec * 1e-9 - 100.0) < 1e-6
    assert sorted(d.label for d in msg.detections) == ["apple", "book", "cabinet", "mug"]
    mug = next(d for d in msg.detections if d.label == "mug")
    assert abs(mug.centroid.x - 2.05) < 0.06 and abs(mug.centroid.y + 0.25) < 0.06
    assert {kv.key: kv.value for kv in mug.attributes}["color"] == "red"
    assert mug.instance_id == "mug_1" and mug.mask_area > 0
    assert abs(msg.camera_pose.position.z - 1.2) < 1e-9

    response = harness.call_detect("the red mug")
    assert response.error_code == 0, response.error_msg
    assert [d.label for d in response.detections] == ["mug"]
    assert response.detections[0].node_id == "mug_7"
    assert harness.graph_queries[-1].label == "mug" and harness.graph_queries[-1].use_region
    everything = harness.call_detect("")
    assert len(everything.detections) == 4
    assert {d.label: d.node_id for d in everything.detections}["cabinet"] == ""
    assert harness.call_detect("blue mug").detections == []


def test_detect_without_scene_graph_and_before_any_frame(harness, scene_frame):
    early = harness.call_detect("mug")
    assert early.error_code == 3 and "no camera frame" in early.error_msg  # UNAVAILABLE
    harness.publish(scene_frame, 50.0)
    harness.wait_frames(1)
    response = harness.call_detect("mug")
    assert response.error_code == 0 and [d.node_id for d in response.detections] == [""]


def test_bad_input_is_dropped_counted_and_node_keeps_running(harness, scene_frame):
    drops = harness.node.drops.counts
    harness.publish(scene_frame, 1.0, info=False)  # no CameraInfo ever received
    harness.wait(lambda: drops["no_camera_info"] == 1, 5.0, "no_camera_info drop")
    harness.publish(scene_frame, 2.0, depth=scene_frame.depth[:240, :320])
    harness.wait(lambda: drops["size_mismatch"] == 1, 5.0, "size_mismatch drop")
    harness.publish(scene_frame, 3.0, depth=np.full_like(scene_frame.depth, np.nan))
    harness.wait(lambda: drops["no_valid_depth"] == 1, 5.0, "NaN depth drop")
    harness.publish(scene_frame, 4.0, depth=np.zeros_like(scene_frame.depth))
    harness.wait(lambda: drops["no_valid_depth"] == 2, 5.0, "zero depth drop")
    harness.publish(scene_frame, 65.0, pose_stamp=5.0)  # the newest pose is a minute older than the frame
    harness.wait(lambda: drops["stale_pose"] == 1, 5.0, "stale pose drop")
    broken = pose_stamped_to_msg(scene_frame.camera_pose, 0.0)
    broken.header.stamp.sec = -5  # a negative stamp: counted as a bad message, not fatal
    harness.pubs["pose"].publish(broken)
    harness.wait(lambda: drops["bad_message"] == 1, 5.0, "bad pose message")
    harness.publish(scene_frame, 66.0, depth_encoding="16UC1", color_encoding="bgr8",
                    depth=np.nan_to_num(scene_frame.depth * 1000.0).astype(np.uint16))
    msg = harness.wait_frames(1)  # millimetre depth and BGR colour are fine
    assert sorted(d.label for d in msg.detections) == ["apple", "book", "cabinet", "mug"]
    assert {kv.key: kv.value for kv in next(d for d in msg.detections if d.label == "mug").attributes}["color"] == "red"
    # a segmentation listing an instance with no pixels (empty mask) and a broken image encoding
    seg = scene_frame.segmentation
    ghost = Segmentation(seg.mask, seg.values + [99], seg.instance_ids + ["ghost_1"], seg.labels + ["ghost"],
                         seg.kinds + ["object"])
    harness.publish(scene_frame, 67.0, seg=ghost)
    msg = harness.wait_frames(2)
    assert "ghost" not in [d.label for d in msg.detections] and len(msg.detections) == 4
    harness.publish(scene_frame, 68.0, depth=scene_frame.depth.astype(np.float32), depth_encoding="32FC1",
                    color_encoding="rgb8")
    harness.wait_frames(3)
    assert harness.node.published == 3
    assert sum(drops.values()) >= 5


@pytest.mark.parametrize("harness", [{"params": {"max_pose_age": 0.05}}], indirect=True)
def test_frames_without_any_pose_are_dropped(harness, scene_frame):
    harness.pubs["info"].publish(camera_info_to_msg(scene_frame.intrinsics, 9.0))
    harness.wait(lambda: harness.node._intrinsics is not None, 5.0, "camera info")
    harness.pubs["color"].publish(image_to_msg(scene_frame.rgb, "rgb8", 9.0))
    harness.pubs["depth"].publish(image_to_msg(scene_frame.depth, "32FC1", 9.0))
    harness.pubs["seg"].publish(segmentation_to_msg(scene_frame.segmentation, 9.0))
    harness.wait(lambda: harness.node.drops.counts["no_pose"] == 1, 5.0, "a no_pose drop")
    assert harness.received == []


def test_a_frame_whose_pose_comes_after_its_images_is_processed(harness, scene_frame):
    """Poses and images travel apart: the pose of a frame may arrive last (within pose_wait)."""
    harness.publish(scene_frame, 20.0)
    harness.wait_frames(1)
    fid = "camera_color_optical_frame"
    harness.pubs["color"].publish(image_to_msg(scene_frame.rgb, "rgb8", 21.0, fid))
    harness.pubs["depth"].publish(image_to_msg(scene_frame.depth, "32FC1", 21.0, fid))
    harness.pubs["seg"].publish(segmentation_to_msg(scene_frame.segmentation, 21.0, fid))
    time.sleep(0.2)
    harness.pubs["pose"].publish(pose_stamped_to_msg(scene_frame.camera_pose, 21.0))
    msg = harness.wait_frames(2)
    assert abs(msg.header.stamp.sec - 21.0) < 1e-9 and len(msg.detections) == 4
    assert not harness.node.drops.counts["stale_pose"]


def test_tf_pose_source_without_tf2_ros_is_a_clear_error():
    pytest.importorskip("rclpy")
    try:
        import tf2_ros  # noqa: F401
        pytest.skip("tf2_ros is installed here")
    except ImportError:
        pass
    context = rclpy.Context()
    rclpy.init(context=context, domain_id=unique_domain_id())
    try:
        with pytest.raises(RuntimeError, match="tf2_ros"):
            PerceptionNode(context=context, parameter_overrides=[Parameter("pose_source", value="tf")])
    finally:
        rclpy.try_shutdown(context=context)


def test_missing_weights_fails_at_start():
    context = rclpy.Context()
    rclpy.init(context=context, domain_id=unique_domain_id())
    try:
        with pytest.raises(Exception, match="not found"):
            PerceptionNode(context=context, parameter_overrides=[Parameter("backend", value="yolo"),
                                                                 Parameter("weights", value="/nope/yolo.pt")])
    finally:
        rclpy.try_shutdown(context=context)


# -- attributes read by a VLM ---------------------------------------------------------------
READ = {"mug": {"brand": "Zenthra"}, "book": {"title": "Quorvo", "color": "green"}}  # colour: never kept


def _answer(body: dict) -> str:
    """The scripted VLM: what it 'reads' on each class the request names."""
    asked = body["messages"][1]["content"][0]["text"]
    return json.dumps(next((v for k, v in READ.items() if json.dumps(k) in asked), {}))


@pytest.fixture
def vlm():
    with FakeOpenAI(responder=_answer) as server:
        yield server


def _attributes(msg: DetectionArray) -> dict[str, dict[str, str]]:
    return {d.label: {kv.key: kv.value for kv in d.attributes} for d in msg.detections}


def _vlm_harness(vlm, **params) -> Harness:
    return Harness({"use_embedder": False, "warn_period": 0.0, "attribute_base_url": vlm.base_url,
                    "attribute_model": "fake-vlm", "attribute_min_box_px": 20, **params})


def test_attributes_a_vlm_reads_reach_the_published_detections(vlm, scene_frame):
    h = _vlm_harness(vlm)
    try:
        h.publish(scene_frame, 100.0)
        first = _attributes(h.wait_frames(1))
        assert first["mug"] == {"color": "red"}  # the frame that asks is published without waiting
        reader = h.node.attribute_reader
        h.wait(lambda: reader.counts["read"] == 2, 10.0, "two attribute reads")  # at most 2 a frame
        h.publish(scene_frame, 101.0)
        second = _attributes(h.wait_frames(2))
        assert second["mug"] == {"color": "red", "brand": "Zenthra"}
        assert second["book"]["title"] == "Quorvo" and second["book"]["color"] != "green"
        assert set(second["cabinet"]) == {"color"} and set(second["apple"]) == {"color"}
        h.wait(lambda: reader.counts["read"] == 3, 10.0, "the apple read on the second frame")
        asked = [r["body"]["messages"][1]["content"][0]["text"] for r in vlm.requests]
        assert sorted(next(k for k in ("mug", "book", "apple") if json.dumps(k) in a) for a in asked) == [
            "apple", "book", "mug"]  # each object once, the fixture never
        detected = h.call_detect("mug")
        assert {kv.key: kv.value for kv in detected.detections[0].attributes}["brand"] == "Zenthra"
    finally:
        h.close()


def test_a_slow_or_failing_endpoint_never_holds_frames_back(scene_frame):
    release = threading.Event()

    def stuck(body):
        release.wait(30.0)
        return 500

    with FakeOpenAI(responder=stuck) as vlm:
        h = _vlm_harness(vlm, attribute_retry_after=0.0)
        try:
            h.publish(scene_frame, 200.0)
            h.wait_frames(1)
            h.wait(lambda: len(vlm.requests) == 1, 10.0, "a read to hang at the endpoint")
            for i in (1, 2):  # answered while the read hangs
                h.publish(scene_frame, 200.0 + i)
                h.wait_frames(i + 1)
            assert h.node.attribute_reader.counts["failed"] == 0 and len(vlm.requests) == 1
            release.set()
            h.wait(lambda: h.node.attribute_reader.counts["failed"] >= 1, 10.0, "a failed read")
            h.publish(scene_frame, 210.0)
            assert all(set(a) == {"color"} for a in _attributes(h.wait_frames(4)).values())
        finally:
            release.set()
            h.close()


def test_a_read_that_breaks_is_offered_again_and_reading_goes_on(vlm, scene_frame):
    h = _vlm_harness(vlm, attribute_max_reads_per_frame=1)
    reader = h.node.attribute_reader
    messages, broken = reader.messages, []

    def break_once(request):
        if not broken:
            broken.append(request.label)
            raise ValueError("a crop that does not encode")
        return messages(request)

    reader.messages = break_once
    try:
        h.publish(scene_frame, 400.0)
        h.wait_frames(1)
        h.wait(lambda: broken, 10.0, "the read that breaks")
        # once the broken read is given up, a later frame offers the book again, and it is read
        deadline, frames, title = time.monotonic() + 15.0, 1, None
        while title != "Quorvo":
            assert time.monotonic() < deadline, "the book was never read after the read that broke"
            frames += 1
            h.publish(scene_frame, 400.0 + frames)
            title = _attributes(h.wait_frames(frames))["book"].get("title")
        assert broken == ["book"] and reader.counts["read"] >= 1
        assert json.dumps("book") in vlm.requests[0]["body"]["messages"][1]["content"][0]["text"]
    finally:
        h.close()


def test_without_an_attribute_endpoint_nothing_is_asked_and_no_read_attribute_appears(monkeypatch, vlm,
                                                                                        scene_frame):
    # the endpoint other nodes use does not turn reading on: it costs a request per object
    monkeypatch.setenv("MNEMO_LLM_BASE_URL", vlm.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    h = Harness({"use_embedder": False, "warn_period": 0.0, "perception": "honest"})
    try:
        assert h.node.attribute_reader is None
        for stamp in (300.0, 301.0):
            h.publish(scene_frame, stamp)
        msg = h.wait_frames(2)
        assert all(set(a) == {"color"} for a in _attributes(msg).values())
        assert vlm.requests == []
    finally:
        h.close()


def test_a_brand_the_vlm_reads_becomes_the_scene_graph_nodes(vlm, scene_frame, tmp_path):
    """Honest perception and the scene graph node in one process: the read brand is a property of
    the graph's node for the mug, as a measured colour is."""
    from mnemo_scene_graph.node import SceneGraphNode

    h = _vlm_harness(vlm, perception="honest")
    graph = SceneGraphNode(context=h.context, parameter_overrides=[
        Parameter("data_dir", value=str(tmp_path)), Parameter("perception", value="honest"),
        Parameter("input_mode", value="detections"), Parameter("publish_period", value=0.1)])
    h.executor.add_node(graph)
    get = h.peer.create_client(GetSceneGraph, names.GRAPH_GET)
    try:
        h.wait(lambda: h.node.count_subscribers(names.DETECTIONS) >= 2, 10.0, "the graph listening")
        h.publish(scene_frame, 100.0)
        h.wait_frames(1)
        h.wait(lambda: h.node.attribute_reader.counts["read"] == 2, 10.0, "two attribute reads")
        h.publish(scene_frame, 101.0)
        h.wait_frames(2)

        def mug_properties():
            h.wait(get.service_is_ready, 5.0, "GetSceneGraph")
            future = get.call_async(GetSceneGraph.Request())
            h.wait(future.done, 5.0, "GetSceneGraph answer")
            mugs = [n for n in future.result().graph.nodes if n.label == "mug"]
            return {p.name: p.value for p in mugs[0].properties} if mugs else {}

        h.wait(lambda: mug_properties().get("brand") == "Zenthra", 10.0, "the mug's node to carry the brand")
        assert mug_properties()["color"] == "red"
    finally:
        graph.close()
        h.executor.remove_node(graph)
        graph.destroy_node()
        h.close()
