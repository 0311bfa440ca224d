"""The offline policy: no model, only the embedding model and the robot's memory.

It reads the instruction (language.py), grounds its words in what the scene graph and memory
have seen through the embedding model, ranks places where the object may be (the latest
sighting at the referenced time, the most frequent place for habits, the current scene graph,
then unexplored containers by how plausibly they hold the object), acts (navigate -> detect ->
pick; containers: navigate -> open -> peek -> pick), verifies by detection, and moves to the
next hypothesis when memory proves stale. A container that failed to open because it is locked,
in this task (working memory) or earlier (scene-graph property/history), is never tried again.
Each decision reads only the instruction, the working memory and the remaining budget.
"""
from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Optional

import numpy as np

from mnemo_planner.language import (
    INTENT_LOCATE, INTENT_RECALL, ParsedInstruction, covered_words, match_phrase, normal, parse_instruction,
)
from mnemo_planner.loop import PolicyInput, WorkingEntry
from mnemo_planner.tools import Action

LABEL_ACCEPT = 0.65  # embedding similarity at which an instruction word names a seen label
CONTENTS_ACCEPT = 0.5  # ... at which the best thing found inside a container is taken for a never-seen object
NEED_ACCEPT = 0.4  # ... at which an object answers a need ("i'm thirsty")
ATTRIBUTE_ACCEPT = 0.75
RECENT_SEARCH = 1800.0  # s: containers searched this recently hint at what the user is doing now
CONTAINER_PROTOTYPE = "a closed storage container with a door or drawer, like a cabinet, cupboard, fridge or drawer"
SURFACE_PROTOTYPE = "an open surface to put things on, like a table, counter, desk, shelf or sofa"


def fixture_class(fixture_id: str) -> str:
    """'coffee_table_1' -> 'coffee table' (for answers when no label is known)."""
    return re.sub(r"[_\s]+\d+$", "", fixture_id).replace("_", " ")


def _get(obj: Any, key: str, default: Any = None) -> Any:
    return obj.get(key, default) if isinstance(obj, dict) else getattr(obj, key, default)


@dataclass
class Place:
    fixture: str
    reason: str
    score: float = 0.0
    instance: str = ""  # the instance believed there (picked straight away, the pick verifying it)


@dataclass
class _Task:
    parsed: ParsedInstruction
    now: float
    seen: int = 0  # working-memory entries absorbed
    surveyed: bool = False
    memory_asked: bool = False
    nodes: dict[str, dict] = field(default_factory=dict)
    fixtures: dict[str, dict] = field(default_factory=dict)
    records: list = field(default_factory=list)
    target_labels: list[str] = field(default_factory=list)
    modifiers: list[str] = field(default_factory=list)
    instances: set[str] = field(default_factory=set)  # specific instance ids the instruction refers to
    instance_nodes: set[str] = field(default_factory=set)  # ... and their scene-graph node ids
    anchor_fixtures: list[str] = field(default_factory=list)
    anchor_rooms: list[str] = field(default_factory=list)
    places: list[Place] = field(default_factory=list)
    planned: bool = False
    explored: set[str] = field(default_factory=set)
    locked: set[str] = field(default_factory=set)
    opened: set[str] = field(default_factory=set)
    open_failures: Counter = field(default_factory=Counter)
    pick_failures: Counter = field(default_factory=Counter)
    at: str = ""
    current: Optional[Place] = None
    visible: list = field(default_factory=list)  # detections at the current place
    looked: bool = False
    not_containers: set[str] = field(default_factory=set)
    believed_closed: set[str] = field(default_factory=set)
    in_container: bool = False  # the visible detections are a container's contents
    label_cache: dict = field(default_factory=dict)
    container_cache: dict = field(default_factory=dict)


