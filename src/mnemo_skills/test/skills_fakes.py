"""Fakes of the robot's interfaces (nav2, controllers, play_motion2, gripper command, joint states,
TF, perception, scene graph) over one tiny world, recording every call the skill server makes.

They behave like the ROS adapters do: a goal that does not finish within its timeout, or is
canceled, is canceled on the "server" (recorded in world.canceled_goals) and reported as
TIMEOUT / CANCELED."""
from __future__ import annotations

import threading
from pathlib import Path
from typing import Callable, Optional

from mnemo_common.types import Detection, InteractionEvent, Pose2D, Status

from mnemo_skills.approach import approach_pose
from mnemo_skills.ports import CancelToken, GraphNode, JointReading, Outcome, RobotPorts, TrajectoryPoint
from mnemo_skills.profile import RobotProfile, load_profile

PROFILES = Path(__file__).resolve().parents[1] / "profiles"


def profile(robot: str = "tiago") -> RobotProfile:
    return load_profile(PROFILES / f"{robot}.yaml")


def fixture(id_: str, label: str, x: float, y: float, size=(0.6, 0.5, 0.9), room: str = "kitchen") -> GraphNode:
    sx, sy, sz = size
    return GraphNode(id_, label, "fixture", (x, y, sz / 2), (x - sx / 2, y - sy / 2, 0.0), (x + sx / 2, y + sy / 2, sz),
                     room)


def obj(id_: str, label: str, pos, parent: str = "") -> GraphNode:
    x, y, z = pos
    return GraphNode(id_, label, "object", pos, (x - 0.04, y - 0.04, z - 0.05), (x + 0.04, y + 0.04, z + 0.05),
                     "kitchen", parent)


class FakeWorld:
    def __init__(self, prof: RobotProfile):
        self.profile = prof
        g = prof.gripper
        self.joints = {j: JointReading(g.open_position, 0.0) for j in g.joints} if g else {}
        self.hand = (0.0, 0.0, 0.8)
        self.pose = Pose2D(0.0, 0.0, 0.0)
        self.graspable = True  # the next close meets a handle or an object
        self.locked = False
        self.slips = False
        self.grasped = False
        self.calls: list[tuple] = []
        self.canceled_goals: list[tuple] = []
        self.hang: Optional[Callable[[str, str], bool]] = None  # (kind, name) -> never finishes
        self.fail: Optional[Callable[[str, str], Optional[Outcome]]] = None
        self.hanging = threading.Event()
        self.nodes = {n.id: n for n in (
            fixture("cabinet_1", "cabinet", 3.0, 1.0), fixture("table_1", "table", 0.0, 4.0, (1.2, 0.8, 0.75)),
            obj("mug_1", "mug", (0.1, 4.1, 0.8), parent="table_1"),
            obj("cup_2", "cup", (3.05, 1.0, 0.4), parent="cabinet_1"))}
        self.detections = [
            Detection("mug", 0.9, centroid=(0.1, 4.1, 0.8), node_id="mug_1"),
            Detection("cup", 0.8, centroid=(3.05, 1.0, 0.4), node_id="cup_2"),
            Detection("cabinet", 0.95, kind="fixture", centroid=(3.0, 1.0, 0.45), node_id="cabinet_1"),
            Detection("plate", 0.7, centroid=(5.0, 5.0, 0.9)),
        ]
        self.events: list[InteractionEvent] = []

    # -- shared behaviour ---------------------------------------------------------------
    def _call(self, kind: str, name: str, timeout: float, cancel: CancelToken, detail=None) -> Optional[Outcome]:
        self.calls.append((kind, name, detail))
        if self.hang is not None and self.hang(kind, name):
            self.hanging.set()
            canceled = cancel.wait(timeout)
            self.canceled_goals.append((kind, name))
            return Outcome(Status.CANCELED, "goal canceled") if canceled else Outcome(Status.TIMEOUT, "goal timed out")
        if self.fail is not None:
            return self.fail(kind, name)
        return None

    def stand_at(self, fixture_id: str, standoff: float = 0.55) -> None:
        """Put the base where navigate would leave it at the fixture, without a call."""
        self.pose = approach_pose(self.nodes[fixture_id], standoff, self.pose)

    def moves(self) -> list[tuple]:
        return [c for c in self.calls if c[0] in ("navigate", "trajectory", "motion", "gripper")]

    def set_gripper(self, close: bool) -> None:
        g = self.profile.gripper
        if close and self.graspable:
            pos, effort, self.grasped = g.open_position + 0.5 * (g.closed_position - g.open_position), 8.0, True
        elif close:
            pos, effort, self.grasped = g.closed_position, 0.5, False
        else:
            pos, effort, self.grasped = g.open_position, 0.0, False
        self.joints = {j: JointReading(pos, effort) for j in g.joints}

    def arm_moved(self) -> Outcome:
        if self.grasped and self.locked:
            return Outcome(Status.FAILED, "PATH_TOLERANCE_VIOLATED", -4)
        if self.grasped:
            x, y, z = self.hand
            self.hand = (x - 0.2, y, z)
            if self.slips:
                g = self.profile.gripper
                self.joints = {j: JointReading(g.closed_position, 0.2) for j in g.joints}
                self.grasped = False
        return Outcome()


