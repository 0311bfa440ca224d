"""An index build off the serving process: the embedded store's HNSW index is built by a child
process on a copy of its shards, and the built copy, caught up with the writes made meanwhile,
replaces them.

qdrant-edge has no background optimizer, and ``EdgeShard.optimize`` holds the GIL until it returns
(a segment of ~13k 384-d records: tens of seconds on a shared machine), so a build inside the
memory node stops every thread of it. An ``IndexBuild`` goes instead (``background_index`` drives
it, and holds the locks named here):

1. copy (writers held, queries served): the live shards are copied to the next generation's
   directory, ``root/gen-N/`` (what a crash would leave: the child's load replays the write-ahead log),
   the files the engine never rewrites in place as hard links (``shard_copy``);
2. build (nothing held): a child process (``python -m mnemo_memory.index_build``, at a lower CPU
   priority) optimizes and flushes the copies, while the live shards keep answering and taking
   writes; every update applied to them meanwhile is kept in ``journal``;
3. catch up (nothing held): the built shards are loaded here (their files read into the page cache
   first, ``page_cache``) and the journal replayed onto them;
4. switch (writers and queries held, for the journal's last entries): meta.json is rewritten to
   name generation N (a temporary file renamed over it: the commit point), the store serves from
   the built shards, and the previous generation's files are removed.

Crash safety: until the rename, meta.json names the previous generation, which only the serving
process wrote and whose write-ahead log holds every acknowledged update; from the rename on,
generation N holds them all (the journal was replayed, with writers held, before it). A shard
directory meta.json does not name is a leftover of an interrupted build or switch, removed when the
store opens. A child that fails or is killed leaves the live shards as they were.
"""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Optional

import qdrant_edge as qe

from mnemo_common.files import fsync_dir, write_json_atomic
from mnemo_common.processes import PARENT_PID_ENV, die_with_parent

from mnemo_memory.page_cache import read_into_cache
from mnemo_memory.shard_copy import CopyReport, copy_shard

SHARD_NAMES = ("shard", "objects")  # the view records' shard, the object sightings' shard
BUILD_NICE = 10  # the child's CPU priority below the serving process's


def generation_dir(root: Path, generation: int) -> Path:
    """Where a generation's shards live: the store's root for generation 0 (the shards a store is
    created with), ``root/gen-N`` after the N-th build."""
    return root if generation == 0 else root / f"gen-{generation}"


def shard_dirs(root: Path) -> list[Path]:
    """Every shard directory under a store's root, whatever generation names it."""
    return [d / name for d in [root, *sorted(root.glob("gen-*"))] for name in SHARD_NAMES if (d / name).is_dir()]


def remove_leftovers(root: Path, generation: int) -> list[Path]:
    """Remove the shard directories meta.json (naming ``generation``) does not name: the copy of an
    interrupted build, or a generation switched from whose removal was interrupted."""
    keep = generation_dir(root, generation)
    removed = [d for d in shard_dirs(root) if d.parent != keep]
    for d in removed:
        shutil.rmtree(d)
    for d in root.glob("gen-*"):
        if d != keep and d.is_dir():
            shutil.rmtree(d)
    return removed


