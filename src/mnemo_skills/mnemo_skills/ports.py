"""What the skill server needs from a robot, as plain interfaces (no ROS imports).

The node fills these with ROS adapters (nav2, controllers, perception and scene-graph clients);
the tests fill them with fakes. Every call that moves or waits takes a timeout and a CancelToken
and returns an Outcome instead of raising, so the core decides how a failure is reported.
"""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Optional, Protocol

from mnemo_common.types import Detection, InteractionEvent, MnemoError, Pose2D, Status


@dataclass(frozen=True)
class Outcome:
    """Result of one call to the robot: a status, a message, and the backend's own error code
    (nav2's NavigateToPose error_code, FollowJointTrajectory's error_code, ...), passed through,
    with what that code means to the skill's caller (a SkillCode; NONE when it means nothing more)."""

    code: Status = Status.OK
    message: str = ""
    backend_code: int = 0
    skill_code: int = 0

    @property
    def ok(self) -> bool:
        return self.code == Status.OK


OK = Outcome()


class CancelToken:
    """Set by a cancel request (or node shutdown); every wait in the core polls it."""

    def __init__(self) -> None:
        self._event = threading.Event()
        self.reason = ""

    def cancel(self, reason: str = "canceled") -> None:
        self.reason = reason
        self._event.set()

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()

    def wait(self, seconds: float) -> bool:
        """Sleep up to `seconds`; True when canceled meanwhile."""
        return self._event.wait(max(0.0, seconds))

    def check(self) -> None:
        if self.cancelled:
            raise MnemoError(Status.CANCELED, self.reason or "canceled")


@dataclass(frozen=True)
class GraphNode:
    """The part of a scene-graph node the skills use."""

    id: str
    label: str
    kind: str
    position: tuple[float, float, float]
    box_min: tuple[float, float, float]
    box_max: tuple[float, float, float]
    room: str = ""
    parent: str = ""

    def contains(self, p: tuple[float, float, float], margin: float = 0.0) -> bool:
        return all(lo - margin <= v <= hi + margin for v, lo, hi in zip(p, self.box_min, self.box_max))


@dataclass(frozen=True)
class JointReading:
    position: float
    effort: float = 0.0


@dataclass(frozen=True)
class TrajectoryPoint:
    positions: tuple[float, ...]
    time_from_start: float


class Clock(Protocol):
    def now(self) -> float: ...


class WallClock:
    def now(self) -> float:
        return time.monotonic()


class Navigator(Protocol):
    def navigate(self, goal: Pose2D, frame: str, timeout: float, cancel: CancelToken) -> Outcome: ...

    def current_pose(self) -> Optional[Pose2D]: ...


class MotionPlayer(Protocol):
    """Pre-recorded motions (play_motion2 on Tiago)."""

    def play(self, motion: str, timeout: float, cancel: CancelToken) -> Outcome: ...


class TrajectoryController(Protocol):
    """FollowJointTrajectory on a named controller action."""

    def follow(self, action: str, joints: list[str], points: list[TrajectoryPoint], timeout: float,
               cancel: CancelToken) -> Outcome: ...


class GripperCommander(Protocol):
    """control_msgs/GripperCommand (Robotiq on Kinova / TidyBot++)."""

    def command(self, action: str, position: float, max_effort: float, timeout: float,
                cancel: CancelToken) -> Outcome: ...


class JointStates(Protocol):
    def latest(self) -> dict[str, JointReading]: ...


class HandTracker(Protocol):
    """Position of the gripper frame in the map (TF); None when not measurable."""

    def hand_position(self) -> Optional[tuple[float, float, float]]: ...


class Perception(Protocol):
    def detect(self, query: str, timeout: float, cancel: CancelToken) -> tuple[Outcome, list[Detection], Optional[Pose2D]]: ...


class SceneGraph(Protocol):
    def find(self, target: str, timeout: float) -> tuple[Outcome, Optional[GraphNode]]: ...

    def fixtures(self, timeout: float) -> list[GraphNode]: ...


class EventSink(Protocol):
    def publish(self, event: InteractionEvent) -> None: ...


@dataclass
class RobotPorts:
    """Everything the primitives may use; a robot without an arm leaves the arm ports None."""

    navigator: Navigator
    perception: Perception
    scene_graph: SceneGraph
    events: EventSink
    motions: Optional[MotionPlayer] = None
    trajectories: Optional[TrajectoryController] = None
    gripper: Optional[GripperCommander] = None
    joints: Optional[JointStates] = None
    hand: Optional[HandTracker] = None
    clock: Clock = field(default_factory=WallClock)
