"""The simulator node over DDS: skills with interaction events and frames, patrols with observations and
images, task control, and error responses (never a crash) for malformed requests."""
from __future__ import annotations

import itertools
import math
import threading
from collections import Counter
import time
from pathlib import Path

import numpy as np
import pytest
import rclpy
import yaml
from rclpy.executors import MultiThreadedExecutor
from rclpy.parameter import Parameter
from rclpy.qos import QoSProfile, ReliabilityPolicy

from mnemo_common import names
from mnemo_common.processes import NodeProcess, ros_env, unique_domain_id
from mnemo_common.ros import image_from_msg, sensor_qos, time_from_msg
from mnemo_common.types import Status
from mnemo_interfaces.msg import InstanceSegmentation, InteractionEvent, Observation
from mnemo_interfaces.srv import Close, Detect, Navigate, Open, Peek, Pick, Place, RunPatrol, ScoreTask, StartTask
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import CameraInfo, Image

from mnemo_sim.conversions import segmentation_from_msg

DEADLINE = 30.0


class Harness:
    """A private-domain ROS context with a client node spun in a background thread; collects topics."""

    def __init__(self, domain: int, nodes=()):
        self.context = rclpy.Context()
        rclpy.init(context=self.context, domain_id=domain)
        self.client = rclpy.create_node("sim_test_client", context=self.context)
        self.executor = MultiThreadedExecutor(num_threads=4, context=self.context)
        self.nodes = [self.client, *[factory(self.context) for factory in nodes]]
        for node in self.nodes:
            self.executor.add_node(node)
        self.received: dict[str, list] = {}
        reliable = QoSProfile(depth=5000, reliability=ReliabilityPolicy.RELIABLE)
        images = sensor_qos(reliable=True, depth=50)
        for topic, kind, qos in ((names.OBSERVATIONS, Observation, reliable), (names.INTERACTIONS, InteractionEvent, reliable),
                                 (names.CLOCK, Clock, 10), (names.COLOR_IMAGE, Image, images),
                                 (names.DEPTH_IMAGE, Image, images), (names.CAMERA_INFO, CameraInfo, images),
                                 (names.SEGMENTATION, InstanceSegmentation, images)):
            self.received[topic] = []
            self.client.create_subscription(kind, topic, self.received[topic].append, qos)
        self.thread = threading.Thread(target=self.executor.spin, daemon=True)
        self.thread.start()

    def call(self, srv_type, name: str, **fields):
        client = self.client.create_client(srv_type, name)
        try:
            assert client.wait_for_service(timeout_sec=DEADLINE), f"{name} not available"
            future = client.call_async(srv_type.Request(**fields))
            deadline = time.monotonic() + DEADLINE
            while not future.done():
                assert time.monotonic() < deadline, f"{name} timed out"
                time.sleep(0.01)
            return future.result()
        finally:
            self.client.destroy_client(client)

    def wait_for_publishers(self, timeout: float = DEADLINE) -> bool:
        """Until every watched topic has a publisher matched (volatile topics drop what came before)."""
        found = self.wait_for(lambda: all(sub.get_publisher_count() > 0 for sub in self.client.subscriptions), timeout)
        time.sleep(1.0)  # the publishers' side of discovery (matching our readers) lags a little
        return found

    def wait_for(self, predicate, timeout: float = 10.0) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if predicate():
                return True
            time.sleep(0.02)
        return predicate()

    def close(self) -> None:
        self.executor.shutdown(timeout_sec=5)
        self.thread.join(timeout=5)
        for node in self.nodes:
            close = getattr(node, "close", None)
            if callable(close):
                close()
            node.destroy_node()
        rclpy.try_shutdown(context=self.context)


@pytest.fixture
def scenario_file(tmp_path, small_data):
    path = tmp_path / "small.yaml"
    path.write_text(yaml.safe_dump(small_data))
    return path


def sim_factory(scenario: Path, data_dir: Path, **params):
    from mnemo_sim.node import SimNode

    values = {"scenario": str(scenario), "data_dir": str(data_dir), "miss_grasp_probability": 0.0, **params}
    return lambda context: SimNode(context=context, parameter_overrides=[Parameter(k, value=v) for k, v in values.items()])


@pytest.fixture
def rendered_sim(scenario_file, tmp_path):
    h = Harness(unique_domain_id(), [sim_factory(scenario_file, tmp_path / "data", render=True)])
    yield h
    h.close()


