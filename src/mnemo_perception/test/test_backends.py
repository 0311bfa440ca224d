"""Backend plumbing with randomly initialised models: right-shaped outputs flow into Detections."""
import numpy as np
import pytest

from mnemo_common.types import MnemoError, Status
from mnemo_perception.backends import (
    BackendConfig, GroundTruthDetector, SamDetector, YoloDetector, make_detector, needs_segmentation,
)
from mnemo_perception.deproject import DeprojectionConfig
from mnemo_perception.pipeline import Perception


def test_ground_truth_instances_follow_segmentation_and_vocabulary(scene_frame):
    seg = scene_frame.segmentation
    instances = GroundTruthDetector().detect(scene_frame.rgb, extra={"segmentation": seg})
    assert [i.label for i in instances] == ["mug", "book", "cabinet", "apple"]
    assert all(i.mask.shape == (480, 640) and i.mask.dtype == bool and i.mask.any() for i in instances)
    assert instances[2].kind == "fixture" and instances[0].instance_id == "mug_1"
    only = GroundTruthDetector(("mug", "apple")).detect(scene_frame.rgb, extra={"segmentation": seg})
    assert [i.label for i in only] == ["mug", "apple"]
    with pytest.raises(ValueError):
        GroundTruthDetector().detect(scene_frame.rgb, extra={})


@pytest.mark.parametrize("config", [
    BackendConfig(backend="yolo", weights="/nonexistent/yolo.pt"),
    BackendConfig(backend="yolo", weights=""),
    BackendConfig(backend="sam", sam_checkpoint="/nonexistent/sam.pt"),
])
def test_missing_weights_is_a_clear_error_at_start(config):
    with pytest.raises(MnemoError) as err:
        make_detector(config)
    assert err.value.code == Status.UNAVAILABLE and "not found" in err.value.message


def test_unknown_backend_and_sam_type_rejected(tmp_path, mobile_sam_checkpoint):
    with pytest.raises(ValueError):
        make_detector(BackendConfig(backend="magic"))
    with pytest.raises(ValueError):
        make_detector(BackendConfig(backend="sam", sam_checkpoint=mobile_sam_checkpoint, sam_model_type="vit_x"))


def test_needs_segmentation():
    assert needs_segmentation(BackendConfig())
    assert needs_segmentation(BackendConfig(backend="sam", sam_box_source="ground_truth"))
    assert not needs_segmentation(BackendConfig(backend="yolo"))
    assert not needs_segmentation(BackendConfig(backend="sam", sam_box_source="yolo"))


@pytest.mark.slow
def test_yolo_random_weights_plumbing(yolo_weights, scene_frame):
    detector = make_detector(BackendConfig(backend="yolo", weights=yolo_weights, min_score=0.0,
                                           fixture_labels=("person",)))
    assert isinstance(detector, YoloDetector) and not detector.prompted
    assert len(detector.class_names()) == 80  # COCO names from the yaml
    instances = detector.detect(scene_frame.rgb)
    # random weights with a zero threshold still produce candidate masks on a textured frame
    assert instances, "expected some (meaningless) instances from a random model at conf=0"
    names = set(detector.class_names().values())
    for inst in instances:
        assert inst.mask.shape == (480, 640) and inst.mask.dtype == bool
        assert inst.label in names and 0.0 <= inst.score <= 1.0
        assert inst.kind == ("fixture" if inst.label == "person" else "object")
    result = Perception(detector, DeprojectionConfig(min_points=1)).process(scene_frame)
    for d in result.detections:
        assert np.isfinite(d.centroid).all() and d.mask_area > 0 and d.label in names
    # a vocabulary filters the model's own class names when no text encoder is on disk
    vocab = make_detector(BackendConfig(backend="yolo", weights=yolo_weights, min_score=0.0, vocabulary=("cup",)))
    assert all(i.label == "cup" for i in vocab.detect(scene_frame.rgb))


@pytest.mark.slow
def test_sam_random_weights_refines_ground_truth_boxes(mobile_sam_checkpoint, scene_frame):
    detector = make_detector(BackendConfig(backend="sam", sam_checkpoint=mobile_sam_checkpoint,
                                           sam_model_type="vit_t", sam_box_source="ground_truth"))
    assert isinstance(detector, SamDetector)
    instances = detector.detect(scene_frame.rgb, scene_frame.depth, {"segmentation": scene_frame.segmentation})
    assert [i.label for i in instances] == ["mug", "book", "cabinet", "apple"]
    assert [i.instance_id for i in instances] == ["mug_1", "book_1", "cabinet_1", "apple_1"]
    for inst in instances:
        assert inst.mask.shape == (480, 640) and inst.mask.dtype == bool
        assert np.isfinite(inst.score)
    result = Perception(detector, DeprojectionConfig(min_points=1)).process(scene_frame)
    assert all(np.isfinite(d.centroid).all() for d in result.detections)


@pytest.mark.slow
def test_sam_with_yolo_boxes(mobile_sam_checkpoint, yolo_weights, scene_frame):
    detector = make_detector(BackendConfig(backend="sam", sam_checkpoint=mobile_sam_checkpoint, sam_box_source="yolo",
                                           weights=yolo_weights, min_score=0.0))
    instances = detector.detect(scene_frame.rgb)
    yolo_count = len([i for i in detector.box_source.detect(scene_frame.rgb) if i.mask.any()])
    assert len(instances) == yolo_count
    assert all(i.mask.shape == (480, 640) for i in instances)
