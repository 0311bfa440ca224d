"""Deprojection on synthetic scenes of known geometry: centroids, boxes, colours, degenerate clusters."""
from collections import Counter

import numpy as np
import pytest

from mnemo_common.types import Pose3D
from mnemo_perception.deproject import (
    DeprojectionConfig, deproject_instances, mask_box, numpy_inliers, quaternion_matrix,
)
from mnemo_perception.frame import Instance
from mnemo_perception.synthetic import EXAMPLE_SCENE, Box, default_intrinsics, look_at, matrix_quaternion, render, visible_centroid


def gt_instances(frame):
    seg = frame.segmentation
    return [Instance(l, 1.0, seg.mask == v, k, i) for v, l, k, i in zip(seg.values, seg.labels, seg.kinds,
                                                                          seg.instance_ids)]


def run(frame, config=DeprojectionConfig(), instances=None, skipped=None):
    return deproject_instances(frame.rgb, frame.depth, frame.intrinsics, frame.camera_pose,
                               gt_instances(frame) if instances is None else instances, config, skipped)


def test_quaternion_roundtrip_and_camera_convention():
    pose = look_at((0, 0, 1), (5, 0, 1))  # looking along map +x
    r = quaternion_matrix(pose.orientation)
    np.testing.assert_allclose(r[:, 2], [1, 0, 0], atol=1e-9)  # optical z forward
    np.testing.assert_allclose(r[:, 0], [0, -1, 0], atol=1e-9)  # optical x right = map -y
    np.testing.assert_allclose(r[:, 1], [0, 0, -1], atol=1e-9)  # optical y down = map -z
    np.testing.assert_allclose(quaternion_matrix(matrix_quaternion(r)), r, atol=1e-9)


@pytest.mark.parametrize("method", ["open3d", "numpy"])
def test_centroids_and_boxes_match_known_geometry(scene_frame, method):
    detections = run(scene_frame, DeprojectionConfig(outlier_method=method))
    assert sorted(d.label for d in detections) == sorted(b.label for b in EXAMPLE_SCENE)
    for d in detections:
        value = [b.instance_id for b in EXAMPLE_SCENE].index(d.instance_id)
        box = EXAMPLE_SCENE[value]
        assert np.linalg.norm(np.array(d.centroid) - visible_centroid(scene_frame, value)) < 0.015, d
        # the seen surface lies inside the true box (1.5 cm slack) and spans most of its height
        assert np.all(np.array(d.box_min) >= np.array(box.lo) - 0.015), d
        assert np.all(np.array(d.box_max) <= np.array(box.hi) + 0.015), d
        assert d.box_max[2] - d.box_min[2] > 0.7 * (box.hi[2] - box.lo[2])
        assert d.mask_area == int((scene_frame.segmentation.mask == value).sum())
        x0, y0, x1, y1 = d.box_2d
        assert 0 <= x0 < x1 <= 640 and 0 <= y0 < y1 <= 480
        assert d.kind == box.kind


def test_colour_attributes_from_pixels(scene_frame):
    colors = {d.label: d.attributes["color"] for d in run(scene_frame)}
    assert colors == {"mug": "red", "book": "blue", "cabinet": "brown", "apple": "green"}
    mug = next(d for d in run(scene_frame) if d.label == "mug")
    assert mug.attributes == {"color": "red"}


def test_edge_bleed_onto_background_is_removed():
    """A mask one pixel too wide picks up floor far behind the object; outlier removal drops it."""
    box = Box("vase", (2.0, -0.1, 0.3), (2.2, 0.1, 0.8), (230, 230, 230))
    frame = render([box, Box("shelf", (2.0, -0.1, 0.0), (2.2, 0.1, 0.3), (90, 90, 90))],
                   look_at((0, 0, 0.6), (3, 0, 0.55)), default_intrinsics())
    exact = frame.segmentation.mask == 0
    grown = exact.copy()
    grown[:, 1:] |= exact[:, :-1]
    grown[:, :-1] |= exact[:, 1:]
    grown[1:] |= exact[:-1]
    for method in ("open3d", "numpy"):
        d = run(frame, DeprojectionConfig(outlier_method=method), [Instance("vase", 1.0, grown)])[0]
        assert np.linalg.norm(np.array(d.centroid) - visible_centroid(frame, 0)) < 0.02, method
        assert d.box_max[0] < 2.25, (method, d.box_max)  # nothing of the wall/floor far behind


