"""What one running skill can do: run profile steps on the robot's ports, ask the operator,
read the gripper, resolve targets in the scene graph, all bounded by the skill's deadline."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional

from mnemo_common.types import MnemoError, Status

from mnemo_skills.gate import Decision, OperatorGate
from mnemo_skills.ports import CancelToken, GraphNode, Outcome, RobotPorts, TrajectoryPoint
from mnemo_skills.profile import GripperStep, MotionStep, RobotProfile, Step, TorsoStep, TrajectoryStep


@dataclass(frozen=True)
class SkillSettings:
    """The skill server's knobs (the node fills them from its parameters)."""

    map_frame: str = "map"
    navigate_timeout: float = 120.0  # default when a Navigate request gives none
    skill_timeout: float = 90.0  # whole manipulation primitive
    step_timeout: float = 30.0  # one controller / motion goal
    service_timeout: float = 5.0  # perception and scene-graph calls
    operator_timeout: float = 60.0
    gated_skills: tuple[str, ...] = ("navigate", "open", "close", "peek", "pick", "place")
    approach_standoff: float = 0.55
    obstacle_clearance: float = 0.25
    contents_margin: float = 0.05
    reach: float = 0.9  # m from the base to what the arm can act on (approach_standoff plus nav2's goal tolerance)


# Outcomes that stop a skill at once: the robot must not keep moving after these.
HARD_STOPS = (Status.CANCELED, Status.TIMEOUT, Status.UNAVAILABLE)


