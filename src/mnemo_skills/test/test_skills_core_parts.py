"""Operator gate, approach poses and robot profiles on their own."""
from __future__ import annotations

import math
import sys
import threading
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from mnemo_common.types import MnemoError, Pose2D, Status  # noqa: E402
from skills_fakes import fixture  # noqa: E402

from mnemo_skills.approach import approach_candidates, approach_pose, head_angles, look_target  # noqa: E402
from mnemo_skills.gate import Decision, OperatorGate  # noqa: E402
from mnemo_skills.ports import CancelToken, GraphNode  # noqa: E402
from mnemo_skills.profile import ProfileError, parse_profile  # noqa: E402


# -- gate ------------------------------------------------------------------------------
def _request_async(gate, action_id="open:cabinet_1:1", timeout=5.0, cancel=None):
    box = {}
    t = threading.Thread(target=lambda: box.setdefault(
        "d", gate.request(action_id, "open cabinet_1", timeout, cancel or CancelToken())), daemon=True)
    t.start()
    return t, box


def test_gate_confirm_by_id_and_by_empty_id():
    announced = []
    gate = OperatorGate()
    gate.on_pending = announced.append
    for action_id, approve, expected in (("open:cabinet_1:1", True, Decision.APPROVED), ("", False, Decision.REJECTED)):
        t, box = _request_async(gate)
        while gate.pending is None:
            threading.Event().wait(0.01)
        assert gate.confirm(action_id, approve).description == "open cabinet_1"
        t.join(5.0)
        assert box["d"] is expected
    assert announced[-1] is None and announced[0].action_id == "open:cabinet_1:1"


def test_gate_refuses_unknown_ids_and_confirmations_with_nothing_pending():
    gate = OperatorGate()
    with pytest.raises(MnemoError) as err:
        gate.confirm("x", True)
    assert err.value.code == Status.NOT_FOUND
    t, box = _request_async(gate)
    while gate.pending is None:
        threading.Event().wait(0.01)
    with pytest.raises(MnemoError, match="not pending"):
        gate.confirm("pick:mug:2", True)
    gate.confirm("", True)
    t.join(5.0)


def test_gate_timeout_cancel_and_disabled():
    gate = OperatorGate()
    assert gate.request("a", "d", 0.05, CancelToken()) is Decision.TIMEOUT
    cancel = CancelToken()
    cancel.cancel()
    assert gate.request("a", "d", 5.0, cancel) is Decision.CANCELED
    assert OperatorGate(enabled=False).request("a", "d", 0.0, CancelToken()) is Decision.APPROVED
    assert gate.pending is None


# -- approach --------------------------------------------------------------------------
def test_approach_candidates_face_the_fixture():
    cab = fixture("cabinet_1", "cabinet", 3.0, 1.0, (0.6, 0.4, 0.9))
    for c in approach_candidates(cab, 0.5):
        assert math.atan2(1.0 - c.y, 3.0 - c.x) == pytest.approx(c.yaw)
    sides = sorted((round(c.x - 3.0, 6), round(c.y - 1.0, 6)) for c in approach_candidates(cab, 0.5))
    assert sides == [(-0.8, 0.0), (0.0, -0.7), (0.0, 0.7), (0.8, 0.0)]


def test_approach_pose_nearest_free_side():
    cab = fixture("cabinet_1", "cabinet", 3.0, 1.0, (0.6, 0.4, 0.9))
    assert approach_pose(cab, 0.5, Pose2D(3.0, -3.0)) == pytest.approx(Pose2D(3.0, 1.0 - 0.7, math.pi / 2))
    # A fridge right below the cabinet blocks that side: take the next nearest.
    fridge = fixture("fridge_1", "fridge", 3.0, -0.2, (0.8, 0.8, 1.8))
    p = approach_pose(cab, 0.5, Pose2D(3.0, -3.0), [cab, fridge])
    assert p.y == pytest.approx(1.0) and abs(p.x - 3.0) == pytest.approx(0.8)
    with pytest.raises(ValueError):
        approach_pose(cab, float("nan"))


# -- profiles --------------------------------------------------------------------------
BASE = {"robot": "r", "controllers": {"arm": {"action": "/arm/fjt", "joints": ["a", "b"]},
                                      "g": {"action": "/g/fjt", "joints": ["f"]}},
        "gripper": {"controller": "g", "joints": ["f"], "open_position": 0.04, "closed_position": 0.0}}


