"""Core scene-graph behaviour: association, moves and history, beliefs, queries, updates."""
import math

import pytest

from mnemo_common.types import Detection, MnemoError, Observation, Pose2D, Pose3D, PropertyValue, Sighting
from mnemo_scene_graph.graph import GraphConfig, GraphEvent, GraphNode, SceneGraph
from mnemo_scene_graph.geometry import frustum_visible_fn, normalize_label


def obs(stamp, sightings, room="kitchen"):
    return Observation(stamp=stamp, robot_pose=Pose2D(0, 0), camera_pose=Pose3D(), room=room, sightings=sightings)


def mug(x, y, z=0.8, iid="", color="", support="", relation="on"):
    attrs = {"color": color} if color else {}
    return Sighting("mug", (x, y, z), attrs, object_id=iid, support=support, relation=relation if support else "")


def fixture(fid, label, x, y, z=0.4):
    return Sighting(label, (x, y, z), kind="fixture", object_id=fid)


def det(label, c, half=0.04, color="", iid="", kind="object", area=0):
    lo = (c[0] - half, c[1] - half, c[2] - half)
    hi = (c[0] + half, c[1] + half, c[2] + half)
    return Detection(label=label, score=0.9, kind=kind, centroid=c, box_min=lo, box_max=hi, mask_area=area,
                     attributes={"color": color} if color else {}, instance_id=iid)


def everything_visible(_):
    return True


def test_label_normalisation():
    assert normalize_label(" Coffee_Mugs ") == "coffee mug"
    assert normalize_label("glass") == "glass"
    assert normalize_label("Mug") == normalize_label("mugs")


def test_repeated_sightings_make_one_node_with_running_average():
    g = SceneGraph()
    for i, dx in enumerate((0.0, 0.02, -0.02, 0.04)):
        r = g.integrate_observation(obs(10.0 + i, [mug(1.0 + dx, 2.0, iid="mug_7")]))
        assert r.node_ids == ["mug_1"]
    node = g.get("mug_1")
    assert node.observation_count == 4
    assert node.position[0] == pytest.approx(1.01)
    assert node.prop("instance_id") == "mug_7"
    assert node.first_seen == 10.0 and node.last_seen == 13.0


def test_two_same_label_objects_side_by_side_stay_two():
    g = SceneGraph()
    for t in range(5):
        r = g.integrate_observation(obs(float(t), [mug(1.0, 2.0, iid="a"), mug(1.12, 2.0, iid="b")]))
        assert len(set(r.node_ids)) == 2
    assert len(g.query(label="mug")) == 2
    ids = {n.prop("instance_id"): n.id for n in g.query(label="mug")}
    assert set(ids) == {"a", "b"}


def test_one_frame_never_merges_two_detections_even_if_one_node_is_closest():
    g = SceneGraph()
    g.integrate_detections([det("cup", (0.0, 0.0, 0.8))], stamp=1.0)
    r = g.integrate_detections([det("cup", (0.05, 0.0, 0.8)), det("cup", (-0.05, 0.0, 0.8))], stamp=2.0)
    assert len(set(r.node_ids)) == 2 and len(g.nodes()) == 2


def test_different_colour_is_not_associated():
    g = SceneGraph()
    g.integrate_detections([det("cup", (0.0, 0.0, 0.8), color="red")], stamp=1.0)
    r = g.integrate_detections([det("cup", (0.05, 0.0, 0.8), color="blue")], stamp=2.0)
    assert r.created and len(g.nodes()) == 2


