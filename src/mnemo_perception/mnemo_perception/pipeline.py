"""One frame in, its detections out: validate, detect, deproject. Also a stamp-keyed synchroniser
a node needs to assemble frames from separate streams without message_filters; the pose buffer and
the counted, rate-limited drop reasons are mnemo_common.streams' (the scene graph uses them too).
"""
from __future__ import annotations

import threading
from collections import Counter, OrderedDict
from dataclasses import replace
from typing import Any, Optional

from mnemo_perception.backends import Detector
from mnemo_perception.deproject import DeprojectionConfig, deproject_instances, valid_depth
from mnemo_perception.frame import Frame, FrameDetections


class FrameError(Exception):
    """A frame that cannot be used; ``reason`` is a short counter key."""

    def __init__(self, reason: str, detail: str = ""):
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason
        self.detail = detail


def validate_frame(frame: Frame, config: DeprojectionConfig) -> None:
    """Raise FrameError for a frame perception must drop."""
    intr = frame.intrinsics
    if intr is None or not intr.is_valid():
        raise FrameError("no_camera_info", "no valid camera intrinsics for this frame")
    if frame.rgb.ndim != 3 or frame.rgb.shape[2] != 3:
        raise FrameError("bad_color", f"colour image must be HxWx3, got {frame.rgb.shape}")
    if frame.depth.shape != frame.rgb.shape[:2]:
        raise FrameError("size_mismatch", f"depth {frame.depth.shape} vs colour {frame.rgb.shape[:2]}")
    if (intr.height, intr.width) != frame.depth.shape:
        raise FrameError("size_mismatch", f"camera info {intr.width}x{intr.height} vs image "
                                          f"{frame.depth.shape[1]}x{frame.depth.shape[0]}")
    if frame.segmentation is not None and frame.segmentation.mask.shape != frame.depth.shape:
        raise FrameError("size_mismatch", f"segmentation {frame.segmentation.mask.shape} vs image {frame.depth.shape}")
    if not frame.camera_pose.is_finite():
        raise FrameError("bad_pose", "camera pose is not finite")
    if not valid_depth(frame.depth, config).any():
        raise FrameError("no_valid_depth", "every depth pixel is NaN, zero or out of range")


class Perception:
    """Detector + deprojection: ``process(frame)`` -> FrameDetections in the map frame.

    ``drop_instance_ids``: objects leave without the detector's instance ids (the ground-truth
    backend's are the simulator's), so downstream identity is the scene graph's; a fixture's id
    moves to ``node_id`` (fixture ids are the map's, public knowledge)."""

    def __init__(self, detector: Detector, config: DeprojectionConfig = DeprojectionConfig(),
                 drop_instance_ids: bool = False):
        self.detector = detector
        self.config = config
        self.drop_instance_ids = drop_instance_ids
        self.skipped: Counter = Counter()  # instances without a detection, by reason

    def process(self, frame: Frame) -> FrameDetections:
        validate_frame(frame, self.config)
        try:
            instances = self.detector.detect(frame.rgb, frame.depth, {"segmentation": frame.segmentation})
        except ValueError as exc:
            raise FrameError("detector_input", str(exc)) from exc
        detections = deproject_instances(frame.rgb, frame.depth, frame.intrinsics, frame.camera_pose, instances,
                                         self.config, self.skipped)
        if self.drop_instance_ids:
            detections = [replace(d, instance_id="", node_id=d.instance_id if d.kind == "fixture" else d.node_id)
                          for d in detections]
        return FrameDetections(stamp=frame.stamp, camera_pose=frame.camera_pose, robot_pose=frame.robot_pose,
                               detections=detections, image_ref=frame.image_ref)


class StampSync:
    """Groups messages of several streams by exact header stamp, without message_filters.

    ``add(stream, stamp, item)`` returns ``{stream: item}`` once every required stream has
    delivered that stamp; older incomplete stamps are evicted when the buffer is full."""

    def __init__(self, streams: tuple[str, ...], capacity: int = 10):
        self.streams = tuple(streams)
        self.capacity = capacity
        self._pending: OrderedDict[int, dict[str, Any]] = OrderedDict()
        self._lock = threading.Lock()
        self.evicted = 0

    def add(self, stream: str, stamp_ns: int, item: Any) -> Optional[dict[str, Any]]:
        if stream not in self.streams:
            raise KeyError(f"unknown stream {stream!r}")
        with self._lock:
            group = self._pending.setdefault(stamp_ns, {})
            group[stream] = item
            if len(group) == len(self.streams):
                del self._pending[stamp_ns]
                # everything older than a complete frame can no longer complete in order
                for old in [s for s in self._pending if s < stamp_ns]:
                    del self._pending[old]
                    self.evicted += 1
                return group
            while len(self._pending) > self.capacity:
                self._pending.popitem(last=False)
                self.evicted += 1
            return None
