"""Frame validation and the stamp synchroniser (no ROS)."""
import dataclasses

import numpy as np
import pytest

from mnemo_common.types import Pose3D
from mnemo_perception.backends import GroundTruthDetector
from mnemo_perception.frame import Intrinsics
from mnemo_perception.pipeline import FrameError, Perception, StampSync


def process(frame, **changes):
    return Perception(GroundTruthDetector()).process(dataclasses.replace(frame, **changes))


def test_good_frame(scene_frame):
    result = process(scene_frame)
    assert len(result.detections) == 4 and result.stamp == 100.0


def test_dropping_instance_ids_keeps_only_the_maps_fixture_ids(scene_frame):
    result = Perception(GroundTruthDetector(), drop_instance_ids=True).process(scene_frame)
    assert {(d.label, d.instance_id, d.node_id) for d in result.detections} == {
        ("mug", "", ""), ("book", "", ""), ("apple", "", ""), ("cabinet", "", "cabinet_1")}


@pytest.mark.parametrize("changes,reason", [
    (lambda f: {"intrinsics": Intrinsics(0.0, 0.0, 0.0, 0.0, 0, 0)}, "no_camera_info"),
    (lambda f: {"depth": f.depth[:100]}, "size_mismatch"),
    (lambda f: {"intrinsics": dataclasses.replace(f.intrinsics, width=320)}, "size_mismatch"),
    (lambda f: {"depth": np.full_like(f.depth, np.nan)}, "no_valid_depth"),
    (lambda f: {"depth": np.zeros_like(f.depth)}, "no_valid_depth"),
    (lambda f: {"camera_pose": Pose3D((np.nan, 0.0, 0.0))}, "bad_pose"),
    (lambda f: {"segmentation": None}, "detector_input"),
    (lambda f: {"rgb": f.rgb[..., 0]}, "bad_color"),
])
def test_bad_frames_raise_with_reason(scene_frame, changes, reason):
    with pytest.raises(FrameError) as err:
        process(scene_frame, **changes(scene_frame))
    assert err.value.reason == reason


def test_stamp_sync_groups_and_evicts():
    sync = StampSync(("color", "depth"), capacity=3)
    assert sync.add("color", 1, "c1") is None
    assert sync.add("color", 2, "c2") is None
    assert sync.add("depth", 2, "d2") == {"color": "c2", "depth": "d2"}
    assert sync.evicted == 1  # stamp 1 can no longer complete
    for s in range(10, 15):
        sync.add("color", s, s)
    assert sync.evicted == 3
    with pytest.raises(KeyError):
        sync.add("thermal", 1, None)