def _with(**prims):
    return {**BASE, "primitives": prims}


@pytest.mark.parametrize("data, message", [
    ([], "a profile is a mapping"),
    ({"controllers": {}}, "missing 'robot'"),
    (_with(fly={}), "unknown primitive"),
    (_with(open={"wiggle": []}), "unknown phase"),
    (_with(open={"reach": [{"controller": "leg", "positions": [1.0]}]}), "unknown controller 'leg'"),
    (_with(open={"reach": [{"controller": "arm", "positions": [1.0]}]}), "has 2 joints"),
    (_with(open={"reach": [{"controller": "arm", "positions": ["x", 1.0]}]}), "list of numbers"),
    (_with(open={"reach": [{"gripper": "squeeze"}]}), "'open' or 'close'"),
    (_with(open={"reach": [{"motion": "home"}]}), "no motion_action"),
    (_with(open={"reach": [{"torso": "target"}]}), "no torso"),
    (_with(open={"reach": [{"dance": 1}]}), "unknown step"),
    ({**BASE, "gripper": {**BASE["gripper"], "command_action": "/x"}}, "exactly one"),
    ({"robot": "r", "primitives": {"pick": {}}}, "needs a gripper"),
    ({**BASE, "look": {"controller": "g", "camera_height": 1.0}}, "two-joint"),
    ({**BASE, "look": {"controller": "arm"}}, "missing 'camera_height'"),
    ({**BASE, "look": {"controller": "arm", "camera_height": 1.0, "tilt_down": 0.5}}, "tilt_down must be 1 or -1"),
    ({**BASE, "look": {"controller": "arm", "camera_height": 1.0, "pan_limits": [1.0, -1.0]}}, "lower < upper"),
])
def test_bad_profiles_name_the_field(data, message):
    with pytest.raises(ProfileError, match=message):
        parse_profile(data, "p.yaml")


def test_gripper_closure_and_torso_height():
    p = parse_profile({**BASE, "controllers": {**BASE["controllers"], "t": {"action": "/t", "joints": ["lift"]}},
                       "torso": {"controller": "t", "offset": 0.7, "min": 0.0, "max": 0.35}})
    assert p.gripper.closure(0.04) == 0.0 and p.gripper.closure(0.0) == 1.0 and p.gripper.closure(0.02) == 0.5
    assert p.torso.position_for(0.9) == pytest.approx(0.2) and p.torso.position_for(2.0) == 0.35
    assert p.torso.position_for(0.1) == 0.0


def test_head_angles_point_the_camera_at_the_fixture_top():
    table = GraphNode("table_1", "table", "fixture", (2.0, 0.0, 0.375), (1.6, -0.4, 0.0), (2.4, 0.4, 0.75))
    fridge = GraphNode("fridge_1", "fridge", "fixture", (2.0, 0.0, 0.9), (1.7, -0.3, 0.0), (2.3, 0.3, 1.8))
    assert look_target(table, 1.2) == pytest.approx((2.0, 0.0, 0.75))  # what stands on it
    assert look_target(fridge, 1.2) == pytest.approx((2.0, 0.0, 0.9))  # taller than the camera: its middle
    # facing it, 1 m away, camera 0.45 m above the top: straight ahead, down atan(0.45)
    pan, tilt = head_angles(Pose2D(1.0, 0.0, 0.0), 1.2, (2.0, 0.0, 0.75))
    assert pan == pytest.approx(0.0) and tilt == pytest.approx(math.atan2(0.45, 1.0))
    # standing beside it, the head pans; a robot whose negative tilt looks down gets the sign flipped
    pan, tilt = head_angles(Pose2D(2.0, -1.0, 0.0), 1.2, (2.0, 0.0, 0.75), tilt_down=-1.0)
    assert pan == pytest.approx(math.pi / 2) and tilt == pytest.approx(-math.atan2(0.45, 1.0))
    # behind the robot, beyond the joints' reach: clamped to the limits
    pan, tilt = head_angles(Pose2D(3.0, 0.1, 0.0), 1.2, (2.0, 0.0, 0.0), pan_limits=(-1.2, 1.2), tilt_limits=(-0.5, 0.5))
    assert pan == -1.2 and tilt == 0.5  # behind and a little to the right