def test_a_different_lasting_attribute_is_not_associated_though_place_and_colour_agree():
    """One object replaced by a look-alike of another brand at the same spot: two objects, and the first
    keeps its brand; a changing property (the door's state), a measured colour or a value only one side
    knows never splits."""
    g = SceneGraph()
    first = Sighting("mug", (1.0, 2.0, 0.8), {"color": "grey", "brand": "Zenthra"})
    g.integrate_observation(obs(10.0, [first]))
    r = g.integrate_observation(obs(20.0, [Sighting("mug", (1.0, 2.0, 0.8), {"color": "grey", "brand": "Quorvo"})]))
    assert r.created and sorted(n.prop("brand") for n in g.query(label="mug")) == ["Quorvo", "Zenthra"]
    g = SceneGraph()
    g.integrate_observation(obs(10.0, [first]))
    for attrs in ({"color": "grey", "state": "open"}, {"color": "grey", "brand": "Zenthra", "title": "Moonrise"},
                  {"color": "grey", "color_rgb": "#808080"}, {"color": "grey", "color_rgb": "#7a7d80"}):
        r = g.integrate_observation(obs(20.0, [Sighting("mug", (1.0, 2.0, 0.8), attrs)]))
        assert not r.created and len(g.nodes()) == 1
    g = SceneGraph(GraphConfig(attribute_veto=False))  # the veto off: label, place and colour decide alone
    g.integrate_observation(obs(10.0, [first]))
    r = g.integrate_observation(obs(20.0, [Sighting("mug", (1.0, 2.0, 0.8), {"color": "grey", "brand": "Quorvo"})]))
    assert not r.created and len(g.nodes()) == 1


def test_detections_get_node_ids_and_labels_are_normalised():
    g = SceneGraph()
    d1 = det("Coffee Mug", (1.0, 1.0, 0.8))
    g.integrate_detections([d1], stamp=1.0)
    d2 = det("coffee_mugs", (1.02, 1.0, 0.8))
    g.integrate_detections([d2], stamp=2.0)
    assert d1.node_id == d2.node_id == "coffee_mug_1"


def test_known_fixture_keeps_its_id_and_object_gets_parent():
    g = SceneGraph()
    r = g.integrate_observation(obs(1.0, [fixture("cabinet_2", "cabinet", 0.3, 3.5),
                                          mug(0.3, 3.5, 0.95, support="cabinet_2", relation="on")]))
    assert r.node_ids[0] == "cabinet_2"
    node = g.get(r.node_ids[1])
    assert node.parent == "cabinet_2" and node.relation == "on" and node.room == "kitchen"
    assert ("mug_1", "on", "cabinet_2") in g.relations()
    assert ("mug_1", "in_room", "kitchen") in g.relations()
    assert [n.id for n in g.query(in_fixture="cabinet_2")] == ["mug_1"]


def test_geometric_support_from_fixture_boxes():
    g = SceneGraph()
    table = Detection("table", 0.9, kind="fixture", centroid=(2.0, 2.0, 0.375), box_min=(1.4, 1.6, 0.0),
                      box_max=(2.6, 2.4, 0.75))
    cab = Detection("cabinet", 0.9, kind="fixture", centroid=(5.0, 2.0, 0.45), box_min=(4.7, 1.8, 0.0),
                    box_max=(5.3, 2.2, 0.9))
    r = g.integrate_detections([table, cab, det("mug", (2.1, 2.1, 0.80)), det("book", (5.0, 2.0, 0.4))], stamp=1.0)
    assert g.get(r.node_ids[2]).parent == r.node_ids[0] and g.get(r.node_ids[2]).relation == "on"
    assert g.get(r.node_ids[3]).parent == r.node_ids[1] and g.get(r.node_ids[3]).relation == "in"


def test_object_moved_after_old_place_seen_empty_keeps_its_node_and_trail():
    g = SceneGraph()
    sink, table = fixture("sink_1", "sink", 3.0, 0.5), fixture("table_1", "table", 1.0, 2.0)
    for t in range(3):
        g.integrate_observation(obs(100.0 + t, [table, sink, mug(1.0, 2.0, iid="m", support="table_1")]),
                                visible_fn=everything_visible)
    # The table is looked at and the mug is not there: stale, not deleted.
    r = g.integrate_observation(obs(200.0, [table]), visible_fn=everything_visible)
    assert r.stale == ["mug_1"] and g.get("mug_1").state == "stale"
    assert g.query(label="mug") == [] and len(g.query(label="mug", include_stale=True)) == 1
    # Seen later by the sink: the same node moves there.
    r = g.integrate_observation(obs(300.0, [sink, mug(3.0, 0.5, iid="m", support="sink_1")]))
    assert r.node_ids[1] == "mug_1" and r.moved == ["mug_1"] and not r.created
    node = g.get("mug_1")
    assert node.state == "current" and node.parent == "sink_1"
    trail = g.location_trail("mug_1")
    assert trail[-1].parent == "table_1" and trail[-1].since == 100.0 and trail[-1].until == 102.0
    kinds = [e.kind for e in g.history("mug_1")]
    assert kinds[0] == "created" and "location" in kinds and kinds.count("state") == 2


