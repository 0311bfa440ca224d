"""A household's belongings and its days: what is where at the start, what people move, put away,
hide, use up or leave open, and when the robot patrols.

``Home`` holds the plan (layout, objects, timeline events, patrols) and ``facts``: situations planted
on purpose so that tasks of every family have something to ask about (a habit broken today, an object
that stood somewhere yesterday and another one there now, twins, a cluttered surface, a row of
containers with one locked, things put away unseen). Whether a planted situation really holds as the
robot saw it is checked later against the simulator's replay, never assumed.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Optional

from ..scenario import clock
from .catalogue import Catalogue, ObjectClass
from .layout import FixturePlan, Layout

PATROL_WINDOWS = (("08:00", "11:30"), ("13:30", "17:00"))
OWNED_SHARE = 0.25


@dataclass
class ObjectPlan:
    id: str
    cls: ObjectClass
    attributes: dict[str, str]
    size: tuple[float, float, float]
    at: Optional[str]


@dataclass
class Event:
    t: float
    action: str  # move | add | remove | lock | unlock | open | close
    target: str
    to: str = ""


@dataclass
class Home:
    layout: Layout
    objects: list[ObjectPlan] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    days: int = 3
    facts: dict[str, list[dict]] = field(default_factory=dict)
    reserved: set[str] = field(default_factory=set)
    load: dict[str, float] = field(default_factory=dict)  # fixture id -> footprint area in use

    @property
    def last_day(self) -> int:
        return self.days - 1

    def fixture(self, fid: str) -> FixturePlan:
        return next(f for f in self.layout.fixtures if f.id == fid)

    def obj(self, oid: str) -> ObjectPlan:
        return next(o for o in self.objects if o.id == oid)

    def room_kind(self, rid: str) -> str:
        return self.layout.room(rid).kind

    def fact(self, kind: str, **values) -> None:
        self.facts.setdefault(kind, []).append(values)

    def instances(self, label: str) -> list[ObjectPlan]:
        return [o for o in self.objects if o.cls.label == label]

    def free(self, fid: str, size: tuple[float, float, float]) -> bool:
        f = self.fixture(fid)
        return self.load.get(fid, 0.0) + size[0] * size[1] <= 0.55 * f.size[0] * f.size[1]

    def occupy(self, fid: Optional[str], size: tuple[float, float, float], sign: float = 1.0) -> None:
        if fid:
            self.load[fid] = self.load.get(fid, 0.0) + sign * size[0] * size[1]


# ----------------------------------------------------------------------------------------- belongings

def homes_for(cls: ObjectClass, layout: Layout, containers: bool) -> list[FixturePlan]:
    """Fixtures where an object of this class is plausibly kept: its usual surfaces (or storage) in
    rooms of a kind it belongs to; failing that, the same fixture classes in any room."""
    wanted = cls.stored_in if containers else cls.found_on
    fits = [f for f in layout.fixtures if f.cls.label in wanted]
    in_room = [f for f in fits if layout.room(f.room).kind in cls.rooms]
    return in_room or fits


def _attributes(rng: random.Random, cls: ObjectClass, taken: list[dict[str, str]]) -> dict[str, str]:
    """Attribute values for a new instance, different from every other instance of its class."""
    names = list(cls.attributes)
    for _ in range(30):
        rng.shuffle(names)
        keep = sorted(names[: rng.randint(min(2, len(names)), min(4, len(names)))],
                      key=lambda k: (k != "color", k))
        if "color" in cls.attributes and "color" not in keep:
            keep = ["color"] + keep[:-1] if keep else ["color"]
        attrs = {k: rng.choice(cls.attributes[k]) for k in keep}
        if all(any(other.get(k) not in (None, v) for k, v in attrs.items()) for other in taken):
            return attrs
    return attrs


def _object_id(cls: ObjectClass, counts: dict[str, int]) -> str:
    slug = "".join(c if c.isalnum() else "_" for c in cls.label.lower()).strip("_")
    counts[slug] = counts.get(slug, 0) + 1
    return f"{slug}_{counts[slug]}"


def populate(rng: random.Random, cat: Catalogue, home: Home, n_objects: int, people: list[str]) -> dict[str, int]:
    """Choose object classes that fit the home's rooms and furniture, several instances of many of
    them, each with distinguishing attributes, placed on usual surfaces or put away."""
    layout = home.layout
    usable = [c for c in cat.objects.values() if homes_for(c, layout, containers=False)]
    rng.shuffle(usable)
    counts: dict[str, int] = {}
    ci = 0
    while len(home.objects) < n_objects and ci < len(usable):
        cls = usable[ci]
        ci += 1
        copies = rng.choices((1, 2, 3), weights=(0.5, 0.35, 0.15))[0]
        for _ in range(copies):
            add_object(rng, home, cls, counts, people, stored=rng.random() < 0.2)
    return counts


def add_object(rng: random.Random, home: Home, cls: ObjectClass, counts: dict[str, int], people: list[str],
               stored: bool = False, at: Optional[str] = None, attributes: Optional[dict[str, str]] = None,
               ) -> Optional[ObjectPlan]:
    cat_surfaces = homes_for(cls, home.layout, containers=False)
    cat_storage = homes_for(cls, home.layout, containers=True)
    size = tuple(round(v * rng.uniform(0.9, 1.1), 3) for v in cls.size)
    if at is None:
        options = cat_storage if stored and cat_storage else cat_surfaces
        options = [f for f in options if home.free(f.id, size) and not f.locked]  # type: ignore[arg-type]
        if not options:
            return None
        at = rng.choice(options).id
    if attributes is None:
        attributes = _attributes(rng, cls, [o.attributes for o in home.instances(cls.label)])
        if home.instances(cls.label) and people and rng.random() < OWNED_SHARE:
            attributes["owner"] = rng.choice(people)
    plan = ObjectPlan(_object_id(cls, counts), cls, dict(attributes), size, at)  # type: ignore[arg-type]
    home.objects.append(plan)
    home.occupy(at, size)
    return plan


# ----------------------------------------------------------------------------------------- days of life

def move(home: Home, oid: str, to: str, t: float) -> None:
    home.events.append(Event(t, "move", oid, to))


def patrols(home: Home, per_room: int) -> list[dict]:
    """Two patrols a day through every room, in an order that follows the doors from the kitchen."""
    rooms = [r.id for r in home.layout.rooms]
    links: dict[str, set[str]] = {r: set() for r in rooms}
    for a, b, _ in home.layout.doors:
        links[a].add(b)
        links[b].add(a)
    start = next((r.id for r in home.layout.rooms if r.kind == "kitchen"), rooms[0])
    order, todo = [], [start]
    while todo:  # depth-first along doors: neighbouring rooms one after another
        r = todo.pop()
        if r in order:
            continue
        order.append(r)
        todo.extend(sorted(links[r] - set(order), reverse=True))
    segments = []
    for day in range(home.days):
        for start_hm, end_hm in PATROL_WINDOWS:
            segments.append({"day": day, "start": start_hm, "end": end_hm,
                             "observations": per_room * len(order) + 7, "route": list(order)})
    return segments


def night(day: int, rng: random.Random) -> float:
    """A time in the evening of ``day`` when no patrol runs."""
    return clock(day, f"{rng.randint(19, 22):02d}:{rng.choice((0, 15, 30, 45)):02d}")


def lunch(day: int, rng: random.Random) -> float:
    """A time between the two patrols of ``day``."""
    return clock(day, f"12:{rng.choice((0, 10, 20, 30, 40, 50)):02d}")


def background_moves(rng: random.Random, home: Home, share: float) -> None:
    """People move things around between and during patrols; the robot sees some moves, not others."""
    free = [o for o in home.objects if o.id not in home.reserved and o.at and not home.fixture(o.at).cls.is_container]
    rng.shuffle(free)
    for o in free[: int(len(free) * share)]:
        options = [f for f in homes_for(o.cls, home.layout, containers=False)
                   if f.id != o.at]
        if not options:
            continue
        day = rng.randint(0, max(0, home.last_day - 1))
        t = clock(day, f"{rng.randint(7, 20):02d}:{rng.choice((5, 25, 45)):02d}")
        dest = rng.choice(options).id
        move(home, o.id, dest, t)
        if rng.random() < 0.5:  # and often back again later
            back = t + rng.uniform(3, 20) * 3600
            if back < clock(home.last_day, "07:00"):
                move(home, o.id, o.at, back)
