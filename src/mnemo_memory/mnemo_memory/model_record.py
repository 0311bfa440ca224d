"""A store's record (the embedded store's meta.json, a Qdrant server collection's metadata): which
embedding model built its vectors, what to do when another one opens it, and whether a copy
still fills it.

A store records the model's name and dimension at creation. Vectors of two models are unrelated
even at one dimension, so a store opens only with the model that built it; ``reembed`` copies a
store into another collection with a new model's vectors (``mnemo memory reembed``). A store
whose record names no model was built before models were configurable: by MiniLM, 384-d.

A store that a copy is filling (``UNFINISHED`` names the copy) holds only some of the records
of another store until the copy clears the mark: it opens for nothing else, so a copy cut short
is never served as if it were the memory.
"""
from __future__ import annotations

from mnemo_common.embedding import MINILM_DIM, MINILM_NAME, MODEL_SETTING
from mnemo_common.types import MnemoError, Status

UNFINISHED = "unfinished"  # the record's key naming the copy that fills the store (absent or "": none)


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



def check_schema(stored: dict, known: int, where: str) -> int:
    """The store's schema version; a clear error for one newer than this code writes: its records
    carry fields this code would leave out of what it writes, and its queries would then miss them."""
    schema = int(stored.get("schema", 1))
    if schema > known:
        raise MnemoError(Status.FAILED, f"memory store {where} has schema {schema}, newer than this mnemo's "
                                        f"({known}): open it with the version that wrote it, or a later one")
    return schema


class UnfinishedStoreError(MnemoError):
    def __init__(self, message: str):
        super().__init__(Status.FAILED, message)


def check_finished(stored: dict, where: str) -> None:
    """A clear error for a store that a copy was filling when it stopped (``where`` names its record)."""
    copy = stored.get(UNFINISHED)
    if copy:
        raise UnfinishedStoreError(
            f"memory store {where} is unfinished: {copy} stopped before it was done, so the store holds "
            f"only some of the records. Run it again (it starts the copy over), or use another collection")
