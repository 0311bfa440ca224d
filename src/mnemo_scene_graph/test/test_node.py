"""In-process test of the scene-graph node: topics in, services and latched graph out, restart."""
import math
import os
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np

import pytest
import rclpy
from rclpy.executors import SingleThreadedExecutor
from rclpy.parameter import Parameter
from sensor_msgs.msg import CameraInfo, Image

from mnemo_common import names
from mnemo_common.processes import unique_domain_id
from mnemo_common.ros import (
    camera_info_to_msg, detection_to_msg, image_to_msg, kv_to_msgs, latched_qos, observation_to_msg, pose3d_to_msg,
    sensor_qos, time_to_msg,
)
from mnemo_common.types import Detection, Observation, Pose2D, Pose3D, Sighting, Status
from mnemo_interfaces.msg import DetectionArray, GraphEvent, Observation as ObservationMsg, Property
from mnemo_interfaces.msg import SceneGraph as SceneGraphMsg
from mnemo_interfaces.srv import GetNodeHistory, GetSceneGraph, QueryObjects, UpdateNode
from visualization_msgs.msg import MarkerArray

from mnemo_scene_graph.node import SceneGraphNode
from mnemo_scene_graph.persistence import EVENTS, read_events


@pytest.fixture
def ros_context():
    os.environ["ROS_AUTOMATIC_DISCOVERY_RANGE"] = "LOCALHOST"
    context = rclpy.Context()
    rclpy.init(context=context, domain_id=unique_domain_id())
    try:
        yield context
    finally:
        rclpy.try_shutdown(context=context)


# How long the first frame may take to become nodes: DDS discovery between the test's publisher and
# the node, and the node's first service answer, take seconds on a loaded machine (a CI run).
FIRST_FRAME = 30.0


class Harness:
    def __init__(self, context, data_dir):
        self.context = context
        self.data_dir = str(data_dir)
        self.executor = SingleThreadedExecutor(context=context)
        self.client = rclpy.create_node("scene_graph_test_client", context=context)
        self.executor.add_node(self.client)
        self.obs_pub = self.client.create_publisher(ObservationMsg, names.OBSERVATIONS, 10)
        self.det_pub = self.client.create_publisher(DetectionArray, names.DETECTIONS, 10)
        self.graphs, self.markers, self.events = [], [], []
        self.client.create_subscription(SceneGraphMsg, names.SCENE_GRAPH, self.graphs.append, latched_qos())
        self.client.create_subscription(MarkerArray, names.SCENE_GRAPH_MARKERS, self.markers.append, latched_qos())
        self.client.create_subscription(GraphEvent, names.SCENE_GRAPH_EVENTS, self.events.append, 100)
        self.clients = {name: self.client.create_client(t, name) for t, name in (
            (GetSceneGraph, names.GRAPH_GET), (QueryObjects, names.GRAPH_QUERY),
            (GetNodeHistory, names.GRAPH_HISTORY), (UpdateNode, names.GRAPH_UPDATE))}
        self.node = None

    def start(self, **extra):
        params = [Parameter("data_dir", value=self.data_dir), Parameter("input_mode", value="both"),
                  Parameter("publish_period", value=0.1), *(Parameter(k, value=v) for k, v in extra.items())]
        self.node = SceneGraphNode(context=self.context, parameter_overrides=params)
        self.executor.add_node(self.node)

    def stop(self):
        if self.node is not None:
            self.node.close()
            self.executor.remove_node(self.node)
            self.node.destroy_node()
            self.node = None

    def publish(self, publisher, msg, timeout=30.0):
        """Publish once the node's subscription has matched: on a loaded machine discovery can take
        seconds, and a message published before it is lost."""
        assert self.spin_until(lambda: publisher.get_subscription_count() > 0, timeout), \
            f"nothing subscribes to {publisher.topic_name}"
        publisher.publish(msg)

    def spin_until(self, condition, timeout=10.0):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if condition():
                return True
            self.executor.spin_once(timeout_sec=0.05)
        return condition()

    def call(self, name, request, timeout=10.0):
        client = self.clients[name]
        assert self.spin_until(client.service_is_ready, timeout), f"{name} not available"
        future = client.call_async(request)
        assert self.spin_until(future.done, timeout), f"{name} did not answer"
        return future.result()

    def close(self):
        self.stop()
        self.executor.shutdown(timeout_sec=1.0)
        self.client.destroy_node()


