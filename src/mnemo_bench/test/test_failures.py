"""Failure causes on hand-made rows of the tiny flat: each cause from the row's typed outcome and
the scenario's truth, and the report's cause table and per-failure lines."""
import json

import pytest

from mnemo_bench.failures import FailureCause, classify_failure, describe, failed_pick_targets
from mnemo_bench.report import write_report
from mnemo_bench.runner import SuiteResult, TaskRow

# tiny_flat: red_mug and remote are pick_any [mug_1] / [remote_1] (mug_2 is the blue mug),
# go_ketchup is reach_any [cabinet_2], recall_remote is answer_any [Sofa]; budgets 12 (recall 6).


def _row(task_id: str, **outcome) -> TaskRow:
    fields = dict(scenario="tiny_flat", method="full", task_id=task_id, type="visible", family="attribute",
                  sequence="", instruction="", success=False, planner_success=False, detail="", steps=4, budget=12,
                  physical_actions=0, optimal_actions=2, action_ratio=None, wall_time=0.0, locked_retries=0)
    fields.update(outcome)
    return TaskRow(**fields)


def _failed_pick(target: str) -> str:
    return f"pick(target={target}) -> failed: no object matching {target!r} in view"


@pytest.mark.parametrize("task_id, outcome, cause", [
    ("red_mug", dict(success=True, picked_ids=["mug_1"]), FailureCause.NONE),
    ("red_mug", dict(picked_ids=["mug_2"]), FailureCause.WRONG_INSTANCE),
    ("red_mug", dict(picked_ids=["remote_1"]), FailureCause.WRONG_OBJECT),
    ("red_mug", dict(picked_ids=["mug_1", "remote_1"]), FailureCause.WRONG_OBJECT),
    ("red_mug", dict(trace=[_failed_pick("to")]), FailureCause.PARSE),
    ("red_mug", dict(trace=[_failed_pick("kitchen"), _failed_pick("red mug")], steps=12), FailureCause.PARSE),
    ("red_mug", dict(trace=[_failed_pick("red mugs")], steps=12), FailureCause.NOT_FOUND_BUDGET),
    ("red_mug", dict(trace=[_failed_pick("mug_1")], steps=12), FailureCause.NOT_FOUND_BUDGET),
    ("remote", dict(steps=4), FailureCause.GAVE_UP),
    ("go_ketchup", dict(final_fixture="cabinet_1"), FailureCause.WRONG_FIXTURE),
    ("go_ketchup", dict(final_fixture="cabinet_1", steps=12), FailureCause.NOT_FOUND_BUDGET),
    ("go_ketchup", dict(final_fixture=""), FailureCause.GAVE_UP),
    ("recall_remote", dict(answer="on the kitchen counter", budget=6), FailureCause.RECALL_WRONG),
    ("recall_remote", dict(answer=" ", budget=6), FailureCause.RECALL_EMPTY),
    ("no_such_task", dict(), FailureCause.OTHER),
])
def test_each_cause_from_the_typed_outcome(tiny, task_id, outcome, cause):
    row = _row(task_id, **outcome)
    assert classify_failure(row, tiny) == cause.value
    assert bool(describe(classify_failure(row, tiny))) == (cause is not FailureCause.NONE)


def test_failed_pick_targets_reads_only_failed_picks():
    trace = ["navigate(target=table_1) -> ok: arrived", "pick(target=red mug) -> ok: picked mug mug_1",
             "pick(target=the, hint=x) -> failed: nothing", _failed_pick("blue mug")]
    assert failed_pick_targets(trace) == ["the", "blue mug"]


def test_report_counts_causes_per_method_and_family_and_lists_each_failure(tmp_path):
    rows = [_row("red_mug", picked_ids=["mug_2"], failure="wrong_instance"),
            _row("remote", family="class", failure="gave_up"),
            _row("remote", method="random", family="class", failure="gave_up"),
            _row("recall_remote", type="recall", family="memory_query", success=True)]
    result = SuiteResult(rows, [], {"methods": ["full", "random"], "scenarios": ["tiny_flat"], "tasks": 3})
    files = write_report(result, tmp_path, plots=False)
    causes = json.loads(files["json"].read_text())["summary"]["failure_causes"]
    assert causes["by_method"] == {"full": {"wrong_instance": 1, "gave_up": 1}, "random": {"gave_up": 1}}
    assert causes["by_family"]["full"] == {"attribute": {"wrong_instance": 1}, "class": {"gave_up": 1}}
    md = files["markdown"].read_text()
    section = md.split("## Failure causes")[1].split("## Per task")[0]
    assert "| method | wrong_instance | gave_up | failed |" in section
    assert "| full | 1 | 1 | 2 |" in section and "| random | 0 | 1 | 1 |" in section
    assert "| attribute | 1 | 0 | 1 |" in section
    failure_lines = [line for line in md.split("## Failures of full")[1].splitlines() if line.startswith("- ")]
    assert [line.split()[1] for line in failure_lines] == ["`wrong_instance`", "`gave_up`"]
