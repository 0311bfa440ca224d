"""A tiny end-to-end bench run: report files exist, their numbers agree with the rows, and the
same seed gives the same results."""
import json

import pytest

from mnemo_bench.cli import main
from mnemo_bench.methods import resolve_methods
from mnemo_bench.report import summarize, write_report
from mnemo_bench.runner import run_suite


@pytest.fixture(scope="module")
def tiny_runs():
    from pathlib import Path

    from mnemo_sim.scenario import load_scenario

    sc = load_scenario(Path(__file__).resolve().parent / "tiny_flat.yaml")
    methods = resolve_methods(["full", "random"])
    return [run_suite([sc], methods, seed=1, qa=True, progress=False) for _ in range(2)]


def test_report_files_exist_and_agree_with_the_rows(tiny_runs, tmp_path):
    result = tiny_runs[0]
    files = write_report(result, tmp_path)
    for key in ("json", "markdown", "readme_table", "families_png", "actions_png"):
        assert files[key].exists() and files[key].stat().st_size > 0, key
    assert files["families_png"].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    data = json.loads(files["json"].read_text())
    rows = data["rows"]
    assert len(rows) == 2 * 4  # two methods x four tasks
    for method in ("full", "random"):
        mine = [r for r in rows if r["method"] == method]
        overall = data["summary"]["all"][method]
        assert overall["n"] == len(mine)
        assert overall["successes"] == sum(r["success"] for r in mine)
        for typ, agg in data["summary"]["by_type"][method].items():
            assert agg["successes"] == sum(r["success"] for r in mine if r["type"] == typ)
        assert sum(a["n"] for a in data["summary"]["by_family"][method].values()) == len(mine)
    for r in rows:
        if r["optimal_actions"]:
            assert r["action_ratio"] == pytest.approx(r["physical_actions"] / r["optimal_actions"])
        assert r["steps"] <= r["budget"]
    md = files["markdown"].read_text()
    assert "| full |" in md and "| random |" in md
    assert "Memory QA" in files["readme_table"].read_text()


def test_full_method_beats_random_on_the_tiny_flat(tiny_runs):
    s = summarize(tiny_runs[0])
    assert s["all"]["full"]["successes"] >= 3
    assert s["all"]["full"]["successes"] > s["all"]["random"]["successes"]
    assert s["all"]["full"]["locked_retries"] == 0


def test_same_seed_same_results(tiny_runs):
    a, b = tiny_runs
    assert [r.outcome_key() for r in a.rows] == [r.outcome_key() for r in b.rows]
    assert [q.to_dict() for q in a.qa] == [q.to_dict() for q in b.qa]


def test_memory_qa_asks_all_three_kinds(tiny_runs):
    qa = tiny_runs[0].qa
    kinds = {q.kind for q in qa}
    assert {"current", "overwritten"} <= kinds
    for q in qa:
        assert q.hit_at_5 is None or isinstance(q.hit_at_5, bool)
    # the red mug went table -> coffee table (day 0 evening) -> table (day 1 evening)
    over = {q.question: q.truth for q in qa if q.kind == "overwritten" and "red mug" in q.question}
    assert over == {"Where was the red mug before it moved to the coffee table?": "table_1",
                    "Where was the red mug before it moved to the dining table?": "coffee_table_1"}


def test_cli_writes_the_report(tmp_path, tiny_path):
    rc = main([str(tiny_path), "--methods", "SG", "--perception", "oracle", "--seed", "2", "--out",
               str(tmp_path / "r"), "--no-qa", "--no-plots", "--quiet"])
    assert rc == 0
    assert (tmp_path / "r" / "results.json").exists() and (tmp_path / "r" / "README_table.md").exists()
    assert main(["no_such_scenario"]) == 2
    assert main([str(tiny_path), "--methods", "bogus"]) == 2
