"""Messages <-> simulator core types: camera frames, camera info, segmentation, poses and clock.
Every ``*_to_msg`` has a ``*_from_msg`` partner (round-trip tested) where the other side needs one.
"""
from __future__ import annotations

import array
import math

import numpy as np
from geometry_msgs.msg import PoseStamped
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import CameraInfo, Image

from mnemo_common.ros import pose3d_from_msg, pose3d_to_msg, time_from_msg, time_to_msg
from mnemo_common.types import Pose2D, Pose3D
from mnemo_interfaces.msg import InstanceSegmentation

from mnemo_sim.camera import CameraIntrinsics

_ENCODINGS = {"rgb8": (np.uint8, 3), "32FC1": (np.float32, 1), "32SC1": (np.int32, 1), "mono8": (np.uint8, 1)}


# -- images --------------------------------------------------------------------------
def image_to_msg(array_: np.ndarray, encoding: str, stamp: float, frame_id: str) -> Image:
    """H x W (x C) array -> sensor_msgs/Image (little-endian, tightly packed rows)."""
    dtype, channels = _ENCODINGS[encoding]
    shape = np.shape(array_)
    if len(shape) != (3 if channels > 1 else 2) or (channels > 1 and shape[2] != channels):
        raise ValueError(f"{encoding} needs an array of shape HxW{'x%d' % channels if channels > 1 else ''}, got {shape}")
    data = np.ascontiguousarray(array_, dtype=dtype)
    msg = Image(height=int(data.shape[0]), width=int(data.shape[1]), encoding=encoding, is_bigendian=0,
                step=int(data.shape[1] * channels * data.itemsize))
    msg.header.stamp = time_to_msg(stamp)
    msg.header.frame_id = frame_id
    msg.data = array.array("B", data.tobytes())
    return msg


def image_from_msg(msg: Image) -> np.ndarray:
    """sensor_msgs/Image (rgb8, 32FC1, 32SC1, mono8) -> numpy array (a copy)."""
    if msg.encoding not in _ENCODINGS:
        raise ValueError(f"unsupported image encoding {msg.encoding!r}")
    dtype, channels = _ENCODINGS[msg.encoding]
    dt = np.dtype(dtype).newbyteorder(">" if msg.is_bigendian else "<")
    row_items = msg.width * channels
    raw = np.frombuffer(bytes(msg.data), dtype=np.uint8).reshape(msg.height, msg.step)
    pixels = raw[:, : row_items * dt.itemsize].copy().view(dt).reshape(msg.height, msg.width, channels)
    pixels = pixels.astype(dtype)
    return pixels if channels > 1 else pixels[:, :, 0]


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


# -- poses and clock -----------------------------------------------------------------
def pose_stamped_to_msg(pose: Pose3D, stamp: float, frame_id: str) -> PoseStamped:
    msg = PoseStamped(pose=pose3d_to_msg(pose))
    msg.header.stamp = time_to_msg(stamp)
    msg.header.frame_id = frame_id
    return msg


def pose_stamped_from_msg(msg: PoseStamped) -> tuple[Pose3D, float]:
    return pose3d_from_msg(msg.pose), time_from_msg(msg.header.stamp)


def robot_pose3d(pose: Pose2D) -> Pose3D:
    """A planar base pose as a 3D pose (z = 0, rotation about z)."""
    return Pose3D((pose.x, pose.y, 0.0), (0.0, 0.0, math.sin(pose.yaw / 2), math.cos(pose.yaw / 2)))


def pose2d_from_pose3d(pose: Pose3D) -> Pose2D:
    x, y, z, w = pose.orientation
    return Pose2D(pose.position[0], pose.position[1], math.atan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z)))


def clock_to_msg(t: float) -> Clock:
    return Clock(clock=time_to_msg(t))
