"""Skills: outcomes, signals, clock, counting, interaction events, and no hidden truth on the robot side."""
from __future__ import annotations

import dataclasses

import pytest

from mnemo_common.skill_codes import SkillCode
from mnemo_common.types import Pose2D, Status
from mnemo_sim.patrol import patrol_segment
from mnemo_sim.scenario import parse_scenario
from mnemo_sim.skills import SimRobot, SkillConfig, matches
from mnemo_sim.world import World


def robot(scenario, miss_rate=0.0, seed=5):
    world = World(scenario)
    return SimRobot(world, seed=seed, config=SkillConfig(miss_rate=miss_rate))


def test_navigate_through_doors_takes_time_and_ends_facing_fixture(small):
    r = robot(small)
    t0 = r.world.t
    res = r.navigate("desk_1")
    assert res.success and res.at_fixture == "desk_1" and res.room == "study"
    assert r.world.t - t0 == pytest.approx(res.signals.duration) and res.signals.duration > 5.0
    assert abs(res.robot_pose.yaw) < 1e-3  # desk faces -x: the robot faces +x
    res = r.navigate(pose=Pose2D(2.0, 1.0, 0.0))
    assert res.success and res.at_fixture == "" and res.room == "kitchen"
    assert r.navigate("nowhere").code == Status.NOT_FOUND
    assert r.navigate(pose=Pose2D(50.0, 1.0, 0.0)).code == Status.INVALID_ARGUMENT
    assert r.physical_actions == 2


def test_detect_matches_query_words_and_attributes(small):
    r = robot(small)
    r.navigate("table_1")
    assert [d.instance_id for d in r.detect("red mug").detections] == ["mug_1"]
    assert r.detect("blue mug").detections == []
    everything = r.detect("").detections
    assert {"mug_1", "table_1"} <= {d.instance_id for d in everything}
    assert {d.kind for d in everything} == {"object", "fixture"}
    assert matches("mugs", "mug", {}) and matches("ketchup", "ketchup bottle", {"color": "red"})
    assert not matches("cup", "mug", {})


def test_open_locked_vs_missed_grasp_vs_success(small):
    r = robot(small, miss_rate=0.0)
    r.navigate("cabinet_1")
    locked = r.open("cabinet_1")
    assert not locked.success and locked.code == Status.FAILED
    assert locked.signals.contact and 0.7 < locked.signals.gripper_closure < 0.9
    assert locked.signals.joint_displacement < 0.02 and locked.signals.gripper_effort > 20

    missing = robot(small, miss_rate=1.0)
    missing.navigate("cabinet_2")
    missed = missing.open("cabinet_2")
    assert not missed.success and missed.message == "cabinet_2 did not open"
    assert not missed.signals.contact and missed.signals.gripper_closure > 0.95
    assert missed.signals.joint_displacement < 0.02
    assert locked.message.replace("cabinet_1", "X") == missed.message.replace("cabinet_2", "X")

    r.navigate("cabinet_2")
    opened = r.open("cabinet_2")
    assert opened.success and opened.signals.contact and 1.2 < opened.signals.joint_displacement < 1.6
    assert r.world.is_open("cabinet_2")
    assert r.events[-1].seen_contents == ["ketchup bottle"]
    closed = r.close("cabinet_2")
    assert closed.success and not r.world.is_open("cabinet_2")


def test_drawer_slides(small):
    r = robot(small)
    r.navigate("drawer_1")
    res = r.open("drawer_1")
    assert res.success and 0.3 < res.signals.joint_displacement < 0.4


def test_miss_share_follows_seed_and_rate(small):
    outcomes = []
    for seed in (1, 1, 2):
        r = robot(small, miss_rate=0.5, seed=seed)
        r.navigate("cabinet_2")
        seq = []
        for _ in range(20):
            res = r.open("cabinet_2")
            seq.append(res.success)
            if res.success:
                r.close("cabinet_2")
        outcomes.append(seq)
    assert outcomes[0] == outcomes[1] and outcomes[0] != outcomes[2]
    assert 3 <= sum(not s for s in outcomes[0]) <= 17


def test_open_needs_to_be_at_fixture_and_openable(small):
    r = robot(small)
    res = r.open("cabinet_2")
    assert not res.success and "not at fixture" in res.message
    assert r.open("table_1").code == Status.INVALID_ARGUMENT
    assert r.open("ghost").code == Status.NOT_FOUND


def test_peek_closed_then_open(small):
    r = robot(small)
    r.navigate("cabinet_2")
    assert r.peek("cabinet_2").code == Status.FAILED
    r.open("cabinet_2")
    res = r.peek("cabinet_2")
    assert res.success and [d.instance_id for d in res.detections] == ["ketchup_1"]
    assert r.events[-1].seen_contents == ["ketchup bottle"]


