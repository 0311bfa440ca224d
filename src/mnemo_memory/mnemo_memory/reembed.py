"""Re-embedding (``mnemo memory reembed``): a store copied into another collection with another
embedding model's vectors; ids, spans, sightings and payload are kept, captions and sightings
embedded anew.

A copy cut short (a crash, a SIGKILL) never passes for the memory. The source is only read, so
it keeps serving every record with the old model's vectors. The target is created marked
unfinished in its record (``model_record.UNFINISHED``), and the mark is cleared only once every
record is stored (durable) and indexed; until then the target opens for nothing
(``UnfinishedStoreError``, naming its record). A rerun discards an unfinished target and starts
the copy over.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator, Sequence

from mnemo_common.embedding import Embedder
from mnemo_common.types import MemoryRecord, invalid

from mnemo_memory.service import MemoryService
from mnemo_memory.store import discard_unfinished, open_store

REEMBED_BATCH = 256


@dataclass(frozen=True)
class ReembedReport:
    copied: int
    source_model: str
    source_dim: int
    discarded: str  # the unfinished copy a rerun removed first ("": none)


def _batches(records: Iterator[MemoryRecord], size: int) -> Iterator[list[MemoryRecord]]:
    batch: list[MemoryRecord] = []
    for r in records:
        batch.append(r)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


def copy_records(records: Iterator[MemoryRecord], add: Callable[[Sequence[MemoryRecord]], list[str]],
                 batch: int = REEMBED_BATCH) -> int:
    """Store every record again through ``add`` (a MemoryService's, with the new model and no
    compaction), its caption and sightings embedded anew; ids, spans and payload are kept."""
    n = 0
    for chunk in _batches(records, batch):
        for r in chunk:
            r.embedding = None
        n += len(add(chunk))
    return n


def reembed_store(embedder: Embedder, into: str, data_dir: str | Path = "data", url: str = "",
                  collection: str = "mnemo_memory", api_key: str = "", batch: int = REEMBED_BATCH) -> ReembedReport:
    """Copy ``collection`` into ``into`` (new, empty, or left unfinished by an interrupted copy)
    with ``embedder``'s vectors."""
    if into == collection:
        raise invalid(f"the copy must go into another collection than {collection!r}")
    source = open_store(data_dir, url=url, collection=collection, api_key=api_key)
    try:
        copy = f"mnemo memory reembed of {collection!r} with {embedder.name!r}"
        discarded = discard_unfinished(data_dir, url, into, api_key)
        target = open_store(data_dir, embedder.name, embedder.dim, url, into, api_key, unfinished=copy)
        # built once at the end, in this process: the bulk loader's way (no build per segment)
        memory = MemoryService(target, embedder, auto_optimize=False, compaction=None)
        try:
            if memory.count():
                raise invalid(f"collection {into!r} already holds {memory.count()} records")
            target.set_unfinished(copy)  # an existing empty collection is marked too
            n = copy_records(source.scan(), memory.add, batch)
            memory.optimize()
            target.set_unfinished("")
        finally:
            memory.close()
    finally:
        source.close()
    return ReembedReport(n, source.model_name, source.dim, discarded)