def test_skills_report_outcomes_events_and_frames(rendered_sim, tmp_path):
    h = rendered_sim
    started = h.call(StartTask, names.SIM_START_TASK, task_id="cab_a")
    assert started.error_code == Status.OK and started.instruction.startswith("Find the ketchup")
    assert time_from_msg(started.clock) == 86400 + 18 * 3600 and started.budget == 10

    nav = h.call(Navigate, names.SKILL_NAVIGATE, target="cabinet_1")
    assert nav.error_code == Status.OK and nav.at_fixture == "cabinet_1" and nav.room == "kitchen" and nav.duration > 0
    # A fresh observation from the new pose, and a camera frame with one stamp on all four streams.
    assert h.wait_for(lambda: any(o.robot_pose.x == pytest.approx(nav.robot_pose.x) for o in h.received[names.OBSERVATIONS]))
    assert h.wait_for(lambda: all(h.received[t] for t in (names.COLOR_IMAGE, names.DEPTH_IMAGE, names.CAMERA_INFO,
                                                            names.SEGMENTATION)))
    color, depth = h.received[names.COLOR_IMAGE][-1], h.received[names.DEPTH_IMAGE][-1]
    info, seg_msg = h.received[names.CAMERA_INFO][-1], h.received[names.SEGMENTATION][-1]
    assert color.header.stamp == depth.header.stamp == info.header.stamp == seg_msg.header.stamp
    assert (color.encoding, depth.encoding, color.width, color.height) == ("rgb8", "32FC1", 640, 480)
    assert info.k[0] > 0 and info.k[2] == pytest.approx(319.5)
    seg, ids, _labels, kinds = segmentation_from_msg(seg_msg)
    assert "cabinet_1" in ids.values() and kinds[next(v for v, i in ids.items() if i == "cabinet_1")] == "fixture"
    assert "secret_1" not in ids.values()  # inside a closed cabinet: never in the picture
    assert np.isfinite(image_from_msg(depth)[seg >= 0]).all()

    # Locked: contact but no motion, and the failure comes back as an error code with the signals.
    locked = h.call(Open, names.SKILL_OPEN, target="cabinet_1")
    assert locked.error_code == Status.FAILED and locked.signals.contact and locked.signals.joint_displacement < 0.05
    assert h.wait_for(lambda: any(e.id == locked.interaction_id for e in h.received[names.INTERACTIONS]))
    event = next(e for e in h.received[names.INTERACTIONS] if e.id == locked.interaction_id)
    assert event.action == "open" and not event.success and len(event.frame_refs) == 4
    assert all(Path(p).is_file() for p in event.frame_refs)
    assert Path(event.frame_refs[0]).parent == (tmp_path / "data" / "interactions" / event.id).resolve()

    h.call(Navigate, names.SKILL_NAVIGATE, target="cabinet_2")
    opened = h.call(Open, names.SKILL_OPEN, target="cabinet_2")
    assert opened.error_code == Status.OK and opened.signals.joint_displacement > 1.0
    assert h.wait_for(lambda: any(e.id == opened.interaction_id for e in h.received[names.INTERACTIONS]))
    event = next(e for e in h.received[names.INTERACTIONS] if e.id == opened.interaction_id)
    assert "ketchup bottle" in event.seen_contents
    from PIL import Image as PilImage

    before, after = (np.asarray(PilImage.open(event.frame_refs[i])).astype(int) for i in (0, -1))
    assert (np.abs(before - after).sum(axis=2) > 30).mean() > 0.02  # the door swung open in the picture

    peek = h.call(Peek, names.SKILL_PEEK, target="cabinet_2")
    assert peek.error_code == Status.OK and [d.instance_id for d in peek.contents] == ["ketchup_1"]
    detect = h.call(Detect, names.SKILL_DETECT, query="ketchup")
    assert detect.error_code == Status.OK and [d.label for d in detect.detections] == ["ketchup bottle"]
    score = h.call(ScoreTask, names.SIM_SCORE_TASK, task_id="cab_a", answer="")
    assert score.error_code == Status.OK and score.success and score.physical_actions >= 4

    # Continuing the sequence: the cabinet stays open; pick, then place back and close.
    assert h.call(StartTask, names.SIM_START_TASK, task_id="cab_b").error_code == Status.OK
    pick = h.call(Pick, names.SKILL_PICK, target="ketchup")
    assert pick.error_code == Status.OK and pick.picked_id == "ketchup_1" and pick.signals.gripper_closure > 0
    place = h.call(Place, names.SKILL_PLACE, target="cabinet_2")
    assert place.error_code == Status.OK and place.placed_id == "ketchup_1"
    assert h.call(Close, names.SKILL_CLOSE, target="cabinet_2").error_code == Status.OK


