"""Plain data types shared by every mnemo core (no ROS imports).

Times are float seconds on the robot's clock. In the built-in simulator that clock is
seconds since day 0 00:00 of the scenario; on a robot it is ROS time.
Positions are metres in the map frame.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from enum import IntEnum
from typing import Optional

import numpy as np

# Perception modes of a stack against the simulator: "oracle" hands every node the simulator's own
# observations (instance ids, supports, authored attributes: an upper bound); "honest" publishes raw
# sensor data only, and identity is what the scene graph associates from perception's detections.
PERCEPTION_MODES = ("oracle", "honest")


def check_perception_mode(mode: str) -> str:
    if mode not in PERCEPTION_MODES:
        raise ValueError(f"perception must be one of {PERCEPTION_MODES}, got {mode!r}")
    return mode


class Status(IntEnum):
    """Mirrors mnemo_interfaces/msg/Status codes."""

    OK = 0
    INVALID_ARGUMENT = 1
    NOT_FOUND = 2
    UNAVAILABLE = 3
    FAILED = 4
    TIMEOUT = 5
    CANCELED = 6
    REJECTED = 7
    INTERNAL = 8


class MnemoError(Exception):
    """An error a service reports to its caller: a status code and a message."""

    def __init__(self, code: Status, message: str):
        super().__init__(message)
        self.code = Status(code)
        self.message = message


def invalid(message: str) -> MnemoError:
    return MnemoError(Status.INVALID_ARGUMENT, message)


def not_found(message: str) -> MnemoError:
    return MnemoError(Status.NOT_FOUND, message)


@dataclass(frozen=True)
class Pose2D:
    x: float
    y: float
    yaw: float = 0.0

    def distance_to(self, x: float, y: float) -> float:
        return math.hypot(self.x - x, self.y - y)

    def is_finite(self) -> bool:
        return all(math.isfinite(v) for v in (self.x, self.y, self.yaw))


@dataclass(frozen=True)
class Pose3D:
    """Position and orientation quaternion in ROS order (x, y, z, w)."""

    position: tuple[float, float, float] = (0.0, 0.0, 0.0)
    orientation: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 1.0)

    def is_finite(self) -> bool:
        return all(math.isfinite(v) for v in (*self.position, *self.orientation))


@dataclass
class Sighting:
    """One object seen in one observation."""

    label: str
    position: tuple[float, float, float]
    attributes: dict[str, str] = field(default_factory=dict)
    kind: str = "object"  # "object" | "fixture"
    object_id: str = ""  # instance id (oracle) or scene-graph node id
    support: str = ""  # fixture it rests on or in, when known
    relation: str = ""  # "on" | "in"
    score: float = 1.0


@dataclass
class Observation:
    """What the robot observed at one instant."""

    stamp: float
    robot_pose: Pose2D
    camera_pose: Pose3D
    room: str = ""
    sightings: list[Sighting] = field(default_factory=list)
    caption: str = ""
    image_ref: str = ""
    seq: int = 0


@dataclass
class MemoryFilter:
    since: Optional[float] = None
    until: Optional[float] = None
    room: str = ""
    labels: list[str] = field(default_factory=list)
    near: Optional[tuple[float, float]] = None
    radius: float = 0.0


@dataclass
class MemoryRecord:
    """m_t = (t, x_t, embed(o_t), o_t): one long-term memory record."""

    id: str
    stamp: float
    robot_pose: Pose2D
    camera_pose: Pose3D
    caption: str
    room: str = ""
    labels: list[str] = field(default_factory=list)
    sightings: list[Sighting] = field(default_factory=list)
    raw_ref: str = ""
    embedding: Optional[np.ndarray] = None
    score: float = 0.0
    # Compaction merges consecutive near-identical observations of one place into one record: it
    # held from ``stamp`` to ``last_stamp`` (None: a single observation), seen ``count`` times;
    # ``raw_ref_last`` is the last merged observation's raw reference.
    last_stamp: Optional[float] = None
    count: int = 1
    raw_ref_last: str = ""
    # Text search: index in ``sightings`` of the object sighting that matched the query (-1: the view did).
    matched_sighting: int = -1

    @property
    def span(self) -> tuple[float, float]:
        """(first, last) time this record's observation held."""
        return self.stamp, self.stamp if self.last_stamp is None else self.last_stamp


