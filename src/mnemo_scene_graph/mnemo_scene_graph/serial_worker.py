"""One thread of its own that runs jobs in the order they were handed over, for work a node's
executor thread must not do: a callback that takes long keeps every other callback of that
thread waiting, and in rclpy's multi-threaded executor a callback handed to its pool re-enters
the wait loop until a worker starts it (ros2/rclpy#1452): under load that loop held the GIL for
tens of milliseconds at a time, so queries waited although the node had a thread free for them.

    worker = SerialWorker("ingest", depth=50, on_drop=count)  # at most 50 jobs waiting
    worker.submit(job)                                        # never blocks; job() runs later, in order
    worker.submit(job, urgent=True)                           # next, before the others waiting
    worker.close(timeout=5.0)                                 # run what waits, then stop

A full queue drops its oldest waiting job (what a KEEP_LAST subscription queue of that depth
does) and calls on_drop(job); urgent jobs (a request someone waits for) are neither counted nor
dropped, and run in their order. A job that raises is reported to on_error and the worker goes on.
"""
from __future__ import annotations

import threading
from collections import deque
from typing import Callable, Optional

Job = Callable[[], None]


class SerialWorker:
    def __init__(self, name: str, depth: int, on_drop: Optional[Callable[[Job], None]] = None,
                 on_error: Optional[Callable[[BaseException], None]] = None):
        if depth < 1:
            raise ValueError(f"depth must be >= 1, got {depth}")
        self._jobs: deque[Job] = deque()
        self._urgent: deque[Job] = deque()
        self._depth = depth
        self._on_drop, self._on_error = on_drop, on_error
        self._cond = threading.Condition()
        self._closing = False
        self._busy = False
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def submit(self, job: Job, urgent: bool = False) -> bool:
        """Queue a job; False once closing (the job is not run)."""
        dropped = None
        with self._cond:
            if self._closing:
                return False
            if urgent:
                self._urgent.append(job)
            else:
                if len(self._jobs) >= self._depth:
                    dropped = self._jobs.popleft()
                self._jobs.append(job)
            self._cond.notify()
        if dropped is not None and self._on_drop is not None:
            self._on_drop(dropped)
        return True

    def pending(self) -> int:
        """Jobs waiting or running."""
        with self._cond:
            return len(self._urgent) + len(self._jobs) + self._busy

    def wait_idle(self, timeout: Optional[float] = None) -> bool:
        """Wait until every job handed over so far has run; False on timeout."""
        with self._cond:
            return self._cond.wait_for(lambda: not self._urgent and not self._jobs and not self._busy, timeout)

    def close(self, timeout: Optional[float] = None) -> bool:
        """Refuse new jobs, run the waiting ones, stop; False when they were not done in time."""
        with self._cond:
            self._closing = True
            self._cond.notify_all()
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def _run(self) -> None:
        while True:
            with self._cond:
                self._cond.wait_for(lambda: self._urgent or self._jobs or self._closing)
                if not self._urgent and not self._jobs:
                    return  # closing, nothing left
                job = (self._urgent or self._jobs).popleft()
                self._busy = True
            try:
                job()
            except Exception as exc:  # noqa: BLE001 - one bad job must not stop the others
                if self._on_error is not None:
                    self._on_error(exc)
            finally:
                with self._cond:
                    self._busy = False
                    self._cond.notify_all()
