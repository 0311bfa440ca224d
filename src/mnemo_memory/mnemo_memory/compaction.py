"""Compaction: consecutive near-identical observations of one place become one record.

A robot patrolling a home sees the same shelf, unchanged, hundreds of times a month. Each place
(a robot pose, within ``place_radius`` metres and ``place_yaw`` radians) has an open run: the
record of its latest observation. An observation of the place in the same state (same room,
caption and sightings: every object with its support) extends that run instead of becoming a new
record: the run record keeps its first stamp, raw reference and embedding, and gains
``last_stamp``, ``count`` and ``raw_ref_last``. Anything else starts a new run, so changes (an
object appears, moves, disappears) always survive.

A run also breaks when one of its objects was seen in another state anywhere since the run's last
observation (moved away and back): a merged record claims its state held over its whole span,
and nothing observed contradicts that. So every object's state at every observed moment stays
recoverable: at time t, the records whose span holds t show what the observations at t showed.

``Compactor`` is the pure decision; ``compact_store`` applies it to a whole store (``mnemo memory
compact``); ``MemoryService`` applies it online. Crash safety: a run's record is rewritten in
place (same id, its span extended) before the records it absorbed are deleted, so a kill leaves
every observation held by some record; a rerun absorbs the leftovers again without counting them
twice (a leftover lies inside its run's span).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Iterable, Optional

from mnemo_common.types import MemoryRecord

State = tuple


@dataclass(frozen=True)
class CompactionConfig:
    place_radius: float = 0.5  # m between robot positions of one place
    place_yaw: float = 0.5     # rad between headings of one place


def state_of(r: MemoryRecord) -> State:
    """What an observation showed: room, caption and every sighting with where it rests."""
    return (r.room, r.caption, frozenset(
        (s.kind, s.object_id or s.label, s.label, s.support, s.relation, tuple(sorted(s.attributes.items())))
        for s in r.sightings))


@dataclass
class _Run:
    record: MemoryRecord
    state: State


@dataclass
class Compactor:
    """Decides, record by record in time order, which records extend an open run."""

    config: CompactionConfig = field(default_factory=CompactionConfig)
    _runs: dict[str, list[_Run]] = field(default_factory=dict)  # by room
    _where: dict[str, tuple[str, float]] = field(default_factory=dict)  # object -> (support, when it last changed)

    def offer(self, r: MemoryRecord) -> Optional[MemoryRecord]:
        """The run record ``r`` extends (its span updated: store it in place of ``r``), or None
        when ``r`` starts a new run (store it as it is)."""
        state = state_of(r)
        run = self._run_at(r)
        first, last = r.span
        extends = run is not None and run.state == state and self._unchanged_since(r, run.record.span[1])
        self._note_sightings(r, last)
        if not extends:
            runs = self._runs.setdefault(r.room, [])
            if run is not None:
                runs.remove(run)
            runs.append(_Run(r, state))
            return None
        held = run.record
        if last > held.span[1]:
            # a record inside the run's span is a leftover of an interrupted compaction: already counted
            held.count += r.count
            held.last_stamp, held.raw_ref_last = last, r.raw_ref_last or r.raw_ref
        return held

    def _run_at(self, r: MemoryRecord) -> Optional[_Run]:
        pose, cfg = r.robot_pose, self.config
        for run in self._runs.get(r.room, []):
            p = run.record.robot_pose
            turned = abs(math.atan2(math.sin(p.yaw - pose.yaw), math.cos(p.yaw - pose.yaw)))
            if math.hypot(p.x - pose.x, p.y - pose.y) <= cfg.place_radius and turned <= cfg.place_yaw:
                return run
        return None

    def _unchanged_since(self, r: MemoryRecord, since: float) -> bool:
        return all(self._where.get(s.object_id, ("", -math.inf))[1] <= since
                   for s in r.sightings if s.object_id)

    def _note_sightings(self, r: MemoryRecord, when: float) -> None:
        for s in r.sightings:
            if not s.object_id:
                continue
            before = self._where.get(s.object_id)
            if before is None or before[0] != s.support:
                self._where[s.object_id] = (s.support, r.stamp)


@dataclass(frozen=True)
class CompactionReport:
    before: int
    after: int
    extended: int  # run records rewritten with a longer span


def compact_records(records: Iterable[MemoryRecord], config: CompactionConfig = CompactionConfig()
                    ) -> tuple[dict[str, MemoryRecord], list[str]]:
    """(run records whose span grew, by id; ids of the records they absorbed), for records in time order."""
    compactor = Compactor(config)
    extended: dict[str, MemoryRecord] = {}
    absorbed: list[str] = []
    for r in records:
        held = compactor.offer(replace(r))
        if held is not None:
            extended[held.id] = held
            absorbed.append(r.id)
    return extended, absorbed


def compact_store(store, config: CompactionConfig = CompactionConfig(), batch: int = 2000) -> CompactionReport:
    """Compact a whole store (one writer: the caller holds it). Extensions first, then deletions."""
    before = store.count()
    extended, absorbed = compact_records(store.scan(), config)
    runs = list(extended.values())
    for i in range(0, len(runs), batch):
        store.extend(runs[i:i + batch])
    for i in range(0, len(absorbed), batch):
        store.delete(absorbed[i:i + batch])
    store.flush()
    return CompactionReport(before, store.count(), len(runs))

