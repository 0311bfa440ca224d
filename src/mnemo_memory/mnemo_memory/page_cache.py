"""The disk reads of an index build's switch, done before the engine would do them.

qdrant-edge-py holds the GIL through ``EdgeShard.load`` (every thread of the serving process waits),
and a load reads from disk whatever of the shard's files is not in the page cache. The child that
built them does not leave them there (the engine drops the pages it wrote and read): loading a
freshly built 27k-record shard read about 12 MB from disk. ``read_into_cache`` reads the files
first, from the indexer thread, with plain reads that release the GIL, so the load only computes.

It reads every data extent (holes skipped) but, in the segments the optimizer wrote, the files the
engine reads only on demand with this store's tuning (``tuning.EdgeTuning``: float vectors and
payload pages, memory-mapped cold): a query reads a few pages of them, and reading them whole would
cost the disk and the page cache most of the store's size at each build. The appendable segment,
which the catch-up and every later write touch, is read whole.
"""
from __future__ import annotations

import os
from pathlib import Path

from mnemo_memory.shard_copy import data_extents, frozen_segment_files

ON_DEMAND_FILES = ("vector_storage*/matrix.dat", "payload_storage/page_*.dat")
CHUNK = 1 << 20


def on_demand(shard: Path) -> set[Path]:
    """The files of the shard at ``shard`` that the engine reads only when a query needs them."""
    return frozen_segment_files(shard, ON_DEMAND_FILES)


def read_into_cache(shard: Path) -> int:
    """Read the shard's files (but the on-demand ones) into the page cache; the bytes read."""
    skip, buf, total = on_demand(shard), bytearray(CHUNK), 0
    for dirpath, _, names in os.walk(shard):
        for name in names:
            path = Path(dirpath) / name
            if path in skip:
                continue
            try:
                fd = os.open(path, os.O_RDONLY)
            except OSError:  # removed meanwhile, or unreadable here: the engine's load reads it, or fails itself
                continue
            try:
                for start, end in data_extents(fd):
                    while start < end:
                        n = os.preadv(fd, [memoryview(buf)[:min(CHUNK, end - start)]], start)
                        if n <= 0:  # the file shrank meanwhile
                            break
                        start += n
                        total += n
            except OSError:  # (an I/O error only leaves the load to read the file from disk)
                pass
            finally:
                os.close(fd)
    return total
