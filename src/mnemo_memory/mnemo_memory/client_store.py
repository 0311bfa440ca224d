"""The fleet backend: qdrant-client against a Qdrant server or cluster (same schema, same queries).

``location`` is a URL (``http://host:6333``), or for tests qdrant-client's local mode:
``":memory:"`` or ``"path:DIR"``. The embedding model's name, dimension and schema live in the
collection's metadata; object sightings (schema 2) live in the collection ``<collection>_objects``;
writes use ``wait=True`` so an acknowledged record is stored. New collections get the embedded
store's index settings (``EdgeTuning``: HNSW, int8 quantization with rescoring, vectors and payload
on disk, segment sizes), and searches its search parameters; the server optimizes in the background.
"""
from __future__ import annotations

import warnings
from typing import Any, Optional

import numpy as np
from qdrant_client import QdrantClient, models

from mnemo_common.types import MnemoError, Status

from mnemo_memory.conditions import Conditions, Hit, Term, filter_plan
from mnemo_memory.edge_store import SCHEMA_VERSION
from mnemo_memory.model_record import UNFINISHED, check_finished, check_meta, check_schema
from mnemo_memory.query_plans import OBJECT_POOL, RRF_K
from mnemo_memory.records import INDEXED_FIELDS
from mnemo_memory.sightings import DENSE, SIGHTING_INDEXED_FIELDS, SPARSE
from mnemo_memory.store_base import QdrantStoreBase
from mnemo_memory.tuning import EdgeTuning


def _term(t: Term) -> Any:
    if t[0] == "range":
        return models.FieldCondition(key=t[1], range=models.Range(**t[2]))
    if t[0] == "value":
        return models.FieldCondition(key=t[1], match=models.MatchValue(value=t[2]))
    if t[0] == "any":
        return models.FieldCondition(key=t[1], match=models.MatchAny(any=t[2]))
    return models.HasIdCondition(has_id=t[1])


def client_filter(c: Conditions, room_hours: bool = False) -> Optional[models.Filter]:
    """``conditions.filter_plan`` in qdrant-client's types."""
    plan = filter_plan(c, room_hours)
    if plan is None:
        return None
    must = [models.Filter(should=[models.Filter(must=[_term(t) for t in branch]) for branch in plan.either])] \
        if plan.either else []
    must += [_term(t) for t in plan.must]
    must_not = [_term(t) for t in plan.must_not]
    return models.Filter(must=must or None, must_not=must_not or None)


def _connect(location: str, api_key: str) -> QdrantClient:
    if location == ":memory:":
        return QdrantClient(location=":memory:")
    if location.startswith("path:"):
        try:
            return QdrantClient(path=location[len("path:"):])
        except RuntimeError as exc:  # qdrant-client's local mode locks its folder
            raise MnemoError(Status.UNAVAILABLE, f"memory store {location} is already open by another process: {exc}") from exc
    return QdrantClient(url=location, api_key=api_key or None, timeout=30)


def collection_settings(t: EdgeTuning) -> dict[str, Any]:
    """``create_collection`` arguments matching the embedded store's tuning."""
    quant = (models.ScalarQuantization(scalar=models.ScalarQuantizationConfig(
        type=models.ScalarType.INT8, quantile=0.99, always_ram=t.quantized_in_ram)) if t.quantization else None)
    return {"hnsw_config": models.HnswConfigDiff(m=t.hnsw_m, ef_construct=t.hnsw_ef_construct,
                                                 full_scan_threshold=t.full_scan_threshold_kb),
            "quantization_config": quant, "on_disk_payload": t.payload_cold,
            "optimizers_config": models.OptimizersConfigDiff(default_segment_number=t.segments,
                                                             max_segment_size=t.max_segment_size_kb,
                                                             indexing_threshold=t.indexing_threshold_kb)}


def search_params(t: EdgeTuning, limit: int, rescore: bool = True) -> models.SearchParams:
    quant = (models.QuantizationSearchParams(rescore=rescore, oversampling=t.oversampling if rescore else None)
             if t.quantization else None)
    return models.SearchParams(hnsw_ef=max(t.hnsw_ef, limit), quantization=quant)


def _local(location: str) -> bool:
    """qdrant-client's local mode: exact search in Python, which warns about search parameters."""
    return location == ":memory:" or location.startswith("path:")


