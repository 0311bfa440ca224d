"""The read side of both backends: every query plan, over a few engine primitives that
``EdgeStore`` and ``ClientStore`` implement (``store_base.QdrantStoreBase`` adds the writes).

Two indices (``objects``: stores created with schema 2 or later): view records (one per
observation, caption embedding) and their object sightings (``sightings.py``: one entry per
object seen, with a dense and a sparse vector of its own text, fused by the engine). A record
spans [stamp, last] once compaction merged observations into it (``compaction.py``).

Query semantics (shared by both backends):
- text ranking: two rankings, of the views (caption similarity) and of the object sightings
  (dense + sparse words, fused by the engine; a record ranks where its best sighting does, except
  that records showing each instance of the best match's class on each of its supports come
  before records that only repeat one of those). When the best sighting is at least as similar
  to the query as the best view (the query names an object), the sighting ranking orders the
  records and the view ranking only adds those no sighting ranked; otherwise the view ranking
  leads and the sighting ranking alternates with it. The record carries the index of the
  sighting that ranked it (``matched_sighting``, -1: none). Score: reciprocal rank,
  1 / (``RRF_K`` + rank) (higher is better), or the cosine similarity in stores without object sightings.
- object search: the sighting ranking grouped by object instance (one answer per instance, as
  the record of its best sighting among those every filter admits), paged past the instances
  already answered (``object_search``; the server backend: the engine's grouping).
  Otherwise scores are -|dt| seconds (time "around"; 0 inside a record's span), -distance metres
  (position), 0.0 (time range in time order).
- time ranges select records whose span overlaps the range: a record's stamp inside it, or a
  compacted record (one with ``last``; few: one per place and state) starting before and lasting into it.
- a region (filter.near + radius) is a box on the x/y range indices followed by an exact
  distance check, so corners of the box never leak into results.
- time "around" t without text: the k records nearest in time. With text: the records ranked by
  similarity inside the smallest window around t holding ``CONTEXT_FACTOR * k`` records.
- position with radius <= 0 and text: ranked by similarity inside the smallest circle holding
  ``CONTEXT_FACTOR * k`` records.
"""
from __future__ import annotations

import math
from dataclasses import replace
from typing import Any, Callable, Iterator, Optional

import numpy as np

from mnemo_common.types import MemoryFilter, MemoryRecord, MnemoError, Status

from mnemo_memory.conditions import (
    Conditions, Hit, Region, both_regions, filter_conditions, intersect_time, time_distance,
)
from mnemo_memory.object_search import best_per_object
from mnemo_memory.records import point_id, record_from_payload
from mnemo_memory.sightings import sparse_words

CONTEXT_FACTOR = 10
# Object sightings fetched per result wanted (a record holds several, and a record seen for a
# long time many similar ones).
OBJECT_POOL = 8
RRF_K = 60  # the usual reciprocal-rank-fusion constant (Qdrant's default too)


