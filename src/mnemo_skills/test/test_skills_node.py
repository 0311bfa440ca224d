"""The skills node in-process over DDS: skill services, the operator gate service and topic,
cancel, interaction events, and a clear answer where nav2 / control_msgs are not installed."""
from __future__ import annotations

import importlib.util
import os
import threading
import time
from pathlib import Path

import pytest

rclpy = pytest.importorskip("rclpy")

from rclpy.executors import MultiThreadedExecutor  # noqa: E402
from std_msgs.msg import Bool  # noqa: E402

from mnemo_common import names  # noqa: E402
from mnemo_common.processes import unique_domain_id  # noqa: E402
from mnemo_common.ros import detection_to_msg  # noqa: E402
from mnemo_common.types import Detection, Status  # noqa: E402
from mnemo_interfaces.msg import InteractionEvent, ObjectNode  # noqa: E402
from mnemo_interfaces.srv import ConfirmAction, Detect, GetSceneGraph, Navigate, Open  # noqa: E402
from std_srvs.srv import Trigger  # noqa: E402

pytestmark = pytest.mark.ros

PROFILE = Path(__file__).resolve().parents[1] / "profiles" / "tiago.yaml"


def _call(node, srv_type, name, request, timeout=10.0):
    client = node.create_client(srv_type, name)
    assert client.wait_for_service(timeout_sec=timeout), name
    future = client.call_async(request)
    deadline = time.monotonic() + timeout
    while not future.done() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert future.done(), f"{name} did not answer"
    return future.result()


@pytest.fixture()
def stack():
    os.environ["ROS_AUTOMATIC_DISCOVERY_RANGE"] = "LOCALHOST"
    context = rclpy.context.Context()
    rclpy.init(context=context, domain_id=unique_domain_id())
    from rclpy.parameter import Parameter

    from mnemo_skills.node import SkillsNode

    overrides = [Parameter("profile_file", value=str(PROFILE)), Parameter("operator_timeout", value=5.0),
                 Parameter("service_timeout", value=2.0),
                 Parameter("gated_skills", value=["navigate", "detect", "open"])]
    skills = SkillsNode(context=context, parameter_overrides=overrides)
    helper = rclpy.create_node("skills_test_helper", context=context)
    queries, events = [], []

    def on_detect(req, resp):
        queries.append(req.query)
        resp.detections = [detection_to_msg(Detection("mug", 0.9, centroid=(1.0, 2.0, 0.8), node_id="mug_1"))]
        return resp

    def on_graph(req, resp):
        resp.graph.nodes = [ObjectNode(id="cabinet_1", label="cabinet", kind="fixture", room="kitchen")]
        return resp

    helper.create_service(Detect, names.PERCEPTION_DETECT, on_detect)
    helper.create_service(GetSceneGraph, names.GRAPH_GET, on_graph)
    helper.create_subscription(InteractionEvent, names.INTERACTIONS, events.append, 10)
    executor = MultiThreadedExecutor(num_threads=6, context=context)
    executor.add_node(skills)
    executor.add_node(helper)
    spinner = threading.Thread(target=executor.spin, daemon=True)
    spinner.start()
    client = rclpy.create_node("skills_test_client", context=context)
    client_exec = MultiThreadedExecutor(num_threads=2, context=context)
    client_exec.add_node(client)
    threading.Thread(target=client_exec.spin, daemon=True).start()
    try:
        yield dict(skills=skills, client=client, queries=queries, events=events)
    finally:
        skills.close()
        executor.shutdown()
        client_exec.shutdown()
        for n in (skills, helper, client):
            n.destroy_node()
        rclpy.try_shutdown(context=context)


def _async(fn):
    box = {}
    t = threading.Thread(target=lambda: box.setdefault("r", fn()), daemon=True)
    t.start()
    return t, box


def _wait_pending(skills, timeout=5.0):
    deadline = time.monotonic() + timeout
    while skills.gate.pending is None and time.monotonic() < deadline:
        time.sleep(0.01)
    return skills.gate.pending


def test_detect_through_perception_after_operator_approval_by_service(stack):
    client, skills = stack["client"], stack["skills"]
    t, box = _async(lambda: _call(client, Detect, names.SKILL_DETECT, Detect.Request(query="mug")))
    pending = _wait_pending(skills)
    assert pending is not None and pending.action_id.startswith("detect:")
    ok = _call(client, ConfirmAction, names.OPERATOR_CONFIRM, ConfirmAction.Request(action_id=pending.action_id,
                                                                                   approve=True))
    assert ok.error_code == 0 and ok.pending == pending.action_id
    t.join(10.0)
    response = box["r"]
    assert response.error_code == 0, response.error_msg
    assert [d.node_id for d in response.detections] == ["mug_1"] and stack["queries"] == ["mug"]


def test_operator_rejects_on_the_decision_topic(stack):
    client, skills = stack["client"], stack["skills"]
    pub = client.create_publisher(Bool, "/mnemo/skills/operator_decision", 10)
    t, box = _async(lambda: _call(client, Detect, names.SKILL_DETECT, Detect.Request(query="mug")))
    assert _wait_pending(skills) is not None
    pub.publish(Bool(data=False))
    t.join(10.0)
    assert box["r"].error_code == Status.REJECTED and stack["queries"] == []


def test_confirm_and_cancel_with_nothing_pending(stack):
    client = stack["client"]
    bad = _call(client, ConfirmAction, names.OPERATOR_CONFIRM, ConfirmAction.Request(action_id="x", approve=True))
    assert bad.error_code == Status.NOT_FOUND and bad.error_msg
    cancel = _call(client, Trigger, "/mnemo/skills/cancel", Trigger.Request())
    assert cancel.success is False and "no skill" in cancel.message


def test_cancel_service_stops_a_skill_waiting_for_the_operator(stack):
    client, skills = stack["client"], stack["skills"]
    t, box = _async(lambda: _call(client, Open, names.SKILL_OPEN, Open.Request(target="cabinet_1")))
    assert _wait_pending(skills) is not None
    assert _call(client, Trigger, "/mnemo/skills/cancel", Trigger.Request()).success
    t.join(10.0)
    assert box["r"].error_code == Status.CANCELED


def test_bad_requests_get_error_responses(stack):
    client = stack["client"]
    r = _call(client, Open, names.SKILL_OPEN, Open.Request(target=""))
    assert r.error_code == Status.INVALID_ARGUMENT and r.error_msg
    r = _call(client, Navigate, names.SKILL_NAVIGATE, Navigate.Request(target="nowhere_7"))
    assert r.error_code == Status.NOT_FOUND


@pytest.mark.skipif(importlib.util.find_spec("nav2_msgs") is not None, reason="nav2 is installed here")
def test_without_nav2_navigate_says_what_to_install_and_reports_the_event(stack):
    client, skills = stack["client"], stack["skills"]
    t, box = _async(lambda: _call(client, Navigate, names.SKILL_NAVIGATE, Navigate.Request(target="cabinet_1")))
    assert _wait_pending(skills) is not None
    skills.gate.confirm("", True)
    t.join(10.0)
    r = box["r"]
    assert r.error_code == Status.UNAVAILABLE and "nav2_msgs is not installed" in r.error_msg
    deadline = time.monotonic() + 5.0
    while not stack["events"] and time.monotonic() < deadline:
        time.sleep(0.01)
    assert stack["events"] and stack["events"][0].action == "navigate" and not stack["events"][0].success
