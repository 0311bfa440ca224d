"""The seven primitives, each a small strategy class the server holds by name and a deployment
may replace (e.g. a MoveIt-based Pick). A strategy returns a SkillResult, with its ``outcome``
(a SkillCode), for what the robot found (not at the fixture, the gripper occupied, a fixture that
did not move, an object out of reach) and raises MnemoError for everything that stops it (rejected,
timeout, canceled, a controller error)."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional, Protocol

from mnemo_common.skill_codes import SkillCode
from mnemo_common.types import Detection, MnemoError, Pose2D, SkillResult, SkillSignals, Status

from mnemo_skills.approach import approach_pose, head_angles, look_target
from mnemo_skills.context import SkillContext
from mnemo_skills.ports import GraphNode, TrajectoryPoint


@dataclass
class HeldObject:
    id: str
    label: str


@dataclass
class RobotState:
    """What the server remembers between skills: what the gripper holds."""

    held: Optional[HeldObject] = None
    last_fixture: str = ""


class Primitive(Protocol):
    def run(self, ctx: SkillContext, state: RobotState, target: str, **kwargs) -> SkillResult: ...


class NavigateToTarget:
    """nav2 to a fixture's approach pose, to an object's fixture, or to a given pose."""

    def run(self, ctx: SkillContext, state: RobotState, target: str, pose: Optional[Pose2D] = None,
            **_) -> SkillResult:
        ports, node = ctx.ports, None
        if target.strip():
            node = ctx.find(target)
            if node is None:
                return SkillResult("navigate", target, False, Status.NOT_FOUND, f"no {target!r} in the scene graph",
                                   outcome=SkillCode.UNKNOWN_TARGET)
            if node.kind != "fixture" and node.parent:
                parent = ctx.find(node.parent)
                node = parent or node
            obstacles = ports.scene_graph.fixtures(ctx.bounded(ctx.settings.service_timeout))
            goal = approach_pose(node, ctx.settings.approach_standoff, ports.navigator.current_pose(),
                                 obstacles, ctx.settings.obstacle_clearance)
            where = f"{node.id} ({node.label})"
        else:
            if pose is None or not pose.is_finite():
                raise MnemoError(Status.INVALID_ARGUMENT, "navigate needs a target or a finite pose")
            goal, where = pose, f"x={pose.x:.2f} y={pose.y:.2f} yaw={pose.yaw:.2f}"
        ctx.ask_operator(f"drive to {where}: goal x={goal.x:.2f} y={goal.y:.2f} yaw={goal.yaw:.2f}")
        outcome = ports.navigator.navigate(goal, ctx.settings.map_frame, ctx.bounded(math.inf), ctx.cancel)
        if outcome.code in (Status.FAILED, Status.TIMEOUT):  # no path, blocked, out of time: typed for the caller
            code = SkillCode.TIMEOUT if outcome.code == Status.TIMEOUT else outcome.skill_code
            return SkillResult("navigate", target, False, outcome.code, ctx.describe(outcome, "nav2"), outcome=code,
                               robot_pose=ports.navigator.current_pose())
        ctx.must(outcome, "nav2")
        at = node.id if node is not None and node.kind == "fixture" else ""
        state.last_fixture = at
        pose = ports.navigator.current_pose() or goal
        note = self._look_at(ctx, node, pose) if at else ""
        return SkillResult("navigate", target, True, robot_pose=pose, at_fixture=at, room=node.room if node else "",
                           message=note)

    @staticmethod
    def _look_at(ctx: SkillContext, node: GraphNode, pose: Pose2D) -> str:
        """Point the head at the fixture (profiles with a ``look`` section), so the next view
        shows what lies on or in it. The robot has arrived either way: a head that does not move
        is reported in the message, not as a failed navigation."""
        look, ports = ctx.profile.look, ctx.ports
        if look is None or ports.trajectories is None:
            return ""
        height = look.camera_height
        torso = ctx.profile.torso
        if torso is not None and ports.joints is not None:
            joint = ctx.profile.controllers[torso.controller].joints[0]
            reading = ports.joints.latest().get(joint)
            height += reading.position if reading is not None else 0.0
        pan, tilt = head_angles(pose, height, look_target(node, height), look.tilt_down, look.pan_limits,
                                look.tilt_limits)
        c = ctx.profile.controllers[look.controller]
        left = ctx.remaining()
        if left <= 0:
            return f"arrived; no time left to turn the head to {node.id}"
        outcome = ports.trajectories.follow(c.action, list(c.joints), [TrajectoryPoint((pan, tilt), look.duration)],
                                            min(ctx.settings.step_timeout, left), ctx.cancel)
        if outcome.ok:
            return ""
        ctx.cancel.check()  # a cancel while the head moved cancels the skill
        return f"arrived; the head did not turn to {node.id}: {outcome.message or outcome.code.name}"


class DetectWithPerception:
    """Ask the perception node about the current view."""

    def run(self, ctx: SkillContext, state: RobotState, target: str, **_) -> SkillResult:
        ctx.ask_operator(f"detect {target!r}")  # gated only when listed in gated_skills
        outcome, detections, pose = ctx.ports.perception.detect(
            target, ctx.bounded(ctx.settings.service_timeout), ctx.cancel)
        ctx.must(outcome, "perception")
        return SkillResult("detect", target, True, detections=detections,
                           robot_pose=pose or ctx.ports.navigator.current_pose())


def not_at_fixture(ctx: SkillContext, node: GraphNode) -> Optional[SkillResult]:
    """NOT_AT_FIXTURE when the base does not stand within reach of the fixture."""
    if ctx.within_reach(node.box_min, node.box_max):
        return None
    return SkillResult(ctx.skill, ctx.target, False, Status.FAILED, f"not at {node.id}: navigate there first",
                       outcome=SkillCode.NOT_AT_FIXTURE)


def seen_state(ctx: SkillContext, node: GraphNode, detections: Optional[list[Detection]] = None) -> str:
    """"open" or "closed" as the camera sees the fixture (its detection's ``state`` attribute, from
    ``detections`` or a fresh detection); "" when perception cannot tell."""
    if detections is None:
        outcome, detections, _ = ctx.ports.perception.detect(node.label, ctx.bounded(ctx.settings.service_timeout),
                                                             ctx.cancel)
        if not outcome.ok:
            ctx.cancel.check()
            return ""
    own = choose_detection(detections, node, node.id)
    return own.attributes.get("state", "") if own is not None else ""


class ArticulateFixture:
    """Open or close a door or drawer: reach the handle, grasp, pull or push, release.

    The gripper's closure says whether the handle was grasped (no contact: a missed grasp);
    the hand's travel while actuating (TF) says whether the fixture moved (contact but no travel:
    locked). Without TF the travel is not measurable and the arm controller's outcome decides.
    Either way a fixture that did not move is NO_MOTION: the signals, read by the interaction
    analyzer, tell a lock from a missed grasp."""

    def __init__(self, verb: str):
        self.verb = verb

    def run(self, ctx: SkillContext, state: RobotState, target: str, **_) -> SkillResult:
        ctx.require_primitive()
        node = ctx.fixture(target)
        away = not_at_fixture(ctx, node)
        if away is not None:
            return away
        if state.held is not None:
            return SkillResult(self.verb, target, False, Status.FAILED,
                               f"cannot {self.verb} {node.id} while holding {state.held.id}",
                               outcome=SkillCode.GRIPPER_OCCUPIED)
        done = "open" if self.verb == "open" else "closed"
        if seen_state(ctx, node) == done:
            return SkillResult(self.verb, target, True, message=f"{node.id} is already {done}", at_fixture=node.id,
                               room=node.room,
                               outcome=SkillCode.ALREADY_OPEN if self.verb == "open" else SkillCode.ALREADY_CLOSED)
        ctx.ask_operator(f"{self.verb} {node.id} ({node.label})")
        ctx.run_phase("reach", height=node.position[2])
        ctx.run_phase("grasp", tolerate_failure=True)
        closure, effort = ctx.gripper_reading()
        signals = SkillSignals(contact=ctx.holds_something(closure), gripper_closure=closure, gripper_effort=effort)
        if not signals.contact:
            ctx.run_phase("retreat")
            return SkillResult(self.verb, target, False, Status.FAILED,
                               f"missed the handle of {node.id}: the gripper closed on nothing", signals,
                               outcome=SkillCode.NO_MOTION)
        hand = ctx.ports.hand
        before = hand.hand_position() if hand is not None else None
        actuated = ctx.run_phase("actuate", tolerate_failure=True)
        after = hand.hand_position() if hand is not None else None
        ctx.run_phase("retreat")
        if before is not None and after is not None:
            signals.joint_displacement = math.dist(before, after)
            moved = signals.joint_displacement >= ctx.profile.min_fixture_displacement
        else:
            moved = actuated.ok
        if not moved:
            why = f"; arm controller: {actuated.message}" if not actuated.ok else ""
            return SkillResult(self.verb, target, False, Status.FAILED,
                               f"{node.id} did not move although the handle was grasped (locked?){why}", signals,
                               outcome=SkillCode.NO_MOTION)
        return SkillResult(self.verb, target, True, signals=signals, at_fixture=node.id, room=node.room)


def choose_detection(detections: list[Detection], node: Optional[GraphNode], target: str,
                     max_offset: float = 0.5) -> Optional[Detection]:
    """The detection the target names: the scene-graph node's own, else the one nearest the
    node's position, else the best-scoring one with the target as label."""
    if node is not None:
        own = [d for d in detections if d.node_id == node.id or d.instance_id == node.id]
        if own:
            return max(own, key=lambda d: d.score)
        near = [d for d in detections if d.label.lower() == node.label.lower()
                and math.dist(d.centroid, node.position) <= max_offset]
        return min(near, key=lambda d: math.dist(d.centroid, node.position)) if near else None
    named = [d for d in detections if d.label.lower() == target.lower() or d.instance_id == target]
    return max(named, key=lambda d: d.score) if named else None


