"""Negative evidence: a node whose place a frame covered (in the image, near enough, not hidden by
the depth image) and that the frame did not see is missed; enough misses make it stale, its last
place kept; what the depth shows hidden, too small or too far never counts against a node."""
import numpy as np

from mnemo_common.types import Detection, Pose3D, PropertyValue
from mnemo_scene_graph.coverage import CameraView, CoverageConfig
from mnemo_scene_graph.graph import GraphConfig, SceneGraph
from mnemo_scene_graph.persistence import GraphStore, read_events

LOOK_ALONG_X = Pose3D((0.0, 0.0, 1.0), (-0.5, 0.5, -0.5, 0.5))  # optical z along the map's +x, 1 m up
FX = FY = 500.0
W, H = 640, 480


def view(depth: np.ndarray, pose: Pose3D = LOOK_ALONG_X) -> CameraView:
    return CameraView.from_depth(pose, FX, FY, W / 2, H / 2, depth)


def wall_at(metres: float) -> np.ndarray:
    return np.full((H, W), metres, np.float32)


def with_box_in_front(depth: np.ndarray, metres: float, cols: slice, rows: slice = slice(0, H)) -> np.ndarray:
    d = depth.copy()
    d[rows, cols] = metres
    return d


def det(label, c, half=0.05, kind="object"):
    lo, hi = tuple(v - half for v in c), tuple(v + half for v in c)
    return Detection(label=label, score=0.9, kind=kind, centroid=c, box_min=lo, box_max=hi)


def test_a_place_in_plain_sight_is_covered():
    v = view(wall_at(4.0))
    assert v.covers((2.0, 0.0, 1.0), 0.1)  # 25 px wide, image centre, the wall behind it
    assert v.covers((2.0, 0.5, 1.0), 0.1)  # left of centre (map +y is image left)


def test_a_place_hidden_by_a_nearer_surface_is_not_covered():
    # Something 1 m away fills the middle columns (a door, a shelf board): the place behind is hidden.
    v = view(with_box_in_front(wall_at(4.0), 1.0, slice(280, 360)))
    assert not v.covers((2.0, 0.0, 1.0), 0.1)
    assert v.covers((2.0, 0.6, 1.0), 0.1)  # beside it, in sight


def test_the_object_itself_does_not_hide_its_place():
    # Depth reaching the object's front face (half its depth nearer than its centre) is no occluder.
    v = view(with_box_in_front(wall_at(4.0), 1.96, slice(300, 340), slice(220, 260)))
    assert v.covers((2.0, 0.0, 1.0), 0.1)


def test_outside_the_image_cut_by_its_border_too_small_or_too_far_is_not_covered():
    v = view(wall_at(9.0))
    assert not v.covers((-2.0, 0.0, 1.0), 0.1)  # behind the camera
    assert not v.covers((2.0, 3.0, 1.0), 0.1)  # beyond the left border
    assert not v.covers((2.0, 1.27, 1.0), 0.1)  # 2.5 px from the border, 25 px wide: most of it cut off
    assert v.covers((2.0, 1.2, 1.0), 0.1)  # 20 px from the border: most of it in the image
    assert not v.covers((5.0, 0.0, 1.0), 0.05)  # 5 px wide: a detector may miss it
    assert not v.covers((7.0, 0.0, 1.0), 0.5)  # beyond max_range
    assert v.covers((7.0, 0.0, 1.0), 0.5, CoverageConfig(max_range=8.0))


def test_no_depth_reading_is_no_evidence():
    depth = wall_at(4.0)
    depth[:, 280:360] = np.nan  # the sensor gave nothing there (glare, out of range)
    assert not view(depth).covers((2.0, 0.0, 1.0), 0.1)


