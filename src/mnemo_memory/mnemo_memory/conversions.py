"""mnemo_interfaces messages <-> mnemo_memory core types."""
from __future__ import annotations

from mnemo_common.ros import (
    pose2d_from_msg, pose2d_to_msg, pose3d_from_msg, pose3d_to_msg, sighting_from_msg, sighting_to_msg,
    time_from_msg, time_to_msg,
)
from mnemo_common.types import MemoryRecord
from mnemo_interfaces.msg import MemoryRecord as MemoryRecordMsg


def record_to_msg(r: MemoryRecord) -> MemoryRecordMsg:
    return MemoryRecordMsg(id=r.id, stamp=time_to_msg(r.stamp), robot_pose=pose2d_to_msg(r.robot_pose),
                           camera_pose=pose3d_to_msg(r.camera_pose), room=r.room, caption=r.caption,
                           labels=list(r.labels), sightings=[sighting_to_msg(s) for s in r.sightings],
                           raw_ref=r.raw_ref, score=float(r.score))


def record_from_msg(m: MemoryRecordMsg) -> MemoryRecord:
    """The message carries no embedding: the record comes back without one."""
    return MemoryRecord(id=m.id, stamp=time_from_msg(m.stamp), robot_pose=pose2d_from_msg(m.robot_pose),
                        camera_pose=pose3d_from_msg(m.camera_pose), caption=m.caption, room=m.room,
                        labels=list(m.labels), sightings=[sighting_from_msg(s) for s in m.sightings],
                        raw_ref=m.raw_ref, score=float(m.score))


def time_query_from_request(req) -> dict:
    """SearchMemoryByTime request -> MemoryService.search_time keyword arguments (minus filter)."""
    if req.use_range:
        return {"since": time_from_msg(req.since), "until": time_from_msg(req.until), "around": None}
    return {"since": None, "until": None, "around": time_from_msg(req.around)}