class FakeNavigator:
    def __init__(self, world: FakeWorld):
        self.world = world
        self.result: Optional[Outcome] = None  # scripted failure

    def navigate(self, goal: Pose2D, frame: str, timeout: float, cancel: CancelToken) -> Outcome:
        out = self.world._call("navigate", frame, timeout, cancel, goal)
        if out is not None:
            return out
        if self.result is not None:
            return self.result
        self.world.pose = goal
        return Outcome()

    def current_pose(self) -> Optional[Pose2D]:
        return self.world.pose


class FakeMotions:
    def __init__(self, world: FakeWorld):
        self.world = world

    def play(self, motion: str, timeout: float, cancel: CancelToken) -> Outcome:
        return self.world._call("motion", motion, timeout, cancel) or Outcome()


class FakeTrajectories:
    def __init__(self, world: FakeWorld):
        self.world = world

    def follow(self, action: str, joints: list[str], points: list[TrajectoryPoint], timeout: float,
               cancel: CancelToken) -> Outcome:
        w = self.world
        kind = "gripper" if w.profile.gripper and list(joints) == list(w.profile.gripper.joints) else "trajectory"
        out = w._call(kind, action, timeout, cancel, (tuple(joints), points[-1].positions, timeout))
        if out is not None:
            return out
        if kind == "gripper":
            w.set_gripper(close=points[-1].positions[0] == w.profile.gripper.closed_position)
            return Outcome()
        if "arm" in action or "joint_trajectory" in action:
            return w.arm_moved()
        return Outcome()


class FakeGripperCommand:
    def __init__(self, world: FakeWorld):
        self.world = world

    def command(self, action: str, position: float, max_effort: float, timeout: float, cancel: CancelToken) -> Outcome:
        w = self.world
        out = w._call("gripper", action, timeout, cancel, (position, max_effort))
        if out is not None:
            return out
        w.set_gripper(close=position == w.profile.gripper.closed_position)
        return Outcome()


class FakeJoints:
    def __init__(self, world: FakeWorld):
        self.world = world

    def latest(self) -> dict[str, JointReading]:
        return dict(self.world.joints)


class FakeHand:
    def __init__(self, world: FakeWorld):
        self.world = world

    def hand_position(self):
        return self.world.hand


class FakePerception:
    def __init__(self, world: FakeWorld):
        self.world = world

    def detect(self, query: str, timeout: float, cancel: CancelToken):
        out = self.world._call("detect", query, timeout, cancel)
        if out is not None:
            return out, [], None
        found = [d for d in self.world.detections if not query or d.label == query]
        return Outcome(), found, self.world.pose


class FakeSceneGraph:
    def __init__(self, world: FakeWorld):
        self.world = world

    def find(self, target: str, timeout: float):
        self.world.calls.append(("graph", target, None))
        if target in self.world.nodes:
            return Outcome(), self.world.nodes[target]
        by_label = [n for n in self.world.nodes.values() if n.label == target]
        return Outcome(), (by_label[0] if len(by_label) == 1 else None)

    def fixtures(self, timeout: float):
        return [n for n in self.world.nodes.values() if n.kind == "fixture"]


class FakeEvents:
    def __init__(self, world: FakeWorld):
        self.world = world

    def publish(self, event: InteractionEvent) -> None:
        self.world.events.append(event)


def make_ports(world: FakeWorld, with_hand: bool = True) -> RobotPorts:
    return RobotPorts(navigator=FakeNavigator(world), perception=FakePerception(world),
                      scene_graph=FakeSceneGraph(world), events=FakeEvents(world), motions=FakeMotions(world),
                      trajectories=FakeTrajectories(world), gripper=FakeGripperCommand(world),
                      joints=FakeJoints(world), hand=FakeHand(world) if with_hand else None)
