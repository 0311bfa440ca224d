"""Recall: questions about objects answered from object-level memory alone, with the records that
show the answer (evidence a caller can check, best first).

A description ("the red mug") is resolved to one instance (``identify``): among the instances
the best-matching records saw, and every instance of the likely classes, the one whose own
sighting text matches it best. The instance's history is then read exactly, not by similarity: every record that saw its class, in
time order (the label filter and the engine's ordered walk), kept where one of its sightings is
that instance. Consecutive sightings on one support make a stay. On that history:

- ``where_now``: the support of its newest sighting; evidence: the newest records of that stay.
- ``where_before``: the support of the stay before its latest stay at a destination (named in
  words, matched by meaning to the names of the fixtures seen in those records).
- ``where_usually``: the support it spent most time on (a move is put halfway between the
  sightings either side of it); evidence: records there.
- ``how_many``: the instances of the description's class; evidence: the fewest records that show
  every instance (greedy cover, newest first).
- ``where_together``: the support two instances were last seen on together; evidence: records
  that show both there.

Without object-level memory (a store created before it: no sighting matched) nothing can be
resolved, and each answer falls back to what a text search returns (empty answer).
"""
from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable, Optional, Sequence

import numpy as np

from mnemo_common.types import MemoryFilter, MemoryRecord, Sighting

from mnemo_memory.sightings import object_sightings, sighting_text, words

K = 5
PAGE = 2000  # records read per step of a history walk
IDENTIFY_POOL = 50  # search results (records, then instances of a class) a description is resolved among
CLASSES = 3  # classes whose every instance competes for a description


@dataclass(frozen=True)
class Seen:
    """One record's sighting of an instance."""

    record: MemoryRecord
    sighting: Sighting


@dataclass(frozen=True)
class Stay:
    """Consecutive sightings of an instance on one support."""

    support: str
    seen: tuple[Seen, ...]

    @property
    def first(self) -> float:
        return self.seen[0].record.span[0]

    @property
    def last(self) -> float:
        return max(s.record.span[1] for s in self.seen)


@dataclass
class Recall:
    answer: str  # a fixture id, a count, or "" when memory holds no answer
    records: list[MemoryRecord] = field(default_factory=list)  # evidence, best first
    instances: tuple[str, ...] = ()  # what the descriptions resolved to


def _until(at: Optional[float]) -> MemoryFilter:
    return MemoryFilter(until=at)


def identify(memory, description: str, at: Optional[float] = None) -> Optional[Sighting]:
    """The sighting (instance and class) that best matches a description, or None when no
    sighting matched (a store without object-level memory).

    Candidates are the instances seen in the best-matching records, then every instance of each
    of the ``CLASSES`` classes that rank first among them (object search in the class: each
    instance once, by its best sighting, however its records rank; a month of repeats of one
    instance would fill a search for records). Each candidate is ranked by its own text alone, by
    meaning (the memory's embedding model) and by the words it shares with the description,
    weighted by how few candidates have them (what tells it from the others), the two scores
    fused. A record's rank mixes its view, which speaks of everything in view: it says where to
    look, not which of the objects there is meant. (The first step searches records, not objects:
    an object search over every class groups a far larger share of the sightings.)"""
    found = memory.search_text(description, k=IDENTIFY_POOL, filter=_until(at))
    if not any(r.matched_sighting >= 0 for r in found):
        return None
    candidates = _candidates(found)
    if not candidates:
        return None
    first = _ranked(memory, description, candidates)
    for label in list(dict.fromkeys(s.label for s in first))[:CLASSES]:
        in_class = memory.search_objects(description, k=IDENTIFY_POOL, filter=MemoryFilter(until=at, labels=[label]))
        for text, s in _candidates(in_class).items():
            candidates.setdefault(text, s)
    return _ranked(memory, description, candidates)[0]


def _candidates(records: Sequence[MemoryRecord]) -> dict[str, Sighting]:
    """Sighting text -> the sighting, for the records' object sightings (first seen first)."""
    out: dict[str, Sighting] = {}
    for r in records:
        for _, s in object_sightings(r):
            if s.object_id:
                out.setdefault(sighting_text(s, r.room), s)
    return out