@pytest.fixture
def harness(ros_context, tmp_path):
    h = Harness(ros_context, tmp_path / "data")
    h.start()
    try:
        yield h
    finally:
        h.close()


def observation(stamp, sightings):
    return observation_to_msg(Observation(stamp=stamp, robot_pose=Pose2D(0.0, 0.0), camera_pose=Pose3D(),
                                          room="kitchen", sightings=sightings))


def node_ids(h):
    response = h.call(names.GRAPH_GET, GetSceneGraph.Request(include_stale=True))
    return sorted(n.id for n in response.graph.nodes)


def test_node_integrates_serves_updates_and_survives_restart(harness):
    h = harness
    table = Sighting("table", (1.0, 2.0, 0.4), kind="fixture", object_id="table_1")
    mug = Sighting("mug", (1.0, 2.0, 0.8), {"color": "red"}, object_id="mug_9", support="table_1", relation="on")
    bad = [Sighting("mug", (math.nan, 0.0, 0.0)), Sighting("", (1.0, 1.0, 1.0))]
    h.publish(h.obs_pub, observation(100.0, [table, mug, *bad]))
    assert h.spin_until(lambda: len(node_ids(h)) == 2, timeout=FIRST_FRAME), node_ids(h)
    assert node_ids(h) == ["mug_1", "table_1"]
    assert h.node.dropped["non_finite_position"] == 1 and h.node.dropped["empty_label"] == 1

    # Perception input reaches the same graph.
    det = Detection("book", 0.9, centroid=(1.2, 2.1, 0.8), box_min=(1.1, 2.0, 0.75), box_max=(1.3, 2.2, 0.85))
    array = DetectionArray(detections=[detection_to_msg(det)], room="kitchen",
                           camera_pose=pose3d_to_msg(Pose3D()))
    array.header.stamp = time_to_msg(101.0)
    h.det_pub.publish(array)
    assert h.spin_until(lambda: "book_1" in node_ids(h), timeout=10.0)

    # Latched graph and markers arrive.
    assert h.spin_until(lambda: h.graphs and len(h.graphs[-1].nodes) == 3 and h.markers, timeout=10.0)
    assert any(r.predicate == "on" and r.subject == "mug_1" for r in h.graphs[-1].relations)

    # Query.
    q = h.call(names.GRAPH_QUERY, QueryObjects.Request(label="mugs", attributes=kv_to_msgs({"color": "red"})))
    assert q.error_code == 0 and [n.id for n in q.nodes] == ["mug_1"]
    q = h.call(names.GRAPH_QUERY, QueryObjects.Request(use_region=True, x=math.nan, y=0.0, radius=1.0))
    assert q.error_code == Status.INVALID_ARGUMENT and q.error_msg
    q = h.call(names.GRAPH_QUERY, QueryObjects.Request(k=-1))
    assert q.error_code == Status.INVALID_ARGUMENT

    # Update and history.
    up = h.call(names.GRAPH_UPDATE, UpdateNode.Request(
        node_id="table_1", properties=[Property(name="material", value="wood", confidence=0.9, source="vlm")],
        contents_add=[], outcome="wipe:success", source="interaction"))
    assert up.error_code == 0 and up.node.task_history == ["wipe:success"]
    assert {p.name: p.value for p in up.node.properties}["material"] == "wood"
    hist = h.call(names.GRAPH_HISTORY, GetNodeHistory.Request(node_id="table_1"))
    assert hist.error_code == 0 and hist.node.id == "table_1"
    assert [e.kind for e in hist.events] == ["created", "property", "outcome"]
    assert h.spin_until(lambda: any(e.kind == "outcome" for e in h.events), timeout=5.0)
    assert h.call(names.GRAPH_UPDATE, UpdateNode.Request(node_id="ghost_1", outcome="x")).error_code == Status.NOT_FOUND
    assert h.call(names.GRAPH_UPDATE, UpdateNode.Request(node_id="")).error_code == Status.INVALID_ARGUMENT
    too_long = h.call(names.GRAPH_UPDATE, UpdateNode.Request(node_id="n" * 100_000))
    assert too_long.error_code == Status.INVALID_ARGUMENT and "MAX_NAME_CHARS" in too_long.error_msg
    assert h.call(names.GRAPH_HISTORY, GetNodeHistory.Request(node_id="ghost_1")).error_code == Status.NOT_FOUND

    # Filters of the get service.
    g = h.call(names.GRAPH_GET, GetSceneGraph.Request(kinds=["fixture"]))
    assert [n.id for n in g.graph.nodes] == ["table_1"]

    # Restart on the same data directory: same graph, same history.
    h.stop()
    h.start()
    assert node_ids(h) == ["book_1", "mug_1", "table_1"]
    hist2 = h.call(names.GRAPH_HISTORY, GetNodeHistory.Request(node_id="table_1"))
    assert [(e.seq, e.kind) for e in hist2.events] == [(e.seq, e.kind) for e in hist.events]
    q = h.call(names.GRAPH_QUERY, QueryObjects.Request(label="table"))
    assert {p.name: p.value for p in q.nodes[0].properties}["material"] == "wood"
    # New sightings keep associating after the restart.
    h.obs_pub.publish(observation(200.0, [mug]))
    assert h.spin_until(lambda: h.call(names.GRAPH_QUERY, QueryObjects.Request(label="mug")).nodes[0]
                        .observation_count == 2, timeout=10.0)
    assert node_ids(h) == ["book_1", "mug_1", "table_1"]


