"""Round trips of the simulator's messages: images, camera info, segmentation, poses, clock."""
import math

import numpy as np
import pytest

from mnemo_common.types import Pose2D, Pose3D
from mnemo_sim.camera import CameraIntrinsics
from mnemo_sim.conversions import (
    camera_info_from_msg, camera_info_to_msg, clock_to_msg, image_from_msg, image_to_msg,
    pose2d_from_pose3d, pose_stamped_from_msg, pose_stamped_to_msg,
    robot_pose3d, segmentation_from_msg, segmentation_to_msg,
)


def test_images_round_trip():
    rng = np.random.default_rng(1)
    rgb = rng.integers(0, 255, (6, 8, 3), dtype=np.uint8)
    depth = rng.random((6, 8), dtype=np.float32)
    depth[0, 0] = np.nan
    seg = rng.integers(-1, 5, (6, 8)).astype(np.int32)
    msg = image_to_msg(rgb, "rgb8", 12.5, "cam")
    assert (msg.width, msg.height, msg.step, msg.encoding) == (8, 6, 24, "rgb8")
    assert msg.header.stamp.sec == 12 and msg.header.stamp.nanosec == 500_000_000 and msg.header.frame_id == "cam"
    assert np.array_equal(image_from_msg(msg), rgb)
    assert np.array_equal(image_from_msg(image_to_msg(depth, "32FC1", 0.0, "cam")), depth, equal_nan=True)
    assert np.array_equal(image_from_msg(image_to_msg(seg, "32SC1", 0.0, "cam")), seg)
    with pytest.raises(ValueError):
        image_to_msg(depth, "rgb8", 0.0, "cam")


def test_camera_info_round_trip():
    k = CameraIntrinsics.from_fovy(640, 480, 45.0)
    msg = camera_info_to_msg(k, 3.0, "cam")
    assert msg.p[0] == k.fx and msg.p[10] == 1.0 and list(msg.d) == [0.0] * 5
    assert camera_info_from_msg(msg) == k


def test_segmentation_round_trip_lists_only_present_instances():
    seg = np.array([[-1, 0, 0], [2, 2, -1]], np.int32)
    ids, labels, kinds = {0: "mug_1", 1: "book_1", 2: "table_1"}, {0: "mug", 1: "book", 2: "table"}, \
        {0: "object", 1: "object", 2: "fixture"}
    msg = segmentation_to_msg(seg, ids, labels, kinds, 1.0, "cam")
    assert list(msg.values) == [0, 2] and list(msg.instance_ids) == ["mug_1", "table_1"]
    back, ids2, labels2, kinds2 = segmentation_from_msg(msg)
    assert np.array_equal(back, seg)
    assert ids2 == {0: "mug_1", 2: "table_1"} and labels2[2] == "table" and kinds2[2] == "fixture"
    msg.labels = ["mug"]
    with pytest.raises(ValueError):
        segmentation_from_msg(msg)


def test_poses_and_clock():
    pose = Pose3D((1.0, 2.0, 1.2), (0.0, 0.0, math.sin(0.4), math.cos(0.4)))
    back, stamp = pose_stamped_from_msg(pose_stamped_to_msg(pose, 86400.25, "map"))
    assert back == pose and stamp == pytest.approx(86400.25)
    p2 = Pose2D(3.0, -1.0, 2.5)
    assert pose2d_from_pose3d(robot_pose3d(p2)) == pytest.approx(p2)
    assert clock_to_msg(90061.5).clock.sec == 90061
