"""The simulated home's state over time: where every object is, which containers are open or locked,
what the robot holds and where it stands.

``World(scenario, seed=None)`` starts at day 0 00:00 with the scenario's initial state (timeline events at
exactly 00:00 of day 0 applied). Public API (simulator side; the robot side gets only what ``patrol`` and
``skills`` pass on):

- ``t`` (clock, seconds since day 0 00:00), ``version`` (bumped whenever an object or a container changes;
  caches key on it; robot moves do not bump it),
  ``robot_pose: Pose2D``, ``at_fixture: str`` (fixture the robot stands at, "" when none).
- ``advance_to(t)``: apply the timeline events up to and including ``t`` (clock only moves forward).
- ``reset_to(t)``: rebuild from day 0 and replay the timeline to ``t``; the robot goes home.
- ``next_event_time() -> float``: clock of the next pending timeline event (``inf`` when none).
- ``is_open(fixture_id)``: whether a container stands open (anyone looking can see this).
- ``present_objects_at(fixture_id) -> list[str]``, ``object_position(object_id) -> (x, y, z)``,
  ``object_relation(object_id) -> "on" | "in"``: the layout the camera and the renderer see.
- ``held() -> str``: the object in the gripper ("" when none).
- Changes made by the robot: ``set_open(fid, bool)``, ``pick_up(oid)``, ``put(oid, fid)``,
  ``hand_over(oid)`` (the object leaves the world).
- Truth for the scorer and scenario checks only, never for the robot: ``truth_location(oid)``,
  ``truth_is_locked(fid)``, ``truth_present_objects()``, ``truth_hidden(oid)``.
- ``container_floor_z(fixture)``: height of a container's inner floor, where its contents stand.

Layout: objects on a fixture sit at fixed slots in the fixture's own frame, packed from the front edge
(the fixture's +x) leftwards and backwards without overlap, in arrival order; a slot is kept until the
object leaves. On a surface they stand on the top; in a container on its inner floor.
"""
from __future__ import annotations

import math
from typing import Optional

from mnemo_common.types import Pose2D

from .navigation import home_pose
from .scenario import ROBOT, Fixture, Scenario

_GAP = 0.03  # between objects and from the fixture's edges
_WALL = 0.04  # container wall thickness kept free inside
DRAWER_TRAVEL = 0.75  # an open drawer slides out this share of its fixture's depth (own x)


def container_floor_z(fixture: Fixture) -> float:
    """Height of a container's inner floor above the ground (contents stand on it)."""
    return 0.1 * fixture.size[2]