def test_pick_only_visible_and_reachable_one_at_a_time(small):
    r = robot(small)
    assert r.pick("ketchup").code == Status.NOT_FOUND  # closed cabinet, not in view
    r.world.move_robot(Pose2D(1.2, 2.0, 0.0))  # sees the mug on the table from afar
    far = r.pick("mug")
    assert far.code == Status.FAILED and "out of reach" in far.message
    r.navigate("cabinet_2")
    assert r.open("cabinet_2").success
    r.navigate("table_1")
    res = r.pick("mug")
    assert res.success and res.picked_id == "mug_1" and res.picked_label == "mug" and res.signals.contact
    assert r.world.held() == "mug_1"
    r.navigate("cabinet_2")
    assert "holding" in r.close("cabinet_2").message  # one gripper: place first
    busy = r.pick("ketchup_1")
    assert busy.code == Status.FAILED
    placed = r.place("cabinet_2")
    assert placed.success and placed.picked_id == "mug_1" and r.world.truth_location("mug_1") == "cabinet_2"
    assert r.pick("ketchup_1").picked_id == "ketchup_1"
    assert r.picked == ["mug_1", "ketchup_1"]


def test_place_rules(small):
    r = robot(small)
    assert r.place("table_1").message == "the gripper is empty"
    r.navigate("table_1")
    r.pick("mug_1")
    r.navigate("cabinet_2")
    assert "closed" in r.place("cabinet_2").message
    assert "not at fixture" in r.place("table_1").message


def test_every_physical_skill_emits_an_interaction_event(small):
    heard = []
    r = robot(small)
    r.listeners.append(heard.append)
    r.navigate("cabinet_2")
    r.detect("")
    r.open("cabinet_2")
    r.peek("cabinet_2")
    r.pick("ketchup")
    r.place("cabinet_2")
    r.close("cabinet_2")
    assert [e.action for e in heard] == ["navigate", "detect", "open", "peek", "pick", "place", "close"]
    assert r.physical_actions == 7 and len({e.id for e in heard}) == 7
    assert all(e.end >= e.start and e.frame_refs == [] for e in heard)
    assert heard[4].picked_id == "ketchup_1"