def test_moved_object_seen_first_at_new_place_is_merged_when_old_place_found_empty():
    g = SceneGraph()
    table, sink = fixture("table_1", "table", 1.0, 2.0), fixture("sink_1", "sink", 3.0, 0.5)
    g.integrate_observation(obs(10.0, [table, mug(1.0, 2.0, iid="m", support="table_1")]))
    r = g.integrate_observation(obs(50.0, [sink, mug(3.0, 0.5, iid="m", support="sink_1")]))
    assert r.created == ["sink_1", "mug_2"]  # no evidence yet that mug_1 left: conservatively a new node
    r = g.integrate_observation(obs(60.0, [table]), visible_fn=lambda p: p[0] < 2.0)
    assert r.merged == [("mug_2", "mug_1")]
    assert len(g.query(label="mug", include_stale=True)) == 1
    node = g.get("mug_2")  # the retired id resolves to the kept node
    assert node.id == "mug_1" and node.parent == "sink_1" and node.state == "current"
    assert node.observation_count == 2
    assert g.location_trail("mug_1")[-1].parent == "table_1"


def test_a_node_lists_the_ids_it_absorbed_oldest_first_in_its_dict_snapshot_and_replay():
    g, log = SceneGraph(), []
    g.add_listener(log.append)
    table, sink, shelf = fixture("table_1", "table", 1.0, 2.0), fixture("sink_1", "sink", 3.0, 0.5), \
        fixture("shelf_1", "shelf", 5.0, 0.5)
    g.integrate_observation(obs(10.0, [table, mug(1.0, 2.0, support="table_1")]))
    g.integrate_observation(obs(50.0, [sink, mug(3.0, 0.5, support="sink_1")]))
    g.integrate_observation(obs(60.0, [table]), visible_fn=lambda p: p[0] < 2.0)  # mug_2 was mug_1, moved
    g.integrate_observation(obs(100.0, [shelf, mug(5.0, 0.5, support="shelf_1")]))
    r = g.integrate_observation(obs(110.0, [sink]), visible_fn=lambda p: 2.0 < p[0] < 4.0)  # and mug_3 too
    assert r.merged == [("mug_3", "mug_1")]
    assert g.get("mug_1").to_dict()["merged_ids"] == ["mug_2", "mug_3"]
    snap = g.to_dict()
    assert SceneGraph.from_dict(snap).get("mug_1").merged_ids == ["mug_2", "mug_3"]
    rebuilt = SceneGraph()
    rebuilt.replay(log)
    assert rebuilt.get("mug_1").merged_ids == ["mug_2", "mug_3"]
    for node in snap["nodes"]:  # a snapshot written before nodes listed them: its aliases tell
        node.pop("merged_ids")
    assert SceneGraph.from_dict(snap).get("mug_1").merged_ids == ["mug_2", "mug_3"]
    # A node absorbed after absorbing another hands that id on too.
    chain = SceneGraph()
    created = [GraphEvent(i + 1, 1.0, nid, "created", new=GraphNode(nid, "cup").to_dict())
               for i, nid in enumerate(("cup_1", "cup_2", "cup_3"))]
    chain.replay([*created, GraphEvent(4, 2.0, "cup_3", "merged", "into", "cup_3", "cup_2"),
                  GraphEvent(5, 3.0, "cup_2", "merged", "into", "cup_2", "cup_1")])
    assert chain.get("cup_1").merged_ids == ["cup_3", "cup_2"] and chain.resolve("cup_3") == "cup_1"


