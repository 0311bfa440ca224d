"""The adapters' blocking action call against a real rclpy action server (RetrieveObject stands in
for NavigateToPose / FollowJointTrajectory, which are not installed here): success, the server's
result mapping, timeout and cancel both cancel the goal on the server, rejection, no server."""
from __future__ import annotations

import threading
import time

import pytest

rclpy = pytest.importorskip("rclpy")

from rclpy.action import ActionServer, CancelResponse, GoalResponse  # noqa: E402
from rclpy.callback_groups import ReentrantCallbackGroup  # noqa: E402
from rclpy.executors import MultiThreadedExecutor  # noqa: E402

from mnemo_common.processes import unique_domain_id  # noqa: E402
from mnemo_common.types import Status  # noqa: E402
from mnemo_interfaces.action import RetrieveObject  # noqa: E402

from mnemo_skills.adapters import ActionCall  # noqa: E402
from mnemo_skills.conversions import nav2_outcome  # noqa: E402
from mnemo_skills.ports import CancelToken  # noqa: E402

pytestmark = pytest.mark.ros


@pytest.fixture()
def graph():
    context = rclpy.context.Context()
    rclpy.init(context=context, domain_id=unique_domain_id())
    server_node = rclpy.create_node("fake_nav2", context=context)
    client_node = rclpy.create_node("skills_adapter_test", context=context)
    seen = {"canceled": threading.Event(), "goals": []}

    def on_goal(goal):
        seen["goals"].append(goal.instruction)
        return GoalResponse.REJECT if goal.instruction == "reject" else GoalResponse.ACCEPT

    def execute(handle):
        if handle.request.instruction == "hang":
            while not handle.is_cancel_requested:
                time.sleep(0.01)
            seen["canceled"].set()
            handle.canceled()
            return RetrieveObject.Result()
        if handle.request.instruction == "fail":
            handle.abort()
            return RetrieveObject.Result(error_code=204, error_msg="no valid path")
        handle.succeed()
        return RetrieveObject.Result(success=True)

    group = ReentrantCallbackGroup()
    ActionServer(server_node, RetrieveObject, "/fake/navigate_to_pose", execute, goal_callback=on_goal,
                 cancel_callback=lambda _h: CancelResponse.ACCEPT, callback_group=group)
    executor = MultiThreadedExecutor(num_threads=4, context=context)
    executor.add_node(server_node)
    executor.add_node(client_node)
    spinner = threading.Thread(target=executor.spin, daemon=True)
    spinner.start()
    try:
        yield client_node, seen
    finally:
        executor.shutdown()
        spinner.join(timeout=5.0)  # no spin in flight while the nodes are destroyed
        server_node.destroy_node()
        client_node.destroy_node()
        rclpy.try_shutdown(context=context)


def _map(status, result):
    return nav2_outcome(status, int(result.error_code), result.error_msg)


def _call(node, name="/fake/navigate_to_pose"):
    return ActionCall(node, RetrieveObject, name, ReentrantCallbackGroup(), server_wait=3.0)


def test_success_and_error_code_pass_through(graph):
    node, seen = graph
    call = _call(node)
    assert call.run(RetrieveObject.Goal(instruction="go"), 5.0, CancelToken(), _map).ok
    failed = call.run(RetrieveObject.Goal(instruction="fail"), 5.0, CancelToken(), _map)
    assert failed.code == Status.FAILED and failed.backend_code == 204 and "no valid path" in failed.message


def test_timeout_cancels_the_goal_on_the_server(graph):
    node, seen = graph
    t0 = time.monotonic()
    out = _call(node).run(RetrieveObject.Goal(instruction="hang"), 0.5, CancelToken(), _map)
    assert out.code == Status.TIMEOUT and "goal canceled" in out.message
    assert seen["canceled"].wait(3.0) and time.monotonic() - t0 < 4.0


def test_cancel_token_cancels_the_goal_on_the_server(graph):
    node, seen = graph
    token = CancelToken()
    threading.Timer(0.3, token.cancel, args=("operator stop",)).start()
    out = _call(node).run(RetrieveObject.Goal(instruction="hang"), 10.0, token, _map)
    assert out.code == Status.CANCELED and "operator stop" in out.message
    assert seen["canceled"].wait(3.0)


def test_rejected_goal_and_missing_server(graph):
    node, seen = graph
    rejected = _call(node).run(RetrieveObject.Goal(instruction="reject"), 5.0, CancelToken(), _map)
    assert rejected.code == Status.FAILED and "rejected" in rejected.message
    t0 = time.monotonic()
    missing = ActionCall(node, RetrieveObject, "/nobody/here", ReentrantCallbackGroup(), server_wait=0.3)
    out = missing.run(RetrieveObject.Goal(instruction="go"), 5.0, CancelToken(), _map)
    assert out.code == Status.UNAVAILABLE and time.monotonic() - t0 < 2.0