class World:
    def __init__(self, scenario: Scenario, seed: Optional[int] = None):
        self.scenario = scenario
        self.seed = scenario.seed if seed is None else int(seed)
        self.version = 0
        self.reset_to(0.0)

    # ------------------------------------------------------------------ time
    def reset_to(self, t: float) -> None:
        """Rebuild the day-0 state and replay the timeline up to ``t``; the robot waits at home."""
        sc = self.scenario
        self.t = 0.0
        self._next_event = 0
        self._loc: dict[str, Optional[str]] = {o.id: o.at for o in sc.objects}
        self._open = {f.id: False for f in sc.fixtures}
        self._locked = {f.id: f.locked for f in sc.fixtures}
        self._slots: dict[str, tuple[float, float, float]] = {}  # object -> (lx, ly, z) on its fixture
        self._placed: dict[str, list[str]] = {f.id: [] for f in sc.fixtures}  # fixture -> objects, arrival order
        for obj in sc.objects:
            if obj.at not in (None, ROBOT):
                self._place(obj.id, obj.at)
        self.robot_pose: Pose2D = home_pose(sc)
        self.at_fixture = ""
        self.version += 1
        self.advance_to(t)

    def advance_to(self, t: float) -> None:
        """Let the clock run to ``t``, applying the timeline events that happen by then."""
        if t < self.t - 1e-6:
            raise ValueError(f"the clock only moves forward (now {self.t:.0f} s, asked {t:.0f} s); use reset_to")
        events = self.scenario.timeline
        while self._next_event < len(events) and events[self._next_event].t <= t:
            self._apply(events[self._next_event])
            self._next_event += 1
        self.t = max(self.t, float(t))

    def next_event_time(self) -> float:
        events = self.scenario.timeline
        return events[self._next_event].t if self._next_event < len(events) else math.inf

    def _apply(self, event) -> None:
        action, target = event.action, event.target
        if action in ("move", "add"):
            self._unplace(target)
            self._place(target, event.to)
        elif action == "remove":
            self._unplace(target)
            self._loc[target] = None
        elif action == "lock":
            self._open[target] = False  # people close a container before locking it
            self._locked[target] = True
        elif action == "unlock":
            self._locked[target] = False
        elif action in ("open", "close"):
            self._open[target] = action == "open" and not self._locked[target]
        self.version += 1

    # ------------------------------------------------------------------ layout
    def _unplace(self, oid: str) -> None:
        where = self._loc.get(oid)
        if where not in (None, ROBOT):
            self._placed[where].remove(oid)
        self._slots.pop(oid, None)
        if where == ROBOT:
            self._loc[oid] = None

    def _place(self, oid: str, fid: str) -> None:
        fixture = self.scenario.fixture_by_id[fid]
        size = self.scenario.object_by_id[oid].size
        taken = [self._rect(other) for other in self._placed[fid]]
        self._slots[oid] = self._free_slot(fixture, size, taken)
        self._placed[fid].append(oid)
        self._loc[oid] = fid

    def _rect(self, oid: str) -> tuple[float, float, float, float, float]:
        lx, ly, z = self._slots[oid]
        sx, sy, sz = self.scenario.object_by_id[oid].size
        return (lx - sx / 2, ly - sy / 2, lx + sx / 2, ly + sy / 2, z + sz / 2)

    @staticmethod
    def _free_slot(fixture: Fixture, size: tuple[float, float, float],
                   taken: list[tuple[float, float, float, float, float]]) -> tuple[float, float, float]:
        """Front-first, left-to-right packing in the fixture's frame (bottom-left heuristic)."""
        inset = _GAP + (_WALL if fixture.is_container else 0.0)
        half_x, half_y = fixture.size[0] / 2 - inset, fixture.size[1] / 2 - inset
        sx, sy, sz = size
        base = container_floor_z(fixture) if fixture.is_container else fixture.size[2]
        xs = [half_x - sx / 2] + [r[0] - _GAP - sx / 2 for r in taken]
        ys = [-half_y + sy / 2] + [r[3] + _GAP + sy / 2 for r in taken]
        for lx in sorted(set(xs), reverse=True):
            if lx - sx / 2 < -half_x - 1e-9:
                continue
            for ly in sorted(set(ys)):
                if ly + sy / 2 > half_y + 1e-9:
                    continue
                box = (lx - sx / 2, ly - sy / 2, lx + sx / 2, ly + sy / 2)
                if all(box[2] + _GAP / 2 <= r[0] or r[2] + _GAP / 2 <= box[0] or
                       box[3] + _GAP / 2 <= r[1] or r[3] + _GAP / 2 <= box[1] for r in taken):
                    return (lx, ly, base + sz / 2)
        # No free spot: stack at the centre on top of what is there.
        top = max([r[4] for r in taken] + [base])
        return (0.0, 0.0, top + sz / 2)

    # ------------------------------------------------------------------ observable state
    def is_open(self, fid: str) -> bool:
        return self._open[fid]

    def present_objects_at(self, fid: str) -> list[str]:
        return list(self._placed[fid])

    def object_position(self, oid: str) -> tuple[float, float, float]:
        where = self._loc[oid]
        if where == ROBOT:
            p = self.robot_pose
            return (p.x + 0.35 * math.cos(p.yaw), p.y + 0.35 * math.sin(p.yaw), 0.9)
        if where is None:
            raise KeyError(f"object {oid!r} is not in the world")
        lx, ly, z = self._slots[oid]
        fixture = self.scenario.fixture_by_id[where]
        if fixture.is_drawer and self._open.get(where, False):
            lx += DRAWER_TRAVEL * fixture.size[0]  # an open drawer carries its contents out
        x, y = fixture.to_map(lx, ly)
        return (x, y, z)

    def object_relation(self, oid: str) -> str:
        where = self._loc[oid]
        if where in (None, ROBOT):
            return ""
        return "in" if self.scenario.fixture_by_id[where].is_container else "on"

    def held(self) -> str:
        return next((oid for oid, where in self._loc.items() if where == ROBOT), "")

    # ------------------------------------------------------------------ changes the robot makes
    def set_open(self, fid: str, is_open: bool) -> None:
        if is_open and self._locked[fid]:
            raise ValueError(f"{fid} is locked")
        self._open[fid] = is_open
        self.version += 1

    def pick_up(self, oid: str) -> None:
        if self.held():
            raise ValueError("the gripper already holds an object")
        self._unplace(oid)
        self._loc[oid] = ROBOT
        self.version += 1

    def put(self, oid: str, fid: str) -> None:
        self._unplace(oid)
        self._place(oid, fid)
        self.version += 1

    def hand_over(self, oid: str) -> None:
        """The object is handed to the user: it leaves the gripper and the world."""
        self._unplace(oid)
        self._loc[oid] = None
        self.version += 1

    def move_robot(self, pose: Pose2D, at_fixture: str = "") -> None:
        self.robot_pose = pose
        self.at_fixture = at_fixture

    # ------------------------------------------------------------------ truth (scorer only)
    def truth_location(self, oid: str) -> Optional[str]:
        """Fixture id, "robot", or None when the object is not in the world."""
        return self._loc[oid]

    def truth_is_locked(self, fid: str) -> bool:
        return self._locked[fid]

    def truth_present_objects(self) -> list[str]:
        return [oid for oid, where in self._loc.items() if where is not None]

    def truth_hidden(self, oid: str) -> dict[str, str]:
        return dict(self.scenario.object_by_id[oid].hidden)
