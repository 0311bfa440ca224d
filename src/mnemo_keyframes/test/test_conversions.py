import math

import pytest
from geometry_msgs.msg import PoseStamped

from mnemo_common.types import KeyframeMeta, Pose2D
from mnemo_keyframes.conversions import keyframe_from_msg, keyframe_to_msg, pose2d_from_pose_stamped


def test_keyframe_round_trip():
    m = KeyframeMeta("kf-1", 12.5, "interaction_key", "/s/images/kf-1.jpg", "/s/thumbs/kf-1.jpg", "run", "head",
                     "open", "kf-0", ["cabinet_1"], Pose2D(1.0, 2.0, 0.5), ["locked"], ["cabinet"], "still", 0.75)
    assert keyframe_from_msg(keyframe_to_msg(m)) == m


def test_pose_from_pose_stamped():
    msg = PoseStamped()
    msg.pose.position.x, msg.pose.position.y = 1.0, -2.0
    msg.pose.orientation.z, msg.pose.orientation.w = math.sin(0.4), math.cos(0.4)
    p = pose2d_from_pose_stamped(msg)
    assert (p.x, p.y) == (1.0, -2.0) and p.yaw == pytest.approx(0.8)
