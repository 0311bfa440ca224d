"""The action space's validation and the loop's budget, error and cancel semantics."""
import pytest

from mnemo_planner.loop import PolicyInput, run_task
from mnemo_planner.tools import TOOLS, Action, ToolArgumentError, ToolOutcome, openai_tools, validate


class Scripted:
    def __init__(self, *actions):
        self.actions = list(actions)
        self.inputs = []

    def decide(self, state: PolicyInput):
        self.inputs.append(state)
        a = self.actions.pop(0) if self.actions else Action("detect", {})
        if isinstance(a, Exception):
            raise a
        return a


class Box:
    def __init__(self):
        self.calls = []

    def execute(self, action):
        self.calls.append(action)
        if action.tool == "pick":
            return ToolOutcome(True, "picked", {"picked_id": "mug_1"})
        if action.tool == "navigate":
            return ToolOutcome(True, "arrived", {"at_fixture": action.arguments.get("target", "")})
        if action.tool == "open":
            raise RuntimeError("arm fault")
        return ToolOutcome(True, "ok", {})


def test_every_tool_has_a_schema_the_llm_accepts():
    defs = openai_tools()
    assert {d["function"]["name"] for d in defs} == set(TOOLS)
    assert all(d["function"]["parameters"]["type"] == "object" for d in defs)


def test_validate_coerces_and_rejects():
    assert validate(Action("search_memory", {"text": "mug", "k": "3"})).arguments["k"] == 3
    with pytest.raises(ToolArgumentError, match="unknown tool"):
        validate(Action("teleport", {}))
    with pytest.raises(ToolArgumentError, match="missing"):
        validate(Action("pick", {}))
    with pytest.raises(ToolArgumentError, match="unknown argument"):
        validate(Action("pick", {"target": "mug_1", "force": 3}))
    with pytest.raises(ToolArgumentError, match="number"):
        validate(Action("search_memory_position", {"x": "left", "y": 1}))
    with pytest.raises(ToolArgumentError, match="navigate needs"):
        validate(Action("navigate", {"x": 1.0}))


def test_every_step_spends_budget_and_the_budget_is_in_the_policy_input():
    policy = Scripted(Action("search_memory", {"text": "mug"}), Action("navigate", {"target": "sink_1"}),
                      Action("detect", {}), Action("detect", {}))
    result = run_task("bring the mug", 3, policy, Box(), lambda: 100.0)
    assert result.steps_used == 3 and not result.success and result.message == "budget spent"
    assert [s.remaining for s in policy.inputs] == [3, 2, 1]
    assert [len(s.history) for s in policy.inputs] == [0, 1, 2]
    assert result.physical_actions == 2  # navigate + detect; the memory query is not physical
    assert [s.remaining_budget for s in result.trace] == [2, 1, 0]


def test_errors_become_outcomes_and_cost_a_step():
    policy = Scripted(Action("teleport", {"to": "moon"}), Action("pick", {}), ValueError("boom"),
                      Action("open", {"target": "cabinet_1"}), Action("pick", {"target": "mug_1"}))
    box = Box()
    result = run_task("bring the mug", 10, policy, box, lambda: 0.0)
    tools = [s.tool for s in result.trace]
    assert tools == ["teleport", "pick", "policy_error", "open", "pick"]
    assert [s.ok for s in result.trace] == [False, False, False, False, True]
    assert "unknown tool" in result.trace[0].outcome and "missing" in result.trace[1].outcome
    assert "boom" in result.trace[2].outcome and "arm fault" in result.trace[3].outcome
    assert [a.tool for a in box.calls] == ["open", "pick"]  # invalid actions never reach the toolbox
    assert result.success and result.object_id == "mug_1" and result.steps_used == 5
    # the policy saw each error in its working memory
    assert policy.inputs[1].history[0].outcome.ok is False


def test_answer_and_done_end_the_task():
    r = run_task("where is the mug?", 5, Scripted(Action("answer", {"text": "on the sink"})), Box(), lambda: 0.0)
    assert r.success and r.answer == "on the sink" and r.steps_used == 1
    r = run_task("find the mug", 5, Scripted(Action("navigate", {"target": "sink_1"}),
                                              Action("done", {"success": True})), Box(), lambda: 0.0)
    assert r.success and r.fixture_id == "sink_1" and r.physical_actions == 1


def test_cancel_is_checked_every_step():
    calls = {"n": 0}

    def cancel():
        calls["n"] += 1
        return calls["n"] > 2

    steps = []
    r = run_task("bring the mug", 10, Scripted(), Box(), lambda: 0.0, on_step=steps.append, should_cancel=cancel)
    assert r.canceled and r.steps_used == 2 and len(steps) == 2 and not r.success


def test_zero_budget_runs_nothing():
    r = run_task("bring the mug", 0, Scripted(), Box(), lambda: 0.0)
    assert r.steps_used == 0 and not r.success