def test_malformed_requests_get_error_responses(rendered_sim):
    h = rendered_sim
    cases = [
        (Open, names.SKILL_OPEN, {"target": ""}, Status.INVALID_ARGUMENT),
        (Open, names.SKILL_OPEN, {"target": "no_such_thing"}, Status.NOT_FOUND),
        (Navigate, names.SKILL_NAVIGATE, {"target": "nowhere"}, Status.NOT_FOUND),
        (Pick, names.SKILL_PICK, {"target": "   "}, Status.INVALID_ARGUMENT),
        (StartTask, names.SIM_START_TASK, {"task_id": "no_task"}, Status.INVALID_ARGUMENT),
        (ScoreTask, names.SIM_SCORE_TASK, {"task_id": "find_mug"}, Status.INVALID_ARGUMENT),
        (RunPatrol, names.SIM_RUN_PATROL, {"until_task": "next tuesday"}, Status.INVALID_ARGUMENT),
        (RunPatrol, names.SIM_RUN_PATROL, {"until_task": "", "rate": -1.0}, Status.INVALID_ARGUMENT),
    ]
    for srv, name, fields, code in cases:
        response = h.call(srv, name, **fields)
        assert response.error_code == code, (name, fields, response.error_msg)
        assert response.error_msg
    from geometry_msgs.msg import Pose2D

    bad_pose = h.call(Navigate, names.SKILL_NAVIGATE, target="", pose=Pose2D(x=math.nan, y=0.0, theta=0.0))
    assert bad_pose.error_code == Status.INVALID_ARGUMENT
    outside = h.call(Navigate, names.SKILL_NAVIGATE, target="", pose=Pose2D(x=50.0, y=50.0, theta=0.0))
    assert outside.error_code == Status.INVALID_ARGUMENT
    # Still serving.
    assert h.call(Navigate, names.SKILL_NAVIGATE, target="table_1").error_code == Status.OK


def test_patrol_process_publishes_observations_and_images(scenario_file, tmp_path):
    """The real node in its own process: RunPatrol over DDS, every observation received, images every Nth."""
    domain = unique_domain_id()
    params = {"scenario": str(scenario_file), "data_dir": str(tmp_path / "data"), "render": False,
              "image_every": 40, "publish_rate": 20.0}
    with NodeProcess("mnemo_sim.node", names.SIM_NODE, params, env=ros_env(domain), log_dir=tmp_path / "log") as proc:
        h = Harness(domain)
        try:
            response = h.call(RunPatrol, names.SIM_RUN_PATROL, until_task="day 0 12:00", rate=0.0, render=True)
            assert response.error_code == Status.OK, response.error_msg
            assert response.observations == 200 and time_from_msg(response.clock) == pytest.approx(11 * 3600)
            assert h.wait_for(lambda: len(h.received[names.OBSERVATIONS]) >= 200), len(h.received[names.OBSERVATIONS])
            stamps = [time_from_msg(o.header.stamp) for o in h.received[names.OBSERVATIONS]]
            assert stamps == sorted(stamps) and stamps[0] == pytest.approx(9 * 3600)
            assert any(o.sightings for o in h.received[names.OBSERVATIONS])
            assert not any(s.object_id == "secret_1" for o in h.received[names.OBSERVATIONS] for s in o.sightings)
            # Images for every 40th observation, stamped like their observation.
            assert h.wait_for(lambda: all(len(h.received[t]) >= 5 for t in (
                names.COLOR_IMAGE, names.DEPTH_IMAGE, names.CAMERA_INFO, names.SEGMENTATION))), \
                {t: len(v) for t, v in h.received.items()}
            assert len(h.received[names.COLOR_IMAGE]) == 5
            image_stamps = {time_from_msg(m.header.stamp) for m in h.received[names.COLOR_IMAGE]}
            assert image_stamps <= set(stamps)
            assert h.wait_for(lambda: h.received[names.CLOCK])
            # The second patrol (day 1) runs on the next request; nothing is run twice.
            again = h.call(RunPatrol, names.SIM_RUN_PATROL, until_task="find_mug", rate=0.0, render=False)
            assert again.observations == 200
            assert h.call(RunPatrol, names.SIM_RUN_PATROL, until_task="find_mug").observations == 0
        finally:
            h.close()
        assert proc.alive(), proc.log()


