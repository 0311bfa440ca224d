"""The skill server's logic against fakes of nav2, the controllers, perception and the scene graph:
success, failure, timeout, cancel and the operator gate for every primitive."""
from __future__ import annotations

import math
import sys
import threading
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from mnemo_common.skill_codes import SkillCode  # noqa: E402
from mnemo_common.types import Pose2D, Status  # noqa: E402
from skills_fakes import FakeWorld, make_ports, profile  # noqa: E402

from mnemo_skills.context import SkillSettings  # noqa: E402
from mnemo_skills.gate import OperatorGate  # noqa: E402
from mnemo_skills.ports import JointReading, Outcome  # noqa: E402
from mnemo_skills.primitives import HeldObject  # noqa: E402
from mnemo_skills.server import SkillServer  # noqa: E402

FAST = SkillSettings(navigate_timeout=5.0, skill_timeout=5.0, step_timeout=5.0, service_timeout=2.0,
                     operator_timeout=5.0)


def make(robot="tiago", settings=FAST, gate=False, with_hand=True, at="", **world_kw):
    world = FakeWorld(profile(robot))
    for k, v in world_kw.items():
        setattr(world, k, v)
    if at:
        world.stand_at(at, settings.approach_standoff)
    server = SkillServer(make_ports(world, with_hand), world.profile, settings, OperatorGate(enabled=gate))
    return world, server


# How each primitive is called, what to prepare, and which call to make hang for timeout/cancel.
def _at(fixture_id, hold=False):
    def prepare(server):
        server.ports.navigator.world.stand_at(fixture_id, server.settings.approach_standoff)
        if hold:
            server.state.held = HeldObject("mug_1", "mug")
    return prepare


CASES = {
    "navigate": dict(call=lambda s: s.navigate("cabinet_1"), hang="navigate"),
    "detect": dict(call=lambda s: s.detect("mug"), hang="detect"),
    "open": dict(call=lambda s: s.open("cabinet_1"), hang="trajectory", prepare=_at("cabinet_1")),
    "close": dict(call=lambda s: s.close("cabinet_1"), hang="trajectory", prepare=_at("cabinet_1")),
    "peek": dict(call=lambda s: s.peek("cabinet_1"), hang="trajectory", prepare=_at("cabinet_1")),
    "pick": dict(call=lambda s: s.pick("mug_1"), hang="trajectory", prepare=_at("table_1")),
    "place": dict(call=lambda s: s.place("table_1"), hang="trajectory", prepare=_at("table_1", hold=True)),
}
PRIMITIVES = list(CASES)


def run_case(name, server):
    CASES[name].get("prepare", lambda s: None)(server)
    return CASES[name]["call"](server)


def run_in_thread(name, server):
    box = {}
    t = threading.Thread(target=lambda: box.setdefault("result", run_case(name, server)), daemon=True)
    t.start()
    return t, box


