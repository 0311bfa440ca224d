"""Households written outside the team (src/mnemo_bench/households/external, issue 15): every file
passes the scenario checker without warnings, and the bench runs on one of them. No success
threshold: these homes measure the planner, they do not gate it."""
from pathlib import Path

import pytest

EXTERNAL = Path(__file__).resolve().parents[1] / "households" / "external"
FILES = sorted(EXTERNAL.glob("*.yaml"))


def test_there_are_external_households():
    assert len(FILES) >= 4, FILES


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_external_household_passes_the_checker(path):
    from mnemo_sim.cli import task_problems
    from mnemo_sim.scenario import load_scenario

    scenario = load_scenario(path)
    assert scenario.warnings == []
    assert task_problems(scenario) == []
    assert 15 <= len(scenario.tasks) <= 25


def test_bench_runs_on_an_external_household(tmp_path):
    """The studio's home, objects and timeline as written, cut to one short patrol and two tasks so
    that the check stays fast."""
    import yaml

    from mnemo_bench.methods import resolve_methods
    from mnemo_bench.runner import run_suite
    from mnemo_sim.scenario import load_scenario

    doc = yaml.safe_load((EXTERNAL / "studio_loft.yaml").read_text())
    doc["patrol"] = [dict(doc["patrol"][0], observations=60)]
    wanted = {"s_dune_where", "s_kettle"}
    doc["tasks"] = [t for t in doc["tasks"] if t["id"] in wanted]
    small = tmp_path / "studio_small.yaml"
    small.write_text(yaml.safe_dump(doc, sort_keys=False))
    result = run_suite([load_scenario(small)], resolve_methods(["full"]), seed=0, progress=False)
    assert sorted(r.task_id for r in result.rows) == sorted(wanted)
    for r in result.rows:
        assert r.steps <= r.budget