class QueryPlans:
    """Query plans shared by the backends; subclasses implement the engine primitives."""

    model_name: str
    dim: int
    objects: bool = False
    room_hours: bool = False  # schema 3: records and sightings bear ``rh`` (records.room_hour), indexed

    # -- engine primitives (backend-specific) -------------------------------------------
    def _nearest(self, vector: np.ndarray, cond: Conditions, limit: int) -> list[Hit]:
        raise NotImplementedError

    def _ordered(self, cond: Conditions, descending: bool, limit: int) -> list[dict]:
        """Payloads matching cond, ordered by stamp."""
        raise NotImplementedError

    def _locate(self, cond: Conditions, limit: int) -> list[tuple[Any, float, float]]:
        """(point id, x, y) of up to limit records matching cond: positions only, no payloads."""
        raise NotImplementedError

    def _payloads(self, pids: list) -> list[dict]:
        """Full payloads of these points, in this order."""
        raise NotImplementedError

    def _count(self, cond: Conditions, exact: bool = True) -> int:
        """Records matching cond; exact=False: the engine's estimate from its indices (no scan)."""
        raise NotImplementedError

    def _retrieve(self, pid: str) -> Optional[tuple[dict, Any]]:
        raise NotImplementedError

    def _nearest_sightings(self, vector: np.ndarray, words: Optional[tuple[list[int], list[float]]],
                           cond: Conditions, limit: int, ranked_only: bool = False) -> list[Hit]:
        """Object sightings by the engine's fusion of dense and (when words are given) sparse ranking.
        ``ranked_only``: the caller takes ranks, not scores (the dense ranking is then not rescored)."""
        raise NotImplementedError

    def _best_per_object(self, vector: np.ndarray, words: Optional[tuple[list[int], list[float]]],
                         cond: Conditions, region: Optional[Region], limit: int) -> list[Hit]:
        """The best sighting of each of up to ``limit`` object instances, best first (sightings
        without an instance id are left out): ``object_search.best_per_object``. Its pages are ranked
        only (the int8 ranking, not rescored: a page of hundreds of sightings read as many float
        vectors from disk)."""
        return best_per_object(lambda c, n: self._nearest_sightings(vector, words, c, n, ranked_only=True), cond,
                               region, limit, OBJECT_POOL * limit)

    # -- reads ---------------------------------------------------------------------------
    def _vector(self, v: Any, what: str) -> np.ndarray:
        e = np.asarray(v, dtype=np.float32).reshape(-1)
        if e.shape[0] != self.dim:
            raise MnemoError(Status.INVALID_ARGUMENT,
                             f"{what} has dimension {e.shape[0]}, the store holds {self.dim}-d vectors")
        return e

    def scan(self, page: int = 1000) -> Iterator[MemoryRecord]:
        """Every record, in stamp order (records sharing a stamp may come in any order)."""
        start: Optional[float] = None
        done_at_start: set[str] = set()
        limit = page
        while True:
            items = self._ordered(Conditions(stamp_gte=start), False, limit)
            fresh = [p for p in items if not (p["stamp"] == start and p["d"] in done_at_start)]
            if items and not fresh and len(items) == limit:  # a page of equal stamps already read
                limit *= 2
                continue
            yield from (record_from_payload(p) for p in fresh)
            if len(items) < limit:
                return
            last = items[-1]["stamp"]
            same = {p["d"] for p in items if p["stamp"] == last}
            done_at_start = same | done_at_start if last == start else same
            start = last

    def count(self) -> int:
        return self._count(Conditions())

    def get(self, record_id: str) -> Optional[MemoryRecord]:
        found = self._retrieve(point_id(record_id))
        if found is None:
            return None
        payload, vector = found
        return record_from_payload(payload, vector)

    def search_text(self, embedding: np.ndarray, k: int = 10,
                    filter: Optional[MemoryFilter] = None, text: str = "") -> list[MemoryRecord]:
        cond, region = filter_conditions(filter, self.objects)
        return self._ranked(embedding, text, cond, region, k)

    def search_objects(self, embedding: np.ndarray, k: int = 10,
                       filter: Optional[MemoryFilter] = None, text: str = "") -> list[MemoryRecord]:
        """The k object instances whose sightings best match the query, best first: each as the
        record of its best sighting, ``matched_sighting`` naming it (score: the engine's fused
        score of that sighting, on the page of the ranking that answered it; without words, its
        similarity as the int8 vectors give it, within about 0.01). Empty for a store without object
        sightings."""
        if not self.objects:
            return []
        cond, region = filter_conditions(filter, self.objects)
        vec = self._vector(embedding, "query embedding")
        words = sparse_words(text) if text and text.strip() else None
        best = self._best_per_object(vec, words, cond, region, k)
        out = []
        for (p, score), payload in zip(best, self._payloads([p["record"] for p, _ in best])):
            if payload is not None:  # a sighting whose record compaction just replaced
                r = record_from_payload(payload, score=score)
                r.matched_sighting = p["i"]
                out.append(r)
        return out

    def search_time(self, since: Optional[float] = None, until: Optional[float] = None,
                    around: Optional[float] = None, k: int = 10, filter: Optional[MemoryFilter] = None,
                    text_embedding: Optional[np.ndarray] = None, text: str = "") -> list[MemoryRecord]:
        cond, region = filter_conditions(filter, self.objects)
        if around is None:
            cond = intersect_time(cond, since, until, self.objects)
            if text_embedding is not None:
                return self._ranked(text_embedding, text, cond, region, k)
            hits = self._collect(lambda n: self._walk(cond, False, n), region, k)
            return [record_from_payload(p) for p in hits]
        near = self._nearest_in_time(cond, region, around, k if text_embedding is None else CONTEXT_FACTOR * k)
        if text_embedding is None:
            return [record_from_payload(p, score=-time_distance(p, around)) for p in near]
        if not near:
            return []
        window = max(time_distance(p, around) for p in near)
        cond = intersect_time(cond, around - window, around + window, self.objects)
        return self._ranked(text_embedding, text, cond, region, k)

    def search_position(self, x: float, y: float, radius: float = 0.0, k: int = 10,
                        filter: Optional[MemoryFilter] = None,
                        text_embedding: Optional[np.ndarray] = None, text: str = "") -> list[MemoryRecord]:
        cond, region = filter_conditions(filter, self.objects)
        max_radius = radius if radius > 0 else math.inf
        if text_embedding is not None and radius > 0:
            circle = Region(x, y, radius)
            return self._ranked(text_embedding, text, cond.box(x, y, radius), both_regions(region, circle), k)
        n = k if text_embedding is None else CONTEXT_FACTOR * k
        near = self._nearest_in_space(cond, region, x, y, max_radius, n)
        if text_embedding is None:
            return [record_from_payload(p, score=-d) for d, p in near]
        if not near:
            return []
        reach = near[-1][0]
        return self._ranked(text_embedding, text, cond.box(x, y, reach), both_regions(region, Region(x, y, reach)), k)

    # -- plans ---------------------------------------------------------------------------
    @staticmethod
    def _collect(fetch: Callable[[int], list], region: Optional[Region], k: int,
                 payload_of: Callable[[Any], dict] = lambda p: p) -> list:
        """First k fetched items inside the region, fetching more while the exact check drops some.
        With a region, twice k at first: the region's circle fills about 0.79 of the square box the
        engine filters by, so k alone came back short (and was fetched again, four times as many)
        for most queries."""
        limit = k if region is None else 2 * k
        while True:
            items = fetch(limit)
            if region is None:
                return items[:k]
            kept = [it for it in items if region.contains(payload_of(it))]
            if len(kept) >= k or len(items) < limit:
                return kept[:k]
            limit *= 4

    def _ranked(self, embedding: np.ndarray, text: str, cond: Conditions, region: Optional[Region],
                k: int) -> list[MemoryRecord]:
        vec = self._vector(embedding, "query embedding")
        views = self._collect(lambda n: self._nearest(vec, cond, n), region, k, payload_of=lambda h: h[0])
        if not self.objects:
            return [record_from_payload(p, score=s) for p, s in views]
        words = sparse_words(text) if text and text.strip() else None
        # (the pool is merged with the views by rank: its scores are not compared)
        found = self._collect(lambda n: self._nearest_sightings(vec, words, cond, n, ranked_only=True), region,
                              OBJECT_POOL * k,
                              payload_of=lambda h: h[0])
        matched = _news_first(found)
        records = {point_id(r.id): r for r in (record_from_payload(p) for p, _ in views)}
        by_view = list(records)
        if views and found and self._names_an_object(vec, cond, region, views[0][1]):
            # the sighting ranking leads; views only add the records it did not rank
            top = list(dict.fromkeys([*matched, *by_view]))[:k]
        else:
            # the view ranking leads, the sighting ranking alternating with it: a view nearer the
            # query than any sighting is often one that shows little (an empty view's caption is
            # its room), so the best sightings' records still reach the top k
            top = list(dict.fromkeys(_alternate(by_view, list(matched))))[:k]
        # scores: reciprocal rank, as Qdrant's fusion gives them
        fused = {pid: 1.0 / (RRF_K + rank + 1) for rank, pid in enumerate(top)}
        missing = [pid for pid in top if pid not in records]
        for pid, p in zip(missing, self._payloads(missing)):
            if p is not None:
                records[pid] = record_from_payload(p)
        out = []
        for pid in top:
            r = records.get(pid)
            if r is not None:  # a sighting whose record compaction just replaced
                r.score, r.matched_sighting = fused[pid], matched.get(pid, -1)
                out.append(r)
        return out

    def _names_an_object(self, vec: np.ndarray, cond: Conditions, region: Optional[Region],
                         best_view: float) -> bool:
        """Whether one object sighting matches the query at least as closely as the best view does
        (both cosine similarities of the same model): a caption speaks of everything in view, so a
        query about one object matches that object's own text more closely than any view. One more
        engine query: the fused sighting ranking's scores are ranks, not similarities."""
        best = self._collect(lambda n: self._nearest_sightings(vec, None, cond, n), region, 1,
                             payload_of=lambda h: h[0])
        return bool(best) and best[0][1] >= best_view

    def _walk(self, cond: Conditions, descending: bool, limit: int) -> list[dict]:
        """Payloads matching cond in stamp order: the engine's ordered walk, and with spans the
        compacted records starting before the range that last into it."""
        plain = self._ordered(replace(cond, spanning=False), descending, limit)
        if not (cond.spanning and cond.stamp_gte is not None):
            return plain
        seen = {p["d"] for p in plain}
        extra = [p for p in self._ordered(cond.covering(cond.stamp_gte), descending, limit) if p["d"] not in seen]
        return sorted(plain + extra, key=lambda p: p["stamp"], reverse=descending)[:limit]

    def _nearest_in_time(self, cond: Conditions, region: Optional[Region], t: float, k: int) -> list[dict]:
        after = self._collect(lambda n: self._walk(intersect_time(cond, t, None, cond.spanning), False, n), region, k)
        before = self._collect(lambda n: self._walk(replace(cond, stamp_lt=t), True, n), region, k)
        if self.objects:  # compacted records holding at t, though they started long before
            before += self._collect(lambda n: self._ordered(replace(cond, stamp_lt=t).covering(t), True, n), region, k)
        unique = {p["d"]: p for p in after + before}
        return sorted(unique.values(), key=lambda p: time_distance(p, t))[:k]

    def _nearest_in_space(self, cond: Conditions, region: Optional[Region], x: float, y: float,
                          max_radius: float, k: int) -> list[tuple[float, dict]]:
        """The k records nearest to (x, y) within max_radius, as (distance, payload), nearest first.

        A square around the point, sized from the indices' cardinality estimate to hold about 2k
        records, is read as positions only (no payloads); it shrinks when it holds more than
        ``cap`` and doubles until its inscribed circle holds k. Only the k winners' payloads
        are fetched. Estimates only size the square: the answer comes from the positions read."""
        cap = max(16 * k, 1024)
        r = min(1.0, max_radius)
        est = self._count(cond.box(x, y, r), exact=False)
        if est > 4 * k:
            r *= math.sqrt(2.0 * k / est)
        total: Optional[int] = None
        shrinks = 0
        while True:
            box = cond.box(x, y, r)
            limit = cap + 1 if shrinks < 8 else max(self._count(box), 1)
            located = self._locate(box, limit)
            if len(located) > cap and shrinks < 8:  # denser than estimated
                r *= 0.5
                shrinks += 1
                continue
            everything = False
            if len(located) < k and math.isinf(max_radius):
                total = self._count(cond) if total is None else total
                everything = len(located) >= total
            found = []
            for pid, px, py in located:
                d = math.hypot(px - x, py - y)
                if (d <= r or everything) and (region is None or region.contains({"x": px, "y": py})):
                    found.append((d, pid))
            if len(found) >= k or r >= max_radius or everything:
                found.sort(key=lambda dp: dp[0])
                found = found[:k]
                return list(zip((d for d, _ in found), self._payloads([pid for _, pid in found])))
            r = min(r * 2.0, max_radius)


def _news_first(found: list[Hit]) -> dict[str, int]:
    """Record -> the sighting that ranks it, from a sighting ranking (best first): records showing
    something new about the best match's class first (each instance of it, on each support it
    was seen on), then the others in ranking order. A month of patrols holds hundreds of identical
    sightings of an object seen daily at its place; without this they fill the top k and hide the
    other instances of the class the query names."""
    if not found:
        return {}
    wanted = found[0][0]["labels"][0]
    new: dict[str, int] = {}
    rest: dict[str, int] = {}
    shown: set[tuple[str, str]] = set()
    for p, _ in found:
        fact = (p.get("object", ""), p.get("support", ""))
        if p["labels"][0] == wanted and fact not in shown:
            shown.add(fact)
            new.setdefault(p["record"], p["i"])
        else:
            rest.setdefault(p["record"], p["i"])
    return {**new, **{pid: i for pid, i in rest.items() if pid not in new}}


def _alternate(first: list[str], second: list[str]) -> list[str]:
    """first[0], second[0], first[1], second[1], ...; the longer list's tail at the end."""
    out = [x for pair in zip(first, second) for x in pair]
    n = min(len(first), len(second))
    return out + first[n:] + second[n:]
