"""Durability: a record acknowledged by add() survives SIGKILL of the writer mid-ingest."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from mnemo_common.processes import ros_env
from mnemo_memory.store import open_store
from mnemo_memory.testing import WordEmbedder

WRITER = textwrap.dedent("""
    import sys
    from pathlib import Path
    from mnemo_memory.edge_store import EdgeStore, EdgeTuning
    from mnemo_memory.testing import WordEmbedder, make_record
    emb = WordEmbedder()
    indexing = sys.argv[2] == "indexing"
    # "indexing": segments of ~80 records get their HNSW index after every few adds, as
    # MemoryService does at ~13k, so the kill often lands inside an optimize pass
    tuning = EdgeTuning(indexing_threshold_kb=20, max_segment_size_kb=200, segments=2) if indexing else EdgeTuning()
    store = EdgeStore(Path(sys.argv[1]) / "memory" / "mnemo_memory", "test-words", 64, tuning=tuning)
    i = 0
    while True:
        batch = [make_record(i + j, f"object {i + j} on a shelf", float(i + j), 0.01 * (i + j), 0.0, embedder=emb)
                 for j in range(20)]
        ids = store.add(batch)
        if indexing and store.optimize_due():
            store.optimize()
        print(" ".join(ids), flush=True)  # acknowledged: add() returned
        i += 20
""")


@pytest.mark.parametrize("mode", ["plain", "indexing"])
def test_acknowledged_records_survive_sigkill(tmp_path, mode):
    proc = subprocess.Popen([sys.executable, "-c", WRITER, str(tmp_path), mode], stdout=subprocess.PIPE, text=True,
                            env=ros_env())
    acked: list[str] = []
    deadline = time.monotonic() + 60
    try:
        while len(acked) < 600 and time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            acked += line.split()
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    acked += proc.stdout.read().split()  # lines printed before the kill count as acknowledged too
    assert len(acked) >= 600, "writer did not get going"
    store = open_store(tmp_path, "test-words", 64)  # opens despite the crash, lock released by the kernel
    try:
        missing = [i for i in acked if store.get(i) is None]
        assert not missing, f"{len(missing)} acknowledged records lost"
        assert store.count() >= len(acked)
        assert store.search_text(WordEmbedder().embed(["object on a shelf"])[0], k=5)
    finally:
        store.close()
