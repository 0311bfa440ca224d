"""MemoryService: the facade the node, the CLI, the planner and the benchmarks call.

It embeds query text, validates every input (raising ``MnemoError`` with INVALID_ARGUMENT or
NOT_FOUND and a message) and calls the store. Methods may be called from several threads:
embedding runs in parallel, store calls are serialised by one lock (qdrant-client's local mode
is not thread-safe, and a store call takes milliseconds), and writers by a second one, taken first.

Index maintenance: with ``auto_optimize`` (default) every ``add`` that leaves about a segment of
unindexed records behind (``store.optimize_due()``) asks ``BackgroundIndexer`` for a build: the
embedded store's index is built in a child process on a copy of its shards while queries and
writes go on (``index_build``); ``wait_indexed()`` waits for it. Bulk loaders pass
``auto_optimize=False`` and call ``optimize()`` (blocking, in this process) once at the end.
"""
from __future__ import annotations

import math
import threading
from pathlib import Path
from typing import Callable, Optional, Sequence

import numpy as np

from mnemo_common.embedding import Embedder
from mnemo_common.types import MemoryFilter, MemoryRecord, MnemoError, Status, invalid

from mnemo_memory.background_index import BackgroundIndexer
from mnemo_memory.compaction import CompactionConfig, CompactionReport, Compactor, compact_store
from mnemo_memory.sightings import object_sightings, sighting_text
from mnemo_memory.store import MAX_K, MemoryStore, open_store


def _finite(name: str, *values: Optional[float]) -> None:
    for v in values:
        if v is not None and not math.isfinite(v):
            raise invalid(f"{name} must be finite, got {v}")


def validate_k(k: int) -> int:
    if not isinstance(k, (int, np.integer)) or k <= 0 or k > MAX_K:
        raise invalid(f"k must be in 1..{MAX_K}, got {k}")
    return int(k)


def validate_filter(f: Optional[MemoryFilter]) -> Optional[MemoryFilter]:
    if f is None:
        return None
    _finite("filter time", f.since, f.until)
    if f.since is not None and f.until is not None and f.since > f.until:
        raise invalid(f"filter time range is inverted: since {f.since} > until {f.until}")
    if f.near is not None:
        _finite("filter region", f.near[0], f.near[1], f.radius)
        if f.radius <= 0:
            raise invalid(f"filter region radius must be > 0, got {f.radius}")
    return f


def validate_record(r: MemoryRecord) -> None:
    _finite("record stamp", r.stamp)
    if not r.robot_pose.is_finite():
        raise invalid(f"record robot pose must be finite, got {r.robot_pose}")
    if not r.camera_pose.is_finite():
        raise invalid(f"record camera pose must be finite, got {r.camera_pose}")
    for s in r.sightings:
        _finite(f"sighting {s.label!r} position", *s.position)


