"""Rendered frames agree with the world: segmentation where the world puts things, metric depth,
containers that open in the picture, walls that hide other rooms."""
import math

import numpy as np
import pytest

from mnemo_sim import scenarios_dir
from mnemo_sim.camera import optical_pose_from_look, optical_to_map, project_map_points
from mnemo_sim.render import BACKGROUND, Renderer, build_scene, color_rgb, wall_segments, world_render_state
from mnemo_sim.scenario import load_scenario
from mnemo_sim.world import World


@pytest.fixture(scope="module")
def scenario():
    return load_scenario(scenarios_dir() / "example_apartment.yaml")


@pytest.fixture(scope="module")
def renderer(scenario):
    r = Renderer(scenario, 640, 480)
    yield r
    r.close()


def look_at(eye, target):
    dx, dy, dz = (t - e for t, e in zip(target, eye))
    return optical_pose_from_look(eye, math.atan2(dy, dx), math.atan2(-dz, math.hypot(dx, dy)))


def front_view(scenario, fixture_id, target, distance=1.3, height=1.4):
    """A camera in front of a fixture (its +x side), looking down at a target point."""
    fixture = scenario.fixture_by_id[fixture_id]
    ex, ey = fixture.to_map(fixture.size[0] / 2 + distance, 0.0)
    return look_at((ex, ey, max(height, target[2] + 0.5)), target)


def test_wall_segments_leave_door_gaps_and_share_boundaries():
    rooms = [(0, 0, 4, 4), (4, 0, 8, 4)]
    segs = wall_segments(rooms, [(4.0, 2.0)], 1.0)
    shared = sorted(s for s in segs if s[0] == s[2] == 4.0)
    assert shared == [(4.0, 0.0, 4.0, 1.5), (4.0, 2.5, 4.0, 4.0)]  # built once, gap at the door
    assert len(segs) == 2 + 2 + 1 + 1  # bottom/top lines merged across rooms, two outer sides


def test_colors_map_names_and_fall_back_stably():
    assert color_rgb("Red") == color_rgb("red") != color_rgb("blue")
    assert color_rgb("glossy dark-blue") == color_rgb("dark blue")
    assert color_rgb("", "mug") == color_rgb("", "mug")


def test_model_has_a_body_per_instance_and_container_joints(scenario):
    _xml, index = build_scene(scenario)
    assert set(index.instance_ids) == {f.id for f in scenario.fixtures} | {o.id for o in scenario.objects}
    containers = {f.id for f in scenario.fixtures if f.is_container}
    assert set(index.container_joint) == containers
    assert index.container_joint["drawer_1"][1] == "slide" and index.container_joint["fridge_1"][1] == "hinge"


def test_segmentation_shows_each_visible_object_where_the_world_says(scenario, renderer):
    world = World(scenario)
    for fid in ("cabinet_2", "cabinet_3", "fridge_1", "drawer_1"):
        world.set_open(fid, True)
    renderer.sync(world)
    checked = 0
    for obj in scenario.objects:
        where = world.truth_location(obj.id)
        if where is None:
            continue
        pos = world.object_position(obj.id)  # contents of an open drawer ride out with it, in the world too
        frame = renderer.render(front_view(scenario, where, pos))
        u, v, z = project_map_points(frame.camera_pose, frame.intrinsics, np.array([pos]))[0]
        assert 0 <= u < 640 and 0 <= v < 480, obj.id
        mask = frame.mask(obj.id)
        assert mask.sum() > 30, f"{obj.id} not visible on {where}"
        assert frame.seg_ids[int(frame.seg[int(round(v)), int(round(u))])] == obj.id
        ys, xs = np.nonzero(mask)
        assert math.hypot(xs.mean() - u, ys.mean() - v) < 12, obj.id
        # Depth at the centre pixel: the object's near surface, in front of its centre.
        d = float(frame.depth[int(round(v)), int(round(u))])
        assert z - max(obj.size) <= d <= z + 1e-3, (obj.id, d, z)
        # Deprojecting the mask lands on the object in the map frame.
        points = frame.intrinsics.deproject(frame.depth)[mask]
        centre = optical_to_map(frame.camera_pose, points).mean(axis=0)
        assert np.linalg.norm(centre - np.array(pos)) < max(obj.size) * 0.75, obj.id
        checked += 1
    assert checked == len(scenario.objects)


