"""What the robot believes about the things of the home: one ``Entity`` per object it has seen, with
where and when it was seen, built from the scene graph's nodes (their location trails) and from
memory sightings (each with its record's time). Fixtures too, with what acting taught about them.

Everything here comes from typed tool data (node dicts, memory records, detections), never from
outcome text.
"""
from __future__ import annotations

import math
import re
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any, Iterable, Optional

INTERNAL = {"instance_id", "state", "openable", "is_opened", "locked", "pickable", "kind", "stuck", "fullness"}


def get(obj: Any, key: str, default: Any = None) -> Any:
    return obj.get(key, default) if isinstance(obj, dict) else getattr(obj, key, default)


@dataclass(frozen=True)
class Sighting:
    since: float
    until: float
    support: str
    room: str = ""
    frame: str = ""  # the memory record or graph span it came from (things seen together share it)


@dataclass
class Entity:
    key: str  # instance id when perception gives one, else the scene-graph node id
    label: str
    attributes: dict[str, str] = field(default_factory=dict)
    node: str = ""  # scene-graph node id
    support: str = ""  # where the graph places it now ("" unknown)
    room: str = ""
    last_seen: float = float("-inf")
    current: bool = True  # the graph still believes it is where it was last seen
    sightings: list[Sighting] = field(default_factory=list)

    def text(self) -> str:
        """The entity in words, for embedding: attribute values then the label."""
        values = [v for k, v in self.attributes.items() if k not in INTERNAL and k not in ("text", "title", "owner")]
        extra = [f"'{self.attributes[k]}'" for k in ("text", "title") if k in self.attributes]
        owner = [f"{self.attributes['owner']}'s"] if "owner" in self.attributes else []
        return " ".join(owner + values + [self.label] + extra)

    def within(self, since: float = float("-inf"), until: float = float("inf")) -> list[Sighting]:
        """Its sightings within [since, until]. Within a bounded window, what was seen then (memory
        records, the camera) outweighs the graph's stays: a stay spans the first and the last look at
        one place, and a look-alike that took the place over in between is no longer told apart."""
        out = [s for s in self.sightings if s.until >= since and s.since <= until]
        if math.isinf(since):  # (no window: up to now)
            return out
        direct = [s for s in out if not s.frame.startswith("node:")]
        return direct or out

    def places(self, since: float = float("-inf"), until: float = float("inf")) -> dict[str, float]:
        """Support -> how long (or how often) it was seen there within [since, until]."""
        out: dict[str, float] = defaultdict(float)
        for s in self.within(since, until):
            if s.support:
                out[s.support] += max(60.0, min(s.until, until) - max(s.since, since))
        return dict(out)

    def last_place(self, until: float = float("inf")) -> Optional[Sighting]:
        seen = [s for s in self.sightings if s.since <= until and s.support]
        return max(seen, key=lambda s: min(s.until, until)) if seen else None


@dataclass
class FixtureInfo:
    id: str
    label: str
    room: str = ""
    position: Optional[tuple] = None
    container: Optional[bool] = None  # None: unknown
    locked: bool = False
    open: bool = False
    last_seen: float = float("-inf")
    contents: list[str] = field(default_factory=list)
    history: list[str] = field(default_factory=list)
    attributes: dict[str, str] = field(default_factory=dict)  # colour, material ... as perceived


def _props(node: Any) -> dict[str, str]:
    props = get(node, "properties", {}) or {}
    return {k: str(get(v, "value", v)) for k, v in props.items()}


def _add_sightings(e: Entity, sightings: Iterable[Sighting]) -> None:
    """Add to ``e`` the sightings of a stay it does not hold yet (the same start at the same place)."""
    spans = {(s.since, s.support) for s in e.sightings}
    e.sightings += [s for s in sightings if (s.since, s.support) not in spans]


