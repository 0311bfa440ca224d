"""Round trips of every conversion the node uses."""
import numpy as np
import pytest

from mnemo_common.types import Detection, Pose2D, Pose3D
from mnemo_perception.conversions import (
    camera_heading, color_from_msg, depth_from_msg, frame_detections_from_msg, frame_detections_to_msg,
    image_to_numpy, intrinsics_from_camera_info, intrinsics_to_camera_info, numpy_to_image, pose_stamped_from_msg,
    pose_stamped_to_msg, robot_pose_from_msg, segmentation_from_msg, segmentation_to_msg,
)
from mnemo_perception.frame import FrameDetections, Intrinsics, Segmentation
from mnemo_perception.synthetic import look_at


@pytest.mark.parametrize("encoding,dtype,shape", [
    ("rgb8", np.uint8, (4, 5, 3)), ("bgra8", np.uint8, (4, 5, 4)), ("mono8", np.uint8, (4, 5)),
    ("16UC1", np.uint16, (4, 5)), ("32FC1", np.float32, (4, 5)), ("32SC1", np.int32, (4, 5)),
])
def test_image_roundtrip(encoding, dtype, shape):
    a = (np.random.default_rng(0).random(shape) * 1000).astype(dtype)
    msg = numpy_to_image(a, encoding, 12.5, "cam")
    back = image_to_numpy(msg)
    assert back.dtype == dtype and back.shape == shape
    np.testing.assert_array_equal(back, a)
    assert msg.header.frame_id == "cam" and msg.header.stamp.sec == 12


def test_padded_rows_big_endian_and_short_data():
    a = np.arange(12, dtype=np.uint16).reshape(3, 4)
    msg = numpy_to_image(a, "16UC1")
    rows = a.astype(">u2").tobytes()
    msg.is_bigendian = 1
    msg.step = 10  # 8 bytes of pixels + 2 of padding per row
    msg.data = b"".join(rows[i * 8:(i + 1) * 8] + b"\0\0" for i in range(3))
    np.testing.assert_array_equal(image_to_numpy(msg), a)
    msg.data = msg.data[:-5]
    with pytest.raises(ValueError, match="too short"):
        image_to_numpy(msg)
    msg.encoding = "yuv422"
    with pytest.raises(ValueError, match="unsupported"):
        image_to_numpy(msg)


def test_color_and_depth_conventions():
    rgb = np.zeros((2, 3, 3), np.uint8)
    rgb[..., 0] = 200
    np.testing.assert_array_equal(color_from_msg(numpy_to_image(rgb[..., ::-1], "bgr8")), rgb)
    np.testing.assert_array_equal(color_from_msg(numpy_to_image(rgb, "rgb8")), rgb)
    mm = np.array([[0, 1500]], np.uint16)
    np.testing.assert_allclose(depth_from_msg(numpy_to_image(mm, "16UC1")), [[0.0, 1.5]])
    with pytest.raises(ValueError):
        depth_from_msg(numpy_to_image(mm, "mono16"))
    with pytest.raises(ValueError):
        color_from_msg(numpy_to_image(mm.astype(np.uint8), "mono8"))


def test_camera_info_roundtrip():
    intr = Intrinsics(500.0, 505.0, 319.5, 239.5, 640, 480)
    assert intrinsics_from_camera_info(intrinsics_to_camera_info(intr, 3.0, "cam")) == intr


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
    stamp, back = pose_stamped_from_msg(pose_stamped_to_msg(7.5, pose))
    assert stamp == 7.5 and np.allclose(back.position, pose.position) and np.allclose(back.orientation, pose.orientation)
    assert camera_heading(pose).yaw == pytest.approx(np.pi / 4)
    base = Pose3D((1.0, 2.0, 0.0), (0.0, 0.0, np.sin(0.3), np.cos(0.3)))
    _, p2 = robot_pose_from_msg(pose_stamped_to_msg(1.0, base))
    assert p2.yaw == pytest.approx(0.6) and (p2.x, p2.y) == (1.0, 2.0)
