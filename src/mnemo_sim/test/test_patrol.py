"""Camera, visibility rule, routes through doors and patrol observation streams."""
from __future__ import annotations

import math

import numpy as np

from mnemo_common.types import Pose2D
from mnemo_sim.patrol import (CameraConfig, build_route, camera_pose, caption_for, observe, patrol_poses,
                              patrol_segment, visible_now)
from mnemo_sim.scenario import clock
from mnemo_sim.world import World


def _rotate(q, v):
    x, y, z, w = q
    u = np.array([x, y, z])
    v = np.array(v, dtype=float)
    return 2 * np.dot(u, v) * u + (w * w - np.dot(u, u)) * v + 2 * w * np.cross(u, v)


def test_camera_optical_frame_looks_forward_and_down():
    pose = camera_pose(Pose2D(1.0, 2.0, math.pi / 2), CameraConfig(pitch=0.2))
    forward = _rotate(pose.orientation, (0, 0, 1))  # optical z
    right = _rotate(pose.orientation, (1, 0, 0))  # optical x
    assert forward[1] > 0.9 and forward[2] < -0.1 and abs(forward[0]) < 1e-6
    assert right[0] > 0.99  # facing +y, the camera's right is +x
    assert pose.position[2] == 1.2 and abs(pose.position[1] - 2.1) < 1e-9


def test_intrinsics_match_fov():
    cam = CameraConfig()
    fx, fy, cx, cy = cam.intrinsics()
    assert cx == 319.5 and cy == 239.5 and abs(2 * math.atan(320 / fx) - cam.hfov) < 1e-9


def _look_at(world, x, y, tx, ty):
    world.move_robot(Pose2D(x, y, math.atan2(ty - y, tx - x)))


def test_visible_on_surface_in_fov_and_range(small):
    world = World(small)
    _look_at(world, 1.2, 2.0, 2.5, 2.0)  # kitchen, facing the table
    objects, fixtures = visible_now(world)
    assert "mug_1" in objects and "table_1" in fixtures
    world.move_robot(Pose2D(1.2, 2.0, math.pi))  # facing away
    objects, _ = visible_now(world)
    assert "mug_1" not in objects


def test_walls_block_sight_doors_do_not_extend_it(small):
    world = World(small)
    # From the kitchen looking east through the door toward the study desk (book_1 on desk_1).
    _look_at(world, 4.6, 2.0, 8.6, 2.0)
    objects, fixtures = visible_now(world)
    assert "book_1" not in objects and "desk_1" not in fixtures
    _look_at(world, 6.0, 2.0, 8.6, 2.0)  # inside the study
    objects, fixtures = visible_now(world)
    assert "book_1" in objects and "desk_1" in fixtures


def test_closed_container_hides_contents_open_reveals(small):
    world = World(small)
    _look_at(world, 2.2, 3.0, 0.3, 3.0)  # facing cabinet_2 (ketchup inside)
    objects, fixtures = visible_now(world)
    assert "cabinet_2" in fixtures and "ketchup_1" not in objects
    world.set_open("cabinet_2", True)
    objects, _ = visible_now(world)
    assert "ketchup_1" in objects


def test_out_of_range_not_visible(small):
    world = World(small)
    world.move_robot(Pose2D(1.2, 2.0, 0.0))
    assert "mug_1" in visible_now(world)[0]
    assert "mug_1" not in visible_now(world, CameraConfig(range=1.0))[0]


def test_observation_sightings_and_caption(small):
    world = World(small)
    _look_at(world, 1.2, 2.0, 2.5, 2.0)
    obs = observe(world)
    by_id = {s.object_id: s for s in obs.sightings}
    mug = by_id["mug_1"]
    assert mug.kind == "object" and mug.label == "mug" and mug.support == "table_1" and mug.relation == "on"
    assert mug.attributes == {"color": "red", "material": "ceramic"}
    assert by_id["table_1"].kind == "fixture"
    assert obs.room == "kitchen" and obs.stamp == world.t
    assert obs.caption.startswith("kitchen: a red ceramic mug on the dining table [table_1]")
    # Consumers changing a sighting do not change the world.
    mug.attributes["color"] = "green"
    assert observe(world).sightings[0].attributes["color"] == "red"


def test_caption_marks_container_state():
    from mnemo_common.types import Sighting
    text = caption_for("kitchen", [Sighting("cabinet", (0, 0, 0), {"color": "white", "state": "closed"}, "fixture",
                                            "cabinet_1")])
    assert text == "kitchen: a white cabinet [cabinet_1] (closed)"
    assert caption_for("hall", []) == "hall: nothing in view"


def _crosses_wall(scenario, a, b):
    """True when the segment a-b leaves every room or passes between rooms away from a door."""
    for s in np.linspace(0.0, 1.0, 60):
        x, y = a[0] + s * (b[0] - a[0]), a[1] + s * (b[1] - a[1])
        if scenario.room_at(x, y) is None:
            return True
    ra, rb = scenario.room_at(*a), scenario.room_at(*b)
    if ra != rb:
        return not any(math.dist(d.at, ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2)) < 0.05 for d in scenario.doors)
    return False


def test_route_passes_through_doors_only(example):
    route = build_route(example, ["kitchen", "living_room", "study"])
    points = list(zip(route.xs, route.ys))
    for a, b in zip(points, points[1:]):
        assert not _crosses_wall(example, a, b), (a, b)
    assert {room for room, _ in route.stops} == {"kitchen", "living_room", "study"}
    assert {f for _, f in route.stops} == {f.id for f in example.fixtures}
    assert math.dist(points[0], points[-1]) < 1e-6  # a closed loop


def test_patrol_segment_times_poses_and_timeline(example):
    world = World(example)
    seg = example.patrol[0]
    observations = list(patrol_segment(world, seg))
    assert len(observations) == seg.observations
    assert observations[0].stamp == seg.start_t and observations[-1].stamp == seg.end_t
    assert all(b.stamp > a.stamp for a, b in zip(observations, observations[1:]))
    assert world.t == seg.end_t
    rooms = {o.room for o in observations}
    assert rooms == set(seg.route)
    for o in observations:
        assert example.room_at(o.robot_pose.x, o.robot_pose.y) is not None
    # mug_1 moves to the sink at 19:00 on day 0 (after this patrol): it was seen on the table only.
    supports = {s.support for o in observations for s in o.sightings if s.object_id == "mug_1"}
    assert supports == {"dining_table_1"}
    # Objects inside closed containers never show up.
    hidden = {"banana_1", "apple_1", "ketchup_1", "milk_1", "scissors_1"}
    assert not hidden & {s.object_id for o in observations for s in o.sightings}


def test_patrol_sees_timeline_changes_during_the_segment(small_data):
    from mnemo_sim.scenario import parse_scenario
    small_data["timeline"].insert(0, {"day": 0, "time": "10:00", "move": "book_1", "to": "table_1"})
    scenario = parse_scenario(small_data, "x.yaml")
    world = World(scenario)
    seen = [(o.stamp, s.support) for o in patrol_segment(world, scenario.patrol[0]) for s in o.sightings
            if s.object_id == "book_1"]
    assert any(t < clock(0, "10:00") and sup == "desk_1" for t, sup in seen)
    assert any(t >= clock(0, "10:00") and sup == "table_1" for t, sup in seen)
    assert not any(t >= clock(0, "10:00") and sup == "desk_1" for t, sup in seen)


def test_patrol_poses_cover_the_loop_evenly(example):
    times, xs, ys, yaws = patrol_poses(example, example.patrol[0])
    assert len(set(zip(np.round(xs, 3), np.round(ys, 3)))) > 50
