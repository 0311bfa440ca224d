"""Instance masks + depth + intrinsics + camera pose -> 3D detections in the map frame.

Each mask's pixels with valid depth are back-projected through the pinhole model into the
camera's optical frame (z forward, x right, y down), moved into the map frame with the camera
pose, cleaned of outliers (mask edges bleed onto the background behind an object) and boxed.
Open3D does the statistical outlier removal and box fitting; clusters too small for a
neighbourhood statistic use a numpy median/MAD filter instead, and flat clusters get boxes
padded to a minimum thickness.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Optional, Sequence

import numpy as np

from mnemo_common.types import Detection, Pose3D
from mnemo_perception.colors import color_attributes
from mnemo_perception.frame import Instance, Intrinsics


@dataclass(frozen=True)
class DeprojectionConfig:
    min_depth: float = 0.05  # metres; nearer readings are sensor noise
    max_depth: float = 10.0  # metres; farther readings are ignored
    min_points: int = 10  # instances with fewer valid depth pixels are skipped
    outlier_method: str = "open3d"  # "open3d" | "numpy"
    open3d_min_points: int = 30  # below this, the numpy filter is used even with open3d
    outlier_neighbors: int = 16
    outlier_std_ratio: float = 2.0
    max_points: int = 500  # regular subsample per instance: bounds the outlier-removal cost per instance
    min_extent: float = 0.01  # metres; thinner box sides (flat clusters) are padded to this


class SkippedInstance(Exception):
    """An instance that yields no detection; ``reason`` is a short counter key."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


def quaternion_matrix(q: Sequence[float]) -> np.ndarray:
    """3x3 rotation matrix of a quaternion in ROS order (x, y, z, w); normalises it first."""
    x, y, z, w = (float(v) for v in q)
    n = x * x + y * y + z * z + w * w
    if not np.isfinite(n) or n < 1e-12:
        raise ValueError(f"invalid quaternion {tuple(q)}")
    s = 2.0 / n
    return np.array([
        [1 - s * (y * y + z * z), s * (x * y - z * w), s * (x * z + y * w)],
        [s * (x * y + z * w), 1 - s * (x * x + z * z), s * (y * z - x * w)],
        [s * (x * z - y * w), s * (y * z + x * w), 1 - s * (x * x + y * y)],
    ])


def valid_depth(depth: np.ndarray, config: DeprojectionConfig) -> np.ndarray:
    """HxW bool: finite depth within the configured range (NaN, inf and 0 are invalid)."""
    with np.errstate(invalid="ignore"):
        return np.isfinite(depth) & (depth >= config.min_depth) & (depth <= config.max_depth)


def deproject_pixels(us: np.ndarray, vs: np.ndarray, z: np.ndarray, intrinsics: Intrinsics) -> np.ndarray:
    """Pixel columns/rows with depth -> (N, 3) points in the optical frame."""
    x = (us - intrinsics.cx) * z / intrinsics.fx
    y = (vs - intrinsics.cy) * z / intrinsics.fy
    return np.stack([x, y, z], axis=1)


def to_map(points: np.ndarray, camera_pose: Pose3D) -> np.ndarray:
    rotation = quaternion_matrix(camera_pose.orientation)
    return points @ rotation.T + np.asarray(camera_pose.position, dtype=np.float64)


def numpy_inliers(points: np.ndarray, k: float = 3.0) -> np.ndarray:
    """Bool inlier mask: points whose distance to the median point is within k scaled MADs of
    the median distance (all points when the spread is zero)."""
    if len(points) < 3:
        return np.ones(len(points), dtype=bool)
    dist = np.linalg.norm(points - np.median(points, axis=0), axis=1)
    med = np.median(dist)
    mad = 1.4826 * np.median(np.abs(dist - med))
    if mad <= 1e-9:
        return dist <= med + 1e-9 if med > 0 else np.ones(len(points), dtype=bool)
    return dist <= med + k * mad


def open3d_inliers(points: np.ndarray, neighbors: int, std_ratio: float) -> np.ndarray:
    import open3d as o3d

    cloud = o3d.geometry.PointCloud(o3d.utility.Vector3dVector(np.ascontiguousarray(points, dtype=np.float64)))
    _, index = cloud.remove_statistical_outlier(nb_neighbors=min(neighbors, len(points) - 1), std_ratio=std_ratio)
    keep = np.zeros(len(points), dtype=bool)
    keep[np.asarray(index, dtype=np.int64)] = True
    return keep


