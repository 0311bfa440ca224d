"""Scene-graph core types <-> mnemo_interfaces messages, the RViz markers of a graph, and a frame's
CameraView from its depth image and CameraInfo.

GraphEvent values: strings travel as they are; structured values (locations, property records,
contents lists) travel as compact JSON, which is what a reader of the event stream can print.
"""
from __future__ import annotations

import json
import math
from typing import Any, Iterable

from builtin_interfaces.msg import Duration
from geometry_msgs.msg import Point
from mnemo_interfaces.msg import GraphEvent as GraphEventMsg
from mnemo_interfaces.msg import ObjectNode, Property, Relation
from mnemo_interfaces.msg import SceneGraph as SceneGraphMsg
from sensor_msgs.msg import CameraInfo, Image
from std_msgs.msg import ColorRGBA
from visualization_msgs.msg import Marker, MarkerArray

from mnemo_common.ros import (
    camera_info_from_msg, depth_from_msg, kv_from_msgs, point_from_msg, point_to_msg, time_from_msg, time_to_msg,
)
from mnemo_common.types import Pose3D, PropertyValue
from mnemo_scene_graph.coverage import CameraView
from mnemo_scene_graph.graph import STATE_CURRENT, GraphEvent, GraphNode


# -- properties ----------------------------------------------------------------------
def property_to_msg(name: str, value: PropertyValue) -> Property:
    return Property(name=str(name), value=str(value.value), confidence=float(value.confidence),
                    source=str(value.source), stamp=time_to_msg(value.stamp if math.isfinite(value.stamp) else 0.0))


def property_from_msg(msg: Property) -> tuple[str, PropertyValue]:
    return msg.name, PropertyValue(msg.value, float(msg.confidence), msg.source, time_from_msg(msg.stamp))


def properties_from_msgs(msgs: Iterable[Property]) -> dict[str, PropertyValue]:
    return dict(property_from_msg(m) for m in msgs)


# -- nodes ---------------------------------------------------------------------------
def node_to_msg(node: GraphNode) -> ObjectNode:
    return ObjectNode(
        id=node.id, label=node.label, kind=node.kind, position=point_to_msg(node.position),
        box_min=point_to_msg(node.box_min), box_max=point_to_msg(node.box_max), room=node.room, parent=node.parent,
        relation=node.relation, first_seen=time_to_msg(node.first_seen), last_seen=time_to_msg(node.last_seen),
        observation_count=int(node.observation_count),
        properties=[property_to_msg(k, v) for k, v in sorted(node.properties.items())],
        contents=list(node.contents), state=node.state, task_history=list(node.task_history),
        merged_ids=list(node.merged_ids))


def node_from_msg(msg: ObjectNode) -> GraphNode:
    """The node as a reader sees it (trails and bookkeeping are not on the wire)."""
    return GraphNode(
        id=msg.id, label=msg.label, kind=msg.kind, position=point_from_msg(msg.position),
        box_min=point_from_msg(msg.box_min), box_max=point_from_msg(msg.box_max), room=msg.room, parent=msg.parent,
        relation=msg.relation, first_seen=time_from_msg(msg.first_seen), last_seen=time_from_msg(msg.last_seen),
        observation_count=int(msg.observation_count), properties=properties_from_msgs(msg.properties),
        contents=list(msg.contents), state=msg.state or STATE_CURRENT, task_history=list(msg.task_history),
        merged_ids=list(msg.merged_ids))


