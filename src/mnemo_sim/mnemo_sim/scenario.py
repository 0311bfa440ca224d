"""Household scenario files (format ``household-scenario/1``): data types, loader and validation.

The format is specified in ``shared/spec/household-scenario.md``. Public API:

- ``load_scenario(path) -> Scenario``: read and validate a YAML file.
- ``parse_scenario(data, source="<memory>") -> Scenario``: validate an already-parsed mapping.
- ``Scenario.warnings``: legal but suspicious things (a fixture footprint reaching through a wall).
- ``ScenarioError``: raised for anything malformed; its message names the file, the path to the field
  (e.g. ``fixtures[3].pose``) and what was expected. ``.source``, ``.path``, ``.expected`` hold the parts.
- ``clock(day, "HH:MM") -> float``: seconds since day 0 00:00 (the simulator's clock).
- ``format_clock(t) -> "day 2 18:00"``.
- Data classes ``Scenario, Room, Door, Fixture, ObjectSpec, TimelineEvent, PatrolSegment, Task, Success``.

Fixture and object classes are held in ``label`` (``class`` is a Python keyword).
Fixture geometry: ``pose = (x, y, yaw)`` of the footprint centre; ``size = (depth along the fixture's own
x, width along its own y, height)``. The fixture's front (where doors/drawers open and the robot stands)
faces its own +x axis.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

import yaml

FORMAT = "household-scenario/1"
TASK_TYPES = ("visible", "interactive", "commonsense", "recall")
KNOWN_FAMILIES = ("class", "attribute", "spatial", "spatial_temporal", "spatial_frequentist",
                  "commonsense", "locked", "clutter", "matching", "memory_query")
FIXTURE_KINDS = ("surface", "container")
TIMELINE_ACTIONS = ("move", "add", "remove", "lock", "unlock", "open", "close")
SUCCESS_KINDS = ("pick_any", "reach_any", "answer_any")
ROBOT = "robot"  # an object's location when the robot holds it
DAY = 86400.0
_EPS = 1e-3
_NAME_RE = re.compile(r"^[a-z0-9_]+$")
_ID_RE = re.compile(r"^[A-Za-z0-9_\-]+$")
_TIME_RE = re.compile(r"^(\d{2}):(\d{2})$")


class ScenarioError(ValueError):
    """A malformed scenario: which file, which field, what was expected."""

    def __init__(self, source: str, path: str, expected: str):
        self.source, self.path, self.expected = source, path, expected
        where = f"{source}: {path}: " if path else f"{source}: "
        super().__init__(where + expected)


def clock(day: int, hhmm: str) -> float:
    """Seconds since day 0 00:00 for a day number and an "HH:MM" time."""
    match = _TIME_RE.match(hhmm or "")
    if not match or int(match.group(1)) > 23 or int(match.group(2)) > 59:
        raise ValueError(f"time must be 'HH:MM' (24 h), got {hhmm!r}")
    return day * DAY + int(match.group(1)) * 3600.0 + int(match.group(2)) * 60.0


def format_clock(t: float) -> str:
    day, rest = divmod(int(round(t)), int(DAY))
    return f"day {day} {rest // 3600:02d}:{rest % 3600 // 60:02d}"


@dataclass(frozen=True)
class Room:
    id: str
    rect: tuple[float, float, float, float]  # xmin, ymin, xmax, ymax

    def contains(self, x: float, y: float, margin: float = 0.0) -> bool:
        x0, y0, x1, y1 = self.rect
        return x0 + margin - _EPS <= x <= x1 - margin + _EPS and y0 + margin - _EPS <= y <= y1 - margin + _EPS

    @property
    def center(self) -> tuple[float, float]:
        x0, y0, x1, y1 = self.rect
        return ((x0 + x1) / 2, (y0 + y1) / 2)


@dataclass(frozen=True)
class Door:
    between: tuple[str, str]
    at: tuple[float, float]


@dataclass(frozen=True)
class Fixture:
    id: str
    label: str
    room: str
    pose: tuple[float, float, float]
    size: tuple[float, float, float]
    kind: str  # "surface" | "container"
    openable: bool = False
    locked: bool = False  # initial state; truth, never shown to the robot
    attributes: dict[str, str] = field(default_factory=dict)

    @property
    def is_container(self) -> bool:
        return self.kind == "container"

    @property
    def is_drawer(self) -> bool:
        """Drawers slide (prismatic joint); other containers have hinged doors."""
        return "drawer" in self.label.lower()

    def footprint(self) -> list[tuple[float, float]]:
        """Corners of the footprint in the map frame."""
        x, y, yaw = self.pose
        hx, hy = self.size[0] / 2, self.size[1] / 2
        c, s = math.cos(yaw), math.sin(yaw)
        return [(x + c * dx - s * dy, y + s * dx + c * dy) for dx, dy in ((hx, hy), (-hx, hy), (-hx, -hy), (hx, -hy))]

    def to_map(self, lx: float, ly: float) -> tuple[float, float]:
        """A point in the fixture's own frame (origin at the footprint centre) in the map frame."""
        x, y, yaw = self.pose
        c, s = math.cos(yaw), math.sin(yaw)
        return (x + c * lx - s * ly, y + s * lx + c * ly)