def test_honest_skills_see_through_the_stacks_perception_and_graph(scenario_file, tmp_path):
    """perception:=honest: no oracle observation, no object id in the segmentation; a skill's view goes to
    perception (here a stand-in answering each frame with a mug detection) and back, named by the
    scene graph's node; pick takes that node id, only the scorer's list names the instance; without
    perception's answer a skill ends UNAVAILABLE and the node keeps serving."""
    from mnemo_common.ros import detection_to_msg, latched_qos
    from mnemo_common.types import Detection
    from mnemo_interfaces.msg import DetectionArray, ObjectNode, SceneGraph
    from geometry_msgs.msg import Point

    h = Harness(unique_domain_id(), [sim_factory(scenario_file, tmp_path / "data", perception="honest",
                                                 perception_timeout=1.5, graph_wait=0.2)])
    try:
        sim = h.nodes[1]
        assert h.call(StartTask, names.SIM_START_TASK, task_id="find_mug").error_code == Status.OK
        x, y, z = sim.world.object_position("mug_1")
        graph = h.client.create_publisher(SceneGraph, names.SCENE_GRAPH, latched_qos())
        graph.publish(SceneGraph(nodes=[ObjectNode(id="mug_4", label="mug", kind="object",
                                                   position=Point(x=x + 0.05, y=y, z=z))]))
        detections = h.client.create_publisher(DetectionArray, names.DETECTIONS, 20)
        answering = [True]

        def perceive(image):  # the perception node's part: a detection per frame, with the frame's stamp
            if answering[0]:
                mug = Detection("mug", 1.0, centroid=(x, y, z), box_min=(x, y, z), box_max=(x, y, z),
                                attributes={"color": "red"})
                out = DetectionArray(detections=[detection_to_msg(mug)])
                out.header.stamp = image.header.stamp
                detections.publish(out)
        h.client.create_subscription(Image, names.COLOR_IMAGE, perceive, sensor_qos(reliable=True, depth=5))
        assert h.wait_for(lambda: sim.perceived.nodes, timeout=DEADLINE)
        assert h.wait_for(lambda: detections.get_subscription_count() > 0, DEADLINE)  # answers not lost

        where = sim.world.truth_location("mug_1")
        assert h.call(Navigate, names.SKILL_NAVIGATE, target=where).error_code == Status.OK
        seen = h.call(Detect, names.SKILL_DETECT, query="red mug")
        assert seen.error_code == Status.OK
        assert [(d.label, d.node_id, d.instance_id) for d in seen.detections] == [("mug", "mug_4", "")]
        assert h.call(Pick, names.SKILL_PICK, target="ghost_1").result_code == Pick.Response.NOT_VISIBLE
        pick = h.call(Pick, names.SKILL_PICK, target="mug_4")
        assert pick.error_code == Status.OK and pick.picked_id == "mug_4" and sim.robot.picked == ["mug_1"]
        assert h.call(ScoreTask, names.SIM_SCORE_TASK, task_id="find_mug").success

        answering[0] = False
        started = time.monotonic()
        lost = h.call(Detect, names.SKILL_DETECT, query="mug")
        assert lost.error_code == Status.UNAVAILABLE and names.DETECTIONS in lost.error_msg
        assert time.monotonic() - started < 10.0
        assert h.call(Navigate, names.SKILL_NAVIGATE, target="table_1").error_code == Status.OK  # still serving

        assert not h.received[names.OBSERVATIONS]  # the scene graph publishes those in honest mode
        segments = [segmentation_from_msg(m) for m in h.received[names.SEGMENTATION]]
        assert segments and all(not i for _, ids, _, kinds in segments for v, i in ids.items() if kinds[v] == "object")
        assert any("mug" in labels.values() for _, _, labels, _ in segments)
    finally:
        h.close()


