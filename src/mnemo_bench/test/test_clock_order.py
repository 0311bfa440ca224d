"""`mnemo bench` and `mnemo run` run a scenario's tasks in the same order: clock order (tiny_flat
lists a 13:00 recall after a 13:05 sequence task)."""
from mnemo_planner.main_job import select_tasks

from mnemo_bench.methods import resolve_methods
from mnemo_bench.runner import run_suite

CLOCK_ORDER = ["red_mug", "remote", "recall_remote", "go_ketchup"]


def test_the_bench_and_mnemo_run_share_the_clock_order(tiny):
    assert [t.id for t in tiny.tasks] != CLOCK_ORDER  # the file is out of time order
    rows = run_suite([tiny], resolve_methods(["SG"]), seed=0, progress=False).rows
    assert [r.task_id for r in rows] == CLOCK_ORDER
    assert [t.id for t in select_tasks(tiny, "")] == CLOCK_ORDER
    assert [t.id for t in select_tasks(tiny, "go_ketchup,red_mug")] == ["red_mug", "go_ketchup"]
