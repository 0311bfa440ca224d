"""The methods the benchmark compares: policies over the planner's one action space.

Every method runs through the planner's loop and the in-process toolbox; what differs is the policy
and which parts of memory the toolbox lets it use (``ablation.Ablation``):

- ``random`` (STAR's lower bound): explores fixtures at random, opens containers, looks, and picks
  a random object of a class the instruction names (any object when none does).
- ``SG+S`` (STAR): the scene graph only and a single attempt: the planner's policy goes where the
  graph says and looks/picks there once (``SingleAttempt``).
- ``TR+S`` (STAR): temporal retrieval from long-term memory only (no scene graph) and one attempt.
- ``full``: the planner's policy (``mnemo_planner.policy.GeneralPolicy``) with memory, scene graph,
  interaction analysis and spatial search (replanning over every plausible place).
- ``SG``, ``SG+IA``, ``SG+KF``, ``SG+IA+KF`` (MessyMem's ablations): the policy with the scene graph
  (no long-term vector memory), with or without the interaction analyzer (IA) and the keyframe memory
  (KF). The offline policy never asks for keyframes (only the LLM policy does), so +KF changes nothing
  for it; the rows are kept so the table has MessyMem's shape and so an LLM policy can fill them.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Callable

from mnemo_planner import request as rq
from mnemo_planner.loop import PolicyInput
from mnemo_planner.policy import GeneralPolicy
from mnemo_planner.tools import Action

from mnemo_bench.ablation import Ablation


@dataclass(frozen=True)
class Method:
    name: str
    description: str
    ablation: Ablation
    make_policy: Callable[[int], Any]  # per-task seed -> a fresh policy
    needs_memory: bool  # whether a long-term memory store must be built for it


class SingleAttempt:
    """STAR's "+S": one plan, executed once. The wrapped policy decides as usual, but once the robot
    has reached one place, a move to a second place (or a second pick) ends the task instead."""

    def __init__(self, inner: Any):
        self.inner = inner

    def decide(self, state: PolicyInput) -> Action:
        action = self.inner.decide(state)
        arrived = sum(1 for e in state.history if e.action.tool == "navigate" and e.outcome.ok)
        picked = sum(1 for e in state.history if e.action.tool == "pick")
        if (action.tool == "navigate" and arrived >= 1) or (action.tool == "pick" and picked >= 1):
            return Action("done", {"success": False, "reason": "the single attempt is spent"})
        return action


def _words(text: str) -> set[str]:
    import re

    words = set(re.findall(r"[a-z0-9]+", text.lower()))
    return words | {w[:-1] for w in words if w.endswith("s") and len(w) > 3}


class RandomPolicy:
    """Explores at random: the map's fixtures (from the scene graph's fixture list) in random order;
    opens containers, looks, and picks a random detected object of a class the instruction names,
    else any detected object. Reach instructions stop at the first place with something matching;
    questions get a random place as the answer."""

    def __init__(self, seed: int):
        self.rng = random.Random(seed)
        self._key: Any = None

    def _reset(self, state: PolicyInput) -> None:
        self._key = (state.instruction, state.now, state.budget)
        self.parsed = rq.parse(state.instruction, state.now)
        self.wanted = _words(" ".join(self.parsed.words) or state.instruction)
        self.fixtures: dict[str, dict] = {}
        self.unvisited: list[str] = []

    def decide(self, state: PolicyInput) -> Action:
        if self._key != (state.instruction, state.now, state.budget) or not state.history:
            self._reset(state)
            return Action("query_scene_graph", {"include_stale": True})
        if len(state.history) == 1:
            nodes = state.history[0].outcome.data.get("nodes", []) if state.history[0].outcome.ok else []
            self.fixtures = {n["id"]: n for n in nodes if n.get("kind") == "fixture"}
            self.unvisited = sorted(self.fixtures)
            self.rng.shuffle(self.unvisited)
        if self.parsed.intent == rq.RECALL:
            fid = self.rng.choice(sorted(self.fixtures)) if self.fixtures else "nowhere"
            label = self.fixtures.get(fid, {}).get("label", "") or fid
            return Action("answer", {"text": f"the {label} ({fid})"})
        last = state.history[-1]
        tool, out = last.action.tool, last.outcome
        if tool == "navigate" and out.ok:
            fid = str(out.data.get("at_fixture", ""))
            if self.fixtures.get(fid, {}).get("properties", {}).get("state") in ("open", "closed"):
                return Action("open", {"target": fid})
            return Action("detect", {"query": ""})
        if tool == "open" and out.ok:
            return Action("peek", {"target": last.action.arguments["target"]})
        if tool in ("detect", "peek") and out.ok:
            seen = [d for d in out.data.get("detections" if tool == "detect" else "contents", [])
                    if getattr(d, "kind", "object") != "fixture"]
            matching = [d for d in seen if _words(d.label) & self.wanted]
            if self.parsed.intent == rq.LOCATE and matching:
                return Action("done", {"success": True, "reason": "found something matching"})
            pool = matching or seen
            if pool and self.parsed.intent != rq.LOCATE:
                d = self.rng.choice(pool)
                return Action("pick", {"target": d.instance_id or d.node_id or d.label})
        if not self.unvisited or state.remaining <= 1:
            return Action("done", {"success": False, "reason": "nothing more to explore"})
        return Action("navigate", {"target": self.unvisited.pop()})


def _policy(use_memory: bool, use_scene_graph: bool) -> Callable[[int], GeneralPolicy]:
    def make(seed: int) -> GeneralPolicy:
        return GeneralPolicy(use_scene_graph=use_scene_graph, use_memory=use_memory)
    return make


def _single(make: Callable[[int], Any]) -> Callable[[int], SingleAttempt]:
    return lambda seed: SingleAttempt(make(seed))


def _graph_only(ia: bool, kf: bool) -> Ablation:
    return Ablation(use_memory=False, use_scene_graph=True, use_interaction_analysis=ia, use_keyframes=kf)


METHODS: dict[str, Method] = {m.name: m for m in [
    Method("random", "explores fixtures at random and picks a random matching (or any) object",
           Ablation(use_memory=False, use_scene_graph=True, use_interaction_analysis=False), RandomPolicy, False),
    Method("SG+S", "scene graph only, one attempt (STAR baseline)",
           _graph_only(ia=False, kf=False), _single(_policy(use_memory=False, use_scene_graph=True)), False),
    Method("TR+S", "temporal retrieval from long-term memory only, one attempt (STAR baseline)",
           Ablation(use_memory=True, use_scene_graph=False, use_interaction_analysis=False),
           _single(_policy(use_memory=True, use_scene_graph=False)), True),
    Method("full", "the planner's policy: memory + scene graph + interaction analysis + spatial search",
           Ablation(use_memory=True, use_scene_graph=True, use_interaction_analysis=True, use_keyframes=True),
           _policy(use_memory=True, use_scene_graph=True), True),
    Method("SG", "scene graph only, with spatial search (MessyMem ablation)",
           _graph_only(ia=False, kf=False), _policy(use_memory=False, use_scene_graph=True), False),
    Method("SG+IA", "scene graph + interaction analyzer (MessyMem ablation)",
           _graph_only(ia=True, kf=False), _policy(use_memory=False, use_scene_graph=True), False),
    Method("SG+KF", "scene graph + keyframes (MessyMem ablation; the offline policy does not use keyframes)",
           _graph_only(ia=False, kf=True), _policy(use_memory=False, use_scene_graph=True), False),
    Method("SG+IA+KF", "scene graph + interaction analyzer + keyframes (MessyMem's full method, graph side)",
           _graph_only(ia=True, kf=True), _policy(use_memory=False, use_scene_graph=True), False),
]}

DEFAULT_METHODS = ("random", "SG+S", "TR+S", "full", "SG", "SG+IA", "SG+KF", "SG+IA+KF")


def resolve_methods(names: list[str]) -> list[Method]:
    unknown = [n for n in names if n not in METHODS]
    if unknown:
        raise ValueError(f"unknown method(s) {unknown}; known: {', '.join(METHODS)}")
    return [METHODS[n] for n in names]
