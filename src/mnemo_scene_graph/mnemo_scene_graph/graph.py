"""The persistent 3D scene graph: objects and fixtures, their relations, and their typed history.

Pure core (no rclpy). MessyMem section 3.1 / appendix A.3 for the node format and association;
ObsMem (WorldLines) for the typed history: append-only events, per-field trails, stale and
contradicted beliefs.

Public API (called in-process by the planner, the interaction analyzer and perception; the
scene-graph node serves the same over ROS):

    g = SceneGraph(GraphConfig())                     # or SceneGraph.from_dict(snapshot)
    r = g.integrate_observation(obs, visible_fn=None) # oracle sightings (mnemo_common.types.Observation)
    r = g.integrate_detections(dets, stamp, camera_pose=None, room="", visible_fn=None)
        # perception; sets det.node_id on every associated Detection; r.node_ids[i] is the node
        # of input i (None when it was dropped); r.created / r.moved / r.stale / r.dropped
    r = g.integrate_detections(dets, stamp, view=CameraView(...))  # the frame's depth judges misses
    g.mark_unseen(visible_fn, stamp, room="", seen=(), view=None)  # nodes looked at, not seen: misses
    g.get(node_id) -> GraphNode                        # raises MnemoError(NOT_FOUND); merged ids resolve
    g.nodes(kind=None, include_stale=True) -> list[GraphNode]
    g.query(label=None, attributes=None, near=None, radius=None, in_fixture=None, room=None,
            include_stale=False, kind=None, k=0) -> list[GraphNode]
    g.update(node_id, properties={name: PropertyValue}, contents_add=(), contents_remove=(),
             outcome="", source="interaction", stamp=None) -> GraphNode
    g.history(node_id, include_observations=False) -> list[GraphEvent]
    g.location_trail(node_id) -> list[Location]       # past locations, oldest first
    g.usual_location(node_id_or_label) -> str         # most frequent parent fixture ("" when none)
    g.location_distribution(node_id_or_label) -> list[(fixture_id, share)]
    g.relations(near_radius=None) -> list[(subject, predicate, object)]  # on | in | near | in_room
    g.add_fixture(fixture_id, label, position, box_min, box_max, room, stamp)  # map: sightings never reshape it
    g.add_listener(fn)                                 # fn(GraphEvent) after each change
    g.to_dict() / SceneGraph.from_dict(d, config)     # snapshot; replay(events) re-applies a log

Node ids are a label slug plus a counter (`mug_2`); fixture sightings that carry a fixture id
(public map knowledge, e.g. `cabinet_2`) keep that id. A node that absorbs another (found to be
the same object) lists the absorbed ids in `merged_ids`, oldest first, so that records naming them
name it; get() and resolve() take them too. Oracle instance ids are stored in the
`instance_id` property and are never used for association: association works from label,
geometry and colour, as it must with real perception.

A colour measured from pixels (a detection's) is a vote, weighed by the pixels it was measured
on: the node keeps the votes of all its sightings (`color_votes`, merged with the node it absorbs)
and its colour property is the name with the most weight. One frame under an odd light, or a
glimpse of a corner, does not rename a thing seen well many times. An authored colour (an oracle
sighting's) casts no vote and is taken as given.

Every change is a GraphEvent applied through one function (`_apply`), so a snapshot plus the
events after it rebuild exactly the same graph (see persistence.py). Evidence that changes no
belief by itself ('observed': a sighting; 'missed': a frame that covered a node's place and did
not see it, see coverage.py) is in the log, not in history(), and on the node's events topic only
on request; after `stale_after_misses` misses in a row a 'state' event makes the node STALE, its
place and last_seen kept.
"""
from __future__ import annotations

import copy
import math
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, field
from itertools import islice
from typing import Any, Callable, Iterable, Optional

import networkx as nx
import numpy as np

from mnemo_common.types import Detection, Observation, Pose3D, PropertyValue, not_found, invalid
from mnemo_scene_graph.coverage import CameraView, CoverageConfig
from mnemo_scene_graph.geometry import (
    Vec3, VisibleFn, box_is_valid, box_size, is_finite_vec, label_slug, near_pairs, normalize_label, support_relation,
)

KIND_OBJECT = "object"
KIND_FIXTURE = "fixture"
STATE_CURRENT = "current"
STATE_STALE = "stale"
STATE_CONTRADICTED = "contradicted"
EVENT_KINDS = ("created", "location", "property", "contents", "state", "observed", "missed", "outcome", "merged")
EVIDENCE_KINDS = frozenset({"observed", "missed"})  # in the log, not in history()
COLOR_KEYS = ("color", "colour")
# properties that change over an object's life (or are the robot's bookkeeping): never evidence of
# identity; nor is anything of colour (names and measured values alike: the colour veto judges colour)
MUTABLE_KEYS = frozenset({"state", "openable", "is_opened", "locked", "pickable", "stuck", "fullness", "kind",
                          "contents", "instance_id"})
PERCEPTION = "perception"


@dataclass(frozen=True)
class GraphConfig:
    """Association and belief-update settings (the node's parameters of the same names)."""

    min_match_radius: float = 0.25  # m: smallest association gate
    size_match_factor: float = 1.5  # gate = max(min_match_radius, size_match_factor * object size)
    color_veto: bool = True  # a known, different colour never matches
    attribute_veto: bool = True  # a known, different lasting attribute (brand, printed text, ...) never matches
    max_average_count: int = 50  # running average window (then exponential)
    stale_after_misses: int = 1  # frames in view without a detection before a node turns stale
    coverage: CoverageConfig = field(default_factory=CoverageConfig)  # when a frame with depth covered a node
    merge_on_stale: bool = True  # a node turning stale absorbs its one newer look-alike (it moved)
    near_radius: float = 0.5  # m: "near" relation
    max_stamp_lag: float = 3600.0  # s: frames older than the newest by more are dropped


@dataclass
class Location:
    """Where a node was: position, supporting fixture, room, and when it was seen there."""

    position: Vec3
    parent: str = ""
    relation: str = ""
    room: str = ""
    since: float = 0.0
    until: float = 0.0
    source: str = PERCEPTION

    def to_dict(self) -> dict:
        d = asdict(self)
        d["position"] = [float(v) for v in self.position]
        return d

    @staticmethod
    def from_dict(d: dict) -> "Location":
        return Location(position=tuple(float(v) for v in d["position"]), parent=d.get("parent", ""),
                        relation=d.get("relation", ""), room=d.get("room", ""), since=float(d.get("since", 0.0)),
                        until=float(d.get("until", 0.0)), source=d.get("source", PERCEPTION))


