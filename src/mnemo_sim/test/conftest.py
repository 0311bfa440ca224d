"""Shared fixtures: a small two-room home every core test can rely on."""
from __future__ import annotations

import copy

import pytest

from mnemo_sim import scenarios_dir
from mnemo_sim.scenario import load_scenario, parse_scenario

SMALL = {
    "format": "household-scenario/1",
    "name": "test_home",
    "seed": 3,
    "rooms": [
        {"id": "kitchen", "rect": [0.0, 0.0, 5.0, 4.0]},
        {"id": "study", "rect": [5.0, 0.0, 9.0, 4.0]},
    ],
    "doors": [{"between": ["kitchen", "study"], "at": [5.0, 2.0]}],
    "fixtures": [
        {"id": "table_1", "class": "dining table", "room": "kitchen", "pose": [2.5, 2.0, 0.0],
         "size": [0.8, 1.2, 0.75], "kind": "surface"},
        {"id": "cabinet_1", "class": "cabinet", "room": "kitchen", "pose": [0.3, 1.0, 0.0],
         "size": [0.4, 0.6, 0.9], "kind": "container", "locked": True, "attributes": {"color": "white"}},
        {"id": "cabinet_2", "class": "cabinet", "room": "kitchen", "pose": [0.3, 3.0, 0.0],
         "size": [0.4, 0.6, 0.9], "kind": "container", "attributes": {"color": "white"}},
        {"id": "desk_1", "class": "desk", "room": "study", "pose": [8.6, 2.0, 3.1416],
         "size": [0.7, 1.4, 0.75], "kind": "surface"},
        {"id": "drawer_1", "class": "drawer", "room": "study", "pose": [7.0, 3.7, -1.5708],
         "size": [0.5, 0.5, 0.7], "kind": "container"},
    ],
    "objects": [
        {"id": "mug_1", "class": "mug", "attributes": {"color": "red", "material": "ceramic"},
         "size": [0.08, 0.08, 0.1], "at": "table_1", "hidden": {"fullness": "empty"}},
        {"id": "book_1", "class": "book", "attributes": {"color": "green"}, "size": [0.15, 0.22, 0.03],
         "at": "desk_1"},
        {"id": "ketchup_1", "class": "ketchup bottle", "attributes": {"color": "red"}, "size": [0.06, 0.06, 0.2],
         "at": "cabinet_2"},
        {"id": "scissors_1", "class": "scissors", "size": [0.08, 0.2, 0.02], "at": "drawer_1"},
        {"id": "secret_1", "class": "passport", "size": [0.1, 0.14, 0.01], "at": "cabinet_1"},
        {"id": "keys_1", "class": "keys", "size": [0.06, 0.03, 0.02], "at": None},
    ],
    "timeline": [
        {"day": 0, "time": "12:00", "move": "mug_1", "to": "desk_1"},
        {"day": 1, "time": "08:00", "add": "keys_1", "to": "table_1"},
        {"day": 1, "time": "09:00", "open": "drawer_1"},
        {"day": 1, "time": "20:00", "remove": "keys_1"},
    ],
    "patrol": [
        {"day": 0, "start": "09:00", "end": "11:00", "observations": 200, "route": ["kitchen", "study"]},
        {"day": 1, "start": "09:00", "end": "11:00", "observations": 200, "route": ["study", "kitchen"]},
    ],
    "tasks": [
        {"id": "find_mug", "at": {"day": 1, "time": "18:00"}, "instruction": "Bring me the red mug.",
         "type": "visible", "family": "attribute", "success": {"pick_any": ["mug_1"]}, "optimal_actions": 2,
         "budget": 10},
        {"id": "cab_a", "at": {"day": 1, "time": "18:00"}, "instruction": "Find the ketchup in the cabinets.",
         "type": "interactive", "family": "locked", "success": {"reach_any": ["cabinet_2"]}, "optimal_actions": 2,
         "budget": 10, "sequence": "cabs"},
        {"id": "cab_b", "at": {"day": 1, "time": "18:10"}, "instruction": "Now bring me the ketchup.",
         "type": "interactive", "family": "locked", "success": {"pick_any": ["ketchup_1"]}, "optimal_actions": 2,
         "budget": 10, "sequence": "cabs"},
        {"id": "where_keys", "at": {"day": 1, "time": "18:00"}, "instruction": "Where were the keys this morning?",
         "type": "recall", "family": "memory_query", "success": {"answer_any": ["dining table", "table_1"]},
         "optimal_actions": 0, "budget": 5},
    ],
}


@pytest.fixture
def small_data():
    return copy.deepcopy(SMALL)


@pytest.fixture
def small():
    return parse_scenario(copy.deepcopy(SMALL), "small.yaml")


@pytest.fixture
def example():
    return load_scenario(scenarios_dir() / "example_apartment.yaml")
