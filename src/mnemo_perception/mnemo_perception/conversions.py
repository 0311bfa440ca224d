"""Messages <-> perception core types, without cv_bridge: colour images (over mnemo_common.ros
rgb_from_msg), InstanceSegmentation <-> Segmentation, DetectionArray <-> FrameDetections,
TransformStamped <-> (parent, child, stamp, Pose3D) and a tf2_msgs/TFMessage's transforms, camera
pose -> heading. Depth images and CameraInfo: mnemo_common.ros (the scene graph reads depth too).
"""
from __future__ import annotations

import math

import numpy as np
from sensor_msgs.msg import Image

from mnemo_common.ros import (
    detection_from_msg, detection_to_msg, image_from_msg, image_to_msg, pose2d_from_msg, pose2d_to_msg,
    pose3d_from_msg, pose3d_to_msg, rgb_from_msg, time_from_msg, time_to_msg,
)
from mnemo_common.types import Pose2D, Pose3D
from mnemo_perception.frame import FrameDetections, Segmentation

COLOR_ENCODINGS = ("rgb8", "bgr8", "rgba8", "bgra8")


def color_from_msg(msg: Image) -> np.ndarray:
    """HxWx3 uint8 RGB from rgb8/bgr8/rgba8/bgra8."""
    if msg.encoding not in COLOR_ENCODINGS:
        raise ValueError(f"colour image encoding must be one of {COLOR_ENCODINGS}, got {msg.encoding!r}")
    return rgb_from_msg(msg)


def segmentation_from_msg(msg) -> Segmentation:
    if msg.mask.encoding != "32SC1":
        raise ValueError(f"segmentation mask encoding must be 32SC1, got {msg.mask.encoding!r}")
    seg = Segmentation(mask=image_from_msg(msg.mask), values=[int(v) for v in msg.values],
                       instance_ids=list(msg.instance_ids), labels=list(msg.labels), kinds=list(msg.kinds))
    seg.check()
    return seg


def segmentation_to_msg(seg: Segmentation, stamp: float = 0.0, frame_id: str = ""):
    from mnemo_interfaces.msg import InstanceSegmentation

    msg = InstanceSegmentation(mask=image_to_msg(seg.mask, "32SC1", stamp, frame_id),
                               values=[int(v) for v in seg.values], instance_ids=list(seg.instance_ids),
                               labels=list(seg.labels), kinds=list(seg.kinds))
    msg.header.stamp = time_to_msg(stamp)
    msg.header.frame_id = frame_id
    return msg


def frame_detections_to_msg(fd: FrameDetections, frame_id: str = "map"):
    from mnemo_interfaces.msg import DetectionArray

    msg = DetectionArray(robot_pose=pose2d_to_msg(fd.robot_pose), camera_pose=pose3d_to_msg(fd.camera_pose),
                         room=fd.room, detections=[detection_to_msg(d) for d in fd.detections], image_ref=fd.image_ref)
    msg.header.stamp = time_to_msg(fd.stamp)
    msg.header.frame_id = frame_id
    return msg


def frame_detections_from_msg(msg) -> FrameDetections:
    return FrameDetections(stamp=time_from_msg(msg.header.stamp), camera_pose=pose3d_from_msg(msg.camera_pose),
                           robot_pose=pose2d_from_msg(msg.robot_pose), room=msg.room,
                           detections=[detection_from_msg(d) for d in msg.detections], image_ref=msg.image_ref)


def transform_stamped_to_msg(parent: str, child: str, stamp: float, pose: Pose3D):
    from geometry_msgs.msg import TransformStamped

    msg = TransformStamped(child_frame_id=child)
    msg.header.stamp = time_to_msg(stamp)
    msg.header.frame_id = parent
    t, r = msg.transform.translation, msg.transform.rotation
    t.x, t.y, t.z = (float(v) for v in pose.position)
    r.x, r.y, r.z, r.w = (float(v) for v in pose.orientation)
    return msg


def transform_stamped_from_msg(msg) -> tuple[str, str, float, Pose3D]:
    """(parent, child, stamp, the child frame's pose in the parent) of a TransformStamped, rclpy's or
    one decoded from a bag's schema (tf2_msgs need not be installed); a ROS 1 leading '/' is dropped."""
    from builtin_interfaces.msg import Time

    t, r = msg.transform.translation, msg.transform.rotation
    stamp = time_from_msg(Time(sec=msg.header.stamp.sec, nanosec=msg.header.stamp.nanosec))
    return (msg.header.frame_id.lstrip("/"), msg.child_frame_id.lstrip("/"), stamp,
            Pose3D((t.x, t.y, t.z), (r.x, r.y, r.z, r.w)))


def camera_heading(pose: Pose3D) -> Pose2D:
    """Robot pose stand-in from a camera pose: its position and the heading of its optical axis."""
    from mnemo_perception.deproject import quaternion_matrix

    forward = quaternion_matrix(pose.orientation)[:, 2]
    return Pose2D(pose.position[0], pose.position[1], math.atan2(forward[1], forward[0]))