@dataclass
class GraphNode:
    """One object or fixture (MessyMem's node format plus ObsMem's trails)."""

    id: str
    label: str
    kind: str = KIND_OBJECT
    position: Vec3 = (0.0, 0.0, 0.0)
    box_min: Vec3 = (0.0, 0.0, 0.0)
    box_max: Vec3 = (0.0, 0.0, 0.0)
    room: str = ""
    parent: str = ""
    relation: str = ""
    first_seen: float = 0.0
    last_seen: float = 0.0
    observation_count: int = 0
    properties: dict[str, PropertyValue] = field(default_factory=dict)
    contents: list[str] = field(default_factory=list)
    contents_source: str = ""
    contents_stamp: float = 0.0
    task_history: list[str] = field(default_factory=list)
    state: str = STATE_CURRENT
    located_since: float = 0.0  # first seen at the current location
    located_count: int = 0  # observations averaged at the current location
    misses: int = 0  # frames since the last sighting that covered the node's place without seeing it
    location_trail: list[Location] = field(default_factory=list)
    property_trails: dict[str, list[PropertyValue]] = field(default_factory=dict)
    merged_ids: list[str] = field(default_factory=list)  # nodes it absorbed, oldest first: their ids name it
    color_votes: dict[str, float] = field(default_factory=dict)  # measured colour name -> pixels seen in it

    @property
    def size(self) -> float:
        return box_size(self.box_min, self.box_max)

    @property
    def norm_label(self) -> str:
        return normalize_label(self.label)

    def prop(self, name: str, default: str = "") -> str:
        p = self.properties.get(name)
        return p.value if p is not None else default

    def location(self) -> Location:
        return Location(self.position, self.parent, self.relation, self.room, self.located_since, self.last_seen)

    def to_dict(self, trails: bool = True) -> dict:
        d = {
            "id": self.id, "label": self.label, "kind": self.kind,
            "position": [float(v) for v in self.position], "box_min": [float(v) for v in self.box_min],
            "box_max": [float(v) for v in self.box_max], "room": self.room, "parent": self.parent,
            "relation": self.relation, "first_seen": self.first_seen, "last_seen": self.last_seen,
            "observation_count": self.observation_count,
            "properties": {k: asdict(v) for k, v in self.properties.items()},
            "contents": list(self.contents), "contents_source": self.contents_source,
            "contents_stamp": self.contents_stamp, "task_history": list(self.task_history), "state": self.state,
            "located_since": self.located_since, "located_count": self.located_count, "misses": self.misses,
            "merged_ids": list(self.merged_ids), "color_votes": dict(self.color_votes),
        }
        if trails:
            d["location_trail"] = [loc.to_dict() for loc in self.location_trail]
            d["property_trails"] = {k: [asdict(p) for p in v] for k, v in self.property_trails.items()}
        return d

    @staticmethod
    def from_dict(d: dict) -> "GraphNode":
        vec = lambda key: tuple(float(v) for v in d.get(key, (0.0, 0.0, 0.0)))  # noqa: E731
        return GraphNode(
            id=d["id"], label=d["label"], kind=d.get("kind", KIND_OBJECT), position=vec("position"),
            box_min=vec("box_min"), box_max=vec("box_max"), room=d.get("room", ""), parent=d.get("parent", ""),
            relation=d.get("relation", ""), first_seen=float(d.get("first_seen", 0.0)),
            last_seen=float(d.get("last_seen", 0.0)), observation_count=int(d.get("observation_count", 0)),
            properties={k: PropertyValue(**v) for k, v in d.get("properties", {}).items()},
            contents=list(d.get("contents", [])), contents_source=d.get("contents_source", ""),
            contents_stamp=float(d.get("contents_stamp", 0.0)), task_history=list(d.get("task_history", [])),
            state=d.get("state", STATE_CURRENT), located_since=float(d.get("located_since", 0.0)),
            located_count=int(d.get("located_count", 0)), misses=int(d.get("misses", 0)),
            location_trail=[Location.from_dict(x) for x in d.get("location_trail", [])],
            property_trails={k: [PropertyValue(**p) for p in v] for k, v in d.get("property_trails", {}).items()},
            merged_ids=list(d.get("merged_ids", [])),
            color_votes={k: float(v) for k, v in d.get("color_votes", {}).items()},
        )


@dataclass
class GraphEvent:
    """One append-only change. old/new are JSON-able: a string, or a dict/list for structured values."""

    seq: int
    stamp: float
    node_id: str
    kind: str
    field: str = ""
    old: Any = None
    new: Any = None
    source: str = PERCEPTION

    def to_dict(self) -> dict:
        return asdict(self)

    @staticmethod
    def from_dict(d: dict) -> "GraphEvent":
        return GraphEvent(seq=int(d["seq"]), stamp=float(d["stamp"]), node_id=d["node_id"], kind=d["kind"],
                          field=d.get("field", ""), old=d.get("old"), new=d.get("new"),
                          source=d.get("source", PERCEPTION))


@dataclass
class IntegrationResult:
    node_ids: list[Optional[str]] = field(default_factory=list)  # per input item
    created: list[str] = field(default_factory=list)
    moved: list[str] = field(default_factory=list)
    stale: list[str] = field(default_factory=list)
    merged: list[tuple[str, str]] = field(default_factory=list)  # (absorbed id, kept id)
    dropped: Counter = field(default_factory=Counter)  # reason -> count


@dataclass
class _Item:
    """One sighting or detection, normalised for association."""

    index: int
    label: str
    kind: str
    position: Vec3
    box_min: Vec3
    box_max: Vec3
    attributes: dict[str, str]
    score: float
    instance_id: str = ""
    fixture_id: str = ""
    support: str = ""
    relation: str = ""
    color_weight: float = 0.0  # how much its colour counts in its node's vote (pixels); 0: authored, taken as is

    @property
    def has_box(self) -> bool:
        return box_is_valid(self.box_min, self.box_max)

    @property
    def color(self) -> str:
        return _color_of(self.attributes)


# Colour names that lighting and viewing angle make a camera confuse for one surface (measured
# colour flips between them frame to frame); only colours outside these neighbourhoods veto a match.
# Black is no colourless name's neighbour: perception names a thing black only when most of its
# pixels are near-black, and a colourless one by its lit part, so shade does not turn one into the
# other; what black does tell apart is a black thing from its grey or silver look-alike.
_COLOR_NEIGHBOURS = {frozenset(p) for p in (
    ("white", "silver"), ("white", "grey"), ("silver", "grey"),
    ("red", "pink"), ("red", "orange"), ("red", "brown"), ("orange", "yellow"), ("orange", "brown"),
    ("yellow", "brown"), ("blue", "purple"), ("purple", "pink"), ("gray", "grey"),
)}


