"""The recording's transform buffer: static and interpolated dynamic transforms composed along the
parent chain map -> odom -> base_link -> camera, and clear errors for what it cannot answer."""
import math

import numpy as np
import pytest

from mnemo_common.geometry import quaternion_from_yaw, yaw_from_quaternion
from mnemo_common.types import Pose3D
from mnemo_perception.tf_chain import TransformBuffer, TransformError, compose, invert, rotate

# the optical frame (z forward, x right, y down) of a camera looking along the base's +x
OPTICAL = (-0.5, 0.5, -0.5, 0.5)


def _planar(x, y, yaw):
    return Pose3D((x, y, 0.0), quaternion_from_yaw(yaw))


@pytest.fixture
def buffer():
    b = TransformBuffer()
    b.add("map", "odom", 0.0, _planar(1.0, 0.0, 0.0), static=True)
    b.add("base_link", "camera", 0.0, Pose3D((0.2, 0.0, 1.0), OPTICAL), static=True)
    b.add("odom", "base_link", 10.0, _planar(0.0, 0.0, 0.0))
    b.add("odom", "base_link", 12.0, _planar(2.0, 0.0, math.pi / 2))
    return b


def test_compose_and_invert_are_inverse():
    a = Pose3D((1.0, 2.0, 0.5), tuple(np.array([0.1, -0.3, 0.4, 0.85]) / np.linalg.norm([0.1, -0.3, 0.4, 0.85])))
    identity = compose(a, invert(a))
    assert np.allclose(identity.position, 0.0, atol=1e-9)
    assert np.isclose(abs(identity.orientation[3]), 1.0)
    assert np.allclose(rotate(np.array(OPTICAL), np.array([0.0, 0.0, 1.0])), [1.0, 0.0, 0.0])  # optical z = forward


def test_camera_in_map_through_static_and_dynamic_links(buffer):
    at_start = buffer.lookup("map", "camera", 10.0)
    assert np.allclose(at_start.position, (1.2, 0.0, 1.0))
    # the optical axis looks along the map's +x while the base faces +x
    assert np.allclose(rotate(np.array(at_start.orientation), np.array([0.0, 0.0, 1.0])), [1.0, 0.0, 0.0])
    at_end = buffer.lookup("map", "camera", 12.0)
    assert np.allclose(at_end.position, (3.0, 0.2, 1.0))
    assert np.allclose(rotate(np.array(at_end.orientation), np.array([0.0, 0.0, 1.0])), [0.0, 1.0, 0.0])


def test_dynamic_links_are_interpolated_in_time(buffer):
    base = buffer.lookup("map", "base_link", 11.0)
    assert np.allclose(base.position, (2.0, 0.0, 0.0))
    assert math.isclose(yaw_from_quaternion(base.orientation), math.pi / 4)
    # and the inverse direction answers the same transform inverted
    back = buffer.lookup("base_link", "map", 11.0)
    assert np.allclose(compose(base, back).position, 0.0, atol=1e-9)


def test_latest_static_transform_wins(buffer):
    buffer.add("map", "odom", 5.0, _planar(-1.0, 0.0, 0.0), static=True)
    assert np.allclose(buffer.lookup("map", "base_link", 10.0).position, (-1.0, 0.0, 0.0))


def test_times_outside_the_data_and_missing_links_are_errors(buffer):
    with pytest.raises(TransformError, match="not at 20.000"):
        buffer.lookup("map", "camera", 20.0)
    buffer.tolerance = 0.5
    assert np.allclose(buffer.lookup("map", "base_link", 12.3).position, (3.0, 0.0, 0.0))
    with pytest.raises(TransformError, match="'gripper'"):
        buffer.lookup("map", "gripper", 11.0)
    buffer.add("world", "other_odom", 11.0, Pose3D())
    with pytest.raises(TransformError, match="ends at 'world'"):
        buffer.lookup("map", "other_odom", 11.0)
