"""Synthetic RGB-D frames of known geometry, ray-cast exactly: coloured axis-aligned boxes on a
floor, seen by a pinhole camera. Tests and the benchmark use them where no renderer is at hand.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from mnemo_common.types import Pose3D
from mnemo_perception.frame import Frame, Intrinsics, Segmentation


@dataclass(frozen=True)
class Box:
    label: str
    lo: tuple[float, float, float]
    hi: tuple[float, float, float]
    color: tuple[int, int, int]
    kind: str = "object"
    instance_id: str = ""


# A small room corner: three objects and a fixture (tests and examples).
EXAMPLE_SCENE = [
    Box("mug", (2.0, -0.3, 0.0), (2.1, -0.2, 0.12), (200, 30, 30), instance_id="mug_1"),
    Box("book", (2.5, 0.2, 0.0), (2.8, 0.45, 0.05), (30, 60, 200), instance_id="book_1"),
    Box("cabinet", (3.5, -1.0, 0.0), (4.0, 0.0, 0.9), (120, 70, 30), kind="fixture", instance_id="cabinet_1"),
    Box("apple", (1.8, 0.5, 0.0), (1.88, 0.58, 0.08), (40, 170, 40), instance_id="apple_1"),
]


def matrix_quaternion(r: np.ndarray) -> tuple[float, float, float, float]:
    """Rotation matrix -> quaternion (x, y, z, w)."""
    m = np.asarray(r, dtype=np.float64)
    t = np.trace(m)
    if t > 0:
        s = 2.0 * np.sqrt(t + 1.0)
        w, x, y, z = 0.25 * s, (m[2, 1] - m[1, 2]) / s, (m[0, 2] - m[2, 0]) / s, (m[1, 0] - m[0, 1]) / s
    else:
        i = int(np.argmax(np.diag(m)))
        j, k = (i + 1) % 3, (i + 2) % 3
        s = 2.0 * np.sqrt(1.0 + m[i, i] - m[j, j] - m[k, k])
        q = np.zeros(3)
        q[i] = 0.25 * s
        q[j] = (m[j, i] + m[i, j]) / s
        q[k] = (m[k, i] + m[i, k]) / s
        w = (m[k, j] - m[j, k]) / s
        x, y, z = q
    return float(x), float(y), float(z), float(w)


def look_at(eye: Sequence[float], target: Sequence[float]) -> Pose3D:
    """Optical-frame pose (z forward, x right, y down) at ``eye`` looking at ``target``, map z up."""
    eye, target = np.asarray(eye, float), np.asarray(target, float)
    z = target - eye
    z /= np.linalg.norm(z)
    x = np.cross(z, [0.0, 0.0, 1.0])
    x = x / np.linalg.norm(x) if np.linalg.norm(x) > 1e-9 else np.array([0.0, -1.0, 0.0])
    y = np.cross(z, x)
    return Pose3D(tuple(float(v) for v in eye), matrix_quaternion(np.stack([x, y, z], axis=1)))


def default_intrinsics(width: int = 640, height: int = 480, fov_x_deg: float = 69.0) -> Intrinsics:
    f = (width / 2.0) / np.tan(np.radians(fov_x_deg) / 2.0)
    return Intrinsics(fx=f, fy=f, cx=(width - 1) / 2.0, cy=(height - 1) / 2.0, width=width, height=height)


def render(boxes: Sequence[Box], camera_pose: Pose3D, intrinsics: Intrinsics, stamp: float = 0.0,
           floor_color: tuple[int, int, int] = (120, 120, 120)) -> Frame:
    """Ray-cast the boxes and a floor at z=0: a Frame with colour, depth (optical z, metres),
    and a ground-truth Segmentation whose value i is boxes[i] (-1 for the floor and sky)."""
    from mnemo_perception.deproject import quaternion_matrix

    h, w = intrinsics.height, intrinsics.width
    vs, us = np.mgrid[0:h, 0:w].astype(np.float64)
    rays_cam = np.stack([(us - intrinsics.cx) / intrinsics.fx, (vs - intrinsics.cy) / intrinsics.fy,
                         np.ones_like(us)], axis=-1).reshape(-1, 3)  # optical z = 1 per ray
    rot = quaternion_matrix(camera_pose.orientation)
    origin = np.asarray(camera_pose.position, dtype=np.float64)
    dirs = rays_cam @ rot.T
    best = np.full(len(dirs), np.inf)  # ray parameter t equals the optical depth since ray z = 1
    seg = np.full(len(dirs), -1, dtype=np.int32)
    colors = np.tile(np.array([30, 30, 40], dtype=np.uint8), (len(dirs), 1))
    with np.errstate(divide="ignore", invalid="ignore"):
        t_floor = -origin[2] / dirs[:, 2]
        hit = (t_floor > 0) & np.isfinite(t_floor)
        best[hit] = t_floor[hit]
        colors[hit] = floor_color
        inv = 1.0 / dirs
        for i, b in enumerate(boxes):
            t1 = (np.asarray(b.lo) - origin) * inv
            t2 = (np.asarray(b.hi) - origin) * inv
            t_near = np.nanmax(np.minimum(t1, t2), axis=1)
            t_far = np.nanmin(np.maximum(t1, t2), axis=1)
            hit = (t_far >= t_near) & (t_near > 0) & (t_near < best)
            best[hit] = t_near[hit]
            seg[hit] = i
            colors[hit] = b.color
    depth = np.where(np.isfinite(best), best, np.nan).astype(np.float32).reshape(h, w)
    segmentation = Segmentation(mask=seg.reshape(h, w), values=list(range(len(boxes))),
                                instance_ids=[b.instance_id or f"{b.label}_{i}" for i, b in enumerate(boxes)],
                                labels=[b.label for b in boxes], kinds=[b.kind for b in boxes])
    return Frame(stamp=stamp, rgb=colors.reshape(h, w, 3), depth=depth, intrinsics=intrinsics,
                 camera_pose=camera_pose, segmentation=segmentation)


def visible_centroid(frame: Frame, value: int) -> np.ndarray:
    """Exact mean of the map points the camera sees on one segmentation value (test oracle)."""
    from mnemo_perception.deproject import deproject_pixels, to_map

    vs, us = np.nonzero(frame.segmentation.mask == value)
    pts = deproject_pixels(us.astype(float), vs.astype(float), frame.depth[vs, us].astype(float), frame.intrinsics)
    return to_map(pts, frame.camera_pose).mean(axis=0)


def random_scene(n: int, seed: int = 0) -> list[Box]:
    """n boxes of 8-40 cm scattered 1.5-4.5 m in front of a camera at the origin looking along +x."""
    rng = np.random.default_rng(seed)
    palette = [(200, 30, 30), (30, 160, 40), (30, 60, 200), (230, 210, 40), (240, 240, 240), (120, 70, 30)]
    boxes = []
    for i in range(n):
        size = rng.uniform(0.08, 0.4, size=3)
        cx, cy = rng.uniform(1.5, 4.5), rng.uniform(-1.5, 1.5)
        lo = (cx - size[0] / 2, cy - size[1] / 2, 0.0)
        boxes.append(Box(f"thing{i % 5}", lo, (lo[0] + size[0], lo[1] + size[1], size[2]),
                         palette[i % len(palette)], instance_id=f"obj_{i}"))
    return boxes