def wait_for(pred, timeout=5.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return True
        time.sleep(0.01)
    return False


# -- success ---------------------------------------------------------------------------
@pytest.mark.parametrize("name", PRIMITIVES)
def test_every_primitive_succeeds_and_reports(name):
    world, server = make()
    result = run_case(name, server)
    assert result.success, result.message
    assert result.code == Status.OK
    if name == "detect":
        assert world.events == [] and result.interaction_id == ""
    else:
        assert [e.action for e in world.events] == [name]
        assert world.events[0].id == result.interaction_id and world.events[0].success


def test_navigate_to_fixture_stops_in_front_facing_it():
    world, server = make()
    world.pose = Pose2D(6.0, 1.0, 0.0)
    result = server.navigate("cabinet_1")
    goal = [c[2] for c in world.calls if c[0] == "navigate"][0]
    # cabinet_1 is 0.6 m wide at x=3: the side facing the robot (+x) plus the standoff.
    assert goal.x == pytest.approx(3.0 + 0.3 + FAST.approach_standoff) and goal.y == pytest.approx(1.0)
    assert goal.yaw == pytest.approx(math.pi)
    assert result.at_fixture == "cabinet_1" and result.room == "kitchen"
    assert result.robot_pose == goal


def test_navigate_points_the_head_at_the_fixture_it_arrives_at():
    world, server = make()
    world.pose = Pose2D(6.0, 1.0, 0.0)
    world.joints["torso_lift_joint"] = JointReading(0.2)
    result = server.navigate("cabinet_1")
    (joints, (pan, tilt), _), = [c[2] for c in world.calls if c[0] == "trajectory" and "head" in c[1]]
    # facing the cabinet 0.6 m in front of its face: pan 0, the 0.9 m top below a 1.25 m camera
    assert joints == ("head_1_joint", "head_2_joint") and pan == pytest.approx(0.0, abs=1e-9)
    assert tilt == pytest.approx(-math.atan2(1.05 + 0.2 - 0.9, 0.3 + FAST.approach_standoff))
    assert result.success and result.message == ""
    # a head that does not move: still arrived, and said so
    world.fail = lambda kind, name: Outcome(Status.FAILED, "head controller down") if "head" in name else None
    result = server.navigate("table_1")
    assert result.success and result.at_fixture == "table_1" and "head controller down" in result.message
    # a pose or a robot without a head: no head motion
    world.calls.clear()
    assert server.navigate("", Pose2D(1.0, 2.0, 0.5)).success
    tidy, tidy_server = make("tidybot")
    assert tidy_server.navigate("cabinet_1").success
    assert not [c for c in world.calls + tidy.calls if c[0] == "trajectory"]


def test_navigate_to_object_goes_to_its_fixture_and_to_a_pose():
    world, server = make()
    assert server.navigate("mug_1").at_fixture == "table_1"
    result = server.navigate("", Pose2D(1.0, 2.0, 0.5))
    assert result.success and world.pose == Pose2D(1.0, 2.0, 0.5) and result.at_fixture == ""


def test_open_reports_grasp_and_fixture_travel():
    world, server = make(at="cabinet_1")
    result = server.open("cabinet_1")
    s = result.signals
    assert s.contact and s.gripper_closure == pytest.approx(0.5) and s.gripper_effort == pytest.approx(8.0)
    assert s.joint_displacement == pytest.approx(0.2) and s.duration >= 0.0
    kinds = [c[1] for c in world.moves()]
    assert kinds[0] == "prepare_grasp" and kinds[-1] == "home"  # reach ... retreat
    torso = [c for c in world.calls if c[1] == "/torso_controller/follow_joint_trajectory"][0]
    assert torso[2][1] == pytest.approx((0.0,))  # cabinet centre 0.45 m: torso clamped to its minimum


def test_pick_then_place_tracks_the_held_object():
    world, server = make(at="table_1")
    picked = server.pick("mug")
    assert picked.success and picked.picked_id == "mug_1" and picked.picked_label == "mug"
    assert world.events[-1].picked_id == "mug_1"
    again = server.pick("cup_2")
    assert again.code == Status.FAILED and again.outcome == SkillCode.GRIPPER_OCCUPIED
    placed = server.place("table_1")
    assert placed.success and placed.picked_id == "mug_1" and server.state.held is None


def test_peek_returns_only_what_lies_inside_the_container():
    world, server = make(at="cabinet_1")
    result = server.peek("cabinet_1")
    assert [d.label for d in result.detections] == ["cup"]
    assert world.events[-1].seen_contents == ["cup"]


def test_detect_passes_the_query_and_returns_detections():
    world, server = make()
    result = server.detect("mug")
    assert [d.node_id for d in result.detections] == ["mug_1"]
    assert ("detect", "mug", None) in world.calls


def test_tidybot_profile_uses_gripper_command_and_arm_trajectories():
    world, server = make("tidybot", at="table_1")
    assert server.pick("mug_1").success
    assert any(c[0] == "gripper" and c[1] == "/robotiq_gripper_controller/gripper_cmd" for c in world.calls)
    assert not any(c[0] == "motion" for c in world.calls)
    assert server.place("table_1").success
    world.stand_at("cabinet_1")
    assert server.open("cabinet_1").success


# -- failure ---------------------------------------------------------------------------
def test_navigate_passes_nav2_error_code_and_message_through():
    world, server = make()
    server.ports.navigator.result = Outcome(Status.FAILED, "no valid path found", 204, SkillCode.NO_PATH)
    result = server.navigate("cabinet_1")
    assert result.code == Status.FAILED and "no valid path found" in result.message and "204" in result.message
    assert result.outcome == SkillCode.NO_PATH and world.events[-1].success is False


def test_navigate_rejects_unknown_targets_and_bad_poses_without_moving():
    world, server = make()
    unknown = server.navigate("fridge_9")
    assert unknown.code == Status.NOT_FOUND and unknown.outcome == SkillCode.UNKNOWN_TARGET
    assert server.navigate("", Pose2D(float("nan"), 0.0)).code == Status.INVALID_ARGUMENT
    assert server.navigate("").code == Status.INVALID_ARGUMENT
    assert world.moves() == [] and world.events == []


def test_detect_failure_of_perception_is_reported():
    world, server = make()
    world.fail = lambda kind, name: Outcome(Status.UNAVAILABLE, "perception service not available")
    result = server.detect("mug")
    assert result.code == Status.UNAVAILABLE and "perception" in result.message


@pytest.mark.parametrize("verb", ["open", "close"])
def test_locked_fixture_grasped_but_did_not_move(verb):
    world, server = make(locked=True, at="cabinet_1")
    result = getattr(server, verb)("cabinet_1")
    assert not result.success and result.code == Status.FAILED and result.outcome == SkillCode.NO_MOTION
    assert result.signals.contact and result.signals.joint_displacement == pytest.approx(0.0)
    assert [c[1] for c in world.moves()][-1] == "home"  # released and retreated
    assert world.events[-1].signals.contact is True


@pytest.mark.parametrize("verb", ["open", "close"])
def test_missed_handle_has_no_contact(verb):
    world, server = make(graspable=False, at="cabinet_1")
    result = getattr(server, verb)("cabinet_1")
    # the same outcome as a lock: only the signals tell them apart (the interaction analyzer's job)
    assert result.code == Status.FAILED and result.outcome == SkillCode.NO_MOTION
    assert not result.signals.contact and result.signals.gripper_closure == pytest.approx(1.0)
    assert world.events[-1].signals.contact is False


@pytest.mark.parametrize("name", ["open", "close", "peek", "place"])
def test_acting_on_a_fixture_out_of_reach_does_not_move(name):
    world, server = make()  # at the origin, metres from every fixture
    server.state.held = HeldObject("mug_1", "mug") if name == "place" else None
    result = CASES[name]["call"](server)
    assert result.code == Status.FAILED and result.outcome == SkillCode.NOT_AT_FIXTURE
    assert world.moves() == [] and world.events == []
    server.ports.navigator.current_pose = lambda: None  # where the base is unknown, the arm finds out
    assert CASES[name]["call"](server).success


def test_an_object_in_view_out_of_reach_names_where_to_stand():
    world, server = make(at="cabinet_1")
    result = server.pick("mug_1")
    assert result.outcome == SkillCode.OUT_OF_REACH and result.reachable_from == "table_1"
    unknown = server.pick("plate")  # seen, but nowhere in the scene graph
    assert unknown.outcome == SkillCode.OUT_OF_REACH and unknown.reachable_from == ""
    assert world.moves() == []


@pytest.mark.parametrize("verb,seen,code", [("open", "open", SkillCode.ALREADY_OPEN),
                                            ("close", "closed", SkillCode.ALREADY_CLOSED)])
def test_a_fixture_seen_already_open_or_closed_is_left_alone(verb, seen, code):
    world, server = make(at="cabinet_1")
    world.detections[2].attributes["state"] = seen
    result = getattr(server, verb)("cabinet_1")
    assert result.success and result.outcome == code and world.moves() == []


def test_a_container_seen_closed_is_not_placed_into_and_shows_nothing_inside():
    world, server = make(at="cabinet_1")
    world.detections[2].attributes["state"] = "closed"
    server.state.held = HeldObject("mug_1", "mug")
    placed = server.place("cabinet_1")
    assert placed.outcome == SkillCode.CONTAINER_CLOSED and world.moves() == [] and server.state.held is not None
    server.state.held = None
    peeked = server.peek("cabinet_1")
    assert peeked.outcome == SkillCode.CONTAINER_CLOSED and peeked.detections == []


def test_without_tf_the_arm_controller_decides_whether_the_fixture_moved():
    world, server = make(with_hand=False, locked=True, at="cabinet_1")
    result = server.open("cabinet_1")
    assert result.code == Status.FAILED and "PATH_TOLERANCE_VIOLATED" in result.message
    assert result.outcome == SkillCode.NO_MOTION
    assert result.signals.joint_displacement == 0.0


def test_pick_failures_missed_slipped_not_visible():
    world, server = make(graspable=False, at="table_1")
    missed = server.pick("mug_1")
    assert "closed fully" in missed.message and missed.outcome == SkillCode.GRASP_FAILED
    world, server = make(slips=True, at="table_1")
    slipped = server.pick("mug_1")
    assert slipped.code == Status.FAILED and "slipped" in slipped.message and server.state.held is None
    assert slipped.outcome == SkillCode.GRASP_FAILED
    world, server = make(at="table_1")
    world.detections = []
    unseen = server.pick("mug_1")
    assert unseen.code == Status.NOT_FOUND and unseen.outcome == SkillCode.NOT_VISIBLE
    assert server.pick("table_1").code == Status.INVALID_ARGUMENT


def test_place_without_holding_fails_and_peek_needs_a_fixture():
    world, server = make()
    assert server.place("table_1").code == Status.FAILED
    assert server.peek("mug_1").code == Status.INVALID_ARGUMENT
    assert server.peek("nowhere").code == Status.NOT_FOUND
    assert world.moves() == []


def test_missing_gripper_joint_states_is_a_clear_error():
    world, server = make(at="table_1")
    world.joints = {}
    server.ports.joints.latest = lambda: {}
    result = server.pick("mug_1")
    assert result.code == Status.UNAVAILABLE and "gripper_left_finger_joint" in result.message


def test_a_controller_error_in_reach_stops_the_primitive():
    world, server = make(at="cabinet_1")
    world.fail = lambda kind, name: Outcome(Status.FAILED, "controller aborted", -1) if kind == "motion" else None
    result = server.open("cabinet_1")
    assert result.code == Status.FAILED and "reach step 1" in result.message and "controller aborted" in result.message


def test_a_broken_adapter_becomes_an_internal_error_not_a_crash():
    world, server = make()

    def boom(*a, **k):
        raise RuntimeError("driver exploded")

    server.ports.perception.detect = boom
    result = server.detect("mug")
    assert result.code == Status.INTERNAL and "driver exploded" in result.message
    assert server.detect is not None and server.running == ""


# -- timeout ---------------------------------------------------------------------------
@pytest.mark.parametrize("name", PRIMITIVES)
def test_every_primitive_times_out_and_cancels_the_goal(name):
    settings = SkillSettings(navigate_timeout=0.3, skill_timeout=0.3, step_timeout=5.0, service_timeout=0.3,
                             operator_timeout=1.0)
    world, server = make(settings=settings)
    kind = CASES[name]["hang"]
    world.hang = lambda k, n: k == kind
    t0 = time.monotonic()
    result = run_case(name, server)
    assert result.code == Status.TIMEOUT, result.message
    assert time.monotonic() - t0 < 2.0
    assert world.canceled_goals and world.canceled_goals[0][0] == kind
    hung = [c for c in world.calls if c[0] == kind][-1]
    # The robot call got at most what was left of the skill's time.
    if hung[2] and isinstance(hung[2], tuple):
        assert hung[2][-1] <= 0.31
    # Nothing moved after the hung goal (a timed-out robot does not retreat on its own).
    if kind != "detect":
        assert world.moves()[-1][0] == kind


def test_navigate_request_timeout_overrides_the_default():
    world, server = make()
    world.hang = lambda k, n: k == "navigate"
    t0 = time.monotonic()
    result = server.navigate("cabinet_1", timeout=0.2)
    assert result.code == Status.TIMEOUT and result.outcome == SkillCode.TIMEOUT
    assert time.monotonic() - t0 < 1.5


# -- cancel ----------------------------------------------------------------------------
@pytest.mark.parametrize("name", PRIMITIVES)
def test_every_primitive_can_be_canceled_mid_motion(name):
    world, server = make()
    kind = CASES[name]["hang"]
    world.hang = lambda k, n: k == kind
    t, box = run_in_thread(name, server)
    assert world.hanging.wait(5.0)
    assert server.cancel("operator pressed stop") == name
    t.join(5.0)
    result = box["result"]
    assert result.code == Status.CANCELED
    assert world.canceled_goals == [(kind, [c for c in world.calls if c[0] == kind][-1][1])]
    if kind != "detect":
        assert world.moves()[-1][0] == kind  # no retreat motion after a cancel
    assert server.running == "" and server.cancel() == ""


def test_a_second_skill_while_one_runs_is_refused():
    world, server = make()
    world.hang = lambda k, n: k == "navigate"
    t, box = run_in_thread("navigate", server)
    assert world.hanging.wait(5.0)
    busy = server.open("cabinet_1")
    assert busy.code == Status.UNAVAILABLE and "navigate" in busy.message
    server.cancel()
    t.join(5.0)


# -- operator gate ---------------------------------------------------------------------
GATED = SkillSettings(navigate_timeout=5.0, skill_timeout=5.0, step_timeout=5.0, service_timeout=2.0,
                      operator_timeout=5.0, gated_skills=tuple(PRIMITIVES))


@pytest.mark.parametrize("name", PRIMITIVES)
@pytest.mark.parametrize("approve", [True, False])
def test_every_primitive_waits_for_the_operator(name, approve):
    world, server = make(settings=GATED, gate=True)
    t, box = run_in_thread(name, server)
    assert wait_for(lambda: server.gate.pending is not None)
    assert world.moves() == []  # nothing moves before the operator answers
    pending = server.gate.pending
    assert pending.action_id.startswith(name + ":")
    server.gate.confirm(pending.action_id, approve)
    t.join(5.0)
    result = box["result"]
    if approve:
        assert result.success, result.message
    else:
        assert result.code == Status.REJECTED and "rejected" in result.message
        assert world.moves() == [] and world.events == []


@pytest.mark.parametrize("name", PRIMITIVES)
def test_every_primitive_is_rejected_when_the_operator_does_not_answer(name):
    settings = SkillSettings(navigate_timeout=5.0, skill_timeout=5.0, step_timeout=5.0, service_timeout=2.0,
                             operator_timeout=0.2, gated_skills=tuple(PRIMITIVES))
    world, server = make(settings=settings, gate=True)
    result = run_case(name, server)
    assert result.code == Status.REJECTED and "no operator confirmation" in result.message
    assert world.moves() == []


def test_operator_time_does_not_count_against_the_skill_timeout():
    settings = SkillSettings(navigate_timeout=0.3, skill_timeout=0.3, service_timeout=0.3, operator_timeout=5.0)
    world, server = make(settings=settings, gate=True)
    t, box = run_in_thread("navigate", server)
    assert wait_for(lambda: server.gate.pending is not None)
    time.sleep(0.4)  # longer than the skill timeout
    server.gate.confirm("", True)
    t.join(5.0)
    assert box["result"].success


def test_cancel_while_waiting_for_the_operator():
    world, server = make(settings=GATED, gate=True)
    t, box = run_in_thread("open", server)
    assert wait_for(lambda: server.gate.pending is not None)
    server.cancel()
    t.join(5.0)
    assert box["result"].code == Status.CANCELED and world.moves() == []


def test_detect_is_not_gated_by_default():
    world, server = make(settings=FAST, gate=True)
    assert server.detect("mug").success and server.gate.pending is None
