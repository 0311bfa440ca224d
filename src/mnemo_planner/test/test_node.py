"""The planner node over DDS: a separate process serving RetrieveObject against fake skill and
scene-graph services in this process; a goal with feedback, a cancel mid-way while a skill is
slow, a bad goal, and the node still serving afterwards."""
import os
import threading
import time

import pytest

from mnemo_common import names
from mnemo_common.fake_openai import FakeOpenAI
from mnemo_common.processes import NodeProcess, ros_env, unique_domain_id

rclpy = pytest.importorskip("rclpy")
from rclpy.action import ActionClient  # noqa: E402
from rclpy.callback_groups import ReentrantCallbackGroup  # noqa: E402
from rclpy.executors import MultiThreadedExecutor  # noqa: E402

from mnemo_interfaces import srv  # noqa: E402
from mnemo_interfaces.action import RetrieveObject  # noqa: E402
from mnemo_interfaces.msg import ObjectNode  # noqa: E402


def call(name, arguments):
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


def wait_for(future, deadline_s, log=None):
    deadline = time.monotonic() + deadline_s
    while not future.done():
        assert time.monotonic() < deadline, "timed out" + (f"; planner log:\n{log()}" if log else "")
        time.sleep(0.02)
    return future.result()


@pytest.fixture()
def stack(tmp_path):
    domain = unique_domain_id()
    os.environ["ROS_DOMAIN_ID"] = str(domain)
    os.environ["ROS_AUTOMATIC_DISCOVERY_RANGE"] = "LOCALHOST"
    fake = FakeOpenAI().start()
    rclpy.init()
    node = rclpy.create_node("fake_services")
    group = ReentrantCallbackGroup()
    state = {"navigate_delay": 0.0, "calls": []}

    def navigate(req, res):
        state["calls"].append(("navigate", req.target))
        time.sleep(state["navigate_delay"])
        res.at_fixture, res.room = req.target, "kitchen"
        return res

    def pick(req, res):
        state["calls"].append(("pick", req.target))
        res.picked_id, res.picked_label = req.target, "mug"
        return res

    def query(req, res):
        res.nodes = [ObjectNode(id="mug_1", label="mug", kind="object", parent="sink_1", relation="on")]
        return res

    services = [node.create_service(srv.Navigate, names.SKILL_NAVIGATE, navigate, callback_group=group),
                node.create_service(srv.Pick, names.SKILL_PICK, pick, callback_group=group),
                node.create_service(srv.QueryObjects, names.GRAPH_QUERY, query, callback_group=group)]
    executor = MultiThreadedExecutor(num_threads=4)
    executor.add_node(node)
    spinner = threading.Thread(target=executor.spin, daemon=True)
    spinner.start()
    planner = NodeProcess("mnemo_planner.node", names.PLANNER_NODE, env=ros_env(domain), log_dir=tmp_path,
                          params={"policy": "llm", "llm_base_url": fake.base_url, "llm_model": "fake",
                                  "service_timeout": 5.0, "skill_timeout": 30.0})
    client = ActionClient(node, RetrieveObject, names.RETRIEVE_OBJECT, callback_group=group)
    try:
        assert client.wait_for_server(timeout_sec=30.0), planner.log()
        yield node, client, fake, state, planner
    finally:
        planner.stop()
        client.destroy()
        for s in services:
            node.destroy_service(s)
        executor.shutdown()
        node.destroy_node()
        rclpy.try_shutdown()
        fake.stop()


def send(client, instruction, budget, feedback):
    goal = RetrieveObject.Goal(instruction=instruction, budget=budget, task_id="t")
    handle = wait_for(client.send_goal_async(goal, feedback_callback=lambda f: feedback.append(f.feedback)), 15.0)
    assert handle.accepted
    return handle


def test_goal_with_feedback_cancel_and_bad_goal(stack):
    node, client, fake, state, planner = stack
    # 1. a task succeeds, with feedback at every step
    fake.push(call("query_scene_graph", {"label": "mug"}), call("navigate", {"target": "sink_1"}),
              call("pick", {"target": "mug_1"}))
    feedback = []
    handle = send(client, "Bring me the mug", 10, feedback)
    result = wait_for(handle.get_result_async(), 30.0, planner.log).result
    assert result.success and result.object_id == "mug_1" and result.steps_used == 3, planner.log()
    assert result.physical_actions == 2 and [s.tool for s in result.trace] == ["query_scene_graph", "navigate", "pick"]
    assert "mug_1" in result.trace[0].outcome
    deadline = time.monotonic() + 5
    while len(feedback) < 3 and time.monotonic() < deadline:
        time.sleep(0.02)
    assert [f.remaining_budget for f in feedback] == [9, 8, 7]

    # 2. cancel mid-way while a skill is slow: the cancel is answered without waiting for it
    fake.responder = lambda body: call("navigate", {"target": "sink_1"})
    state["navigate_delay"] = 3.0
    feedback = []
    handle = send(client, "Bring me the mug", 20, feedback)
    deadline = time.monotonic() + 20
    while not feedback and time.monotonic() < deadline:
        time.sleep(0.02)
    assert feedback, planner.log()
    t0 = time.monotonic()
    wait_for(handle.cancel_goal_async(), 5.0)
    result = wait_for(handle.get_result_async(), 10.0)
    assert time.monotonic() - t0 < 3.0  # did not wait for the slow navigate to finish
    assert result.status == 5  # GoalStatus.STATUS_CANCELED
    assert result.result.error_code == 6 and 1 <= result.result.steps_used < 20

    # 3. bad goals are aborted with an error code
    state["navigate_delay"] = 0.0
    for instruction, budget in (("", 5), ("Bring me the mug", 0), ("Bring me the mug", 100000)):
        handle = send(client, instruction, budget, [])
        result = wait_for(handle.get_result_async(), 10.0)
        assert result.status == 6 and result.result.error_code == 1 and result.result.error_msg  # ABORTED

    # 4. and the node keeps serving
    fake.responder = None
    fake.push(call("answer", {"text": "on the sink"}))
    handle = send(client, "Where is the mug?", 5, [])
    result = wait_for(handle.get_result_async(), 15.0).result
    assert result.success and result.answer == "on the sink"
    assert planner.alive()
