"""The general offline policy: a small explicit state machine over typed beliefs.

Each task: SURVEY (the scene graph, when there is one) -> RECALL (memory, when the request needs the
past or there is no graph) -> ANSWER (recall questions, from structured sightings) or ACT: for each
place in turn (a known thing's place, then plausible unexplored ones) NAVIGATE -> OPEN (containers)
-> LOOK (detect, or peek inside) -> PICK what fits, or stop there when only finding was asked.
On arriving where memory places the very thing, the scene graph (what the camera saw on the way in)
is the look: a PICK follows when it is still there, the next place when the camera missed it.

Decisions read typed tool data only (``outcome`` codes, ``learned`` properties, detections, nodes,
records); the outcome text is for people and language models.
"""
from __future__ import annotations

import math
from dataclasses import replace
from typing import Any, Optional

from mnemo_planner import request as rq
from mnemo_planner.answers import Answerer
from mnemo_planner.beliefs import Beliefs, Entity
from mnemo_planner.calendar import Calendar
from mnemo_planner.dialogue import DialogueContext, continues
from mnemo_planner.grounding import NAMED, NEED, Grounding, describe_fit, ground, named
from mnemo_planner.hypotheses import (FIT, Place, entity_places, fit_of, is_container, match_fit, need_fit,
                                      obtainable, rank_entities, search_places, settle_for)
from mnemo_planner.loop import PolicyInput
from mnemo_planner.matching import Similarity, match_labels
from mnemo_planner.outcomes import absorb
from mnemo_planner.task_state import TaskState
from mnemo_planner.tools import Action
from mnemo_planner.wording import run_on

OPEN_TRIES = 3  # tries on one handle before giving up on it: a failure the analyzer calls no lock missed the
# handle, and each try is a fresh chance (a lock it names ends the tries at once)
SETTLE_REACH = 3  # the most steps settling waits for (a drive, opening, the grasp): with more left the search
# goes on, and the candidates need not be scored


