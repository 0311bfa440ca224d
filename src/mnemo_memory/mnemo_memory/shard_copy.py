"""A copy of an edge shard for an index build (``index_build``), made while writers wait, so it is
made cheaply: files that neither the serving engine nor the build ever rewrites in place are hard
links, the others are copied with their holes left holes.

Which files are never rewritten in place (qdrant-edge-py as pinned; ``test_shard_copy`` checks it
against every write the store makes, a build and a reopen):

- a closed write-ahead-log segment (``wal/closed-N``): full, only read until a flush deletes it;
- in a segment with immutable vector storage (``segment.json``: every vector's ``storage_type``
  ``Mmap``, which the engine gives only to the segments its optimizer writes), the vectors
  (``matrix.dat``), their int8 quantization (``quantized.data``) and the HNSW graph
  (``vector_index*/links*.bin``). A deleted point is flagged in other files (``deleted.dat``,
  the id tracker), a changed payload moves its point to an appendable segment.

Every other file (appendable segments, id trackers, payload storage and indices, deletion flags,
the open log segment) is copied. A file the engine replaces (writes anew and renames) would be
safe to link too; one it writes in place through a link would change both generations.
Deleting a linked file (a flush trimming the log, an optimizer dropping a segment) removes one
name and leaves the other generation's. The engine preallocates large sparse files (a 32 MB
payload page holding 14 MB); the copy keeps them sparse, so it writes what they hold.
"""
from __future__ import annotations

import errno
import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

IMMUTABLE_STORAGE = "Mmap"  # qdrant's storage type of the vectors of an optimized (non-appendable) segment
FROZEN_SEGMENT_FILES = ("vector_storage*/matrix.dat", "vector_storage*/quantized.data", "vector_index*/links*.bin")


@dataclass
class CopyReport:
    linked_bytes: int = 0
    copied_bytes: int = 0


def frozen_segment(segment: Path) -> bool:
    """Whether the segment's vector storage is immutable (the optimizer wrote it)."""
    try:
        vectors = json.loads((segment / "segment.json").read_text())["config"]["vector_data"]
    except (OSError, ValueError, KeyError):
        return False  # not a segment this rule knows: copied
    return bool(vectors) and all(v.get("storage_type") == IMMUTABLE_STORAGE for v in vectors.values())


def frozen_segment_files(shard: Path, patterns: tuple[str, ...]) -> set[Path]:
    """The paths matching ``patterns`` in the segments of the shard at ``shard`` that the optimizer wrote."""
    return {f for segment in (shard / "segments").glob("*") if segment.is_dir() and frozen_segment(segment)
            for pattern in patterns for f in segment.glob(pattern)}


def never_rewritten(shard: Path) -> set[Path]:
    """The files of the shard at ``shard`` that are never rewritten in place."""
    files = set((shard / "wal").glob("closed-*")) | frozen_segment_files(shard, FROZEN_SEGMENT_FILES)
    return {f for f in files if f.is_file() and not f.is_symlink()}


def data_extents(fd: int) -> Iterator[tuple[int, int]]:
    """The (start, end) byte ranges of an open file that hold data, holes left out."""
    size = os.fstat(fd).st_size
    pos = 0
    while pos < size:
        try:
            start = os.lseek(fd, pos, os.SEEK_DATA)
        except OSError as exc:
            if exc.errno == errno.ENXIO:  # nothing but a hole up to the end
                return
            raise
        end = os.lseek(fd, start, os.SEEK_HOLE)
        yield start, end
        pos = end


def copy_sparse(src: Path, dst: Path) -> int:
    """Copy a file's data extents only (its holes stay holes); the bytes copied."""
    copied = 0
    with open(src, "rb") as fi, open(dst, "wb") as fo:
        size = os.fstat(fi.fileno()).st_size
        for start, end in data_extents(fi.fileno()):
            while start < end:
                n = os.copy_file_range(fi.fileno(), fo.fileno(), end - start, start, start)
                if n == 0:  # the file shrank meanwhile
                    break
                start += n
                copied += n
        os.ftruncate(fo.fileno(), size)
    shutil.copymode(src, dst)
    return copied


def _link(src: Path, dst: Path) -> bool:
    """Hard-link src at dst; False where the file system has no hard links (then it is copied)."""
    try:
        os.link(src, dst)
    except OSError as exc:
        if exc.errno in (errno.EPERM, errno.EXDEV, errno.EOPNOTSUPP, errno.EMLINK):
            return False
        raise
    return True


def copy_shard(src: Path, dst: Path) -> CopyReport:
    """Copy the shard at ``src`` to ``dst`` (new), linking the files never rewritten in place."""
    report = CopyReport()
    frozen = never_rewritten(src)
    for dirpath, _, names in os.walk(src):
        here = Path(dirpath)
        there = dst / here.relative_to(src)
        there.mkdir(parents=True, exist_ok=True)
        for name in names:
            path = here / name
            if path in frozen and _link(path, there / name):
                report.linked_bytes += path.stat().st_blocks * 512
            else:
                report.copied_bytes += copy_sparse(path, there / name)
    return report
