"""Scene-graph messages for the skill server, and the mapping of the robot's action results
(nav2, FollowJointTrajectory, play_motion2, GripperCommand) to Outcomes.

The result mappings take plain values (goal status, error code, message), so they are tested
without nav2 or control_msgs installed."""
from __future__ import annotations

from typing import Mapping

from mnemo_common.ros import point_from_msg
from mnemo_common.skill_codes import SkillCode
from mnemo_common.types import Status

from mnemo_skills.ports import GraphNode, Outcome

# action_msgs/GoalStatus values (fixed by the ROS 2 action design).
GOAL_SUCCEEDED, GOAL_CANCELED, GOAL_ABORTED = 4, 5, 6

# control_msgs/FollowJointTrajectory result codes.
FJT_ERRORS = {0: "SUCCESSFUL", -1: "INVALID_GOAL", -2: "INVALID_JOINTS", -3: "OLD_HEADER_TIMESTAMP",
              -4: "PATH_TOLERANCE_VIOLATED", -5: "GOAL_TOLERANCE_VIOLATED"}


# What nav2's error names mean to a Navigate caller. NavigateToPose's result carries the failing
# planner's (ComputePathToPose) or controller's (FollowPath) code; the values differ between nav2
# releases, the names do not.
NAV2_MEANINGS = {
    "NO_VALID_PATH": SkillCode.NO_PATH, "START_OUTSIDE_MAP": SkillCode.NO_PATH, "GOAL_OUTSIDE_MAP": SkillCode.NO_PATH,
    "START_OCCUPIED": SkillCode.NO_PATH, "GOAL_OCCUPIED": SkillCode.NO_PATH,
    "FAILED_TO_MAKE_PROGRESS": SkillCode.BLOCKED, "NO_VALID_CONTROL": SkillCode.BLOCKED,
    "PATIENCE_EXCEEDED": SkillCode.BLOCKED, "TIMEOUT": SkillCode.TIMEOUT,
}


def message_constants(msg_type) -> dict[str, int]:
    """The integer constants (``uint16 NO_VALID_PATH=208``) a generated message class declares."""
    return {n: v for n, v in vars(msg_type).items() if n.isupper() and "__" not in n and isinstance(v, int)}


def nav2_code_meanings(*constants: Mapping[str, int]) -> dict[int, SkillCode]:
    """nav2 error_code value -> SkillCode, from the constants (name -> value) of nav2's result types.
    A value that names of different meaning share (releases where each action counts from 1) is left out."""
    meanings: dict[int, set] = {}
    for table in constants:
        for name, value in table.items():
            if value:
                meanings.setdefault(int(value), set()).add(NAV2_MEANINGS.get(name, SkillCode.NONE))
    return {value: m.pop() for value, m in meanings.items() if len(m) == 1 and SkillCode.NONE not in m}


def nav2_outcome(status: int, error_code: int, error_msg: str,
                 meanings: Mapping[int, SkillCode] = {}) -> Outcome:  # noqa: B006 - read only
    """NavigateToPose: nav2's own error code and message pass through in the Outcome, with what
    the code means (``meanings``, from ``nav2_code_meanings``)."""
    if status == GOAL_SUCCEEDED and error_code == 0:
        return Outcome()
    if status == GOAL_CANCELED:
        return Outcome(Status.CANCELED, f"nav2 canceled the goal{': ' + error_msg if error_msg else ''}", error_code)
    return Outcome(Status.FAILED, f"nav2 failed: {error_msg or 'no message'} (nav2 error_code {error_code})",
                   error_code, int(meanings.get(error_code, SkillCode.NONE)))


def trajectory_outcome(status: int, error_code: int, error_string: str) -> Outcome:
    if status == GOAL_SUCCEEDED and error_code == 0:
        return Outcome()
    name = FJT_ERRORS.get(error_code, str(error_code))
    if status == GOAL_CANCELED:
        return Outcome(Status.CANCELED, f"trajectory canceled ({name})", error_code)
    return Outcome(Status.FAILED, f"{name}{': ' + error_string if error_string else ''}", error_code)


def motion_outcome(status: int, success: bool, error: str) -> Outcome:
    if status == GOAL_SUCCEEDED and success:
        return Outcome()
    if status == GOAL_CANCELED:
        return Outcome(Status.CANCELED, "motion canceled")
    return Outcome(Status.FAILED, f"motion failed: {error or 'no message'}")


def gripper_outcome(status: int, reached_goal: bool, stalled: bool) -> Outcome:
    if status == GOAL_SUCCEEDED and (reached_goal or stalled):
        return Outcome()
    if status == GOAL_CANCELED:
        return Outcome(Status.CANCELED, "gripper command canceled")
    return Outcome(Status.FAILED, "gripper stalled before its goal" if stalled else "gripper command failed")


def status_outcome(error_code: int, error_msg: str, what: str) -> Outcome:
    """A mnemo service response's error_code/error_msg as an Outcome."""
    try:
        code = Status(int(error_code))
    except ValueError:
        code = Status.INTERNAL
    return Outcome() if code == Status.OK else Outcome(code, f"{what}: {error_msg}")


def graph_node_from_msg(m) -> GraphNode:
    return GraphNode(id=m.id, label=m.label, kind=m.kind, position=point_from_msg(m.position),
                     box_min=point_from_msg(m.box_min), box_max=point_from_msg(m.box_max), room=m.room,
                     parent=m.parent)