class ClientStore(QdrantStoreBase):
    def __init__(self, location: str, collection: str, model_name: str, dim: int, api_key: str = "",
                 tuning: EdgeTuning = EdgeTuning(), unfinished: str = ""):
        """``unfinished``: a new collection is created marked as filled by this copy (``model_record``)."""
        self.tuning = tuning
        self._searched_exactly = _local(location)
        self.location, self.collection, self.objects_collection = location, collection, f"{collection}_objects"
        self._client = _connect(location, api_key)
        try:
            self._open(model_name, dim, unfinished)
        except BaseException:
            self._client.close()
            raise

    def _open(self, model_name: str, dim: int, unfinished: str) -> None:
        where = f"{self.location}/{self.collection}"
        if self._client.collection_exists(self.collection):
            meta = self._client.get_collection(self.collection).config.metadata or {}
            check_finished(meta, f"{where} (its collection metadata)")
            self.model_name, self.dim = check_meta(meta, model_name, dim, where)
            schema = check_schema(meta, SCHEMA_VERSION, f"{where} (its collection metadata)")
            self.objects, self.room_hours = schema >= 2, schema >= 3
            return
        if not dim:
            raise MnemoError(Status.NOT_FOUND, f"no memory collection {where} and no embedding dimension to create one")
        self.model_name, self.dim, self.objects = model_name, dim, True
        self.room_hours = True
        self._create_objects()  # first: a views collection is only ever found with its objects
        self._client.create_collection(
            self.collection, metadata={"model": model_name, "dim": dim, "schema": SCHEMA_VERSION,
                                       **({UNFINISHED: unfinished} if unfinished else {})},
            vectors_config=models.VectorParams(size=dim, distance=models.Distance.DOT, on_disk=self.tuning.vectors_cold),
            **collection_settings(self.tuning))
        self._index(self.collection, INDEXED_FIELDS)

    def _create_objects(self) -> None:
        if self._client.collection_exists(self.objects_collection):
            self._client.delete_collection(self.objects_collection)
        self._client.create_collection(
            self.objects_collection,
            vectors_config={DENSE: models.VectorParams(size=self.dim, distance=models.Distance.DOT,
                                                       on_disk=self.tuning.vectors_cold)},
            sparse_vectors_config={SPARSE: models.SparseVectorParams(modifier=models.Modifier.IDF)},
            **collection_settings(self.tuning))
        self._index(self.objects_collection, SIGHTING_INDEXED_FIELDS)

    def _index(self, collection: str, fields: dict[str, str]) -> None:
        kinds = {"float": models.PayloadSchemaType.FLOAT, "keyword": models.PayloadSchemaType.KEYWORD}
        with warnings.catch_warnings():  # local mode warns that it has no payload indexes
            warnings.simplefilter("ignore", UserWarning)
            for name, kind in fields.items():
                self._client.create_payload_index(collection, name, kinds[kind], wait=True)

    # -- engine primitives ---------------------------------------------------------------
    def _filter(self, cond: Conditions) -> Optional[models.Filter]:
        return client_filter(cond, self.room_hours)

    def _params(self, limit: int, rescore: bool = True) -> Optional[models.SearchParams]:
        return None if self._searched_exactly else search_params(self.tuning, limit, rescore)

    def _upsert(self, ids: list[str], vectors: np.ndarray, payloads: list[dict]) -> None:
        self._client.upsert(self.collection, wait=True, points=models.Batch(
            ids=ids, vectors=vectors.tolist(), payloads=payloads))

    def _upsert_sightings(self, ids: list[str], vectors: np.ndarray, words: list[tuple[list[int], list[float]]],
                          payloads: list[dict]) -> None:
        points = [models.PointStruct(id=pid, payload=payload, vector={
            DENSE: vec.tolist(), SPARSE: models.SparseVector(indices=w[0], values=w[1])})
            for pid, vec, w, payload in zip(ids, vectors, words, payloads)]
        self._client.upsert(self.objects_collection, wait=True, points=points)

    def _sighting_query(self, vector: np.ndarray, words: Optional[tuple[list[int], list[float]]],
                        cond: Conditions, limit: int, rescore: bool = True) -> dict[str, Any]:
        """``query_points`` / ``query_points_groups`` arguments: dense ranking, fused with the sparse
        one when words are given."""
        f = self._filter(cond)
        if not words or not words[0]:
            return {"query": vector.tolist(), "using": DENSE, "query_filter": f, "search_params": self._params(limit, rescore)}
        sparse = models.SparseVector(indices=words[0], values=words[1])
        return {"query": models.RrfQuery(rrf=models.Rrf(k=RRF_K)),
                "prefetch": [models.Prefetch(query=vector.tolist(), using=DENSE, filter=f, limit=limit,
                                             params=self._params(limit, rescore)),
                             models.Prefetch(query=sparse, using=SPARSE, filter=f, limit=limit)]}

    def _nearest_sightings(self, vector: np.ndarray, words: Optional[tuple[list[int], list[float]]],
                           cond: Conditions, limit: int, ranked_only: bool = False) -> list[Hit]:
        result = self._client.query_points(self.objects_collection, limit=limit, with_payload=True,
                                           **self._sighting_query(vector, words, cond, limit, not ranked_only))
        return [(p.payload, p.score) for p in result.points]

    def _best_per_object(self, vector: np.ndarray, words: Optional[tuple[list[int], list[float]]],
                         cond: Conditions, region: Optional[Any], limit: int) -> list[Hit]:
        if region is not None:  # the circle is checked on each sighting, page by page
            return super()._best_per_object(vector, words, cond, region, limit)
        # the engine groups by object; a group's fused ranking draws on OBJECT_POOL sightings per group
        result = self._client.query_points_groups(
            self.objects_collection, group_by="object", group_size=1, limit=limit, with_payload=True,
            **self._sighting_query(vector, words, cond, OBJECT_POOL * limit))
        return [(g.hits[0].payload, g.hits[0].score) for g in result.groups]

    def _delete(self, pids: list[str], sighting_pids: list[str]) -> None:
        if sighting_pids:
            self._client.delete(self.objects_collection, points_selector=models.PointIdsList(points=sighting_pids),
                                wait=True)
        self._client.delete(self.collection, points_selector=models.PointIdsList(points=pids), wait=True)

    def _rewrite(self, pid: str, payload: dict, sighting_pids: list[str], span: dict) -> None:
        self._client.overwrite_payload(self.collection, payload, points=[pid], wait=True)
        if sighting_pids:
            self._client.set_payload(self.objects_collection, span, points=sighting_pids, wait=True)

    def _nearest(self, vector: np.ndarray, cond: Conditions, limit: int) -> list[Hit]:
        result = self._client.query_points(self.collection, query=vector.tolist(), query_filter=self._filter(cond),
                                           limit=limit, with_payload=True, search_params=self._params(limit))
        return [(p.payload, p.score) for p in result.points]

    def _ordered(self, cond: Conditions, descending: bool, limit: int) -> list[dict]:
        order = models.OrderBy(key="stamp", direction=models.Direction.DESC if descending else models.Direction.ASC,
                               start_from=cond.order_start(descending))
        records, _ = self._client.scroll(self.collection, scroll_filter=self._filter(cond), limit=limit,
                                         order_by=order, with_payload=True)
        return [r.payload for r in records]

    def _locate(self, cond: Conditions, limit: int) -> list[tuple[Any, float, float]]:
        records, _ = self._client.scroll(self.collection, scroll_filter=self._filter(cond), limit=limit,
                                         with_payload=["x", "y"])
        return [(r.id, r.payload["x"], r.payload["y"]) for r in records]

    def _payloads(self, pids: list) -> list[dict]:
        if not pids:
            return []
        by_id = {str(r.id): r.payload for r in self._client.retrieve(self.collection, pids, with_payload=True)}
        return [by_id.get(str(p)) for p in pids]

    def _count(self, cond: Conditions, exact: bool = True) -> int:
        return self._client.count(self.collection, count_filter=self._filter(cond), exact=exact).count

    def _retrieve(self, pid: str) -> Optional[tuple[dict, Any]]:
        found = self._client.retrieve(self.collection, [pid], with_payload=True, with_vectors=True)
        return (found[0].payload, found[0].vector) if found else None

    # -- lifecycle -----------------------------------------------------------------------
    def flush(self) -> None:
        """Writes are acknowledged by the server (wait=True); nothing to flush client-side."""

    def optimize_due(self) -> bool:
        """The server optimizes in the background."""
        return False

    def optimize(self) -> bool:
        """The server optimizes in the background."""
        return False

    def set_unfinished(self, copy: str) -> None:
        """Mark the collection as filled by ``copy`` ("": finished; metadata updates merge keys)."""
        self._client.update_collection(self.collection, metadata={UNFINISHED: copy})

    @staticmethod
    def discard_unfinished(location: str, collection: str, api_key: str = "") -> str:
        """Delete the collection (and its objects) if a copy was filling it when it stopped: the copy's
        name, or "" when there was none to delete."""
        client = _connect(location, api_key)
        try:
            if not client.collection_exists(collection):
                return ""
            copy = (client.get_collection(collection).config.metadata or {}).get(UNFINISHED)
            if copy:
                # the objects first: a views collection is only ever found with its objects
                client.delete_collection(f"{collection}_objects")
                client.delete_collection(collection)
            return copy or ""
        finally:
            client.close()

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None