class SkillContext:
    def __init__(self, skill: str, target: str, ports: RobotPorts, profile: RobotProfile,
                 settings: SkillSettings, gate: OperatorGate, cancel: CancelToken, timeout: float):
        self.skill, self.target = skill, target
        self.ports, self.profile, self.settings, self.gate, self.cancel = ports, profile, settings, gate, cancel
        self.start = ports.clock.now()
        self.timeout = timeout
        self.deadline = self.start + timeout
        self.acted = False  # the operator approved and the robot started moving

    # -- time -------------------------------------------------------------------------
    def remaining(self) -> float:
        return self.deadline - self.ports.clock.now()

    def bounded(self, limit: float) -> float:
        left = self.remaining()
        if left <= 0:
            raise MnemoError(Status.TIMEOUT, f"{self.skill} did not finish within {self.timeout:.1f} s")
        return min(limit, left)

    def check(self) -> None:
        self.cancel.check()
        self.bounded(math.inf)

    @staticmethod
    def describe(outcome: Outcome, what: str) -> str:
        code = f" (code {outcome.backend_code})" if outcome.backend_code else ""
        return f"{what}: {outcome.message}{code}"

    @classmethod
    def must(cls, outcome: Outcome, what: str) -> Outcome:
        if not outcome.ok:
            raise MnemoError(outcome.code, cls.describe(outcome, what))
        return outcome

    # -- operator ---------------------------------------------------------------------
    def ask_operator(self, description: str) -> None:
        """Block until the operator approves; raise REJECTED on a rejection or no answer in time."""
        self.check()
        if self.skill in self.settings.gated_skills and self.gate.enabled:
            action_id = f"{self.skill}:{self.target}:{int(self.ports.clock.now() * 1000) % 10**9}"
            decision = self.gate.request(action_id, description, self.settings.operator_timeout, self.cancel)
            if decision is Decision.CANCELED:
                self.cancel.check()
            if decision is Decision.REJECTED:
                raise MnemoError(Status.REJECTED, f"the operator rejected: {description}")
            if decision is Decision.TIMEOUT:
                raise MnemoError(Status.REJECTED, f"no operator confirmation within "
                                                  f"{self.settings.operator_timeout:.1f} s: {description}")
        self.acted = True
        # The operator's time does not count against the skill's own timeout.
        self.deadline = self.ports.clock.now() + self.timeout

    # -- scene graph ------------------------------------------------------------------
    def find(self, target: str) -> Optional[GraphNode]:
        if not target.strip():
            raise MnemoError(Status.INVALID_ARGUMENT, f"{self.skill}: empty target")
        outcome, node = self.ports.scene_graph.find(target, self.bounded(self.settings.service_timeout))
        self.must(outcome, "scene graph")
        return node

    def fixture(self, target: str) -> GraphNode:
        node = self.find(target)
        if node is None:
            raise MnemoError(Status.NOT_FOUND, f"no fixture {target!r} in the scene graph")
        if node.kind != "fixture":
            raise MnemoError(Status.INVALID_ARGUMENT, f"{target!r} is a {node.kind}, not a fixture")
        return node

    def within_reach(self, box_min: tuple[float, ...], box_max: tuple[float, ...]) -> bool:
        """Whether the base stands within ``settings.reach`` (in the map plane) of a box: a fixture's
        footprint, or a point for an object. True when the base pose is unknown: the arm finds out."""
        pose = self.ports.navigator.current_pose()
        if pose is None:
            return True
        dx = max(box_min[0] - pose.x, 0.0, pose.x - box_max[0])
        dy = max(box_min[1] - pose.y, 0.0, pose.y - box_max[1])
        return math.hypot(dx, dy) <= self.settings.reach

    def require_primitive(self) -> None:
        if not self.profile.supports(self.skill):
            raise MnemoError(Status.UNAVAILABLE, f"the {self.profile.robot} profile has no {self.skill} primitive")

    # -- motion -----------------------------------------------------------------------
    def run_step(self, step: Step, height: Optional[float]) -> Outcome:
        self.check()
        p, ports, timeout = self.profile, self.ports, self.bounded(self.settings.step_timeout)
        if isinstance(step, MotionStep):
            if ports.motions is None:
                return Outcome(Status.UNAVAILABLE, "no motion player on this robot")
            return ports.motions.play(step.motion, timeout, self.cancel)
        if isinstance(step, TrajectoryStep):
            if ports.trajectories is None:
                return Outcome(Status.UNAVAILABLE, "no trajectory controllers on this robot")
            c = p.controllers[step.controller]
            return ports.trajectories.follow(c.action, list(c.joints), list(step.points), timeout, self.cancel)
        if isinstance(step, TorsoStep):
            if height is None or p.torso is None:
                return Outcome()
            c = p.controllers[p.torso.controller]
            point = TrajectoryPoint((p.torso.position_for(height),), p.torso.duration)
            if ports.trajectories is None:
                return Outcome(Status.UNAVAILABLE, "no trajectory controllers on this robot")
            return ports.trajectories.follow(c.action, list(c.joints), [point], timeout, self.cancel)
        if isinstance(step, GripperStep):
            return self._gripper(step.close, timeout)
        raise TypeError(f"unknown step {step!r}")

    def _gripper(self, close: bool, timeout: float) -> Outcome:
        g, ports = self.profile.gripper, self.ports
        assert g is not None  # the profile parser guarantees it for gripper steps
        target = g.closed_position if close else g.open_position
        if g.command_action:
            if ports.gripper is None:
                return Outcome(Status.UNAVAILABLE, "no gripper command interface on this robot")
            return ports.gripper.command(g.command_action, target, g.max_effort, timeout, self.cancel)
        if ports.trajectories is None:
            return Outcome(Status.UNAVAILABLE, "no trajectory controllers on this robot")
        c = self.profile.controllers[g.controller]
        point = TrajectoryPoint(tuple(target for _ in c.joints), g.duration)
        return ports.trajectories.follow(c.action, list(c.joints), [point], timeout, self.cancel)

    def run_phase(self, phase: str, height: Optional[float] = None, tolerate_failure: bool = False) -> Outcome:
        """Run a phase's steps in order. The first outcome that is not OK ends the phase and is
        returned; it raises when it is a hard stop, or any failure unless `tolerate_failure`
        (a gripper that stalls on an object, an arm that cannot pull a locked door: the signals,
        not the controller, decide what happened)."""
        for i, step in enumerate(self.profile.phase(self.skill, phase)):
            outcome = self.run_step(step, height)
            if not outcome.ok:
                if outcome.code in HARD_STOPS or not tolerate_failure:
                    self.must(outcome, f"{self.skill} {phase} step {i + 1}")
                return outcome
        return Outcome()

    # -- signals ----------------------------------------------------------------------
    def gripper_reading(self) -> tuple[float, float]:
        """(closure 0..1, mean absolute effort) of the gripper joints from the joint states."""
        g = self.profile.gripper
        if g is None:
            return 0.0, 0.0
        readings = self.ports.joints.latest() if self.ports.joints is not None else {}
        found = [readings[j] for j in g.joints if j in readings]
        if not found:
            raise MnemoError(Status.UNAVAILABLE, f"no joint states for the gripper joints {list(g.joints)}")
        closure = sum(g.closure(r.position) for r in found) / len(found)
        effort = sum(abs(r.effort) for r in found) / len(found)
        return closure, effort

    def holds_something(self, closure: float) -> bool:
        g = self.profile.gripper
        return g is not None and closure < g.contact_below
