"""Floor plans: rooms in one or two rows, doors on shared walls, fixtures against the walls.

``make_layout(rng, catalogue, n_rooms) -> Layout`` picks room kinds (a kitchen and a living room
always, then others), sizes them from the catalogue, connects every room through doors (a random
spanning tree of the rooms that share a wall, extra doors, sometimes two doors between one pair) and
stands fixtures along the walls facing into the room, clear of doors and of each other. Fixture
geometry follows the scenario format: the front faces the fixture's own +x.
"""
from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from typing import Optional

from .catalogue import Catalogue, FixtureClass

ALWAYS = ("kitchen", "living_room")
DOOR_MARGIN = 0.5  # a door stays this far from the ends of a shared wall
DOOR_CLEAR = 0.55  # no fixture within this distance of a door, along the wall
WALL_GAP = 0.02


@dataclass
class RoomPlan:
    id: str
    kind: str
    rect: tuple[float, float, float, float]


@dataclass
class FixturePlan:
    id: str
    cls: FixtureClass
    room: str
    pose: tuple[float, float, float]
    size: tuple[float, float, float]
    locked: bool = False
    attributes: dict[str, str] = field(default_factory=dict)

    def footprint_box(self) -> tuple[float, float, float, float]:
        """Axis-aligned box of the footprint (yaws are multiples of 90 degrees)."""
        x, y, yaw = self.pose
        c, s = abs(math.cos(yaw)), abs(math.sin(yaw))
        hx = (self.size[0] * c + self.size[1] * s) / 2
        hy = (self.size[0] * s + self.size[1] * c) / 2
        return (x - hx, y - hy, x + hx, y + hy)


@dataclass
class Layout:
    rooms: list[RoomPlan]
    doors: list[tuple[str, str, tuple[float, float]]]
    fixtures: list[FixturePlan]
    row: list[str] = field(default_factory=list)  # a row of alike lockable containers, when one was placed

    def room(self, rid: str) -> RoomPlan:
        return next(r for r in self.rooms if r.id == rid)


def _pick_kinds(rng: random.Random, cat: Catalogue, n: int) -> list[str]:
    kinds = [k for k in ALWAYS if k in cat.rooms][:n]
    others = [k for k in cat.rooms if k not in kinds]
    rng.shuffle(others)
    while len(kinds) < n:
        # A second bedroom or bathroom is common in bigger homes; otherwise each kind once.
        repeatable = [k for k in ("bedroom", "bathroom") if k in cat.rooms and kinds.count(k) == 1]
        if others and (not repeatable or rng.random() < 0.75):
            kinds.append(others.pop())
        elif repeatable:
            kinds.append(rng.choice(repeatable))
        else:
            kinds.append(rng.choice(list(cat.rooms)))
    return kinds


def _room_ids(kinds: list[str]) -> list[str]:
    ids, seen = [], {}
    for k in kinds:
        seen[k] = seen.get(k, 0) + 1
        ids.append(k if seen[k] == 1 else f"{k}_{seen[k]}")
    return ids