class PickObject:
    """Find the object in view, check it is within reach (standing at the fixture it lies on, when
    the scene graph knows it), reach (torso to its height), close the gripper, lift; held when the
    gripper stays partly open on it through the lift."""

    def run(self, ctx: SkillContext, state: RobotState, target: str, **_) -> SkillResult:
        ctx.require_primitive()
        if state.held is not None:
            return SkillResult("pick", target, False, Status.FAILED, f"already holding {state.held.id}",
                               outcome=SkillCode.GRIPPER_OCCUPIED)
        node = ctx.find(target)
        if node is not None and node.kind == "fixture":
            raise MnemoError(Status.INVALID_ARGUMENT, f"{target!r} is a fixture; pick takes an object")
        label = node.label if node is not None else target
        outcome, detections, _ = ctx.ports.perception.detect(label, ctx.bounded(ctx.settings.service_timeout),
                                                             ctx.cancel)
        ctx.must(outcome, "perception")
        det = choose_detection(detections, node, target)
        if det is None:
            return SkillResult("pick", target, False, Status.NOT_FOUND, f"no {label} in view to pick",
                               outcome=SkillCode.NOT_VISIBLE)
        support = self._support(ctx, node, det)
        if not (ctx.within_reach(support.box_min, support.box_max) if support is not None
                else ctx.within_reach(det.centroid, det.centroid)):
            where = support.id if support is not None else ""
            return SkillResult("pick", target, False, Status.FAILED,
                               f"{label} is in view but out of reach: navigate to {where or 'it'} first",
                               outcome=SkillCode.OUT_OF_REACH, reachable_from=where)
        x, y, z = det.centroid
        ctx.ask_operator(f"pick {label} at x={x:.2f} y={y:.2f} z={z:.2f}")
        ctx.run_phase("reach", height=z)
        ctx.run_phase("grasp", tolerate_failure=True)
        closure, effort = ctx.gripper_reading()
        signals = SkillSignals(contact=ctx.holds_something(closure), gripper_closure=closure, gripper_effort=effort)
        if not signals.contact:
            ctx.run_phase("retreat")
            return SkillResult("pick", target, False, Status.FAILED,
                               f"grasp missed {label}: the gripper closed fully", signals,
                               outcome=SkillCode.GRASP_FAILED)
        ctx.run_phase("actuate")
        closure, effort = ctx.gripper_reading()
        signals.gripper_closure, signals.gripper_effort = closure, effort
        if not ctx.holds_something(closure):
            ctx.run_phase("retreat")
            return SkillResult("pick", target, False, Status.FAILED, f"{label} slipped out during the lift", signals,
                               outcome=SkillCode.GRASP_FAILED)
        ctx.run_phase("retreat")
        picked = det.node_id or det.instance_id or (node.id if node is not None else label)
        state.held = HeldObject(picked, det.label)
        return SkillResult("pick", target, True, signals=signals, picked_id=picked, picked_label=det.label)

    @staticmethod
    def _support(ctx: SkillContext, node: Optional[GraphNode], det: Detection) -> Optional[GraphNode]:
        """The fixture the object lies on or in, when the scene graph knows it."""
        if node is None and det.node_id:
            node = ctx.find(det.node_id)
        return ctx.find(node.parent) if node is not None and node.parent else None