def test_merge_on_stale_ignores_look_alikes_of_another_colour():
    g = SceneGraph()
    table, sink = fixture("table_1", "table", 1.0, 2.0), fixture("sink_1", "sink", 3.0, 0.5)
    g.integrate_observation(obs(10.0, [table, mug(1.0, 2.0, color="white", support="table_1")]))
    # Other mugs first seen later, and the white one seen at the sink before the table is revisited.
    g.integrate_observation(obs(20.0, [sink, mug(3.0, 0.5, color="white", support="sink_1"),
                                       mug(3.2, 0.5, color="red", support="sink_1")]))
    r = g.integrate_observation(obs(30.0, [table]), visible_fn=lambda p: p[0] < 2.0)
    assert r.merged == [("mug_2", "mug_1")]
    assert sorted(n.prop("color") for n in g.query(label="mug")) == ["red", "white"]
    # Two white look-alikes would be ambiguous: no merge then.
    g2 = SceneGraph()
    g2.integrate_observation(obs(10.0, [table, mug(1.0, 2.0, color="white", support="table_1")]))
    g2.integrate_observation(obs(20.0, [sink, mug(3.0, 0.5, color="white", support="sink_1"),
                                        mug(3.2, 0.5, color="white", support="sink_1")]))
    r = g2.integrate_observation(obs(30.0, [table]), visible_fn=lambda p: p[0] < 2.0)
    assert r.stale == ["mug_1"] and r.merged == []
    # Colours given as they are (never measured) are the objects' own: a silver one is no white one moved.
    g3 = SceneGraph()
    g3.integrate_observation(obs(10.0, [table, mug(1.0, 2.0, color="white", support="table_1")]))
    g3.integrate_observation(obs(20.0, [sink, mug(3.0, 0.5, color="silver", support="sink_1")]))
    r = g3.integrate_observation(obs(30.0, [table]), visible_fn=lambda p: p[0] < 2.0)
    assert r.stale == ["mug_1"] and r.merged == []


def test_new_object_appears_while_old_is_still_current():
    g = SceneGraph()
    g.integrate_observation(obs(10.0, [mug(1.0, 2.0)]))
    r = g.integrate_observation(obs(20.0, [mug(4.0, 2.0)]))
    assert r.created == ["mug_2"] and not r.moved


def test_object_in_closed_container_is_not_marked_stale():
    g = SceneGraph()
    g.integrate_observation(obs(1.0, [fixture("drawer_1", "drawer", 0, 0), mug(0, 0, 0.3, support="drawer_1",
                                                                                  relation="in")]))
    r = g.integrate_observation(obs(2.0, [fixture("drawer_1", "drawer", 0, 0)]), visible_fn=everything_visible)
    assert r.stale == []
    g.update("drawer_1", {"is_opened": PropertyValue("true", 1.0, "interaction", 3.0)})
    r = g.integrate_observation(obs(4.0, [fixture("drawer_1", "drawer", 0, 0)]), visible_fn=everything_visible)
    assert r.stale == ["mug_1"]


def test_sighted_open_state_of_a_container_decides_observability():
    g = SceneGraph()
    drawer_open = Sighting("drawer", (0, 0, 0.4), {"state": "open"}, kind="fixture", object_id="drawer_1")
    drawer_closed = Sighting("drawer", (0, 0, 0.4), {"state": "closed"}, kind="fixture", object_id="drawer_1")
    g.integrate_observation(obs(1.0, [drawer_open, mug(0, 0, 0.3, support="drawer_1", relation="in")]))
    assert g.integrate_observation(obs(2.0, [drawer_closed]), visible_fn=everything_visible).stale == []
    assert g.integrate_observation(obs(3.0, [drawer_open]), visible_fn=everything_visible).stale == ["mug_1"]


def test_other_room_and_out_of_view_nodes_are_not_marked_stale():
    g = SceneGraph()
    g.integrate_observation(obs(1.0, [mug(1.0, 2.0)], room="kitchen"))
    r = g.integrate_observation(obs(2.0, [], room="study"), visible_fn=everything_visible)
    assert r.stale == []
    r = g.integrate_observation(obs(3.0, [], room="kitchen"), visible_fn=lambda p: p[0] > 5)
    assert r.stale == []


