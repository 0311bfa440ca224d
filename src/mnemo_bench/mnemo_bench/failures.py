"""Why a task failed: one cause per failed task row, judged from the row's typed outcome (what was
picked, where the robot ended, the answer, steps against budget) and the scenario's truth.

The trace is read only for ``PARSE``: its steps are ``tool(key=value, ...) -> ok|failed: ...``, so a
failed pick's target argument is structured text, and a target with no word of any object's class or
attributes in the home means the instruction was parsed into something that names nothing.
"""
from __future__ import annotations

import re
from enum import Enum
from typing import Any

from mnemo_sim.scenario import Scenario
from mnemo_sim.skills import STOP_WORDS, words  # the simulator's matcher's words: "names" as pick means it


class FailureCause(str, Enum):
    NONE = ""  # the task succeeded
    WRONG_INSTANCE = "wrong_instance"
    WRONG_OBJECT = "wrong_object"
    PARSE = "parse"
    NOT_FOUND_BUDGET = "not_found_budget"
    GAVE_UP = "gave_up"
    WRONG_FIXTURE = "wrong_fixture"
    RECALL_EMPTY = "recall_empty"
    RECALL_WRONG = "recall_wrong"
    OTHER = "other"


DESCRIPTIONS = {
    FailureCause.WRONG_INSTANCE: "picked another instance of a target's class (grounding chose the wrong one)",
    FailureCause.WRONG_OBJECT: "picked an object of another class (parse or grounding chose the wrong thing)",
    FailureCause.PARSE: "a pick target names no object class or attribute of this home",
    FailureCause.NOT_FOUND_BUDGET: "nothing picked or reached when the step budget ran out",
    FailureCause.GAVE_UP: "nothing picked or reached, budget left: the planner stopped",
    FailureCause.WRONG_FIXTURE: "ended at another fixture than the one asked for",
    FailureCause.RECALL_EMPTY: "no answer",
    FailureCause.RECALL_WRONG: "the answer names none of the true places",
    FailureCause.OTHER: "none of the above",
}

_FAILED_PICK = re.compile(r"pick\(target=(?P<target>[^,)]*)[,)].* -> failed")


def classify_failure(row: Any, scenario: Scenario) -> str:
    """The cause code of a failed task row (a ``runner.TaskRow``), "" for a success.

    Precedence: a wrong pick (the scorer's own reason) before parse, parse before running out of
    budget, which comes before stopping early."""
    if row.success:
        return FailureCause.NONE.value
    task = scenario.task_by_id.get(row.task_id)
    if task is None:
        return FailureCause.OTHER.value
    wanted = task.success.values
    out_of_budget = row.steps >= row.budget
    if task.success.kind == "pick_any":
        wrong = [oid for oid in row.picked_ids if oid not in wanted]
        if wrong:
            target_labels = {_label(scenario, oid) for oid in wanted}
            same_class = _label(scenario, wrong[0]) in target_labels
            return (FailureCause.WRONG_INSTANCE if same_class else FailureCause.WRONG_OBJECT).value
        if any(not _names_an_object(target, scenario) for target in failed_pick_targets(row.trace)):
            return FailureCause.PARSE.value
        return (FailureCause.NOT_FOUND_BUDGET if out_of_budget else FailureCause.GAVE_UP).value
    if task.success.kind == "reach_any":
        if out_of_budget:
            return FailureCause.NOT_FOUND_BUDGET.value
        return (FailureCause.WRONG_FIXTURE if row.final_fixture else FailureCause.GAVE_UP).value
    if task.success.kind == "answer_any":
        return (FailureCause.RECALL_WRONG if row.answer.strip() else FailureCause.RECALL_EMPTY).value
    return FailureCause.OTHER.value


def describe(cause: str) -> str:
    """One short human line for a cause code."""
    return DESCRIPTIONS.get(cause, "")  # str-valued members: a plain code looks its member up


def failed_pick_targets(trace: list[str]) -> list[str]:
    """The target argument of every failed pick in a row's trace, in order."""
    return [m.group("target") for m in map(_FAILED_PICK.match, trace) if m]


def _label(scenario: Scenario, object_id: str) -> str:
    spec = scenario.object_by_id.get(object_id)
    return spec.label if spec is not None else ""


def _names_an_object(target: str, scenario: Scenario) -> bool:
    if target.strip() in scenario.object_by_id:
        return True
    named = {w for w in words(target) if w not in STOP_WORDS}
    vocabulary: set[str] = set()
    for spec in scenario.objects:
        vocabulary.update(words(spec.label))
        for value in spec.attributes.values():
            vocabulary.update(words(value))
    return bool(named & vocabulary)

