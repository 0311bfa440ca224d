"""Messages <-> simulator core types: camera info, segmentation and clock (images and poses:
mnemo_common.ros).
Every ``*_to_msg`` has a ``*_from_msg`` partner (round-trip tested) where the other side needs one.
"""
from __future__ import annotations

import numpy as np
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import CameraInfo

from mnemo_common.ros import image_from_msg, image_to_msg, time_to_msg
from mnemo_interfaces.msg import InstanceSegmentation

from mnemo_sim.camera import CameraIntrinsics


# -- camera --------------------------------------------------------------------------
def camera_info_to_msg(k: CameraIntrinsics, stamp: float, frame_id: str) -> CameraInfo:
    """Pinhole intrinsics -> CameraInfo (no distortion, identity rectification)."""
    msg = CameraInfo(width=k.width, height=k.height, distortion_model="plumb_bob")
    msg.header.stamp = time_to_msg(stamp)
    msg.header.frame_id = frame_id
    msg.d = [0.0] * 5
    msg.k = [k.fx, 0.0, k.cx, 0.0, k.fy, k.cy, 0.0, 0.0, 1.0]
    msg.r = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]
    msg.p = [k.fx, 0.0, k.cx, 0.0, 0.0, k.fy, k.cy, 0.0, 0.0, 0.0, 1.0, 0.0]
    return msg


def camera_info_from_msg(msg: CameraInfo) -> CameraIntrinsics:
    return CameraIntrinsics(int(msg.width), int(msg.height), float(msg.k[0]), float(msg.k[4]), float(msg.k[2]),
                            float(msg.k[5]))


def segmentation_to_msg(seg: np.ndarray, seg_ids: dict[int, str], labels: dict[int, str], kinds: dict[int, str],
                        stamp: float, frame_id: str) -> InstanceSegmentation:
    """Instance-value image + value tables -> InstanceSegmentation (only values present in the image)."""
    msg = InstanceSegmentation()
    msg.header.stamp = time_to_msg(stamp)
    msg.header.frame_id = frame_id
    msg.mask = image_to_msg(seg.astype(np.int32), "32SC1", stamp, frame_id)
    present = [int(v) for v in np.unique(seg) if v >= 0]
    msg.values = present
    msg.instance_ids = [seg_ids[v] for v in present]
    msg.labels = [labels.get(v, "") for v in present]
    msg.kinds = [kinds.get(v, "object") for v in present]
    return msg


def segmentation_from_msg(msg: InstanceSegmentation) -> tuple[np.ndarray, dict[int, str], dict[int, str], dict[int, str]]:
    """InstanceSegmentation -> (H x W int32 values, value -> instance id, value -> label, value -> kind)."""
    values = [int(v) for v in msg.values]
    if not (len(values) == len(msg.instance_ids) == len(msg.labels) == len(msg.kinds)):
        raise ValueError("segmentation values, instance_ids, labels and kinds must have equal lengths")
    return (image_from_msg(msg.mask), dict(zip(values, msg.instance_ids)), dict(zip(values, msg.labels)),
            dict(zip(values, msg.kinds)))


# -- clock ---------------------------------------------------------------------------
def clock_to_msg(t: float) -> Clock:
    return Clock(clock=time_to_msg(t))