def test_stale_after_misses_needs_several_frames():
    g = SceneGraph(GraphConfig(stale_after_misses=3))
    g.integrate_observation(obs(1.0, [mug(1.0, 2.0)]))
    for t in (2.0, 3.0):
        assert g.integrate_observation(obs(t, []), visible_fn=everything_visible).stale == []
    assert g.integrate_observation(obs(4.0, []), visible_fn=everything_visible).stale == ["mug_1"]


def test_frustum_visibility():
    # Optical frame looking along +x of the map: rotate z-forward onto x.
    q = (-0.5, 0.5, -0.5, 0.5)
    visible = frustum_visible_fn(Pose3D((0.0, 0.0, 1.0), q))
    assert visible((2.0, 0.0, 1.0))
    assert not visible((-2.0, 0.0, 1.0))
    assert not visible((2.0, 3.0, 1.0))
    assert not visible((10.0, 0.0, 1.0))


def test_update_properties_keep_trail_and_contents_contradict():
    g = SceneGraph()
    g.integrate_observation(obs(1.0, [fixture("drawer_3", "drawer", 0, 0),
                                      Sighting("scissors", (0, 0, 0.3), support="drawer_3", relation="in")]))
    g.update("drawer_3", {"locked": PropertyValue("true", 0.9, "interaction", 5.0)}, outcome="open:failed:locked")
    node = g.update("drawer_3", {"locked": PropertyValue("false", 0.8, "interaction", 9.0)})
    assert node.prop("locked") == "false"
    trail = node.property_trails["locked"]
    assert [(p.value, p.stamp) for p in trail] == [("true", 5.0)]
    assert node.task_history == ["open:failed:locked"]
    node = g.update("drawer_3", contents_add=["pen", "tape"], source="interaction", stamp=10.0)
    assert node.contents == ["pen", "tape"]
    assert g.get("scissors_1").state == "contradicted"
    node = g.update("drawer_3", contents_remove=["pen"], stamp=11.0)
    assert node.contents == ["tape"] and node.property_trails["contents"][-1].value == "pen, tape"
    kinds = [e.kind for e in g.history("drawer_3")]
    assert kinds.count("property") == 2 and kinds.count("contents") == 2 and "outcome" in kinds


def test_update_unknown_node_is_not_found():
    g = SceneGraph()
    with pytest.raises(MnemoError) as err:
        g.update("nothing_1", {"a": PropertyValue("b")})
    assert err.value.code == 2


def test_usual_location_weighs_time_spent():
    g = SceneGraph()
    sink, table = fixture("sink_1", "sink", 3.0, 0.5), fixture("table_1", "table", 1.0, 2.0)
    everywhere = everything_visible
    # Hours by the sink, minutes on the table, back to the sink, and on the table now.
    for start, fx, pos, stay in ((0.0, sink, (3.0, 0.5), 6000.0), (86400.0, table, (1.0, 2.0), 600.0),
                                 (90000.0, sink, (3.0, 0.5), 6000.0), (200000.0, table, (1.0, 2.0), 600.0)):
        fid = fx.object_id
        for dt in (0.0, stay):
            g.integrate_observation(obs(start + dt, [fx, mug(*pos, 0.8, support=fid)]))
        g.integrate_observation(obs(start + stay + 100.0, [fx]), visible_fn=everywhere)  # mug gone again
    assert len(g.query(label="mug", include_stale=True)) == 1
    assert g.get("mug_1").parent == "table_1"
    assert g.usual_location("mug_1") == "sink_1"
    assert g.usual_location("mugs") == "sink_1"
    dist = dict(g.location_distribution("mug_1"))
    assert dist["sink_1"] > dist["table_1"] > 0


