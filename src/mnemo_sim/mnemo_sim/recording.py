"""The simulator's raw sensor topics recorded as a rosbag2 MCAP file, as a robot's bag would hold
them: colour, depth, camera info, camera and robot poses, and (only when asked: the ground-truth
backend's input) the instance segmentation. Nothing else: no observations, no ids but in the
segmentation.

``patrol_sensor_messages(scenario, until, every=1, segmentation=False)`` renders the patrols before
``until`` (a task id or a clock), every ``every``-th frame, as the messages a bag holds."""
from __future__ import annotations

import math
from typing import Any, Iterator, Union

from mnemo_common import names

CAMERA_FRAME = "camera_color_optical_frame"


def sensor_messages(frame: Any, camera_pose: Any, robot_pose: Any, segmentation: bool,
                    camera_frame_id: str = CAMERA_FRAME, map_frame: str = "map") -> list[tuple[str, str, Any]]:
    """(topic, datatype, message) of one rendered frame and the poses it was taken from, one stamp."""
    from mnemo_common.geometry import pose3d_from_pose2d
    from mnemo_common.ros import camera_info_to_msg, image_to_msg, pose_stamped_to_msg

    from mnemo_sim.conversions import segmentation_to_msg

    t = frame.stamp
    out = [(names.COLOR_IMAGE, "sensor_msgs/msg/Image", image_to_msg(frame.rgb, "rgb8", t, camera_frame_id)),
           (names.DEPTH_IMAGE, "sensor_msgs/msg/Image", image_to_msg(frame.depth, "32FC1", t, camera_frame_id)),
           (names.CAMERA_INFO, "sensor_msgs/msg/CameraInfo", camera_info_to_msg(frame.intrinsics, t, camera_frame_id)),
           (names.CAMERA_POSE, "geometry_msgs/msg/PoseStamped", pose_stamped_to_msg(camera_pose, t, map_frame)),
           (names.ROBOT_POSE, "geometry_msgs/msg/PoseStamped",
            pose_stamped_to_msg(pose3d_from_pose2d(robot_pose), t, map_frame))]
    if segmentation:
        out.append((names.SEGMENTATION, "mnemo_interfaces/msg/InstanceSegmentation",
                    segmentation_to_msg(frame.seg, frame.seg_ids, frame.labels, frame.kinds, t, camera_frame_id)))
    return out


def patrol_sensor_messages(scenario: Any, until: Union[str, float], every: int = 1, segmentation: bool = False,
                           seed: Any = None) -> Iterator[tuple[str, str, Any, float]]:
    """(topic, datatype, message, stamp) of the patrols before ``until``, every ``every``-th frame
    rendered (``mnemo_memory.bag.write_messages`` writes them as a bag)."""
    from mnemo_sim.patrol import DEFAULT_CAMERA
    from mnemo_sim.render import Renderer
    from mnemo_sim.tasks import TaskRunner

    runner = TaskRunner(scenario, seed)
    cam = DEFAULT_CAMERA
    renderer = Renderer(scenario, cam.width, cam.height_px, math.degrees(cam.vfov))
    try:
        for i, obs in enumerate(runner.run_patrols(until)):
            if i % max(1, every):
                continue
            renderer.sync(runner.world)
            frame = renderer.render(obs.camera_pose, stamp=obs.stamp)
            for topic, datatype, msg in sensor_messages(frame, obs.camera_pose, obs.robot_pose, segmentation):
                yield topic, datatype, msg, obs.stamp
    finally:
        renderer.close()
