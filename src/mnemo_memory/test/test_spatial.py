"""PositionGrid against brute force: the same k nearest, whatever the layout, growth or radius."""
from __future__ import annotations

import math

import numpy as np
import pytest

from mnemo_memory.spatial import PositionGrid


def brute(pos: dict[str, tuple[float, float]], x: float, y: float, r: float, k: int) -> list[tuple[float, str]]:
    d = sorted((math.hypot(px - x, py - y), pid) for pid, (px, py) in pos.items())
    return [(di, pid) for di, pid in d if di <= r][:k]


def same(got, want) -> bool:
    # random positions: no two distances tie, so the order is the same too
    return [p for _, p in got] == [p for _, p in want] and np.allclose([d for d, _ in got], [d for d, _ in want])


@pytest.mark.parametrize("layout", ["uniform", "clustered", "line", "one_point"])
def test_nearest_matches_brute_force(layout):
    rng = np.random.default_rng(0)
    n = {"uniform": 5000, "clustered": 5000, "line": 800, "one_point": 1}[layout]
    if layout == "uniform":
        xy = rng.uniform([0, 0], [20, 10], (n, 2))
    elif layout == "clustered":  # rooms visited often and a far corridor
        centres = np.array([[1, 1], [1.2, 1.1], [15, 8], [60, -40]])
        xy = centres[rng.integers(0, 4, n)] + rng.normal(0, 0.3, (n, 2))
    elif layout == "line":
        xy = np.stack([rng.uniform(0, 30, n), np.full(n, 2.0)], axis=1)
    else:
        xy = np.array([[3.0, 4.0]])
    grid, pos = PositionGrid(), {}
    ids = [f"r{i}" for i in range(n)]
    half = n // 2
    grid.add(ids[:half], xy[:half, 0], xy[:half, 1])  # half sorted into cells ...
    grid.rebuild()
    grid.add(ids[half:], xy[half:, 0], xy[half:, 1], rebuild=False)  # ... half in the unsorted tail
    pos.update({i: (float(a), float(b)) for i, (a, b) in zip(ids, xy)})
    queries = rng.uniform([-10, -10], [40, 20], (60, 2)).tolist() + [xy[0].tolist(), [1e4, -1e4]]
    for x, y in queries:
        for r, k in ((math.inf, 1), (math.inf, 10), (0.5, 10), (3.0, 50), (math.inf, 300)):
            got, want = grid.nearest(x, y, r, k), brute(pos, x, y, r, k)
            assert same(got, want), (layout, x, y, r, k, got[:3], want[:3])


def test_replaced_positions_and_loader_order():
    grid = PositionGrid()
    grid.add(["a", "b"], [0.0, 5.0], [0.0, 0.0])
    grid.add(["a"], [10.0], [0.0])  # a record rewritten elsewhere
    assert [p for _, p in grid.nearest(0.0, 0.0, math.inf, 5)] == ["b", "a"]
    grid.add(["a", "c"], [0.0, 1.0], [0.0, 0.0], replace=False)  # an older read does not undo it
    assert grid.nearest(0.0, 0.0, math.inf, 5) == [(1.0, "c"), (5.0, "b"), (10.0, "a")]
    grid.rebuild()
    assert grid.nearest(9.0, 0.0, 2.0, 5) == [(1.0, "a")] and len(grid) == 3
    grid.add(["nan"], [math.nan], [0.0])  # a position that is not finite is not indexed
    assert len(grid) == 3 and PositionGrid().nearest(0, 0, math.inf, 3) == []


def test_growth_rebuilds_the_sorted_part():
    grid = PositionGrid()
    rng = np.random.default_rng(1)
    pos = {}
    for batch in range(12):
        xy = rng.uniform(0, 50, (1000, 2))
        ids = [f"{batch}_{i}" for i in range(1000)]
        grid.add(ids, xy[:, 0], xy[:, 1])
        pos.update({i: (float(a), float(b)) for i, (a, b) in zip(ids, xy)})
    assert grid._sorted_n > 8000  # rebuilt as it grew, not one long tail
    for x, y in rng.uniform(0, 50, (30, 2)):
        assert same(grid.nearest(x, y, math.inf, 10), brute(pos, x, y, math.inf, 10))