def test_query_filters():
    g = SceneGraph()
    g.integrate_observation(obs(1.0, [mug(1.0, 1.0, color="red"), mug(3.0, 1.0, color="blue"),
                                      Sighting("book", (1.2, 1.0, 0.8))]))
    assert [n.prop("color") for n in g.query(label="mug", attributes={"color": "Red"})] == ["red"]
    near = g.query(near=(1.0, 1.0), radius=0.5)
    assert {n.label for n in near} == {"mug", "book"} and near[0].label == "mug"
    assert len(g.query(near=(0.0, 0.0), k=1)) == 1
    assert g.query(room="study") == []
    with pytest.raises(MnemoError):
        g.query(near=(math.nan, 0.0))


def test_bad_items_are_dropped_and_counted():
    g = SceneGraph()
    r = g.integrate_detections([det("mug", (math.nan, 0, 0)), det("", (0, 0, 0)), det("mug", (1, 1, 1))], stamp=5.0)
    assert r.node_ids[:2] == [None, None] and r.node_ids[2] == "mug_1"
    assert r.dropped == {"non_finite_position": 1, "empty_label": 1}
    r = g.integrate_detections([det("mug", (1, 1, 1))], stamp=5.0 - 10 * 3600)
    assert r.dropped == {"stamp_too_old": 1}
    assert g.drop_counts["stamp_too_old"] == 1


def test_snapshot_round_trip_and_replay_equivalence():
    g = SceneGraph()
    log = []
    g.add_listener(log.append)
    g.integrate_observation(obs(1.0, [fixture("table_1", "table", 1, 2), mug(1, 2, iid="x", support="table_1")]))
    g.integrate_observation(obs(2.0, [fixture("table_1", "table", 1, 2)]), visible_fn=everything_visible)
    g.update("table_1", {"material": PropertyValue("wood")}, outcome="wipe:ok")
    g.integrate_observation(obs(3.0, [mug(4, 4, iid="x")]))
    snap = g.to_dict()
    assert SceneGraph.from_dict(snap).to_dict() == snap
    rebuilt = SceneGraph()
    rebuilt.replay(log)
    assert rebuilt.to_dict() == snap
    half = SceneGraph()
    half.replay(log[:4])
    resumed = SceneGraph.from_dict(half.to_dict())
    resumed.replay(log)
    assert resumed.to_dict() == snap


def test_colour_names_that_lighting_confuses_do_not_split_an_object():
    from mnemo_scene_graph.graph import colors_compatible

    g = SceneGraph()
    first = g.integrate_detections([det("vase", (1.0, 1.0, 0.9), color="grey")], stamp=1.0).node_ids[0]
    again = g.integrate_detections([det("vase", (1.04, 1.0, 0.9), color="silver")], stamp=2.0).node_ids[0]
    assert again == first and len(g.query(label="vase")) == 1
    assert colors_compatible("white", "silver") and not colors_compatible("red", "blue")
    assert colors_compatible("", "red")


def test_a_black_thing_and_its_grey_or_silver_look_alike_stay_two():
    """Black names a thing most of whose pixels are near-black, never the shade of a colourless one:
    a silver look-alike standing where a black one stood, or first seen after it left, is another."""
    from mnemo_scene_graph.graph import colors_compatible

    assert not colors_compatible("black", "silver") and not colors_compatible("grey", "black")
    assert colors_compatible("grey", "silver") and colors_compatible("white", "grey")
    g = SceneGraph()
    for t in range(3):
        g.integrate_detections([det("wug", (1.0, 1.0, 0.9), color="black", area=400)], stamp=float(t))
    swapped = g.integrate_detections([det("wug", (1.02, 1.0, 0.9), color="silver", area=400)], stamp=10.0)
    assert swapped.created == ["wug_2"] and g.get("wug_1").prop("color") == "black"
    # The black one's place seen empty while a grey look-alike, new, is elsewhere: no merge.
    g.integrate_detections([det("dax", (3.0, 1.0, 0.9), color="black", area=400)], stamp=11.0)
    g.integrate_detections([det("dax", (6.0, 1.0, 0.9), color="grey", area=400)], stamp=12.0)
    r = g.integrate_detections([], stamp=13.0, visible_fn=lambda p: p[0] < 4.0)
    assert "dax_1" in r.stale and r.merged == []
    assert sorted(n.prop("color") for n in g.query(label="dax", include_stale=True)) == ["black", "grey"]


