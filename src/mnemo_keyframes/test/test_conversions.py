import math

import numpy as np
import pytest
from geometry_msgs.msg import PoseStamped
from sensor_msgs.msg import Image

from mnemo_common.types import KeyframeMeta, Pose2D
from mnemo_keyframes.conversions import (
    keyframe_from_msg, keyframe_to_msg, pose2d_from_pose_stamped,
    rgb_from_image_msg,
)


def test_keyframe_round_trip():
    m = KeyframeMeta("kf-1", 12.5, "interaction_key", "/s/images/kf-1.jpg", "/s/thumbs/kf-1.jpg", "run", "head",
                     "open", "kf-0", ["cabinet_1"], Pose2D(1.0, 2.0, 0.5), ["locked"], ["cabinet"], "still", 0.75)
    assert keyframe_from_msg(keyframe_to_msg(m)) == m


def image_msg(arr, encoding, pad=0):
    h, w = arr.shape[:2]
    c = 1 if arr.ndim == 2 else arr.shape[2]
    rows = np.zeros((h, w * c + pad), np.uint8)
    rows[:, : w * c] = arr.reshape(h, w * c)
    return Image(height=h, width=w, encoding=encoding, step=w * c + pad, data=rows.tobytes())


@pytest.mark.parametrize("encoding", ["rgb8", "bgr8", "rgba8", "bgra8", "mono8"])
def test_image_encodings_to_rgb(encoding):
    rgb = np.random.default_rng(0).integers(0, 255, (4, 5, 3), dtype=np.uint8)
    if encoding == "mono8":
        src, want = rgb[:, :, 0], np.repeat(rgb[:, :, :1], 3, axis=2)
    else:
        src = rgb[:, :, ::-1] if encoding.startswith("bgr") else rgb
        if encoding.endswith("a8"):
            src = np.concatenate([src, np.full((4, 5, 1), 255, np.uint8)], axis=2)
        want = rgb
    assert np.array_equal(rgb_from_image_msg(image_msg(src, encoding, pad=3)), want)


def test_bad_images_are_rejected():
    with pytest.raises(ValueError):
        rgb_from_image_msg(Image(height=2, width=2, encoding="32FC1", step=8, data=bytes(16)))
    with pytest.raises(ValueError):
        rgb_from_image_msg(Image(height=2, width=2, encoding="rgb8", step=6, data=bytes(5)))


def test_pose_from_pose_stamped():
    msg = PoseStamped()
    msg.pose.position.x, msg.pose.position.y = 1.0, -2.0
    msg.pose.orientation.z, msg.pose.orientation.w = math.sin(0.4), math.cos(0.4)
    p = pose2d_from_pose_stamped(msg)
    assert (p.x, p.y) == (1.0, -2.0) and p.yaw == pytest.approx(0.8)
