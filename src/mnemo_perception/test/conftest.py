"""Shared fixtures: synthetic scenes and randomly initialised model files (built once per session)."""
from __future__ import annotations

import os

import pytest

os.environ.setdefault("YOLO_OFFLINE", "1")

from mnemo_perception.synthetic import EXAMPLE_SCENE, default_intrinsics, look_at, render  # noqa: E402


@pytest.fixture(scope="session")
def scene_frame():
    """A 640x480 frame of EXAMPLE_SCENE from a camera 1.2 m up, looking down the +x axis."""
    return render(EXAMPLE_SCENE, look_at((0.0, 0.0, 1.2), (3.0, 0.0, 0.2)), default_intrinsics(), stamp=100.0)


@pytest.fixture(scope="session")
def yolo_weights(tmp_path_factory):
    """A YOLOv8n-seg built from ultralytics' packaged yaml (random weights), saved as a .pt file."""
    from ultralytics import YOLO

    path = tmp_path_factory.mktemp("yolo") / "yolov8n-seg-random.pt"
    YOLO("yolov8n-seg.yaml").save(str(path))
    return str(path)


@pytest.fixture(scope="session")
def mobile_sam_checkpoint(tmp_path_factory):
    """A MobileSAM (TinyViT) checkpoint with random weights."""
    import torch

    from mnemo_perception.backends import build_mobile_sam

    torch.manual_seed(0)
    path = tmp_path_factory.mktemp("sam") / "mobile_sam_random.pt"
    torch.save(build_mobile_sam().state_dict(), path)
    return str(path)