def test_a_measured_colour_is_the_one_most_pixels_were_seen_in_not_the_latest():
    """A white thing read grey under one light stays white; a glimpse weighs its few pixels; a
    colour that comes to outweigh the rest renames it. An authored colour is taken as given, exactly."""
    g = SceneGraph()
    for t in range(5):
        g.integrate_detections([det("vase", (1.0, 1.0, 0.9), color="white", area=400)], stamp=float(t))
    g.integrate_detections([det("vase", (1.0, 1.0, 0.9), color="grey", area=400)], stamp=5.0)
    vase = g.get("vase_1")
    assert vase.prop("color") == "white" and vase.color_votes == {"white": 2000.0, "grey": 400.0}
    assert g.query(attributes={"color": "white"}) == [vase]
    for t in range(6, 9):  # three glimpses of a shaded corner
        g.integrate_detections([det("vase", (1.0, 1.0, 0.9), color="grey", area=100)], stamp=float(t))
    assert g.get("vase_1").prop("color") == "white"
    g.integrate_detections([det("vase", (1.0, 1.0, 0.9), color="grey", area=1400)], stamp=9.0)  # grey 2100
    assert g.get("vase_1").prop("color") == "grey" and len(g.query(label="vase")) == 1
    oracle = SceneGraph()
    for t, color in enumerate(("white", "white", "white", "silver")):
        oracle.integrate_observation(obs(float(t), [mug(1.0, 2.0, color=color)]))
    # given exactly, a colour no light confuses: the silver one where the white one stood is another
    assert oracle.get("mug_1").prop("color") == "white" and oracle.get("mug_1").color_votes == {}
    assert oracle.get("mug_2").prop("color") == "silver"


def test_the_sighting_memory_stores_says_the_colour_the_node_was_voted_not_this_frame_s():
    from mnemo_scene_graph.sightings import integrate_frame

    g = SceneGraph()
    for t in range(3):
        g.integrate_detections([det("vase", (1.0, 1.0, 0.9), color="white", area=400)], stamp=float(t))
    frame = det("vase", (1.0, 1.0, 0.9), color="grey", area=300)
    seen = integrate_frame(g, obs(3.0, []), [frame])
    assert [s.attributes["color"] for s in seen.sightings] == ["white"] and frame.attributes["color"] == "grey"
    # a detection without a measured colour gets none
    seen = integrate_frame(g, obs(4.0, []), [det("vase", (1.0, 1.0, 0.9), area=300)])
    assert [s.attributes for s in seen.sightings] == [{}]


def test_a_tie_of_colour_votes_keeps_the_colour_a_node_has():
    g = SceneGraph()
    g.integrate_detections([det("vase", (1.0, 1.0, 0.9), color="white", area=400)], stamp=0.0)
    g.integrate_detections([det("vase", (1.0, 1.0, 0.9), color="grey", area=400)], stamp=1.0)
    assert g.get("vase_1").prop("color") == "white"
    g.integrate_detections([det("vase", (1.0, 1.0, 0.9), color="white", area=100)], stamp=2.0)
    g.integrate_detections([det("vase", (1.0, 1.0, 0.9), color="grey", area=100)], stamp=3.0)
    assert g.get("vase_1").prop("color") == "white"


def test_colour_votes_survive_a_snapshot_and_the_replay_of_the_log_after_it(tmp_path):
    from mnemo_scene_graph.persistence import GraphStore

    store, log = GraphStore(tmp_path), []
    g = store.load()
    store.attach(g)
    g.add_listener(log.append)
    for t, color in enumerate(("white", "white", "white", "silver")):
        g.integrate_detections([det("vase", (1.0, 1.0, 0.9), color=color, area=300)], stamp=float(t))
        if t == 1:
            store.snapshot(g)
    store.flush()
    replayed = SceneGraph()
    replayed.replay(log)
    for restored in (GraphStore(tmp_path).load(), SceneGraph.from_dict(g.to_dict()), replayed):
        assert restored.get("vase_1").color_votes == {"white": 900.0, "silver": 300.0}
        assert restored.to_dict() == g.to_dict()
        restored.integrate_detections([det("vase", (1.0, 1.0, 0.9), color="silver", area=300)], stamp=10.0)
        assert restored.get("vase_1").prop("color") == "white"  # the votes before the restart still count


