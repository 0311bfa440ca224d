"""Small geometric helpers of the scene graph: label normalisation, boxes and camera visibility.

No ROS imports. Positions are metres in the map frame; camera poses are the optical frame in the
map (z forward, x right, y down), quaternions in ROS order (x, y, z, w).
"""
from __future__ import annotations

import math
import re
from typing import Callable, Optional

import numpy as np

from mnemo_common.types import Pose3D

Vec3 = tuple[float, float, float]
VisibleFn = Callable[[Vec3], bool]


def normalize_label(label: str) -> str:
    """Canonical form used for matching labels: lower case, single spaces, naive singular.

    "Coffee_Mugs " -> "coffee mug". Both sides of a comparison go through it, so the crude
    singular rule only has to be consistent, not linguistically right.
    """
    text = re.sub(r"[\s_\-]+", " ", str(label).strip().lower()).strip()
    words = text.split(" ")
    last = words[-1]
    if len(last) > 3 and last.endswith("s") and not last.endswith("ss"):
        words[-1] = last[:-1]
    return " ".join(words)


def label_slug(label: str) -> str:
    """Node-id prefix for a label, its words as they are: "coffee mug" -> "coffee_mug", "glasses" ->
    "glasses" (the crude singular of normalize_label would make a node id read "glasse_2")."""
    slug = re.sub(r"[^a-z0-9]+", "_", str(label).strip().lower()).strip("_")
    return slug or "object"


def is_finite_vec(v) -> bool:
    try:
        return len(v) == 3 and all(math.isfinite(float(x)) for x in v)
    except (TypeError, ValueError):
        return False


def box_is_valid(box_min: Vec3, box_max: Vec3) -> bool:
    """A box with finite corners, min <= max on every axis and some extent."""
    if not (is_finite_vec(box_min) and is_finite_vec(box_max)):
        return False
    # Plain floats, not numpy: a frame asks this of many nodes, and three numbers gain nothing from arrays.
    lo, hi = [float(v) for v in box_min], [float(v) for v in box_max]
    return all(h >= low for low, h in zip(lo, hi)) and any(h - low > 1e-6 for low, h in zip(lo, hi))


def box_size(box_min: Vec3, box_max: Vec3) -> float:
    """Largest extent of a box (0 for a degenerate one)."""
    if not box_is_valid(box_min, box_max):
        return 0.0
    return max(float(h) - float(low) for low, h in zip(box_min, box_max))


def quat_to_matrix(q: tuple[float, float, float, float]) -> np.ndarray:
    x, y, z, w = (float(v) for v in q)
    n = math.sqrt(x * x + y * y + z * z + w * w) or 1.0
    x, y, z, w = x / n, y / n, z / n, w / n
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
        [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
        [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
    ])


def frustum_visible_fn(camera_pose: Pose3D, hfov: float = math.radians(69.0), vfov: float = math.radians(42.0),
                       max_range: float = 4.0, min_range: float = 0.2, margin: float = 0.9) -> VisibleFn:
    """visible_fn(position) -> True when the position lies inside the optical camera's frustum.

    `margin` (< 1) shrinks the field of view so that things at the image border, which a detector
    often misses, are not taken as "looked at and absent". Occlusion is not modelled.
    """
    rot = quat_to_matrix(camera_pose.orientation)
    origin = np.asarray(camera_pose.position, float)
    tan_h = math.tan(hfov * margin / 2.0)
    tan_v = math.tan(vfov * margin / 2.0)

    def visible(position: Vec3) -> bool:
        p = rot.T @ (np.asarray(position, float) - origin)  # point in the optical frame
        z = p[2]
        if z < min_range or z > max_range:
            return False
        return abs(p[0]) <= z * tan_h and abs(p[1]) <= z * tan_v

    return visible


def support_relation(position: Vec3, fixture_min: Vec3, fixture_max: Vec3,
                     xy_margin: float = 0.05, z_tolerance: float = 0.05, max_height: float = 0.6) -> Optional[str]:
    """"on" when the position is above the fixture's top within its footprint, "in" when it is
    inside the fixture's box, else None."""
    if not box_is_valid(fixture_min, fixture_max):
        return None
    x, y, z = position
    if not (fixture_min[0] - xy_margin <= x <= fixture_max[0] + xy_margin
            and fixture_min[1] - xy_margin <= y <= fixture_max[1] + xy_margin):
        return None
    top = fixture_max[2]
    if top - z_tolerance <= z <= top + max_height:
        return "on"
    if fixture_min[2] <= z < top - z_tolerance:
        return "in"
    return None


def near_pairs(points: list[tuple[float, float]], radius: float) -> list[tuple[int, int]]:
    """Index pairs (i, j), i < j, of planar points at most ``radius`` apart (dx² + dy² <= radius²),
    in (i, j) order. Points are binned in a grid of cells a little wider than ``radius``, so each is
    compared with its own cell and the eight around it: linear in the points for a home's density
    (comparing every pair made the graph's relations quadratic in its nodes). The margin keeps a
    pair exactly ``radius`` apart in neighbouring cells whatever the rounding of the division."""
    if radius <= 0 or len(points) < 2:
        return []
    cell = radius * 1.01
    r2 = radius * radius
    grid: dict[tuple[int, int], list[int]] = {}
    keys = []
    for i, (x, y) in enumerate(points):
        key = (math.floor(x / cell), math.floor(y / cell))
        keys.append(key)
        grid.setdefault(key, []).append(i)
    pairs = []
    for i, (x, y) in enumerate(points):
        cx, cy = keys[i]
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                for j in grid.get((cx + dx, cy + dy), ()):
                    if j > i:
                        ex, ey = x - points[j][0], y - points[j][1]
                        if ex * ex + ey * ey <= r2:
                            pairs.append((i, j))
    pairs.sort()
    return pairs