# -- events --------------------------------------------------------------------------
def encode_value(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


def decode_value(text: str) -> Any:
    if text == "":
        return None
    if text[:1] in ("{", "["):
        try:
            return json.loads(text)
        except ValueError:
            return text
    return text


def event_to_msg(event: GraphEvent) -> GraphEventMsg:
    return GraphEventMsg(seq=int(event.seq), stamp=time_to_msg(event.stamp), node_id=event.node_id, kind=event.kind,
                         field=event.field, old_value=encode_value(event.old), new_value=encode_value(event.new),
                         source=event.source)


def event_from_msg(msg: GraphEventMsg) -> GraphEvent:
    return GraphEvent(seq=int(msg.seq), stamp=time_from_msg(msg.stamp), node_id=msg.node_id, kind=msg.kind,
                      field=msg.field, old=decode_value(msg.old_value), new=decode_value(msg.new_value),
                      source=msg.source)


# -- whole graph ---------------------------------------------------------------------
def graph_to_msg(nodes: Iterable[GraphNode], relations: Iterable[tuple[str, str, str]], stamp: float,
                 frame_id: str = "map") -> SceneGraphMsg:
    msg = SceneGraphMsg()
    msg.header.stamp = time_to_msg(stamp)
    msg.header.frame_id = frame_id
    msg.nodes = [node_to_msg(n) for n in nodes]
    msg.relations = [Relation(subject=s, predicate=p, object=o) for s, p, o in relations]
    return msg


def graph_from_msg(msg: SceneGraphMsg) -> tuple[list[GraphNode], list[tuple[str, str, str]]]:
    return [node_from_msg(n) for n in msg.nodes], [(r.subject, r.predicate, r.object) for r in msg.relations]


def query_from_request(req) -> dict:
    """QueryObjects request -> keyword arguments of SceneGraph.query (empty fields ignored)."""
    return {
        "label": req.label or None, "attributes": kv_from_msgs(req.attributes) or None,
        "near": (req.x, req.y) if req.use_region else None,
        "radius": req.radius if req.use_region and req.radius > 0 else None,
        "in_fixture": req.in_fixture or None, "room": req.room or None, "include_stale": bool(req.include_stale),
        "k": int(req.k),
    }


# -- camera views ------------------------------------------------------------------
def camera_view_from_msgs(pose: Pose3D, depth: Image, info: CameraInfo) -> CameraView:
    """The view of a frame seen from ``pose`` (optical frame in the map): its depth image (32FC1
    metres or 16UC1 millimetres) with the pinhole of its CameraInfo. ValueError when the depth
    does not decode or the two disagree in size."""
    intrinsics = camera_info_from_msg(info, dict)
    if (intrinsics["width"], intrinsics["height"]) != (depth.width, depth.height):
        raise ValueError(f"camera info {intrinsics['width']}x{intrinsics['height']} vs depth image "
                         f"{depth.width}x{depth.height}")
    if not (intrinsics["fx"] > 0 and intrinsics["fy"] > 0):
        raise ValueError(f"camera info without focal lengths (fx {intrinsics['fx']}, fy {intrinsics['fy']})")
    return CameraView.from_depth(pose, intrinsics["fx"], intrinsics["fy"], intrinsics["cx"], intrinsics["cy"],
                                 depth_from_msg(depth))


# -- markers -------------------------------------------------------------------------
_STATE_ALPHA = {"current": 0.8, "stale": 0.3, "contradicted": 0.3}


def _color(kind: str, state: str) -> ColorRGBA:
    alpha = _STATE_ALPHA.get(state, 0.5)
    if kind == "fixture":
        return ColorRGBA(r=0.55, g=0.45, b=0.35, a=alpha * 0.6)
    if state == "contradicted":
        return ColorRGBA(r=0.9, g=0.2, b=0.2, a=alpha)
    return ColorRGBA(r=0.2, g=0.6, b=0.95, a=alpha)


def markers_to_msg(nodes: Iterable[GraphNode], stamp: float, frame_id: str = "map", object_scale: float = 0.08,
                   text_height: float = 0.08, lifetime: float = 0.0) -> MarkerArray:
    """A DELETEALL, then per node a cube (fixture box) or sphere (object), and a text label."""
    array = MarkerArray()
    clear = Marker(action=Marker.DELETEALL)
    clear.header.frame_id = frame_id
    array.markers.append(clear)
    ros_stamp = time_to_msg(stamp)
    life = Duration(sec=int(lifetime), nanosec=int((lifetime % 1.0) * 1e9))
    for i, node in enumerate(sorted(nodes, key=lambda n: n.id)):
        body = Marker()
        body.header.frame_id, body.header.stamp = frame_id, ros_stamp
        body.ns, body.id, body.action, body.lifetime = node.kind, i, Marker.ADD, life
        extent = [max(hi - lo, 0.01) for lo, hi in zip(node.box_min, node.box_max)]
        if node.kind == "fixture":
            body.type = Marker.CUBE
            center = [(lo + hi) / 2 for lo, hi in zip(node.box_min, node.box_max)] if node.size > 0 else node.position
            body.pose.position = point_to_msg(tuple(center))
            body.scale.x, body.scale.y, body.scale.z = extent if node.size > 0 else (0.3, 0.3, 0.3)
        else:
            body.type = Marker.SPHERE
            body.pose.position = point_to_msg(node.position)
            s = max(object_scale, node.size)
            body.scale.x = body.scale.y = body.scale.z = s
        body.pose.orientation.w = 1.0
        body.color = _color(node.kind, node.state)
        text = Marker()
        text.header = body.header
        text.ns, text.id, text.action, text.lifetime = node.kind + "_label", i, Marker.ADD, life
        text.type = Marker.TEXT_VIEW_FACING
        top = max(node.box_max[2], node.position[2]) + text_height
        text.pose.position = Point(x=float(node.position[0]), y=float(node.position[1]), z=float(top))
        text.pose.orientation.w = 1.0
        text.scale.z = text_height
        text.color = ColorRGBA(r=1.0, g=1.0, b=1.0, a=1.0)
        text.text = node.id if node.state == STATE_CURRENT else f"{node.id} ({node.state})"
        array.markers += [body, text]
    return array