def test_a_log_written_before_colour_votes_replays_and_its_nodes_start_voting_from_the_next_sighting():
    """Events without color_votes (as logged before nodes kept votes) rebuild the graph they made; the
    first measured colours after the restart vote, and the heaviest names the node from then on."""
    g, log = SceneGraph(), []
    g.add_listener(log.append)
    for t in range(3):
        g.integrate_detections([det("vase", (1.0, 1.0, 0.9), color="white", area=300)], stamp=float(t))
    old_log = [GraphEvent.from_dict({**e.to_dict(), "new": {k: v for k, v in e.new.items() if k != "color_votes"}}
                                    if isinstance(e.new, dict) else e.to_dict()) for e in log]
    restored = SceneGraph()
    assert restored.replay(old_log) == len(log)
    vase = restored.get("vase_1")
    assert vase.prop("color") == "white" and vase.color_votes == {} and vase.observation_count == 3
    for t, (color, area) in enumerate((("white", 1000), ("grey", 400), ("grey", 400))):
        restored.integrate_detections([det("vase", (1.0, 1.0, 0.9), color=color, area=area)], stamp=10.0 + t)
    assert restored.get("vase_1").prop("color") == "white"
    assert restored.get("vase_1").color_votes == {"white": 1000.0, "grey": 800.0}


def test_a_node_that_absorbs_another_adds_its_colour_votes():
    """The newer node read silver in its two frames; the one that absorbs it was seen white in three:
    white, not the newer node's colour, and every vote kept, in the log's replay too."""
    g, log = SceneGraph(), []
    g.add_listener(log.append)
    for t in range(3):
        g.integrate_detections([det("mug", (1.0, 2.0, 0.8), color="white", area=100)], stamp=10.0 + t)
    for t in range(2):
        g.integrate_detections([det("mug", (3.0, 0.5, 0.8), color="silver", area=100)], stamp=20.0 + t)
    assert g.get("mug_2").prop("color") == "silver"
    r = g.integrate_detections([], stamp=30.0, visible_fn=lambda p: p[0] < 2.0)  # mug_1 is gone: it moved
    assert r.merged == [("mug_2", "mug_1")]
    replayed = SceneGraph()
    replayed.replay(log)
    for graph in (g, replayed, SceneGraph.from_dict(g.to_dict())):
        kept = graph.get("mug_2")
        assert kept.id == "mug_1" and kept.color_votes == {"white": 300.0, "silver": 200.0}
        assert kept.prop("color") == "white" and kept.position == (3.0, 0.5, 0.8)


def test_a_partial_view_never_reshapes_a_mapped_fixture_and_supports_stay_geometric():
    g = SceneGraph()
    g.add_fixture("sofa_1", "sofa", (6.0, 3.4, 0.225), (5.1, 3.0, 0.0), (6.9, 3.8, 0.45), "living_room")
    part = det("sofa", (6.5, 3.4, 0.3), kind="fixture")  # the camera saw only the sofa's right half
    part.box_min, part.box_max, part.node_id = (6.1, 3.0, 0.0), (6.9, 3.8, 0.45), "sofa_1"
    remote = det("remote control", (5.15, 3.66, 0.46))  # near the left end, outside the seen half
    g.integrate_detections([part, remote], 10.0)
    sofa = g.get("sofa_1")
    assert (sofa.box_min, sofa.box_max, sofa.position) == ((5.1, 3.0, 0.0), (6.9, 3.8, 0.45), (6.0, 3.4, 0.225))
    assert sofa.observation_count == 1
    assert (g.get(remote.node_id).parent, g.get(remote.node_id).relation) == ("sofa_1", "on")
    restored = SceneGraph.from_dict(g.to_dict())
    restored.integrate_detections([part], 20.0)
    assert restored.get("sofa_1").box_min == (5.1, 3.0, 0.0)
