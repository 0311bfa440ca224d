"""``QdrantStoreBase``: the base class of both backends. It holds the writes (records and their
object sightings, compaction's rewrites and deletions) over four engine primitives, and inherits
the reads (``query_plans.QueryPlans``) over the others.
"""
from __future__ import annotations

from typing import Optional, Sequence

import numpy as np

from mnemo_common.types import MemoryRecord, MnemoError, Status

from mnemo_memory.query_plans import QueryPlans
from mnemo_memory.records import new_record_id, point_id, record_from_payload, record_to_payload
from mnemo_memory.sightings import object_sightings, sighting_payload, sighting_point_id, sighting_text, sparse_words


class QdrantStoreBase(QueryPlans):
    """The writes shared by the backends; subclasses implement the engine primitives."""

    # -- engine primitives (backend-specific) -------------------------------------------
    def _upsert(self, ids: list[str], vectors: np.ndarray, payloads: list[dict]) -> None:
        raise NotImplementedError

    def _upsert_sightings(self, ids: list[str], vectors: np.ndarray, words: list[tuple[list[int], list[float]]],
                          payloads: list[dict]) -> None:
        raise NotImplementedError

    def _delete(self, pids: list[str], sighting_pids: list[str]) -> None:
        raise NotImplementedError

    def _rewrite(self, pid: str, payload: dict, sighting_pids: list[str], span: dict) -> None:
        """Replace a record's payload, and set ``span``'s fields on its sightings."""
        raise NotImplementedError

    # -- writes --------------------------------------------------------------------------
    def add(self, records: Sequence[MemoryRecord],
            object_vectors: Optional[Sequence[np.ndarray]] = None) -> list[str]:
        """Store records. ``object_vectors[i]``: embeddings of ``sighting_text`` of record i's
        object sightings (``sightings.object_sightings`` order); without them only views are indexed."""
        if not records:
            return []
        if object_vectors is not None and len(object_vectors) != len(records):
            raise MnemoError(Status.INVALID_ARGUMENT, f"{len(object_vectors)} object vector sets for {len(records)} records")
        vectors = np.empty((len(records), self.dim), dtype=np.float32)
        ids, pids, payloads = [], [], []
        for i, r in enumerate(records):
            if r.embedding is None:
                raise MnemoError(Status.INVALID_ARGUMENT, f"record {r.id or i} has no embedding")
            vectors[i] = self._vector(r.embedding, "embedding")
            if r.id:
                pids.append(point_id(r.id))
            else:
                r.id = new_record_id()  # already a canonical UUID: its own point id
                pids.append(r.id)
            ids.append(r.id)
            payloads.append(record_to_payload(r, spans=self.objects, room_hours=self.room_hours))
        sightings = self._sighting_entries(records, pids, object_vectors) if self.objects and object_vectors else None
        # the record first: a crash between the two writes leaves an unacknowledged record that
        # only its view finds, never a sighting pointing nowhere
        self._upsert(pids, vectors, payloads)
        if sightings is not None and sightings[0]:
            self._upsert_sightings(*sightings)
        return ids

    def _sighting_entries(self, records: Sequence[MemoryRecord], pids: list[str],
                          object_vectors: Sequence[np.ndarray]) -> tuple[list, np.ndarray, list, list]:
        ids, rows, words, payloads = [], [], [], []
        for r, pid, vecs in zip(records, pids, object_vectors):
            objects = object_sightings(r)
            if len(vecs) != len(objects):
                raise MnemoError(Status.INVALID_ARGUMENT,
                                 f"record {r.id}: {len(vecs)} object vectors for {len(objects)} object sightings")
            for (i, s), v in zip(objects, vecs):
                ids.append(sighting_point_id(pid, i))
                rows.append(self._vector(v, "object vector"))
                words.append(sparse_words(sighting_text(s, r.room)))
                payloads.append(sighting_payload(r, pid, i, s, self.room_hours))
        return ids, np.asarray(rows, dtype=np.float32).reshape(-1, self.dim), words, payloads

    def extend(self, records: Sequence[MemoryRecord]) -> None:
        """Rewrite stored records whose span compaction extended (payload only: same id, vectors, position)."""
        if records and not self.objects:
            raise MnemoError(Status.FAILED, "this store was created before compaction (no record spans); "
                                            "rebuild it to compact")
        for r in records:
            pid = point_id(r.id)
            span = {"last": float(r.span[1])}
            self._rewrite(pid, record_to_payload(r, spans=True, room_hours=self.room_hours),
                          [sighting_point_id(pid, i) for i, _ in object_sightings(r)], span)

    def delete(self, record_ids: Sequence[str]) -> None:
        """Remove records and their sightings (compaction, after their replacement is stored)."""
        pids, sighting_pids = [], []
        for rid in record_ids:
            found = self._retrieve(point_id(rid))
            if found is None:
                continue
            pids.append(point_id(rid))
            record = record_from_payload(found[0])
            sighting_pids += [sighting_point_id(pids[-1], i) for i, _ in object_sightings(record)]
        if pids:
            self._delete(pids, sighting_pids if self.objects else [])
