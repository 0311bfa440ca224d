"""The files of a built generation are in the page cache when the engine loads them (``page_cache``),
so the load, which holds the GIL, reads nothing from disk: checked with the pages evicted after the
child's build and counted, just before the engine's load, with mincore(2)."""
from __future__ import annotations

import ctypes
import mmap
import os
import types
from pathlib import Path

import pytest

from mnemo_memory import index_build
from mnemo_memory.edge_store import EdgeStore, EdgeTuning
from mnemo_memory.index_build import IndexBuild
from mnemo_memory.page_cache import on_demand, read_into_cache
from mnemo_memory.service import MemoryService
from mnemo_memory.shard_copy import data_extents, frozen_segment
from mnemo_memory.testing import WordEmbedder, make_record

TINY = EdgeTuning(indexing_threshold_kb=10, max_segment_size_kb=40, segments=2)  # a build due every ~40 records
PAGE = mmap.PAGESIZE
_libc = ctypes.CDLL(None, use_errno=True)
_libc.mmap.restype = ctypes.c_void_p
_libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
_libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
_libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p]


def uncached_bytes(path: Path) -> int:
    """Bytes of the file's data extents whose pages are not in the page cache."""
    fd = os.open(path, os.O_RDONLY)
    try:
        size = os.fstat(fd).st_size
        if size == 0:
            return 0
        addr = _libc.mmap(None, size, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
        assert addr not in (None, ctypes.c_void_p(-1).value), os.strerror(ctypes.get_errno())
        try:
            pages = ctypes.create_string_buffer((size + PAGE - 1) // PAGE)
            assert _libc.mincore(addr, size, pages) == 0, os.strerror(ctypes.get_errno())
            return sum(PAGE for start, end in data_extents(fd)
                       for page in range(start // PAGE, (end + PAGE - 1) // PAGE) if not pages.raw[page] & 1)
        finally:
            _libc.munmap(addr, size)
    finally:
        os.close(fd)


def files(shard: Path) -> list[Path]:
    return [p for p in shard.rglob("*") if p.is_file()]


def evict(shard: Path) -> None:
    for path in files(shard):
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)


def records(start: int, n: int, emb):
    return [make_record(i, f"a red mug on shelf {i}", 60.0 * i, 0.1 * i, 0.0, labels=("mug",), embedder=emb)
            for i in range(start, start + n)]


def built_shard(root: Path) -> Path:
    """A closed view shard with an optimized segment and an appendable one."""
    emb = WordEmbedder()
    memory = MemoryService(EdgeStore(root, "test-words", 64, tuning=TINY), emb, auto_optimize=False)
    try:
        memory.add(records(0, 120, emb))
        memory.optimize()
        memory.add(records(120, 10, emb))
    finally:
        memory.close()
    return root / "shard"


def test_read_into_cache_reads_every_data_extent_but_the_on_demand_files(tmp_path):
    shard = built_shard(tmp_path / "m")
    skipped = on_demand(shard)
    assert {p.name for p in skipped} >= {"matrix.dat"} and any(p.name.startswith("page_") for p in skipped)
    segments = {p.parent for p in (shard / "segments").glob("*/segment.json")}
    assert len(segments) >= 2 and any(not frozen_segment(s) for s in segments)
    assert all(frozen_segment(s) for s in segments if any(s in p.parents for p in skipped))  # the appendable one whole

    def data(path: Path) -> int:
        fd = os.open(path, os.O_RDONLY)
        try:
            return sum(end - start for start, end in data_extents(fd))
        finally:
            os.close(fd)

    assert read_into_cache(shard) == sum(data(p) for p in files(shard) if p not in skipped)
    evict(shard)
    if not any(uncached_bytes(p) for p in files(shard)):
        pytest.skip("this file system keeps evicted pages (tmpfs?): nothing to observe")
    read_into_cache(shard)
    assert {p.relative_to(shard): uncached_bytes(p) for p in files(shard) if p not in skipped and uncached_bytes(p)} == {}


def test_the_built_shards_are_in_the_page_cache_when_the_engine_loads_them(tmp_path, monkeypatch):
    evicted, at_load = [], {}
    run, engine = IndexBuild.run, index_build.qe

    def run_then_evict(self):  # as a child whose pages the machine dropped, or never kept
        run(self)
        for name in self.live:
            evict(self.target / name)
            evicted.append(sum(uncached_bytes(p) for p in files(self.target / name)))

    def load(path: str):
        shard = Path(path)
        at_load[shard.name] = {p.relative_to(shard): n for p in files(shard) if p not in on_demand(shard)
                               for n in [uncached_bytes(p)] if n}
        return engine.EdgeShard.load(path)

    monkeypatch.setattr(IndexBuild, "run", run_then_evict)
    monkeypatch.setattr(index_build, "qe", types.SimpleNamespace(EdgeShard=types.SimpleNamespace(load=load)))
    emb = WordEmbedder()
    memory = MemoryService(EdgeStore(tmp_path / "m", "test-words", 64, tuning=TINY), emb)
    try:
        ids = memory.add(records(0, 200, emb))
        assert memory.wait_indexed(60.0) and memory.index_builds >= 1, memory._indexer.last_error
        if not any(evicted):
            pytest.skip("this file system keeps evicted pages (tmpfs?): nothing to observe")
        assert set(at_load) == {"shard", "objects"}
        assert at_load == {"shard": {}, "objects": {}}
        assert memory.count() == 200 and all(memory.get(i) for i in ids)
    finally:
        memory.close()


def test_a_read_that_fails_leaves_the_files_to_the_engine_and_raises_nothing(tmp_path, monkeypatch):
    shard = built_shard(tmp_path / "m")

    def failing(*args, **kwargs):
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(os, "preadv", failing)
    assert read_into_cache(shard) == 0  # (prewarming only saves the load some disk reads)
