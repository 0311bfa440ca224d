"""Judging a task against the hidden truth (the benchmark's scorer; never shown to the robot).

``judge(task, picked_ids, final_fixture, answer) -> (success, detail)`` implements the spec:
- ``pick_any``: at least one listed instance picked and no other instance picked (a wrong pick fails);
- ``reach_any``: the robot ended the task at one of the listed fixtures;
- ``answer_any``: the final answer names one of the strings, case-insensitively, as whole words ("day 2"
  is not named by "day 21", "yes" not by "yesterday"; a plural names its singular).
``Score(success, detail, physical_actions, optimal_actions)`` is what ``TaskRunner.score`` returns.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from .scenario import Task


@dataclass(frozen=True)
class Score:
    success: bool
    detail: str
    physical_actions: int
    optimal_actions: int


def names(text: str, wanted: str) -> bool:
    """Whether ``text`` (lowercase) contains ``wanted`` as whole words."""
    w = wanted.lower().strip()
    if not w:
        return False
    # A plural names its singular ("two books" names "book").
    pattern = (r"\b" if w[0].isalnum() else "") + re.escape(w) + (r"(?:e?s)?\b" if w[-1].isalnum() else "")
    return re.search(pattern, text) is not None


def judge(task: Task, picked_ids: list[str], final_fixture: str, answer: str) -> tuple[bool, str]:
    wanted = task.success.values
    kind = task.success.kind
    if kind == "pick_any":
        wrong = [p for p in picked_ids if p not in wanted]
        right = [p for p in picked_ids if p in wanted]
        if wrong:
            return False, f"picked the wrong instance {', '.join(wrong)} (wanted one of {', '.join(wanted)})"
        if not right:
            return False, f"picked nothing (wanted one of {', '.join(wanted)})"
        return True, f"picked {right[0]}"
    if kind == "reach_any":
        if final_fixture in wanted:
            return True, f"ended at {final_fixture}"
        return False, f"ended at {final_fixture or 'no fixture'} (wanted one of {', '.join(wanted)})"
    text = (answer or "").lower()
    hit = next((w for w in wanted if names(text, w)), None)
    if hit is not None:
        return True, f"answer names {hit!r}"
    return False, f"answer {answer!r} names none of {', '.join(repr(w) for w in wanted)}"
