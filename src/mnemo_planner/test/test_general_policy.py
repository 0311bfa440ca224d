"""The general policy on a generated home (a development seed), in process: it solves tasks of many
families, answers questions from sightings (fixture, room and time named), and decides on typed data."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

PLANNER = Path(__file__).resolve().parents[1] / "mnemo_planner"
GENERAL_MODULES = ("policy", "request", "grounding", "beliefs", "hypotheses", "answers", "calendar", "dialogue", "words",
                   "wording", "task_state", "lexicon")


@pytest.fixture(scope="module")
def rows():
    from mnemo_bench.methods import METHODS
    from mnemo_bench.runner import run_suite
    from mnemo_sim.generator import generate_scenario

    return run_suite([generate_scenario(3, "small")], [METHODS["full"]], seed=0, progress=False).rows


def test_general_policy_solves_a_generated_home(rows):
    assert len(rows) >= 15
    assert sum(r.success for r in rows) >= 0.45 * len(rows)
    assert len({r.family for r in rows if r.success}) >= 5
    assert all(r.steps <= r.budget for r in rows)


def test_recall_answers_name_place_room_and_time(rows):
    answers = [r.answer for r in rows if r.type == "recall" and r.success and r.task_id.startswith(("where", "when"))]
    assert answers
    for a in answers:
        assert re.search(r"\b(?:on|in) the \w", a) and re.search(r"\bday \d+\b", a)


def test_general_modules_are_small_and_never_read_outcome_text():
    for name in GENERAL_MODULES:
        text = (PLANNER / f"{name}.py").read_text()
        assert len(text.splitlines()) <= 400, name
        assert not re.search(r"\.summary\b|error_msg|\.message\b", text), f"{name} reads outcome text"


def test_no_planner_module_is_over_400_lines():
    long = {p.name: n for p in PLANNER.glob("*.py") if (n := len(p.read_text().splitlines())) > 400}
    assert not long, long
