"""Round trips between the scene-graph core types and the mnemo_interfaces messages; a frame's
view from its depth and camera info messages."""
from types import SimpleNamespace

import numpy as np
import pytest
from mnemo_interfaces.srv import QueryObjects
from visualization_msgs.msg import Marker

from mnemo_common.ros import camera_info_to_msg, image_to_msg, kv_to_msgs
from mnemo_common.types import Pose3D, PropertyValue
from mnemo_scene_graph.conversions import (
    camera_view_from_msgs, event_from_msg, event_to_msg, graph_from_msg, graph_to_msg, markers_to_msg, node_from_msg,
    node_to_msg, property_from_msg, property_to_msg, query_from_request,
)
from mnemo_scene_graph.coverage import CameraView
from mnemo_scene_graph.graph import GraphEvent, GraphNode


def sample_node() -> GraphNode:
    return GraphNode(id="cabinet_3", label="cabinet", kind="fixture", position=(1.0, 2.0, 0.45),
                     box_min=(0.7, 1.8, 0.0), box_max=(1.3, 2.2, 0.9), room="kitchen", parent="", relation="",
                     first_seen=100.5, last_seen=86400.25, observation_count=7,
                     properties={"locked": PropertyValue("true", 0.75, "interaction", 200.0),
                                 "color": PropertyValue("white", 1.0, "perception", 100.5)},
                     contents=["scissors", "tape"], task_history=["open:failed:locked"], state="stale",
                     merged_ids=["cabinet_7", "cabinet_4"])


def test_property_round_trip():
    name, value = property_from_msg(property_to_msg("locked", PropertyValue("true", 0.75, "interaction", 12.5)))
    assert name == "locked" and value == PropertyValue("true", 0.75, "interaction", 12.5)


def test_node_round_trip():
    node = sample_node()
    back = node_from_msg(node_to_msg(node))
    assert back.merged_ids == ["cabinet_7", "cabinet_4"]  # ids it absorbed, in order: readers key records by them
    assert back.to_dict(trails=False) == {**node.to_dict(trails=False), "located_since": 0.0, "located_count": 0,
                                          "contents_source": "", "contents_stamp": 0.0}


def test_event_round_trip_for_string_and_structured_values():
    events = [
        GraphEvent(4, 10.0, "mug_1", "state", "state", "current", "stale", "perception"),
        GraphEvent(5, 11.0, "mug_1", "location", "location", {"parent": "table_1", "position": [1.0, 2.0, 0.8]},
                   {"parent": "sink_1", "position": [3.0, 0.5, 0.9]}, "perception"),
        GraphEvent(6, 12.0, "drawer_1", "contents", "contents", [], ["scissors"], "interaction"),
        GraphEvent(7, 13.0, "drawer_1", "property", "locked", None,
                   {"value": "true", "confidence": 0.9, "source": "interaction", "stamp": 13.0}, "interaction"),
    ]
    for event in events:
        assert event_from_msg(event_to_msg(event)) == event


def test_graph_round_trip_and_markers():
    node = sample_node()
    mug = GraphNode(id="mug_1", label="mug", position=(1.0, 2.0, 0.95), parent="cabinet_3", relation="on")
    relations = [("mug_1", "on", "cabinet_3"), ("mug_1", "in_room", "kitchen")]
    msg = graph_to_msg([node, mug], relations, 5.0)
    nodes, rels = graph_from_msg(msg)
    assert [n.id for n in nodes] == ["cabinet_3", "mug_1"] and rels == relations
    markers = markers_to_msg([node, mug], 5.0)
    kinds = [m.type for m in markers.markers]
    assert markers.markers[0].action == Marker.DELETEALL
    assert kinds.count(Marker.CUBE) == 1 and kinds.count(Marker.SPHERE) == 1
    assert kinds.count(Marker.TEXT_VIEW_FACING) == 2
    cube = next(m for m in markers.markers if m.type == Marker.CUBE)
    assert abs(cube.scale.x - 0.6) < 1e-9 and abs(cube.pose.position.z - 0.45) < 1e-9
    texts = {m.text for m in markers.markers if m.type == Marker.TEXT_VIEW_FACING}
    assert texts == {"cabinet_3 (stale)", "mug_1"}


def test_query_request_to_kwargs():
    req = QueryObjects.Request(label="mug", attributes=kv_to_msgs({"color": "red"}), use_region=True, x=1.0, y=2.0,
                               radius=0.5, in_fixture="table_1", room="kitchen", include_stale=True, k=3)
    assert query_from_request(req) == {"label": "mug", "attributes": {"color": "red"}, "near": (1.0, 2.0),
                                       "radius": 0.5, "in_fixture": "table_1", "room": "kitchen",
                                       "include_stale": True, "k": 3}
    empty = query_from_request(QueryObjects.Request())
    assert empty["label"] is None and empty["near"] is None and empty["attributes"] is None


def test_camera_view_from_depth_and_camera_info_messages():
    """The view a node builds from a frame's messages is the core's view of that frame's depth and
    pinhole, from metres or millimetres; messages that disagree are refused."""
    pose = Pose3D((1.0, 2.0, 0.8), (-0.5, 0.5, -0.5, 0.5))
    pinhole = SimpleNamespace(width=24, height=16, fx=20.0, fy=21.0, cx=11.5, cy=7.5)
    millimetres = np.random.default_rng(4).integers(500, 5000, (16, 24)).astype(np.uint16)
    millimetres[:8, :8] = 0  # no reading in the first 8 x 8 block
    metres = millimetres.astype(np.float32) / 1000.0
    metres[:8, :8] = np.nan
    expected = CameraView.from_depth(pose, 20.0, 21.0, 11.5, 7.5, metres)
    info = camera_info_to_msg(pinhole, 3.0, "camera")
    for depth in (image_to_msg(metres, "32FC1", 3.0), image_to_msg(millimetres, "16UC1", 3.0)):
        view = camera_view_from_msgs(pose, depth, info)
        assert (view.pose, view.fx, view.fy, view.cx, view.cy, view.width, view.height, view.cell) == (
            pose, 20.0, 21.0, 11.5, 7.5, 24, 16, expected.cell)
        np.testing.assert_allclose(view.depth, expected.depth, rtol=1e-6)
        assert np.isnan(view.depth[0, 0]) and not np.isnan(view.depth[0, 1])
    with pytest.raises(ValueError, match="24x16"):
        camera_view_from_msgs(pose, image_to_msg(metres[:8], "32FC1"), info)
    with pytest.raises(ValueError, match="depth image encoding"):
        camera_view_from_msgs(pose, image_to_msg(millimetres, "mono16"), info)
    with pytest.raises(ValueError, match="focal"):
        camera_view_from_msgs(pose, image_to_msg(metres, "32FC1"),
                              camera_info_to_msg(SimpleNamespace(**{**vars(pinhole), "fx": 0.0})))