def test_flat_cluster_gets_padded_box_and_tiny_cluster_uses_numpy():
    frame = render([Box("paper", (1.0, -0.5, 0.0), (3.0, 0.5, 0.0005), (240, 240, 240))],
                   look_at((0, 0, 1.5), (2, 0, 0)), default_intrinsics())
    d = run(frame)[0]
    assert d.box_max[2] - d.box_min[2] == pytest.approx(0.01, abs=1e-6)
    assert abs(d.centroid[2]) < 0.002
    tiny = np.zeros((480, 640), bool)
    tiny[240:243, 320:324] = True  # 12 pixels: below open3d_min_points
    d = run(frame, DeprojectionConfig(min_points=10), [Instance("speck", 0.5, tiny)])[0]
    assert np.all(np.array(d.box_max) - np.array(d.box_min) >= 0.01 - 1e-9)
    assert np.isfinite(d.centroid).all()


def test_invalid_depth_empty_and_mismatched_masks_are_skipped_and_counted(scene_frame):
    depth = scene_frame.depth.copy()
    mug_mask = scene_frame.segmentation.mask == 0
    depth[mug_mask] = np.nan  # no depth on the mug
    book_mask = scene_frame.segmentation.mask == 1
    depth[book_mask] = 0.0  # zero depth on the book
    skipped = Counter()
    instances = gt_instances(scene_frame) + [Instance("ghost", 1.0, np.zeros((480, 640), bool)),
                                             Instance("wrong", 1.0, np.ones((10, 10), bool))]
    detections = deproject_instances(scene_frame.rgb, depth, scene_frame.intrinsics, scene_frame.camera_pose,
                                     instances, DeprojectionConfig(), skipped)
    assert sorted(d.label for d in detections) == ["apple", "cabinet"]
    assert skipped == Counter(too_few_depth_points=2, empty_mask=1, mask_size_mismatch=1)


def test_numpy_inliers_degenerate_inputs():
    same = np.ones((20, 3))
    assert numpy_inliers(same).all()
    assert numpy_inliers(np.zeros((2, 3))).all()
    pts = np.vstack([np.random.default_rng(0).normal(0, 0.01, (50, 3)), [[5.0, 5.0, 5.0]]])
    keep = numpy_inliers(pts)
    assert not keep[-1] and keep[:-1].mean() > 0.9


def test_mask_box():
    m = np.zeros((5, 6), bool)
    assert mask_box(m) is None
    m[1:3, 2:5] = True
    assert mask_box(m) == (2, 1, 5, 3)


def test_translated_and_rotated_camera_gives_same_map_points():
    boxes = [Box("mug", (2.0, 1.0, 0.0), (2.1, 1.1, 0.12), (200, 30, 30))]
    a = render(boxes, look_at((0, 0, 1.0), (2.05, 1.05, 0.06)), default_intrinsics())
    b = render(boxes, look_at((3.5, 2.5, 0.8), (2.05, 1.05, 0.06)), default_intrinsics())
    ca, cb = run(a)[0].centroid, run(b)[0].centroid
    # different sides are visible, but both lie on the 10 cm mug
    assert np.linalg.norm(np.array(ca) - [2.05, 1.05, 0.06]) < 0.08
    assert np.linalg.norm(np.array(cb) - [2.05, 1.05, 0.06]) < 0.08
    assert np.isclose(Pose3D().orientation[3], 1.0)
