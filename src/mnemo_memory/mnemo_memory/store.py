"""The memory store: one interface, two Qdrant backends with the same schema and queries.

``MemoryStore`` (the protocol every caller uses)::

    add(records, object_vectors=None) -> list[str]   # ids; records are durable when it returns
    search_text(embedding, k, filter, text="")       # views and object sightings, with optional filters
    search_objects(embedding, k, filter, text="")    # object instances: each one's best sighting and its record
    search_time(since, until, around, k, filter, text_embedding=None, text="")
    search_position(x, y, radius, k, filter, text_embedding=None, text="")   # radius <= 0: k nearest
    extend(records); delete(ids); scan()   # compaction: rewrite spans, drop absorbed records, read all
    get(id) -> MemoryRecord | None         # with its embedding
    count() -> int
    flush(); close()
    set_unfinished(copy)   # a copy fills the store: it opens for nothing else until "" (model_record)
    optimize_due() -> bool; optimize() -> bool   # index maintenance (edge: HNSW per filled segment, index_build)

Backends: ``EdgeStore`` (Qdrant's engine in-process, qdrant-edge-py; the default) and
``ClientStore`` (qdrant-client against a server/cluster URL, or its local mode). Both subclass
``store_base.QdrantStoreBase``, which holds the writes, and through it ``query_plans.QueryPlans``,
which holds every query plan (and the query semantics both backends share); they talk to the
engine through a few small primitives over a neutral ``conditions.Conditions`` filter.
``open_store`` picks the backend.
"""
from __future__ import annotations

from pathlib import Path
from typing import Iterator, Optional, Protocol, Sequence

import numpy as np

from mnemo_common.types import MemoryFilter, MemoryRecord

MAX_K = 10_000


class MemoryStore(Protocol):
    model_name: str
    dim: int

    objects: bool  # object sightings indexed (and record spans)

    def add(self, records: Sequence[MemoryRecord],
            object_vectors: Optional[Sequence[np.ndarray]] = None) -> list[str]: ...

    def search_text(self, embedding: np.ndarray, k: int = 10,
                    filter: Optional[MemoryFilter] = None, text: str = "") -> list[MemoryRecord]: ...

    def search_objects(self, embedding: np.ndarray, k: int = 10,
                       filter: Optional[MemoryFilter] = None, text: str = "") -> list[MemoryRecord]: ...

    def search_time(self, since: Optional[float] = None, until: Optional[float] = None,
                    around: Optional[float] = None, k: int = 10, filter: Optional[MemoryFilter] = None,
                    text_embedding: Optional[np.ndarray] = None, text: str = "") -> list[MemoryRecord]: ...

    def search_position(self, x: float, y: float, radius: float = 0.0, k: int = 10,
                        filter: Optional[MemoryFilter] = None,
                        text_embedding: Optional[np.ndarray] = None, text: str = "") -> list[MemoryRecord]: ...

    def get(self, record_id: str) -> Optional[MemoryRecord]: ...

    def delete(self, record_ids: Sequence[str]) -> None: ...

    def extend(self, records: Sequence[MemoryRecord]) -> None: ...

    def scan(self) -> Iterator[MemoryRecord]: ...

    def count(self) -> int: ...

    def flush(self) -> None: ...

    def optimize_due(self) -> bool: ...

    def optimize(self) -> bool: ...

    def set_unfinished(self, copy: str) -> None: ...  # a copy fills the store ("": it is complete)

    def close(self) -> None: ...


def open_store(data_dir: str | Path = "data", model_name: str = "", dim: int = 0, url: str = "",
               collection: str = "mnemo_memory", api_key: str = "", unfinished: str = "") -> MemoryStore:
    """The configured store: a Qdrant server/cluster when url is set, else the embedded engine
    under data_dir/memory/<collection>/. ``url`` may also be ``":memory:"`` or ``"path:DIR"``
    for qdrant-client's local mode (tests). ``unfinished``: a store created now is marked as
    filled by this copy."""
    if url:
        from mnemo_memory.client_store import ClientStore

        return ClientStore(url, collection, model_name, dim, api_key=api_key, unfinished=unfinished)
    from mnemo_memory.edge_store import EdgeStore

    return EdgeStore(Path(data_dir) / "memory" / collection, model_name, dim, unfinished=unfinished)


def discard_unfinished(data_dir: str | Path = "data", url: str = "", collection: str = "mnemo_memory",
                       api_key: str = "") -> str:
    """Remove the store if a copy was filling it when it stopped: the copy's name, or "" (nothing
    removed: no such store, or a finished one)."""
    if url:
        from mnemo_memory.client_store import ClientStore

        return ClientStore.discard_unfinished(url, collection, api_key)
    from mnemo_memory.store_dir import discard_unfinished as discard_dir

    return discard_dir(Path(data_dir) / "memory" / collection)
