"""Scenario loading: valid files parse; each kind of malformed file names the file, the field and what was expected."""
from __future__ import annotations

import copy

import pytest
import yaml

from mnemo_sim import list_scenarios
from mnemo_sim.scenario import ScenarioError, clock, format_clock, load_scenario, parse_scenario



def test_clock_and_format():
    assert clock(0, "00:00") == 0.0
    assert clock(2, "18:30") == 2 * 86400 + 18 * 3600 + 30 * 60
    assert format_clock(clock(3, "07:05")) == "day 3 07:05"
    with pytest.raises(ValueError):
        clock(0, "25:00")


def test_small_parses_with_lookups(small):
    assert small.fixture_by_id["cabinet_1"].locked
    assert small.object_by_id["keys_1"].at is None
    assert [e.action for e in small.timeline] == ["move", "add", "open", "remove"]
    assert small.tasks[1].sequence == "cabs" and small.tasks[0].sequence is None
    assert small.tasks[3].success.kind == "answer_any"
    assert small.patrol[1].start_t == clock(1, "09:00")
    assert small.days == 2


def test_every_shipped_scenario_loads():
    paths = list_scenarios()
    assert len(paths) >= 1
    for path in paths:
        load_scenario(path)


def _set(path, value):
    def mutate(d):
        node = d
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value
    return mutate


def _del(path):
    def mutate(d):
        node = d
        for key in path[:-1]:
            node = node[key]
        del node[path[-1]]
    return mutate


def _append(path, value):
    def mutate(d):
        node = d
        for key in path:
            node = node[key]
        node.append(value)
    return mutate


MALFORMED = [
    # (name, mutation, field path in the message, words of what was expected)
    ("unknown top-level key", _set(["colour"], "red"), "colour", "unknown key"),
    ("wrong format", _set(["format"], "household-scenario/2"), "format", "household-scenario/1"),
    ("missing rooms", _del(["rooms"]), "(top level)", "missing required key 'rooms'"),
    ("overlapping rooms", _append(["rooms"], {"id": "hall", "rect": [4.0, 3.0, 6.0, 6.0]}), "rooms[2].rect", "not to overlap"),
    ("duplicate fixture id", _set(["fixtures", 1, "id"], "table_1"), "fixtures[1].id", "unique id"),
    ("id reused across kinds", _set(["objects", 0, "id"], "desk_1"), "objects[0].id", "already used"),
    ("door not on a shared wall", _set(["doors", 0, "at"], [4.0, 2.0]), "doors[0].at", "on the wall shared"),
    ("door between rooms that do not touch", _append(["rooms"], {"id": "attic", "rect": [20.0, 0.0, 22.0, 2.0]}),
     None, None),  # valid by itself; the next case uses it
    ("pose with two numbers", _set(["fixtures", 3, "pose"], [8.6, 2.0]), "fixtures[3].pose", "[x, y, yaw]"),
    ("fixture outside its room", _set(["fixtures", 0, "pose"], [6.0, 2.0, 0.0]), "fixtures[0].pose", "centre inside its room"),
    ("fixture in unknown room", _set(["fixtures", 0, "room"], "garage"), "fixtures[0].room", "room id"),
    ("bad fixture kind", _set(["fixtures", 0, "kind"], "shelf"), "fixtures[0].kind", "surface"),
    ("negative size", _set(["fixtures", 2, "size"], [0.4, -0.6, 0.9]), "fixtures[2].size[1]", "positive number"),
    ("locked surface", _set(["fixtures", 0, "locked"], True), "fixtures[0].locked", "openable container"),
    ("object at unknown fixture", _set(["objects", 1, "at"], "desk_9"), "objects[1].at", "fixture id"),
    ("attributes not a mapping", _set(["objects", 0, "attributes"], ["red"]), "objects[0].attributes", "mapping"),
    ("unquoted time", _set(["timeline", 0, "time"], 720), "timeline[0].time", "quoted time"),
    ("bad time", _set(["timeline", 0, "time"], "24:10"), "timeline[0].time", "HH:MM"),
    ("timeline out of order", _set(["timeline", 2, "time"], "07:00"), "timeline[2].time", "time order"),
    ("move of an object not yet added", _set(["timeline", 1], {"day": 1, "time": "08:00", "move": "keys_1", "to": "desk_1"}),
     "timeline[1].move", "appear only through 'add'"),
    ("add of a present object", _set(["timeline", 1, "add"], "book_1"), "timeline[1].add", "already"),
    ("two actions in one event", _set(["timeline", 0, "remove"], "book_1"), "timeline[0]", "exactly one action"),
    ("open a locked container", _set(["timeline", 2, "open"], "cabinet_1"), "timeline[2].open", "locked"),
    ("patrol end before start", _set(["patrol", 0, "end"], "08:00"), "patrol[0].end", "after the start"),
    ("patrol route unknown room", _set(["patrol", 0, "route"], ["kitchen", "garden"]), "patrol[0].route[1]", "room id"),
    ("task type outside the closed set", _set(["tasks", 0, "type"], "fetch"), "tasks[0].type", "visible"),
    ("success with two kinds", _set(["tasks", 0, "success"], {"pick_any": ["mug_1"], "reach_any": ["desk_1"]}),
     "tasks[0].success", "exactly one of"),
    ("pick_any of a fixture", _set(["tasks", 0, "success"], {"pick_any": ["desk_1"]}), "tasks[0].success.pick_any[0]",
     "object id"),
    ("reach_any of an object", _set(["tasks", 1, "success"], {"reach_any": ["mug_1"]}), "tasks[1].success.reach_any[0]",
     "fixture id"),
    ("empty answer list", _set(["tasks", 3, "success"], {"answer_any": []}), "tasks[3].success.answer_any", "non-empty"),
    ("unknown key in a task", _set(["tasks", 0, "reward"], 1), "tasks[0].reward", "unknown key"),
    ("budget zero", _set(["tasks", 0, "budget"], 0), "tasks[0].budget", "integer >= 1"),
    ("interrupted sequence", lambda d: d["tasks"].insert(2, copy.deepcopy(d["tasks"][0]) | {"id": "mid"}),
     "tasks[3].sequence", "back to back"),
    ("bad scenario name", _set(["name"], "My Home"), "name", "lowercase"),
]