class GeneralPolicy:
    def __init__(self, embedder: Any = None, use_scene_graph: bool = True, use_memory: bool = True,
                 context: Optional[DialogueContext] = None, calendar: Optional[Calendar] = None) -> None:
        self._embedder = embedder
        self.use_scene_graph, self.use_memory = use_scene_graph, use_memory
        self.context = context
        self.calendar = calendar or Calendar.simulator()
        self.beliefs = Beliefs()
        self._t: Optional[TaskState] = None
        self._key: Optional[tuple] = None
        self._previous: Optional[dict] = None
        self._sim: Optional[Similarity] = None

    @property
    def sim(self) -> Similarity:
        if self._sim is None:
            if self._embedder is None:
                from mnemo_common.embedding import get_embedder

                self._embedder = get_embedder()
            self._sim = Similarity(self._embedder)
        return self._sim

    # -- the policy interface --------------------------------------------------------------
    def decide(self, state: PolicyInput) -> Action:
        key = (state.instruction, state.now, state.budget)
        if self._t is None or self._key != key or not state.history:
            self._t = TaskState(rq.parse(state.instruction, state.now, self.calendar), state.now)
            self._key, self.beliefs = key, Beliefs()
            self._previous = self.context.recent(state.now) if self.context is not None else None
            last = self._previous or {}
            self._t.held = str(last.get("target", "")) if last.get("holding") else ""
            prev = self._previous if continues(state.instruction) else None  # a request that continues the one
            if prev:  # before finds the robot where that one left it, holding what it held
                self._t.at, self._t.here, self._t.holding = prev["at"], prev["here"], prev["holding"]
                self._t.opened = {self._t.at} if prev["open_here"] else set()
        t = self._t
        for entry in state.history[t.seen:]:
            absorb(self.beliefs, t, entry)
        t.seen = len(state.history)
        action = self._next(t, state.remaining)
        self._remember(t, picking=action.tool == "pick")
        return action

    def _remember(self, t: TaskState, picking: bool = False) -> None:
        """What the next task may build on. (A task ends on the pick that succeeds, before its outcome
        reaches the policy: a task whose last word was a pick ended holding the thing.)"""
        if self.context is None:
            return
        e = self.beliefs.entities.get(t.target)
        prev = self._previous or {}
        scope = t.g.scope or (prev.get("scope", []) if not t.g.fixtures else [])
        self.context.remember(start=t.now, target=t.target, label=e.label if e else prev.get("label", ""),
                              scope=list(scope), explored=sorted(t.explored), locked=sorted(t.locked),
                              places=list(t.g.fixtures) if len(t.g.fixtures) > 1 else [],  # "one of the crates"
                              at=t.at, here=t.here, holding=t.holding or t.carrying or picking, open_here=t.at in t.opened)

    # -- deciding ------------------------------------------------------------------------------
    def _ground(self, t: TaskState) -> None:
        if t.grounded:
            return
        t.g = ground(self.sim, self.beliefs, t.req)
        t.g.place_spent = t.place_spent
        prev = self._previous or {}
        # a follow-up searches on: in the scope before, or among the places the request before named
        carried = prev.get("scope") or (prev.get("places", []) if continues(t.req.text) else [])
        if not t.g.scope and not t.g.fixtures and carried:
            t.g.scope = [f for f in carried if f in self.beliefs.fixtures]
            t.scope_carried = bool(t.g.scope) and not continues(t.req.text)  # ("now find ...": still there)
        if prev:
            t.locked |= set(prev.get("locked", []))
        t.ranked = rank_entities(self.sim, self.beliefs, t.req, t.g, prev)
        if prev and self.use_scene_graph and t.g.scope and \
                t.g.scope == [f for f in prev.get("scope", []) if f in self.beliefs.fixtures]:
            # searching on in the same scope: the graph knows what the places searched before held
            t.explored |= set(prev.get("explored", [])) - {e.support for _, e in t.ranked}
        t.grounded, t.planned = True, False

    def _next(self, t: TaskState, remaining: int) -> Action:
        req = t.req
        if self.use_scene_graph and not t.surveyed:
            return Action("query_scene_graph", {"include_stale": True})
        self._ground(t)
        wants_past = req.intent == rq.RECALL or req.window is not None or req.habit or not self.use_scene_graph
        if self.use_memory and t.memory_asked == 0 and wants_past and remaining > 2:
            return self._memory_query(t)
        if req.intent == rq.RECALL:
            answer = Answerer(self.beliefs, self.sim, self.calendar, t.now).answer(req, t.g, [e for _, e in t.ranked])
            if t.ranked:
                t.target = t.ranked[0][1].key
            return Action("answer", {"text": answer})
        return self._act(t, remaining)

    def _memory_query(self, t: TaskState) -> Action:
        # the label with the words that may tell its instances apart ("a mauve gizmo"), so that the records
        # of the instance asked for rank first among many of its kind
        text = " ".join([*t.g.modifiers, *t.g.labels[:1]]) if t.g.labels else t.g.thing or t.g.need or t.req.text
        args: dict[str, Any] = {"text": text, "k": 50}
        if t.req.window is not None:
            args["since"], args["until"] = float(t.req.window[0]), float(t.req.window[1])
        if t.g.labels:
            args["labels"] = list(t.g.labels)
        return Action("search_memory", args)

    def _plan(self, t: TaskState) -> list[Place]:
        places: list[Place] = []
        candidates = [e for _, e in t.ranked[:4]]
        for e in candidates:
            places += entity_places(self.beliefs, e, t.locked)
        if t.g.scope and not t.scope_carried:
            # "check the crates": the places named are searched before what is known elsewhere (a scope
            # carried over from the request before only comes first among places never searched)
            places = [p for p in places if p.fixture in t.g.scope]
        # a thing the home never showed by that name is weighed against the places as the whole request
        # puts it: its name alone, or a need's content words, say less of where it is kept
        thing = t.g.labels[0] if t.g.labels else t.req.text
        last = max((e.last_seen for _, e in t.ranked), default=None)
        skip = t.locked | {p.fixture for p in places}
        places += search_places(self.sim, self.beliefs, thing, t.g, skip, t.here, last, t.g.scope,
                                frozenset(e.key for e in candidates))
        return places

    def _fits(self, t: TaskState, e: Entity) -> float:
        """How well a thing in view fits the request (0: not the one), judged with all that is known now
        (a sibling first seen in this view may make a stated attribute tell them apart)."""
        req, g = t.req, t.g
        if req.match and g.reference is not None:
            return match_fit(g.reference, e)
        if (req.pronoun or req.other or req.match) and not g.labels:
            keys = {x.key: fit for fit, x in t.ranked}
            return 10.0 + keys[e.key] if e.key in keys else 0.0
        if g.labels:
            if e.label not in g.labels:
                return 0.0
            fit = fit_of(self.sim, self.beliefs, req, g, e)
            return fit if fit >= FIT else 0.0
        return self._label_fit(t, e)

    def _label_fit(self, t: TaskState, e: Entity) -> float:
        g = t.g
        if g.labels:
            score = g.label_scores.get(e.label, 0.0)
            if not score:
                m = match_labels(self.sim, list(t.req.words), [e.label])
                score = m[0].score if m and m[0].score >= NAMED else 0.0
        elif g.named:  # a thing never seen, asked for by name: the name must name what is in view
            words = run_on(t.req.phrase, g.named.split(), [e.label])
            m = [x for x in named(match_labels(self.sim, words, self.beliefs.labels(), noun_phrase=True), words[-1])
                 if x.label == e.label]
            score = m[0].score if m else 0.0
        elif g.need:  # the thing in view that best answers the need, if any answers it at all and no
            # thing known elsewhere answers it better (that one is what a search in vain settles for)
            sims = need_fit(self.sim, g.need, t.visible, g.situation)
            score = sims[t.visible.index(e)]  # (``_fits`` weighs the things in view)
            score = score if score >= NEED and score >= max(sims + self._known_fits(t)) - 1e-6 else 0.0
        else:
            return 0.0
        if not score:
            return 0.0
        siblings = [x for x in self.beliefs.entities.values() if x.label == e.label]
        alone = Grounding(labels=[e.label], label_scores={e.label: score}, modifiers=g.modifiers,
                          qualifiers=g.qualifiers, compound=g.compound)
        fit = describe_fit(self.sim, alone, t.req, e, siblings, self.beliefs.value_words())
        return fit if fit >= min(FIT, score) else 0.0

    def _known_fits(self, t: TaskState) -> list[float]:
        """How well each thing known elsewhere, and still to be had, answers the request's need."""
        seen = {x.key for x in t.visible}
        there = [x for x in obtainable(self.beliefs, t.failed, t.locked) if x.key not in seen]
        return need_fit(self.sim, t.g.need, there, t.g.situation)

    def _act(self, t: TaskState, remaining: int) -> Action:
        req = t.req
        if t.holding:
            action = self._put_down(t)
            if action is not None:
                return action
        if t.looked and t.visible and req.match and t.g.reference is None and t.at in t.g.fixtures:
            # the place the request names shows what its words may name: grounded again with it
            t.grounded = False
            self._ground(t)
        if t.looked and t.visible:
            best = max(((self._fits(t, e), i, e) for i, e in enumerate(t.visible)), key=lambda x: (x[0], -x[1]))
            if best[0] > 0 and (best[2].key, t.at) not in t.failed:
                e = best[2]
                if e.support and e.support != t.at and e.support in self.beliefs.fixtures:
                    t.current, t.looked, t.visible = Place(e.support, e.key, "seen there"), False, []
                    return Action("navigate", {"target": e.support})
                t.target = e.key
                if req.intent == rq.LOCATE:
                    return Action("done", {"success": True, "reason": f"found the {e.label} at {t.at}"})
                return Action("pick", {"target": e.key})
        settling = self._settling(t, remaining, exhausted=False)
        if settling is not None:
            return settling
        if remaining <= 1:
            return Action("done", {"success": False, "reason": "the budget ran out before the object was found"})
        place = t.current
        if place is not None and (place.fixture in t.locked or place.fixture in t.explored
                                  or t.open_tries[place.fixture] >= OPEN_TRIES):
            place = None
        if place is None:
            if not t.planned:
                t.places, t.planned = self._plan(t), True
            place = next((p for p in t.places if p.fixture not in t.explored and p.fixture not in t.locked
                          and t.open_tries[p.fixture] < OPEN_TRIES), None)
            t.current = place
        if place is None:
            return self._settling(t, remaining, exhausted=True) or \
                Action("done", {"success": False, "reason": "searched every plausible place"})
        if t.at != place.fixture:
            return Action("navigate", {"target": place.fixture})
        container = is_container(self.sim, self.beliefs, place.fixture)
        if container and place.fixture not in t.opened and not self._known_open(t, place.fixture):
            return Action("open", {"target": place.fixture})
        if not t.looked and place.entity and (place.entity, place.fixture) not in t.failed \
                and req.intent != rq.LOCATE and not req.match:
            if self.use_scene_graph and t.glance is None:  # what did the camera see on arriving?
                t.glance = {k: e.last_seen for k, e in self.beliefs.entities.items()}
                return Action("query_scene_graph", {"include_stale": True})
            t.target = place.entity
            return Action("pick", {"target": place.entity})  # memory puts it here: the grasp verifies it
        if not t.looked and not (place.entity and (place.entity, place.fixture) in t.failed):
            # (a grasp that found nothing where memory put the thing has looked already)
            return Action("peek" if container else "detect", {"target": place.fixture} if container else {"query": ""})
        t.explored.add(place.fixture)
        t.current, t.looked, t.visible = None, False, []
        self._place_searched(t)
        return self._act(t, remaining)

    def _place_searched(self, t: TaskState) -> None:
        """Once every place the request names has been searched in vain, the place no longer rules a thing
        out (things get moved, and a place may be named loosely); a stated time or habit still does. (The
        place of "one like the gizmo on the plinth" is the reference's, searched or not.)"""
        g, req = t.g, t.req
        if t.place_spent or not (g.fixtures or g.rooms) or req.habit or req.window is not None or req.match:
            return
        named = set(g.fixtures) or {fid for fid, f in self.beliefs.fixtures.items() if f.room in g.rooms}
        if named and named <= t.explored:
            t.place_spent = g.place_spent = True
            t.ranked = rank_entities(self.sim, self.beliefs, req, g, self._previous)
            t.planned = False

    def _settling(self, t: TaskState, remaining: int, exhausted: bool) -> Optional[Action]:
        """Fetch the best thing known that fits at all once the budget left only covers going for it
        (or no plausible place is left): a near miss is worth more than an empty gripper."""
        req = t.req
        if req.intent != rq.FETCH or req.match or req.pronoun or req.other:
            return None
        e = self.beliefs.entities.get(t.settle) if t.settle else None
        if e is not None and ((e.key, e.support) in t.failed or e.support in t.locked
                              or t.open_tries[e.support] >= OPEN_TRIES):
            e = None
        if e is None:
            if not exhausted and remaining > SETTLE_REACH:  # (no thing's cost can be higher: skip the scoring)
                return None
            # (a scope carried over from an unrelated request before says where to search first, not where
            # the thing is likelier)
            g = replace(t.g, scope=[]) if t.scope_carried else t.g
            best = settle_for(self.sim, self.beliefs, req, g, t.failed, t.locked, frozenset(t.explored))
            if best is None:
                return None
            e = best[1]
            # (only a drive away from it raises the cost by more than the step it spends); at the search's
            # first place, its best guess, search on while that place can still be looked at and the thing
            # grasped; once places were searched in vain, a thing known outweighs a last look at one more
            if not exhausted and (remaining > self._cost(t, e.support) + int(t.at == e.support)
                                  or (not t.explored and t.current is not None and not t.looked
                                      and remaining >= self._cost(t, t.current.fixture) + 1)):
                return None
            t.settle = e.key
        if t.at != e.support:
            return Action("navigate", {"target": e.support})
        if self._cost(t, e.support) > 1:
            return Action("open", {"target": e.support})
        t.target = e.key
        return Action("pick", {"target": e.key}, note=f"settled for the {e.label} on {e.support}: the best match known "
                                                      "when the search for what was asked could not finish")

    def _cost(self, t: TaskState, fid: str) -> int:
        """Steps to grasp a thing at ``fid``: a drive there, opening it, the grasp."""
        closed = is_container(self.sim, self.beliefs, fid) and fid not in t.opened and not self._known_open(t, fid)
        return int(t.at != fid) + int(closed) + 1

    def _known_open(self, t: TaskState, fid: str) -> bool:
        """Seen open since this task began: a door the graph remembers open from before may have been
        shut since (a request that continues the last one knows where it left a door open)."""
        f = self.beliefs.fixtures.get(fid)
        return f is not None and f.open and fid not in t.closed and f.last_seen >= t.now

    def _put_down(self, t: TaskState) -> Optional[Action]:
        """The gripper holds something (a grasp was refused for it): put it down here, or on the nearest surface."""
        if t.at and t.at not in t.no_place and (not is_container(self.sim, self.beliefs, t.at) or t.at in t.opened):
            return Action("place", {"target": t.at})
        surfaces = [(fid, f) for fid, f in self.beliefs.fixtures.items() if fid not in t.no_place and f.position
                    and not is_container(self.sim, self.beliefs, fid)]
        if not surfaces:
            t.holding = False
            return None
        here = t.here or (0.0, 0.0)
        fid = min(surfaces, key=lambda x: (math.dist(tuple(x[1].position)[:2], here[:2]), x[0]))[0]
        return Action("navigate", {"target": fid}) if t.at != fid else Action("place", {"target": fid})
