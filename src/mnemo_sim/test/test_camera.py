"""Pinhole conventions the perception side relies on (pure numpy, no rendering)."""
import math

import numpy as np
import pytest

from mnemo_common.types import Pose3D
from mnemo_sim.camera import (
    CameraIntrinsics, map_to_optical, matrix_to_quat, mujoco_camera_quat, optical_pose_from_look,
    optical_to_map, project_map_points, quat_to_matrix,
)


def test_intrinsics_from_fovy():
    k = CameraIntrinsics.from_fovy(640, 480, 58.0)
    assert k.fx == pytest.approx(240 / math.tan(math.radians(29)))
    assert k.fx == k.fy and (k.cx, k.cy) == (319.5, 239.5)
    assert k.fovy_deg == pytest.approx(58.0)
    assert k.K[0, 2] == k.cx and k.K[2, 2] == 1.0
    with pytest.raises(ValueError):
        CameraIntrinsics.from_fovy(640, 480, 0.0)


def test_project_deproject_round_trip():
    k = CameraIntrinsics.from_fovy(64, 48, 60.0)
    depth = np.full((48, 64), 2.0, np.float32)
    points = k.deproject(depth).reshape(-1, 3)
    uv = k.project(points)
    u, v = np.meshgrid(np.arange(64), np.arange(48))
    assert np.allclose(uv[:, 0], u.ravel(), atol=1e-4) and np.allclose(uv[:, 1], v.ravel(), atol=1e-4)
    assert np.isnan(k.project(np.array([[0.0, 0.0, -1.0]]))).all()


def test_quaternion_round_trip():
    rng = np.random.default_rng(0)
    for q in rng.normal(size=(20, 4)):
        q = q / np.linalg.norm(q)
        r = quat_to_matrix(tuple(q))
        assert np.allclose(r @ r.T, np.eye(3), atol=1e-9)
        assert np.allclose(quat_to_matrix(matrix_to_quat(r)), r, atol=1e-9)


def test_look_pose_is_ros_optical_frame():
    # Facing +y, tilted down 30 degrees: optical z points along +y and down, x to the map's -x
    # (right of the heading), y (image down) has a negative map z component.
    pose = optical_pose_from_look((1.0, 2.0, 1.5), math.pi / 2, math.radians(30))
    r = quat_to_matrix(pose.orientation)
    assert np.allclose(r[:, 2], [0.0, math.cos(math.radians(30)), -0.5], atol=1e-9)
    assert np.allclose(r[:, 0], [1.0, 0.0, 0.0], atol=1e-9)
    assert r[2, 1] < 0
    # A point straight ahead projects to the principal point at its distance.
    k = CameraIntrinsics.from_fovy(640, 480, 58.0)
    ahead = np.array(pose.position) + 3.0 * r[:, 2]
    u, v, z = project_map_points(pose, k, ahead[None])[0]
    assert (u, v, z) == pytest.approx((k.cx, k.cy, 3.0))
    # A point below the axis appears lower in the image (larger v); one to the right, larger u.
    assert project_map_points(pose, k, (ahead + [0, 0, -0.3])[None])[0][1] > k.cy
    assert project_map_points(pose, k, (ahead + [0.3, 0, 0])[None])[0][0] > k.cx
    pts = np.array([[1.0, 4.0, 0.2], [3.0, 1.0, 2.0]])
    assert np.allclose(optical_to_map(pose, map_to_optical(pose, pts)), pts)


def test_mujoco_camera_looks_along_minus_z():
    pose = optical_pose_from_look((0.0, 0.0, 1.0), 0.3, 0.2)
    w, x, y, z = mujoco_camera_quat(pose)
    r_mj = quat_to_matrix((x, y, z, w))
    r_opt = quat_to_matrix(pose.orientation)
    assert np.allclose(-r_mj[:, 2], r_opt[:, 2]) and np.allclose(r_mj[:, 1], -r_opt[:, 1])
    assert np.allclose(r_mj[:, 0], r_opt[:, 0])
    with pytest.raises(ValueError):
        quat_to_matrix((0.0, 0.0, 0.0, 0.0))
    assert Pose3D().is_finite()
