from mnemo_common.types import KeyframeMeta, Pose2D
from mnemo_keyframes.conversions import keyframe_from_msg, keyframe_to_msg


def test_keyframe_round_trip():
    m = KeyframeMeta("kf-1", 12.5, "interaction_key", "/s/images/kf-1.jpg", "/s/thumbs/kf-1.jpg", "run", "head",
                     "open", "kf-0", ["cabinet_1"], Pose2D(1.0, 2.0, 0.5), ["locked"], ["cabinet"], "still", 0.75)
    assert keyframe_from_msg(keyframe_to_msg(m)) == m
