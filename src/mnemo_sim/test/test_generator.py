"""The household generator: valid, deterministic, varied homes with tasks of every family."""
from __future__ import annotations

import pytest

from mnemo_sim import cli
from mnemo_sim.cli import task_problems
from mnemo_sim.generator import dump, generate_document, generate_scenario
from mnemo_sim.generator.catalogue import load_catalogue
from mnemo_sim.scenario import load_scenario, parse_scenario
from mnemo_sim.world import World

SAMPLE = [(seed, "small") for seed in range(6)] + [(seed, "medium") for seed in (100, 101)] + [(200, "large")]


@pytest.fixture(scope="module")
def generated():
    return {(seed, size): generate_document(seed, size) for seed, size in SAMPLE}


def test_catalogue_is_broad():
    cat = load_catalogue()
    assert len(cat.objects) >= 250 and len(cat.fixtures) >= 40 and len(cat.rooms) >= 8
    assert sum(1 for o in cat.objects.values() if len(o.attributes) >= 2) >= 0.9 * len(cat.objects)


@pytest.mark.parametrize("key", SAMPLE)
def test_generated_homes_pass_the_scenario_check(generated, key):
    scenario = parse_scenario(generated[key], f"<seed {key}>")
    assert task_problems(scenario) == []
    low, high = {"small": (2, 3), "medium": (4, 5), "large": (6, 8)}[key[1]]
    assert low <= len(scenario.rooms) <= high
    assert any(f.locked for f in scenario.fixtures)
    for f in scenario.fixtures:  # footprints stay inside their rooms
        assert not any(w for w in scenario.warnings if f"'{f.id}'" in w)
    for task in scenario.tasks:
        assert task.optimal_actions <= task.budget
        assert task.instruction.strip() and "{" not in task.instruction


def test_same_seed_same_home_and_other_seeds_differ(generated):
    assert dump(generate_document(3, "small")) == dump(generated[(3, "small")])
    a, b = generated[(0, "small")], generated[(1, "small")]
    assert [r["rect"] for r in a["rooms"]] != [r["rect"] for r in b["rooms"]]
    assert {o["class"] for o in a["objects"]} != {o["class"] for o in b["objects"]}
    assert {t["instruction"] for t in a["tasks"]}.isdisjoint({t["instruction"] for t in b["tasks"]})


def test_every_family_and_recall_kind_occurs_in_a_sample(generated):
    tasks = [t for doc in generated.values() for t in doc["tasks"]]
    families = {t["family"] for t in tasks}
    assert {"class", "attribute", "spatial", "spatial_temporal", "spatial_frequentist", "commonsense", "locked",
            "follow_up", "matching", "clutter", "memory_query"} <= families
    kinds = {t["id"].rsplit("_", 1)[0] for t in tasks if t["family"] == "memory_query"}
    assert {"where", "when", "with", "which", "count"} <= kinds
    assert any(t.get("sequence") for t in tasks)


def test_pick_targets_are_reachable_and_locked_sequences_avoid_the_locked_container(generated):
    for doc in generated.values():
        scenario = parse_scenario(doc)
        world = World(scenario)
        for task in scenario.tasks:
            world.reset_to(task.at)
            if task.success.kind == "pick_any":
                assert any(not world.truth_is_locked(world.truth_location(o) or "") for o in task.success.values)
            if task.success.kind == "reach_any":
                assert not any(world.truth_is_locked(f) for f in task.success.values)


def test_cli_generate_then_check(tmp_path, capsys):
    out = tmp_path / "home.yaml"
    assert cli.main(["generate", "--seed", "7", "--size", "small", "--out", str(out)]) == 0
    assert cli.main(["check", str(out)]) == 0
    assert load_scenario(out).name == "gen_7_small"
    assert cli.main(["generate", "--seed", "7", "--size", "huge"]) == 2
    assert "size" in capsys.readouterr().err


def test_generated_scenario_is_a_scenario():
    scenario = generate_scenario(5, "small", days=2)
    assert scenario.days == 2 and scenario.tasks
