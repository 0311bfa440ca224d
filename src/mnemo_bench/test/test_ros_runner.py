"""--ros: the same tasks through the ROS nodes give the same results as in-process."""
import pytest

from mnemo_bench.ros_runner import _locked_retries, compare
from mnemo_bench.runner import TaskRow


def _row(task, success=True, steps=3, trace=(), sequence="s", method="full"):
    return TaskRow("tiny_flat", method, task, "interactive", "locked", sequence, "", success, success, "", steps, 12,
                   2, 2, 1.0, 0.1, 0, "", "", list(trace))


def test_compare_lists_only_the_differing_fields():
    ros = [_row("a"), _row("b", steps=5)]
    local = [_row("a"), _row("b", steps=4)]
    diffs = compare(ros, local)
    assert diffs == [{"scenario": "tiny_flat", "task": "b", "differs": {"steps": {"ros": 5, "in_process": 4}}}]


def test_locked_retries_are_read_from_the_traces_across_a_sequence():
    first = _row("a", trace=["navigate(target=cabinet_1) -> ok: arrived",
                             "open(target=cabinet_1) -> failed: open cabinet_1: did not open (learned locked=true)"])
    second = _row("b", trace=["open(target=cabinet_1) -> failed: open cabinet_1: did not open"])
    other = _row("c", sequence="t", trace=["open(target=cabinet_1) -> ok: opened"])
    rows = [first, second, other]
    _locked_retries(rows)
    assert [r.locked_retries for r in rows] == [0, 1, 0]


@pytest.mark.ros
@pytest.mark.slow
def test_ros_run_matches_in_process(tiny, tiny_path, tmp_path):
    pytest.importorskip("rclpy")
    from mnemo_bench.methods import METHODS
    from mnemo_bench.ros_runner import run_ros_suite

    wanted = {"red_mug", "recall_remote"}
    result = run_ros_suite([tiny], [METHODS["full"]], [tiny_path], out=tmp_path, progress=False,
                           task_filter=lambda sc, t: t.id in wanted)
    ros = [r for r in result.rows if r.method == "full (ROS)"]
    assert {r.task_id for r in ros} == wanted
    assert result.meta["ros_mismatches"] == 0, result.meta["ros_diff"]
    assert all(r.success for r in ros)
