"""The scene graph as of a clock: what a task may know when it starts.

A scenario's tasks are independent trials of "the robot at that moment": several start at the
same clock, and a sequence's later task can start after a task run next. Each trial's observations
are stamped with the world clock, so a task's honest view is every piece of evidence (patrol
observations, what earlier tasks saw and learned) stamped no later than its start, plus what it
observes itself while it runs.

``GraphHistory(graph)`` keeps that evidence as (stamp, apply) pairs, ``apply(graph)`` being the
call that integrates it, and ``view``, the graph the running task reads (every change to it is
recorded evidence):

- ``record(stamp, apply, now=True)``: keep evidence; applied to ``view`` at once (its result is
  returned) unless ``now`` is False.
- ``as_of(clock) -> SceneGraph``: make ``view`` the graph holding exactly the evidence stamped no
  later than ``clock``. It starts from the closest graph holding nothing later (the view itself,
  or a graph kept at an earlier call) and applies the rest in stamp order; the result is kept too,
  so tasks that start at the same clock copy it instead of replaying.
- ``adopt(graph)``: ``graph`` (built elsewhere, e.g. shared by the benchmark's methods) already
  holds all the evidence recorded so far; it becomes ``view``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

Apply = Callable[[Any], Any]


@dataclass
class _Held:
    graph: Any  # a SceneGraph
    evidence: set[int]  # indices into GraphHistory._evidence that the graph holds


class GraphHistory:
    def __init__(self, graph: Any):
        self._evidence: list[tuple[float, Apply]] = []
        self._view = _Held(graph, set())
        self._kept: list[_Held] = []

    @property
    def view(self) -> Any:
        return self._view.graph

    def record(self, stamp: float, apply: Apply, now: bool = True) -> Any:
        if not self._kept:  # the graph before any evidence (map knowledge only): the oldest state
            self._kept.append(_Held(self._view.graph.copy(), set()))
        self._evidence.append((float(stamp), apply))
        if not now:
            return None
        self._view.evidence.add(len(self._evidence) - 1)
        return apply(self._view.graph)

    def as_of(self, clock: float) -> Any:
        wanted = {i for i, (stamp, _) in enumerate(self._evidence) if stamp <= clock}
        usable = [held for held in (self._view, *self._kept) if held.evidence <= wanted]
        base = max(usable, key=lambda held: len(held.evidence))  # the view first on a tie: no copy
        graph = base.graph if base is self._view else base.graph.copy()
        for i in sorted(wanted - base.evidence, key=lambda i: self._evidence[i][0]):
            self._evidence[i][1](graph)
        self._view = _Held(graph, wanted)
        if all(held.evidence != wanted for held in self._kept):
            self._kept.append(_Held(graph.copy(), set(wanted)))
        return graph

    def adopt(self, graph: Any) -> None:
        self._view = _Held(graph, set(range(len(self._evidence))))
