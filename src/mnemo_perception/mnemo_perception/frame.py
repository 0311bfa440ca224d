"""Plain data of one RGB-D frame and of what perception made of it (no ROS imports)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple, Optional

import numpy as np

from mnemo_common.types import Detection, Pose2D, Pose3D


@dataclass(frozen=True)
class Intrinsics:
    """Pinhole intrinsics of the (registered) colour and depth images."""

    fx: float
    fy: float
    cx: float
    cy: float
    width: int
    height: int

    def is_valid(self) -> bool:
        return self.fx > 0 and self.fy > 0 and self.width > 0 and self.height > 0 and all(
            np.isfinite([self.fx, self.fy, self.cx, self.cy]))


@dataclass
class Segmentation:
    """Instance segmentation of one frame: ``mask`` holds a value of ``values`` per pixel, -1 elsewhere."""

    mask: np.ndarray  # HxW int32
    values: list[int]
    instance_ids: list[str]
    labels: list[str]
    kinds: list[str]

    def check(self) -> None:
        n = len(self.values)
        if not (len(self.instance_ids) == len(self.labels) == len(self.kinds) == n):
            raise ValueError(f"segmentation lists differ in length: values={n} instance_ids={len(self.instance_ids)} "
                             f"labels={len(self.labels)} kinds={len(self.kinds)}")
        if self.mask.ndim != 2:
            raise ValueError(f"segmentation mask must be HxW, got shape {self.mask.shape}")


class Instance(NamedTuple):
    """One instance a detector found: what every backend returns."""

    label: str
    score: float
    mask: np.ndarray  # HxW bool
    kind: str = "object"
    instance_id: str = ""


@dataclass
class Frame:
    """One synchronised RGB-D frame with the pose it was taken from."""

    stamp: float
    rgb: np.ndarray  # HxWx3 uint8
    depth: np.ndarray  # HxW float32 metres; NaN, inf or 0 where invalid
    intrinsics: Intrinsics
    camera_pose: Pose3D  # optical frame (z forward, x right, y down) in the map frame
    robot_pose: Optional[Pose2D] = None
    segmentation: Optional[Segmentation] = None
    image_ref: str = ""


@dataclass
class FrameDetections:
    """All detections of one frame (the core side of DetectionArray)."""

    stamp: float
    camera_pose: Pose3D
    robot_pose: Optional[Pose2D] = None
    room: str = ""
    detections: list[Detection] = field(default_factory=list)
    image_ref: str = ""
