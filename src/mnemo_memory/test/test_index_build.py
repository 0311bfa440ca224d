"""Index builds off the serving process (index_build, background_index): queries and writes go on
while a child process builds, the writes made meanwhile reach the built shards, and a crash of the
child or of the serving process at any moment leaves every acknowledged record."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from dataclasses import replace

import numpy as np
import pytest
import qdrant_edge as qe

from mnemo_common.processes import ros_env
from mnemo_memory.edge_store import EdgeStore, EdgeTuning
from mnemo_memory.index_build import IndexBuild, generation_dir, shard_dirs
from mnemo_memory.service import MemoryService
from mnemo_memory.testing import WordEmbedder, make_record

TINY = EdgeTuning(indexing_threshold_kb=10, max_segment_size_kb=40, segments=2)  # a build due every ~40 records


def records(start: int, n: int, emb, caption: str = "a red mug on the kitchen table", labels=("mug",)):
    return [make_record(i, f"{caption} {i}", 60.0 * i, 0.1 * i, 0.0, labels=labels, embedder=emb)
            for i in range(start, start + n)]


def open_service(path, **kwargs) -> MemoryService:
    return MemoryService(EdgeStore(path, "test-words", 64, tuning=TINY), WordEmbedder(), **kwargs)


def wait_for(predicate, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.005)


def test_queries_and_writes_go_on_during_a_build_and_the_writes_reach_the_built_shards(tmp_path, monkeypatch):
    gate = threading.Event()  # holds the build after its copy, so what follows lands in the middle of it
    run = IndexBuild.run
    monkeypatch.setattr(IndexBuild, "run", lambda self: (gate.wait(30.0), run(self)))
    emb = WordEmbedder()
    memory = open_service(tmp_path / "m")
    store = memory.store
    try:
        first = memory.add(records(0, 200, emb))
        wait_for(lambda: store._build is not None)
        during = memory.add(records(200, 30, emb, caption="a blue plate in the sink", labels=("plate",)))
        assert store.generation == 0 and len(store._build.journal) >= 2  # views and sightings
        # answered from the live shards
        assert any("blue plate" in h.caption for h in memory.search_text("blue plate", k=5))
        assert len(memory.search_time(since=60.0 * 200, until=60.0 * 229, k=50)) == 30
        with memory._write_lock, memory._lock:
            store.delete(first[:10])
        gate.set()
        assert memory.wait_indexed(60.0) and memory.index_builds >= 1, memory._indexer.last_error
        assert store.generation >= 1 and store.unindexed() < TINY.index_points(64)
        assert all(memory.store.get(i) is None for i in first[:10])
        for rid, r in zip(during, records(200, 30, emb, caption="a blue plate in the sink", labels=("plate",))):
            got = memory.get(rid)
            assert got.caption == r.caption and np.allclose(got.embedding, r.embedding, atol=1e-6)
        assert memory.count() == 220
        assert store._objects.info().points_count == 220  # one sighting each, the deleted records' gone too
    finally:
        gate.set()
        memory.close()
    reopened = open_service(tmp_path / "m")
    try:
        assert reopened.count() == 220
        assert all(d.parent == tmp_path / "m" / f"gen-{reopened.store.generation}" for d in shard_dirs(tmp_path / "m"))
    finally:
        reopened.close()


def test_a_killed_build_process_leaves_the_store_serving_and_the_next_build_succeeds(tmp_path, monkeypatch):
    killed = []
    run = IndexBuild.run

    def kill_the_child(self):
        def killer():
            wait_for(lambda: self._proc is not None, 30.0)
            os.kill(self._proc.pid, signal.SIGKILL)
            killed.append(self._proc.pid)
        threading.Thread(target=killer, daemon=True).start()
        run(self)

    monkeypatch.setattr(IndexBuild, "run", kill_the_child)
    emb = WordEmbedder()
    memory = open_service(tmp_path / "m")
    memory._indexer.retry_after = 0.0
    try:
        ids = memory.add(records(0, 200, emb))
        assert memory.wait_indexed(60.0)
        assert killed and memory.index_builds == 0 and "-9" in memory._indexer.last_error
        assert memory.store.generation == 0 and not (tmp_path / "m" / "gen-1").exists()
        assert memory.count() == 200 and all(memory.get(i) for i in ids)
        monkeypatch.setattr(IndexBuild, "run", run)
        ids += memory.add(records(200, 10, emb))  # still due: built now
        assert memory.wait_indexed(60.0) and memory.index_builds == 1, memory._indexer.last_error
        assert memory.count() == 210 and all(memory.get(i) for i in ids)
    finally:
        memory.close()


# A writer that drives a build step by step and kills itself at one point of it; every id it
# printed was acknowledged (add returned) before the kill.
STEPS = textwrap.dedent("""
    import os, signal, sys
    from mnemo_memory.edge_store import EdgeStore, EdgeTuning
    from mnemo_memory.testing import WordEmbedder, make_record
    root, point = sys.argv[1], sys.argv[2]
    emb, n = WordEmbedder(), [0]
    store = EdgeStore(root, "test-words", 64, tuning=EdgeTuning(indexing_threshold_kb=10, max_segment_size_kb=40, segments=2))
    def add(k):
        batch = [make_record(n[0] + j, f"object {n[0] + j} on a shelf", float(n[0] + j), 0.01 * j, 0.0, labels=["box"],
                             embedder=emb) for j in range(k)]
        n[0] += k
        print(" ".join(store.add(batch)), flush=True)
    def step(name):
        add(15)
        if point == name:
            os.kill(os.getpid(), signal.SIGKILL)
    add(150)
    build = store.begin_index_build()
    build.copy(0)
    step("copied")
    build.run()
    step("built")
    build.load()
    build.catch_up()
    step("caught_up")
    store.end_index_build(build)
    step("switched")
    build.remove_unused()
    step("cleaned")