HOME = """format: household-scenario/1
name: two_rooms
seed: 1
rooms:
  - {id: kitchen, rect: [0.0, 0.0, 4.0, 4.0]}
  - {id: living_room, rect: [4.0, 0.0, 8.0, 4.0]}
doors:
  - {between: [kitchen, living_room], at: [4.0, 2.0]}
fixtures:
  - {id: table_1, class: dining table, room: kitchen, pose: [2.0, 2.0, 0.0], size: [1.0, 0.8, 0.75], kind: surface}
objects:
  - {id: mug_7, class: mug, attributes: {color: red}, size: [0.08, 0.08, 0.10], at: table_1}
patrol:
  - {day: 0, start: "09:00", end: "10:00", observations: 10, route: [kitchen]}
tasks: []
"""


def test_honest_node_names_frames_by_its_nodes_for_memory_and_takes_the_map(ros_context, tmp_path):
    """perception:=honest: detections in (no instance ids), the graph's own ids out on the observations
    memory stores, supports from the mapped furniture's geometry, rooms from the map; bad input is
    dropped and the node goes on."""
    home = tmp_path / "home.yaml"
    home.write_text(HOME)
    h = Harness(ros_context, tmp_path / "data")
    h.start(perception="honest", map_file=str(home))
    seen = []
    h.client.create_subscription(ObservationMsg, names.OBSERVATIONS, lambda m: m.seq and seen.append(m), 10)
    try:
        assert node_ids(h) == ["table_1"]  # the map's furniture, before anything was seen
        mug = Detection("mug", 1.0, centroid=(2.0, 2.1, 0.8), box_min=(1.96, 2.06, 0.75),
                        box_max=(2.04, 2.14, 0.85), attributes={"color": "red"})
        for stamp, pose in ((100.0, Pose2D(1.0, 1.0)), (101.0, Pose2D(1.0, 1.2))):
            array = DetectionArray(detections=[detection_to_msg(mug)], camera_pose=pose3d_to_msg(Pose3D()))
            array.robot_pose.x, array.robot_pose.y = pose.x, pose.y
            array.header.stamp = time_to_msg(stamp)
            h.publish(h.det_pub, array)
        broken = DetectionArray(detections=[detection_to_msg(mug)])
        broken.detections[0].centroid.x = math.nan
        h.det_pub.publish(broken)
        # oracle observations are not its input in honest mode (the simulator publishes none)
        h.obs_pub.publish(observation(102.0, [Sighting("book", (1.0, 1.0, 0.8), object_id="book_3")]))
        assert h.spin_until(lambda: len(seen) >= 3 and h.node.dropped, timeout=15.0), (seen, h.node.dropped)
        assert node_ids(h) == ["mug_1", "table_1"]
        sightings = [s for m in seen for s in m.sightings]
        assert [(s.object_id, s.support, s.relation) for s in sightings] == [("mug_1", "table_1", "on")] * 2
        assert {m.room for m in seen} == {"kitchen"} and [m.seq for m in seen] == [1, 2, 3]
    finally:
        h.close()


