"""ROS messages <-> the planner's plain types (PlannerStep, memory records, scene-graph nodes)."""
from __future__ import annotations

from mnemo_common.ros import (
    kv_from_msgs, kv_to_msgs, pose2d_from_msg, pose2d_to_msg, pose3d_from_msg, pose3d_to_msg, sighting_from_msg,
    sighting_to_msg, time_from_msg, time_to_msg,
)
from mnemo_common.types import MemoryRecord, PlannerStep
from mnemo_interfaces.msg import MemoryRecord as MemoryRecordMsg, PlannerStep as PlannerStepMsg

from mnemo_planner.inprocess import node_dict


def step_to_msg(step: PlannerStep) -> PlannerStepMsg:
    return PlannerStepMsg(index=int(step.index), tool=step.tool, arguments=kv_to_msgs(step.arguments), ok=bool(step.ok),
                          outcome=step.outcome, remaining_budget=max(0, int(step.remaining_budget)),
                          duration=float(step.duration))


def step_from_msg(msg: PlannerStepMsg) -> PlannerStep:
    return PlannerStep(index=msg.index, tool=msg.tool, arguments=kv_from_msgs(msg.arguments), ok=msg.ok,
                       outcome=msg.outcome, remaining_budget=msg.remaining_budget, duration=msg.duration)


def record_to_msg(r: MemoryRecord) -> MemoryRecordMsg:
    return MemoryRecordMsg(id=r.id, stamp=time_to_msg(r.stamp), robot_pose=pose2d_to_msg(r.robot_pose),
                           camera_pose=pose3d_to_msg(r.camera_pose), room=r.room, caption=r.caption,
                           labels=list(r.labels), sightings=[sighting_to_msg(s) for s in r.sightings],
                           raw_ref=r.raw_ref, score=float(r.score))


def record_from_msg(m: MemoryRecordMsg) -> MemoryRecord:
    return MemoryRecord(id=m.id, stamp=time_from_msg(m.stamp), robot_pose=pose2d_from_msg(m.robot_pose),
                        camera_pose=pose3d_from_msg(m.camera_pose), caption=m.caption, room=m.room,
                        labels=list(m.labels), sightings=[sighting_from_msg(s) for s in m.sightings],
                        raw_ref=m.raw_ref, score=m.score)


def node_dict_from_msg(msg) -> dict:
    """An ObjectNode message as the node dict the policies read."""
    from mnemo_scene_graph.conversions import node_from_msg

    return node_dict(node_from_msg(msg))