def _ranked(memory, description: str, candidates: dict[str, Sighting]) -> list[Sighting]:
    """Candidates best first, by the sum of the two scores each scaled to [0, 1] over the
    candidates: a near tie in meaning leaves the decision to the words, and the reverse (fusing
    ranks would weigh a hair's difference in meaning as much as a distinctive word)."""
    texts = list(candidates)
    vectors = memory.embedder.embed([description, *texts])
    fused = _unit(vectors[1:] @ vectors[0]) + _unit(_shared_words(description, texts))
    order = np.argsort(-fused, kind="stable")  # ties keep the search's order
    return [candidates[texts[i]] for i in order]


def _unit(scores: np.ndarray) -> np.ndarray:
    span = float(scores.max() - scores.min())
    return (scores - scores.min()) / span if span > 0 else np.zeros_like(scores)


def _shared_words(query: str, texts: Sequence[str]) -> np.ndarray:
    """Per text: the inverse document frequency (over ``texts``) of the query words it holds."""
    held = [words(t) for t in texts]
    df = Counter(w for ws in held for w in ws)
    n, asked = len(texts), words(query)
    return np.array([sum(math.log(1.0 + (n - df[w] + 0.5) / (df[w] + 0.5)) for w in asked & ws) for ws in held])


def class_records(memory, label: str, at: Optional[float] = None) -> list[MemoryRecord]:
    """Every record that saw ``label`` up to ``at``, in time order (read page by page)."""
    out: list[MemoryRecord] = []
    ids: set[str] = set()
    since: Optional[float] = None
    while True:
        page = memory.search_time(since=since, until=at, k=PAGE, filter=MemoryFilter(labels=[label]))
        fresh = [r for r in page if r.id not in ids]
        out += fresh
        ids.update(r.id for r in fresh)
        if len(page) < PAGE or not fresh:
            return sorted(out, key=lambda r: r.stamp)
        since = page[-1].stamp


def history(records: Sequence[MemoryRecord], instance: str) -> list[Seen]:
    """The sightings of one instance in time-ordered records."""
    return [Seen(r, s) for r in records for s in r.sightings if s.object_id == instance]


def stays(seen: Sequence[Seen]) -> list[Stay]:
    """Consecutive sightings on one support (sightings that name no support are left out)."""
    out: list[list[Seen]] = []
    for s in seen:
        if not s.sighting.support:
            continue
        if out and out[-1][-1].sighting.support == s.sighting.support:
            out[-1].append(s)
        else:
            out.append([s])
    return [Stay(run[0].sighting.support, tuple(run)) for run in out]


def _newest(seen: Sequence[Seen], k: int) -> list[MemoryRecord]:
    records: dict[str, MemoryRecord] = {}
    for s in sorted(seen, key=lambda s: -s.record.span[1]):
        records.setdefault(s.record.id, s.record)
    return list(records.values())[:k]


def _resolved(memory, description: str, at: Optional[float]) -> Optional[tuple[Sighting, list[MemoryRecord]]]:
    target = identify(memory, description, at)
    if target is None:
        return None
    return target, class_records(memory, target.label, at)


def where_now(memory, description: str, at: Optional[float] = None, k: int = K) -> Recall:
    found = _resolved(memory, description, at)
    if found is None:
        return Recall("", memory.search_time(around=at, k=k, text=description) if at is not None
                      else memory.search_text(description, k=k))
    target, records = found
    runs = stays(history(records, target.object_id))
    if not runs:
        return Recall("", [], (target.object_id,))
    return Recall(runs[-1].support, _newest(runs[-1].seen, k), (target.object_id,))


def fixture_names(records: Sequence[MemoryRecord]) -> dict[str, str]:
    """Fixture id -> its label, from the fixtures the records saw."""
    return {s.object_id: s.label for r in records for s in r.sightings if s.kind == "fixture" and s.object_id}


def best_named(memory, name: str, supports: Sequence[str], names: dict[str, str]) -> str:
    """The support whose name means most nearly ``name`` (by the memory's embedding model)."""
    texts = [names.get(s, s).replace("_", " ") for s in supports]
    vectors = memory.embedder.embed([name, *texts])
    similarity = vectors[1:] @ vectors[0]
    return supports[int(np.argmax(similarity))]


def _stays_of(memory, description: str, at: Optional[float], k: int):
    """(the described object, its class's records, its stays), or the Recall to give when it cannot be
    told or has no stay."""
    found = _resolved(memory, description, at)
    if found is None:
        return None, Recall("", memory.search_text(description, k=k, filter=_until(at)))
    target, records = found
    runs = stays(history(records, target.object_id))
    return (target, records, runs), (None if runs else Recall("", [], (target.object_id,)))


