"""The honest simulator's pieces without ROS: a segmentation image that names no object instance, and
the skill server's perception through the stack's detections and scene graph."""
import numpy as np

from mnemo_common.types import Detection

from mnemo_sim.honest import GraphObject, GraphPerception, anonymous_segmentation, name_by_graph, with_node_color


def test_anonymous_segmentation_keeps_classes_and_fixture_ids_but_no_object_id():
    seg = np.full((4, 6), -1, dtype=np.int32)
    seg[0, 4:] = 7  # the mug appears first in raster order
    seg[2:, :2] = 3  # the cabinet
    seg[3, 3] = 9  # a second part of the mug (same instance)
    seg[3, 5] = 5  # the remote
    ids = {3: "cabinet_1", 5: "remote_1", 7: "mug_1", 9: "mug_1"}
    labels = {3: "cabinet", 5: "remote control", 7: "mug", 9: "mug"}
    kinds = {3: "fixture", 5: "object", 7: "object", 9: "object"}
    mask, out_ids, out_labels, out_kinds = anonymous_segmentation(seg, ids, labels, kinds)
    assert sorted(out_ids) == [0, 1, 2]  # one value per instance, numbered in order of appearance
    assert out_labels == {0: "mug", 1: "cabinet", 2: "remote control"}
    assert out_ids == {0: "", 1: "cabinet_1", 2: ""}  # fixture ids are the map's
    assert out_kinds == {0: "object", 1: "fixture", 2: "object"}
    assert (mask[seg == 7] == 0).all() and mask[3, 3] == 0 and (mask[seg == 3] == 1).all() and mask[3, 5] == 2
    assert (mask[seg == -1] == -1).all()
    # the values say nothing of the instance: another frame showing only the remote numbers it 0
    only_remote = np.where(seg == 5, 5, -1).astype(np.int32)
    assert anonymous_segmentation(only_remote, ids, labels, kinds)[1] == {0: ""}


def det(label, x, y, kind="object", node_id="", instance_id="", color=""):
    return Detection(label=label, score=1.0, kind=kind, centroid=(x, y, 0.8), box_min=(x, y, 0.7),
                     box_max=(x, y, 0.9), instance_id=instance_id, node_id=node_id,
                     attributes={"color": color} if color else {})


GRAPH = {n.id: n for n in [GraphObject("mug_1", "mug", "object", (1.0, 1.0, 0.8)),
                           GraphObject("mug_2", "mug", "object", (1.3, 1.0, 0.8)),
                           GraphObject("book_1", "book", "object", (5.0, 5.0, 0.8)),
                           GraphObject("table_1", "table", "fixture", (1.0, 1.0, 0.4))]}


def test_detections_are_named_by_the_nearest_graph_node_of_their_label_once_each():
    seen = [det("mugs", 1.25, 1.0, instance_id="leak"), det("mug", 1.05, 1.0), det("mug", 3.0, 3.0),
            det("book", 1.0, 1.1), det("table", 1.0, 1.0, kind="fixture", node_id="table_1")]
    named = name_by_graph(seen, GRAPH.values(), radius=0.5)
    assert [d.node_id for d in named] == ["mug_2", "mug_1", "", "", "table_1"]
    assert all(d.instance_id == "" for d in named)


def test_graph_perception_locates_object_nodes_only():
    perception = GraphPerception(lambda: [det("mug", 1.0, 1.0)], lambda: GRAPH, radius=0.5)
    assert [d.node_id for d in perception.sense()] == ["mug_1"]
    assert perception.locate("mug_2") == ("mug", (1.3, 1.0, 0.8))
    assert perception.locate("table_1") is None and perception.locate("mug_9") is None


def test_a_named_detection_says_the_colour_its_node_was_voted_not_the_one_this_frame_measured():
    """mug_1 was seen white over many frames and reads grey in this one: the skills see a white mug.
    A detection named by no node, or by a node of no known colour, keeps what it measured."""
    graph = [GraphObject("mug_1", "mug", "object", (1.0, 1.0, 0.8), color="white"),
             GraphObject("cup_1", "cup", "object", (2.0, 1.0, 0.8)),
             GraphObject("table_1", "table", "fixture", (1.0, 1.0, 0.4), color="brown")]
    seen = [det("mug", 1.05, 1.0, color="grey"), det("cup", 2.0, 1.0, color="red"), det("mug", 4.0, 4.0, color="grey"),
            det("table", 1.0, 1.0, kind="fixture", node_id="table_1", color="black")]
    named = name_by_graph(seen, graph, radius=0.5)
    assert [(d.node_id, d.attributes.get("color")) for d in named] == \
        [("mug_1", "white"), ("cup_1", "red"), ("", "grey"), ("table_1", "brown")]
    assert seen[0].attributes == {"color": "grey"}  # perception's own detection is not rewritten
    assert with_node_color(det("mug", 1.0, 1.0), "white").attributes == {}  # no colour measured: none added
