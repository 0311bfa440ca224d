"""ROS messages <-> the planner's plain types (PlannerStep, scene-graph nodes; memory records:
mnemo_common.ros)."""
from __future__ import annotations

from mnemo_common.ros import kv_from_msgs, kv_to_msgs
from mnemo_common.types import PlannerStep
from mnemo_interfaces.msg import PlannerStep as PlannerStepMsg

from mnemo_planner.tool_results import node_dict


def step_to_msg(step: PlannerStep) -> PlannerStepMsg:
    return PlannerStepMsg(index=int(step.index), tool=step.tool, arguments=kv_to_msgs(step.arguments), ok=bool(step.ok),
                          outcome=step.outcome, remaining_budget=max(0, int(step.remaining_budget)),
                          duration=float(step.duration))


def step_from_msg(msg: PlannerStepMsg) -> PlannerStep:
    return PlannerStep(index=msg.index, tool=msg.tool, arguments=kv_from_msgs(msg.arguments), ok=msg.ok,
                       outcome=msg.outcome, remaining_budget=msg.remaining_budget, duration=msg.duration)


def node_dict_from_msg(msg) -> dict:
    """An ObjectNode message as the node dict the policies read."""
    from mnemo_scene_graph.conversions import node_from_msg

    return node_dict(node_from_msg(msg))
