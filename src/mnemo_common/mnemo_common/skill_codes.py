"""Typed skill outcomes: the ``result_code`` constants of the skill services, in one place.

A skill's ``error_code`` (``Status``) says what stopped it (INVALID_ARGUMENT, NOT_FOUND, REJECTED,
TIMEOUT, ...); its ``result_code`` says what its own execution found, so a planner branches on a
code, never on ``error_msg`` text. A code means the same on every skill that declares it; each
service's .srv declares the codes it can return (``SKILL_CODES``, checked by a test). NONE with a
failed ``error_code``: nothing more specific than the error code is known.

A skill reports what it felt, not what it means: Open/Close report NO_MOTION (gripper closed and
pulled, the fixture did not move) whether the fixture is locked or the grasp missed or slipped; the
signals tell which, and the interaction analyzer decides.
"""
from __future__ import annotations

from enum import IntEnum


class SkillCode(IntEnum):
    NONE = 0
    # where the robot is, or can go
    UNKNOWN_TARGET = 101  # no fixture, object or pose by that name
    NO_PATH = 102  # the planner found no path to the goal
    BLOCKED = 103  # the way is blocked: the base stopped making progress
    TIMEOUT = 104  # the goal was not reached in time
    NOT_AT_FIXTURE = 105  # acting on a fixture the robot does not stand at: navigate there first
    OUT_OF_REACH = 106  # seen but out of the arm's reach; ``reachable_from`` names where to stand, when known
    # what the robot sees
    NOT_VISIBLE = 201  # nothing matching in view
    # the gripper
    GRIPPER_OCCUPIED = 301  # the gripper holds an object: place it first
    GRIPPER_EMPTY = 302  # nothing held to place
    GRASP_FAILED = 303  # the gripper closed on nothing, or the object slipped out
    # the fixture
    NOT_OPENABLE = 401  # the fixture has no door or drawer
    NO_MOTION = 402  # gripper closed and pulled/pushed, the fixture did not move
    CONTAINER_CLOSED = 403  # the container is closed: open it first
    ALREADY_OPEN = 404  # success: nothing to do
    ALREADY_CLOSED = 405  # success: nothing to do


_FIXTURE = (SkillCode.NOT_AT_FIXTURE, SkillCode.GRIPPER_OCCUPIED, SkillCode.NOT_OPENABLE, SkillCode.NO_MOTION)
SKILL_CODES: dict[str, tuple[SkillCode, ...]] = {
    "navigate": (SkillCode.NONE, SkillCode.UNKNOWN_TARGET, SkillCode.NO_PATH, SkillCode.BLOCKED, SkillCode.TIMEOUT),
    "detect": (SkillCode.NONE,),
    "open": (SkillCode.NONE, *_FIXTURE, SkillCode.ALREADY_OPEN),
    "close": (SkillCode.NONE, *_FIXTURE, SkillCode.ALREADY_CLOSED),
    "peek": (SkillCode.NONE, SkillCode.NOT_AT_FIXTURE, SkillCode.CONTAINER_CLOSED),
    "pick": (SkillCode.NONE, SkillCode.NOT_VISIBLE, SkillCode.OUT_OF_REACH, SkillCode.GRIPPER_OCCUPIED,
             SkillCode.GRASP_FAILED),
    "place": (SkillCode.NONE, SkillCode.GRIPPER_EMPTY, SkillCode.NOT_AT_FIXTURE, SkillCode.CONTAINER_CLOSED),
}