class MemoryService:
    def __init__(self, store: MemoryStore, embedder: Embedder, auto_optimize: bool = True,
                 compaction: Optional[CompactionConfig] = None, on_event: Callable[[str], None] = lambda text: None,
                 reserve_bytes: int = 256 * 2**20):
        """``on_event``: a line for the log per index build; ``reserve_bytes``: free disk an index
        build leaves beyond its copy (it is skipped otherwise)."""
        if store.dim != embedder.dim:
            raise MnemoError(Status.FAILED, f"embedder {embedder.name} gives {embedder.dim}-d vectors, "
                                            f"store holds {store.dim}-d")
        self.store, self.embedder = store, embedder
        self.auto_optimize = auto_optimize
        self.compaction = compaction if store.objects else None  # stores without spans cannot merge
        self._compactor = Compactor(compaction) if self.compaction else None
        self._lock = threading.Lock()  # every store call
        self._write_lock = threading.Lock()  # writers (and an index build's copy and switch); before _lock
        self._indexer = BackgroundIndexer(store, self._write_lock, self._lock, on_event, reserve_bytes)

    @classmethod
    def open(cls, embedder: Embedder, data_dir: str | Path = "data", url: str = "",
             collection: str = "mnemo_memory", auto_optimize: bool = True,
             compaction: Optional[CompactionConfig] = None, **kwargs) -> "MemoryService":
        return cls(open_store(data_dir, embedder.name, embedder.dim, url=url, collection=collection), embedder,
                   auto_optimize=auto_optimize, compaction=compaction, **kwargs)

    # -- writes --------------------------------------------------------------------------
    def add(self, records: Sequence[MemoryRecord]) -> list[str]:
        """Store records (embedding their captions when they carry none) and their object
        sightings (embedding each one's text); durable on return. With online compaction, a
        record that only repeats its place's current run extends that run's record instead: its
        id is the run record's."""
        for r in records:
            validate_record(r)
        # embedding first, outside the lock: queries are served meanwhile (a repeat that compaction
        # then absorbs was embedded for nothing, but its texts are the run's, mostly cached)
        missing = [r for r in records if r.embedding is None]
        if missing:
            for r, e in zip(missing, self.embedder.embed([r.caption for r in missing])):
                r.embedding = e
        object_vectors = self._object_vectors(records) if self.store.objects else None
        with self._write_lock, self._lock:
            try:
                ids = self._add(records, object_vectors)
                due = self.auto_optimize and self.store.optimize_due()
            except BaseException:
                if self.compaction:  # runs it opened may not be stored: start afresh (only less compaction)
                    self._compactor = Compactor(self.compaction)
                raise
        if due:
            self._indexer.request()
        return ids

    def _add(self, records: Sequence[MemoryRecord], object_vectors: Optional[list[np.ndarray]]) -> list[str]:
        fresh, extended, owner = list(records), {}, {}
        if self._compactor is not None:
            fresh = []
            for r in records:
                held = self._compactor.offer(r)
                if held is None:
                    fresh.append(r)
                else:
                    extended[id(held)], owner[id(r)] = held, held
        if object_vectors is not None:
            kept = {id(r) for r in fresh}
            object_vectors = [v for r, v in zip(records, object_vectors) if id(r) in kept]
        self.store.add(fresh, object_vectors)
        written = {id(r) for r in fresh}  # a run opened in this batch was just written whole
        self.store.extend([r for key, r in extended.items() if key not in written])
        return [owner[id(r)].id if id(r) in owner else r.id for r in records]

    def _object_vectors(self, records: Sequence[MemoryRecord]) -> list[np.ndarray]:
        """Embeddings of each record's object sightings (a patrol repeats them: the embedder's cache)."""
        texts = [[sighting_text(s, r.room) for _, s in object_sightings(r)] for r in records]
        flat = [t for ts in texts for t in ts]
        vectors = self.embedder.embed(flat) if flat else np.empty((0, self.embedder.dim), np.float32)
        out, start = [], 0
        for ts in texts:
            out.append(vectors[start:start + len(ts)])
            start += len(ts)
        return out

    # -- queries -------------------------------------------------------------------------
    def _embed_query(self, text: str, required: bool) -> Optional[np.ndarray]:
        if not text or not text.strip():
            if required:
                raise invalid("query text is empty")
            return None
        return self.embedder.embed([text.strip()])[0]

    def search_text(self, text: str, k: int = 10, filter: Optional[MemoryFilter] = None) -> list[MemoryRecord]:
        k, filter = validate_k(k), validate_filter(filter)
        query = self._embed_query(text, True)
        with self._lock:
            return self.store.search_text(query, k, filter, text=text)

    def search_objects(self, text: str, k: int = 10, filter: Optional[MemoryFilter] = None) -> list[MemoryRecord]:
        """The k object instances that best match the text: each one's best sighting, as its record
        with ``matched_sighting`` naming it (empty for a store without object sightings)."""
        k, filter = validate_k(k), validate_filter(filter)
        query = self._embed_query(text, True)
        with self._lock:
            return self.store.search_objects(query, k, filter, text=text)

    def search_time(self, since: Optional[float] = None, until: Optional[float] = None,
                    around: Optional[float] = None, k: int = 10, text: str = "",
                    filter: Optional[MemoryFilter] = None) -> list[MemoryRecord]:
        """Records in [since, until] (time order, or by similarity to text), or nearest in time
        to ``around`` (then since/until must be unset)."""
        k, filter = validate_k(k), validate_filter(filter)
        _finite("time", since, until, around)
        if around is not None and (since is not None or until is not None):
            raise invalid("give either a time range (since/until) or 'around', not both")
        if since is not None and until is not None and since > until:
            raise invalid(f"time range is inverted: since {since} > until {until}")
        query = self._embed_query(text, False)
        with self._lock:
            return self.store.search_time(since, until, around, k, filter, query, text=text)

    def search_position(self, x: float, y: float, radius: float = 0.0, k: int = 10, text: str = "",
                        filter: Optional[MemoryFilter] = None) -> list[MemoryRecord]:
        k, filter = validate_k(k), validate_filter(filter)
        _finite("position", x, y, radius)
        query = self._embed_query(text, False)
        with self._lock:
            return self.store.search_position(x, y, radius, k, filter, query, text=text)

    def get(self, record_id: str) -> MemoryRecord:
        if not record_id:
            raise invalid("record id is empty")
        with self._lock:
            record = self.store.get(record_id)
        if record is None:
            raise MnemoError(Status.NOT_FOUND, f"no memory record with id {record_id!r}")
        return record

    def count(self) -> int:
        with self._lock:
            return self.store.count()

    def compact(self, config: CompactionConfig = CompactionConfig()) -> CompactionReport:
        """Compact the whole store now (blocking; online compaction starts afresh after it)."""
        with self._write_lock, self._lock:
            report = compact_store(self.store, config)
            if self.compaction:
                self._compactor = Compactor(self.compaction)
            return report

    def flush(self) -> None:
        with self._write_lock, self._lock:
            self.store.flush()

    def wait_indexed(self, timeout: Optional[float] = None) -> bool:
        """Wait until no background index build is in progress or requested; False on timeout."""
        return self._indexer.wait_idle(timeout)

    @property
    def index_builds(self) -> int:
        """Background index builds switched to since this service opened."""
        return self._indexer.builds

    def optimize(self) -> bool:
        """Index every filled segment now, in this process (blocking every thread of it: for bulk
        loads, not while serving)."""
        self._indexer.wait_idle()
        with self._write_lock, self._lock:
            return self.store.optimize()

    def close(self) -> None:
        self._indexer.close()
        with self._write_lock, self._lock:
            self.store.close()
