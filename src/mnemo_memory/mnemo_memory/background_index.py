"""BackgroundIndexer: the memory service's thread that builds the store's index off the serving
process whenever the store says one is due (``index_build``), so no query waits behind a build.

Locks (the service's): ``write_lock`` keeps writers out, ``lock`` serialises every store call;
taken in that order. A build holds the write lock while it copies the shards (queries go on),
nothing while the child process builds and the copy catches up, and both for the switch. A
failed build is logged and tried again ``retry_after`` seconds later at the earliest; the store
keeps serving, its unindexed records searched exhaustively.
"""
from __future__ import annotations

import threading
import time
from typing import Callable, Optional

from mnemo_memory.index_build import IndexBuild


class BackgroundIndexer:
    def __init__(self, store, write_lock: threading.Lock, lock: threading.Lock,
                 on_event: Callable[[str], None] = lambda text: None,
                 reserve_bytes: int = 256 * 2**20, retry_after: float = 60.0):
        self.store, self._write_lock, self._lock = store, write_lock, lock
        self.on_event, self.reserve_bytes, self.retry_after = on_event, reserve_bytes, retry_after
        self.builds = 0  # switched to
        self.last_error = ""
        self._cv = threading.Condition()
        self._pending = self._busy = self._stopping = False
        self._build: Optional[IndexBuild] = None
        self._thread: Optional[threading.Thread] = None

    def request(self) -> None:
        """Build when the store says one is due (cheap; a build in progress takes the request after it)."""
        with self._cv:
            if self._stopping:
                return
            self._pending = True
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="memory-indexer", daemon=True)
                self._thread.start()
            self._cv.notify_all()

    def wait_idle(self, timeout: Optional[float] = None) -> bool:
        """Wait until no build is in progress or requested; False on timeout."""
        with self._cv:
            return self._cv.wait_for(lambda: not (self._pending or self._busy) or self._stopping, timeout)

    def close(self) -> None:
        """Stop: a build in progress is cancelled (its child killed) and dropped."""
        with self._cv:
            self._stopping = True
            build = self._build
            self._cv.notify_all()
        if build is not None:
            build.cancel()
        if self._thread is not None:
            self._thread.join()

    def _run(self) -> None:
        while True:
            with self._cv:
                self._busy = False
                self._cv.notify_all()
                self._cv.wait_for(lambda: self._pending or self._stopping)
                if self._stopping:
                    return
                self._pending, self._busy = False, True
            if not self._build_once():
                with self._cv:
                    self._cv.wait_for(lambda: self._stopping, self.retry_after)

    def _build_once(self) -> bool:
        """One build, if due; False when it failed."""
        start = time.monotonic()
        with self._write_lock:
            with self._lock:
                if not self.store.optimize_due():
                    return True
                build = self.store.begin_index_build()
            with self._cv:
                self._build = build
                if self._stopping:
                    build.cancel()
            try:
                build.copy(self.reserve_bytes)
            except Exception as exc:  # noqa: BLE001 - a full disk, say: the live shards serve on
                build.fail(exc)
        copied = time.monotonic()
        if not build.error:
            try:
                build.run()
                build.load()
                build.catch_up()
            except Exception as exc:  # noqa: BLE001 - a killed or failed child: its copy is dropped
                build.fail(exc)
        built = time.monotonic()
        with self._write_lock, self._lock:
            held = time.monotonic()
            self.store.end_index_build(build)
            switched_in = time.monotonic() - held
        build.remove_unused()
        with self._cv:
            self._build = None
        if build.switched:
            self.builds += 1
            self.on_event(f"index built off the serving process: generation {build.generation}, "
                          f"copy {copied - start:.2f} s ({build.copied.copied_bytes / 2**20:.0f} MB copied, "
                          f"{build.copied.linked_bytes / 2**20:.0f} MB linked), build {built - copied:.1f} s "
                          f"(load {build.load_seconds * 1000:.0f} ms, {build.cached_bytes / 2**20:.0f} MB read "
                          f"into the page cache first), "
                          f"{len(build.journal)} updates carried over, switch {switched_in * 1000:.0f} ms held")
            return True
        self.last_error = build.error or "cancelled"
        self.on_event(f"index build failed, the store serves on unchanged: {self.last_error}")
        return False
