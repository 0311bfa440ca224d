"""Fault injection on the simulated stack (the fast subset; scripts/bench_faults.py kills all
seven nodes): the memory node SIGKILLed during a patrol and the scene-graph node in the
middle of a RetrieveObject task each come back (respawn) within 30 s, no memory record,
scene-graph node or event, or keyframe acknowledged before the kill is lost, and the task ends
with a result within its timeout."""
import importlib.util
import sys

import pytest

from mnemo_common.processes import REPO_ROOT

pytestmark = [pytest.mark.ros, pytest.mark.slow]
spec = importlib.util.spec_from_file_location("bench_faults", REPO_ROOT / "scripts" / "bench_faults.py")
bench_faults = sys.modules["bench_faults"] = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench_faults)


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    stack = bench_faults.FaultStack(tmp_path_factory.mktemp("faults"), patrol_days=1)
    try:
        yield stack
    finally:
        stack.close()


@pytest.mark.parametrize("node,moment,task", [("memory", "patrol", "class_book"),
                                              ("scene_graph", "task", "class_book")])
def test_a_node_killed_comes_back_and_loses_nothing(stack, node, moment, task):
    outcome = bench_faults.inject(stack, node, moment, task)
    assert not outcome.lost, outcome
    assert outcome.back_seconds is not None and outcome.back_seconds <= bench_faults.BACK_WITHIN, outcome
    assert not outcome.result.startswith("HANG") and outcome.task_seconds < bench_faults.TASK_TIMEOUT, outcome
