"""An index build's copy hard-links the shard files the engine never rewrites in place
(``shard_copy``). A linked file written in place would change the serving generation and the
one being built at once, so this checks the rule against the engine as pinned: every file linked
keeps its bytes through writes of every kind the store makes (records, sightings, compaction's
payload rewrites, deletions, flushes), the build's child optimizing the copy, the switch, an
in-process optimize and a reopen; and every acknowledged record is served after all that."""
from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np

from mnemo_memory.edge_store import EdgeStore, EdgeTuning
from mnemo_memory.service import MemoryService
from mnemo_memory.shard_copy import copy_sparse, never_rewritten
from mnemo_memory.testing import WordEmbedder, make_record

TINY = EdgeTuning(indexing_threshold_kb=10, max_segment_size_kb=40, segments=2)
BULK = "r" * 10_000  # a long payload field: the log fills and closes a segment after ~3,300 records


def records(start: int, n: int, emb):
    out = []
    for i in range(start, start + n):
        r = make_record(i, f"a {('mug', 'book', 'plant')[i % 3]} on shelf {i}", 60.0 * i, 0.05 * i, 0.0,
                        labels=[("mug", "book", "plant")[i % 3]], embedder=emb, raw_ref=BULK)
        r.sightings[0].object_id = f"object-{i % 50}"
        out.append(r)
    return out


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_linked_files_are_never_rewritten_in_place(tmp_path):
    emb = WordEmbedder()
    root = tmp_path / "m"
    memory = MemoryService(EdgeStore(root, "test-words", 64, flush_every=10**9, tuning=TINY), emb, auto_optimize=False)
    store = memory.store
    acked: dict[str, str] = {}

    def add(start: int, n: int) -> list:
        batch = records(start, n, emb)
        for r, rid in zip(batch, memory.add(batch)):
            acked[rid] = r.caption
        return batch

    try:
        first = add(0, 600)
        memory.optimize()  # segments the optimizer wrote: immutable vector storage and HNSW graphs
        add(600, 3_600)  # not flushed: the write-ahead log closes a segment
        linked = {}
        for name in ("shard", "objects"):
            for path in never_rewritten(root / name):
                linked[path] = (root / "gen-1" / name / path.relative_to(root / name), path.stat().st_ino, _digest(path))
        kinds = {p.name if p.parent.name != "wal" else "closed wal" for p in linked}
        assert {"closed wal", "matrix.dat", "quantized.data", "links_compressed.bin"} <= kinds, kinds

        def unchanged(when: str) -> None:
            for path, (copy, ino, digest) in linked.items():
                for p in (path, copy):  # the same inode under both names, while each exists
                    if p.exists() and p.stat().st_ino == ino:
                        assert _digest(p) == digest, f"{p.relative_to(root)} rewritten in place ({when})"

        build = store.begin_index_build()
        build.copy(0)
        assert build.copied.linked_bytes > 0 and all(c.stat().st_ino == ino for c, ino, _ in linked.values())
        # the serving generation takes writes of every kind while the copy is built
        add(4_200, 40)
        for r in first[:30]:  # compaction's rewrite of records in optimized segments
            r.last_stamp, r.count = r.stamp + 600.0, 3
        store.extend(first[:30])
        store.delete([r.id for r in first[30:60]])
        for r in first[30:60]:
            acked.pop(r.id)
        store.flush()
        unchanged("live writes and a flush")
        build.run()  # the child optimizes and flushes the copy
        unchanged("the build")
        build.load()
        build.catch_up()
        add(4_240, 20)
        assert store.end_index_build(build)
        build.remove_unused()
        unchanged("the switch")
        add(4_260, 40)
        store.delete([r.id for r in first[60:70]])
        for r in first[60:70]:
            acked.pop(r.id)
        memory.optimize()
        unchanged("writes and an optimize of the new generation")
    finally:
        memory.close()
    reopened = EdgeStore(root, "test-words", 64)
    try:
        unchanged("a reopen")
        assert reopened.generation == 1 and reopened.count() == len(acked)
        for rid, caption in acked.items():
            got = reopened.get(rid)
            assert got.caption == caption and np.allclose(got.embedding, emb.embed([caption])[0], atol=1e-6)
        assert reopened.get(first[0].id).last_stamp == first[0].stamp + 600.0
    finally:
        reopened.close()


def test_a_sparse_copy_keeps_data_and_holes(tmp_path):
    src, dst = tmp_path / "src", tmp_path / "dst"
    with open(src, "wb") as f:
        f.truncate(8 << 20)
        for offset in (0, 3 << 20, (8 << 20) - 10):
            f.seek(offset)
            f.write(b"data at %d" % offset)
    copied = copy_sparse(src, dst)
    assert dst.read_bytes() == src.read_bytes()
    assert copied < 1 << 20 and dst.stat().st_blocks * 512 < 1 << 20  # the holes were not written
