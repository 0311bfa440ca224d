"""Round trips of the simulator's messages: camera info, segmentation, clock."""
import numpy as np
import pytest

from mnemo_common.ros import camera_info_from_msg, camera_info_to_msg
from mnemo_sim.camera import CameraIntrinsics
from mnemo_sim.conversions import clock_to_msg, segmentation_from_msg, segmentation_to_msg


def test_camera_info_round_trip():
    k = CameraIntrinsics.from_fovy(640, 480, 45.0)
    msg = camera_info_to_msg(k, 3.0, "cam")
    assert msg.p[0] == k.fx and msg.p[10] == 1.0 and list(msg.d) == [0.0] * 5
    assert camera_info_from_msg(msg, CameraIntrinsics) == k


def test_segmentation_round_trip_lists_only_present_instances():
    seg = np.array([[-1, 0, 0], [2, 2, -1]], np.int32)
    ids, labels, kinds = {0: "mug_1", 1: "book_1", 2: "table_1"}, {0: "mug", 1: "book", 2: "table"}, \
        {0: "object", 1: "object", 2: "fixture"}
    msg = segmentation_to_msg(seg, ids, labels, kinds, 1.0, "cam")
    assert list(msg.values) == [0, 2] and list(msg.instance_ids) == ["mug_1", "table_1"]
    back, ids2, labels2, kinds2 = segmentation_from_msg(msg)
    assert np.array_equal(back, seg)
    assert ids2 == {0: "mug_1", 2: "table_1"} and labels2[2] == "table" and kinds2[2] == "fixture"
    msg.labels = ["mug"]
    with pytest.raises(ValueError):
        segmentation_from_msg(msg)


def test_clock():
    assert clock_to_msg(90061.5).clock.sec == 90061


def test_graph_objects_from_msg_reads_ids_labels_kinds_positions_and_colours():
    from geometry_msgs.msg import Point
    from mnemo_interfaces.msg import ObjectNode, Property, SceneGraph

    from mnemo_sim.conversions import graph_objects_from_msg
    from mnemo_sim.honest import GraphObject

    mug = ObjectNode(id="mug_1", label="mug", kind="object", position=Point(x=1.0, y=2.0, z=0.8),
                     properties=[Property(name="state", value="clean"), Property(name="color", value="white")])
    msg = SceneGraph(nodes=[mug, ObjectNode(id="table_1", label="table", kind="fixture")])
    assert graph_objects_from_msg(msg) == {"mug_1": GraphObject("mug_1", "mug", "object", (1.0, 2.0, 0.8), "white"),
                                           "table_1": GraphObject("table_1", "table", "fixture", (0.0, 0.0, 0.0))}
