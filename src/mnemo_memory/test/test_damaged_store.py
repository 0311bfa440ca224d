"""A damaged memory store at start: a clear error naming the file, never a silently empty memory
(which a robot cannot tell from one that saw nothing)."""
from __future__ import annotations

import pytest

from mnemo_common.files import CorruptFileError
from mnemo_memory.store import open_store
from mnemo_memory.testing import WordEmbedder, make_record


def _store(data_dir):
    store = open_store(data_dir, "test-words", 64)
    emb = WordEmbedder()
    store.add([make_record(i, f"object {i} on a shelf", float(i), 0.1 * i, 0.0, embedder=emb) for i in range(30)])
    store.close()
    return data_dir / "memory" / "mnemo_memory"


def _truncate(path):
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


@pytest.mark.parametrize("damage,file", [
    ("truncated", "meta.json"),
    ("missing", "meta.json"),
    ("truncated", "shard/edge_config.json"),
    ("garbage", "shard/wal/first-index"),
])
def test_a_damaged_store_refuses_to_open_naming_the_file(tmp_path, damage, file):
    root = _store(tmp_path)
    path = root / file
    if damage == "missing":
        path.unlink()
    elif damage == "truncated":
        _truncate(path)
    else:
        path.write_bytes(b"\x00\xff" * 16)
    with pytest.raises(CorruptFileError) as caught:
        open_store(tmp_path, "test-words", 64)
    named = caught.value.path
    assert named == path or named in path.parents, caught.value.message  # the file, or the shard holding it
    assert str(named) in caught.value.message
    assert (root / "shard").is_dir()  # nothing was wiped


def test_a_creation_interrupted_before_meta_starts_over(tmp_path):
    """A shard without meta.json that holds nothing is a half-made store: opening starts it afresh."""
    root = tmp_path / "memory" / "mnemo_memory"
    open_store(tmp_path, "test-words", 64).close()
    (root / "meta.json").unlink()
    store = open_store(tmp_path, "test-words", 64)
    assert store.count() == 0
    store.close()