def where_before(memory, description: str, destination: str, at: Optional[float] = None, k: int = K) -> Recall:
    """Where the object was before it moved to ``destination`` (words naming a fixture)."""
    found, empty = _stays_of(memory, description, at, k)
    if empty is not None:
        return empty
    target, records, runs = found
    supports = list(dict.fromkeys(run.support for run in reversed(runs)))  # newest first: ties go to the latest
    moved_to = best_named(memory, destination, supports, fixture_names(records))
    arrival = max(i for i, run in enumerate(runs) if run.support == moved_to)
    before = next((run for run in reversed(runs[:arrival]) if run.support != moved_to), None)
    if before is None:
        return Recall("", [], (target.object_id,))
    return Recall(before.support, _newest(before.seen, k), (target.object_id,))


def where_usually(memory, description: str, at: Optional[float] = None, k: int = K) -> Recall:
    found, empty = _stays_of(memory, description, at, k)
    if empty is not None:
        return empty
    target, records, runs = found
    first = memory.search_time(until=at, k=1)  # memory's first record: since when it could have seen
    held: Counter = Counter()
    for run, span in zip(runs, held_spans(runs, at, first[0].stamp if first else None)):
        held[run.support] += span
    usual = held.most_common(1)[0][0]
    seen = [s for run in runs if run.support == usual for s in run.seen]
    return Recall(usual, _newest(seen, k), (target.object_id,))


def held_spans(runs: Sequence[Stay], at: Optional[float] = None, start: Optional[float] = None) -> list[float]:
    """How long each stay held: a move is put halfway between the sightings either side of it,
    the first stay holds from ``start`` (when memory began) and the last until ``at``: with no
    sighting there, the object is taken to be where it was first and last seen. A habit is where
    an object spends its time, not where it is looked at most (a place in view from every
    corridor is seen far more often)."""
    bounds = [min(runs[0].first, start if start is not None else runs[0].first)]
    bounds += [(a.last + b.first) / 2.0 for a, b in zip(runs, runs[1:])]
    bounds.append(max(runs[-1].last, at if at is not None else runs[-1].last))
    return [b - a for a, b in zip(bounds, bounds[1:])]


def how_many(memory, description: str, at: Optional[float] = None, k: int = K) -> Recall:
    """How many instances of the description's class memory saw, and records that show them all."""
    found = _resolved(memory, description, at)
    if found is None:
        return Recall("", memory.search_text(description, k=k, filter=_until(at)))
    target, records = found
    holds: dict[str, set[str]] = {r.id: {s.object_id for s in r.sightings
                                         if s.label == target.label and s.object_id} for r in records}
    instances = set().union(*holds.values()) if holds else set()
    return Recall(str(len(instances)), cover(records, holds, k), tuple(sorted(instances)))


def cover(records: Sequence[MemoryRecord], holds: dict[str, set[str]], k: int) -> list[MemoryRecord]:
    """Up to k records that together hold the most instances: greedy, the newest on ties."""
    left = set().union(*holds.values()) if holds else set()
    newest_first = sorted(records, key=lambda r: -r.span[1])
    chosen: list[MemoryRecord] = []
    while left and len(chosen) < k:
        best = max(newest_first, key=lambda r: len(holds[r.id] & left))  # max keeps the first (newest) on ties
        if not holds[best.id] & left:
            break
        chosen.append(best)
        left -= holds[best.id]
    return chosen


def where_together(memory, first: str, second: str, at: Optional[float] = None, k: int = K) -> Recall:
    """Where two objects were last seen together on one support, and records that show them there."""
    a, b = identify(memory, first, at), identify(memory, second, at)
    if a is None or b is None:
        return Recall("", memory.search_text(f"{first} and {second}", k=k, filter=_until(at)))
    together: list[Seen] = []
    for r in class_records(memory, a.label, at):
        on = {s.object_id: s.support for s in r.sightings if s.object_id in (a.object_id, b.object_id)}
        where = on.get(a.object_id)
        if where and on.get(b.object_id) == where:
            together.append(Seen(r, next(s for s in r.sightings if s.object_id == a.object_id)))
    if not together:
        return Recall("", [], (a.object_id, b.object_id))
    newest = max(together, key=lambda s: s.record.span[1])
    return Recall(newest.sighting.support, _newest([s for s in together if s.sighting.support ==
                                                    newest.sighting.support], k), (a.object_id, b.object_id))


PLANS: dict[str, Callable[..., Recall]] = {
    "current": where_now, "overwritten": where_before, "habit": where_usually,
    "counting": how_many, "co-location": where_together,
}