class PlaceObject:
    """Reach the fixture's top, open the gripper, retreat."""

    def run(self, ctx: SkillContext, state: RobotState, target: str, **_) -> SkillResult:
        ctx.require_primitive()
        node = ctx.fixture(target)
        if state.held is None:
            return SkillResult("place", target, False, Status.FAILED, "not holding anything to place",
                               outcome=SkillCode.GRIPPER_EMPTY)
        away = not_at_fixture(ctx, node)
        if away is not None:
            return away
        if seen_state(ctx, node) == "closed":
            return SkillResult("place", target, False, Status.FAILED, f"{node.id} is closed: open it first",
                               outcome=SkillCode.CONTAINER_CLOSED)
        ctx.ask_operator(f"place {state.held.label} ({state.held.id}) on/in {node.id}")
        ctx.run_phase("reach", height=node.box_max[2])
        ctx.run_phase("release", tolerate_failure=True)
        closure, effort = ctx.gripper_reading() if ctx.profile.gripper is not None else (0.0, 0.0)
        held, state.held = state.held, None
        ctx.run_phase("retreat")
        return SkillResult("place", target, True, signals=SkillSignals(gripper_closure=closure, gripper_effort=effort),
                           picked_id=held.id, picked_label=held.label, at_fixture=node.id, room=node.room)