class OfflinePolicy:
    """Deterministic, model-free policy over the unified action space."""

    def __init__(self, embedder=None, use_scene_graph: bool = True, use_memory: bool = True):
        self._embedder = embedder
        self.use_scene_graph = use_scene_graph
        self.use_memory = use_memory
        self._task: Optional[_Task] = None
        self._key: Optional[tuple] = None

    @property
    def embedder(self):
        if self._embedder is None:
            from mnemo_common.embedding import get_embedder

            self._embedder = get_embedder()
        return self._embedder

    # -- the policy interface --------------------------------------------------------------
    def decide(self, state: PolicyInput) -> Action:
        key = (state.instruction, state.now, state.budget)
        if self._task is None or self._key != key or not state.history:
            self._task = _Task(parse_instruction(state.instruction, state.now), state.now)
            self._key = key
        t = self._task
        for entry in state.history[t.seen:]:
            self._absorb(t, entry)
        t.seen = len(state.history)
        return self._next(t, state.remaining)

    # -- reading outcomes into beliefs ---------------------------------------------------------
    def _absorb(self, t: _Task, e: WorkingEntry) -> None:
        tool, args, out = e.action.tool, e.action.arguments, e.outcome
        data = out.data or {}
        if tool == "query_scene_graph":
            t.surveyed = True
            for n in data.get("nodes", []) if out.ok else []:
                (t.fixtures if _get(n, "kind") == "fixture" else t.nodes)[_get(n, "id")] = n
                if _get(n, "kind") == "fixture" and self._known_locked(n):
                    t.locked.add(_get(n, "id"))
        elif tool.startswith("search_memory"):
            t.memory_asked = True
            if out.ok:
                t.records.extend(data.get("records", []))
        elif tool == "navigate":
            t.at = str(data.get("at_fixture", "")) if out.ok else ""
            t.looked, t.visible = False, []
        elif tool == "open":
            target = str(args.get("target", ""))
            if out.ok:
                t.opened.add(target)
            elif data.get("locked") or "lock" in out.summary.lower():
                t.locked.add(target)
            elif "nothing to open" in out.summary.lower():
                t.not_containers.add(target)
            else:
                t.open_failures[target] += 1
        elif tool == "peek" and not out.ok and "closed" in out.summary.lower():
            t.opened.discard(str(args.get("target", "")))
            t.believed_closed.add(str(args.get("target", "")))
        elif tool in ("detect", "peek"):
            t.looked = True
            t.visible = list(data.get("detections" if tool == "detect" else "contents", [])) if out.ok else []
            t.in_container = tool == "peek"
            if tool == "peek" or (tool == "detect" and t.at):
                t.explored.add(str(args.get("target", t.at)) if tool == "peek" else t.at)
        elif tool == "pick" and not out.ok:
            t.pick_failures[str(args.get("target", ""))] += 1

    @staticmethod
    def _known_locked(node: Any) -> bool:
        props = _get(node, "properties", {}) or {}
        value = props.get("locked") if isinstance(props, dict) else None
        value = _get(value, "value", value)
        if str(value).lower() == "true":
            return True
        return any("locked" in str(h) for h in (_get(node, "task_history", []) or [])[-3:]
                   if "open:" in str(h) and ":ok" not in str(h))

    # -- deciding ---------------------------------------------------------------------------
    def _next(self, t: _Task, remaining: int) -> Action:
        p = t.parsed
        if not t.surveyed and self.use_scene_graph:
            return Action("query_scene_graph", {"include_stale": True})
        self._ground(t)
        needs_memory = self.use_memory and not t.memory_asked and (
            p.window is not None or p.habit or p.intent == INTENT_RECALL or not t.surveyed or not t.nodes)
        if needs_memory and remaining > 2:
            return self._memory_query(t)
        if p.intent == INTENT_RECALL:
            return Action("answer", {"text": self._recall_answer(t)})
        if not t.planned:
            t.places = self._rank_places(t)
            t.planned = True
        return self._act(t, remaining)

    def _memory_query(self, t: _Task) -> Action:
        p = t.parsed
        text = " ".join(x for x in (p.object_phrase, p.relation, p.anchor) if x) or p.text
        args: dict[str, Any] = {"text": text, "k": 50 if (p.window or p.habit) else 20}
        if p.window is not None:
            args["since"], args["until"] = float(p.window[0]), float(p.window[1])
        if t.target_labels:
            args["labels"] = list(t.target_labels)
        return Action("search_memory", args)

    # -- grounding ----------------------------------------------------------------------------
    def _vocabulary(self, t: _Task) -> tuple[list[str], list[str], list[str]]:
        objects = {_get(n, "label") for n in t.nodes.values()}
        fixtures = {_get(f, "label") for f in t.fixtures.values()}
        rooms = {_get(n, "room") for n in [*t.nodes.values(), *t.fixtures.values()] if _get(n, "room")}
        for r in t.records:
            for s in _get(r, "sightings", []) or []:
                (fixtures if s.kind == "fixture" else objects).add(s.label)
            if _get(r, "room"):
                rooms.add(_get(r, "room"))
        return sorted(x for x in objects if x), sorted(x for x in fixtures if x), sorted(rooms)

    def _ground(self, t: _Task) -> None:
        p = t.parsed
        objects, fixture_labels, rooms = self._vocabulary(t)
        phrase = p.target or p.need
        t.target_labels, t.modifiers = [], []
        if phrase and objects:
            matches = match_phrase(phrase, objects, self.embedder)
            if matches and matches[0].score >= (NEED_ACCEPT if not p.target else LABEL_ACCEPT):
                top = matches[0]
                t.target_labels = [m.candidate for m in matches if m.score >= top.score - 0.02 and m.score >= LABEL_ACCEPT]
                t.modifiers = covered_words(p.target, top.span) if p.target else []
        if p.possessor:
            t.modifiers.append(p.possessor)
        t.modifiers = self._attribute_words(t, t.modifiers)
        t.anchor_fixtures, t.anchor_rooms = [], []
        place_phrase = p.anchor or p.scope
        if place_phrase:
            room_names = {r.replace("_", " "): r for r in rooms}
            rm = match_phrase(place_phrase, list(room_names), self.embedder, lexical_only=True)
            t.anchor_rooms = [room_names[m.candidate] for m in rm if m.score >= 1.0]
            rest = place_phrase
            for m in rm[:1]:
                if m.score >= 1.0:
                    rest = " ".join(covered_words(place_phrase, m.span))
            fm = match_phrase(rest, fixture_labels, self.embedder) if rest else []
            if fm and fm[0].score >= LABEL_ACCEPT:
                labels = {m.candidate for m in fm if m.score >= fm[0].score - 0.02}
                t.anchor_fixtures = [fid for fid, f in t.fixtures.items() if _get(f, "label") in labels
                                     and (not t.anchor_rooms or _get(f, "room") in t.anchor_rooms)]
                for r in t.records:  # fixtures only memory knows of
                    for s in _get(r, "sightings", []) or []:
                        if s.kind == "fixture" and s.label in labels and s.object_id and s.object_id not in t.anchor_fixtures:
                            t.anchor_fixtures.append(s.object_id)

    def _attribute_words(self, t: _Task, words: list[str]) -> list[str]:
        """Only modifiers that name some attribute value seen anywhere constrain the search
        ("green" does; "file" in "file folder" or "lying" do not)."""
        values = {normal(str(v)) for n in t.nodes.values() for v in self._node_props(n).values()}
        values |= {normal(str(v)) for r in t.records for s_ in (_get(r, "sightings", []) or [])
                   for v in s_.attributes.values()}
        words_of_values = {w for v in values for w in v.split()}
        out = []
        for word in words:
            if word in words_of_values:
                out.append(word)
            elif values:
                m = match_phrase(word, sorted(values), self.embedder)
                if m and m[0].score >= ATTRIBUTE_ACCEPT:
                    out.append(word)
        return out

    # -- matching things against the target ---------------------------------------------------
    def _attrs_ok(self, t: _Task, attributes: dict) -> bool:
        if not t.modifiers:
            return True
        values = [normal(str(v)) for v in (attributes or {}).values()]
        for word in t.modifiers:
            if any(word == v or word in v.split() for v in values):
                continue
            if values:
                sims = match_phrase(word, values, self.embedder)
                if sims and sims[0].score >= ATTRIBUTE_ACCEPT:
                    continue
            return False
        return True

    def _label_ok(self, t: _Task, label: str, accept: float = LABEL_ACCEPT) -> float:
        key = (label, accept, tuple(t.target_labels))
        if key not in t.label_cache:
            t.label_cache[key] = self._label_score(t, label, accept)
        return t.label_cache[key]

    def _label_score(self, t: _Task, label: str, accept: float) -> float:
        if label in t.target_labels:
            return 1.0
        phrase = t.parsed.target or t.parsed.need
        if not phrase or t.target_labels:
            return 0.0
        m = match_phrase(phrase, [label], self.embedder)
        return m[0].score if m and m[0].score >= (NEED_ACCEPT if not t.parsed.target else accept) else 0.0

    def _node_props(self, n: Any) -> dict:
        props = _get(n, "properties", {}) or {}
        return {k: _get(v, "value", v) for k, v in props.items()}

    def _is_target_detection(self, t: _Task, d: Any) -> float:
        inst, node = _get(d, "instance_id", ""), _get(d, "node_id", "")
        if inst and t.instances:
            return 2.0 if inst in t.instances else 0.0
        if node and t.instance_nodes:
            return 2.0 if node in t.instance_nodes else 0.0
        score = self._label_ok(t, _get(d, "label", ""), CONTENTS_ACCEPT if t.in_container else LABEL_ACCEPT)
        if score and not self._attrs_ok(t, _get(d, "attributes", {}) or {}):
            return 0.0
        return score

    # -- hypotheses ---------------------------------------------------------------------------
    def _near_anchor(self, t: _Task, support: str, position: Any, room: str = "") -> bool:
        if not t.anchor_fixtures and not t.anchor_rooms:
            return True
        if support and support in t.anchor_fixtures:
            return True
        if t.anchor_rooms and not t.anchor_fixtures:
            return room in t.anchor_rooms
        if t.parsed.relation in ("by", "at") and position is not None:
            for fid in t.anchor_fixtures:
                f = t.fixtures.get(fid)
                if f is not None and math.dist(_get(f, "position")[:2], tuple(position)[:2]) < 1.0:
                    return True
        return False

    def _instances_from_records(self, t: _Task, count_all: bool) -> Counter:
        counts: Counter = Counter()
        for r in t.records:
            for s in _get(r, "sightings", []) or []:
                if s.kind == "fixture" or not self._label_ok(t, s.label) or not self._attrs_ok(t, s.attributes):
                    continue
                if count_all or self._near_anchor(t, s.support, s.position, _get(r, "room", "")):
                    counts[s.object_id or s.label] += 1
        return counts

    def _node_for_instance(self, t: _Task, instance: str) -> Optional[dict]:
        best = None
        for nid, n in t.nodes.items():
            if nid == instance or self._node_props(n).get("instance_id") == instance:
                if best is None or _get(n, "last_seen", 0.0) > _get(best, "last_seen", 0.0):
                    best = n
        return best

    def _latest_support(self, t: _Task, instance: str) -> str:
        latest, where = -1.0, ""
        for r in t.records:
            for s in _get(r, "sightings", []) or []:
                if s.object_id == instance and s.support and _get(r, "stamp", 0.0) > latest:
                    latest, where = _get(r, "stamp", 0.0), s.support
        return where

    def _rank_places(self, t: _Task) -> list[Place]:
        p = t.parsed
        places: list[Place] = []

        def add(fixture: str, reason: str, score: float = 0.0, instance: str = "") -> None:
            if fixture and fixture not in {x.fixture for x in places}:
                places.append(Place(fixture, reason, score, instance))

        if (p.window is not None or p.habit) and t.records:
            counts = self._instances_from_records(t, count_all=False)
            for inst, _ in counts.most_common(3 if p.habit else 5):
                t.instances.add(inst)
                node = self._node_for_instance(t, inst)
                if node is not None:
                    t.instance_nodes.add(_get(node, "id"))
                    add(_get(node, "parent", ""), f"{inst} last seen there")
                add(self._latest_support(t, inst), f"{inst} last seen there in memory")
            if p.habit:  # then the other places this instance is often seen
                for inst in list(t.instances):
                    places_seen: Counter = Counter()
                    for r in t.records:
                        for s in _get(r, "sightings", []) or []:
                            if s.object_id == inst and s.support:
                                places_seen[s.support] += 1
                    for fid, _ in places_seen.most_common():
                        add(fid, f"{inst} often seen there")
        if p.window is not None and not t.records and not p.habit:  # no memory: stays in the graph's trails
            lo, hi = p.window
            for nid, n in t.nodes.items():
                if self._label_ok(t, _get(n, "label", "")) and self._attrs_ok(t, self._node_props(n)) and any(
                        loc["since"] <= hi and loc["until"] >= lo and self._near_anchor(t, loc["parent"], None)
                        for loc in _get(n, "trail", []) or []):
                    t.instance_nodes.add(nid)
                    inst = self._node_props(n).get("instance_id", "")
                    if inst:
                        t.instances.add(inst)
                    add(_get(n, "parent", ""), f"{nid} was there then; last seen here", instance=inst)
        if p.habit and not t.instances and not t.instance_nodes:  # no memory records: the scene graph's location trails
            dwell: Counter = Counter()
            for nid, n in t.nodes.items():
                if not self._label_ok(t, _get(n, "label", "")) or not self._attrs_ok(t, self._node_props(n)):
                    continue
                for loc in _get(n, "trail", []) or []:
                    if self._near_anchor(t, loc["parent"], None):
                        dwell[nid] += max(0.0, loc["until"] - loc["since"]) + 60.0
            for nid, _ in dwell.most_common(1):
                t.instance_nodes.add(nid)
                inst = self._node_props(t.nodes[nid]).get("instance_id")
                if inst:
                    t.instances.add(inst)
                add(_get(t.nodes[nid], "parent", ""), f"{nid} is usually there; last seen here")
        candidates = []
        for nid, n in t.nodes.items():
            score = self._label_ok(t, _get(n, "label", ""))
            if not score or not self._attrs_ok(t, self._node_props(n)):
                continue
            if (t.instances or t.instance_nodes) and nid not in t.instance_nodes \
                    and self._node_props(n).get("instance_id") not in t.instances:
                continue
            if not self._near_anchor(t, _get(n, "parent", ""), _get(n, "position"), _get(n, "room", "")) \
                    and p.window is None and not p.habit:
                continue
            current = 1 if _get(n, "state", "current") == "current" else 0
            candidates.append((current, score, _get(n, "last_seen", 0.0), nid, n))
        for *_, nid, n in sorted(candidates, key=lambda c: (-c[0], -c[1], -c[2], c[3])):
            add(_get(n, "parent", ""), f"{nid} seen there", instance=self._node_props(n).get("instance_id", ""))
        if not t.nodes and not t.fixtures:  # no scene graph: the newest sightings in memory
            sightings = sorted(((_get(r, "stamp", 0.0), s) for r in t.records for s in (_get(r, "sightings", []) or [])
                                if s.kind != "fixture" and self._label_ok(t, s.label)
                                and self._attrs_ok(t, s.attributes)), key=lambda x: -x[0])
            for _, s in sightings:
                if self._near_anchor(t, s.support, s.position):
                    add(s.support, f"{s.object_id or s.label} seen there")
        for fid in t.anchor_fixtures:
            add(fid, "the place the instruction names")
        for fid, score in self._unexplored(t):
            add(fid, "plausible place, not yet searched", score)
        return places

    def _is_container(self, t: _Task, fid: str) -> bool:
        if fid in t.not_containers:
            return False
        if fid not in t.container_cache:
            t.container_cache[fid] = self._container_guess(t, fid)
        return t.container_cache[fid]

    def _container_guess(self, t: _Task, fid: str) -> bool:
        f = t.fixtures.get(fid)
        props = self._node_props(f) if f is not None else {}
        if props.get("state") in ("open", "closed"):  # containers that open report their state
            return True
        if props.get("kind") in ("container", "surface"):
            return props["kind"] == "container"
        if props.get("openable") in ("true", "false"):
            return props["openable"] == "true"
        if fid in t.not_containers:
            return False
        if any(_get(n, "parent") == fid and _get(n, "relation") == "in" for n in t.nodes.values()):
            return True
        if f is not None and _get(f, "observation_count", 0) > 0:
            return False  # seen, and it reports no open/closed state: a surface
        if f is not None and any("open" in str(h) for h in _get(f, "task_history", []) or []):
            return True
        label = _get(f, "label", "") if f is not None else fixture_class(fid)
        e = self.embedder
        sims = e.embed([label]) @ e.embed([CONTAINER_PROTOTYPE, SURFACE_PROTOTYPE]).T
        return bool(sims[0, 0] > sims[0, 1])

    def _unexplored(self, t: _Task) -> list[tuple[str, float]]:
        """Fixtures not searched yet, containers first, by how plausibly they hold the object."""
        p = t.parsed
        phrase = p.target or p.need or p.text
        if t.target_labels:
            phrase = t.target_labels[0]
        if p.context:  # "the remote is dead; find me some batteries": the context says where, too
            phrase = f"{phrase} ({p.context})"
        out = []
        scoped = bool(p.scope) and bool(t.anchor_fixtures or t.anchor_rooms)
        labels = [_get(f, "label", fixture_class(fid)) for fid, f in t.fixtures.items()]
        if not labels:
            return []
        sims = (self.embedder.embed([phrase]) @ self.embedder.embed(labels).T)[0]
        recent = {fid for fid, f in t.fixtures.items()
                  if any("open" in str(h) for h in (_get(f, "task_history", []) or []))
                  and t.now - _get(f, "last_seen", -1e9) < RECENT_SEARCH}
        recent_labels = {_get(t.fixtures[fid], "label") for fid in recent}
        for (fid, f), sim in zip(t.fixtures.items(), sims):
            if fid in t.locked:
                continue
            if scoped and fid not in t.anchor_fixtures and not (not t.anchor_fixtures and _get(f, "room") in t.anchor_rooms):
                continue
            container = self._is_container(t, fid)
            contents = [normal(c) for c in (_get(f, "contents", []) or [])]
            if container and contents and fid in recent and not any(self._label_ok(t, c) for c in contents):
                continue  # searched moments ago and the object was not inside
            # a class seen before lies on surfaces; one never seen is most likely shut away
            score = float(sim) + (0.5 if container == (not t.target_labels) else 0.0)
            if container and _get(f, "label") in recent_labels and fid not in recent:
                score += 0.3  # the user is going through these containers right now
            out.append((fid, score))
        return sorted(out, key=lambda x: (-x[1], x[0]))

    # -- acting -------------------------------------------------------------------------------
    def _next_place(self, t: _Task) -> Optional[Place]:
        for place in t.places:
            if place.fixture in t.explored or place.fixture in t.locked or t.open_failures[place.fixture] >= 2:
                continue
            return place
        return None

    def _act(self, t: _Task, remaining: int) -> Action:
        p = t.parsed
        # 1. something matching is in view: take it (or stop there when only finding is asked)
        if t.looked and t.visible:
            ranked = sorted(((self._is_target_detection(t, d), i, d) for i, d in enumerate(t.visible)),
                            key=lambda x: (-x[0], x[1]))
            for score, _, d in ranked:
                if score <= 0:
                    break
                if p.intent == INTENT_LOCATE:
                    return Action("done", {"success": True, "reason": f"found {_get(d, 'label')} at {t.at}"})
                target = _get(d, "instance_id", "") or _get(d, "node_id", "") or _get(d, "label", "")
                if t.pick_failures[target] < 2:
                    return Action("pick", {"target": target})
        if remaining <= 1:
            return Action("done", {"success": False, "reason": "budget spent before the object was found"})
        # 2. at a place not yet looked at: look (open first if it is a closed container)
        place = t.current
        if place is None or place.fixture in t.explored or place.fixture in t.locked \
                or t.open_failures[place.fixture] >= 2:
            place = t.current = self._next_place(t)
        if place is None:
            return Action("done", {"success": False, "reason": "searched every plausible place"})
        if t.at != place.fixture:
            return Action("navigate", {"target": place.fixture})
        if self._is_container(t, place.fixture):
            if place.fixture not in t.opened and not self._known_open(t, place.fixture):
                return Action("open", {"target": place.fixture})
            if not t.looked:
                return Action("peek", {"target": place.fixture})
        elif not t.looked:
            if place.instance and not t.pick_failures[place.instance] and p.intent != INTENT_LOCATE:
                return Action("pick", {"target": place.instance})  # memory names it; the grasp verifies it
            return Action("detect", {"query": ""})
        t.explored.add(place.fixture)
        t.current = None
        t.looked, t.visible = False, []
        return self._act(t, remaining)

    def _known_open(self, t: _Task, fid: str) -> bool:
        f = t.fixtures.get(fid)
        if f is None or fid in t.believed_closed:
            return False
        props = self._node_props(f)
        return str(props.get("state", "")).lower() == "open"

    # -- recall -------------------------------------------------------------------------------
    def _describe_fixture(self, t: _Task, fid: str, room: str = "") -> str:
        f = t.fixtures.get(fid)
        label = _get(f, "label", "") if f is not None else ""
        if not label:
            for r in t.records:
                for s in _get(r, "sightings", []) or []:
                    if s.kind == "fixture" and s.object_id == fid:
                        label = s.label
        label = label or fixture_class(fid)
        room = room or (_get(f, "room", "") if f is not None else "")
        return f"the {label} ({fid})" + (f" in the {room.replace('_', ' ')}" if room else "")

    def _asked_attribute(self, t: _Task, key: str) -> str:
        """The value of an attribute a question asks for, from the newest matching sighting or node."""
        found: list[tuple[float, str]] = []
        for n in t.nodes.values():
            props = self._node_props(n)
            if key in props and self._label_ok(t, _get(n, "label", "")) and \
                    self._near_anchor(t, _get(n, "parent", ""), _get(n, "position"), _get(n, "room", "")):
                found.append((_get(n, "last_seen", 0.0), str(props[key])))
        for r in t.records:
            for s_ in _get(r, "sightings", []) or []:
                if key in s_.attributes and self._label_ok(t, s_.label) and \
                        self._near_anchor(t, s_.support, s_.position, _get(r, "room", "")):
                    found.append((_get(r, "stamp", 0.0), str(s_.attributes[key])))
        return max(found)[1] if found else ""

    def _recall_answer(self, t: _Task) -> str:
        p = t.parsed
        if not p.target and (t.anchor_fixtures or t.anchor_rooms):  # "what is on the desk?"
            seen = Counter()
            for r in t.records:
                for s in _get(r, "sightings", []) or []:
                    if s.kind != "fixture" and self._near_anchor(t, s.support, s.position, _get(r, "room", "")):
                        seen[s.label] += 1
            if not seen:
                for n in t.nodes.values():
                    if self._near_anchor(t, _get(n, "parent", ""), _get(n, "position"), _get(n, "room", "")):
                        seen[_get(n, "label")] += 1
            if seen:
                return "I saw " + ", ".join(f"a {label}" for label, _ in seen.most_common(5)) + \
                    f" {p.relation or 'at'} {p.anchor}."
            return f"I have not seen anything {p.relation or 'at'} {p.anchor}."
        if p.asks:
            value = self._asked_attribute(t, p.asks)
            if value:
                return f"The {p.target or 'object'} is {value}."
        best: Optional[tuple[float, str, str]] = None  # stamp, fixture, room
        lo, hi = p.window if p.window is not None else (-math.inf, math.inf)
        for r in t.records:
            stamp = _get(r, "stamp", 0.0)
            if not lo <= stamp <= hi:
                continue
            for s in _get(r, "sightings", []) or []:
                if s.kind != "fixture" and s.support and self._label_ok(t, s.label) and self._attrs_ok(t, s.attributes):
                    if best is None or stamp > best[0]:
                        best = (stamp, s.support, _get(r, "room", ""))
        if p.window is not None and not t.records:  # no memory: the scene graph's location trails
            for n in t.nodes.values():
                if self._label_ok(t, _get(n, "label", "")) and self._attrs_ok(t, self._node_props(n)):
                    for loc in _get(n, "trail", []) or []:
                        if loc["since"] <= hi and loc["until"] >= lo and (best is None or loc["until"] > best[0]):
                            best = (min(loc["until"], hi), loc["parent"], "")
        if p.window is None:
            for n in t.nodes.values():
                if _get(n, "parent") and self._label_ok(t, _get(n, "label", "")) and self._attrs_ok(t, self._node_props(n)):
                    if best is None or _get(n, "last_seen", 0.0) > best[0]:
                        best = (_get(n, "last_seen", 0.0), _get(n, "parent"), _get(n, "room", ""))
        what = p.target or "it"
        if best is None:
            return f"I have not seen the {what}" + (f" {p.time_phrase}" if p.time_phrase else "") + "."
        stamp, fid, room = best
        day, rest = divmod(int(stamp), 86400)
        when = f"day {day} {rest // 3600:02d}:{rest % 3600 // 60:02d}"
        return f"I last saw the {what} on {self._describe_fixture(t, fid, room)} at {when}."
