"""The default backend: Qdrant's engine embedded in-process (qdrant-edge-py), on local disk.

Directory layout (``root`` = data_dir/memory/<collection>/)::

    root/meta.json   embedding model name, dimension and schema, written at creation; the
                     generation of the shards (rewritten by each index build); while a copy
                     fills the store, which copy (``model_record.UNFINISHED``)
    root/lock        flock'ed by the one process that writes the store (``store_dir``)
    root/shard/      the Qdrant edge shard of view records (segments + its write-ahead log)
    root/objects/    the shard of object sightings (schema 2; named vectors "text" and "words")
    root/gen-N/      shard/ and objects/ instead, once N index builds were switched to (index_build)

Durability: every ``update`` is appended to the shard's write-ahead log before it returns, so an
acknowledged record survives the process being killed (the crash test checks this with SIGKILL);
the log is replayed on the next open. ``flush`` writes segments and lets the log be trimmed, so
the store flushes itself every ``flush_every`` records to keep reopening fast.

Indexing (``tuning.EdgeTuning``): new records land in an appendable segment searched by brute force.
qdrant-edge runs no background optimizer: ``optimize()`` (blocking, and it holds the GIL, so
every thread of the process waits) turns segments larger than the indexing threshold into HNSW
segments with int8 scalar quantization kept in RAM; searches walk the graph on the int8 vectors
and rescore the best candidates with the (memory-mapped) float vectors. ``optimize_due()`` says when enough
unindexed records have accumulated (about one segment, ~13k 384-d records); MemoryService then
builds that index in a child process on a copy of the shards (``begin_index_build`` /
``end_index_build``, ``index_build``), serving from the live shards meanwhile; bulk loaders call
``optimize()``.
"""
from __future__ import annotations

import math
import threading
import time
from pathlib import Path
from typing import Any, Optional

import numpy as np
import qdrant_edge as qe

from mnemo_common.files import CorruptFileError, write_json_atomic
from mnemo_common.types import MnemoError, Status

from mnemo_memory.conditions import Conditions, Hit, Term, filter_plan
from mnemo_memory.index_build import IndexBuild, generation_dir, remove_leftovers, shard_dirs
from mnemo_memory.model_record import UNFINISHED, check_finished, check_meta, check_schema
from mnemo_memory.query_plans import RRF_K
from mnemo_memory.records import INDEXED_FIELDS
from mnemo_memory.sightings import DENSE, SIGHTING_INDEXED_FIELDS, SPARSE
from mnemo_memory.spatial import PositionGrid
from mnemo_memory.store_base import QdrantStoreBase
from mnemo_memory.store_dir import META, read_meta, release_lock, take_lock
from mnemo_memory.tuning import EdgeTuning

# 1: view records only; 2: object sightings and record spans ("last"); 3: room-hour keywords ("rh")
SCHEMA_VERSION = 3
POSITION_PAGE = 250  # records per page when the position grid is read back (each page holds the GIL ~3 ms)


def _term(t: Term) -> Any:
    if t[0] == "range":
        return qe.FieldCondition(t[1], range=qe.RangeFloat(**t[2]))
    if t[0] == "value":
        return qe.FieldCondition(t[1], match=qe.MatchValue(t[2]))
    if t[0] == "any":
        return qe.FieldCondition(t[1], match=qe.MatchAny(t[2]))
    return qe.HasIdCondition(set(t[1]))


def edge_filter(c: Conditions, room_hours: bool = False) -> Optional[qe.Filter]:
    """``conditions.filter_plan`` in the embedded engine's types."""
    plan = filter_plan(c, room_hours)
    if plan is None:
        return None
    must = [qe.Filter(should=[qe.Filter(must=[_term(t) for t in branch]) for branch in plan.either])] \
        if plan.either else []
    must += [_term(t) for t in plan.must]
    must_not = [_term(t) for t in plan.must_not]
    return qe.Filter(must=must or None, must_not=must_not or None)


