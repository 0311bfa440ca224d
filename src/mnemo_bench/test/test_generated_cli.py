"""``mnemo bench --generated``: generated homes run (alone, or next to shipped scenarios), the
results say which homes were generated and from which seeds, and the report has their tables and
the failure causes. The generator is replaced by one that renames the tiny flat."""
import dataclasses
import json
import sys
import types

import pytest

from mnemo_bench.cli import main

QUIET = ["--methods", "full", "--perception", "oracle", "--no-qa", "--no-plots", "--quiet"]


@pytest.fixture
def generator(monkeypatch, tiny):
    calls = []

    def generate_scenario(seed, size="medium", days=None):
        calls.append((seed, size, days))
        return dataclasses.replace(tiny, name=f"gen_{seed}_{size}")

    fake = types.SimpleNamespace(generate_scenario=generate_scenario)
    monkeypatch.setitem(sys.modules, "mnemo_sim.generator", fake)
    return calls


def test_generated_alone_replaces_the_default_suite(generator, tmp_path):
    assert main(["--generated", "1", "--seed", "7", "--size", "small", "--days", "3", "--out", str(tmp_path), *QUIET]) == 0
    assert generator == [(7, "small", 3)]
    data = json.loads((tmp_path / "results.json").read_text())
    assert data["meta"]["generated"] == {"seeds": [7], "size": "small", "days": 3, "scenarios": ["gen_7_small"]}
    assert data["meta"]["seed"] == 7  # still the simulator's seed too
    assert {r["scenario"] for r in data["rows"]} == {"gen_7_small"}
    assert all((r["failure"] == "") == r["success"] for r in data["rows"])
    md = (tmp_path / "report.md").read_text()
    assert "## Failure causes" in md and "## Success by family" in md
    assert "| family |" in (tmp_path / "README_table.md").read_text()


def test_generated_next_to_shipped_get_their_own_tables(generator, tiny_path, tmp_path):
    assert main([str(tiny_path), "--generated", "1", "--seed", "4", "--out", str(tmp_path), *QUIET]) == 0
    data = json.loads((tmp_path / "results.json").read_text())
    assert data["meta"]["scenarios"] == ["tiny_flat", "gen_4_medium"]
    by_origin = data["summary"]["by_origin"]
    assert by_origin["shipped"]["all"]["full"]["n"] == by_origin["generated"]["all"]["full"]["n"] == 4
    assert by_origin["generated"]["title"] == "generated homes (seed 4)"
    md = (tmp_path / "report.md").read_text()
    assert "## Shipped scenarios" in md and "## Generated homes (seed 4)" in md


def test_generated_is_refused_through_ros(generator, tmp_path):
    assert main(["--generated", "1", "--ros", "--out", str(tmp_path), *QUIET]) == 2
    assert generator == []
