"""A short ring buffer of recent camera frames, so a keyframe can be cut when an event arrives
slightly after the frame that caused it."""
from __future__ import annotations

import threading
from collections import deque
from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from mnemo_common.types import Pose2D


@dataclass
class Frame:
    stamp: float
    rgb: np.ndarray
    pose: Optional[Pose2D] = None
    labels: list[str] = field(default_factory=list)
    node_ids: list[str] = field(default_factory=list)
    camera: str = "head"


class FrameRing:
    """The last ``capacity`` frames, oldest first. Thread-safe."""

    def __init__(self, capacity: int = 30):
        if capacity < 1:
            raise ValueError(f"ring capacity must be >= 1, got {capacity}")
        self._frames: deque[Frame] = deque(maxlen=capacity)
        self._lock = threading.Lock()
        self._pose: Optional[Pose2D] = None

    def __len__(self) -> int:
        with self._lock:
            return len(self._frames)

    def set_pose(self, pose: Pose2D) -> None:
        """The latest robot pose; frames pushed afterwards carry it."""
        with self._lock:
            self._pose = pose

    def push(self, stamp: float, rgb: np.ndarray, camera: str = "head") -> Frame:
        with self._lock:
            frame = Frame(float(stamp), rgb, self._pose, camera=camera)
            self._frames.append(frame)
            return frame

    def latest(self) -> Optional[Frame]:
        with self._lock:
            return self._frames[-1] if self._frames else None

    def nearest(self, stamp: float, tolerance: float) -> Optional[Frame]:
        """The frame closest in time to ``stamp`` within ``tolerance`` seconds, or None."""
        with self._lock:
            best = min(self._frames, key=lambda f: abs(f.stamp - stamp), default=None)
        if best is None or abs(best.stamp - stamp) > tolerance:
            return None
        return best

    def annotate(self, stamp: float, tolerance: float, labels: list[str], node_ids: list[str],
                 pose: Optional[Pose2D] = None) -> Optional[Frame]:
        """Attach what was seen at ``stamp`` (an Observation's sightings) to the matching frame."""
        frame = self.nearest(stamp, tolerance)
        if frame is None:
            return None
        with self._lock:
            frame.labels = list(dict.fromkeys(frame.labels + [l for l in labels if l]))
            frame.node_ids = list(dict.fromkeys(frame.node_ids + [n for n in node_ids if n]))
            if pose is not None:
                frame.pose = pose
        return frame
