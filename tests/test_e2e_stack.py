"""The whole stack as separate node processes over DDS (started from launch/sim.launch.py):
a task succeeds end to end through the RetrieveObject action; a task canceled mid-way leaves the
stack usable; and the main job (`mnemo run`) writes its report."""
import json
import os
import time
from pathlib import Path

import pytest
from action_msgs.msg import GoalStatus

from mnemo_common import names
from mnemo_common.launcher import start_launch_file
from mnemo_common.processes import REPO_ROOT, enter_domain, restore_domain, ros_env, unique_domain_id
from mnemo_interfaces.msg import Status

pytestmark = [pytest.mark.ros, pytest.mark.slow]
SCENARIO = REPO_ROOT / "src/mnemo_sim/scenarios/example_apartment.yaml"


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    out = tmp_path_factory.mktemp("stack")
    domain = unique_domain_id()
    saved = enter_domain(domain)
    processes = start_launch_file(REPO_ROOT / "launch/sim.launch.py",
                                  {"scenario": str(SCENARIO), "data_dir": str(out / "data"),
                                   "perception": "oracle"},
                                  env=ros_env(domain), log_dir=out / "logs")
    from mnemo_common.ros_client import RosClient

    client = RosClient("e2e_test_client")
    try:
        from mnemo_interfaces.srv import GetSceneGraph, RunPatrol, SearchMemoryByText, StartTask

        missing = client.wait_for_services([(RunPatrol, names.SIM_RUN_PATROL), (StartTask, names.SIM_START_TASK),
                                            (SearchMemoryByText, names.MEMORY_SEARCH_TEXT),
                                            (GetSceneGraph, names.GRAPH_GET)], timeout=120.0)
        assert not missing, f"services never came up: {missing}; logs: " + "; ".join(
            f"{p.name}: {p.log()[-800:]}" for p in processes if not p.alive())
        yield client, processes
    finally:
        client.close()
        for p in processes:
            p.stop()
        restore_domain(saved)


def _start(client, task_id):
    from mnemo_interfaces.srv import RunPatrol, StartTask

    from mnemo_planner.main_job import _wait_for_memory

    patrol = client.call(RunPatrol, names.SIM_RUN_PATROL, RunPatrol.Request(until_task=task_id), timeout=300.0)
    assert patrol.error_code == Status.OK, patrol.error_msg
    if patrol.observations:
        _wait_for_memory(client)
    start = client.call(StartTask, names.SIM_START_TASK, StartTask.Request(task_id=task_id))
    assert start.error_code == Status.OK, start.error_msg
    return start


def test_task_succeeds_end_to_end_through_the_action(stack):
    from mnemo_interfaces.action import RetrieveObject
    from mnemo_interfaces.srv import ScoreTask

    client, processes = stack
    start = _start(client, "class_book")
    feedback = []
    status, result = client.send_goal(RetrieveObject, names.RETRIEVE_OBJECT,
                                      RetrieveObject.Goal(instruction=start.instruction, budget=start.budget),
                                      feedback=feedback.append, timeout=240.0)
    assert status == GoalStatus.STATUS_SUCCEEDED
    assert result.success and result.object_id.startswith("book_"), result.error_msg
    # feedback and result travel on separate channels: the last feedback may land just after the result
    deadline = time.monotonic() + 5.0
    while len(feedback) < result.steps_used and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(feedback) == result.steps_used == len(result.trace) > 0
    assert [f.remaining_budget for f in feedback] == [start.budget - i - 1 for i in range(len(feedback))]
    score = client.call(ScoreTask, names.SIM_SCORE_TASK, ScoreTask.Request(task_id="class_book"))
    assert score.success, score.detail
    assert all(p.alive() for p in processes)


def test_cancel_mid_task_leaves_the_stack_usable(stack):
    from mnemo_interfaces.action import RetrieveObject
    from mnemo_interfaces.srv import SearchMemoryByText

    client, processes = stack
    start = _start(client, "cs_milk")
    feedback = []
    status, result = client.send_goal(RetrieveObject, names.RETRIEVE_OBJECT,
                                      RetrieveObject.Goal(instruction=start.instruction, budget=start.budget),
                                      feedback=feedback.append, timeout=240.0,
                                      cancel_after=lambda: len(feedback) >= 1)
    assert status == GoalStatus.STATUS_CANCELED
    assert result.error_code == Status.CANCELED and result.steps_used < start.budget
    # the stack still answers: memory, and a new goal on the same action server
    hits = client.call(SearchMemoryByText, names.MEMORY_SEARCH_TEXT, SearchMemoryByText.Request(text="a book", k=3))
    assert hits.error_code == Status.OK and hits.records
    start = _start(client, "spatial_coffee_table_book")
    status, result = client.send_goal(RetrieveObject, names.RETRIEVE_OBJECT,
                                      RetrieveObject.Goal(instruction=start.instruction, budget=start.budget),
                                      timeout=240.0)
    assert status == GoalStatus.STATUS_SUCCEEDED and result.success
    assert all(p.alive() for p in processes)


def test_main_job_writes_its_report(tmp_path):
    from mnemo_planner.main_job import main

    os.environ["ROS_DOMAIN_ID"] = str(unique_domain_id() % 100 + 101)
    try:
        code = main(["--scenario", str(SCENARIO), "--tasks", "class_book,recall_keys_like", "--out", str(tmp_path)])
    finally:
        os.environ.pop("ROS_DOMAIN_ID", None)
    assert code == 0
    results = json.loads((tmp_path / "results.json").read_text())
    assert [r["task_id"] for r in results] == ["class_book", "recall_keys_like"]
    assert all(r["success"] for r in results), results
    report = (tmp_path / "report.md").read_text()
    assert "2/2 tasks succeeded" in report and (tmp_path / "map.png").stat().st_size > 10_000
