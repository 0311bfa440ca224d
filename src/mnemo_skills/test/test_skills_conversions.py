"""Result mappings of nav2 / controller / motion / gripper actions and the scene-graph node message."""
from __future__ import annotations

from mnemo_common.skill_codes import SkillCode
from mnemo_common.types import Status

from mnemo_skills.conversions import (
    GOAL_ABORTED, GOAL_CANCELED, GOAL_SUCCEEDED, graph_node_from_msg, gripper_outcome, message_constants,
    motion_outcome, nav2_code_meanings, nav2_outcome, status_outcome, trajectory_outcome,
)


def test_nav2_error_code_and_message_pass_through():
    assert nav2_outcome(GOAL_SUCCEEDED, 0, "").ok
    failed = nav2_outcome(GOAL_ABORTED, 204, "Failed to create plan")
    assert failed.code == Status.FAILED and failed.backend_code == 204
    assert "Failed to create plan" in failed.message and "204" in failed.message
    assert nav2_outcome(GOAL_CANCELED, 0, "").code == Status.CANCELED


def test_nav2_codes_are_read_by_name_as_no_path_blocked_or_timeout():
    # Each action with its own range (as in Jazzy): NavigateToPose carries the failing plugin's code.
    navigate = {"NONE": 0, "UNKNOWN": 9000, "TF_ERROR": 9002, "TIMEOUT": 9003}
    plan = {"NONE": 0, "UNKNOWN": 200, "GOAL_OCCUPIED": 206, "TIMEOUT": 207, "NO_VALID_PATH": 208}
    follow = {"NONE": 0, "UNKNOWN": 100, "PATIENCE_EXCEEDED": 104, "FAILED_TO_MAKE_PROGRESS": 105}
    meanings = nav2_code_meanings(navigate, plan, follow)
    codes = {c: nav2_outcome(GOAL_ABORTED, c, "", meanings).skill_code for c in (208, 206, 105, 104, 9003, 207, 9000)}
    assert codes == {208: SkillCode.NO_PATH, 206: SkillCode.NO_PATH, 105: SkillCode.BLOCKED, 104: SkillCode.BLOCKED,
                     9003: SkillCode.TIMEOUT, 207: SkillCode.TIMEOUT, 9000: SkillCode.NONE}
    assert nav2_outcome(GOAL_ABORTED, 208, "").skill_code == SkillCode.NONE  # without the table: no meaning
    # Releases where each action counts from 1: a value that names of different meaning share says nothing.
    plan, follow = {"NO_VALID_PATH": 8, "START_OUTSIDE_MAP": 3}, {"NO_VALID_CONTROL": 3, "INVALID_PATH": 8}
    assert nav2_code_meanings(plan, follow) == {}


def test_message_constants_of_a_generated_type():
    from mnemo_interfaces.srv import Pick

    assert message_constants(Pick.Response) == {c.name: int(c) for c in
                                                (SkillCode.NONE, SkillCode.NOT_VISIBLE, SkillCode.OUT_OF_REACH,
                                                 SkillCode.GRIPPER_OCCUPIED, SkillCode.GRASP_FAILED)}


def test_controller_motion_and_gripper_results():
    assert trajectory_outcome(GOAL_SUCCEEDED, 0, "").ok
    t = trajectory_outcome(GOAL_ABORTED, -4, "joint arm_2 off path")
    assert t.code == Status.FAILED and "PATH_TOLERANCE_VIOLATED" in t.message and t.backend_code == -4
    assert trajectory_outcome(GOAL_CANCELED, 0, "").code == Status.CANCELED
    assert motion_outcome(GOAL_SUCCEEDED, True, "").ok
    assert "unknown motion" in motion_outcome(GOAL_ABORTED, False, "unknown motion").message
    assert gripper_outcome(GOAL_SUCCEEDED, False, True).ok  # stalled on an object
    assert gripper_outcome(GOAL_ABORTED, False, True).code == Status.FAILED
    assert status_outcome(2, "no such node", "graph").code == Status.NOT_FOUND
    assert status_outcome(999, "?", "graph").code == Status.INTERNAL


def test_graph_node_message():
    from geometry_msgs.msg import Point
    from mnemo_interfaces.msg import ObjectNode

    m = ObjectNode(id="cabinet_1", label="cabinet", kind="fixture", position=Point(x=1.0, y=2.0, z=0.5),
                   box_min=Point(x=0.7, y=1.8, z=0.0), box_max=Point(x=1.3, y=2.2, z=1.0), room="kitchen",
                   parent="")
    n = graph_node_from_msg(m)
    assert (n.id, n.kind, n.position, n.box_max, n.room) == ("cabinet_1", "fixture", (1.0, 2.0, 0.5),
                                                             (1.3, 2.2, 1.0), "kitchen")