@pytest.mark.parametrize("name,mutate,path,expected", [c for c in MALFORMED if c[2]], ids=[c[0] for c in MALFORMED if c[2]])
def test_malformed_scenarios_name_file_field_and_expectation(name, mutate, path, expected, small_data):
    data = small_data
    mutate(data)
    with pytest.raises(ScenarioError) as info:
        parse_scenario(data, "home.yaml")
    message = str(info.value)
    assert message.startswith("home.yaml: "), message
    assert info.value.path == path, message
    assert expected in message, message


def test_door_between_rooms_that_do_not_touch(small_data):
    data = small_data
    data["rooms"].append({"id": "attic", "rect": [20.0, 0.0, 22.0, 2.0]})
    data["doors"].append({"between": ["study", "attic"], "at": [9.0, 1.0]})
    with pytest.raises(ScenarioError, match=r"doors\[1\]: expected rooms that share a wall"):
        parse_scenario(data, "home.yaml")


def test_file_errors_are_scenario_errors(tmp_path):
    missing = tmp_path / "nope.yaml"
    with pytest.raises(ScenarioError, match="nope.yaml: cannot read"):
        load_scenario(missing)
    broken = tmp_path / "broken.yaml"
    broken.write_text("format: household-scenario/1\nrooms: [a, b\n")
    with pytest.raises(ScenarioError, match=r"broken.yaml: line \d+, column \d+: expected valid YAML"):
        load_scenario(broken)
    not_mapping = tmp_path / "list.yaml"
    not_mapping.write_text("- 1\n- 2\n")
    with pytest.raises(ScenarioError, match="list.yaml: expected a mapping"):
        load_scenario(not_mapping)


def test_roundtrip_through_yaml_file(tmp_path, small_data):
    path = tmp_path / "home.yaml"
    path.write_text(yaml.safe_dump(small_data, sort_keys=False))
    scenario = load_scenario(path)
    assert scenario.source == str(path) and scenario.name == "test_home"


def test_footprint_through_a_wall_is_a_warning(small_data):
    small_data["fixtures"][3]["pose"] = [8.9, 2.0, 3.1416]
    scenario = parse_scenario(small_data, "home.yaml")
    assert any("fixtures[3].pose" in w and "desk_1" in w for w in scenario.warnings)
