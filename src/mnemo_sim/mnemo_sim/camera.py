"""Pinhole camera helpers and the frame conventions of every image the simulator renders.

Conventions (the perception side deprojects with exactly these):

- **Pixels**: ``u`` is the column (0 at the left), ``v`` the row (0 at the top); integer
  coordinates are pixel *centres* (the ROS / OpenCV convention), so for a W x H image the
  principal point of a centred camera is ``cx = (W - 1) / 2``, ``cy = (H - 1) / 2``.
- **Intrinsics**: square pixels, ``fy = (H / 2) / tan(fovy / 2)`` with ``fovy`` the vertical
  field of view, ``fx = fy``. ``K = [[fx, 0, cx], [0, fy, cy], [0, 0, 1]]``.
- **Optical frame** (ROS REP 103 ``*_optical_frame``): ``z`` forward along the optical axis,
  ``x`` right in the image, ``y`` down in the image. A point ``(X, Y, Z)`` in this frame
  projects to ``u = fx * X / Z + cx``, ``v = fy * Y / Z + cy``.
- **Depth**: ``depth[v, u]`` is the ``Z`` of the surface seen at that pixel in the optical
  frame (distance along the optical axis, metres, float32), *not* the ray length. Pixels that
  see no surface hold NaN. Deprojection: ``X = (u - cx) * Z / fx``, ``Y = (v - cy) * Z / fy``.
- **Camera pose**: a :class:`~mnemo_common.types.Pose3D` giving the optical frame in the map
  frame: ``position`` is the optical centre, ``orientation`` the quaternion ``(x, y, z, w)``
  that rotates optical-frame vectors into the map frame, so
  ``p_map = R(q) @ p_optical + position``.
- **MuJoCo**: a MuJoCo camera looks along its own ``-z`` with ``y`` up and ``x`` right, i.e.
  ``R_mujoco = R_optical @ diag(1, -1, -1)`` (a half turn about ``x``). The renderer converts.

Pure numpy; no ROS and no MuJoCo import.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from mnemo_common.types import Pose3D

# Optical frame <-> MuJoCo camera frame: a half turn about x (flips y and z).
OPTICAL_TO_MUJOCO = np.diag([1.0, -1.0, -1.0])


@dataclass(frozen=True)
class CameraIntrinsics:
    """Pinhole intrinsics of a W x H image (see the module docstring for conventions)."""

    width: int
    height: int
    fx: float
    fy: float
    cx: float
    cy: float

    @classmethod
    def from_fovy(cls, width: int, height: int, fovy_deg: float) -> "CameraIntrinsics":
        if width <= 0 or height <= 0:
            raise ValueError(f"image size must be positive, got {width}x{height}")
        if not 0.0 < fovy_deg < 180.0:
            raise ValueError(f"fovy must be in (0, 180) degrees, got {fovy_deg}")
        f = (height / 2.0) / math.tan(math.radians(fovy_deg) / 2.0)
        return cls(width, height, f, f, (width - 1) / 2.0, (height - 1) / 2.0)

    @property
    def K(self) -> np.ndarray:  # noqa: N802 - the usual name of the matrix
        return np.array([[self.fx, 0.0, self.cx], [0.0, self.fy, self.cy], [0.0, 0.0, 1.0]])

    @property
    def fovy_deg(self) -> float:
        return math.degrees(2.0 * math.atan((self.height / 2.0) / self.fy))

    @property
    def fovx_deg(self) -> float:
        return math.degrees(2.0 * math.atan((self.width / 2.0) / self.fx))

    def project(self, points_optical: np.ndarray) -> np.ndarray:
        """(N, 3) optical-frame points -> (N, 2) pixel (u, v); points behind the camera give NaN."""
        p = np.atleast_2d(np.asarray(points_optical, dtype=float))
        z = p[:, 2]
        with np.errstate(divide="ignore", invalid="ignore"):
            u = np.where(z > 0, self.fx * p[:, 0] / z + self.cx, np.nan)
            v = np.where(z > 0, self.fy * p[:, 1] / z + self.cy, np.nan)
        return np.stack([u, v], axis=1)

    def deproject(self, depth: np.ndarray) -> np.ndarray:
        """H x W depth image -> H x W x 3 optical-frame points (NaN where depth is NaN)."""
        h, w = depth.shape
        u = np.arange(w, dtype=np.float32)[None, :]
        v = np.arange(h, dtype=np.float32)[:, None]
        z = depth.astype(np.float32)
        return np.stack([(u - self.cx) * z / self.fx, (v - self.cy) * z / self.fy, z], axis=-1)


# -- rotations -----------------------------------------------------------------------
def quat_to_matrix(q: tuple[float, float, float, float]) -> np.ndarray:
    """Quaternion (x, y, z, w) -> 3x3 rotation matrix (normalising it first)."""
    x, y, z, w = (float(v) for v in q)
    n = math.sqrt(x * x + y * y + z * z + w * w)
    if n == 0.0 or not math.isfinite(n):
        raise ValueError(f"invalid quaternion {q}")
    x, y, z, w = x / n, y / n, z / n, w / n
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
        [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
        [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
    ])


def matrix_to_quat(r: np.ndarray) -> tuple[float, float, float, float]:
    """3x3 rotation matrix -> quaternion (x, y, z, w) with w >= 0."""
    m = np.asarray(r, dtype=float)
    t = m[0, 0] + m[1, 1] + m[2, 2]
    if t > 0:
        s = math.sqrt(t + 1.0) * 2
        w, x, y, z = 0.25 * s, (m[2, 1] - m[1, 2]) / s, (m[0, 2] - m[2, 0]) / s, (m[1, 0] - m[0, 1]) / s
    elif m[0, 0] > m[1, 1] and m[0, 0] > m[2, 2]:
        s = math.sqrt(1.0 + m[0, 0] - m[1, 1] - m[2, 2]) * 2
        w, x, y, z = (m[2, 1] - m[1, 2]) / s, 0.25 * s, (m[0, 1] + m[1, 0]) / s, (m[0, 2] + m[2, 0]) / s
    elif m[1, 1] > m[2, 2]:
        s = math.sqrt(1.0 + m[1, 1] - m[0, 0] - m[2, 2]) * 2
        w, x, y, z = (m[0, 2] - m[2, 0]) / s, (m[0, 1] + m[1, 0]) / s, 0.25 * s, (m[1, 2] + m[2, 1]) / s
    else:
        s = math.sqrt(1.0 + m[2, 2] - m[0, 0] - m[1, 1]) * 2
        w, x, y, z = (m[1, 0] - m[0, 1]) / s, (m[0, 2] + m[2, 0]) / s, (m[1, 2] + m[2, 1]) / s, 0.25 * s
    q = np.array([x, y, z, w])
    q /= np.linalg.norm(q)
    if q[3] < 0:
        q = -q
    return tuple(float(v) for v in q)  # type: ignore[return-value]


def optical_pose_from_look(position: tuple[float, float, float], yaw: float, pitch: float = 0.0) -> Pose3D:
    """Optical-frame pose of a camera at ``position`` heading ``yaw`` (rad, map frame, about z)
    and tilted down by ``pitch`` (rad, positive looks down), with no roll."""
    cy, sy, cp, sp = math.cos(yaw), math.sin(yaw), math.cos(pitch), math.sin(pitch)
    forward = np.array([cy * cp, sy * cp, -sp])
    right = np.array([sy, -cy, 0.0])
    down = np.cross(forward, right)
    rot = np.stack([right, down, forward], axis=1)  # columns: optical x, y, z in map
    return Pose3D(tuple(float(v) for v in position), matrix_to_quat(rot))  # type: ignore[arg-type]


def pose_matrix(pose: Pose3D) -> np.ndarray:
    """4x4 transform optical -> map."""
    t = np.eye(4)
    t[:3, :3] = quat_to_matrix(pose.orientation)
    t[:3, 3] = pose.position
    return t


def map_to_optical(pose: Pose3D, points_map: np.ndarray) -> np.ndarray:
    """(N, 3) map points -> (N, 3) points in the optical frame of a camera at ``pose``."""
    r = quat_to_matrix(pose.orientation)
    p = np.atleast_2d(np.asarray(points_map, dtype=float)) - np.asarray(pose.position, dtype=float)
    return p @ r  # == (R^T p^T)^T


def optical_to_map(pose: Pose3D, points_optical: np.ndarray) -> np.ndarray:
    """(N, 3) optical-frame points -> (N, 3) map points."""
    r = quat_to_matrix(pose.orientation)
    return np.atleast_2d(np.asarray(points_optical, dtype=float)) @ r.T + np.asarray(pose.position, dtype=float)


def project_map_points(pose: Pose3D, intrinsics: CameraIntrinsics, points_map: np.ndarray) -> np.ndarray:
    """(N, 3) map points -> (N, 3) rows (u, v, depth) as the renderer would see them."""
    p = map_to_optical(pose, points_map)
    uv = intrinsics.project(p)
    return np.concatenate([uv, p[:, 2:3]], axis=1)


def mujoco_camera_quat(pose: Pose3D) -> tuple[float, float, float, float]:
    """MuJoCo quaternion (w, x, y, z) of a MuJoCo camera whose optical frame is ``pose``."""
    x, y, z, w = matrix_to_quat(quat_to_matrix(pose.orientation) @ OPTICAL_TO_MUJOCO)
    return (w, x, y, z)
