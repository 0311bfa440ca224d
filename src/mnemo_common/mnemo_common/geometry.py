"""Planar headings and quaternions (x, y, z, w): the one place the yaw formulas live.
Pure Python, no rclpy, so cores may use it too.
"""
from __future__ import annotations

import math
from typing import Sequence

from mnemo_common.types import Pose2D, Pose3D


def yaw_from_quaternion(q: Sequence[float]) -> float:
    """Heading (rotation about z) of a quaternion (x, y, z, w)."""
    x, y, z, w = q
    return math.atan2(2.0 * (w * z + x * y), 1.0 - 2.0 * (y * y + z * z))


def quaternion_from_yaw(yaw: float) -> tuple[float, float, float, float]:
    """Rotation by yaw about z as a quaternion (x, y, z, w)."""
    return (0.0, 0.0, math.sin(yaw / 2.0), math.cos(yaw / 2.0))


def pose2d_from_pose3d(pose: Pose3D) -> Pose2D:
    """Position in the plane and heading about z (roll and pitch dropped)."""
    return Pose2D(pose.position[0], pose.position[1], yaw_from_quaternion(pose.orientation))


def pose3d_from_pose2d(pose: Pose2D, z: float = 0.0) -> Pose3D:
    """A planar pose as a 3D pose at height z, rotated about z."""
    return Pose3D((pose.x, pose.y, z), quaternion_from_yaw(pose.yaw))
