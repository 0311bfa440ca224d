"""Negative evidence: did a camera frame cover the place where a node should be?

A node that a frame covered and no detection of that frame associated with is a miss (the graph
records it as a ``missed`` event; enough of them and the node is stale: not where the object is
now, its last place kept in its history). "Covered" means what a detector that saw the object there
before would see again: the place projects inside the image with the whole object in it, large
enough in pixels, within range, and the depth image says nothing nearer hides it (a closed door, a
shelf board, a wall). The pose alone cannot say that: a frame from the next room, or from below a
tall shelf, would count against nodes it never showed.

No ROS imports. Conventions of geometry.py: optical frame z forward, x right, y down; depth in
metres along the optical axis, NaN where the sensor gave nothing.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property, reduce

import numpy as np

from mnemo_common.types import Pose3D
from mnemo_scene_graph.geometry import Vec3, quat_to_matrix


@dataclass(frozen=True)
class CoverageConfig:
    """When a frame counts as having looked at a place (``GraphConfig.coverage``)."""

    min_pixels: float = 6.0  # the object's expected extent in pixels: smaller ones a detector may miss
    depth_tolerance: float = 0.1  # m: a surface nearer than the place by more hides it
    max_range: float = 6.0  # m: farther places are not judged (depth and detections get coarse)


@dataclass(frozen=True)
class CameraView:
    """One frame's viewpoint: optical pose in the map, pinhole of the full image, and a coarse
    depth image (each cell the nearest valid reading of a ``cell`` x ``cell`` block, NaN where the
    block had none). Coarse, because a frame's view is kept with its detections."""

    pose: Pose3D
    fx: float
    fy: float
    cx: float
    cy: float
    width: int
    height: int
    depth: np.ndarray
    cell: int = 8

    @staticmethod
    def from_depth(pose: Pose3D, fx: float, fy: float, cx: float, cy: float, depth: np.ndarray,
                   cell: int = 8) -> "CameraView":
        """The view of a frame from its full depth image (H x W metres, NaN/0/inf invalid)."""
        d = np.asarray(depth, dtype=np.float32)
        height, width = d.shape
        rows, cols = -(-height // cell), -(-width // cell)
        padded = np.full((rows * cell, cols * cell), np.inf, np.float32)
        padded[:height, :width] = d
        padded[~(padded > 0)] = np.inf  # NaN, 0 and negatives: no reading (like inf, never the minimum)
        # The minimum of each cell x cell block as `cell` strided minimums along each axis: several
        # times faster than a reduction over a 4-d view (a node builds one view per frame).
        across = reduce(np.minimum, (padded[:, k::cell] for k in range(cell)))
        coarse = reduce(np.minimum, (across[k::cell] for k in range(cell)))
        coarse[~np.isfinite(coarse)] = np.nan
        return CameraView(pose, float(fx), float(fy), float(cx), float(cy), int(width), int(height), coarse, cell)

    # A frame's view judges every node of the graph: its pose is turned into these once.
    @cached_property
    def _to_optical(self) -> np.ndarray:
        return quat_to_matrix(self.pose.orientation).T

    @cached_property
    def _origin(self) -> np.ndarray:
        return np.asarray(self.pose.position, float)

    def covers(self, position: Vec3, size: float, config: CoverageConfig = CoverageConfig()) -> bool:
        """Whether an object of extent ``size`` (m) at ``position`` would have been in plain sight."""
        if not self.pose.is_finite():
            return False
        x, y, z = self._to_optical @ (np.asarray(position, float) - self._origin)
        if not 0.1 < z <= config.max_range:
            return False
        extent = max(size, 0.0) * min(self.fx, self.fy) / z
        if extent < config.min_pixels:
            return False
        u, v = self.fx * x / z + self.cx, self.fy * y / z + self.cy
        # At least half of it, or min_pixels of it, inside the image: a detector may miss a sliver.
        margin = min(extent / 2.0, config.min_pixels)
        if not (margin <= u < self.width - margin and margin <= v < self.height - margin):
            return False
        row, col = int(v) // self.cell, int(u) // self.cell
        if not (0 <= row < self.depth.shape[0] and 0 <= col < self.depth.shape[1]):
            return False
        surface = float(self.depth[row, col])
        return math.isfinite(surface) and surface >= z - config.depth_tolerance
