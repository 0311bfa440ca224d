"""World state over time: timeline replay, reset, layout without overlap, robot changes."""
from __future__ import annotations

import itertools

import pytest

from mnemo_sim.scenario import clock
from mnemo_sim.world import World, container_floor_z


def test_timeline_applies_as_clock_passes(small):
    world = World(small)
    assert world.truth_location("mug_1") == "table_1"
    assert world.truth_location("keys_1") is None
    world.advance_to(clock(0, "11:59"))
    assert world.truth_location("mug_1") == "table_1"
    world.advance_to(clock(0, "12:00"))
    assert world.truth_location("mug_1") == "desk_1"
    world.advance_to(clock(1, "08:30"))
    assert world.truth_location("keys_1") == "table_1"
    assert not world.is_open("drawer_1")
    world.advance_to(clock(1, "09:00"))
    assert world.is_open("drawer_1")
    world.advance_to(clock(1, "21:00"))
    assert world.truth_location("keys_1") is None
    assert world.next_event_time() == float("inf")
    with pytest.raises(ValueError):
        world.advance_to(clock(1, "08:00"))


def test_reset_replays_from_day_zero_and_drops_robot_changes(small):
    world = World(small)
    world.advance_to(clock(1, "10:00"))
    world.pick_up("keys_1")
    world.set_open("cabinet_2", True)
    assert world.held() == "keys_1"
    world.reset_to(clock(1, "10:00"))
    assert world.held() == "" and world.truth_location("keys_1") == "table_1"
    assert not world.is_open("cabinet_2")
    world.reset_to(clock(0, "10:00"))
    assert world.truth_location("mug_1") == "table_1"


def test_version_changes_with_every_change(small):
    world = World(small)
    v = world.version
    world.advance_to(clock(0, "11:00"))
    assert world.version == v
    world.advance_to(clock(0, "12:00"))
    assert world.version > v
    v = world.version
    world.set_open("cabinet_2", True)
    assert world.version > v


def test_locked_container_cannot_be_set_open(small):
    world = World(small)
    assert world.truth_is_locked("cabinet_1")
    with pytest.raises(ValueError):
        world.set_open("cabinet_1", True)


def test_layout_inside_fixture_without_overlap(small):
    world = World(small)
    for oid in ["mug_1", "book_1", "ketchup_1"]:
        world.put(oid, "desk_1")
    desk = small.fixture_by_id["desk_1"]
    boxes = []
    for oid in world.present_objects_at("desk_1"):
        x, y, z = world.object_position(oid)
        sx, sy, sz = small.object_by_id[oid].size
        assert abs(z - (desk.size[2] + sz / 2)) < 1e-9
        # inside the desk top (desk yaw pi: its frame is the map frame turned half a turn)
        assert 8.25 <= x <= 8.95 and 1.3 <= y <= 2.7
        boxes.append((x - sx / 2, y - sy / 2, x + sx / 2, y + sy / 2))
    for a, b in itertools.combinations(boxes, 2):
        assert a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1]


def test_container_contents_stand_on_inner_floor(small):
    world = World(small)
    cab = small.fixture_by_id["cabinet_2"]
    x, y, z = world.object_position("ketchup_1")
    assert z == pytest.approx(container_floor_z(cab) + 0.1)
    assert world.object_relation("ketchup_1") == "in" and world.object_relation("mug_1") == "on"


def test_slots_are_kept_until_the_object_leaves(small):
    world = World(small)
    before = world.object_position("book_1")
    world.put("mug_1", "desk_1")
    assert world.object_position("book_1") == before
    world.hand_over("mug_1")
    assert world.truth_location("mug_1") is None and "mug_1" not in world.truth_present_objects()