@dataclass(frozen=True)
class ObjectSpec:
    id: str
    label: str
    attributes: dict[str, str]
    size: tuple[float, float, float]
    at: Optional[str]  # fixture id, "robot", or None (appears only through a timeline `add`)
    hidden: dict[str, str] = field(default_factory=dict)  # truth, never shown to the robot


@dataclass(frozen=True)
class TimelineEvent:
    t: float
    day: int
    time: str
    action: str  # move | add | remove | lock | unlock | open | close
    target: str  # object id (move/add/remove) or fixture id (lock/unlock/open/close)
    to: str = ""  # destination fixture (move/add)


@dataclass(frozen=True)
class PatrolSegment:
    day: int
    start: str
    end: str
    start_t: float
    end_t: float
    observations: int
    route: tuple[str, ...]


@dataclass(frozen=True)
class Success:
    kind: str  # pick_any | reach_any | answer_any
    values: tuple[str, ...]


@dataclass(frozen=True)
class Task:
    id: str
    at: float
    day: int
    time: str
    instruction: str
    type: str
    family: str
    success: Success
    optimal_actions: int
    budget: int
    sequence: Optional[str] = None


@dataclass
class Scenario:
    name: str
    seed: int
    rooms: list[Room]
    doors: list[Door]
    fixtures: list[Fixture]
    objects: list[ObjectSpec]
    timeline: list[TimelineEvent]
    patrol: list[PatrolSegment]
    tasks: list[Task]
    source: str = "<memory>"
    warnings: list[str] = field(default_factory=list)  # legal but suspicious, e.g. a fixture through a wall

    def __post_init__(self) -> None:
        self.room_by_id = {r.id: r for r in self.rooms}
        self.fixture_by_id = {f.id: f for f in self.fixtures}
        self.object_by_id = {o.id: o for o in self.objects}
        self.task_by_id = {t.id: t for t in self.tasks}

    def room_at(self, x: float, y: float) -> Optional[str]:
        """The room containing a point (first match on shared walls), or None outside every room."""
        for room in self.rooms:
            if room.contains(x, y):
                return room.id
        return None

    @property
    def days(self) -> int:
        last = max([e.t for e in self.timeline] + [p.end_t for p in self.patrol] + [t.at for t in self.tasks] + [0.0])
        return int(last // DAY) + 1


# ----------------------------------------------------------------------------------------------------------
# Validation helpers: each takes the error context (source, path) so messages point at the field.


class _Ctx:
    def __init__(self, source: str):
        self.source = source
        self.warnings: list[str] = []

    def fail(self, path: str, expected: str, got: Any = ..., ) -> ScenarioError:
        if got is not ...:
            expected = f"{expected}, got {_show(got)}"
        return ScenarioError(self.source, path, expected)

    def mapping(self, value: Any, path: str, required: tuple[str, ...], optional: tuple[str, ...] = ()) -> dict:
        if not isinstance(value, dict):
            raise self.fail(path, "expected a mapping", value)
        for key in value:
            if key not in required and key not in optional:
                allowed = ", ".join(required + optional)
                raise self.fail(f"{path}.{key}" if path else str(key), f"unknown key {key!r} (expected one of: {allowed})")
        for key in required:
            if key not in value:
                raise self.fail(path or "(top level)", f"missing required key {key!r}")
        return value

    def seq(self, value: Any, path: str, allow_empty: bool = True) -> list:
        if not isinstance(value, list):
            raise self.fail(path, "expected a list", value)
        if not allow_empty and not value:
            raise self.fail(path, "expected a non-empty list")
        return value

    def string(self, value: Any, path: str, pattern: Optional[re.Pattern] = None, what: str = "a string") -> str:
        if not isinstance(value, str) or not value.strip():
            raise self.fail(path, f"expected {what}", value)
        if pattern is not None and not pattern.match(value):
            raise self.fail(path, f"expected {what}", value)
        return value

    def number(self, value: Any, path: str, positive: bool = False) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise self.fail(path, "expected a number", value)
        if positive and value <= 0:
            raise self.fail(path, "expected a positive number", value)
        return float(value)

    def integer(self, value: Any, path: str, minimum: int = 0) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            raise self.fail(path, f"expected an integer >= {minimum}", value)
        return value

    def numbers(self, value: Any, path: str, n: int, positive: bool = False, what: str = "") -> tuple[float, ...]:
        what = what or f"a list of {n} numbers"
        if not isinstance(value, list) or len(value) != n:
            raise self.fail(path, f"expected {what}", value)
        return tuple(self.number(v, f"{path}[{i}]", positive) for i, v in enumerate(value))

    def boolean(self, value: Any, path: str) -> bool:
        if not isinstance(value, bool):
            raise self.fail(path, "expected true or false", value)
        return value

    def time(self, value: Any, path: str) -> str:
        # YAML 1.1 reads an unquoted 08:30 as the sexagesimal integer 510: say how to write it.
        if isinstance(value, int) and not isinstance(value, bool):
            raise self.fail(path, "expected a quoted time \"HH:MM\" (unquoted HH:MM is read by YAML as a number)", value)
        if not isinstance(value, str):
            raise self.fail(path, "expected a time \"HH:MM\"", value)
        try:
            clock(0, value)
        except ValueError:
            raise self.fail(path, "expected a time \"HH:MM\" (24 h)", value) from None
        return value

    def attributes(self, value: Any, path: str) -> dict[str, str]:
        if value is None:
            return {}
        if not isinstance(value, dict):
            raise self.fail(path, "expected a mapping of attribute names to values", value)
        out = {}
        for key, val in value.items():
            if not isinstance(key, str) or not key:
                raise self.fail(path, "expected attribute names that are strings", key)
            if isinstance(val, (dict, list)) or val is None:
                raise self.fail(f"{path}.{key}", "expected a scalar value (string, number or boolean)", val)
            out[key] = str(val).lower() if isinstance(val, bool) else str(val)
        return out


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


# ----------------------------------------------------------------------------------------------------------


def load_scenario(path: str | Path) -> Scenario:
    """Read and validate a scenario file. Raises ``ScenarioError`` (never a YAML or key error)."""
    source = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise ScenarioError(source, "", f"cannot read the file ({exc.strerror or exc})") from None
    except UnicodeDecodeError:
        raise ScenarioError(source, "", "expected a UTF-8 text file") from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ScenarioError(source, where, f"expected valid YAML ({problem})") from None
    return parse_scenario(data, source)


def parse_scenario(data: Any, source: str = "<memory>") -> Scenario:
    """Validate a parsed YAML document and build the ``Scenario``."""
    ctx = _Ctx(source)
    top = ctx.mapping(data, "", ("format", "name", "rooms", "fixtures", "objects"),
                      ("seed", "doors", "timeline", "patrol", "tasks"))
    if top["format"] != FORMAT:
        raise ctx.fail("format", f"expected {FORMAT!r}", top["format"])
    name = ctx.string(top["name"], "name", _NAME_RE, "a name of lowercase letters, digits and '_'")
    seed = ctx.integer(top.get("seed", 0), "seed")

    rooms = _parse_rooms(ctx, top["rooms"])
    room_ids = {r.id for r in rooms}
    doors = _parse_doors(ctx, top.get("doors") or [], {r.id: r for r in rooms})
    fixtures = _parse_fixtures(ctx, top["fixtures"], {r.id: r for r in rooms})
    fixture_ids = {f.id: f for f in fixtures}
    objects = _parse_objects(ctx, top["objects"], fixture_ids, room_ids)
    timeline = _parse_timeline(ctx, top.get("timeline") or [], fixture_ids, {o.id: o for o in objects})
    adjacency = _room_graph(doors)
    patrol = _parse_patrol(ctx, top.get("patrol") or [], room_ids, adjacency)
    tasks = _parse_tasks(ctx, top.get("tasks") or [], fixture_ids, {o.id for o in objects})
    return Scenario(name=name, seed=seed, rooms=rooms, doors=doors, fixtures=fixtures, objects=objects,
                    timeline=timeline, patrol=patrol, tasks=tasks, source=source, warnings=ctx.warnings)


def _unique(ctx: _Ctx, path: str, value: Any, seen: dict[str, str], what: str) -> str:
    ident = ctx.string(value, path, _ID_RE, f"an id of letters, digits, '_' or '-' for the {what}")
    if ident in seen:
        raise ctx.fail(path, f"expected a unique id, but {ident!r} is already used by {seen[ident]}")
    seen[ident] = path.rsplit(".", 1)[0]
    return ident


def _parse_rooms(ctx: _Ctx, value: Any) -> list[Room]:
    rooms: list[Room] = []
    seen: dict[str, str] = {}
    for i, item in enumerate(ctx.seq(value, "rooms", allow_empty=False)):
        p = f"rooms[{i}]"
        ctx.mapping(item, p, ("id", "rect"))
        rid = _unique(ctx, f"{p}.id", item["id"], seen, "room")
        rect = ctx.numbers(item["rect"], f"{p}.rect", 4, what="[xmin, ymin, xmax, ymax]")
        if rect[2] - rect[0] < 1.0 or rect[3] - rect[1] < 1.0:
            raise ctx.fail(f"{p}.rect", "expected xmax > xmin and ymax > ymin, each side at least 1 m", list(rect))
        for other in rooms:
            a, b = rect, other.rect
            if min(a[2], b[2]) - max(a[0], b[0]) > _EPS and min(a[3], b[3]) - max(a[1], b[1]) > _EPS:
                raise ctx.fail(f"{p}.rect", f"expected rooms not to overlap, but {rid!r} overlaps {other.id!r}")
        rooms.append(Room(rid, rect))  # type: ignore[arg-type]
    return rooms


def shared_wall(a: Room, b: Room) -> Optional[tuple[tuple[float, float], tuple[float, float]]]:
    """The segment two rooms share as a wall, or None when they do not touch along a side."""
    ax0, ay0, ax1, ay1 = a.rect
    bx0, by0, bx1, by1 = b.rect
    lo_y, hi_y = max(ay0, by0), min(ay1, by1)
    lo_x, hi_x = max(ax0, bx0), min(ax1, bx1)
    for xa, xb in ((ax1, bx0), (ax0, bx1)):
        if abs(xa - xb) < _EPS and hi_y - lo_y > _EPS:
            return ((xa, lo_y), (xa, hi_y))
    for ya, yb in ((ay1, by0), (ay0, by1)):
        if abs(ya - yb) < _EPS and hi_x - lo_x > _EPS:
            return ((lo_x, ya), (hi_x, ya))
    return None


def _parse_doors(ctx: _Ctx, value: Any, rooms: dict[str, Room]) -> list[Door]:
    doors = []
    for i, item in enumerate(ctx.seq(value, "doors")):
        p = f"doors[{i}]"
        ctx.mapping(item, p, ("between", "at"))
        between = item["between"]
        if not isinstance(between, list) or len(between) != 2 or between[0] == between[1]:
            raise ctx.fail(f"{p}.between", "expected two different room ids", between)
        for j, rid in enumerate(between):
            if rid not in rooms:
                raise ctx.fail(f"{p}.between[{j}]", f"expected a room id (one of {sorted(rooms)})", rid)
        at = ctx.numbers(item["at"], f"{p}.at", 2, what="[x, y]")
        wall = shared_wall(rooms[between[0]], rooms[between[1]])
        if wall is None:
            raise ctx.fail(p, f"expected rooms that share a wall, but {between[0]!r} and {between[1]!r} do not touch")
        (x0, y0), (x1, y1) = wall
        if not (x0 - _EPS <= at[0] <= x1 + _EPS and y0 - _EPS <= at[1] <= y1 + _EPS):
            raise ctx.fail(f"{p}.at", f"expected a point on the wall shared by {between[0]!r} and {between[1]!r} "
                                      f"(from {list(wall[0])} to {list(wall[1])})", list(at))
        doors.append(Door((between[0], between[1]), at))  # type: ignore[arg-type]
    return doors


def _parse_fixtures(ctx: _Ctx, value: Any, rooms: dict[str, Room]) -> list[Fixture]:
    fixtures = []
    seen: dict[str, str] = {}
    for i, item in enumerate(ctx.seq(value, "fixtures", allow_empty=False)):
        p = f"fixtures[{i}]"
        ctx.mapping(item, p, ("id", "class", "room", "pose", "size", "kind"), ("openable", "locked", "attributes"))
        fid = _unique(ctx, f"{p}.id", item["id"], seen, "fixture")
        label = ctx.string(item["class"], f"{p}.class", what="a class name such as 'cabinet'")
        if item["room"] not in rooms:
            raise ctx.fail(f"{p}.room", f"expected a room id (one of {sorted(rooms)})", item["room"])
        pose = ctx.numbers(item["pose"], f"{p}.pose", 3, what="[x, y, yaw]")
        size = ctx.numbers(item["size"], f"{p}.size", 3, positive=True, what="[depth, width, height] in metres")
        kind = item["kind"]
        if kind not in FIXTURE_KINDS:
            raise ctx.fail(f"{p}.kind", f"expected one of {list(FIXTURE_KINDS)}", kind)
        openable = ctx.boolean(item.get("openable", kind == "container"), f"{p}.openable")
        locked = ctx.boolean(item.get("locked", False), f"{p}.locked")
        if openable and kind != "container":
            raise ctx.fail(f"{p}.openable", "expected openable only on a container")
        if locked and not openable:
            raise ctx.fail(f"{p}.locked", "expected locked only on an openable container")
        fixture = Fixture(fid, label, item["room"], pose, size, kind, openable, locked,  # type: ignore[arg-type]
                          ctx.attributes(item.get("attributes"), f"{p}.attributes"))
        room = rooms[fixture.room]
        if not room.contains(pose[0], pose[1]):
            raise ctx.fail(f"{p}.pose", f"expected the fixture's centre inside its room {room.id!r} {list(room.rect)}",
                           list(pose))
        outside = [c for c in fixture.footprint() if not room.contains(*c)]
        if outside:
            # Sticking through a wall is kept as a warning: the shared example file does it (counter_1, desk_1).
            ctx.warnings.append(f"{ctx.source}: {p}.pose: the footprint of {fid!r} (size {list(size)} at yaw "
                                f"{pose[2]:.2f}) reaches outside room {room.id!r} {list(room.rect)}, e.g. corner "
                                f"({outside[0][0]:.2f}, {outside[0][1]:.2f})")
        fixtures.append(fixture)
    return fixtures


def _parse_objects(ctx: _Ctx, value: Any, fixtures: dict[str, Fixture], room_ids: set[str]) -> list[ObjectSpec]:
    objects = []
    seen: dict[str, str] = {f: "a fixture" for f in fixtures}
    for i, item in enumerate(ctx.seq(value, "objects")):
        p = f"objects[{i}]"
        ctx.mapping(item, p, ("id", "class", "at"), ("attributes", "size", "hidden"))
        oid = _unique(ctx, f"{p}.id", item["id"], seen, "object")
        if oid == ROBOT or oid in room_ids:
            raise ctx.fail(f"{p}.id", "expected an id that is not 'robot' or a room id", oid)
        label = ctx.string(item["class"], f"{p}.class", what="a class name such as 'mug'")
        size = ctx.numbers(item.get("size", [0.1, 0.1, 0.1]), f"{p}.size", 3, positive=True, what="[x, y, z] in metres")
        at = item["at"]
        if at is not None and at != ROBOT and at not in fixtures:
            raise ctx.fail(f"{p}.at", "expected a fixture id, 'robot', or null (appears later through 'add')", at)
        objects.append(ObjectSpec(oid, label, ctx.attributes(item.get("attributes"), f"{p}.attributes"),
                                  size, at, ctx.attributes(item.get("hidden"), f"{p}.hidden")))  # type: ignore[arg-type]
    held = [o.id for o in objects if o.at == ROBOT]
    if len(held) > 1:
        raise ctx.fail("objects", f"expected at most one object at 'robot' (it holds one at a time), got {held}")
    return objects


def _parse_timeline(ctx: _Ctx, value: Any, fixtures: dict[str, Fixture],
                    objects: dict[str, ObjectSpec]) -> list[TimelineEvent]:
    events = []
    present = {o.id: o.at is not None for o in objects.values()}
    locked = {f.id: f.locked for f in fixtures.values()}
    last_t = -1.0
    for i, item in enumerate(ctx.seq(value, "timeline")):
        p = f"timeline[{i}]"
        if not isinstance(item, dict):
            raise ctx.fail(p, "expected a mapping such as {day: 1, time: \"08:30\", move: mug_1, to: sink_1}", item)
        actions = [a for a in TIMELINE_ACTIONS if a in item]
        if len(actions) != 1:
            raise ctx.fail(p, f"expected exactly one action key out of {list(TIMELINE_ACTIONS)}", item)
        action = actions[0]
        needs_to = action in ("move", "add")
        ctx.mapping(item, p, ("day", "time", action) + (("to",) if needs_to else ()))
        day = ctx.integer(item["day"], f"{p}.day")
        hhmm = ctx.time(item["time"], f"{p}.time")
        t = clock(day, hhmm)
        if t < last_t:
            raise ctx.fail(f"{p}.time", "expected timeline events in time order (this one is earlier than the one before)")
        last_t = t
        target = item[action]
        to = ""
        if action in ("move", "add", "remove"):
            if target not in objects:
                raise ctx.fail(f"{p}.{action}", "expected an object id", target)
            if action == "add" and present[target]:
                raise ctx.fail(f"{p}.add", f"expected an object that is absent at this time, but {target!r} is already "
                                           "in the world (use 'move', or declare it with 'at: null')")
            if action != "add" and not present[target]:
                raise ctx.fail(f"{p}.{action}", f"expected an object present at this time, but {target!r} is not in "
                                                "the world (objects with 'at: null' appear only through 'add')")
            present[target] = action != "remove"
            if needs_to:
                to = item["to"]
                if to not in fixtures:
                    raise ctx.fail(f"{p}.to", "expected a fixture id", to)
        else:
            if target not in fixtures:
                raise ctx.fail(f"{p}.{action}", "expected a fixture id", target)
            if not fixtures[target].openable:
                raise ctx.fail(f"{p}.{action}", f"expected an openable container, but {target!r} is not")
            if action == "open" and locked[target]:
                raise ctx.fail(f"{p}.open", f"expected an unlocked container, but {target!r} is locked then (unlock it first)")
            if action in ("lock", "unlock"):
                locked[target] = action == "lock"
        events.append(TimelineEvent(t, day, hhmm, action, target, to))
    return events


def _room_graph(doors: list[Door]) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for door in doors:
        a, b = door.between
        graph.setdefault(a, set()).add(b)
        graph.setdefault(b, set()).add(a)
    return graph


def _connected(graph: dict[str, set[str]], start: str) -> set[str]:
    seen, todo = {start}, [start]
    while todo:
        for nxt in graph.get(todo.pop(), ()):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


def _parse_patrol(ctx: _Ctx, value: Any, room_ids: set[str], graph: dict[str, set[str]]) -> list[PatrolSegment]:
    segments = []
    last_end = -1.0
    for i, item in enumerate(ctx.seq(value, "patrol")):
        p = f"patrol[{i}]"
        ctx.mapping(item, p, ("day", "start", "end", "observations", "route"))
        day = ctx.integer(item["day"], f"{p}.day")
        start, end = ctx.time(item["start"], f"{p}.start"), ctx.time(item["end"], f"{p}.end")
        start_t, end_t = clock(day, start), clock(day, end)
        if end_t <= start_t:
            raise ctx.fail(f"{p}.end", f"expected an end time after the start {start!r}", end)
        if start_t < last_end:
            raise ctx.fail(f"{p}.start", "expected patrols in time order, not overlapping the one before")
        last_end = end_t
        count = ctx.integer(item["observations"], f"{p}.observations", minimum=1)
        route = ctx.seq(item["route"], f"{p}.route", allow_empty=False)
        for j, rid in enumerate(route):
            if rid not in room_ids:
                raise ctx.fail(f"{p}.route[{j}]", f"expected a room id (one of {sorted(room_ids)})", rid)
            if rid not in _connected(graph, route[0]):
                raise ctx.fail(f"{p}.route[{j}]", f"expected a room reachable through doors from {route[0]!r}", rid)
        segments.append(PatrolSegment(day, start, end, start_t, end_t, count, tuple(route)))
    return segments


def _parse_tasks(ctx: _Ctx, value: Any, fixtures: dict[str, Fixture], object_ids: set[str]) -> list[Task]:
    tasks = []
    seen: dict[str, str] = {}
    sequences: dict[str, int] = {}
    previous_sequence: Optional[str] = None
    for i, item in enumerate(ctx.seq(value, "tasks")):
        p = f"tasks[{i}]"
        ctx.mapping(item, p, ("id", "at", "instruction", "type", "family", "success", "optimal_actions", "budget"),
                    ("sequence",))
        tid = _unique(ctx, f"{p}.id", item["id"], seen, "task")
        at = ctx.mapping(item["at"], f"{p}.at", ("day", "time"))
        day = ctx.integer(at["day"], f"{p}.at.day")
        hhmm = ctx.time(at["time"], f"{p}.at.time")
        instruction = ctx.string(item["instruction"], f"{p}.instruction", what="an instruction in words")
        if item["type"] not in TASK_TYPES:
            raise ctx.fail(f"{p}.type", f"expected one of {list(TASK_TYPES)}", item["type"])
        family = ctx.string(item["family"], f"{p}.family", _NAME_RE,
                            f"a family name of lowercase letters, digits and '_' (e.g. {', '.join(KNOWN_FAMILIES[:4])})")
        success = _parse_success(ctx, item["success"], f"{p}.success", fixtures, object_ids)
        optimal = ctx.integer(item["optimal_actions"], f"{p}.optimal_actions")
        budget = ctx.integer(item["budget"], f"{p}.budget", minimum=1)
        if optimal > budget:
            raise ctx.fail(f"{p}.optimal_actions", f"expected at most the budget ({budget})", optimal)
        sequence = item.get("sequence")
        if sequence is not None:
            sequence = ctx.string(sequence, f"{p}.sequence", _ID_RE, "a sequence name or null")
            if sequence in sequences and previous_sequence != sequence:
                raise ctx.fail(f"{p}.sequence", f"expected the tasks of sequence {sequence!r} to be listed back to "
                                                f"back (it was interrupted after {tasks[sequences[sequence]].id!r})")
            if sequence in sequences and clock(day, hhmm) < tasks[sequences[sequence]].at:
                raise ctx.fail(f"{p}.at", f"expected a time no earlier than the previous task of sequence {sequence!r}")
            sequences[sequence] = len(tasks)
        previous_sequence = sequence
        tasks.append(Task(tid, clock(day, hhmm), day, hhmm, instruction, item["type"], family, success,
                          optimal, budget, sequence))
    return tasks


def _parse_success(ctx: _Ctx, value: Any, path: str, fixtures: dict[str, Fixture], object_ids: set[str]) -> Success:
    if not isinstance(value, dict) or len(value) != 1 or next(iter(value)) not in SUCCESS_KINDS:
        raise ctx.fail(path, f"expected exactly one of {list(SUCCESS_KINDS)}", value)
    kind, values = next(iter(value.items()))
    values = ctx.seq(values, f"{path}.{kind}", allow_empty=False)
    for j, v in enumerate(values):
        vp = f"{path}.{kind}[{j}]"
        if kind == "pick_any" and v not in object_ids:
            raise ctx.fail(vp, "expected an object id", v)
        if kind == "reach_any" and v not in fixtures:
            raise ctx.fail(vp, "expected a fixture id", v)
        if kind == "answer_any":
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                v = str(v)
            ctx.string(v, vp, what="a non-empty answer string")
    return Success(kind, tuple(str(v) for v in values))
