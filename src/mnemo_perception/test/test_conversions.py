"""Round trips of every conversion the node uses."""
import numpy as np
import pytest

from mnemo_common.ros import (
    camera_info_from_msg, camera_info_to_msg, image_to_msg, pose_stamped_from_msg, pose_stamped_to_msg,
    robot_pose_from_msg,
)
from mnemo_common.types import Detection, Pose2D, Pose3D
from mnemo_perception.conversions import (
    camera_heading, color_from_msg, frame_detections_from_msg, frame_detections_to_msg,
    segmentation_from_msg, segmentation_to_msg,
)
from mnemo_perception.frame import FrameDetections, Intrinsics, Segmentation
from mnemo_perception.synthetic import look_at


def test_color_conventions():
    rgb = np.zeros((2, 3, 3), np.uint8)
    rgb[..., 0] = 200
    np.testing.assert_array_equal(color_from_msg(image_to_msg(rgb[..., ::-1], "bgr8")), rgb)
    np.testing.assert_array_equal(color_from_msg(image_to_msg(rgb, "rgb8")), rgb)
    with pytest.raises(ValueError):
        color_from_msg(image_to_msg(rgb[..., 0], "mono8"))


def test_camera_info_roundtrip():
    intr = Intrinsics(500.0, 505.0, 319.5, 239.5, 640, 480)
    assert camera_info_from_msg(camera_info_to_msg(intr, 3.0, "cam"), Intrinsics) == intr


def test_segmentation_roundtrip():
    seg = Segmentation(np.array([[-1, 0], [1, 1]], np.int32), [0, 1], ["a_1", "b_2"], ["a", "b"], ["object", "fixture"])
    back = segmentation_from_msg(segmentation_to_msg(seg, 4.0))
    np.testing.assert_array_equal(back.mask, seg.mask)
    assert (back.values, back.instance_ids, back.labels, back.kinds) == (seg.values, seg.instance_ids, seg.labels,
                                                                          seg.kinds)
    msg = segmentation_to_msg(seg)
    msg.labels = ["a"]
    with pytest.raises(ValueError, match="differ in length"):
        segmentation_from_msg(msg)


def test_detection_array_roundtrip():
    d = Detection(label="mug", score=0.9, kind="object", box_2d=(1.0, 2.0, 30.0, 40.0), mask_area=321,
                  centroid=(1.0, 2.0, 0.5), box_min=(0.9, 1.9, 0.4), box_max=(1.1, 2.1, 0.6),
                  attributes={"color": "red"}, instance_id="mug_1", node_id="mug_3")
    fd = FrameDetections(stamp=12.25, camera_pose=Pose3D((1.0, 2.0, 1.2), (0.0, 0.0, 0.0, 1.0)),
                         robot_pose=Pose2D(1.0, 2.0, 0.5), room="kitchen", detections=[d], image_ref="kf_9")
    back = frame_detections_from_msg(frame_detections_to_msg(fd))
    assert back.stamp == pytest.approx(12.25) and back.room == "kitchen" and back.image_ref == "kf_9"
    assert back.camera_pose == fd.camera_pose and back.robot_pose == pytest.approx(fd.robot_pose)
    b = back.detections[0]
    assert (b.label, b.kind, b.mask_area, b.attributes, b.instance_id, b.node_id) == (
        "mug", "object", 321, {"color": "red"}, "mug_1", "mug_3")
    assert b.score == pytest.approx(0.9) and b.centroid == d.centroid and b.box_2d == d.box_2d


def test_pose_conversions():
    pose = look_at((1.0, 2.0, 1.0), (4.0, 5.0, 1.0))
    stamp, back = pose_stamped_from_msg(pose_stamped_to_msg(pose, 7.5))
    assert stamp == 7.5 and np.allclose(back.position, pose.position) and np.allclose(back.orientation, pose.orientation)
    assert camera_heading(pose).yaw == pytest.approx(np.pi / 4)
    base = Pose3D((1.0, 2.0, 0.0), (0.0, 0.0, np.sin(0.3), np.cos(0.3)))
    _, p2 = robot_pose_from_msg(pose_stamped_to_msg(base, 1.0))
    assert p2.yaw == pytest.approx(0.6) and (p2.x, p2.y) == (1.0, 2.0)


def test_transform_stamped_roundtrip():
    from mnemo_perception.conversions import transform_stamped_from_msg, transform_stamped_to_msg

    pose = Pose3D((1.0, -2.0, 0.5), (0.0, 0.0, 0.6, 0.8))
    msg = transform_stamped_to_msg("odom", "base_link", 12.25, pose)
    assert transform_stamped_from_msg(msg) == ("odom", "base_link", 12.25, pose)
    msg.header.frame_id, msg.child_frame_id = "/odom", "/base_link"  # ROS 1 names
    assert transform_stamped_from_msg(msg)[:2] == ("odom", "base_link")
