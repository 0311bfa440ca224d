from pathlib import Path

import numpy as np
from PIL import Image

from mnemo_common.types import InteractionEvent, Observation, Pose2D, Pose3D, Sighting
from mnemo_keyframes.filters import KeyframeFilter
from mnemo_keyframes.policy import KeyframeRecorder, interaction_keyframe_ids
from mnemo_keyframes.ring import FrameRing
from mnemo_keyframes.store import KeyframeStore
from mnemo_keyframes.testing import textured


def recorder(tmp_path):
    store = KeyframeStore(tmp_path)
    return KeyframeRecorder(store, FrameRing(10), KeyframeFilter()), store


def obs(stamp, *ids):
    return Observation(stamp, Pose2D(3, 4, 0.1), Pose3D(), sightings=[Sighting(i.split("_")[0], (0, 0, 0), object_id=i) for i in ids])


def test_events_of_one_frame_make_one_keyframe_linked_to_all_nodes(tmp_path):
    rec, store = recorder(tmp_path)
    rec.ring.set_pose(Pose2D(1, 2, 0.3))
    rec.ring.push(10.0, textured(1))
    rec.on_observation(obs(10.0, "mug_1"))
    rec.on_graph_event("observed", "table_1", 10.0)
    first = rec.on_graph_event("created", "mug_1", 10.0)
    assert first is not None and first.trigger == "new_node" and first.robot_pose == Pose2D(3, 4, 0.1)
    assert rec.on_graph_event("created", "bowl_1", 10.01) is None
    rec.on_graph_event("observed", "shelf_1", 10.0)
    assert store.count() == 1
    assert set(store.get(first.id).node_ids) == {"mug_1", "bowl_1", "table_1", "shelf_1"}  # not the sightings' instance ids
    assert store.get(first.id).labels == ["mug"]
    assert rec.on_graph_event("observed", "x", 10.0) is None and rec.on_graph_event("state", "x", 10.0) is None


def test_observed_nodes_before_the_event_are_linked(tmp_path):
    rec, store = recorder(tmp_path)
    rec.ring.set_pose(Pose2D(1, 2, 0.3))
    rec.ring.push(5.0, textured(2))
    rec.on_graph_event("observed", "table_1", 5.0)
    m = rec.on_graph_event("location", "mug_1", 5.0)
    assert m.trigger == "updated_node" and set(m.node_ids) == {"table_1", "mug_1"}
    assert m.robot_pose == Pose2D(1, 2, 0.3)  # the pose when the frame arrived


def test_duplicate_updates_are_filtered_but_new_nodes_wait_for_a_good_frame(tmp_path):
    rec, store = recorder(tmp_path)
    rec.ring.push(1.0, textured(3))
    assert rec.on_graph_event("location", "mug_1", 1.0) is not None
    rec.ring.push(2.0, textured(3))
    assert rec.on_graph_event("location", "mug_1", 2.0) is None  # same view, same node: duplicate
    assert rec.rejected["duplicate"] == 1
    rec.ring.push(3.0, np.zeros((480, 640, 3), np.uint8))
    assert rec.on_graph_event("created", "cup_1", 3.0) is None  # blank frame
    rec.ring.push(4.0, textured(4))
    assert rec.on_observation(obs(4.0, "cup_1")) is None  # sighting ids are not node ids
    saved = rec.on_graph_event("observed", "cup_1", 4.0)  # the next frame it is observed in
    assert saved is not None and "cup_1" in saved.node_ids and saved.trigger == "new_node"
    assert [m.id for m in store.query(node_id="cup_1")] == [saved.id]


def write_frames(tmp_path, n):
    paths = []
    for i in range(n):
        p = tmp_path / "sim" / f"f{i}.png"
        p.parent.mkdir(exist_ok=True)
        Image.fromarray(textured(10)).save(p)  # identical frames: interaction frames are kept anyway
        paths.append(str(p))
    return paths


def test_interaction_window_is_kept_and_linked_to_the_target(tmp_path):
    rec, store = recorder(tmp_path / "data")
    refs = write_frames(tmp_path, 4)
    ev = InteractionEvent("int/7", "open", "cabinet_1", 100.0, 106.0, False, frame_refs=refs,
                          robot_pose=Pose2D(1, 1, 0))
    saved, problems = rec.on_interaction(ev)
    assert problems == []
    ids = interaction_keyframe_ids("int/7", refs)
    assert ids == ["int_7-before", "int_7-during-1", "int_7-during-2", "int_7-after"]
    assert [m.id for m in saved] == ids
    assert [m.trigger for m in saved] == ["interaction_before", "interaction_during", "interaction_during",
                                          "interaction_after"]
    assert [m.stamp for m in saved] == [100.0, 102.0, 104.0, 106.0]
    assert all(m.node_ids == ["cabinet_1"] and m.action == "open" for m in saved)
    assert saved[0].parent_id == "" and all(m.parent_id == "int_7-before" for m in saved[1:])
    assert rec.on_interaction(ev)[0] == []  # a repeated event saves nothing twice
    assert store.count() == 4


def test_interaction_with_missing_frames_reports_them(tmp_path):
    rec, store = recorder(tmp_path / "data")
    refs = write_frames(tmp_path, 2)
    ev = InteractionEvent("i2", "peek", "drawer_1", 1.0, 2.0, True, frame_refs=[refs[0], "/nope/x.png", "/etc/passwd"])
    saved, problems = rec.on_interaction(ev)
    assert [m.id for m in saved] == ["i2-before"] and len(problems) == 2


def test_interaction_refs_that_are_keyframe_ids_are_linked(tmp_path):
    rec, store = recorder(tmp_path)
    store.add(__import__("mnemo_common.types", fromlist=["KeyframeMeta"]).KeyframeMeta(
        "kf-given", 1.0, "interaction_before"), textured(5))
    saved, problems = rec.on_interaction(InteractionEvent("i3", "pick", "mug_1", 1, 2, True, frame_refs=["kf-given"]))
    assert saved == [] and problems == [] and store.get("kf-given").node_ids == ["mug_1"]


def test_an_event_before_its_frame_is_saved_when_the_frame_arrives(tmp_path):
    rec, store = recorder(tmp_path)
    assert rec.on_graph_event("created", "cabinet_1", 50.0) is None  # no frame yet
    assert rec.on_graph_event("created", "cabinet_2", 50.0) is None
    assert rec.on_frame(10.0, textured(1)) is None  # an older frame is not the event's
    saved = rec.on_frame(50.0, textured(2))
    assert saved is not None and saved.trigger == "new_node" and set(saved.node_ids) == {"cabinet_1", "cabinet_2"}
    assert rec.on_frame(50.1, textured(3)) is None and store.count() == 1