def _place_rooms(rng: random.Random, cat: Catalogue, kinds: list[str]) -> list[RoomPlan]:
    order = list(range(len(kinds)))
    rng.shuffle(order)
    n = len(kinds)
    rows = [order] if n <= 3 else [order[: (n + 1) // 2], order[(n + 1) // 2:]]
    ids = _room_ids(kinds)
    rooms: list[Optional[RoomPlan]] = [None] * n
    y = 0.0
    for row in rows:
        depth = round(max(rng.uniform(*cat.rooms[kinds[i]].size[1]) for i in row), 1)
        x = 0.0
        for i in row:
            width = round(rng.uniform(*cat.rooms[kinds[i]].size[0]), 1)
            rooms[i] = RoomPlan(ids[i], kinds[i], (x, y, round(x + width, 2), round(y + depth, 2)))
            x = round(x + width, 2)
        y = round(y + depth, 2)
    return [r for r in rooms if r is not None]


def _shared(a: RoomPlan, b: RoomPlan) -> Optional[tuple[str, float, float, float]]:
    """('x', at, lo, hi) for a vertical shared wall at x=at spanning y in [lo, hi]; ('y', ...) likewise."""
    ax0, ay0, ax1, ay1 = a.rect
    bx0, by0, bx1, by1 = b.rect
    for xa, xb in ((ax1, bx0), (ax0, bx1)):
        lo, hi = max(ay0, by0), min(ay1, by1)
        if abs(xa - xb) < 1e-6 and hi - lo > 0:
            return ("x", xa, lo, hi)
    for ya, yb in ((ay1, by0), (ay0, by1)):
        lo, hi = max(ax0, bx0), min(ax1, bx1)
        if abs(ya - yb) < 1e-6 and hi - lo > 0:
            return ("y", ya, lo, hi)
    return None


def _door_point(axis: str, at: float, t: float) -> tuple[float, float]:
    return (round(at, 2), round(t, 2)) if axis == "x" else (round(t, 2), round(at, 2))


def _make_doors(rng: random.Random, rooms: list[RoomPlan]) -> list[tuple[str, str, tuple[float, float]]]:
    pairs = []
    for i, a in enumerate(rooms):
        for b in rooms[i + 1:]:
            wall = _shared(a, b)
            if wall and wall[3] - wall[2] >= 2 * DOOR_MARGIN + 0.2:
                pairs.append((a.id, b.id, wall))
    rng.shuffle(pairs)
    group = {r.id: r.id for r in rooms}

    def root(r: str) -> str:
        while group[r] != r:
            r = group[r]
        return r

    chosen = []
    for a, b, wall in pairs:  # a random spanning tree first, then a few extra connections
        if root(a) != root(b):
            group[root(a)] = root(b)
            chosen.append((a, b, wall))
        elif rng.random() < 0.3:
            chosen.append((a, b, wall))
    if len({root(r.id) for r in rooms}) > 1:
        raise ValueError("rooms are not connected")  # cannot happen with the row layout
    doors = []
    for a, b, (axis, at, lo, hi) in chosen:
        t = rng.uniform(lo + DOOR_MARGIN, hi - DOOR_MARGIN)
        doors.append((a, b, _door_point(axis, at, t)))
        if hi - lo >= 3.2 and rng.random() < 0.35:  # a second door on a long wall
            far = [v for v in (rng.uniform(lo + DOOR_MARGIN, hi - DOOR_MARGIN) for _ in range(8)) if abs(v - t) >= 1.4]
            if far:
                doors.append((a, b, _door_point(axis, at, far[0])))
    return doors


# Walls of a room: (name, start point, direction along the wall, inward normal, length).
def _walls(rect: tuple[float, float, float, float]) -> list[tuple[tuple[float, float], tuple[float, float],
                                                                  tuple[float, float], float]]:
    x0, y0, x1, y1 = rect
    return [((x0, y0), (1.0, 0.0), (0.0, 1.0), x1 - x0), ((x1, y1), (-1.0, 0.0), (0.0, -1.0), x1 - x0),
            ((x1, y0), (0.0, 1.0), (-1.0, 0.0), y1 - y0), ((x0, y1), (0.0, -1.0), (1.0, 0.0), y1 - y0)]


def _overlaps(a: tuple[float, float, float, float], b: tuple[float, float, float, float], gap: float = 0.08) -> bool:
    return not (a[2] + gap <= b[0] or b[2] + gap <= a[0] or a[3] + gap <= b[1] or b[3] + gap <= a[1])


class _RoomFurnisher:
    """Places fixtures of one room along its walls, clear of doors and of each other."""

    def __init__(self, room: RoomPlan, doors: list[tuple[float, float]], placed: list[FixturePlan]):
        self.room, self.doors, self.placed = room, doors, placed

    def _fits(self, plan: FixturePlan) -> bool:
        box = plan.footprint_box()
        x0, y0, x1, y1 = self.room.rect
        if box[0] < x0 - 1e-6 or box[1] < y0 - 1e-6 or box[2] > x1 + 1e-6 or box[3] > y1 + 1e-6:
            return False
        # The robot stands in front of the fixture: keep 0.9 m clear in front of it inside the room.
        fx, fy, yaw = plan.pose
        front = (fx + math.cos(yaw) * (plan.size[0] / 2 + 0.9), fy + math.sin(yaw) * (plan.size[0] / 2 + 0.9))
        if not (x0 + 0.3 <= front[0] <= x1 - 0.3 and y0 + 0.3 <= front[1] <= y1 - 0.3):
            return False
        for dx, dy in self.doors:
            if box[0] - DOOR_CLEAR <= dx <= box[2] + DOOR_CLEAR and box[1] - DOOR_CLEAR <= dy <= box[3] + DOOR_CLEAR:
                return False
        return not any(_overlaps(box, other.footprint_box()) for other in self.placed if other.room == self.room.id)

    def place_row(self, rng: random.Random, items: list[tuple[str, FixtureClass, tuple[float, float, float]]],
                  tries: int = 40) -> Optional[list[FixturePlan]]:
        """Stand fixtures side by side along one wall (a row of cabinets); None when no wall has room."""
        total = sum(size[1] for _, _, size in items) + 0.1 * (len(items) - 1)
        walls = _walls(self.room.rect)
        for _ in range(tries):
            (sx, sy), (dx, dy), (nx, ny), length = rng.choice(walls)
            if length < total + 0.2:
                continue
            t = rng.uniform(0.1, length - total - 0.1)
            plans = []
            for fid, cls, size in items:
                centre_t = t + size[1] / 2
                depth = size[0]
                x = sx + dx * centre_t + nx * (depth / 2 + WALL_GAP)
                y = sy + dy * centre_t + ny * (depth / 2 + WALL_GAP)
                plans.append(FixturePlan(fid, cls, self.room.id, (round(x, 3), round(y, 3),
                                                                  round(math.atan2(ny, nx), 4)), size))
                t += size[1] + 0.1
            ok = True
            for p in plans:
                if not self._fits(p):
                    ok = False
                    break
                self.placed.append(p)
            if ok:
                return plans
            for p in plans:
                if p in self.placed:
                    self.placed.remove(p)
        return None

    def place(self, rng: random.Random, fid: str, cls: FixtureClass, size: tuple[float, float, float]) -> Optional[FixturePlan]:
        rows = self.place_row(rng, [(fid, cls, size)])
        return rows[0] if rows else None


def jitter_size(rng: random.Random, size: tuple[float, float, float]) -> tuple[float, float, float]:
    return tuple(round(v * rng.uniform(0.9, 1.1), 2) for v in size)  # type: ignore[return-value]


def make_layout(rng: random.Random, cat: Catalogue, n_rooms: int, fixtures_per_room: tuple[int, int]) -> Layout:
    kinds = _pick_kinds(rng, cat, n_rooms)
    rooms = _place_rooms(rng, cat, kinds)
    doors = _make_doors(rng, rooms)
    layout = Layout(rooms, doors, [])
    counts: dict[str, int] = {}
    _plant_row(rng, cat, layout, counts)
    for room in rooms:
        door_points = [at for a, b, at in doors if room.id in (a, b)]
        furnisher = _RoomFurnisher(room, door_points, layout.fixtures)
        surfaces = cat.fixtures_for(room.kind, "surface")
        containers = cat.fixtures_for(room.kind, "container")
        rng.shuffle(surfaces)
        rng.shuffle(containers)
        want = rng.randint(*fixtures_per_room)
        # At least two surfaces and one container; then a mix, some classes twice.
        order = surfaces[:2] + containers[:1]
        pool = surfaces[2:] + containers[1:]
        rng.shuffle(pool)
        order += pool
        while len(order) < want:
            order.append(rng.choice(surfaces + containers))
        for cls in order[:want]:
            fid = add_fixture(rng, furnisher, cls, counts)
            if fid is None:
                continue
    return layout


def _plant_row(rng: random.Random, cat: Catalogue, layout: Layout, counts: dict[str, int]) -> None:
    """Three alike lockable containers side by side in one room (before the room's other furniture)."""
    options = [(room, cls) for room in layout.rooms for cls in cat.fixtures_for(room.kind, "container")
               if cls.lockable and cls.size[1] <= 1.0]
    rng.shuffle(options)
    for room, cls in options:
        doors = [at for a, b, at in layout.doors if room.id in (a, b)]
        size = jitter_size(rng, cls.size)
        before = dict(counts)
        row = _RoomFurnisher(room, doors, layout.fixtures).place_row(
            rng, [(fixture_id(cls, counts), cls, size) for _ in range(3)])
        if row:
            color = rng.choice(cls.colors) if cls.colors else ""
            for plan in row:
                plan.attributes.update({"color": color} if color else {})
            layout.row = [p.id for p in row]
            return
        counts.clear()
        counts.update(before)


def fixture_id(cls: FixtureClass, counts: dict[str, int]) -> str:
    slug = cls.label.replace(" ", "_").replace("'", "").replace("-", "_")
    counts[slug] = counts.get(slug, 0) + 1
    return f"{slug}_{counts[slug]}"


def add_fixture(rng: random.Random, furnisher: _RoomFurnisher, cls: FixtureClass, counts: dict[str, int]) -> Optional[str]:
    fid = fixture_id(cls, counts)
    plan = furnisher.place(rng, fid, cls, jitter_size(rng, cls.size))
    if plan is None:
        counts[fid.rsplit("_", 1)[0]] -= 1
        return None
    if cls.colors:
        plan.attributes["color"] = rng.choice(cls.colors)
    return fid