def _fsync(path: Path) -> None:
    fd = os.open(str(path), os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _fsync_tree(root: Path) -> None:
    for dirpath, _, files in os.walk(root):
        for name in files:
            _fsync(Path(dirpath) / name)
        fsync_dir(dirpath)


def _size(path: Path) -> int:
    return sum(f.stat().st_blocks * 512 for f in path.rglob("*") if f.is_file())


class IndexBuild:
    """One build of a store's next generation. ``live``: shard name -> its live directory."""

    def __init__(self, root: Path, generation: int, live: dict[str, Path]):
        self.root, self.generation, self.live = root, generation, live
        self.target = generation_dir(root, generation)
        self.journal: list[tuple[str, Any]] = []  # (shard name, update) applied to the live shards since the copy
        self.copied = CopyReport()
        self.cached_bytes = 0  # read into the page cache before the load
        self.load_seconds = 0.0  # the engine's load of the built shards (GIL held)
        self.error = ""
        self.switched = False
        self._replayed = 0
        self._built: dict[str, "qe.EdgeShard"] = {}
        self._retired: list["qe.EdgeShard"] = []
        self._proc: Optional[subprocess.Popen] = None
        self._cancelled = False
        self._proc_lock = threading.Lock()

    def fail(self, exc: BaseException) -> None:
        self.error = self.error or f"{type(exc).__name__}: {str(exc)[:300]}"

    # -- the steps, in order ----------------------------------------------------------------
    def copy(self, reserve_bytes: int) -> None:
        """Copy the live shards (no writer may run until this returns). The disk must keep
        ``reserve_bytes`` free beyond the copy and its built form (which can be half as large again)."""
        need = 2 * sum(_size(p) for p in self.live.values()) + reserve_bytes
        st = os.statvfs(self.root)
        if st.f_bavail * st.f_frsize < need:
            raise OSError(f"{st.f_bavail * st.f_frsize / 2**20:.0f} MB free under {self.root}, "
                          f"an index build needs {need / 2**20:.0f} MB")
        if self.target.exists():  # a leftover of this generation number
            shutil.rmtree(self.target)
        self.target.mkdir()
        for name, path in self.live.items():
            copied = copy_shard(path, self.target / name)
            self.copied.linked_bytes += copied.linked_bytes
            self.copied.copied_bytes += copied.copied_bytes

    def run(self) -> None:
        """Optimize the copies in a child process (queries and writes go on meanwhile)."""
        cmd = [sys.executable, "-m", "mnemo_memory.index_build", *(str(self.target / n) for n in self.live)]
        package_parent = str(Path(__file__).resolve().parents[1])
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [package_parent, os.environ.get("PYTHONPATH")])),
               PARENT_PID_ENV: str(os.getpid())}
        with self._proc_lock:
            if self._cancelled:
                raise RuntimeError("cancelled")
            self._proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        _, err = self._proc.communicate()
        if self._proc.returncode != 0:
            raise RuntimeError(f"the index build process exited with {self._proc.returncode}: {err.strip()[-300:]}")
        _fsync_tree(self.target)  # the built files on disk before meta.json may name them

    def load(self) -> None:
        """Load the built shards here (the engine holds the GIL throughout), their files read into
        the page cache first (``page_cache``), so the load reads nothing from disk."""
        for name in self.live:
            self.cached_bytes += read_into_cache(self.target / name)
        start = time.monotonic()
        self._built = {name: qe.EdgeShard.load(str(self.target / name)) for name in self.live}
        self.load_seconds = time.monotonic() - start

    def catch_up(self) -> None:
        """Replay onto the built shards the updates journaled so far (writers may add more meanwhile:
        the switch replays the rest with them held)."""
        while self._replayed < len(self.journal):
            name, op = self.journal[self._replayed]
            self._built[name].update(op)
            self._replayed += 1

    def commit(self, meta_path: Path, meta: dict, live: list["qe.EdgeShard"]) -> dict[str, "qe.EdgeShard"]:
        """The switch's durable part (writers held): the last updates replayed (each in the built
        shard's write-ahead log, as any write), then meta.json names this generation. Returns the
        built shards, now the store's; ``live``, the shards they replace, are closed by ``remove_unused``."""
        self.catch_up()
        write_json_atomic(meta_path, {**meta, "generation": self.generation})
        self.switched = True
        built, self._built, self._retired = self._built, {}, live
        return built

    def remove_unused(self) -> None:
        """After a switch, the previous generation's shards and files; otherwise this build's."""
        for shard in [*self._built.values(), *self._retired]:
            shard.close()
        self._built, self._retired = {}, []
        if not self.switched:
            shutil.rmtree(self.target, ignore_errors=True)
            return
        for path in self.live.values():
            shutil.rmtree(path, ignore_errors=True)
        if self.generation > 1:
            shutil.rmtree(generation_dir(self.root, self.generation - 1), ignore_errors=True)

    def cancel(self) -> None:
        """Stop the child (the build then fails; the live shards are untouched)."""
        with self._proc_lock:
            self._cancelled = True
            if self._proc is not None and self._proc.poll() is None:
                self._proc.kill()


def main(paths: list[str]) -> int:
    """The child: optimize and flush the shards at these paths. It ends with the serving process
    (even a SIGKILL of it), whose next open removes the copy."""
    die_with_parent(signal.SIGKILL)
    os.nice(BUILD_NICE)
    for path in paths:
        shard = qe.EdgeShard.load(path)
        shard.optimize()
        shard.flush()
        shard.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