def test_reads_are_answered_while_a_frame_and_a_publication_take_long(ros_context, tmp_path):
    """Under load a frame holds the live graph for long and the whole-graph message takes long to
    build: get, query and history still answer meanwhile (with every logged event), on the one
    executor thread the node asks run_node for, and the frame is served once it is integrated."""
    h = Harness(ros_context, tmp_path / "data")
    node = SceneGraphNode(context=ros_context, parameter_overrides=[
        Parameter("data_dir", value=h.data_dir), Parameter("publish_period", value=0.1)])
    assert node.executor_threads == 1
    node_executor = SingleThreadedExecutor(context=ros_context)  # as run_node spins it
    node_executor.add_node(node)
    spinner = threading.Thread(target=node_executor.spin, daemon=True)
    spinner.start()
    frame_entered, publication_entered, release = threading.Event(), threading.Event(), threading.Event()
    integrate, publish = node.graph.integrate_observation, node._publish_if_changed

    def slow_frame(obs, **kwargs):
        if any(s.label == "book" for s in obs.sightings):
            frame_entered.set()
            release.wait(timeout=60.0)
        return integrate(obs, **kwargs)

    def slow_publication():
        if frame_entered.is_set():
            publication_entered.set()
            release.wait(timeout=60.0)
        publish()

    node.graph.integrate_observation = slow_frame
    node._publish_if_changed = slow_publication
    mug = Sighting("mug", (1.0, 2.0, 0.8), {"color": "red"}, object_id="mug_9")
    try:
        h.publish(h.obs_pub, observation(100.0, [mug]))
        assert h.spin_until(lambda: node_ids(h) == ["mug_1"], timeout=FIRST_FRAME)
        h.obs_pub.publish(observation(101.0, [Sighting("book", (3.0, 2.0, 0.8), object_id="book_2")]))
        assert h.spin_until(lambda: frame_entered.is_set() and publication_entered.is_set(), timeout=15.0)
        assert node_ids(h) == ["mug_1"]
        assert [n.id for n in h.call(names.GRAPH_QUERY, QueryObjects.Request(label="mug")).nodes] == ["mug_1"]
        assert h.call(names.GRAPH_HISTORY, GetNodeHistory.Request(node_id="mug_1")).node.id == "mug_1"
        release.set()
        assert h.spin_until(lambda: node_ids(h) == ["book_1", "mug_1"], timeout=15.0)
        assert h.spin_until(lambda: h.graphs and len(h.graphs[-1].nodes) == 2, timeout=15.0)
    finally:
        release.set()
        node_executor.shutdown(timeout_sec=2.0)
        node.close()
        node.destroy_node()
        h.close()


