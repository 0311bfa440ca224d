"""Yaw <-> quaternion and planar <-> 3D poses (no rclpy)."""
import math

import pytest

from mnemo_common.geometry import pose2d_from_pose3d, pose3d_from_pose2d, quaternion_from_yaw, yaw_from_quaternion
from mnemo_common.types import Pose2D, Pose3D


@pytest.mark.parametrize("yaw", [0.0, 0.7, -2.5, math.pi - 1e-6, -math.pi + 1e-6])
def test_yaw_quaternion_roundtrip(yaw):
    q = quaternion_from_yaw(yaw)
    assert sum(v * v for v in q) == pytest.approx(1.0)
    assert yaw_from_quaternion(q) == pytest.approx(yaw)


def test_yaw_of_a_tilted_camera_is_its_heading():
    # pitched down 0.3 rad about y, then turned 0.8 rad about z: the heading stays 0.8
    cy, sy, cp, sp = math.cos(0.4), math.sin(0.4), math.cos(0.15), math.sin(0.15)
    q = (-sy * sp, cy * sp, sy * cp, cy * cp)
    assert yaw_from_quaternion(q) == pytest.approx(0.8)


def test_planar_and_3d_poses_roundtrip():
    p = Pose2D(3.0, -1.0, 2.5)
    p3 = pose3d_from_pose2d(p, z=0.4)
    assert p3.position == (3.0, -1.0, 0.4) and p3.orientation[:2] == (0.0, 0.0)
    back = pose2d_from_pose3d(p3)
    assert (back.x, back.y, back.yaw) == pytest.approx((p.x, p.y, p.yaw))
    back = pose2d_from_pose3d(Pose3D((1.0, 2.0, 0.0), (0.0, 0.0, math.sin(0.4), math.cos(0.4))))
    assert (back.x, back.y, back.yaw) == pytest.approx((1.0, 2.0, 0.8))