def test_depth_is_distance_along_the_optical_axis(renderer, scenario):
    renderer.sync(World(scenario))
    # Looking straight down from 1 m over bare kitchen floor: every pixel's depth is 1 m.
    frame = renderer.render(optical_pose_from_look((3.4, 3.1, 1.0), 0.0, math.pi / 2))
    floor = frame.seg == BACKGROUND
    assert floor.mean() > 0.95
    assert np.allclose(frame.depth[floor], 1.0, atol=2e-3)
    # Facing the kitchen's west wall (0.1 m thick, centred on x = 0) from x = 2 m, level: 1.95 m.
    frame = renderer.render(optical_pose_from_look((2.0, 3.6, 2.1), math.pi, 0.0))
    assert frame.depth[240, 320] == pytest.approx(1.95, abs=5e-3)
    assert frame.rgb.dtype == np.uint8 and frame.rgb.shape == (480, 640, 3)
    assert frame.depth.dtype == np.float32 and frame.seg.dtype == np.int32


def test_opening_a_container_opens_it_in_the_picture(renderer, scenario):
    world = World(scenario)
    fridge = scenario.fixture_by_id["fridge_1"]
    pose = front_view(scenario, "fridge_1", (*fridge.pose[:2], 0.6), distance=1.2)
    renderer.sync(world)
    closed = renderer.render(pose)
    assert closed.mask("milk_1").sum() == 0 and renderer.joint_opening("fridge_1") == 0.0
    world.set_open("fridge_1", True)
    renderer.sync(world)
    opened = renderer.render(pose)
    assert opened.mask("milk_1").sum() > 30
    assert renderer.joint_opening("fridge_1") > 1.5
    changed = np.abs(opened.rgb.astype(int) - closed.rgb.astype(int)).sum(axis=2) > 30
    assert changed.mean() > 0.05
    world.set_open("fridge_1", False)
    renderer.sync(world)
    assert np.array_equal(renderer.render(pose).seg, closed.seg)


def test_drawer_slides_out_with_its_contents(renderer, scenario):
    world = World(scenario)
    world.set_open("drawer_1", True)
    renderer.sync(world)
    slot = world_render_state(world)[0]["scissors_1"]  # where the closed drawer holds them
    pos = world.object_position("scissors_1")
    frame = renderer.render(optical_pose_from_look((1.0, 6.2, 1.2), math.pi / 2, 0.6))
    mask = frame.mask("scissors_1")
    assert mask.sum() > 30
    # The scissors are pulled out with the drawer, and drawn where the world says they are.
    centre = optical_to_map(frame.camera_pose, frame.intrinsics.deproject(frame.depth)[mask]).mean(axis=0)
    assert pos[1] < slot[1] - 0.25
    assert math.hypot(centre[0] - pos[0], centre[1] - pos[1]) < 0.08


def test_walls_hide_other_rooms_and_removed_objects_vanish(renderer, scenario):
    world = World(scenario)
    renderer.sync(world)
    # From the kitchen, facing the study's desk through the wall (not the door): nothing of the study.
    frame = renderer.render(look_at((1.0, 3.5, 1.4), (1.0, 7.5, 0.8)))
    assert not {"desk_1", "book_1", "folder_1", "drawer_1"} & set(frame.visible())
    # The mug on the dining table is there, then handed over and gone.
    pose = front_view(scenario, "dining_table_1", world.object_position("mug_1"))
    assert "mug_1" in renderer.render(pose).visible()
    world.hand_over("mug_1")
    renderer.sync(world)
    assert "mug_1" not in renderer.render(pose).visible()


def test_bad_camera_pose_is_rejected(renderer):
    from mnemo_common.types import Pose3D

    with pytest.raises(ValueError):
        renderer.render(Pose3D((math.nan, 0.0, 1.0)))


def test_patrol_frames_show_every_object_the_oracle_observes(scenario):
    """Rendering and the symbolic visibility rule agree: what an observation lists is in its picture."""
    import itertools

    from mnemo_sim.tasks import TaskRunner

    runner = TaskRunner(scenario)
    with Renderer(scenario, 640, 480, math.degrees(runner.camera.vfov)) as renderer:
        sighted = 0
        for obs in itertools.islice(runner.run_patrols(math.inf), 0, 600, 10):
            renderer.sync(runner.world)
            visible = renderer.render(obs.camera_pose).visible(min_pixels=20)
            for s in obs.sightings:
                if s.kind == "object":  # (fixtures count as sighted when only a corner is in view)
                    assert s.object_id in visible, (obs.stamp, s.object_id)
                    sighted += 1
        assert sighted > 20