def colors_compatible(a: str, b: str) -> bool:
    """Whether two colour names can describe the same object (unknown colours never veto)."""
    if not a or not b or a == b:
        return True
    return frozenset((a, b)) in _COLOR_NEIGHBOURS


def _same_color(a: str, b: str, exact: bool) -> bool:
    """Whether two colours can be one object's: equal where both were given as they are (``exact``: an
    oracle's or an author's, never measured, so no lighting confuses them), else neighbours too."""
    return a == b if exact and a and b else colors_compatible(a, b)


def attributes_compatible(attributes: dict[str, str], node: "GraphNode") -> bool:
    """Whether a sighting's lasting attributes can describe the node: an attribute both know (a brand,
    a title, a material) with different values makes them two objects, though label, place and colour agree."""
    for key, value in attributes.items():
        if key in MUTABLE_KEYS or key.startswith(COLOR_KEYS) or not str(value).strip():
            continue
        known = node.prop(key)
        if known and normalize_label(str(known)) != normalize_label(str(value)):
            return False
    return True


def _color_key(attributes: dict[str, str]) -> str:
    """The attribute that names the colour ("" when none does)."""
    return next((key for key in COLOR_KEYS if attributes.get(key)), "")


def _color_of(attributes: dict[str, str]) -> str:
    key = _color_key(attributes)
    return normalize_label(attributes[key]) if key else ""


def _add_votes(votes: dict[str, float], more: dict[str, float]) -> dict[str, float]:
    out = dict(votes)
    for name, weight in more.items():
        out[name] = out.get(name, 0.0) + weight
    return out


def _voted_color(votes: dict[str, float], current: str = "") -> str:
    """The colour name with the most weight; ``current`` on a tie, so that a tie never renames."""
    return max(votes, key=lambda name: (votes[name], name == current)) if votes else current


def _vec(v) -> Vec3:
    return (float(v[0]), float(v[1]), float(v[2]))


def _replace_position(item: "_Item", position: Vec3) -> "_Item":
    return _Item(**{**item.__dict__, "position": position})