def test_an_update_waits_for_the_frame_in_progress_while_reads_go_on(ros_context, tmp_path):
    """An update applies after the frame being integrated (it needs the live graph), before the
    frames waiting; its request waits without holding up reads, and is answered as soon as it is
    applied, with nothing else (no timer: publish_period is an hour) to wake the node."""
    h = Harness(ros_context, tmp_path / "data")
    node = SceneGraphNode(context=ros_context, parameter_overrides=[
        Parameter("data_dir", value=h.data_dir), Parameter("publish_period", value=3600.0)])
    node_executor = SingleThreadedExecutor(context=ros_context)  # as run_node spins it
    node_executor.add_node(node)
    spinner = threading.Thread(target=node_executor.spin, daemon=True)
    spinner.start()
    entered, release = threading.Event(), threading.Event()
    integrate = node.graph.integrate_observation

    def slow_frame(obs, **kwargs):
        if any(s.label == "book" for s in obs.sightings):
            entered.set()
            release.wait(timeout=60.0)
        return integrate(obs, **kwargs)

    node.graph.integrate_observation = slow_frame
    try:
        h.publish(h.obs_pub, observation(100.0, [Sighting("mug", (1.0, 2.0, 0.8), object_id="mug_9")]))
        assert h.spin_until(lambda: node_ids(h) == ["mug_1"], timeout=FIRST_FRAME)
        h.obs_pub.publish(observation(101.0, [Sighting("book", (3.0, 2.0, 0.8), object_id="book_2")]))
        assert h.spin_until(entered.is_set, timeout=15.0)
        h.obs_pub.publish(observation(102.0, [Sighting("cup", (5.0, 2.0, 0.8), object_id="cup_3")]))  # waits
        client = h.clients[names.GRAPH_UPDATE]
        assert h.spin_until(client.service_is_ready, timeout=15.0)
        update = client.call_async(UpdateNode.Request(node_id="mug_1", outcome="wipe:success", source="interaction"))
        assert not h.spin_until(update.done, timeout=0.5)  # the frame in progress holds it
        assert node_ids(h) == ["mug_1"]
        assert [n.id for n in h.call(names.GRAPH_QUERY, QueryObjects.Request(label="mug")).nodes] == ["mug_1"]
        release.set()
        assert h.spin_until(update.done, timeout=15.0)
        assert update.result().error_code == 0 and update.result().node.task_history == ["wipe:success"]
        assert h.spin_until(lambda: node_ids(h) == ["book_1", "cup_1", "mug_1"], timeout=15.0)
        order = {e.node_id if e.kind == "created" else e.kind: e.seq
                 for e in read_events(Path(h.data_dir) / "scene_graph" / EVENTS) if e.kind in ("created", "outcome")}
        assert order["book_1"] < order["outcome"] < order["cup_1"]
    finally:
        release.set()
        node_executor.shutdown(timeout_sec=2.0)
        node.close()
        node.destroy_node()
        h.close()


def test_reads_and_events_carry_only_logged_changes(harness):
    """A frame whose log append failed (a full disk) is in the live graph but not on disk: no
    query serves it and no event announces it, until the next append writes it."""
    h = harness
    table = Sighting("table", (1.0, 2.0, 0.4), kind="fixture", object_id="table_1")
    h.publish(h.obs_pub, observation(100.0, [table]))
    assert h.spin_until(lambda: node_ids(h) == ["table_1"], timeout=FIRST_FRAME)
    flush = h.node.store.flush

    def full_disk():
        raise OSError(28, "No space left on device")

    h.node.store.flush = full_disk
    h.obs_pub.publish(observation(101.0, [table, Sighting("mug", (1.0, 2.0, 0.8), object_id="mug_9")]))
    assert h.spin_until(lambda: h.node.dropped, timeout=15.0)
    assert "mug_1" in h.node.graph  # integrated, not logged
    assert node_ids(h) == ["table_1"]
    assert not h.call(names.GRAPH_QUERY, QueryObjects.Request(label="mug")).nodes
    assert not any(e.node_id == "mug_1" for e in h.events)

    h.node.store.flush = flush
    h.obs_pub.publish(observation(102.0, [table]))
    assert h.spin_until(lambda: node_ids(h) == ["mug_1", "table_1"], timeout=15.0)
    assert h.spin_until(lambda: any(e.node_id == "mug_1" and e.kind == "created" for e in h.events), timeout=5.0)
    h.stop()
    h.start()
    assert node_ids(h) == ["mug_1", "table_1"]