# -- a damaged store at open: a clear error naming the file, never a silently empty memory ------
def load_shard(path: Path) -> "qe.EdgeShard":
    try:
        return qe.EdgeShard.load(str(path))
    except BaseException as exc:  # the engine's panics are BaseExceptions
        if isinstance(exc, (KeyboardInterrupt, SystemExit)):
            raise
        raise CorruptFileError(path, f"the engine cannot load it: {str(exc)[:300]}") from exc


def check_unused(shard_path: Path, meta_path: Path) -> None:
    """A shard left without meta.json by an interrupted creation holds nothing; one that holds
    records means meta.json was lost."""
    try:
        shard = qe.EdgeShard.load(str(shard_path))
    except BaseException as exc:  # noqa: BLE001 - half created: nothing in it was acknowledged
        if isinstance(exc, (KeyboardInterrupt, SystemExit)):
            raise
        return
    count = shard.info().points_count
    shard.close()
    if count:
        raise CorruptFileError(meta_path, f"missing, while {shard_path} holds {count} records")


class EdgeStore(QdrantStoreBase):
    def __init__(self, root: str | Path, model_name: str, dim: int, flush_every: int = 20_000,
                 tuning: EdgeTuning = EdgeTuning(), unfinished: str = ""):
        """``unfinished``: a new store is created marked as filled by this copy (``model_record``)."""
        self.tuning = tuning
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)
        self._lock_file = take_lock(self.root)
        try:
            self._build: Optional[IndexBuild] = None
            self._open(model_name, dim, unfinished)
        except BaseException:
            release_lock(self._lock_file)
            raise
        self._flush_every = flush_every
        self._since_flush = 0
        self._start_positions()

    def _open(self, model_name: str, dim: int, unfinished: str) -> None:
        meta_path = self.root / META
        self._objects: Optional[qe.EdgeShard] = None
        if meta_path.exists():
            self._meta = read_meta(self.root)
            check_finished(self._meta, str(meta_path))
            self.model_name, self.dim = check_meta(self._meta, model_name, dim, str(self.root))
            schema = check_schema(self._meta, SCHEMA_VERSION, str(meta_path))
            self.generation = int(self._meta.get("generation", 0))
            home = generation_dir(self.root, self.generation)
            self._shard = load_shard(home / "shard")
            self.objects, self.room_hours = schema >= 2, schema >= 3
            if self.objects:
                self._objects = load_shard(home / "objects")
            remove_leftovers(self.root, self.generation)
            return
        if not dim:
            raise MnemoError(Status.NOT_FOUND, f"no memory store at {self.root} and no embedding dimension to create one")
        self.model_name, self.dim, self.objects, self.generation = model_name, dim, True, 0
        self.room_hours = True
        import shutil

        for path in shard_dirs(self.root):  # created before meta.json was written: start over, nothing was acknowledged
            check_unused(path, meta_path)
            shutil.rmtree(path)
        remove_leftovers(self.root, 0)
        self._shard = self._create(self.root / "shard", self.tuning.config(dim), INDEXED_FIELDS)
        self._objects = self._create(self.root / "objects", self.tuning.config(dim, objects=True), SIGHTING_INDEXED_FIELDS)
        self._meta = {"model": model_name, "dim": dim, "schema": SCHEMA_VERSION,
                      **({UNFINISHED: unfinished} if unfinished else {})}
        write_json_atomic(meta_path, self._meta)

    def _create(self, path: Path, config: "qe.EdgeConfig", fields: dict[str, str]) -> "qe.EdgeShard":
        shard = qe.EdgeShard.create(str(path), config)
        for name, kind in fields.items():
            # stamp is the field most queries filter or order by: the principal one
            principal = name == "stamp"
            on_disk = self.tuning.stamp_index_on_disk if principal else self.tuning.secondary_indexes_on_disk
            schema = {"float": lambda: qe.FloatIndexParams(is_principal=principal, on_disk=on_disk),
                      "keyword": lambda: qe.KeywordIndexParams(on_disk=on_disk)}[kind]()
            shard.update(qe.UpdateOperation.create_field_index(name, schema))
        shard.flush()
        return shard

    # -- positions in RAM (spatial.PositionGrid) --------------------------------------------
    def _start_positions(self) -> None:
        """The grid answers plain nearest-k queries once it holds every record. A new or empty store
        fills it as it writes; an existing one is read in pages by a background thread (100k records:
        about 2 s, each page holding the GIL for a few ms), and position queries use the
        engine's indices until it is done, so a reopen does not wait for it. A store of more than
        ``tuning.positions_in_ram_max`` records keeps no grid (``positions_in_ram`` False)."""
        self._grid = PositionGrid()
        self._switching = threading.Lock()
        self._grid_ready = threading.Event()
        self._grid_stop = threading.Event()
        self._grid_loader: Optional[threading.Thread] = None
        self.positions_error = ""
        self.positions_load_seconds = 0.0
        count = self._shard.info().points_count
        self.positions_in_ram = count <= self.tuning.positions_in_ram_max
        if not self.positions_in_ram:
            return
        if count == 0:
            self._grid_ready.set()
            return
        self._grid_loader = threading.Thread(target=self._load_positions, name="memory-positions", daemon=True)
        self._grid_loader.start()

    def _load_positions(self) -> None:
        offset, start = None, time.perf_counter()
        grid = self._grid  # (dropped when the store outgrows it: this loader then fills nothing in use)
        try:
            while not self._grid_stop.is_set():
                with self._switching:  # an index build's switch replaces the shard between pages
                    records, offset = self._shard.scroll(qe.ScrollRequest(limit=POSITION_PAGE, offset=offset,
                                                                          with_payload=["x", "y"]))
                # replace=False: a record written meanwhile already holds its newest position
                grid.add([str(r.id) for r in records], [r.payload.get("x", math.nan) for r in records],
                         [r.payload.get("y", math.nan) for r in records], replace=False, rebuild=False)
                if offset is None:
                    grid.rebuild()
                    self.positions_load_seconds = time.perf_counter() - start
                    if grid is self._grid:
                        self._grid_ready.set()
                    return
                time.sleep(0.0005)  # let queries in between pages
        except Exception as exc:  # noqa: BLE001 - the engine's indices keep answering; nothing is lost
            self.positions_error = f"{type(exc).__name__}: {exc}"

    def positions_ready(self, timeout: Optional[float] = None) -> bool:
        """Whether plain position queries are answered from RAM (waiting up to ``timeout`` s; False
        at once for a store that keeps no grid)."""
        return self.positions_in_ram and self._grid_ready.wait(timeout)

    def _drop_positions(self) -> None:
        """The store outgrew ``positions_in_ram_max``: free the grid; the engine's indices answer."""
        self.positions_in_ram = False
        self._grid_ready.clear()
        self._grid_stop.set()  # (a loader still reading stops at its next page)
        self._grid = PositionGrid()

    def _stop_positions(self) -> None:
        self._grid_stop.set()
        if self._grid_loader is not None:
            self._grid_loader.join()

    def _nearest_in_space(self, cond: Conditions, region: Optional[Any], x: float, y: float,
                          max_radius: float, k: int) -> list[tuple[float, dict]]:
        grid = self._grid
        if not cond.empty() or region is not None or not (self.positions_in_ram and self._grid_ready.is_set()):
            return super()._nearest_in_space(cond, region, x, y, max_radius, k)
        near = grid.nearest(x, y, max_radius, k)
        return list(zip((d for d, _ in near), self._payloads([pid for _, pid in near])))

    # -- engine primitives ---------------------------------------------------------------
    def _filter(self, cond: Conditions) -> Optional[qe.Filter]:
        return edge_filter(cond, self.room_hours)

    def _apply(self, name: str, op: "qe.UpdateOperation") -> None:
        """An update of the shard ``name``; kept for the copy while an index build runs."""
        (self._objects if name == "objects" else self._shard).update(op)
        if self._build is not None:
            self._build.journal.append((name, op))

    def _upsert(self, ids: list[str], vectors: np.ndarray, payloads: list[dict]) -> None:
        # a float32 row's buffer is read by the engine as it is: 9 us per record less than .tolist()
        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        points = [qe.Point(pid, memoryview(vec), payload) for pid, vec, payload in zip(ids, vectors, payloads)]
        self._apply("shard", qe.UpdateOperation.upsert_points(points))
        if self.positions_in_ram:
            self._grid.add(ids, [p["x"] for p in payloads], [p["y"] for p in payloads])
            if len(self._grid) > self.tuning.positions_in_ram_max:
                self._drop_positions()
        self._since_flush += len(points)
        if self._since_flush >= self._flush_every:
            self.flush()

    def _upsert_sightings(self, ids: list[str], vectors: np.ndarray, words: list[tuple[list[int], list[float]]],
                          payloads: list[dict]) -> None:
        points = [qe.Point(pid, {DENSE: vec.tolist(), SPARSE: qe.SparseVector(*w)}, payload)
                  for pid, vec, w, payload in zip(ids, vectors, words, payloads)]
        self._apply("objects", qe.UpdateOperation.upsert_points(points))

    def _nearest_sightings(self, vector: np.ndarray, words: Optional[tuple[list[int], list[float]]],
                           cond: Conditions, limit: int, ranked_only: bool = False) -> list[Hit]:
        f, params = self._filter(cond), self.tuning.search_params(limit, rescore=not ranked_only)
        dense = qe.Query.Nearest(vector.tolist(), using=DENSE)
        if not words or not words[0]:
            request = qe.QueryRequest(limit=limit, query=dense, filter=f, with_payload=True, params=params)
        else:
            sparse = qe.Query.Nearest(qe.SparseVector(*words), using=SPARSE)
            request = qe.QueryRequest(limit=limit, query=qe.Fusion.Rrf(k=RRF_K), with_payload=True, prefetches=[
                qe.Prefetch(limit=limit, query=dense, filter=f, params=params),
                qe.Prefetch(limit=limit, query=sparse, filter=f)])
        return [(h.payload, h.score) for h in self._objects.query(request)]

    def _delete(self, pids: list[str], sighting_pids: list[str]) -> None:
        if sighting_pids:
            self._apply("objects", qe.UpdateOperation.delete_points(sighting_pids))
        self._apply("shard", qe.UpdateOperation.delete_points(pids))
        self._grid.remove(pids)

    def _rewrite(self, pid: str, payload: dict, sighting_pids: list[str], span: dict) -> None:
        self._apply("shard", qe.UpdateOperation.overwrite_payload([pid], payload))
        if sighting_pids:
            self._apply("objects", qe.UpdateOperation.set_payload(sighting_pids, span))

    def _nearest(self, vector: np.ndarray, cond: Conditions, limit: int) -> list[Hit]:
        hits = self._shard.query(qe.QueryRequest(limit=limit, query=qe.Query.Nearest(vector.tolist()),
                                                 filter=self._filter(cond), with_payload=True,
                                                 params=self.tuning.search_params(limit)))
        return [(h.payload, h.score) for h in hits]

    def _ordered(self, cond: Conditions, descending: bool, limit: int) -> list[dict]:
        order = qe.OrderBy("stamp", direction=qe.Direction.Desc if descending else qe.Direction.Asc,
                           start_from=cond.order_start(descending))
        hits = self._shard.query(qe.QueryRequest(limit=limit, query=order, filter=self._filter(cond), with_payload=True))
        return [h.payload for h in hits]

    def _locate(self, cond: Conditions, limit: int) -> list[tuple[Any, float, float]]:
        records, _ = self._shard.scroll(qe.ScrollRequest(limit=limit, filter=self._filter(cond), with_payload=["x", "y"]))
        return [(r.id, r.payload["x"], r.payload["y"]) for r in records]

    def _payloads(self, pids: list) -> list[dict]:
        if not pids:
            return []
        # the engine returns uuid.UUID ids; the position grid holds their canonical strings
        by_id = {str(r.id): r.payload for r in self._shard.retrieve(pids, with_payload=True, with_vector=False)}
        return [by_id.get(str(p)) for p in pids]

    def _count(self, cond: Conditions, exact: bool = True) -> int:
        if cond.empty():
            return self._shard.info().points_count  # an exact count scans every point
        return self._shard.count(qe.CountRequest(exact=exact, filter=self._filter(cond)))

    def _retrieve(self, pid: str) -> Optional[tuple[dict, Any]]:
        found = self._shard.retrieve([pid], with_payload=True, with_vector=True)
        return (found[0].payload, found[0].vector) if found else None

    # -- lifecycle -----------------------------------------------------------------------
    def _shards(self) -> list["qe.EdgeShard"]:
        return [self._shard] if self._objects is None else [self._shard, self._objects]

    def flush(self) -> None:
        for shard in self._shards():
            shard.flush()
        self._since_flush = 0

    def unindexed(self) -> int:
        """Records or sightings not yet in an HNSW segment (searched by brute force)."""
        return max(max(0, info.points_count - info.indexed_vectors_count) for info in (s.info() for s in self._shards()))

    def optimize_due(self) -> bool:
        return self.unindexed() >= self.tuning.index_points(self.dim)

    def optimize(self) -> bool:
        """Build HNSW segments for the filled appendable segments and merge small ones (blocking,
        GIL held: seconds per ~13k records), then flush. True when anything changed."""
        changed = any([bool(shard.optimize()) for shard in self._shards()])
        self.flush()
        return changed

    def begin_index_build(self) -> IndexBuild:
        """Start building the next generation off this process (``index_build``): the caller keeps
        writers out until the build's ``copy`` returns, and calls ``end_index_build`` after it.
        No flush first (it holds the GIL, ~0.5 s per 27k records): a copy taken while nothing
        writes is what a crash would leave, which the engine recovers from its write-ahead log."""
        home = generation_dir(self.root, self.generation)
        names = [n for n, shard in (("shard", self._shard), ("objects", self._objects)) if shard is not None]
        self._build = IndexBuild(self.root, self.generation + 1, {n: home / n for n in names})
        return self._build

    def end_index_build(self, build: IndexBuild) -> bool:
        """Serve from the build's shards if it succeeded (the caller keeps writers and queries out);
        True when switched. Either way the journal stops; the caller then calls ``remove_unused``."""
        self._build = None
        if build.error:
            return False
        try:
            built = build.commit(self.root / "meta.json", self._meta, self._shards())
        except Exception as exc:  # noqa: BLE001 - meta.json still names the live shards
            build.fail(exc)
            return False
        with self._switching:
            self._shard, self._objects = built["shard"], built.get("objects")
        self.generation, self._meta = build.generation, {**self._meta, "generation": build.generation}
        return True

    def set_unfinished(self, copy: str) -> None:
        """Mark the store as filled by ``copy`` ("": finished). Not while an index build runs: its
        switch rewrites meta.json too."""
        meta = {k: v for k, v in self._meta.items() if k != UNFINISHED}
        self._meta = {**meta, UNFINISHED: copy} if copy else meta
        write_json_atomic(self.root / META, self._meta)

    def close(self) -> None:
        if getattr(self, "_build", None) is not None:
            self._build.cancel()  # its copy is a leftover, removed at the next open
            self._build = None
        if getattr(self, "_grid_stop", None) is not None:
            self._stop_positions()
        if getattr(self, "_shard", None) is not None:
            for shard in self._shards():
                shard.flush()
                shard.close()
            self._shard = self._objects = None
        release_lock(self._lock_file)
