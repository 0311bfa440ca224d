"""The methods' policies: single attempt, random exploration, locked-container bookkeeping."""
from mnemo_planner.loop import run_task
from mnemo_planner.tools import Action

from mnemo_bench.methods import DEFAULT_METHODS, METHODS, RandomPolicy, SingleAttempt, resolve_methods
from mnemo_bench.runner import BenchStack, ordered_tasks


class Scripted:
    def __init__(self, actions):
        self.actions = list(actions)

    def decide(self, state):
        return self.actions[len(state.history)] if len(state.history) < len(self.actions) else Action("done")


def test_every_method_is_known_and_unknown_ones_are_rejected():
    assert [m.name for m in resolve_methods(list(DEFAULT_METHODS))] == list(DEFAULT_METHODS)
    try:
        resolve_methods(["full", "nope"])
    except ValueError as exc:
        assert "nope" in str(exc)
    else:
        raise AssertionError("an unknown method must be rejected")


def test_ablations_switch_the_parts_messymem_names():
    assert not METHODS["SG"].ablation.use_interaction_analysis and not METHODS["SG"].ablation.use_memory
    assert METHODS["SG+IA"].ablation.use_interaction_analysis and not METHODS["SG+IA"].ablation.use_keyframes
    assert METHODS["SG+KF"].ablation.use_keyframes and not METHODS["SG+KF"].ablation.use_interaction_analysis
    assert not METHODS["TR+S"].ablation.use_scene_graph and METHODS["TR+S"].ablation.use_memory
    assert METHODS["full"].ablation.use_memory and METHODS["full"].ablation.use_scene_graph


def test_single_attempt_ends_the_task_instead_of_a_second_place(tiny):
    stack = BenchStack(tiny, METHODS["SG"], 0)
    stack.patrol("remote")
    inner = Scripted([Action("navigate", {"target": "table_1"}), Action("detect", {}),
                      Action("navigate", {"target": "sofa_1"}), Action("pick", {"target": "remote_1"})])
    row = stack.run_row(tiny.task_by_id["remote"], SingleAttempt(inner))
    assert [t.split("(")[0] for t in row.trace] == ["navigate", "detect", "done"]
    assert not row.success
    # without the wrapper the same plan reaches the second place and succeeds
    row = stack.run_row(tiny.task_by_id["remote"], Scripted(inner.actions))
    assert row.success, row.detail


def test_random_policy_is_deterministic_for_a_seed(tiny):
    def run(seed):
        stack = BenchStack(tiny, METHODS["random"], 0)
        return [stack.run_row(t, RandomPolicy(seed)).trace for t in ordered_tasks(tiny)]

    assert run(5) == run(5)
    traces = run(5)
    assert traces[0][0].startswith("query_scene_graph")
    assert any(step.startswith("navigate") for step in traces[0])


def test_retrying_a_container_found_locked_is_counted(tiny):
    stack = BenchStack(tiny, METHODS["SG"], 0)
    stack.patrol("go_ketchup")
    stack.runner.robot.config = type(stack.runner.robot.config)(miss_rate=0.0)  # every open reaches the handle
    task = tiny.task_by_id["go_ketchup"]
    plan = [Action("navigate", {"target": "cabinet_1"}), Action("open", {"target": "cabinet_1"}),
            Action("open", {"target": "cabinet_1"}), Action("navigate", {"target": "cabinet_2"})]
    row = stack.run_row(task, Scripted(plan))
    assert row.locked_retries == 1
    assert row.success  # the scorer judges the task, the retry is reported apart


def test_tasks_run_in_time_order_with_sequences_together(tiny):
    order = [t.id for t in ordered_tasks(tiny)]
    assert order.index("go_ketchup") == len(order) - 1  # 13:05, after the 13:00 tasks
    assert set(order) == {t.id for t in tiny.tasks}
