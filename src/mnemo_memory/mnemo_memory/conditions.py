"""What a query asks of the indexed fields, neutral to the backend: ``Conditions`` (a conjunction
each backend translates to its engine's Filter), the memory filter's and a query's time and place
as conditions (``filter_conditions``, ``intersect_time``), and the exact distance check that
follows a box on the x/y range indices (``Region``), so corners of the box never leak into results.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any, Optional

from mnemo_common.types import MemoryFilter

from mnemo_memory.records import ROOM_HOUR, hour_of, room_hour

MAX_ROOM_HOURS = 48  # a longer range: the stamp index alone (a match of so many keywords costs as much)


@dataclass(frozen=True)
class Conditions:
    """A conjunction of indexed-field conditions, translated by each backend to its Filter."""

    stamp_gte: Optional[float] = None
    stamp_lte: Optional[float] = None
    stamp_lt: Optional[float] = None
    # spanning: the stamp range also admits compacted records whose span overlaps it;
    # merged_only: only compacted records, starting by stamp_lte and lasting until last_gte
    spanning: bool = False
    merged_only: bool = False
    last_gte: Optional[float] = None
    x_range: Optional[tuple[float, float]] = None
    y_range: Optional[tuple[float, float]] = None
    room: str = ""
    labels: tuple[str, ...] = ()
    # object sightings only: leave out these instances and these sighting point ids
    except_objects: tuple[str, ...] = ()
    except_ids: tuple[str, ...] = ()

    def order_start(self, descending: bool) -> Optional[float]:
        """Where an ordered walk of the stamp index starts: at the range's near end, so the engine
        does not walk (and filter) every record before it."""
        if descending:
            ends = [v for v in (self.stamp_lte, self.stamp_lt) if v is not None]
            return min(ends) if ends else None
        return self.stamp_gte

    def box(self, x: float, y: float, r: float) -> "Conditions":
        """These conditions and the square of half-width r around (x, y)."""
        xr, yr = (x - r, x + r), (y - r, y + r)
        if self.x_range is not None:
            xr = (max(xr[0], self.x_range[0]), min(xr[1], self.x_range[1]))
        if self.y_range is not None:
            yr = (max(yr[0], self.y_range[0]), min(yr[1], self.y_range[1]))
        return replace(self, x_range=xr, y_range=yr)

    def empty(self) -> bool:
        return replace(self, spanning=False) == Conditions()

    def timed(self) -> bool:
        return self.stamp_gte is not None or self.stamp_lte is not None or self.stamp_lt is not None

    def room_hours(self) -> list[str]:
        """The ``rh`` keywords (``records.room_hour``) a record of the room within the stamp range
        bears: a condition that holds whenever the others do, for the engine to walk instead of
        the range ([] without a room or a closed range, or over ``MAX_ROOM_HOURS`` hours)."""
        upper = self.stamp_lte if self.stamp_lte is not None else self.stamp_lt
        if not self.room or self.stamp_gte is None or upper is None:
            return []
        first, last = hour_of(self.stamp_gte), hour_of(upper)
        if last - first + 1 > MAX_ROOM_HOURS:
            return []
        return [room_hour(self.room, h) for h in range(first, last + 1)]

    def covering(self, at: float) -> "Conditions":
        """The compacted records among these that started before ``at`` and last until it or later."""
        return replace(self, spanning=False, merged_only=True, stamp_gte=None, last_gte=at)

    def spanning_ends(self) -> tuple[list[tuple[str, str, float]], list[tuple[str, str, float]]]:
        """The time conditions as (field, op, value): those of the stamp range, and (spanning) those
        of a compacted record started before the range and lasting into it. Backends translate them."""
        stamp = [("stamp", op, v) for op, v in (("gte", self.stamp_gte), ("lte", self.stamp_lte), ("lt", self.stamp_lt))
                 if v is not None]
        if self.merged_only:  # only compacted records carry "last" (covering() sets last_gte)
            return stamp + [("last", "gte", self.last_gte)], []
        if not (self.spanning and self.stamp_gte is not None):
            return stamp, []
        return stamp, [("last", "gte", self.stamp_gte), *[c for c in stamp if c[1] != "gte"]]


Hit = tuple[dict, float]  # (payload, score)

# A filter term, neutral to the engine: ("range", field, {"gte": a, "lte": b, ...}), ("value", field, v),
# ("any", field, [v, ...]) or ("ids", [point id, ...]).
Term = tuple


@dataclass(frozen=True)
class FilterPlan:
    """What a backend's Filter holds: ``either`` (when not empty) two branches of which one must hold,
    then the terms that must hold, and those that must not."""

    either: list[list[Term]]
    must: list[Term]
    must_not: list[Term]


def _ranges(ends: list[tuple[str, str, float]]) -> list[Term]:
    """One range term per field: ``stamp >= a`` and ``stamp <= b`` as two conditions made the engine
    plan each half-open range on its own (one of them spans most of the store)."""
    ranges: dict[str, dict[str, float]] = {}
    for key, op, value in ends:
        ranges.setdefault(key, {})[op] = value
    return [("range", key, ops) for key, ops in ranges.items()]


def filter_plan(c: Conditions, room_hours: bool = False) -> Optional[FilterPlan]:
    """The conditions as filter terms (None: no filter). ``room_hours``: the store indexes ``rh``
    (schema 3), walked instead of the stamp range; a record bearing one of the range's keywords is in
    the room, so the room is then checked only on compacted records started before the range."""
    if c.empty():
        return None
    stamp, late = c.spanning_ends()
    in_range, lasting = _ranges(stamp), _ranges(late)
    keys = c.room_hours() if room_hours else []
    room: list[Term] = [("value", "room", c.room)] if c.room else []
    if keys:
        in_range.insert(0, ("any", ROOM_HOUR, keys))
        lasting += room
        room = []
    # the stamp inside the range, or a compacted record started before it and lasting into it
    either, must = ([in_range, lasting], []) if late else ([], in_range)
    for key, rng in (("x", c.x_range), ("y", c.y_range)):
        if rng is not None:
            must.append(("range", key, {"gte": rng[0], "lte": rng[1]}))
    must += room
    if c.labels:
        must.append(("any", "labels", list(c.labels)))
    must_not: list[Term] = []
    if c.except_objects:
        must_not.append(("any", "object", list(c.except_objects)))
    if c.except_ids:
        must_not.append(("ids", list(c.except_ids)))
    return FilterPlan(either, must, must_not)


@dataclass(frozen=True)
class Region:
    x: float
    y: float
    radius: float

    def contains(self, p: dict) -> bool:
        return math.hypot(p["x"] - self.x, p["y"] - self.y) <= self.radius


def intersect_time(c: Conditions, gte: Optional[float], lte: Optional[float], spans: bool) -> Conditions:
    """c and "the record held at some time in [gte, lte]" (with spans: its span overlaps it)."""
    if gte is not None:
        c = replace(c, stamp_gte=gte if c.stamp_gte is None else max(gte, c.stamp_gte))
    if lte is not None:
        c = replace(c, stamp_lte=lte if c.stamp_lte is None else min(lte, c.stamp_lte))
    return replace(c, spanning=spans and c.timed())


def filter_conditions(f: Optional[MemoryFilter], spans: bool) -> tuple[Conditions, Optional[Region]]:
    """A memory filter as conditions, and its region (filter.near + radius) for the exact check."""
    if f is None:
        return Conditions(), None
    c = intersect_time(Conditions(room=f.room or "", labels=tuple(f.labels)), f.since, f.until, spans)
    if f.near is not None and f.radius > 0:
        region = Region(float(f.near[0]), float(f.near[1]), float(f.radius))
        return c.box(region.x, region.y, region.radius), region
    return c, None


def time_distance(p: dict, t: float) -> float:
    """Seconds between t and a record's span (0 inside it)."""
    first, last = p["stamp"], p.get("last", p["stamp"])
    return max(first - t, t - last, 0.0)


def both_regions(a: Optional[Region], b: Region) -> Any:
    """A region holding what both hold (a may be None: b alone)."""
    if a is None:
        return b

    class _Both:
        def contains(self, p: dict) -> bool:
            return a.contains(p) and b.contains(p)

    return _Both()