def test_evidence_events_stay_off_the_topic_unless_asked(harness):
    """'missed' is evidence like 'observed' (one per node a frame looked at and did not see): in
    the log, on the topic only with publish_observed_events; the stale belief it leads to is published."""
    h = harness
    looking_along_x = Pose3D((0.0, 0.0, 0.8), (-0.5, 0.5, -0.5, 0.5))  # optical z = map +x

    def frame(stamp, sightings):
        return observation_to_msg(Observation(stamp=stamp, robot_pose=Pose2D(0.0, 0.0), camera_pose=looking_along_x,
                                              room="kitchen", sightings=sightings))

    h.publish(h.obs_pub, frame(100.0, [Sighting("mug", (2.0, 0.0, 0.8), object_id="mug_9")]))
    assert h.spin_until(lambda: node_ids(h) == ["mug_1"], timeout=FIRST_FRAME)
    h.obs_pub.publish(frame(101.0, []))  # the same view, the mug gone
    assert h.spin_until(lambda: any(e.node_id == "mug_1" and e.kind == "state" and "stale" in e.new_value
                                    for e in h.events), timeout=15.0)
    assert [e.kind for e in read_events(Path(h.node.store.dir) / EVENTS) if e.node_id == "mug_1"].count("missed") == 1
    assert not any(e.kind in ("missed", "observed") for e in h.events)


# A camera 0.8 m up looking along map +x (optical x = map -y): things 2 m ahead, one on each side.
LOOKING_ALONG_X = Pose3D((0.0, 0.0, 0.8), (-0.5, 0.5, -0.5, 0.5))
PINHOLE = SimpleNamespace(width=160, height=120, fx=150.0, fy=150.0, cx=80.0, cy=60.0)
LEFT, RIGHT = 0.3, -0.3  # map y of the thing left (u ~ 57) and right (u ~ 103) in the image


def thing(label, y):
    return Detection(label, 0.9, centroid=(2.0, y, 0.8), box_min=(1.95, y - 0.05, 0.75),
                     box_max=(2.05, y + 0.05, 0.85))


def detections(stamp, things):
    array = DetectionArray(detections=[detection_to_msg(d) for d in things], room="kitchen",
                           camera_pose=pose3d_to_msg(LOOKING_ALONG_X))
    array.header.stamp = time_to_msg(stamp)
    return array


def misses(h, node_id):
    return [e.kind for e in read_events(Path(h.node.store.dir) / EVENTS) if e.node_id == node_id].count("missed")


def states(h):
    response = h.call(names.GRAPH_GET, GetSceneGraph.Request(include_stale=True))
    return {n.id: n.state for n in response.graph.nodes}


class DepthCamera:
    """Publishes depth frames and camera info as a robot's camera does."""

    def __init__(self, h):
        self.h = h
        qos = sensor_qos(reliable=True)
        self.depth_pub = h.client.create_publisher(Image, names.DEPTH_IMAGE, qos)
        self.info_pub = h.client.create_publisher(CameraInfo, names.CAMERA_INFO, qos)
        assert h.spin_until(lambda: self.depth_pub.get_subscription_count() and self.info_pub.get_subscription_count())

    def publish(self, stamp, metres):
        self.info_pub.publish(camera_info_to_msg(PINHOLE, stamp, "camera"))
        self.depth_pub.publish(image_to_msg(metres, "32FC1", stamp, "camera"))


def wall_behind_gizmo_door_before_widget():
    metres = np.full((PINHOLE.height, PINHOLE.width), 3.0, np.float32)  # a wall 3 m ahead, behind the gizmo
    metres[:, 80:] = 1.0  # a door 1 m ahead, in front of the widget
    return metres