def _robot_side_text(value) -> str:
    if dataclasses.is_dataclass(value):
        return " ".join(_robot_side_text(getattr(value, f.name)) for f in dataclasses.fields(value))
    if isinstance(value, dict):
        return " ".join(f"{k} {_robot_side_text(v)}" for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return " ".join(_robot_side_text(v) for v in value)
    return str(value)


def test_robot_side_never_sees_hidden_truth(small_data):
    from mnemo_sim.scenario import parse_scenario
    small_data["objects"][0]["hidden"] = {"fullness": "secretly_half_full"}
    scenario = parse_scenario(small_data, "x.yaml")
    world = World(scenario)
    r = SimRobot(world, seed=2, config=SkillConfig(miss_rate=0.3))
    outputs = list(patrol_segment(world, scenario.patrol[0]))
    seen_ids = {s.object_id for o in outputs for s in o.sightings}
    for fid in ("cabinet_1", "cabinet_2", "table_1", "desk_1", "drawer_1"):
        outputs.append(r.navigate(fid))
        outputs += [r.detect(""), r.open(fid), r.peek(fid), r.pick("passport"), r.pick("secret_1"), r.pick("keys_1")]
        outputs.append(r.observe())
        seen_ids |= {s.object_id for s in outputs[-1].sightings}
        seen_ids |= {d.instance_id for o in outputs if hasattr(o, "detections") for d in o.detections}
    outputs += r.events
    text = _robot_side_text(outputs).lower()
    assert "secretly_half_full" not in text and "fullness" not in text
    assert "lock" not in text  # no lock flags, not even in messages
    # secret_1 (in the locked cabinet) and keys_1 (not yet in the world) were never seen: only echoed targets.
    assert "secret_1" not in seen_ids and "keys_1" not in seen_ids
    for o in outputs:
        ids = {getattr(o, "picked_id", "")} | {d.instance_id for d in getattr(o, "detections", [])}
        assert not ({"secret_1", "keys_1"} & ids)


def test_observation_at_a_fixture_includes_what_lies_on_it(small):
    """The head looks down at the fixture the robot stands at: its observation holds what lies
    on it (or in it, once open), as detect does; what is inside a closed container stays unseen."""
    r = robot(small)
    for fixture in small.fixtures:
        r.navigate(fixture.id)
        on_it = set(r.world.present_objects_at(fixture.id))
        seen = {s.object_id for s in r.observe().sightings}
        if fixture.is_container and not r.world.is_open(fixture.id):
            assert not (on_it & seen) - {d.instance_id for d in r.detect("").detections}
        else:
            assert on_it <= seen, fixture.id
            assert on_it <= {d.instance_id for d in r.detect("").detections}
    r.navigate("cabinet_1")
    if r.open("cabinet_1").success:
        assert set(r.world.present_objects_at("cabinet_1")) <= {s.object_id for s in r.observe().sightings}


def test_outcomes_say_what_the_skill_found(small, small_data):
    r = robot(small)
    assert r.open("table_1").outcome == SkillCode.NOT_OPENABLE
    r.navigate("cabinet_2")
    assert (r.open("cabinet_2").outcome, r.open("cabinet_2").outcome) == (SkillCode.NONE, SkillCode.ALREADY_OPEN)
    assert (r.close("cabinet_2").outcome, r.close("cabinet_2").outcome) == (SkillCode.NONE, SkillCode.ALREADY_CLOSED)
    small_data["doors"], small_data["patrol"], small_data["tasks"] = [], [], []
    walled = robot(parse_scenario(small_data))
    result = walled.navigate("desk_1")  # in the study, behind a wall
    assert not result.success and result.outcome == SkillCode.NO_PATH and walled.physical_actions == 0


class FakePerception:
    """An honest robot's perception for skill tests: the graph's nodes by id, detections from truth
    positions with node ids and no instance ids."""

    def __init__(self, robot, nodes, measured=None):
        self.robot, self.nodes = robot, nodes  # node id -> (label, position)
        self.measured = measured or {}  # instance -> attributes perception measured

    def sense(self):
        from mnemo_common.types import Detection

        objects, _ = self.robot._in_view()
        out = []
        for oid in objects:
            pos = self.robot.world.object_position(oid)
            node = next((n for n, (_, p) in self.nodes.items() if p == pos), "")
            out.append(Detection(label=self.robot.world.scenario.object_by_id[oid].label, score=1.0, kind="object",
                                 centroid=pos, node_id=node, attributes=self.measured.get(oid, {})))
        return out

    def locate(self, target):
        return self.nodes.get(target)


def test_honest_pick_resolves_a_node_by_label_and_position_and_never_by_instance_id(small):
    r = robot(small)
    mug = r.world.object_position("mug_1")
    r.perception = FakePerception(r, {"node_7": ("mug", mug), "node_8": ("mug", (mug[0] + 2.0, mug[1], mug[2])),
                                      "node_9": ("cup", mug)})
    r.navigate("table_1")
    assert r.pick("mug_1").outcome == SkillCode.NOT_VISIBLE  # the simulator's id names nothing to the robot
    assert r.pick("node_8").outcome == SkillCode.NOT_VISIBLE  # a mug node where no mug is
    assert r.pick("node_9").outcome == SkillCode.NOT_VISIBLE  # something else where the mug is
    assert all(d.instance_id == "" and d.node_id == "node_7" for d in r.detect("mug").detections)
    res = r.pick("node_7")
    assert res.success and res.picked_id == "node_7" and "mug_1" not in res.message
    assert r.events[-1].picked_id == "node_7"
    assert r.picked == ["mug_1"]  # the scorer's input alone names the instance


def test_honest_peek_and_open_report_what_perception_sees_inside(small):
    r = robot(small)
    r.perception = FakePerception(r, {})
    r.navigate("cabinet_2")
    assert r.open("cabinet_2").success and r.events[-1].seen_contents == ["ketchup bottle"]
    res = r.peek("cabinet_2")
    assert res.success and [(d.label, d.instance_id) for d in res.detections] == [("ketchup bottle", "")]


def test_honest_pick_by_description_matches_what_perception_measured(small):
    r = robot(small)
    r.perception = FakePerception(r, {}, measured={"mug_1": {"color": "pink"}})  # authored red, measured pink
    r.navigate("table_1")
    assert r.pick("ceramic mug").outcome == SkillCode.NOT_VISIBLE  # authored only: the robot cannot see it
    assert r.pick("red mug").outcome == SkillCode.NOT_VISIBLE
    res = r.pick("pink mug")
    assert res.success and r.picked == ["mug_1"] and res.picked_id == "pink mug"


def test_at_a_long_fixture_the_head_looks_across_all_of_it(small_data):
    """One view shows the middle of a long counter only; the look at a fixture pans until every corner
    of its top is in some view's image (a small desk takes one view: the tilted one ``observe`` reports)."""
    import math

    import numpy as np

    from mnemo_sim.camera import CameraIntrinsics, project_map_points

    table = next(f for f in small_data["fixtures"] if f["id"] == "table_1")
    table["size"] = [0.6, 3.0, 0.9]
    next(f for f in small_data["fixtures"] if f["id"] == "desk_1")["size"] = [0.4, 0.4, 0.75]
    r = robot(parse_scenario(small_data, "small.yaml"))
    cam = r.config.camera
    image = CameraIntrinsics.from_fovy(cam.width, cam.height_px, math.degrees(cam.vfov))

    def shown(poses, fixture_id):
        f = r.world.scenario.fixture_by_id[fixture_id]
        corners = np.array([(x, y, f.size[2]) for x, y in f.footprint()])
        inside = [(u >= 0) & (u < cam.width) & (v >= 0) & (v < cam.height_px) & (d > 0)
                  for u, v, d in (project_map_points(p, image, corners).T for p in poses)]
        return np.any(inside, axis=0)

    assert r.look_poses() == []  # at no fixture
    r.navigate("table_1")
    poses = r.look_poses()
    assert len(poses) >= 2 and shown(poses, "table_1").all()
    assert not shown([r.observe().camera_pose], "table_1").all()  # the one tilted view misses its ends
    r.navigate("desk_1")
    assert r.look_poses() == [r.observe().camera_pose]
