"""The order tasks run in (one function for ``mnemo run`` and the benchmark) and the patrols a
task gets: clock order, a sequence back to back, and never a patrol that ends after a task's ``at``."""
from __future__ import annotations

from mnemo_sim.scenario import clock, parse_scenario
from mnemo_sim.tasks import TaskRunner, ordered_tasks


def _task(tid, day, hhmm, sequence=None):
    return {"id": tid, "at": {"day": day, "time": hhmm}, "instruction": "Where are the keys?", "type": "recall",
            "family": "memory_query", "success": {"answer_any": ["table"]}, "optimal_actions": 0, "budget": 5,
            "sequence": sequence}


def test_tasks_listed_out_of_time_order_run_in_clock_order(small_data):
    small_data["tasks"] = [_task("evening", 1, "19:00"), _task("seq_a", 1, "12:00", "s"),
                           _task("seq_b", 1, "20:00", "s"), _task("morning", 0, "18:00"),
                           _task("noon_first", 1, "12:00"), _task("noon_second", 1, "12:00")]
    order = [t.id for t in ordered_tasks(parse_scenario(small_data))]
    # ties keep file order; a sequence runs back to back from its first task's time
    assert order == ["morning", "seq_a", "seq_b", "noon_first", "noon_second", "evening"]


def test_a_patrol_that_ends_after_a_task_starts_is_not_run_for_it(small_data):
    small_data["patrol"].append({"day": 1, "start": "17:00", "end": "19:00", "observations": 50,
                                 "route": ["kitchen"]})
    small_data["tasks"] = [_task("during", 1, "18:00"), _task("after", 1, "19:30")]
    sc = parse_scenario(small_data)
    r = TaskRunner(sc)
    before = list(r.run_patrols("during"))
    assert before and max(o.stamp for o in before) <= clock(1, "18:00")
    assert len(before) == sum(p.observations for p in sc.patrol[:2])
    r.start_task("during")
    r.robot.navigate("desk_1")  # the task moves the clock on; the next patrol still runs, from its start
    later = list(r.run_patrols("after"))
    assert len(later) == 50 and min(o.stamp for o in later) >= clock(1, "17:00")