def see_two_things(h):
    h.publish(h.det_pub, detections(100.0, [thing("gizmo", LEFT), thing("widget", RIGHT)]))
    assert h.spin_until(lambda: node_ids(h) == ["gizmo_1", "widget_1"], timeout=FIRST_FRAME), node_ids(h)


def see_two_things_then_nothing(h, depth_frame=None):
    """Frame 100 sees a gizmo (left) and a widget (right); then, with ``depth_frame`` (stamp,
    metres) published first if given, frame 101 sees nothing. Returns once frame 101 is integrated."""
    see_two_things(h)
    if depth_frame is not None:
        DepthCamera(h).publish(*depth_frame)
        assert h.spin_until(lambda: h.node.depth_frames.latest() and h.node.camera_info, timeout=10.0)
    h.det_pub.publish(detections(101.0, []))
    assert h.spin_until(lambda: h.node.graph.latest_stamp == 101.0, timeout=15.0)


def test_depth_shows_which_unseen_nodes_were_in_plain_sight(ros_context, tmp_path):
    """With the depth frame of the detections' stamp, a node whose place it shows empty (the
    surface behind it) goes stale; one a nearer surface hides (a closed door in front of it) was
    not looked at and stays current, as in the in-process honest mode."""
    h = Harness(ros_context, tmp_path / "data")
    h.start(input_mode="detections", sensor_reliable=True)
    try:
        see_two_things_then_nothing(h, (101.0, wall_behind_gizmo_door_before_widget()))
        assert h.spin_until(lambda: states(h) == {"gizmo_1": "stale", "widget_1": "current"}, timeout=10.0), states(h)
        assert (misses(h, "gizmo_1"), misses(h, "widget_1")) == (1, 0)
        assert h.node.depth_fallbacks.counts == {"no_depth_frame": 1}  # frame 100 only
    finally:
        h.close()


def test_without_a_depth_frame_of_its_stamp_the_frustum_judges_and_the_node_counts_it(ros_context, tmp_path):
    """A robot that publishes no depth, or a frame whose depth never came: the camera's frustum in
    the frame's room judges, occlusion unknown (both things ahead count as looked at), and the
    node counts each such frame by reason."""
    h = Harness(ros_context, tmp_path / "data")
    h.start(input_mode="detections", sensor_reliable=True)
    try:
        hidden = np.full((PINHOLE.height, PINHOLE.width), 1.0, np.float32)  # would hide both, were it frame 101's
        see_two_things_then_nothing(h, (50.0, hidden))
        assert h.spin_until(lambda: states(h) == {"gizmo_1": "stale", "widget_1": "stale"}, timeout=10.0), states(h)
        assert h.node.depth_fallbacks.counts == {"no_depth_frame": 1, "no_depth_at_stamp": 1}
    finally:
        h.close()


def test_a_depth_frame_that_arrives_after_its_detections_still_judges_them(ros_context, tmp_path):
    """DDS can deliver a large depth image after the small DetectionArray made from it: the frame
    waits for it (depth_wait) while depth frames are flowing, and its misses are judged by it."""
    h = Harness(ros_context, tmp_path / "data")
    h.start(input_mode="detections", sensor_reliable=True, depth_wait=10.0)
    try:
        camera = DepthCamera(h)
        camera.publish(100.0, wall_behind_gizmo_door_before_widget())
        assert h.spin_until(lambda: h.node.depth_frames.latest() and h.node.camera_info, timeout=10.0)
        see_two_things(h)
        h.det_pub.publish(detections(101.0, []))
        h.spin_until(lambda: False, timeout=0.5)  # the detections wait for their depth frame
        assert h.node.graph.latest_stamp == 100.0
        camera.publish(101.0, wall_behind_gizmo_door_before_widget())
        assert h.spin_until(lambda: h.node.graph.latest_stamp == 101.0, timeout=15.0)
        assert h.spin_until(lambda: states(h) == {"gizmo_1": "stale", "widget_1": "current"}, timeout=10.0), states(h)
        assert not h.node.depth_fallbacks.counts
    finally:
        h.close()


