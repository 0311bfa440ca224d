"""The simulated robot's skills, with the outcomes and signals a real mobile manipulator would report.

``SimRobot(world, seed=None, config=SkillConfig())`` acts in a ``World``. Every skill returns a
``mnemo_common.types.SkillResult`` (never raises): ``success``, ``code`` (``Status``: what stopped it),
``outcome`` (``SkillCode``: what it found, e.g. NOT_AT_FIXTURE, NO_MOTION, OUT_OF_REACH with
``reachable_from``), ``message``, ``signals`` (contact, joint_displacement, gripper_closure,
gripper_effort, duration), ``robot_pose``, ``at_fixture``, ``room``, ``detections``,
``picked_id``/``picked_label`` (place reports the placed object in ``picked_id``) and ``interaction_id``. Skills take simulated time: the world clock advances and the
timeline keeps playing.

- ``navigate(target="", pose=None)``: to a fixture's approach pose (facing it; ``at_fixture`` set) or to
  a ``Pose2D``; the path goes through doors at ``speed`` m/s.
- ``detect(query="")``: instances in view now (objects and fixtures; plus what lies on or in the open
  fixture the robot stands at), lexically matching the query (every query word must be a word of the
  label, of an attribute value, or the instance id; plurals folded). Empty query: everything in view.
- ``open(target)`` / ``close(target)``: the robot must be at that fixture. A locked container: the
  gripper holds the handle (contact, closure ~0.8, high effort) but nothing moves. A seeded share
  (``miss_rate``) of attempts misses the handle: no contact, closure ~1.0 (closed on nothing). Both
  fail with the same message and outcome (NO_MOTION), so only the signals tell them apart. Success:
  ~1.4 rad (hinged door) or ~0.35 m (drawer) of joint displacement.
- ``peek(target)``: contents of an open container the robot is at, as detections (error if closed).
- ``pick(target)``: an instance id or a label of an object in view and within reach (on or in the
  fixture the robot stands at). One object at a time.
- ``place(target)``: put the held object on a surface or into an open container the robot is at.
- ``observe()``: the current oracle observation (``patrol.observe``), plus what lies on or in the open
  fixture the robot stands at.

Honest mode (``perception`` set, a ``RobotPerception``): the robot knows what its own perception
makes of the camera, never the simulator's instances. ``detect`` and ``peek`` return perceived
detections (labels, measured boxes and colours, scene-graph node ids, no instance ids or authored
attributes); ``open`` reports the perceived contents; ``pick`` takes a scene-graph node id (resolved
to its label and position, as the robot skill server does) or a description matched against what
perception sees now (label and measured colour), and picks the physical object of that label in
view within ``resolve_radius`` of that position, failing NOT_VISIBLE when none is there. Only ``picked`` (the scorer's input) names the physical instance.

Each attempted skill (a call whose target names something that exists) counts in ``physical_actions``
and emits an ``InteractionEvent`` to ``events`` and to every callable in ``listeners``; ``frame_refs``
are left empty here (the node fills them with image paths). Nothing returned carries hidden truth:
no ids of objects the camera cannot see, no ``hidden`` values, no lock flags.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from typing import Callable, Optional, Protocol

import numpy as np

from mnemo_common.skill_codes import SkillCode
from mnemo_common.types import (
    Detection, InteractionEvent, Observation, Pose2D, Pose3D, SkillResult, SkillSignals, Status,
)

from .navigation import approach_pose, path_length, plan_path
from .patrol import DEFAULT_CAMERA, CameraConfig, camera_pose, observe, visible_now
from .world import DRAWER_TRAVEL, World, container_floor_z

STOP_WORDS = {"a", "an", "the", "of", "on", "in", "with", "me", "my", "some", "any", "and", "to", "that", "is"}


@dataclass(frozen=True)
class SkillConfig:
    speed: float = 0.5  # m/s
    turn_rate: float = 1.0  # rad/s
    approach_standoff: float = 0.6  # m in front of a fixture's front face when acting on it
    miss_rate: float = 0.1  # share of open/close attempts that miss the handle
    detect_time: float = 1.0
    open_time: float = 5.0
    close_time: float = 4.0
    peek_time: float = 2.0
    pick_time: float = 6.0
    place_time: float = 5.0
    camera: CameraConfig = DEFAULT_CAMERA
    resolve_radius: float = 0.5  # m: honest pick finds the object of the node's label this close to the node


class RobotPerception(Protocol):
    """What an honest robot knows of what it sees (the simulator's instances never pass)."""

    def sense(self) -> list[Detection]:
        """Detections of the current camera view, associated to scene-graph nodes (``node_id``)."""

    def locate(self, target: str) -> Optional[tuple[str, tuple[float, float, float]]]:
        """(label, position) of the scene-graph object node ``target`` names, or None."""


def words(text: str) -> list[str]:
    """Lower-case words of a text, plurals folded: the words ``matches`` compares."""
    return [_singular(w) for w in re.findall(r"[a-z0-9]+", text.lower())]


def _singular(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith(("ches", "shes", "sses", "xes")):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def matches(query: str, label: str, attributes: dict[str, str], instance_id: str = "") -> bool:
    """Lexical match: every content word of the query is a word of the label, an attribute value or the id."""
    if query.strip() == instance_id and instance_id:
        return True
    wanted = [w for w in words(query) if w not in STOP_WORDS]
    have = set(words(label))
    for value in attributes.values():
        have.update(words(value))
    return all(w in have for w in wanted)


class SimRobot:
    def __init__(self, world: World, seed: Optional[int] = None, config: SkillConfig = SkillConfig(),
                 listeners: Optional[list[Callable[[InteractionEvent], None]]] = None):
        self.world = world
        self.config = config
        self.rng = np.random.default_rng(world.seed if seed is None else seed)
        self.listeners: list[Callable[[InteractionEvent], None]] = list(listeners or [])
        self.events: list[InteractionEvent] = []
        self.physical_actions = 0
        self.picked: list[str] = []  # instances picked since the last reset_counters (the scorer reads it)
        self.perception: Optional[RobotPerception] = None  # set: honest mode (see the module docstring)
        self._event_count = 0

    def reset_counters(self) -> None:
        self.physical_actions = 0
        self.picked = []

    # ------------------------------------------------------------------ helpers
    @property
    def _sc(self):
        return self.world.scenario

    def _result(self, skill: str, target: str, success: bool, code: Status = Status.OK, message: str = "",
                signals: Optional[SkillSignals] = None, **kw) -> SkillResult:
        pose = self.world.robot_pose
        return SkillResult(skill=skill, target=target, success=success, code=code, message=message,
                           signals=signals or SkillSignals(), robot_pose=pose, at_fixture=self.world.at_fixture,
                           room=self._sc.room_at(pose.x, pose.y) or "", **kw)

    def _act(self, skill: str, target: str, duration: float, success: bool, code: Status, message: str,
             signals: SkillSignals, seen_contents: Optional[list[str]] = None, picked_id: str = "",
             **kw) -> SkillResult:
        """Spend the time, count the action, emit its interaction event and build the result."""
        start = self.world.t
        self.world.advance_to(start + duration)
        signals.duration = duration
        self.physical_actions += 1
        self._event_count += 1
        event_id = f"ix_{self._event_count:05d}"
        result = self._result(skill, target, success, code, message, signals, picked_id=picked_id,
                              interaction_id=event_id, **kw)
        event = InteractionEvent(id=event_id, action=skill, target=target, start=start, end=self.world.t,
                                 success=success, code=code, message=message, signals=signals,
                                 seen_contents=list(seen_contents or []), picked_id=picked_id,
                                 robot_pose=self.world.robot_pose)
        self.events.append(event)
        for listener in self.listeners:
            listener(event)
        return result

    def _noise(self, scale: float) -> float:
        return float(self.rng.normal(0.0, scale))

    def _detection(self, instance_id: str, kind: str) -> Detection:
        if kind == "fixture":
            f = self._sc.fixture_by_id[instance_id]
            attrs = dict(f.attributes)
            if f.openable:
                attrs["state"] = "open" if self.world.is_open(f.id) else "closed"
            corners = np.array(f.footprint())
            centre = (f.pose[0], f.pose[1], f.size[2] / 2)
            lo = (*corners.min(axis=0), 0.0)
            hi = (*corners.max(axis=0), f.size[2])
            label = f.label
        else:
            spec = self._sc.object_by_id[instance_id]
            attrs = dict(spec.attributes)
            centre = self.world.object_position(instance_id)
            half = max(spec.size[0], spec.size[1]) / 2
            lo = (centre[0] - half, centre[1] - half, centre[2] - spec.size[2] / 2)
            hi = (centre[0] + half, centre[1] + half, centre[2] + spec.size[2] / 2)
            label = spec.label
        return Detection(label=label, score=1.0, kind=kind, centroid=tuple(float(v) for v in centre),
                         box_min=tuple(float(v) for v in lo), box_max=tuple(float(v) for v in hi),
                         attributes=attrs, instance_id=instance_id)

    def _in_view(self) -> tuple[list[str], list[str]]:
        """Objects and fixtures in view, plus what lies openly on or in the fixture the robot stands at
        (the head looks down at what it works on)."""
        objects, fixtures = visible_now(self.world, self.config.camera)
        objects += [o for o in self._at_hand() if o not in objects]
        here = self.world.at_fixture
        if here and here not in fixtures:
            fixtures.append(here)
        return objects, fixtures

    def _at_hand(self) -> list[str]:
        """What lies openly on, or in the open, fixture the robot stands at."""
        here = self.world.at_fixture
        if not here or (self._sc.fixture_by_id[here].is_container and not self.world.is_open(here)):
            return []
        return self.world.present_objects_at(here)

    def _check_fixture(self, skill: str, target: str, container: bool) -> Optional[SkillResult]:
        fixture = self._sc.fixture_by_id.get(target)
        if fixture is None:
            return self._result(skill, target, False, Status.NOT_FOUND, f"no fixture named {target!r}")
        if container and not fixture.openable:
            return self._result(skill, target, False, Status.INVALID_ARGUMENT,
                                f"{target} ({fixture.label}) has nothing to open or close",
                                outcome=SkillCode.NOT_OPENABLE)
        return None

    # ------------------------------------------------------------------ skills
    def look_pitch(self) -> Optional[float]:
        """At a fixture, the head pitch (rad, down) that points the camera at its top, or at its
        inner floor when it is a container; None elsewhere."""
        here = self.world.at_fixture
        if not here:
            return None
        f = self._sc.fixture_by_id[here]
        cam = self.config.camera
        cx, cy, _ = camera_pose(self.world.robot_pose, cam).position
        target_z = container_floor_z(f) + 0.1 if f.is_container else f.size[2]  # where things stand
        return math.atan2(cam.height - target_z, max(0.2, math.hypot(f.pose[0] - cx, f.pose[1] - cy)))

    def look_poses(self, overlap: float = 0.8) -> list[Pose3D]:
        """At a fixture, the camera poses that together show all of its top (or, open, its inside):
        the head tilts down to it (``look_pitch``) and, when the fixture is wider than one view,
        pans across it in views that overlap by ``1 - overlap`` of the field of view. Elsewhere: []."""
        if self.look_pitch() is None:
            return []
        f = self._sc.fixture_by_id[self.world.at_fixture]
        cam, pose = self.config.camera, self.world.robot_pose
        cx, cy, _ = camera_pose(pose, cam).position
        bearings = [math.remainder(math.atan2(y - cy, x - cx) - pose.yaw, 2 * math.pi) for x, y in f.footprint()]
        lo, hi, step = min(bearings), max(bearings), cam.hfov * overlap
        pans = [0.0] if hi - lo <= step else \
            list(np.linspace(lo + step / 2, hi - step / 2, int(math.ceil((hi - lo) / step))))
        target_z = container_floor_z(f) + 0.1 if f.is_container else f.size[2]
        ahead = max(0.2, math.hypot(f.pose[0] - cx, f.pose[1] - cy))
        return [camera_pose(Pose2D(pose.x, pose.y, pose.yaw + pan),
                            replace(cam, pitch=math.atan2(cam.height - target_z, ahead / max(0.3, math.cos(pan)))))
                for pan in pans]

    def observe(self) -> Observation:
        """What the camera sees now. At a fixture the head also looks down at it (the camera pose
        reported is that one), so what lies on it, or in it when open, is seen as ``detect`` sees it."""
        return observe(self.world, self.config.camera, self._at_hand(), look_pitch=self.look_pitch())

    def navigate(self, target: str = "", pose: Optional[Pose2D] = None) -> SkillResult:
        world = self.world
        if target:
            if target not in self._sc.fixture_by_id:
                return self._result("navigate", target, False, Status.NOT_FOUND, f"no fixture named {target!r}",
                                    outcome=SkillCode.UNKNOWN_TARGET)
            goal = approach_pose(self._sc, target, self.config.approach_standoff)
        else:
            if pose is None or not pose.is_finite() or self._sc.room_at(pose.x, pose.y) is None:
                return self._result("navigate", "", False, Status.INVALID_ARGUMENT,
                                    f"pose {pose} is not a finite pose inside a room")
            goal = pose
        here = world.robot_pose
        try:
            path = plan_path(self._sc, (here.x, here.y), (goal.x, goal.y))
        except ValueError as exc:  # no door-to-door path
            return self._result("navigate", target, False, Status.FAILED, str(exc), outcome=SkillCode.NO_PATH)
        turning, heading = 0.0, here.yaw
        for a, b in zip(path, path[1:]):
            if math.dist(a, b) > 1e-6:
                new = math.atan2(b[1] - a[1], b[0] - a[0])
                turning += abs(math.remainder(new - heading, 2 * math.pi))
                heading = new
        turning += abs(math.remainder(goal.yaw - heading, 2 * math.pi))
        duration = path_length(path) / self.config.speed + turning / self.config.turn_rate
        world.move_robot(Pose2D(goal.x, goal.y, math.remainder(goal.yaw, 2 * math.pi)), target)
        where = f"at {target}" if target else f"at ({goal.x:.2f}, {goal.y:.2f})"
        return self._act("navigate", target, duration, True, Status.OK, f"arrived {where}", SkillSignals())

    def detect(self, query: str = "") -> SkillResult:
        if self.perception is not None:
            dets = [d for d in self.perception.sense() if matches(query, d.label, d.attributes, d.node_id)]
        else:
            objects, fixtures = self._in_view()
            dets = [self._detection(o, "object") for o in objects] + [self._detection(f, "fixture") for f in fixtures]
            dets = [d for d in dets if matches(query, d.label, d.attributes, d.instance_id)]
        message = f"{len(dets)} in view" + (f" matching {query!r}" if query.strip() else "")
        return self._act("detect", query, self.config.detect_time, True, Status.OK, message, SkillSignals(),
                         detections=dets)

    def open(self, target: str) -> SkillResult:
        return self._articulate("open", target)

    def close(self, target: str) -> SkillResult:
        return self._articulate("close", target)

    def _articulate(self, skill: str, target: str) -> SkillResult:
        bad = self._check_fixture(skill, target, container=True)
        if bad:
            return bad
        world, cfg = self.world, self.config
        fixture = self._sc.fixture_by_id[target]
        duration = cfg.open_time if skill == "open" else cfg.close_time
        want_open = skill == "open"
        if world.at_fixture != target:
            return self._act(skill, target, 0.5, False, Status.FAILED,
                             f"not at fixture {target}: navigate there first", SkillSignals(),
                             outcome=SkillCode.NOT_AT_FIXTURE)
        if world.held():
            return self._act(skill, target, 0.5, False, Status.FAILED,
                             "the gripper is holding an object: place it first", SkillSignals(),
                             outcome=SkillCode.GRIPPER_OCCUPIED)
        if world.is_open(target) == want_open:
            return self._act(skill, target, 1.0, True, Status.OK, f"{target} is already {'open' if want_open else 'closed'}",
                             SkillSignals(contact=False, gripper_closure=0.0),
                             outcome=SkillCode.ALREADY_OPEN if want_open else SkillCode.ALREADY_CLOSED)
        missed = self.rng.random() < cfg.miss_rate
        travel = 0.35 if fixture.is_drawer else 1.4
        if missed:
            signals = SkillSignals(contact=False, joint_displacement=abs(self._noise(0.003)),
                                   gripper_closure=min(1.0, 0.99 + abs(self._noise(0.005))), gripper_effort=0.0)
            return self._act(skill, target, duration, False, Status.FAILED, f"{target} did not {skill}", signals,
                             outcome=SkillCode.NO_MOTION)
        if want_open and world.truth_is_locked(target):
            signals = SkillSignals(contact=True, joint_displacement=abs(self._noise(0.003)),
                                   gripper_closure=0.8 + self._noise(0.02), gripper_effort=28.0 + self._noise(2.0))
            return self._act(skill, target, duration, False, Status.FAILED, f"{target} did not {skill}", signals,
                             outcome=SkillCode.NO_MOTION)
        world.set_open(target, want_open)
        signals = SkillSignals(contact=True, joint_displacement=travel * (1.0 + self._noise(0.03)),
                               gripper_closure=0.8 + self._noise(0.02), gripper_effort=9.0 + self._noise(1.0))
        seen = [d.label for d in self._perceived_at(target)] if want_open and self.perception is not None else \
            [self._sc.object_by_id[o].label for o in world.present_objects_at(target)] if want_open else []
        return self._act(skill, target, duration, True, Status.OK, f"{target} {'opened' if want_open else 'closed'}",
                         signals, seen_contents=seen)

    def peek(self, target: str) -> SkillResult:
        bad = self._check_fixture("peek", target, container=False)
        if bad:
            return bad
        world = self.world
        fixture = self._sc.fixture_by_id[target]
        if world.at_fixture != target:
            return self._act("peek", target, 0.5, False, Status.FAILED, f"not at fixture {target}: navigate there first",
                             SkillSignals(), outcome=SkillCode.NOT_AT_FIXTURE)
        if fixture.is_container and not world.is_open(target):
            return self._act("peek", target, self.config.peek_time, False, Status.FAILED,
                             f"{target} is closed: open it first", SkillSignals(), outcome=SkillCode.CONTAINER_CLOSED)
        if self.perception is not None:
            dets = self._perceived_at(target)
        else:
            dets = [self._detection(o, "object") for o in world.present_objects_at(target)]
        return self._act("peek", target, self.config.peek_time, True, Status.OK,
                         f"{len(dets)} object(s) {'in' if fixture.is_container else 'on'} {target}", SkillSignals(),
                         seen_contents=[d.label for d in dets], detections=dets)

    def pick(self, target: str) -> SkillResult:
        world = self.world
        if not target.strip():
            return self._result("pick", target, False, Status.INVALID_ARGUMENT, "pick needs a target")
        if world.held():
            return self._act("pick", target, 0.5, False, Status.FAILED,
                             "the gripper already holds an object: place it first", SkillSignals(contact=True),
                             outcome=SkillCode.GRIPPER_OCCUPIED)
        objects, _ = self._in_view()
        if self.perception is not None:
            candidates = self._resolve(target, objects)  # nearest the node's position first
        else:
            specs = self._sc.object_by_id
            candidates = [o for o in objects if o == target] or \
                [o for o in objects if matches(target, specs[o].label, specs[o].attributes)]
        if not candidates:
            return self._act("pick", target, 1.0, False, Status.NOT_FOUND, f"no object matching {target!r} in view",
                             SkillSignals(), outcome=SkillCode.NOT_VISIBLE)
        reachable = [o for o in candidates if world.truth_location(o) == world.at_fixture and world.at_fixture]
        if not reachable:
            where = world.truth_location(candidates[0])
            return self._act("pick", target, 1.0, False, Status.FAILED,
                             f"{target!r} is in view but out of reach: navigate to {where} first", SkillSignals(),
                             outcome=SkillCode.OUT_OF_REACH, reachable_from=where)
        here = world.robot_pose
        oid = reachable[0] if self.perception is not None else \
            min(reachable, key=lambda o: math.dist(world.object_position(o)[:2], (here.x, here.y)))
        spec = self._sc.object_by_id[oid]
        world.pick_up(oid)
        self.picked.append(oid)
        closure = min(0.95, max(0.1, 1.0 - min(spec.size[0], spec.size[1]) / 0.12))
        signals = SkillSignals(contact=True, joint_displacement=0.0, gripper_closure=closure + self._noise(0.01),
                               gripper_effort=12.0 + self._noise(1.0))
        name = target if self.perception is not None else oid  # honest: the robot's own name for it
        return self._act("pick", target, self.config.pick_time, True, Status.OK, f"picked {spec.label} {name}", signals,
                         picked_id=name, picked_label=spec.label)

    # ------------------------------------------------------------------ honest mode
    def _resolve(self, target: str, objects: list[str]) -> list[str]:
        """The objects in view a target names, nearest first: the object of a scene-graph node's label
        near the node's position, or of a perceived detection's label near it when the target is a
        description (every word of it a word of the detection's label or measured attributes)."""
        located = self.perception.locate(target)
        if located is not None:
            spots = [located]
        else:
            spots = [(d.label, d.centroid) for d in self.perception.sense()
                     if d.kind == "object" and matches(target, d.label, d.attributes)]
        dist: dict[str, float] = {}
        for label, near in spots:
            for o in objects:
                if matches(label, self._sc.object_by_id[o].label, {}):
                    d = math.dist(self.world.object_position(o), near)
                    if d <= self.config.resolve_radius:
                        dist[o] = min(d, dist.get(o, math.inf))
        return sorted(dist, key=dist.get)

    def _perceived_at(self, fixture_id: str) -> list[Detection]:
        """Objects perception sees now on or in a fixture (inside its mapped footprint)."""
        fixture = self._sc.fixture_by_id[fixture_id]
        x, y, yaw = fixture.pose
        c, s = math.cos(yaw), math.sin(yaw)
        front = DRAWER_TRAVEL * fixture.size[0] if fixture.is_drawer and self.world.is_open(fixture_id) else 0.0
        margin = 0.05  # m: depth noise at the edges

        def covers(d: Detection) -> bool:
            dx, dy = d.centroid[0] - x, d.centroid[1] - y
            lx, ly = c * dx + s * dy, -s * dx + c * dy  # in the fixture's own frame
            return -fixture.size[0] / 2 - margin <= lx <= fixture.size[0] / 2 + front + margin and \
                abs(ly) <= fixture.size[1] / 2 + margin

        return [d for d in self.perception.sense() if d.kind == "object" and covers(d)]

    def place(self, target: str) -> SkillResult:
        bad = self._check_fixture("place", target, container=False)
        if bad:
            return bad
        world = self.world
        held = world.held()
        fixture = self._sc.fixture_by_id[target]
        if not held:
            return self._act("place", target, 0.5, False, Status.FAILED, "the gripper is empty", SkillSignals(),
                             outcome=SkillCode.GRIPPER_EMPTY)
        if world.at_fixture != target:
            return self._act("place", target, 0.5, False, Status.FAILED, f"not at fixture {target}: navigate there first",
                             SkillSignals(contact=True, gripper_closure=0.5), outcome=SkillCode.NOT_AT_FIXTURE)
        if fixture.is_container and not world.is_open(target):
            return self._act("place", target, 1.0, False, Status.FAILED, f"{target} is closed: open it first",
                             SkillSignals(contact=True, gripper_closure=0.5), outcome=SkillCode.CONTAINER_CLOSED)
        world.put(held, target)
        return self._act("place", target, self.config.place_time, True, Status.OK,
                         f"placed {self._sc.object_by_id[held].label} {'in' if fixture.is_container else 'on'} {target}",
                         SkillSignals(contact=True, gripper_closure=0.0, gripper_effort=0.0), picked_id=held)