class SceneGraph:
    """networkx-backed scene graph; see the module docstring for the API."""

    def __init__(self, config: Optional[GraphConfig] = None):
        self.config = config or GraphConfig()
        self.graph = nx.DiGraph()  # node attr "node": GraphNode; edge subject->fixture attr "relation"
        self.seq = 0
        self.latest_stamp = -math.inf
        self.aliases: dict[str, str] = {}  # absorbed node id -> kept node id
        self.drop_counts: Counter = Counter()
        self._by_label: dict[tuple[str, str], set[str]] = defaultdict(set)  # (kind, norm label) -> ids
        self._counters: dict[str, int] = defaultdict(int)  # slug -> highest counter used
        self._history: dict[str, list[GraphEvent]] = defaultdict(list)
        self._listeners: list[Callable[[GraphEvent], None]] = []
        self._mapped: set[str] = set()  # fixtures declared from the map: their geometry is the map's
        self._fixtures: Optional[list[GraphNode]] = None  # nodes(kind=fixture), kept until a fixture comes or goes

    # -- events --------------------------------------------------------------------------
    def add_listener(self, fn: Callable[[GraphEvent], None]) -> None:
        self._listeners.append(fn)

    def _emit(self, stamp: float, node_id: str, kind: str, field_: str = "", old: Any = None, new: Any = None,
              source: str = PERCEPTION) -> GraphEvent:
        event = GraphEvent(self.seq + 1, float(stamp), node_id, kind, field_, old, new, source)
        self._apply(event)
        for fn in self._listeners:
            fn(event)
        return event

    def replay(self, events: Iterable[GraphEvent]) -> int:
        """Re-apply logged events newer than this graph's seq; returns how many were applied."""
        n = 0
        for event in events:
            if event.seq <= self.seq:
                self.index_history(event)
                continue
            self._apply(event)
            n += 1
        return n

    def index_history(self, event: GraphEvent) -> None:
        """Remember an already-applied event for history() (used when restoring from a log)."""
        if event.kind not in EVIDENCE_KINDS:
            self._history[event.node_id].append(event)
            if event.kind == "merged" and isinstance(event.new, str):
                self._history[event.new].append(event)

    def _apply(self, e: GraphEvent) -> None:
        """The only place that mutates the graph: a pure function of (graph, event)."""
        self.seq = max(self.seq, e.seq)
        self.latest_stamp = max(self.latest_stamp, e.stamp)
        self.index_history(e)
        if e.kind == "created":
            node = GraphNode.from_dict(e.new)
            self._add_node(node)
            if e.source == "map":
                self._mapped.add(node.id)
            return
        if e.kind == "merged":
            self._remove_node(e.node_id, into=e.new)
            return
        node = self._node(e.node_id)
        if e.kind == "observed":
            new = e.new
            node.position = _vec(new["position"])
            node.box_min, node.box_max = _vec(new["box_min"]), _vec(new["box_max"])
            node.last_seen = float(new["last_seen"])
            node.observation_count = int(new["observation_count"])
            node.located_count = int(new["located_count"])
            node.misses = 0
            if "color_votes" in new:
                node.color_votes = {k: float(v) for k, v in new["color_votes"].items()}
        elif e.kind == "missed":
            node.misses = int(e.new["misses"])
        elif e.kind == "location":
            old, new = Location.from_dict(e.old), Location.from_dict(e.new)
            node.location_trail.append(old)
            delta = np.asarray(new.position) - np.asarray(node.position)
            node.box_min = _vec(np.asarray(node.box_min) + delta)
            node.box_max = _vec(np.asarray(node.box_max) + delta)
            node.position, node.room, node.located_since = new.position, new.room, new.since
            node.located_count = 1
            self._set_parent(node, new.parent, new.relation)
        elif e.kind == "property":
            if e.old is not None:
                node.property_trails.setdefault(e.field, []).append(PropertyValue(**e.old))
            if e.new is None:
                node.properties.pop(e.field, None)
            else:
                node.properties[e.field] = PropertyValue(**e.new)
        elif e.kind == "contents":
            if node.contents_stamp or node.contents:
                node.property_trails.setdefault("contents", []).append(
                    PropertyValue(", ".join(node.contents), 1.0, node.contents_source, node.contents_stamp))
            node.contents = list(e.new)
            node.contents_source, node.contents_stamp = e.source, e.stamp
        elif e.kind == "state":
            node.state = e.new
        elif e.kind == "outcome":
            node.task_history.append(e.new)
        else:
            raise ValueError(f"unknown graph event kind {e.kind!r}")

    # -- graph structure -----------------------------------------------------------------
    def _add_node(self, node: GraphNode) -> None:
        if node.kind == KIND_FIXTURE or "node" in self.graph.nodes.get(node.id, {}):
            self._fixtures = None
        self.graph.add_node(node.id, node=node)
        self._by_label[(node.kind, node.norm_label)].add(node.id)
        slug, _, suffix = node.id.rpartition("_")
        if slug and suffix.isdigit():
            self._counters[slug] = max(self._counters[slug], int(suffix))
        self._set_parent(node, node.parent, node.relation)

    def _remove_node(self, node_id: str, into: str) -> None:
        node = self._node(node_id)
        kept = self._node(into)
        kept.merged_ids += [*node.merged_ids, node_id]
        kept.color_votes = _add_votes(kept.color_votes, node.color_votes)
        self._by_label[(node.kind, node.norm_label)].discard(node_id)
        self.graph.remove_node(node_id)
        if node.kind == KIND_FIXTURE:
            self._fixtures = None
        self.aliases[node_id] = into
        for old, target in list(self.aliases.items()):
            if target == node_id:
                self.aliases[old] = into

    def _set_parent(self, node: GraphNode, parent: str, relation: str) -> None:
        for _, old in list(self.graph.out_edges(node.id)):
            self.graph.remove_edge(node.id, old)
        node.parent, node.relation = parent, relation if parent else ""
        if parent and parent != node.id:
            if parent not in self.graph:
                self.graph.add_node(parent)  # placeholder until the fixture is seen; holds no "node"
            self.graph.add_edge(node.id, parent, relation=node.relation)

    def _node(self, node_id: str) -> GraphNode:
        node_id = self.resolve(node_id)
        data = self.graph.nodes.get(node_id)
        if not data or "node" not in data:
            raise not_found(f"no scene-graph node {node_id!r}")
        return data["node"]

    def resolve(self, node_id: str) -> str:
        """A merged node's id resolves to the node that absorbed it."""
        seen = 0
        while node_id in self.aliases and seen < 100:
            node_id, seen = self.aliases[node_id], seen + 1
        return node_id

    def _new_id(self, label: str) -> str:
        slug = label_slug(label)
        n = self._counters[slug] + 1
        while f"{slug}_{n}" in self.graph or f"{slug}_{n}" in self.aliases:
            n += 1
        return f"{slug}_{n}"

    def __contains__(self, node_id: str) -> bool:
        try:
            self._node(node_id)
            return True
        except Exception:  # noqa: BLE001
            return False

    def __len__(self) -> int:
        return sum(1 for _, d in self.graph.nodes(data=True) if "node" in d)

    # -- reading -------------------------------------------------------------------------
    def get(self, node_id: str) -> GraphNode:
        return self._node(node_id)

    def nodes(self, kind: Optional[str] = None, include_stale: bool = True) -> list[GraphNode]:
        out = []
        for _, data in self.graph.nodes(data=True):
            node = data.get("node")
            if node is None or (kind and node.kind != kind):
                continue
            if not include_stale and node.state != STATE_CURRENT:
                continue
            out.append(node)
        return out

    def query(self, label: Optional[str] = None, attributes: Optional[dict[str, str]] = None,
              near: Optional[tuple[float, ...]] = None, radius: Optional[float] = None,
              in_fixture: Optional[str] = None, room: Optional[str] = None, include_stale: bool = False,
              kind: Optional[str] = None, k: int = 0) -> list[GraphNode]:
        """Nodes matching every given criterion; nearest first when `near` is given, else most
        recently seen first. `near` is (x, y) or (x, y, z); distances are planar."""
        if near is not None and (len(near) < 2 or not all(math.isfinite(float(v)) for v in near[:2])):
            raise invalid(f"near must be a finite (x, y), got {near!r}")
        if radius is not None and (not math.isfinite(radius) or radius < 0):
            raise invalid(f"radius must be finite and >= 0, got {radius!r}")
        if label:
            ids = self._by_label.get((kind, normalize_label(label)), set()) if kind else \
                self._by_label.get((KIND_OBJECT, normalize_label(label)), set()) | \
                self._by_label.get((KIND_FIXTURE, normalize_label(label)), set())
            candidates = [self._node(i) for i in ids]
        else:
            candidates = self.nodes(kind=kind)
        wanted = {k_: normalize_label(v) for k_, v in (attributes or {}).items()}
        fixture = self.resolve(in_fixture) if in_fixture else None
        out = []
        for node in candidates:
            if not include_stale and node.state != STATE_CURRENT:
                continue
            if room and node.room != room:
                continue
            if fixture and node.parent != fixture:
                continue
            if any(normalize_label(node.prop(key)) != value for key, value in wanted.items()):
                continue
            if near is not None and radius is not None and radius > 0:
                if math.hypot(node.position[0] - near[0], node.position[1] - near[1]) > radius:
                    continue
            out.append(node)
        if near is not None:
            out.sort(key=lambda n: (math.hypot(n.position[0] - near[0], n.position[1] - near[1]), n.id))
        else:
            out.sort(key=lambda n: (-n.last_seen, n.id))
        return out[:k] if k and k > 0 else out

    def history(self, node_id: str, include_observations: bool = False) -> list[GraphEvent]:
        """Events of a node (and of nodes merged into it), oldest first. 'observed' events are
        only in the persisted log; history keeps the changes."""
        node_id = self.resolve(node_id)
        if node_id not in self and node_id not in self._history:
            raise not_found(f"no scene-graph node {node_id!r}")
        ids = {node_id} | {a for a, t in self.aliases.items() if t == node_id}
        events = [e for i in ids for e in self._history.get(i, [])]
        seen, out = set(), []
        for e in sorted(events, key=lambda e: e.seq):
            if e.seq not in seen and (include_observations or e.kind != "observed"):
                seen.add(e.seq)
                out.append(e)
        return out

    def location_trail(self, node_id: str) -> list[Location]:
        return list(self._node(node_id).location_trail)

    def location_distribution(self, node_id_or_label: str) -> list[tuple[str, float]]:
        """Share of observed time spent at each parent fixture, largest first. Accepts a node id
        (that node's trail) or a label (all nodes of that label). Each stay weighs its dwell time
        plus one minute, so that a single sighting still counts."""
        if node_id_or_label in self:
            nodes = [self._node(node_id_or_label)]
        else:
            nodes = self.query(label=node_id_or_label, include_stale=True, kind=KIND_OBJECT)
        weights: Counter = Counter()
        for node in nodes:
            for loc in [*node.location_trail, node.location()]:
                if loc.parent:
                    weights[loc.parent] += max(0.0, loc.until - loc.since) + 60.0
        total = sum(weights.values())
        if total <= 0:
            return []
        return sorted(((p, w / total) for p, w in weights.items()), key=lambda x: (-x[1], x[0]))

    def usual_location(self, node_id_or_label: str) -> str:
        dist = self.location_distribution(node_id_or_label)
        return dist[0][0] if dist else ""

    def relations(self, near_radius: Optional[float] = None) -> list[tuple[str, str, str]]:
        """(subject, predicate, object): on/in from the support edges, near between current
        nodes of one room closer than near_radius (planar), in_room for every node with a room."""
        radius = self.config.near_radius if near_radius is None else near_radius
        out = [(s, d["relation"], o) for s, o, d in self.graph.edges(data=True) if d.get("relation")]
        nodes = [n for n in self.nodes() if n.state == STATE_CURRENT]
        for i, j in near_pairs([(n.position[0], n.position[1]) for n in nodes], radius):
            a, b = nodes[i], nodes[j]
            if a.room == b.room and a.parent != b.id and b.parent != a.id:
                out.append((a.id, "near", b.id))
        out += [(n.id, "in_room", n.room) for n in self.nodes() if n.room]
        return out

    # -- writing: perception -------------------------------------------------------------
    def add_fixture(self, fixture_id: str, label: str, position: Vec3, box_min: Vec3 = None, box_max: Vec3 = None,
                    room: str = "", stamp: float = 0.0, source: str = "map") -> GraphNode:
        """Declare a fixture from map knowledge (no observation count). Existing ids are kept. With
        source "map", sightings of it never move or reshape it (a frame sees part of it)."""
        if fixture_id in self:
            return self._node(fixture_id)
        if not label or not is_finite_vec(position):
            raise invalid("a fixture needs a label and a finite position")
        box_min = _vec(box_min) if box_min is not None else _vec(position)
        box_max = _vec(box_max) if box_max is not None else _vec(position)
        node = GraphNode(id=fixture_id, label=label, kind=KIND_FIXTURE, position=_vec(position), box_min=box_min,
                         box_max=box_max, room=room, first_seen=stamp, last_seen=stamp, located_since=stamp)
        self._emit(stamp, fixture_id, "created", new=node.to_dict(trails=False), source=source)
        return self._node(fixture_id)

    def integrate_observation(self, obs: Observation, visible_fn: Optional[VisibleFn] = None) -> IntegrationResult:
        """Integrate an oracle observation (sightings with labels, kinds, supports)."""
        items = []
        for i, s in enumerate(obs.sightings):
            is_fixture = s.kind == KIND_FIXTURE
            items.append(_Item(index=i, label=s.label, kind=KIND_FIXTURE if is_fixture else KIND_OBJECT,
                               position=s.position, box_min=s.position, box_max=s.position,
                               attributes=dict(s.attributes), score=float(s.score),
                               instance_id="" if is_fixture else s.object_id,
                               fixture_id=s.object_id if is_fixture else "",
                               support=s.support, relation=s.relation))
        return self._integrate(items, obs.stamp, obs.room, visible_fn)

    def integrate_detections(self, detections: list[Detection], stamp: float, camera_pose: Optional[Pose3D] = None,
                             room: str = "", visible_fn: Optional[VisibleFn] = None,
                             view: Optional[CameraView] = None) -> IntegrationResult:
        """Integrate one frame of perception detections; writes the node id into each Detection.
        Misses are judged by ``view`` (the frame's depth: see coverage.py) when given, else by
        visible_fn, else by a default frustum at camera_pose (occlusion unknown)."""
        if view is None and visible_fn is None and camera_pose is not None and camera_pose.is_finite():
            from mnemo_scene_graph.geometry import frustum_visible_fn

            visible_fn = frustum_visible_fn(camera_pose)
        items = [_Item(index=i, label=d.label, kind=KIND_FIXTURE if d.kind == KIND_FIXTURE else KIND_OBJECT,
                       position=d.centroid, box_min=d.box_min, box_max=d.box_max, attributes=dict(d.attributes),
                       score=float(d.score), instance_id=d.instance_id if d.kind != KIND_FIXTURE else "",
                       fixture_id=d.node_id if d.kind == KIND_FIXTURE and d.node_id in self else "",
                       color_weight=float(max(d.mask_area, 1)))
                 for i, d in enumerate(detections)]
        result = self._integrate(items, stamp, room, visible_fn, view)
        for det, node_id in zip(detections, result.node_ids):
            if node_id:
                det.node_id = node_id
        return result

    def _integrate(self, items: list[_Item], stamp: float, room: str, visible_fn: Optional[VisibleFn],
                   view: Optional[CameraView] = None) -> IntegrationResult:
        result = IntegrationResult(node_ids=[None] * len(items))
        if not math.isfinite(stamp):
            result.dropped["non_finite_stamp"] += len(items) or 1
            self.drop_counts.update(result.dropped)
            return result
        if stamp < self.latest_stamp - self.config.max_stamp_lag:
            result.dropped["stamp_too_old"] += len(items) or 1
            self.drop_counts.update(result.dropped)
            return result
        valid = []
        for item in items:
            reason = self._invalid_reason(item)
            if reason:
                result.dropped[reason] += 1
            else:
                item.position = _vec(item.position)
                if item.has_box:
                    item.box_min, item.box_max = _vec(item.box_min), _vec(item.box_max)
                else:
                    item.box_min = item.box_max = item.position
                valid.append(item)
        # Fixtures first, so that objects in the same frame find their supports.
        fixtures = [it for it in valid if it.kind == KIND_FIXTURE]
        objects = [it for it in valid if it.kind == KIND_OBJECT]
        matched: set[str] = set()
        for group in (fixtures, objects):
            by_label: dict[str, list[_Item]] = defaultdict(list)
            for item in group:
                if item.fixture_id:
                    node_id = self._observe_known_fixture(item, stamp, room, result)
                    result.node_ids[item.index] = node_id
                    matched.add(node_id)
                else:
                    by_label[normalize_label(item.label)].append(item)
            for label, label_items in by_label.items():
                kind = label_items[0].kind
                candidates = [self._node(i) for i in sorted(self._by_label.get((kind, label), ())) if i not in matched]
                assignment = self._match(label_items, candidates)
                for item in label_items:
                    node = assignment.get(item.index)
                    if node is not None:
                        self._observe(node, item, stamp, room, result)
                    else:
                        node = self._moved_or_new(item, candidates, assignment, matched, stamp, room, result)
                    result.node_ids[item.index] = node.id
                    matched.add(node.id)
        if visible_fn is not None or view is not None:
            result.stale += self.mark_unseen(visible_fn, stamp, room=room, seen=matched, result=result, view=view,
                                             sighted=objects)
        self.drop_counts.update(result.dropped)
        return result

    @staticmethod
    def _invalid_reason(item: _Item) -> str:
        if not str(item.label).strip() or not normalize_label(item.label):
            return "empty_label"
        if not is_finite_vec(item.position):
            return "non_finite_position"
        if not math.isfinite(item.score):
            return "non_finite_score"
        return ""

    def _gate(self, item: _Item, node: GraphNode) -> float:
        size = max(box_size(item.box_min, item.box_max), node.size)
        return max(self.config.min_match_radius, self.config.size_match_factor * size)

    def _compatible(self, item: _Item, node: GraphNode) -> bool:
        if self.config.attribute_veto and not attributes_compatible(item.attributes, node):
            return False
        if not self.config.color_veto:
            return True
        known = normalize_label(node.prop("color") or node.prop("colour"))
        return _same_color(item.color, known, exact=item.color_weight <= 0 and not node.color_votes)

    def _match(self, items: list[_Item], nodes: list[GraphNode]) -> dict[int, GraphNode]:
        """One-to-one assignment of a frame's same-label items to nodes within the gate
        (Hungarian on distance / gate)."""
        if not items or not nodes:
            return {}
        big = 1e6
        cost = np.full((len(items), len(nodes)), big)
        item_xyz = np.array([it.position for it in items])
        node_xyz = np.array([n.position for n in nodes])
        dist = np.linalg.norm(item_xyz[:, None, :] - node_xyz[None, :, :], axis=-1)
        for i, item in enumerate(items):
            for j, node in enumerate(nodes):
                gate = self._gate(item, node)
                if dist[i, j] <= gate and self._compatible(item, node):
                    # Prefer current beliefs slightly over stale ones at equal distance.
                    cost[i, j] = dist[i, j] / gate + (0.05 if node.state != STATE_CURRENT else 0.0)
        if len(items) == 1:
            j = int(np.argmin(cost[0]))
            return {items[0].index: nodes[j]} if cost[0, j] < big else {}
        from scipy.optimize import linear_sum_assignment

        rows, cols = linear_sum_assignment(cost)
        return {items[i].index: nodes[j] for i, j in zip(rows, cols) if cost[i, j] < big}

    def _moved_or_new(self, item: _Item, candidates: list[GraphNode], assignment: dict[int, GraphNode],
                      matched: set[str], stamp: float, room: str, result: IntegrationResult) -> GraphNode:
        """An unmatched sighting is the same object moved only when a same-label node is known to
        have left its place (stale or contradicted): the conservative reading of the evidence."""
        taken = {n.id for n in assignment.values()} | matched
        gone = [n for n in candidates if n.id not in taken and n.state != STATE_CURRENT and n.kind == KIND_OBJECT
                and self._compatible(item, n)]
        if gone:
            pos = np.asarray(item.position)
            node = min(gone, key=lambda n: (float(np.linalg.norm(np.asarray(n.position) - pos)), n.id))
            self._observe(node, item, stamp, room, result, force_move=True)
            return node
        return self._create(item, stamp, room, result)

    def _create(self, item: _Item, stamp: float, room: str, result: IntegrationResult) -> GraphNode:
        node_id = item.fixture_id or self._new_id(item.label)
        parent, relation = self._support_of(item, exclude=node_id)
        node = GraphNode(id=node_id, label=item.label, kind=item.kind, position=item.position, box_min=item.box_min,
                         box_max=item.box_max, room=self._room_of(parent, room), parent=parent, relation=relation,
                         first_seen=stamp, last_seen=stamp, observation_count=1, located_since=stamp, located_count=1,
                         color_votes=self._votes_with({}, item))
        self._emit(stamp, node_id, "created", new=node.to_dict(trails=False))
        self._update_perceived_properties(node, item, stamp)
        result.created.append(node_id)
        return self._node(node_id)

    def _observe_known_fixture(self, item: _Item, stamp: float, room: str, result: IntegrationResult) -> str:
        if item.fixture_id in self:
            node = self._node(item.fixture_id)
            self._observe(node, item, stamp, room, result)
            return node.id
        return self._create(item, stamp, room, result).id

    def _observe(self, node: GraphNode, item: _Item, stamp: float, room: str, result: IntegrationResult,
                 force_move: bool = False) -> None:
        if node.id in self._mapped:  # a frame sees part of a piece of furniture; the map has all of it
            item = _Item(**{**item.__dict__, "position": node.position, "box_min": node.box_min,
                            "box_max": node.box_max})
        count = node.located_count + 1
        w = 1.0 / min(count, max(1, self.config.max_average_count))
        position = _vec(np.asarray(node.position) + w * (np.asarray(item.position) - np.asarray(node.position)))
        if item.has_box and node.size > 0:
            box_min = _vec(np.asarray(node.box_min) + w * (np.asarray(item.box_min) - np.asarray(node.box_min)))
            box_max = _vec(np.asarray(node.box_max) + w * (np.asarray(item.box_max) - np.asarray(node.box_max)))
        elif item.has_box:
            box_min, box_max = item.box_min, item.box_max
        else:  # no box measured: keep the node's box centred on the new position
            delta = np.asarray(position) - np.asarray(node.position)
            box_min, box_max = _vec(np.asarray(node.box_min) + delta), _vec(np.asarray(node.box_max) + delta)
        # Geometric supports are judged at the averaged position, so that a noisy centroid near
        # the edge of two fixtures does not flip the parent back and forth.
        parent, relation = self._support_of(item if force_move else _replace_position(item, position), exclude=node.id)
        new_room = self._room_of(parent, room) or node.room
        relocated = node.kind == KIND_OBJECT and parent and (parent, relation) != (node.parent, node.relation)
        if force_move or relocated:
            new = Location(item.position, parent, relation, new_room, stamp, stamp)
            self._emit(stamp, node.id, "location", "location", old=node.location().to_dict(), new=new.to_dict())
            result.moved.append(node.id)
            position, count = item.position, 1
            if item.has_box:
                box_min, box_max = item.box_min, item.box_max
            else:
                box_min, box_max = node.box_min, node.box_max  # already shifted by the location event
        observed = {"position": list(position), "box_min": list(box_min), "box_max": list(box_max),
                    "last_seen": stamp, "observation_count": node.observation_count + 1, "located_count": count}
        votes = self._votes_with(node.color_votes, item)
        if votes != node.color_votes:
            observed["color_votes"] = votes
        self._emit(stamp, node.id, "observed", new=observed)
        if node.state != STATE_CURRENT:
            self._emit(stamp, node.id, "state", "state", old=node.state, new=STATE_CURRENT)
        self._update_perceived_properties(node, item, stamp)

    @staticmethod
    def _votes_with(votes: dict[str, float], item: _Item) -> dict[str, float]:
        """Colour votes with the item's measured colour added (an authored one adds none)."""
        key = _color_key(item.attributes)
        if not key or item.color_weight <= 0:
            return votes
        return _add_votes(votes, {str(item.attributes[key]): item.color_weight})

    def _update_perceived_properties(self, node: GraphNode, item: _Item, stamp: float) -> None:
        values = dict(item.attributes)
        if item.instance_id:
            values["instance_id"] = item.instance_id
        key = _color_key(item.attributes)
        if key and item.color_weight > 0:
            values[key] = _voted_color(node.color_votes, node.prop(key))
        for name, value in values.items():
            confidence = 1.0 if name == "instance_id" else max(0.0, min(1.0, item.score))
            self._set_perceived(node, name, str(value), confidence, stamp)

    def _set_perceived(self, node: GraphNode, name: str, value: str, confidence: float, stamp: float) -> None:
        current = node.properties.get(name)
        if current is not None and current.value == value:
            return
        new = PropertyValue(value, confidence, PERCEPTION, stamp)
        self._emit(stamp, node.id, "property", name, old=asdict(current) if current else None, new=asdict(new))

    def _support_of(self, item: _Item, exclude: str) -> tuple[str, str]:
        """The fixture an object rests on or in: given by the sighting, else from geometry."""
        if item.kind != KIND_OBJECT:
            return "", ""
        if item.support:
            return self.resolve(item.support), item.relation or "on"
        best, best_key = ("", ""), None
        if self._fixtures is None:  # every object sighting asks; scanning every node each time grew with the graph
            self._fixtures = self.nodes(kind=KIND_FIXTURE)
        for fixture in self._fixtures:
            if fixture.id == exclude:
                continue
            relation = support_relation(item.position, fixture.box_min, fixture.box_max)
            if relation:
                # The smallest footprint wins (a shelf inside a cabinet, a tray on a table).
                area = (fixture.box_max[0] - fixture.box_min[0]) * (fixture.box_max[1] - fixture.box_min[1])
                if best_key is None or area < best_key:
                    best, best_key = (fixture.id, relation), area
        return best

    def _room_of(self, parent: str, frame_room: str) -> str:
        if parent and parent in self:
            return self._node(parent).room or frame_room
        return frame_room

    # -- beliefs -------------------------------------------------------------------------
    def _observable(self, node: GraphNode, depth_judged: bool = False) -> bool:
        """Can a camera see this node at all? Not inside a container believed closed. When a depth
        image judges occlusion, furniture the map says has no doors (shelves) shows what is in it."""
        if node.relation == "in" and node.parent:
            if node.parent not in self:
                return False
            container = self._node(node.parent)
            if depth_judged and container.prop("kind") == "surface":
                return True
            # Whichever was written last: the analyzer's is_opened or the sighted open/closed state.
            stamped = [p for p in (container.properties.get("is_opened"), container.properties.get("state")) if p]
            if not stamped:
                return False
            latest = max(stamped, key=lambda p: p.stamp).value.strip().lower()
            return latest in ("true", "yes", "1", "open", "opened")
        return True

    def mark_unseen(self, visible_fn: Optional[VisibleFn], stamp: float, room: str = "", seen: Iterable[str] = (),
                    result: Optional[IntegrationResult] = None, view: Optional[CameraView] = None,
                    sighted: Iterable[_Item] = ()) -> list[str]:
        """Current nodes a frame looked at and did not see (``seen``) get a 'missed' event; after
        `stale_after_misses` of them in a row they become STALE. Looked at: ``view.covers`` the
        node (in the image, near enough, not hidden by the depth image) when a view is given, else
        visible_fn(position) in the frame's room; never inside a container believed closed. A node
        that a sighting of the frame which could be it overlaps (``sighted``; given to a look-alike
        touching it: a camera cannot tell two such apart from afar) is not missed either.
        Returns the ids turned stale."""
        seen = set(seen)
        # The frame's sightings by normalised label, each with its extent: labels normalised once a frame.
        sighted_by_label: dict[str, list[tuple[_Item, float]]] = defaultdict(list)
        for item in sighted:
            sighted_by_label[normalize_label(item.label)].append((item, box_size(item.box_min, item.box_max)))
        turned = []
        # Cheapest tests first: a frame looks at few of the graph's nodes.
        for node in self.nodes(kind=KIND_OBJECT):
            if node.id in seen or node.id not in self.graph or node.state != STATE_CURRENT or node.last_seen >= stamp:
                continue
            if view is None and room and node.room and node.room != room:
                continue  # without depth, the walls between rooms are unknown
            if not self._observable(node, depth_judged=view is not None):
                continue
            if not (view.covers(node.position, node.size, self.config.coverage) if view is not None
                    else visible_fn is not None and visible_fn(node.position)):
                continue
            if any(self._compatible(item, node) and math.dist(item.position, node.position) <= max(node.size, extent)
                   for item, extent in sighted_by_label.get(node.norm_label, ())):
                continue
            self._emit(stamp, node.id, "missed", "misses", old={"misses": node.misses},
                       new={"misses": node.misses + 1})
            if node.misses < self.config.stale_after_misses:
                continue
            self._emit(stamp, node.id, "state", "state", old=node.state, new=STATE_STALE)
            turned.append(node.id)
            if self.config.merge_on_stale:
                absorbed = self._absorb_newer_lookalike(node, stamp)
                if absorbed:
                    seen.add(node.id)  # now at the absorbed node's place, not looked at here
                    if result is not None:
                        result.merged.append((absorbed, node.id))
        return turned

    def _absorb_newer_lookalike(self, node: GraphNode, stamp: float) -> str:
        """A node just found absent whose single same-label look-alike first appeared after it was
        last seen: that look-alike is the same object, moved. Keep the older id (it carries the
        interaction history) at the newer location, and retire the newer one."""
        color = normalize_label(node.prop("color"))
        same_label = (self._node(i) for i in self._by_label.get((KIND_OBJECT, node.norm_label), ()))
        others = (n for n in same_label if n.id != node.id and n.first_seen > node.last_seen
                  and _same_color(color, normalize_label(n.prop("color")),
                                  exact=not node.color_votes and not n.color_votes)
                  and (not self.config.attribute_veto or attributes_compatible(
                      {k: v.value for k, v in n.properties.items()}, node)))
        first_two = list(islice(others, 2))  # a second look-alike already makes it ambiguous
        if len(first_two) != 1:
            return ""
        other = first_two[0]
        new = Location(other.position, other.parent, other.relation, other.room, other.located_since, other.last_seen)
        self._emit(stamp, node.id, "location", "location", old=node.location().to_dict(), new=new.to_dict())
        self._emit(stamp, node.id, "observed", new={
            "position": list(other.position), "box_min": list(other.box_min), "box_max": list(other.box_max),
            "last_seen": other.last_seen, "observation_count": node.observation_count + other.observation_count,
            "located_count": other.located_count})
        voted = bool(node.color_votes or other.color_votes)  # the merged votes name the colour, not the newer node
        for name, value in other.properties.items():
            if voted and name in COLOR_KEYS:
                continue
            current = node.properties.get(name)
            if current is None or (current.value != value.value and value.stamp >= current.stamp):
                self._emit(stamp, node.id, "property", name, old=asdict(current) if current else None,
                           new=asdict(value))
        self._emit(stamp, node.id, "state", "state", old=node.state, new=other.state)
        self._emit(stamp, other.id, "merged", "into", old=other.id, new=node.id)
        if voted:
            key = next((k for k in COLOR_KEYS if k in node.properties or k in other.properties), "color")
            known = node.properties.get(key) or other.properties.get(key)
            self._set_perceived(node, key, _voted_color(node.color_votes, node.prop(key)),
                                known.confidence if known else 1.0, stamp)
        return other.id

    # -- writing: interaction ------------------------------------------------------------
    def update(self, node_id: str, properties: Optional[dict[str, PropertyValue]] = None,
               contents_add: Iterable[str] = (), contents_remove: Iterable[str] = (), outcome: str = "",
               source: str = "interaction", stamp: Optional[float] = None) -> GraphNode:
        """Write what was learned about a node. Each changed property keeps the old value in its
        trail. A container's contents that no longer list an object believed inside it make that
        object's belief CONTRADICTED."""
        node = self._node(node_id)
        stamp = float(stamp) if stamp is not None else max(self.latest_stamp, 0.0)
        if not math.isfinite(stamp):
            raise invalid("stamp must be finite")
        for name, value in (properties or {}).items():
            if not str(name).strip():
                raise invalid("property names must be non-empty")
            if not isinstance(value, PropertyValue):
                value = PropertyValue(str(value), 1.0, source, stamp)
            value = PropertyValue(str(value.value), float(value.confidence), value.source or source,
                                  value.stamp if value.stamp and math.isfinite(value.stamp) else stamp)
            current = node.properties.get(name)
            if current is not None and asdict(current) == asdict(value):
                continue
            self._emit(stamp, node.id, "property", name, old=asdict(current) if current else None,
                       new=asdict(value), source=value.source)
        add = [str(c).strip() for c in contents_add if str(c).strip()]
        remove = {normalize_label(c) for c in contents_remove if str(c).strip()}
        if add or remove:
            contents = [c for c in node.contents if normalize_label(c) not in remove]
            contents += [c for c in add if normalize_label(c) not in {normalize_label(x) for x in contents}]
            if contents != node.contents or not node.contents_stamp:
                self._emit(stamp, node.id, "contents", "contents", old=list(node.contents), new=contents,
                           source=source)
            self._contradict_missing_contents(node, stamp, source)
        if outcome:
            self._emit(stamp, node.id, "outcome", "task_history", new=str(outcome), source=source)
        return self._node(node.id)

    def _contradict_missing_contents(self, container: GraphNode, stamp: float, source: str) -> None:
        listed = {normalize_label(c) for c in container.contents}
        for pred in list(self.graph.predecessors(container.id)):
            data = self.graph.nodes[pred].get("node")
            if data is None or data.relation != "in" or data.state == STATE_CONTRADICTED:
                continue
            if data.norm_label not in listed and data.id not in container.contents:
                self._emit(stamp, data.id, "state", "state", old=data.state, new=STATE_CONTRADICTED, source=source)

    # -- snapshot ------------------------------------------------------------------------
    def to_dict(self) -> dict:
        return {
            "format": "mnemo-scene-graph/1", "seq": self.seq,
            "latest_stamp": self.latest_stamp if math.isfinite(self.latest_stamp) else None,
            "aliases": dict(self.aliases), "mapped": sorted(self._mapped),
            "nodes": [n.to_dict() for n in sorted(self.nodes(), key=lambda n: n.id)],
        }

    @staticmethod
    def from_dict(d: dict, config: Optional[GraphConfig] = None) -> "SceneGraph":
        g = SceneGraph(config)
        g.seq = int(d.get("seq", 0))
        g.latest_stamp = float(d["latest_stamp"]) if d.get("latest_stamp") is not None else -math.inf
        nodes = [GraphNode.from_dict(x) for x in d.get("nodes", [])]
        for node in nodes:  # fixtures first so parent edges land on real nodes
            if node.kind == KIND_FIXTURE:
                g._add_node(node)
        for node in nodes:
            if node.kind != KIND_FIXTURE:
                g._add_node(node)
        g.aliases = dict(d.get("aliases", {}))
        for absorbed in g.aliases:  # a snapshot from before nodes listed the ids they absorbed
            kept = g.graph.nodes.get(g.resolve(absorbed), {}).get("node")
            if kept is not None and absorbed not in kept.merged_ids:
                kept.merged_ids.append(absorbed)
        g._mapped = set(d.get("mapped", ()))
        return g

    def copy(self) -> "SceneGraph":
        return copy.deepcopy(self)
