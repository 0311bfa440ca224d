"""Which embedding model built a store's vectors, and what to do when another one opens it.

A store records the model's name and dimension at creation (the embedded store in meta.json, a
Qdrant server collection in its metadata). Vectors of two models are unrelated even at one
dimension, so a store opens only with the model that built it; ``reembed`` copies a store into
another collection with a new model's vectors (``mnemo memory reembed``). A store whose record
names no model was built before models were configurable: by MiniLM, 384-d.
"""
from __future__ import annotations

from typing import Callable, Iterator, Sequence

from mnemo_common.embedding import MINILM_DIM, MINILM_NAME, MODEL_SETTING
from mnemo_common.types import MemoryRecord, MnemoError, Status

REEMBED_BATCH = 256


class ModelMismatchError(MnemoError):
    def __init__(self, message: str):
        super().__init__(Status.FAILED, message)


def stored_model(stored: dict) -> tuple[str, int]:
    """The (name, dimension) a store's record names; MiniLM for a store without one."""
    name, dim = stored.get("model", ""), int(stored.get("dim", 0))
    if not name and dim in (0, MINILM_DIM):
        return MINILM_NAME, MINILM_DIM
    return name, dim


def check_meta(stored: dict, model_name: str, dim: int, where: str) -> tuple[str, int]:
    """The store's model and dimension; a clear error when the caller embeds with another model.
    A caller without a model (``model_name`` and ``dim`` empty) takes the store's."""
    s_model, s_dim = stored_model(stored)
    if (model_name and s_model and model_name != s_model) or (dim and s_dim and dim != s_dim):
        raise ModelMismatchError(
            f"memory store {where} was built with embedding model {s_model!r} ({s_dim}-d), and this "
            f"process embeds with {model_name!r} ({dim}-d): their vectors are unrelated. Set {MODEL_SETTING} "
            f"to the store's model, use another collection or data directory, or copy the store with the "
            f"new model's vectors: mnemo memory reembed --collection <this one> --into <new one> "
            f"--{MODEL_SETTING.replace('_', '-')} <model>")
    return s_model or model_name, s_dim or dim


def _batches(records: Iterator[MemoryRecord], size: int) -> Iterator[list[MemoryRecord]]:
    batch: list[MemoryRecord] = []
    for r in records:
        batch.append(r)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


def reembed(records: Iterator[MemoryRecord], add: Callable[[Sequence[MemoryRecord]], list[str]],
            batch: int = REEMBED_BATCH) -> int:
    """Store every record again through ``add`` (a MemoryService's, with the new model and no
    compaction), its caption and sightings embedded anew; ids, spans and payload are kept."""
    n = 0
    for chunk in _batches(records, batch):
        for r in chunk:
            r.embedding = None
        n += len(add(chunk))
    return n

