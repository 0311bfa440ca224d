"""An in-RAM grid over record positions: the k nearest records to a point, exactly, without an engine scan.

The engine's range indices are one-dimensional: a box of 0.2 x 0.2 m in a 20 x 10 m flat holding
100k records is answered by walking every record of a 0.2 m wide strip (about 1,000) and checking
its other coordinate, then converting the payload of each one kept. This grid answers the plain
"nearest k to (x, y), within r" question from positions held in numpy arrays, and the store fetches
only the k winners' payloads. Memory: about 190 bytes per record (measured at 100k: 108 bytes of
arrays and dict, plus the 36-character id string).

Layout: every record has a slot (id, x, y, alive). Slots below ``_sorted_n`` are indexed by cell:
their slot numbers sorted by cell key (row-major over a uniform grid whose cell size is chosen at
each rebuild to hold a few records on average); later slots form an unsorted tail searched by brute
force, and the sorted part is rebuilt when the tail grows past an eighth of it, or past ``MAX_TAIL``
(every query scans the tail: at 1M records an eighth made it the cost of a query). Re-adding an id
(a replaced record) retires its old slot. No engine code here: the store feeds it and asks it.
"""
from __future__ import annotations

import math
import threading
from array import array
from typing import Iterable

import numpy as np

POINTS_PER_CELL = 6.0
MIN_CELL = 0.01  # m
MIN_TAIL = 2048
MAX_TAIL = 16384  # bounds the scan; a rebuild (a sort of every key) then comes every MAX_TAIL records


class PositionGrid:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._ids: list[str] = []
        self._slot: dict[str, int] = {}
        self._xs = array("d")
        self._ys = array("d")
        self._alive = bytearray()
        self._sorted_n = 0
        self._order = np.empty(0, np.int64)  # slots below _sorted_n, sorted by cell key
        self._keys = np.empty(0, np.int64)   # their cell keys, ascending
        self._cell = 1.0
        self._origin = (0.0, 0.0)
        self._shape = (0, 0)  # cells along x and y

    def __len__(self) -> int:
        return len(self._slot)

    # -- writing ---------------------------------------------------------------------------
    def add(self, ids: Iterable[str], xs: Iterable[float], ys: Iterable[float], replace: bool = True,
            rebuild: bool = True) -> None:
        """Add positions. An id already present is moved (``replace``) or left as it is (a loader
        reading older data must not undo a newer write)."""
        with self._lock:
            for pid, x, y in zip(ids, xs, ys):
                x, y = float(x), float(y)
                if not (math.isfinite(x) and math.isfinite(y)):
                    continue
                old = self._slot.get(pid)
                if old is not None:
                    if not replace:
                        continue
                    self._alive[old] = 0
                self._slot[pid] = len(self._ids)
                self._ids.append(pid)
                self._xs.append(x)
                self._ys.append(y)
                self._alive.append(1)
            if rebuild and len(self._ids) - self._sorted_n > max(MIN_TAIL, min(self._sorted_n // 8, MAX_TAIL)):
                self._rebuild()

    def remove(self, ids: Iterable[str]) -> None:
        """Forget positions (records deleted by compaction)."""
        with self._lock:
            for pid in ids:
                slot = self._slot.pop(pid, None)
                if slot is not None:
                    self._alive[slot] = 0

    def rebuild(self) -> None:
        with self._lock:
            self._rebuild()

    def _rebuild(self) -> None:
        n = len(self._ids)
        alive = np.frombuffer(self._alive, np.uint8, n).astype(bool)
        xs = np.array(self._xs, np.float64)
        ys = np.array(self._ys, np.float64)
        live = np.flatnonzero(alive)
        if len(live) == 0:
            self._order = self._keys = np.empty(0, np.int64)
            self._sorted_n, self._shape = n, (0, 0)
            return
        lx, ly = xs[live], ys[live]
        x0, y0 = float(lx.min()), float(ly.min())
        w, h = max(float(lx.max()) - x0, MIN_CELL), max(float(ly.max()) - y0, MIN_CELL)
        cell = max(MIN_CELL, math.sqrt(w * h * POINTS_PER_CELL / len(live)))
        nx, ny = int(w // cell) + 1, int(h // cell) + 1
        ix = np.minimum(((lx - x0) // cell).astype(np.int64), nx - 1)
        iy = np.minimum(((ly - y0) // cell).astype(np.int64), ny - 1)
        keys = ix * ny + iy
        order = np.argsort(keys, kind="stable")
        self._order, self._keys = live[order], keys[order]
        self._cell, self._origin, self._shape, self._sorted_n = cell, (x0, y0), (nx, ny), n

    # -- reading ---------------------------------------------------------------------------
    def nearest(self, x: float, y: float, max_radius: float, k: int) -> list[tuple[float, str]]:
        """The k nearest positions within max_radius (math.inf: no limit), as (distance, id),
        nearest first. Exact: a square of cells is grown until it holds k positions no farther
        than its own edge (or max_radius, or it covers the grid)."""
        with self._lock:
            n = len(self._ids)
            if n == 0 or k <= 0:
                return []
            xs = np.frombuffer(self._xs, np.float64, n)
            ys = np.frombuffer(self._ys, np.float64, n)
            alive = np.frombuffer(self._alive, np.uint8, n)
            tail = np.arange(self._sorted_n, n, dtype=np.int64)
            nx, ny = self._shape
            cell, (x0, y0) = self._cell, self._origin
            cx, cy = math.floor((x - x0) / cell), math.floor((y - y0) / cell)
            ring = max(1, math.ceil(math.sqrt(k / (math.pi * POINTS_PER_CELL))))
            while True:
                ax, bx = max(cx - ring, 0), min(cx + ring, nx - 1)
                ay, by = max(cy - ring, 0), min(cy + ring, ny - 1)
                parts = [tail]
                if ax <= bx and ay <= by:
                    rows = np.arange(ax, bx + 1, dtype=np.int64) * ny
                    lo = np.searchsorted(self._keys, rows + ay, "left")
                    hi = np.searchsorted(self._keys, rows + by, "right")
                    parts += [self._order[a:b] for a, b in zip(lo.tolist(), hi.tolist()) if b > a]
                cand = np.concatenate(parts) if len(parts) > 1 else tail
                cand = cand[alive[cand] != 0]
                d = np.hypot(xs[cand] - x, ys[cand] - y)
                covers_all = nx == 0 or (cx - ring <= 0 and cx + ring >= nx - 1 and cy - ring <= 0 and cy + ring >= ny - 1)
                # every sorted position within `reach` of (x, y) lies in the square
                reach = math.inf if covers_all else min(
                    x - (x0 + (cx - ring) * cell), x0 + (cx + ring + 1) * cell - x,
                    y - (y0 + (cy - ring) * cell), y0 + (cy + ring + 1) * cell - y)
                limit = min(reach, max_radius)
                inside = d <= limit
                if int(inside.sum()) >= k or reach >= max_radius:
                    cand, d = cand[inside], d[inside]
                    if len(d) > k:
                        top = np.argpartition(d, k - 1)[:k]
                        cand, d = cand[top], d[top]
                    best = np.argsort(d, kind="stable")
                    ids = self._ids
                    return [(float(d[i]), ids[int(cand[i])]) for i in best]
                ring *= 2
