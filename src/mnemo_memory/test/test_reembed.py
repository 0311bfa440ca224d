"""Re-embedding survives an interruption: a process killed at any step of ``mnemo memory reembed``
leaves the source serving every record with the old model's vectors, a target that refuses to
open (never a partial memory passed off as the whole), and a rerun that completes the copy."""
from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest

from mnemo_common.processes import ros_env
from mnemo_common.types import MnemoError, Status

from mnemo_memory.client_store import ClientStore
from mnemo_memory.model_record import UnfinishedStoreError
from mnemo_memory.reembed import reembed_store
from mnemo_memory.service import MemoryService
from mnemo_memory.store import discard_unfinished, open_store
from mnemo_memory.testing import WordEmbedder, make_record

OLD, NEW = WordEmbedder(64, name="words-old"), WordEmbedder(32, name="words-new")
BATCH = 10
ROOMS = ["kitchen", "hall", "study"]
LABELS = ["mug", "book", "plant", "lamp", "keys"]


def source_records():
    records = []
    for i in range(57):  # six batches, the last one short
        label = LABELS[i % len(LABELS)]
        r = make_record(i, f"a {label} seen in the {ROOMS[i % 3]} {i}", 600.0 * i, 0.2 * i, 0.1 * (i % 7),
                        room=ROOMS[i % 3], labels=[label])
        r.sightings[0].object_id = f"{label}-{i % 4}"
        records.append(r)
    records[5].last_stamp, records[5].count = 3600.0 * 3, 7  # a compacted record keeps its span
    return records


# Runs reembed_store and SIGKILLs itself at one step of it.
CHILD = textwrap.dedent("""
    import os, signal, sys
    from mnemo_memory import reembed
    from mnemo_memory.edge_store import EdgeStore
    from mnemo_memory.service import MemoryService
    from mnemo_memory.testing import WordEmbedder
    data, point = sys.argv[1], sys.argv[2]
    die = lambda: os.kill(os.getpid(), signal.SIGKILL)
    add, optimize, set_unfinished, adds = MemoryService.add, MemoryService.optimize, EdgeStore.set_unfinished, []
    def add_then(self, records):
        if point == "created":
            die()
        ids = add(self, records)
        adds.append(len(ids))
        if point == "copying" and len(adds) == 2:
            die()
        return ids
    def optimize_then(self):
        if point == "copied":
            die()
        return optimize(self)
    def set_then(self, copy):
        if point == "indexed" and not copy:
            die()
        set_unfinished(self, copy)
        if point == "finished" and not copy:
            die()
    MemoryService.add, MemoryService.optimize, EdgeStore.set_unfinished = add_then, optimize_then, set_then
    reembed.reembed_store(WordEmbedder(32, name="words-new"), "new", data, batch=%d)
    print("not killed", flush=True)
""" % BATCH)


def check_copy(data, records):
    """The target serves every record of the source, with the new model's vectors only."""
    memory = MemoryService.open(NEW, data, collection="new")
    try:
        assert memory.count() == len(records)
        for r in records:
            got = memory.get(r.id)
            assert got.caption == r.caption and got.sightings[0].object_id == r.sightings[0].object_id
            assert (got.stamp, got.last_stamp, got.count) == (r.stamp, r.last_stamp, r.count)
            assert np.allclose(got.embedding, NEW.embed([r.caption])[0], atol=1e-6)
        assert memory.search_text(records[11].caption, k=1)[0].id == records[11].id
        assert {h.sightings[0].object_id for h in memory.search_objects("plant", k=4)} == {f"plant-{i}" for i in range(4)}
    finally:
        memory.close()


@pytest.mark.parametrize("point", ["created", "copying", "copied", "indexed", "finished"])
def test_a_reembed_killed_at_any_step_loses_nothing_and_a_rerun_completes_it(tmp_path, point):
    data = tmp_path / "data"
    records = source_records()
    memory = MemoryService.open(OLD, data)
    try:
        memory.add(records)
    finally:
        memory.close()
    out = subprocess.run([sys.executable, "-c", CHILD, str(data), point], capture_output=True, text=True,
                         env=ros_env(), timeout=300)
    assert out.returncode == -9, out.stdout + out.stderr[-2000:]

    source = MemoryService.open(OLD, data)  # untouched: every record, the old model's vectors
    try:
        assert source.count() == len(records)
        for r in records:
            assert np.allclose(source.get(r.id).embedding, OLD.embed([r.caption])[0], atol=1e-6)
    finally:
        source.close()

    meta = data / "memory" / "new" / "meta.json"
    if point == "finished":
        check_copy(data, records)
        with pytest.raises(MnemoError, match="already holds 57 records"):
            reembed_store(NEW, "new", data, batch=BATCH)
        return
    for open_it in (lambda: MemoryService.open(NEW, data, collection="new"),  # the node's way
                    lambda: open_store(data, collection="new")):  # without a model
        with pytest.raises(UnfinishedStoreError) as err:
            open_it()
        assert err.value.code == Status.FAILED
        assert str(meta) in err.value.message and "reembed of 'mnemo_memory'" in err.value.message

    report = reembed_store(NEW, "new", data, batch=BATCH)
    assert report.copied == len(records) and "reembed of 'mnemo_memory'" in report.discarded
    check_copy(data, records)
    assert sorted(p.name for p in (data / "memory").iterdir()) == ["mnemo_memory", "new"]


def test_an_unfinished_server_collection_refuses_to_open_until_finished(tmp_path):
    """The server backend keeps the mark in its collection metadata (qdrant-client's local mode here)."""
    location = f"path:{tmp_path / 'qdrant'}"
    store = ClientStore(location, "new", NEW.name, NEW.dim, unfinished="a copy")
    store.close()
    with pytest.raises(UnfinishedStoreError, match="new .its collection metadata. is unfinished: a copy"):
        ClientStore(location, "new", NEW.name, NEW.dim)
    store = ClientStore(location, "done", NEW.name, NEW.dim, unfinished="a copy")
    store.set_unfinished("")
    store.close()
    assert discard_unfinished(url=location, collection="done") == ""
    assert discard_unfinished(url=location, collection="new") == "a copy"
    for name in ("new", "done"):  # "new" is created afresh, "done" opens as it was
        ClientStore(location, name, NEW.name, NEW.dim).close()