def test_coarse_depth_keeps_the_nearest_reading_of_each_cell():
    depth = wall_at(4.0)
    depth[100, 200] = 1.0
    depth[0:8, 0:8] = np.nan
    v = view(depth)
    assert v.depth.shape == (H // 8, W // 8)
    assert v.depth[100 // 8, 200 // 8] == 1.0 and v.depth[1, 1] == 4.0 and np.isnan(v.depth[0, 0])


def test_each_coarse_cell_is_the_nearest_valid_reading_of_its_block_border_blocks_too():
    rng = np.random.default_rng(7)
    depth = rng.uniform(0.3, 6.0, (37, 51)).astype(np.float32)  # not a whole number of cells
    noise = rng.random(depth.shape)
    depth[noise < 0.2] = np.nan
    depth[(noise >= 0.2) & (noise < 0.3)] = 0.0
    depth[(noise >= 0.3) & (noise < 0.35)] = -1.0
    depth[(noise >= 0.35) & (noise < 0.4)] = np.inf
    depth[8:16, 16:24] = 0.0  # a block without any reading
    coarse = CameraView.from_depth(Pose3D(), FX, FY, 25.0, 18.0, depth).depth
    assert coarse.shape == (5, 7)
    for row in range(5):
        for col in range(7):
            block = depth[row * 8:(row + 1) * 8, col * 8:(col + 1) * 8]
            valid = block[np.isfinite(block) & (block > 0)]
            expected = valid.min() if valid.size else np.nan
            assert np.array_equal(coarse[row, col], expected, equal_nan=True), (row, col)
    assert np.isnan(coarse[1, 2])


def graph_with_mug(config=GraphConfig()):
    g = SceneGraph(config)
    g.add_fixture("table_1", "table", (2.0, 0.0, 0.45), (1.7, -0.3, 0.0), (2.3, 0.3, 0.9), room="kitchen")
    mug = g.integrate_detections([det("mug", (2.0, 0.0, 0.95))], 10.0, room="kitchen").node_ids[0]
    return g, mug


def looking_at_the_table(depth_m=4.0):
    pose = Pose3D((0.0, 0.0, 1.2), (-0.5, 0.5, -0.5, 0.5))
    return view(wall_at(depth_m), pose)


def test_a_moved_object_goes_stale_at_its_old_place_after_enough_misses():
    g, mug = graph_with_mug(GraphConfig(stale_after_misses=2))
    r = g.integrate_detections([], 20.0, room="kitchen", view=looking_at_the_table())
    assert r.stale == [] and g.get(mug).state == "current" and g.get(mug).misses == 1
    r = g.integrate_detections([], 30.0, room="kitchen", view=looking_at_the_table())
    assert r.stale == [mug]
    node = g.get(mug)
    assert node.state == "stale" and node.parent == "table_1" and node.last_seen == 10.0  # last seen there, then
    assert g.query(label="mug") == [] and [n.id for n in g.query(label="mug", include_stale=True)] == [mug]
    assert [e.kind for e in g.history(mug)][-1] == "state"


def test_a_sighting_between_misses_starts_the_count_again():
    g, mug = graph_with_mug(GraphConfig(stale_after_misses=2))
    g.integrate_detections([], 20.0, view=looking_at_the_table())
    g.integrate_detections([det("mug", (2.0, 0.0, 0.95))], 25.0, view=looking_at_the_table())
    assert g.get(mug).misses == 0
    g.integrate_detections([], 30.0, view=looking_at_the_table())
    assert g.get(mug).state == "current"


def test_a_hidden_place_or_another_rooms_frame_without_depth_is_no_miss():
    g, mug = graph_with_mug()
    hidden = with_box_in_front(wall_at(4.0), 0.8, slice(0, W))  # the whole view blocked at 0.8 m
    g.integrate_detections([], 20.0, view=view(hidden, Pose3D((0.0, 0.0, 1.2), LOOK_ALONG_X.orientation)))
    assert g.get(mug).misses == 0 and g.get(mug).state == "current"


def test_a_frame_from_the_next_room_that_sees_the_place_counts():
    """Depth, not the room name, says what a frame showed: through a doorway the place is in sight."""
    g, mug = graph_with_mug()
    r = g.integrate_detections([], 20.0, room="hallway", view=looking_at_the_table())
    assert r.stale == [mug]


def test_doorless_furniture_shows_what_is_in_it_a_closed_container_does_not():
    g = SceneGraph()
    g.add_fixture("shelf_1", "bookshelf", (2.0, 0.0, 0.9), (1.8, -0.4, 0.0), (2.2, 0.4, 1.8), room="study")
    g.add_fixture("cabinet_1", "cabinet", (2.0, 1.0, 0.5), (1.8, 0.6, 0.0), (2.2, 1.4, 1.0), room="study")
    for fid, kind in (("shelf_1", "surface"), ("cabinet_1", "container")):
        g.update(fid, {"kind": PropertyValue(kind, 1.0, "map", 0.0)}, source="map", stamp=0.0)
    r = g.integrate_detections([det("book", (2.0, 0.0, 1.0)), det("mug", (2.0, 0.75, 0.5))], 10.0)
    book, mug = r.node_ids
    assert g.get(book).relation == "in" and g.get(mug).relation == "in"
    pose = Pose3D((0.0, 0.4, 0.8), LOOK_ALONG_X.orientation)
    r = g.integrate_detections([], 20.0, view=view(wall_at(4.0), pose))
    assert r.stale == [book]  # the shelf has no doors: the depth saw the space empty
    assert g.get(mug).state == "current"  # the cabinet is not known open: no evidence either way


def test_misses_are_events_a_restart_replays(tmp_path):
    store = GraphStore(tmp_path)
    g = store.load(GraphConfig(stale_after_misses=3))
    store.attach(g)
    g.add_fixture("table_1", "table", (2.0, 0.0, 0.45), (1.7, -0.3, 0.0), (2.3, 0.3, 0.9))
    mug = g.integrate_detections([det("mug", (2.0, 0.0, 0.95))], 10.0).node_ids[0]
    for t in (20.0, 30.0):
        g.integrate_detections([], t, view=looking_at_the_table())
    store.flush()
    missed = [e for e in read_events(store.events_path) if e.kind == "missed"]
    assert [(e.node_id, e.new) for e in missed] == [(mug, {"misses": 1}), (mug, {"misses": 2})]
    restored = GraphStore(tmp_path).load(GraphConfig(stale_after_misses=3))
    assert restored.to_dict() == g.to_dict() and restored.get(mug).misses == 2
    restored.integrate_detections([], 40.0, view=looking_at_the_table())  # the third miss, after the restart
    assert restored.get(mug).state == "stale"


def test_an_oracle_observation_without_a_view_or_visibility_marks_nothing():
    from mnemo_common.types import Observation, Pose2D

    g, mug = graph_with_mug()
    g.integrate_observation(Observation(20.0, Pose2D(0, 0), LOOK_ALONG_X, "kitchen", []))
    assert g.get(mug).misses == 0 and g.get(mug).state == "current"


def test_a_look_alike_touching_the_node_seen_in_its_stead_is_no_miss_one_of_another_colour_is():
    """From afar two touching knives make one detection: the one not associated was maybe seen. A vase
    of another colour standing where a black one stood says the black one is gone."""
    g = SceneGraph()
    a, b = g.integrate_detections([det("knife", (2.0, 0.0, 0.95), half=0.04),
                                   det("knife", (2.0, 0.06, 0.95), half=0.04)], 10.0).node_ids
    assert a != b
    r = g.integrate_detections([det("knife", (2.0, 0.0, 0.95), half=0.04)], 20.0, view=looking_at_the_table())
    assert r.node_ids == [a] and r.stale == [] and g.get(b).misses == 0
    black = det("vase", (2.0, 0.5, 1.0), half=0.1)
    black.attributes = {"color": "black"}
    old = g.integrate_detections([black], 30.0).node_ids[0]
    white = det("vase", (2.0, 0.52, 1.0), half=0.1)
    white.attributes = {"color": "white"}
    r = g.integrate_detections([white], 40.0, view=looking_at_the_table())
    assert r.node_ids[0] != old and old in r.stale