def fit_box(points: np.ndarray, use_open3d: bool, min_extent: float) -> tuple[np.ndarray, np.ndarray]:
    """Axis-aligned box of the points, each side padded to at least ``min_extent`` (flat clusters)."""
    if use_open3d:
        import open3d as o3d

        box = o3d.geometry.AxisAlignedBoundingBox.create_from_points(
            o3d.utility.Vector3dVector(np.ascontiguousarray(points, dtype=np.float64)))
        lo, hi = np.asarray(box.min_bound), np.asarray(box.max_bound)
    else:
        lo, hi = points.min(axis=0), points.max(axis=0)
    pad = np.maximum(min_extent - (hi - lo), 0.0) / 2.0
    return lo - pad, hi + pad


def mask_box(mask: np.ndarray) -> Optional[tuple[int, int, int, int]]:
    """(x_min, y_min, x_max, y_max) pixel box of a mask, max exclusive; None when empty."""
    rows = np.flatnonzero(mask.any(axis=1))
    if len(rows) == 0:
        return None
    cols = np.flatnonzero(mask.any(axis=0))
    return int(cols[0]), int(rows[0]), int(cols[-1]) + 1, int(rows[-1]) + 1


def clean_points(points: np.ndarray, config: DeprojectionConfig) -> tuple[np.ndarray, bool]:
    """Outlier-free points and whether open3d handled them."""
    if config.outlier_method == "open3d" and len(points) >= config.open3d_min_points:
        keep = open3d_inliers(points, config.outlier_neighbors, config.outlier_std_ratio)
        used_open3d = True
    else:
        keep = numpy_inliers(points)
        used_open3d = False
    inliers = points[keep]
    return (inliers, used_open3d) if len(inliers) >= min(3, len(points)) else (points, used_open3d)


def deproject_instance(instance: Instance, rgb: np.ndarray, depth: np.ndarray, valid: np.ndarray,
                       intrinsics: Intrinsics, camera_pose: Pose3D, config: DeprojectionConfig) -> Detection:
    """One instance -> one Detection in the map frame; raises SkippedInstance when it cannot."""
    mask = np.asarray(instance.mask)
    if mask.shape != depth.shape:
        raise SkippedInstance("mask_size_mismatch")
    box = mask_box(mask)
    if box is None:
        raise SkippedInstance("empty_mask")
    x0, y0, x1, y1 = box
    crop = mask[y0:y1, x0:x1].astype(bool, copy=False)
    area = int(np.count_nonzero(crop))
    vs, us = np.nonzero(crop & valid[y0:y1, x0:x1])
    if len(vs) < config.min_points:
        raise SkippedInstance("too_few_depth_points")
    if len(vs) > config.max_points:
        step = int(np.ceil(len(vs) / config.max_points))
        vs, us = vs[::step], us[::step]
    z = depth[y0:y1, x0:x1][vs, us].astype(np.float64)
    points = to_map(deproject_pixels(us + x0, vs + y0, z, intrinsics), camera_pose)
    inliers, used_open3d = clean_points(points, config)
    lo, hi = fit_box(inliers, used_open3d, config.min_extent)
    centroid = inliers.mean(axis=0)
    return Detection(
        label=instance.label, score=float(instance.score), kind=instance.kind or "object",
        box_2d=(float(x0), float(y0), float(x1), float(y1)), mask_area=area,
        centroid=tuple(float(v) for v in centroid), box_min=tuple(float(v) for v in lo),
        box_max=tuple(float(v) for v in hi), attributes=color_attributes(rgb[y0:y1, x0:x1][crop]),
        instance_id=instance.instance_id, mask=mask.astype(bool, copy=False))


def deproject_instances(rgb: np.ndarray, depth: np.ndarray, intrinsics: Intrinsics, camera_pose: Pose3D,
                        instances: Sequence[Instance], config: DeprojectionConfig = DeprojectionConfig(),
                        skipped: Optional[Counter] = None) -> list[Detection]:
    """Every instance that has enough valid depth -> a Detection; the others are counted in
    ``skipped`` by reason (empty_mask, too_few_depth_points, mask_size_mismatch)."""
    valid = valid_depth(depth, config)
    detections = []
    for instance in instances:
        try:
            detections.append(deproject_instance(instance, rgb, depth, valid, intrinsics, camera_pose, config))
        except SkippedInstance as skip:
            if skipped is not None:
                skipped[skip.reason] += 1
    return detections
