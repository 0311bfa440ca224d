"""Messages <-> core types for the keyframe node."""
from __future__ import annotations

from mnemo_common.ros import pose2d_from_msg, pose2d_to_msg, time_from_msg, time_to_msg
from mnemo_common.types import KeyframeMeta
from mnemo_interfaces.msg import Keyframe


def keyframe_to_msg(meta: KeyframeMeta) -> Keyframe:
    return Keyframe(id=meta.id, stamp=time_to_msg(meta.stamp), run_id=meta.run_id, camera=meta.camera,
                    trigger=meta.trigger, action=meta.action, parent_id=meta.parent_id, node_ids=list(meta.node_ids),
                    robot_pose=pose2d_to_msg(meta.robot_pose), tags=list(meta.tags), labels=list(meta.labels),
                    caption=meta.caption, image_path=meta.image_path, thumbnail_path=meta.thumbnail_path,
                    score=float(meta.score))


def keyframe_from_msg(msg: Keyframe) -> KeyframeMeta:
    return KeyframeMeta(id=msg.id, stamp=time_from_msg(msg.stamp), trigger=msg.trigger, image_path=msg.image_path,
                        thumbnail_path=msg.thumbnail_path, run_id=msg.run_id, camera=msg.camera, action=msg.action,
                        parent_id=msg.parent_id, node_ids=list(msg.node_ids),
                        robot_pose=pose2d_from_msg(msg.robot_pose), tags=list(msg.tags), labels=list(msg.labels),
                        caption=msg.caption, score=msg.score)