class Beliefs:
    def __init__(self) -> None:
        self.entities: dict[str, Entity] = {}
        self.fixtures: dict[str, FixtureInfo] = {}
        self._node_key: dict[str, str] = {}
        self._records: set[str] = set()
        self._value_words: Optional[frozenset] = None

    # -- intake -------------------------------------------------------------------------------
    def add_nodes(self, nodes: Iterable[Any]) -> None:
        self._value_words = None
        for n in nodes:
            if get(n, "kind") == "fixture":
                self._add_fixture(n)
            else:
                self._add_node(n)

    def _add_fixture(self, n: Any) -> None:
        props = _props(n)
        fid = get(n, "id")
        f = self.fixtures.get(fid) or FixtureInfo(fid, get(n, "label", ""))
        f.label = get(n, "label", f.label) or f.label
        f.room = get(n, "room", "") or f.room
        f.position = tuple(get(n, "position", ()) or ()) or f.position
        f.last_seen = max(f.last_seen, float(get(n, "last_seen", float("-inf")) or float("-inf")))
        state = props.get("state", "")
        if state in ("open", "closed") or props.get("openable") == "true":
            f.container = True
        elif props.get("kind") in ("container", "surface"):
            f.container = props["kind"] == "container"
        elif f.container is None and int(get(n, "observation_count", 0) or 0) > 0 and not state:
            f.container = False  # seen, and it shows no door state: a surface
        f.open = state == "open"
        f.locked = f.locked or props.get("locked") == "true"
        f.contents = [str(c) for c in (get(n, "contents", []) or [])]
        f.attributes = {k: v for k, v in props.items() if k not in INTERNAL}
        f.history = [str(h) for h in (get(n, "task_history", []) or [])]
        self.fixtures[fid] = f

    def _add_node(self, n: Any) -> None:
        props = _props(n)
        nid = get(n, "id")
        key = props.get("instance_id") or nid
        e = self.entities.get(key) or Entity(key, get(n, "label", ""))
        e.node = nid
        e.attributes.update({k: v for k, v in props.items() if k not in INTERNAL})
        last = float(get(n, "last_seen", float("-inf")) or float("-inf"))
        if last >= e.last_seen:
            e.support, e.room, e.last_seen = get(n, "parent", "") or "", get(n, "room", "") or "", last
            e.current = get(n, "state", "current") == "current"
        trail = get(n, "trail", []) or []
        _add_sightings(e, [Sighting(float(loc["since"]), float(loc["until"]), loc.get("parent", ""), "", f"node:{nid}")
                           for loc in trail])
        self._node_key[nid] = key
        if key == nid:  # (an instance id names the thing itself; records then carry it, not node ids)
            self._absorb(e, get(n, "merged_ids", []) or [])
        self.entities[key] = e
        if e.support and e.support not in self.fixtures:
            self.fixtures[e.support] = FixtureInfo(e.support, "")
        if get(n, "relation", "") == "in" and e.support:
            self.fixtures[e.support].container = True

    def _absorb(self, e: Entity, merged_ids: Iterable[str]) -> None:
        """The ids of nodes the graph merged into ``e``'s node name ``e`` from now on, and what was
        believed under them before is ``e``'s: one thing, not one per id memory or the camera kept."""
        for absorbed in merged_ids:
            self._node_key[absorbed] = e.key
            other = self.entities.pop(absorbed, None) if absorbed != e.key else None
            if other is None:
                continue
            _add_sightings(e, other.sightings)
            for k, v in other.attributes.items():
                e.attributes.setdefault(k, v)

    def add_records(self, records: Iterable[Any]) -> None:
        self._value_words = None
        for r in records:
            rid = str(get(r, "id", ""))
            if rid in self._records:
                continue
            self._records.add(rid)
            stamp = float(get(r, "stamp", 0.0))
            last = get(r, "last_stamp", None)
            until = float(last) if last is not None else stamp
            for s in get(r, "sightings", []) or []:
                if get(s, "kind", "object") == "fixture":
                    fid = get(s, "object_id", "")
                    if fid and fid not in self.fixtures:
                        attrs = {k: str(v) for k, v in (get(s, "attributes", {}) or {}).items() if k not in INTERNAL}
                        self.fixtures[fid] = FixtureInfo(fid, get(s, "label", ""), get(r, "room", ""),
                                                         tuple(get(s, "position", ()) or ()) or None, attributes=attrs)
                    elif fid and not self.fixtures[fid].label:
                        self.fixtures[fid].label = get(s, "label", "")
                    continue
                key = self._key_of(get(s, "object_id", "")) or f"{get(s, 'label', '')}@{get(s, 'support', '')}"
                e = self.entities.get(key) or Entity(key, get(s, "label", ""))
                for k, v in (get(s, "attributes", {}) or {}).items():
                    e.attributes.setdefault(k, str(v))
                support = get(s, "support", "") or ""
                e.sightings.append(Sighting(stamp, until, support, get(r, "room", "") or "", f"rec:{rid}"))
                if until > e.last_seen and not e.node:
                    e.support, e.room, e.last_seen = support, get(r, "room", "") or "", until
                self.entities[key] = e
                if support and support not in self.fixtures:
                    self.fixtures[support] = FixtureInfo(support, "")
                if get(s, "relation", "") == "in" and support:
                    self.fixtures[support].container = True

    def put(self, key: str, fid: str, now: float) -> None:
        """The robot put the thing it held at ``fid``: that is where it is now."""
        e = self.entities.get(key)
        if e is None or not fid:
            return
        room = self.fixtures[fid].room if fid in self.fixtures else ""
        e.support, e.room, e.current, e.last_seen = fid, room or e.room, True, max(e.last_seen, now)
        e.sightings.append(Sighting(now, now, fid, room, frame="put"))

    def add_detections(self, detections: Iterable[Any], at: str, now: float, inside: bool) -> list[Entity]:
        """What the camera shows now at fixture ``at``: entities updated, returned in view order."""
        self._value_words = None
        seen = []
        for d in detections:
            if get(d, "kind", "object") == "fixture":
                continue
            key = get(d, "instance_id", "") or self._key_of(get(d, "node_id", "")) or f"{get(d, 'label', '')}@{at}"
            e = self.entities.get(key) or Entity(key, get(d, "label", ""))
            e.attributes.update({k: str(v) for k, v in (get(d, "attributes", {}) or {}).items() if k not in INTERNAL})
            support = get(d, "support", "") or at
            e.support, e.last_seen, e.current = support, now, True
            e.sightings.append(Sighting(now, now, support, "", "view"))
            self.entities[key] = e
            seen.append(e)
        if inside and at in self.fixtures:
            self.fixtures[at].container = True
        return seen

    def _key_of(self, ident: str) -> str:
        """An id from perception or memory as an entity key: an instance id is its own key; a
        scene-graph node id, or the id of a node merged into it, maps to its node's key (the two
        namespaces may share spellings)."""
        if not ident or ident in self.entities:
            return ident
        return self._node_key.get(ident, ident)

    # -- questions ----------------------------------------------------------------------------
    def fixture_label(self, fid: str) -> str:
        f = self.fixtures.get(fid)
        if f is not None and f.label:
            return f.label
        return _id_words(fid)

    def room_label(self, fid: str) -> str:
        """The words of the fixture's room ("" unknown)."""
        f = self.fixtures.get(fid)
        return _id_words(f.room) if f is not None and f.room else ""

    def value_words(self) -> frozenset:
        """Every word of every attribute value seen on a thing (owners aside), singular; kept until
        the next intake."""
        if self._value_words is None:
            from mnemo_planner.words import singular

            self._value_words = frozenset(singular(w) for e in self.entities.values() for k, v in e.attributes.items()
                                          if k != "owner" for w in re.findall(r"[a-z0-9]+", str(v).lower()))
        return self._value_words

    def labels(self) -> list[str]:
        return sorted({e.label for e in self.entities.values() if e.label})

    def together(self, entity: Entity, sighting: Sighting) -> list[Entity]:
        """Other things seen on or in the same fixture at that moment (same record, or overlapping spans)."""
        out = []
        for other in self.entities.values():
            if other.key == entity.key:
                continue
            for s in other.sightings:
                if s.support != sighting.support:
                    continue
                same_frame = s.frame == sighting.frame and s.frame.startswith("rec:")
                overlap = s.since <= sighting.until + 1.0 and s.until >= sighting.since - 1.0
                if same_frame or overlap:
                    out.append(other)
                    break
        return out


def _id_words(ident: str) -> str:
    """The words of an id: its name without a trailing number ("wall_shelf_2" -> "wall shelf")."""
    return re.sub(r"[_\s]+\d+$", "", ident).replace("_", " ")