""")


@pytest.mark.parametrize("point,generation", [("copied", 0), ("built", 0), ("caught_up", 0), ("switched", 1),
                                              ("cleaned", 1)])
def test_a_crash_at_each_step_of_a_build_keeps_every_acknowledged_record(tmp_path, point, generation):
    root = tmp_path / "m"
    out = subprocess.run([sys.executable, "-c", STEPS, str(root), point], capture_output=True, text=True,
                         env=ros_env(), timeout=120)
    assert out.returncode == -signal.SIGKILL, out.stderr[-2000:]
    acked = out.stdout.split()
    store = EdgeStore(root, "test-words", 64)
    try:
        assert store.generation == generation
        missing = [i for i in acked if store.get(i) is None]
        assert not missing and store.count() == len(acked), f"{len(missing)} of {len(acked)} acknowledged records lost"
        assert all(d.parent == (root if generation == 0 else root / "gen-1") for d in shard_dirs(root))
        assert not (root / "gen-1").exists() or generation == 1
    finally:
        store.close()


WRITER = textwrap.dedent("""
    import sys, time
    from mnemo_memory.edge_store import EdgeStore, EdgeTuning
    from mnemo_memory.service import MemoryService
    from mnemo_memory.testing import WordEmbedder, make_record
    emb = WordEmbedder()
    tuning = EdgeTuning(indexing_threshold_kb=10, max_segment_size_kb=40, segments=2)
    memory = MemoryService(EdgeStore(sys.argv[1], "test-words", 64, tuning=tuning), emb)
    i = 0
    while True:
        batch = [make_record(i + j, f"object {i + j} on a shelf", float(i + j), 0.01 * (i + j), 0.0, labels=["box"],
                             embedder=emb) for j in range(5)]
        print(" ".join(memory.add(batch)), memory.index_builds, flush=True)
        i += 5
        time.sleep(0.02)  # a camera's pace, not a bulk load's: each build's copy stays small
