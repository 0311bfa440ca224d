"""The planner's ROS toolbox degrades instead of hanging: a service that is down answers
UNAVAILABLE within connect_timeout; a query whose server is killed while it waits is sent again
to the respawned server and answered; a skill whose server is killed mid-call ends UNAVAILABLE
(never sent twice) long before the skill timeout."""
from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from mnemo_common.processes import NodeProcess, Supervisor, ros_env, unique_domain_id
from mnemo_common.types import Status

pytestmark = [pytest.mark.ros, pytest.mark.slow]
HERE = Path(__file__).parent


@pytest.fixture()
def toolbox():
    import rclpy
    from rclpy.executors import MultiThreadedExecutor

    from mnemo_planner.ros_toolbox import RosToolbox

    domain = unique_domain_id()
    os.environ["ROS_DOMAIN_ID"] = str(domain)
    context = rclpy.Context()
    rclpy.init(context=context)
    node = rclpy.create_node("degrade_test", context=context)
    executor = MultiThreadedExecutor(num_threads=2, context=context)
    executor.add_node(node)
    box = RosToolbox(node, service_timeout=30.0, skill_timeout=300.0)
    box.connect_timeout = 1.0
    import threading

    spin = threading.Thread(target=executor.spin, daemon=True)
    spin.start()

    def run(coro, timeout=60.0):
        task = executor.create_task(coro)
        deadline = time.monotonic() + timeout
        while not task.done():
            assert time.monotonic() < deadline, "the toolbox call hung"
            time.sleep(0.02)
        return task.result()

    try:
        yield box, run, domain
    finally:
        executor.shutdown(timeout_sec=2.0)
        spin.join(timeout=5.0)
        node.destroy_node()
        rclpy.try_shutdown(context=context)
        os.environ.pop("ROS_DOMAIN_ID", None)


def _call(box, tool, request):
    async def go():
        from mnemo_common.types import MnemoError

        try:
            return await box.call(tool, request)
        except MnemoError as exc:
            return exc
    return go()


def test_a_down_service_is_unavailable_quickly(toolbox):
    from mnemo_interfaces.srv import SearchMemoryByText

    box, run, _ = toolbox
    t0 = time.monotonic()
    error = run(_call(box, "search_memory", SearchMemoryByText.Request(text="mug", k=3)))
    assert error.code == Status.UNAVAILABLE and "not available" in error.message
    assert time.monotonic() - t0 < 3.0


def test_a_server_killed_mid_call_is_noticed(toolbox, tmp_path):
    from mnemo_interfaces.srv import Navigate, SearchMemoryByText

    box, run, domain = toolbox
    hang = tmp_path / "hang"
    env = ros_env(domain, {"PYTHONPATH": f"{HERE.parent}:{ros_env()['PYTHONPATH']}", "MNEMO_HANG_ONCE": str(hang)})
    server = NodeProcess("tests.peers.flaky_server", "flaky_server", env=env, log_dir=tmp_path, respawn=True,
                         respawn_delay=0.2)
    supervisor = Supervisor([server]).start()
    try:
        deadline = time.monotonic() + 30.0
        while "ready" not in server.log():
            assert time.monotonic() < deadline, server.log()
            time.sleep(0.1)
        for tool, request, expect in (("search_memory", SearchMemoryByText.Request(text="hang", k=3), Status.OK),
                                      ("navigate", Navigate.Request(target="hang"), Status.UNAVAILABLE)):
            hang.touch()
            pid = server.proc.pid
            task = box.node.executor.create_task(_call(box, tool, request))
            while hang.exists():  # the server is now inside the hanging handler
                time.sleep(0.02)
            os.kill(pid, 9)
            t0 = time.monotonic()
            while not task.done():
                assert time.monotonic() - t0 < 30.0, f"{tool} hung after its server was killed"
                time.sleep(0.05)
            outcome = task.result()
            if expect == Status.OK:
                assert getattr(outcome, "error_code", None) == 0, outcome
            else:
                assert outcome.code == expect and "restarted while the call was pending" in outcome.message
        assert server.restarts == 2
    finally:
        server.stop()
        supervisor.stop()