class PeekInside:
    """Look into an open container (head or arm camera motion), detect, keep what lies inside."""

    def run(self, ctx: SkillContext, state: RobotState, target: str, **_) -> SkillResult:
        node = ctx.fixture(target)
        away = not_at_fixture(ctx, node)
        if away is not None:
            return away
        ctx.ask_operator(f"look inside {node.id} ({node.label})")
        ctx.run_phase("look", height=node.position[2])
        outcome, detections, pose = ctx.ports.perception.detect("", ctx.bounded(ctx.settings.service_timeout),
                                                                ctx.cancel)
        ctx.must(outcome, "perception")
        if seen_state(ctx, node, detections) == "closed":
            ctx.run_phase("retreat")
            return SkillResult("peek", target, False, Status.FAILED, f"{node.id} is closed: open it first",
                               outcome=SkillCode.CONTAINER_CLOSED, at_fixture=node.id, room=node.room,
                               robot_pose=pose)
        contents = [d for d in detections if d.kind != "fixture" and d.node_id != node.id
                    and node.contains(d.centroid, ctx.settings.contents_margin)]
        ctx.run_phase("retreat")
        return SkillResult("peek", target, True, detections=contents, at_fixture=node.id, room=node.room,
                           robot_pose=pose)


def default_primitives() -> dict[str, Primitive]:
    return {"navigate": NavigateToTarget(), "detect": DetectWithPerception(), "open": ArticulateFixture("open"),
            "close": ArticulateFixture("close"), "peek": PeekInside(), "pick": PickObject(), "place": PlaceObject()}