@dataclass
class Detection:
    """One object detected in a camera frame, placed in the map frame."""

    label: str
    score: float
    kind: str = "object"  # "object" | "fixture"
    box_2d: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)
    mask_area: int = 0
    centroid: tuple[float, float, float] = (0.0, 0.0, 0.0)
    box_min: tuple[float, float, float] = (0.0, 0.0, 0.0)
    box_max: tuple[float, float, float] = (0.0, 0.0, 0.0)
    attributes: dict[str, str] = field(default_factory=dict)
    instance_id: str = ""
    node_id: str = ""
    mask: Optional[np.ndarray] = None  # HxW bool, never sent over ROS


def with_node_color(detection: Detection, color: str) -> Detection:
    """A copy of a detection that names a scene-graph node, with the node's colour in place of the one
    measured in this frame: the graph weighs every sighting's colour by its pixels, so one frame under
    an odd light or a glimpse of a shaded side does not rename a thing seen well before. A node without
    a colour, or a detection without a measured one, leaves the attributes as they are."""
    if not color or "color" not in detection.attributes:
        return replace(detection)
    return replace(detection, attributes={**detection.attributes, "color": color})


@dataclass
class SkillSignals:
    """What a skill felt while acting: the inputs of the interaction analyzer."""

    contact: bool = False
    joint_displacement: float = 0.0
    gripper_closure: float = 0.0
    gripper_effort: float = 0.0
    duration: float = 0.0


@dataclass
class SkillResult:
    """Outcome of one physical skill (navigate, detect, open, close, peek, pick, place)."""

    skill: str
    target: str
    success: bool
    code: Status = Status.OK
    message: str = ""
    signals: SkillSignals = field(default_factory=SkillSignals)
    robot_pose: Optional[Pose2D] = None
    at_fixture: str = ""
    room: str = ""
    detections: list[Detection] = field(default_factory=list)
    picked_id: str = ""
    picked_label: str = ""
    interaction_id: str = ""
    outcome: int = 0  # the service's result_code: a mnemo_common.skill_codes.SkillCode value
    reachable_from: str = ""  # pick OUT_OF_REACH: the fixture to stand at, when known


@dataclass
class InteractionEvent:
    """One physical interaction, as the interaction analyzer receives it."""

    id: str
    action: str
    target: str
    start: float
    end: float
    success: bool
    code: Status = Status.OK
    message: str = ""
    signals: SkillSignals = field(default_factory=SkillSignals)
    seen_contents: list[str] = field(default_factory=list)
    picked_id: str = ""
    frame_refs: list[str] = field(default_factory=list)
    robot_pose: Optional[Pose2D] = None


@dataclass
class PropertyValue:
    value: str
    confidence: float = 1.0
    source: str = "perception"
    stamp: float = 0.0


@dataclass
class KeyframeMeta:
    id: str
    stamp: float
    trigger: str
    image_path: str = ""
    thumbnail_path: str = ""
    run_id: str = ""
    camera: str = "head"
    action: str = ""
    parent_id: str = ""
    node_ids: list[str] = field(default_factory=list)
    robot_pose: Optional[Pose2D] = None
    tags: list[str] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)
    caption: str = ""
    score: float = 0.0


@dataclass
class PlannerStep:
    """One (action, outcome) pair of the planner's working memory."""

    index: int
    tool: str
    arguments: dict[str, str]
    ok: bool
    outcome: str
    remaining_budget: int
    duration: float = 0.0
