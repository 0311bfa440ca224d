"""A small transform buffer for recordings, without tf2_ros: the latest static transform of each
frame plus its dynamic transforms, interpolated in time, composed along the parent chain.

    buffer = TransformBuffer()
    buffer.add("map", "odom", stamp, Pose3D(...), static=True)
    buffer.add("odom", "base_link", stamp, Pose3D(...))
    pose = buffer.lookup("map", "camera_optical_frame", stamp)   # the camera's pose in the map

A transform parent -> child is the child frame's pose in the parent frame (as in TransformStamped).
Pure numpy: no rclpy.
"""
from __future__ import annotations

import bisect
from dataclasses import dataclass, field

import numpy as np

from mnemo_common.types import Pose3D


class TransformError(LookupError):
    """No transform between two frames at a time: a missing link, or a time outside a link's data."""


def quaternion_multiply(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Hamilton product of quaternions (x, y, z, w): the rotation b, then a."""
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return np.array([aw * bx + ax * bw + ay * bz - az * by,
                     aw * by - ax * bz + ay * bw + az * bx,
                     aw * bz + ax * by - ay * bx + az * bw,
                     aw * bw - ax * bx - ay * by - az * bz])


def rotate(q: np.ndarray, v: np.ndarray) -> np.ndarray:
    """The vector v rotated by the unit quaternion q (x, y, z, w)."""
    u, w = q[:3], q[3]
    t = 2.0 * np.cross(u, v)
    return v + w * t + np.cross(u, t)


def compose(a: Pose3D, b: Pose3D) -> Pose3D:
    """a * b: b (a pose in a's child frame) expressed in a's parent frame."""
    qa, qb = np.asarray(a.orientation, float), np.asarray(b.orientation, float)
    position = np.asarray(a.position, float) + rotate(qa, np.asarray(b.position, float))
    q = quaternion_multiply(qa, qb)
    return Pose3D(tuple(float(v) for v in position), tuple(float(v) for v in q / np.linalg.norm(q)))


def invert(a: Pose3D) -> Pose3D:
    """The inverse transform: the parent frame's pose in the child frame."""
    x, y, z, w = a.orientation
    q = np.array([-x, -y, -z, w], float)
    position = -rotate(q, np.asarray(a.position, float))
    return Pose3D(tuple(float(v) for v in position), tuple(float(v) for v in q))


def interpolate(a: Pose3D, b: Pose3D, t: float) -> Pose3D:
    """Linear in position, spherical-linear in orientation; t in [0, 1] from a to b."""
    position = (1.0 - t) * np.asarray(a.position, float) + t * np.asarray(b.position, float)
    qa, qb = np.asarray(a.orientation, float), np.asarray(b.orientation, float)
    dot = float(np.dot(qa, qb))
    if dot < 0.0:  # the shorter way round
        qb, dot = -qb, -dot
    if dot > 0.9995:  # nearly equal: linear, then normalised
        q = qa + t * (qb - qa)
    else:
        theta = np.arccos(dot)
        q = (np.sin((1.0 - t) * theta) * qa + np.sin(t * theta) * qb) / np.sin(theta)
    q = q / np.linalg.norm(q)
    return Pose3D(tuple(float(v) for v in position), tuple(float(v) for v in q))


@dataclass
class _Link:
    """A frame's transforms from its parent: the latest static one, or dynamic ones by stamp."""

    parent: str
    static: Pose3D | None = None
    stamps: list[float] = field(default_factory=list)
    poses: list[Pose3D] = field(default_factory=list)

    def at(self, child: str, stamp: float, tolerance: float) -> Pose3D:
        if self.static is not None:
            return self.static
        i = bisect.bisect_left(self.stamps, stamp)
        if i < len(self.stamps) and self.stamps[i] == stamp:
            return self.poses[i]
        if 0 < i < len(self.stamps):
            t0, t1 = self.stamps[i - 1], self.stamps[i]
            return interpolate(self.poses[i - 1], self.poses[i], (stamp - t0) / (t1 - t0))
        nearest = 0 if i == 0 else len(self.stamps) - 1
        if abs(self.stamps[nearest] - stamp) <= tolerance:
            return self.poses[nearest]
        raise TransformError(f"{self.parent} -> {child} is known from {self.stamps[0]:.3f} to "
                             f"{self.stamps[-1]:.3f} s, not at {stamp:.3f} s")


class TransformBuffer:
    """Transforms of a tree of frames over a whole recording. ``tolerance``: seconds a lookup may
    lie before the first or after the last dynamic transform of a link and take that one."""

    def __init__(self, tolerance: float = 0.0):
        self.tolerance = tolerance
        self._links: dict[str, _Link] = {}

    def __len__(self) -> int:
        return len(self._links)

    def add(self, parent: str, child: str, stamp: float, transform: Pose3D, static: bool = False) -> None:
        """The child frame's pose in the parent frame at ``stamp``; a static transform holds at all times
        (the latest one of a frame wins). A frame has one parent: a new parent replaces the old link."""
        link = self._links.get(child)
        if link is None or link.parent != parent:
            link = self._links[child] = _Link(parent)
        if static:
            link.static = transform
            return
        i = bisect.bisect_right(link.stamps, stamp)
        if i and link.stamps[i - 1] == stamp:
            link.poses[i - 1] = transform
        else:
            link.stamps.insert(i, stamp)
            link.poses.insert(i, transform)

    def _chain(self, frame: str) -> list[str]:
        """frame, its parent, ... up to the root of its tree."""
        chain = [frame]
        while chain[-1] in self._links:
            parent = self._links[chain[-1]].parent
            if parent in chain:
                raise TransformError(f"frames {' -> '.join(chain + [parent])} form a loop")
            chain.append(parent)
        return chain

    def _to_ancestor(self, chain: list[str], ancestor: str, stamp: float) -> Pose3D:
        """The pose of chain[0] in ``ancestor`` (a frame of the chain) at ``stamp``."""
        pose = Pose3D()
        for child in chain[:chain.index(ancestor)]:
            pose = compose(self._links[child].at(child, stamp, self.tolerance), pose)
        return pose

    def lookup(self, target: str, source: str, stamp: float) -> Pose3D:
        """The pose of frame ``source`` in frame ``target`` at ``stamp``; TransformError when the two
        frames are not connected or a link has no data near ``stamp``."""
        source_chain, target_chain = self._chain(source), self._chain(target)
        common = next((f for f in source_chain if f in target_chain), None)
        if common is None:
            raise TransformError(f"no transform from {target!r} to {source!r}: {source!r} ends at "
                                 f"{source_chain[-1]!r}, {target!r} at {target_chain[-1]!r}")
        return compose(invert(self._to_ancestor(target_chain, common, stamp)),
                       self._to_ancestor(source_chain, common, stamp))
