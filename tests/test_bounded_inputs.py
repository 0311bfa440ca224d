"""Every service of every node and the planner's action refuse requests beyond
mnemo_common.limits with INVALID_ARGUMENT (the field-by-field cases are in
src/mnemo_common/test/test_limits.py): each create_service handler goes through guarded() or
calls check_message itself, and the planner refuses a goal before any step is spent."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NODES = sorted(ROOT.glob("src/*/mnemo_*/node.py"))


def _services(path: Path):
    """(line, handler source) of each create_service call in a node module."""
    tree = ast.parse(path.read_text())
    for call in ast.walk(tree):
        if isinstance(call, ast.Call) and getattr(call.func, "attr", "") == "create_service":
            yield call.lineno, ast.unparse(call.args[2]), tree


def _calls_check_message(tree: ast.AST, handler: str) -> bool:
    name = handler.rsplit(".", 1)[-1]
    for fn in ast.walk(tree):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and fn.name == name:
            return "check_message(request)" in ast.unparse(fn)
    return False


@pytest.mark.parametrize("path", NODES, ids=lambda p: p.parent.name)
def test_every_service_handler_checks_the_limits(path):
    for line, handler, tree in _services(path):
        if handler == "self._on_cancel":  # std_srvs/Trigger: carries nothing
            continue
        assert handler.startswith("guarded(") or _calls_check_message(tree, handler), \
            f"{path.name}:{line}: {handler} neither guarded() nor check_message(request)"


def test_the_planner_refuses_goals_beyond_the_limits():
    from mnemo_common import limits
    from mnemo_interfaces.action import RetrieveObject

    from mnemo_planner.node import check_goal

    goal = RetrieveObject.Goal
    assert "mnemo_common.limits.MAX_INSTRUCTION_CHARS" in check_goal(goal(instruction="x" * 100_000, budget=20), 200)
    assert "MAX_NAME_CHARS" in check_goal(goal(instruction="bring the mug", budget=20, task_id="t" * 1000), 200)
    assert check_goal(goal(instruction="  ", budget=20), 200) == "instruction is empty"
    assert "max_budget" in check_goal(goal(instruction="bring the mug", budget=21), 20)
    assert check_goal(goal(instruction="x" * limits.MAX_INSTRUCTION_CHARS, budget=200), 200) is None
