"""`mnemo scenario` and the honesty of the shipped scenarios."""
from __future__ import annotations

import yaml

from mnemo_sim import list_scenarios
from mnemo_sim.cli import main, task_problems
from mnemo_sim.scenario import KNOWN_FAMILIES, TASK_TYPES, load_scenario
from mnemo_sim.world import World


def test_check_ok_and_errors(tmp_path, small_data, capsys):
    good = tmp_path / "good.yaml"
    good.write_text(yaml.safe_dump(small_data))
    assert main(["check", str(good)]) == 0
    assert "ok:" in capsys.readouterr().out
    small_data["fixtures"][0]["pose"] = [1.0]
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(small_data))
    assert main(["check", str(good), str(bad)]) == 1
    err = capsys.readouterr().err
    assert "bad.yaml: fixtures[0].pose: expected [x, y, yaw]" in err and "Traceback" not in err


def test_check_replays_timeline_for_task_targets(tmp_path, small_data, capsys):
    small_data["tasks"][0]["success"] = {"pick_any": ["keys_1"]}  # keys removed at day 1 20:00 ... task at 18:00 ok
    small_data["tasks"][0]["at"] = {"day": 1, "time": "21:00"}
    path = tmp_path / "gone.yaml"
    path.write_text(yaml.safe_dump(small_data))
    assert main(["check", str(path)]) == 1
    assert "none of the pick_any targets ['keys_1'] is in the world" in capsys.readouterr().err
    small_data["tasks"][0]["success"] = {"pick_any": ["secret_1"]}  # inside the locked cabinet
    path.write_text(yaml.safe_dump(small_data))
    assert main(["check", str(path)]) == 1
    assert "locked container" in capsys.readouterr().err


def test_list(capsys):
    assert main(["list"]) == 0
    assert "large_home" in capsys.readouterr().out


def test_shipped_scenarios_are_clean_and_cover_every_type_and_family():
    types, families = set(), set()
    for path in list_scenarios():
        scenario = load_scenario(path)
        assert task_problems(scenario) == [], path
        if scenario.name != "example_apartment":  # the shared example has two fixtures through walls
            assert scenario.warnings == [], scenario.warnings
        types |= {t.type for t in scenario.tasks}
        families |= {t.family for t in scenario.tasks}
    assert types == set(TASK_TYPES) and set(KNOWN_FAMILIES) <= families


def test_large_home_size():
    scenario = load_scenario([p for p in list_scenarios() if p.stem == "large_home"][0])
    assert scenario.days >= 5 and len(scenario.objects) >= 40 and len(scenario.fixtures) >= 12
    per_day = {}
    for p in scenario.patrol:
        per_day[p.day] = per_day.get(p.day, 0) + p.observations
    assert len(per_day) >= 5 and min(per_day.values()) >= 1000


def test_commonsense_targets_were_never_in_view_on_patrol():
    for path in list_scenarios():
        scenario = load_scenario(path)
        for task in scenario.tasks:
            if task.family != "commonsense":
                continue
            world = World(scenario)
            world.reset_to(task.at)
            for oid in task.success.values:
                fid = world.truth_location(oid)
                assert scenario.fixture_by_id[fid].is_container, (path.name, task.id)
                opened = [e for e in scenario.timeline if e.action == "open" and e.target == fid and e.t < task.at]
                assert not opened, (path.name, task.id)