def test_honest_patrol_moves_on_once_perception_has_each_frame(scenario_file, tmp_path):
    """perception:=honest: a patrol publishes each rendered frame until perception's detections of its stamp
    come back (a stand-in that never gets the first copy of a frame), so every frame is perceived however
    fast frames are asked for; without perception it ends UNAVAILABLE."""
    from mnemo_interfaces.msg import DetectionArray

    h = Harness(unique_domain_id(), [sim_factory(scenario_file, tmp_path / "data", perception="honest",
                                                 image_every=20, perception_timeout=6.0)])
    try:
        detections = h.client.create_publisher(DetectionArray, names.DETECTIONS, 20)
        received, answered, up = Counter(), set(), [True]

        def perceive(image):  # the perception node's part, but the first copy of each frame is lost
            stamp = time_from_msg(image.header.stamp)
            received[stamp] += 1
            if up[0] and received[stamp] > 1:
                out = DetectionArray()
                out.header.stamp = image.header.stamp
                detections.publish(out)
                answered.add(stamp)
        h.client.create_subscription(Image, names.COLOR_IMAGE, perceive, sensor_qos(reliable=True, depth=5))
        assert h.wait_for_publishers()
        # the simulator's reader of detections matched too: an answer published before that is lost
        assert h.wait_for(lambda: detections.get_subscription_count() > 0, DEADLINE)

        response = h.call(RunPatrol, names.SIM_RUN_PATROL, until_task="day 0 12:00", rate=1000.0)
        assert response.error_code == Status.OK and response.observations == 200, response.error_msg
        # every 20th observation's frame, none skipped for being behind 1000 observations/s
        assert sorted(answered) == pytest.approx([9 * 3600 + i * 7200 / 199 for i in range(0, 200, 20)])
        assert sorted(received) == sorted(answered)

        received.clear()
        up[0] = False  # perception gone
        lost = h.call(RunPatrol, names.SIM_RUN_PATROL, until_task="find_mug", rate=0.0)
        assert lost.error_code == Status.UNAVAILABLE and names.DETECTIONS in lost.error_msg
        assert list(received) == [9 * 3600 + 86400]  # it waited on the first frame
    finally:
        h.close()


def test_honest_open_reports_the_opened_view_however_late_perception_answers(scenario_file, tmp_path):
    """perception:=honest: the view after a skill (door still closed) and the view an open takes once the
    door has moved are two frames; when perception answers each frame late, open must still report what
    its own frame shows (the contents), never the answer to the earlier frame of the closed door."""
    from mnemo_common.ros import detection_to_msg
    from mnemo_common.types import Detection
    from mnemo_interfaces.msg import DetectionArray

    h = Harness(unique_domain_id(), [sim_factory(scenario_file, tmp_path / "data", perception="honest",
                                                 perception_timeout=5.0, graph_wait=0.1)])
    try:
        detections = h.client.create_publisher(DetectionArray, names.DETECTIONS, 20)
        timers = []

        def perceive(seg):  # a slow perception node: each frame's object classes, answered 0.5 s later
            inside = (0.3, 3.0, 0.3)  # cabinet_2's footprint, where the map puts it
            found = [Detection(label, 1.0, centroid=inside, box_min=inside, box_max=inside)
                     for label, kind in zip(seg.labels, seg.kinds) if kind == "object"]
            out = DetectionArray(detections=[detection_to_msg(d) for d in found])
            out.header.stamp = seg.header.stamp
            timers.append(threading.Timer(0.5, detections.publish, (out,)))
            timers[-1].start()
        h.client.create_subscription(InstanceSegmentation, names.SEGMENTATION, perceive,
                                     sensor_qos(reliable=True, depth=50))
        assert h.wait_for_publishers()
        assert h.wait_for(lambda: detections.get_subscription_count() > 0, DEADLINE)  # answers not lost

        assert h.call(StartTask, names.SIM_START_TASK, task_id="cab_a").error_code == Status.OK
        assert h.call(Navigate, names.SKILL_NAVIGATE, target="cabinet_2").error_code == Status.OK
        opened = h.call(Open, names.SKILL_OPEN, target="cabinet_2")  # at once: the closed view is still unanswered
        assert opened.error_code == Status.OK, opened.error_msg
        assert h.wait_for(lambda: any(e.action == "open" for e in h.received[names.INTERACTIONS]))
        event = next(e for e in h.received[names.INTERACTIONS] if e.action == "open")
        assert list(event.seen_contents) == ["ketchup bottle"]
        # a frame sent again keeps its stamp; two views never share one
        views = [stamp for stamp, _ in itertools.groupby(time_from_msg(m.header.stamp)
                                                          for m in h.received[names.COLOR_IMAGE])]
        assert len(views) >= 3 and len(set(views)) == len(views), views
    finally:
        for timer in timers:
            timer.cancel()
        h.close()