""")


@pytest.mark.parametrize("builds", [2])
def test_sigkill_of_the_serving_process_during_background_builds_loses_nothing(tmp_path, builds):
    """Killed while builds come and go (one every ~40 records): at whatever step one was."""
    root = tmp_path / "m"
    proc = subprocess.Popen([sys.executable, "-c", WRITER, str(root)], stdout=subprocess.PIPE, text=True,
                            env=ros_env())
    acked: list[str] = []
    deadline = time.monotonic() + 90
    try:
        while time.monotonic() < deadline:
            line = proc.stdout.readline().split()
            if not line:
                break
            acked += line[:-1]
            if int(line[-1]) >= builds and len(acked) % 40 == 20:  # past the switches, likely inside the next build
                break
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    for line in proc.stdout.read().splitlines():
        acked += line.split()[:-1]
    assert len(acked) > 40 * builds, "the writer did not get going"
    wait_for(lambda: not _build_processes(root), 10.0)  # the child died with its parent
    store = EdgeStore(root, "test-words", 64)
    try:
        assert store.generation >= 1
        missing = [i for i in acked if store.get(i) is None]
        assert not missing, f"{len(missing)} of {len(acked)} acknowledged records lost"
        assert all(d.parent == root / f"gen-{store.generation}" for d in shard_dirs(root))
    finally:
        store.close()


def _build_processes(root) -> list[int]:
    out = []
    for pid in os.listdir("/proc"):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read().decode(errors="replace")
        except OSError:
            continue
        if "mnemo_memory.index_build" in cmd and str(root) in cmd:
            out.append(int(pid))
    return out


def stamp_indexes(root, generation: int) -> list:
    """The stamp index settings of each shard of a closed store's generation, as the engine loads them."""
    found = []
    for path in shard_dirs(root):
        if path.parent == generation_dir(root, generation):
            shard = qe.EdgeShard.load(str(path))
            try:
                found.append(shard.info().payload_schema["stamp"].params)
            finally:
                shard.close()
    return found


def test_the_shards_a_build_loads_keep_their_stamp_index_memory_mapped(tmp_path):
    """The principal (stamp) index on disk, in both shards and in the built generation: the build's
    load, which holds the GIL, maps it instead of building it in RAM point by point."""
    emb = WordEmbedder()
    memory = open_service(tmp_path / "m")
    try:
        memory.add(records(0, 200, emb))
        assert memory.wait_indexed(60.0) and memory.index_builds >= 1, memory._indexer.last_error
        generation = memory.store.generation
        assert len(memory.search_time(since=60.0 * 10, until=60.0 * 19, k=50)) == 10
    finally:
        memory.close()
    stamps = stamp_indexes(tmp_path / "m", generation)
    assert generation >= 1 and len(stamps) == 2
    assert all(stamp.is_principal and stamp.on_disk for stamp in stamps)


def test_a_store_keeps_the_stamp_index_setting_it_was_created_with(tmp_path):
    """A store created with its stamp index in RAM keeps it there when reopened with the default
    tuning (on disk) and through the index build that follows, and answers time ranges."""
    emb = WordEmbedder()
    root = tmp_path / "m"
    created = MemoryService(EdgeStore(root, "test-words", 64, tuning=replace(TINY, stamp_index_on_disk=False)),
                            WordEmbedder(), auto_optimize=False)
    try:
        created.add(records(0, 20, emb))
    finally:
        created.close()
    assert TINY.stamp_index_on_disk
    memory = open_service(root)
    try:
        memory.add(records(20, 180, emb))
        assert memory.wait_indexed(60.0) and memory.index_builds >= 1, memory._indexer.last_error
        generation = memory.store.generation
        assert len(memory.search_time(since=60.0 * 10, until=60.0 * 29, k=50)) == 20  # both sessions' records
    finally:
        memory.close()
    stamps = stamp_indexes(root, generation)
    assert generation >= 1 and len(stamps) == 2
    assert all(stamp.is_principal and not stamp.on_disk for stamp in stamps)