def test_a_robot_whose_depth_stopped_holds_no_frame_up(ros_context, tmp_path):
    """Once a DetectionArray has waited depth_wait for its depth frame in vain, the depth stream
    counts as stopped: the next frame is integrated at once (judged without depth), not held up again."""
    depth_wait = 3.0
    h = Harness(ros_context, tmp_path / "data")
    h.start(input_mode="detections", sensor_reliable=True, depth_wait=depth_wait)
    try:
        DepthCamera(h).publish(100.0, wall_behind_gizmo_door_before_widget())  # then the depth stops
        assert h.spin_until(lambda: h.node.depth_frames.latest() and h.node.camera_info, timeout=10.0)
        see_two_things(h)
        took = {}
        for stamp in (101.0, 102.0):  # the gizmo seen again (an event, which moves the graph's latest stamp)
            start = time.monotonic()
            h.det_pub.publish(detections(stamp, [thing("gizmo", LEFT)]))
            assert h.spin_until(lambda: h.node.graph.latest_stamp == stamp, timeout=15.0)
            took[stamp] = time.monotonic() - start
        assert took[101.0] >= depth_wait, took  # waited for its depth frame, in vain
        assert took[102.0] < depth_wait / 2, took
        assert h.node.depth_fallbacks.counts == {"no_depth_at_stamp": 2}
    finally:
        h.close()


def test_without_camera_info_the_frustum_judges_and_the_node_counts_it(ros_context, tmp_path):
    """A depth frame of the detections' stamp but no CameraInfo yet: the frustum judges (both things
    ahead count as looked at, though the depth shows a door before the widget), counted by reason."""
    h = Harness(ros_context, tmp_path / "data")
    h.start(input_mode="detections", sensor_reliable=True)
    try:
        see_two_things(h)
        DepthCamera(h).depth_pub.publish(image_to_msg(wall_behind_gizmo_door_before_widget(), "32FC1", 101.0,
                                                      "camera"))
        assert h.spin_until(lambda: h.node.depth_frames.latest(), timeout=10.0)
        h.det_pub.publish(detections(101.0, []))
        assert h.spin_until(lambda: h.node.graph.latest_stamp == 101.0, timeout=15.0)
        assert h.spin_until(lambda: states(h) == {"gizmo_1": "stale", "widget_1": "stale"}, timeout=10.0), states(h)
        assert h.node.depth_fallbacks.counts == {"no_depth_frame": 1, "no_camera_info": 1}
    finally:
        h.close()


def test_an_unreadable_depth_frame_leaves_the_frustum_to_judge_and_the_node_counts_it(ros_context, tmp_path):
    """A depth frame of the detections' stamp that does not decode (its data cut short): the frustum
    judges, counted by reason, and the frame is integrated."""
    h = Harness(ros_context, tmp_path / "data")
    h.start(input_mode="detections", sensor_reliable=True)
    try:
        see_two_things(h)
        camera = DepthCamera(h)
        camera.info_pub.publish(camera_info_to_msg(PINHOLE, 101.0, "camera"))
        cut_short = image_to_msg(wall_behind_gizmo_door_before_widget(), "32FC1", 101.0, "camera")
        cut_short.data = cut_short.data[:100]
        camera.depth_pub.publish(cut_short)
        assert h.spin_until(lambda: h.node.depth_frames.latest() and h.node.camera_info, timeout=10.0)
        h.det_pub.publish(detections(101.0, []))
        assert h.spin_until(lambda: h.node.graph.latest_stamp == 101.0, timeout=15.0)
        assert h.spin_until(lambda: states(h) == {"gizmo_1": "stale", "widget_1": "stale"}, timeout=10.0), states(h)
        assert h.node.depth_fallbacks.counts == {"no_depth_frame": 1, "unreadable_depth": 1}
        assert not h.node.dropped
    finally:
        h.close()
