"""Pieces a node needs to take in streams that arrive apart (images, poses, detections) without
message_filters: recent stamped values found again by stamp, and counted, rate-limited reasons
for the frames it could not use as meant. Perception and the scene graph share them. No ROS imports.
"""
from __future__ import annotations

import bisect
import threading
import time
from collections import Counter
from typing import Callable, Generic, Optional, TypeVar

import numpy as np

T = TypeVar("T")


class DropCounter:
    """Counts dropped frames by reason and says when a warning is due (once per reason per period)."""

    def __init__(self, period: float = 5.0, clock: Callable[[], float] = time.monotonic):
        self.counts: Counter = Counter()
        self.period = period
        self._clock = clock
        self._last: dict[str, float] = {}
        self._lock = threading.Lock()

    def drop(self, reason: str) -> bool:
        """Count one drop; True when the caller should log a warning now."""
        with self._lock:
            self.counts[reason] += 1
            now = self._clock()
            if now - self._last.get(reason, -np.inf) >= self.period:
                self._last[reason] = now
                return True
            return False


class StampedBuffer(Generic[T]):
    """Recent stamped values (poses, images); ``nearest(stamp, max_age)`` is the closest one in time,
    or None when none lies within ``max_age`` seconds of the stamp. A stamp more than ``jump_back``
    seconds before the latest is a clock that went back (a looping recording, a simulator reset): what
    was kept is dropped, or the newest values would be evicted first, as the oldest stamps, for good."""

    def __init__(self, capacity: int = 200, jump_back: float = 1.0):
        self.capacity, self.jump_back = capacity, jump_back
        self._stamps: list[float] = []
        self._values: list[T] = []
        self._lock = threading.Lock()

    def add(self, stamp: float, value: T) -> None:
        with self._lock:
            if self._stamps and stamp < self._stamps[-1] - self.jump_back:
                self._stamps.clear()
                self._values.clear()
            i = bisect.bisect_right(self._stamps, stamp)
            self._stamps.insert(i, stamp)
            self._values.insert(i, value)
            if len(self._stamps) > self.capacity:
                del self._stamps[0], self._values[0]

    def latest(self) -> Optional[tuple[float, T]]:
        with self._lock:
            return (self._stamps[-1], self._values[-1]) if self._stamps else None

    def nearest(self, stamp: float, max_age: float) -> Optional[tuple[float, T]]:
        with self._lock:
            if not self._stamps:
                return None
            i = bisect.bisect_left(self._stamps, stamp)
            best = min((j for j in (i - 1, i) if 0 <= j < len(self._stamps)),
                       key=lambda j: abs(self._stamps[j] - stamp))
            if abs(self._stamps[best] - stamp) > max_age:
                return None
            return self._stamps[best], self._values[best]
