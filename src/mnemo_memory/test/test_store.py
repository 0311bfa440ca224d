"""One suite, both backends (qdrant-edge in-process and qdrant-client local mode)."""
from __future__ import annotations

import math

import numpy as np
import pytest

from mnemo_memory.testing import WordEmbedder, make_record
from mnemo_common.types import MemoryFilter, MnemoError, Status

CAPTIONS = [
    ("a red mug on the kitchen table", "kitchen", ["mug", "table"]),
    ("a blue plate in the sink", "kitchen", ["plate", "sink"]),
    ("keys on the hallway shelf", "hallway", ["keys", "shelf"]),
    ("a book on the sofa", "living_room", ["book", "sofa"]),
    ("a red mug on the desk", "office", ["mug", "desk"]),
    ("an empty desk with a lamp", "office", ["desk", "lamp"]),
]


def fill(store, emb, n=60):
    """n records, one every 60 s, walking along x; captions cycle through CAPTIONS."""
    records = []
    for i in range(n):
        caption, room, labels = CAPTIONS[i % len(CAPTIONS)]
        records.append(make_record(i, caption, stamp=60.0 * i, x=0.5 * i, y=(i % 3) * 1.0, room=room,
                                   labels=labels, embedder=emb))
    ids = store.add(records)
    return records, ids


@pytest.fixture
def filled(backend):
    emb = WordEmbedder()
    store = backend()
    records, ids = fill(store, emb)
    yield store, emb, records
    store.close()


def test_add_get_roundtrip(filled):
    store, emb, records = filled
    assert store.count() == len(records)
    r = records[7]
    got = store.get(r.id)
    assert got.caption == r.caption and got.stamp == r.stamp and got.room == r.room
    assert (got.robot_pose.x, got.robot_pose.y, got.robot_pose.yaw) == pytest.approx(
        (r.robot_pose.x, r.robot_pose.y, r.robot_pose.yaw))
    assert got.camera_pose.position == pytest.approx(r.camera_pose.position)
    assert sorted(got.labels) == sorted(r.labels)
    assert [s.label for s in got.sightings] == [s.label for s in r.sightings]
    assert got.sightings[0].position == pytest.approx(r.sightings[0].position)
    assert got.sightings[0].attributes == {"color": "red"}
    assert np.allclose(got.embedding, r.embedding, atol=1e-6)
    assert store.get("00000000-0000-0000-0000-000000000000") is None


def test_custom_string_ids_are_kept(backend):
    store = backend()
    try:
        r = make_record(0, "a red mug", 1.0, 0, 0, embedder=WordEmbedder())
        r.id = "obs-42"
        assert store.add([r]) == ["obs-42"]
        assert store.get("obs-42").caption == "a red mug"
    finally:
        store.close()


def test_semantic_index(filled):
    store, emb, records = filled
    hits = store.search_text(emb.embed(["red mug"])[0], k=5)
    assert len(hits) == 5
    assert all("red mug" in h.caption for h in hits)
    assert hits[0].score >= hits[-1].score


def test_semantic_with_time_room_label_filters(filled):
    store, emb, records = filled
    q = emb.embed(["red mug"])[0]
    hits = store.search_text(q, k=50, filter=MemoryFilter(since=600.0, until=1800.0))
    assert hits and all(600.0 <= h.stamp <= 1800.0 for h in hits)
    hits = store.search_text(q, k=50, filter=MemoryFilter(room="office"))
    assert hits and {h.room for h in hits} == {"office"}
    hits = store.search_text(q, k=50, filter=MemoryFilter(labels=["keys", "book"]))
    assert hits and all({"keys", "book"} & set(h.labels) for h in hits)
    assert len(hits) == sum(1 for r in records if {"keys", "book"} & set(r.labels))


def test_semantic_with_region_is_exact_circle(filled):
    store, emb, records = filled
    f = MemoryFilter(near=(10.0, 1.0), radius=2.0)
    hits = store.search_text(emb.embed(["mug"])[0], k=100, filter=f)
    expected = {r.id for r in records if math.hypot(r.robot_pose.x - 10.0, r.robot_pose.y - 1.0) <= 2.0}
    assert {h.id for h in hits} == expected
    assert len(expected) < sum(1 for r in records if abs(r.robot_pose.x - 10) <= 2 and abs(r.robot_pose.y - 1) <= 2)


def test_time_range_in_time_order(filled):
    store, emb, records = filled
    hits = store.search_time(since=300.0, until=900.0, k=100)
    assert [h.stamp for h in hits] == [300.0 + 60 * i for i in range(11)]
    assert len(store.search_time(since=300.0, until=900.0, k=3)) == 3


def test_time_range_ranked_by_text(filled):
    store, emb, records = filled
    hits = store.search_time(since=0.0, until=1200.0, k=3, text_embedding=emb.embed(["keys shelf"])[0])
    assert hits[0].caption.startswith("keys") and all(h.stamp <= 1200.0 for h in hits)


def test_time_around(filled):
    store, emb, records = filled
    hits = store.search_time(around=1000.0, k=4)
    assert sorted(h.stamp for h in hits) == [900.0, 960.0, 1020.0, 1080.0]
    assert hits[0].score >= hits[-1].score
    hits = store.search_time(around=1000.0, k=2, filter=MemoryFilter(room="office"))
    assert all(h.room == "office" for h in hits) and len(hits) == 2
    hits = store.search_time(around=1000.0, k=1, text_embedding=emb.embed(["book sofa"])[0])
    assert hits[0].caption == "a book on the sofa" and abs(hits[0].stamp - 1000.0) < 600.0


def test_position_radius_and_knn_match_brute_force(filled):
    store, emb, records = filled
    def dist(r):
        return math.hypot(r.robot_pose.x - 7.3, r.robot_pose.y - 0.4)
    hits = store.search_position(7.3, 0.4, radius=1.5, k=100)
    assert {h.id for h in hits} == {r.id for r in records if dist(r) <= 1.5}
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    knn = store.search_position(7.3, 0.4, radius=0.0, k=7)
    assert [h.id for h in knn] == [r.id for r in sorted(records, key=dist)[:7]]
    far = store.search_position(1000.0, 1000.0, radius=0.0, k=3)
    assert len(far) == 3
    assert store.search_position(1000.0, 1000.0, radius=5.0, k=3) == []
    everything = store.search_position(0.0, 0.0, radius=0.0, k=1000)
    assert len(everything) == len(records)


def test_position_with_filters_and_text(filled):
    store, emb, records = filled
    hits = store.search_position(15.0, 1.0, radius=0.0, k=3, filter=MemoryFilter(room="office", since=0.0, until=2400.0))
    assert len(hits) == 3 and all(h.room == "office" and h.stamp <= 2400.0 for h in hits)
    hits = store.search_position(15.0, 1.0, radius=4.0, k=2, text_embedding=emb.embed(["red mug"])[0])
    assert hits and all("red mug" in h.caption for h in hits)
    assert all(math.hypot(h.robot_pose.x - 15.0, h.robot_pose.y - 1.0) <= 4.0 for h in hits)
    hits = store.search_position(15.0, 1.0, radius=0.0, k=1, text_embedding=emb.embed(["keys"])[0])
    assert hits[0].caption.startswith("keys")


def test_combined_text_time_room_region_labels(filled):
    store, emb, records = filled
    f = MemoryFilter(since=0.0, until=3000.0, room="office", labels=["mug"], near=(10.0, 1.0), radius=8.0)
    hits = store.search_text(emb.embed(["red mug desk"])[0], k=10, filter=f)
    expected = {r.id for r in records if r.stamp <= 3000.0 and r.room == "office" and "mug" in r.labels
                and math.hypot(r.robot_pose.x - 10.0, r.robot_pose.y - 1.0) <= 8.0}
    assert expected and {h.id for h in hits} == expected


def test_persistence_across_restart(backend):
    emb = WordEmbedder()
    store = backend()
    records, ids = fill(store, emb, n=30)
    store.close()
    reopened = backend()
    try:
        assert reopened.count() == 30
        assert reopened.get(ids[5]).caption == records[5].caption
        assert reopened.search_text(emb.embed(["keys"])[0], k=1)[0].caption.startswith("keys")
        reopened.add([make_record(99, "a green bottle", 9999.0, 1, 1, embedder=emb)])
        assert reopened.count() == 31
    finally:
        reopened.close()


def test_model_mismatch_is_a_clear_error(backend):
    backend().close()
    with pytest.raises(MnemoError) as err:
        backend(model="another-model", dim=64)
    assert "test-words" in err.value.message and "another-model" in err.value.message
    with pytest.raises(MnemoError):
        backend(model="test-words", dim=32)
    backend().close()  # the right model still opens it


def test_second_writer_is_refused(backend):
    first = backend()
    try:
        with pytest.raises(MnemoError) as err:
            backend()
        assert err.value.code == Status.UNAVAILABLE
    finally:
        first.close()
    backend().close()


def test_wrong_dimension_embedding_rejected(backend):
    store = backend()
    try:
        r = make_record(0, "x", 0.0, 0, 0)
        r.embedding = np.ones(10, dtype=np.float32)
        with pytest.raises(MnemoError):
            store.add([r])
        with pytest.raises(MnemoError):
            store.search_text(np.ones(10, dtype=np.float32), k=3)
    finally:
        store.close()


def test_edge_index_built_incrementally_keeps_results_and_persists(tmp_path):
    """Tiny thresholds: optimize_due fires after ~40 records; HNSW + int8 segments answer like the
    brute-force ones, across a reopen, and schema-1 style reads are not needed for new stores."""
    from mnemo_memory.edge_store import EdgeStore, EdgeTuning

    tuning = EdgeTuning(indexing_threshold_kb=10, max_segment_size_kb=40, full_scan_threshold_kb=1, segments=2)
    emb = WordEmbedder()
    store = EdgeStore(tmp_path / "m", "test-words", 64, tuning=tuning)
    try:
        records, ids = fill(store, emb, n=200)
        q = emb.embed(["red mug"])[0]
        before = [h.score for h in store.search_text(q, k=10)]
        assert store.optimize_due() and store.unindexed() == 200
        assert store.optimize()
        assert store.unindexed() < tuning.index_points(64) and not store.optimize_due()
        after = store.search_text(q, k=10)
        assert len(after) == 10 and all("red mug" in h.caption for h in after)
        # captions repeat (tied scores): compare the scores; rescoring makes them exact again
        assert [h.score for h in after] == pytest.approx(before, abs=1e-5)
        hits = store.search_text(q, k=20, filter=MemoryFilter(room="office", since=0.0, until=6000.0))
        assert hits and all(h.room == "office" and h.stamp <= 6000.0 for h in hits)
        assert [h.stamp for h in store.search_time(since=300.0, until=900.0, k=100)] == [300.0 + 60 * i for i in range(11)]
    finally:
        store.close()
    reopened = EdgeStore(tmp_path / "m", "test-words", 64)
    try:
        assert reopened.count() == 200 and reopened.unindexed() < tuning.index_points(64)
        assert reopened.get(ids[3]).caption == records[3].caption
    finally:
        reopened.close()


def test_service_indexes_as_the_store_fills(tmp_path):
    from mnemo_memory.edge_store import EdgeStore, EdgeTuning
    from mnemo_memory.service import MemoryService

    emb = WordEmbedder()
    store = EdgeStore(tmp_path / "m", "test-words", 64, tuning=EdgeTuning(indexing_threshold_kb=10, segments=2))
    memory = MemoryService(store, emb)
    try:
        for i in range(4):
            memory.add([make_record(50 * i + j, CAPTIONS[j % 6][0], 60.0 * (50 * i + j), 0.1 * j, 0.0, embedder=emb)
                        for j in range(50)])
            assert memory.wait_indexed(60.0)  # built in a child process (index_build)
            assert store.unindexed() < tuning_points(store)
        assert memory.count() == 200 and memory.index_builds >= 1
    finally:
        memory.close()


def tuning_points(store):
    return store.tuning.index_points(store.dim)


def test_schema1_payloads_still_read():
    from mnemo_memory.records import record_from_payload

    old = {"id": "r1", "stamp": 5.0, "x": 1.0, "y": 2.0, "yaw": 0.5, "camera": [1, 2, 3, 0, 0, 0, 1], "room": "kitchen",
           "caption": "a mug", "labels": ["mug"], "raw_ref": "f.png",
           "sightings": '[{"label":"mug","position":[1,2,0.8],"attributes":{"color":"red"}}]'}
    r = record_from_payload(old)
    assert (r.id, r.stamp, r.robot_pose.yaw, r.camera_pose.position, r.caption, r.raw_ref) == (
        "r1", 5.0, 0.5, (1, 2, 3), "a mug", "f.png")
    assert r.sightings[0].attributes == {"color": "red"} and r.labels == ["mug"]


def test_position_knn_in_a_dense_cluster(backend):
    """More records in the first square than the positions read per step (1,024): the square
    shrinks, and when many share one spot it still answers exactly."""
    emb = WordEmbedder()
    store = backend()
    try:
        rng = np.random.default_rng(0)
        records = [make_record(i, "a cup", float(i), float(rng.normal(5.0, 0.05)), float(rng.normal(5.0, 0.05)))
                   for i in range(1200)]
        records += [make_record(1200 + i, "a cup", 2000.0 + i, 5.0, 5.0) for i in range(1100)]  # one spot
        for r in records:
            r.embedding = emb.embed([r.caption])[0]
        store.add(records)

        def dist(r):
            return math.hypot(r.robot_pose.x - 5.01, r.robot_pose.y - 4.98)
        for k, radius in ((5, 0.0), (12, 0.5), (30, 0.0)):
            hits = store.search_position(5.01, 4.98, radius=radius, k=k)
            assert [h.score for h in hits] == pytest.approx(sorted((-dist(r) for r in records), reverse=True)[:k])
        hits = store.search_position(5.0, 5.0, radius=0.0, k=3)
        assert len(hits) == 3 and all(h.score == 0.0 for h in hits)
    finally:
        store.close()


def test_edge_positions_in_ram_answer_as_the_engine_does(tmp_path):
    """The embedded store answers plain position queries from a grid in RAM: filled as it writes,
    read back in the background after a reopen (the engine's indices answer meanwhile). Both give
    the same records, and a record written while the grid loads keeps its newest place."""
    from mnemo_memory.records import record_from_payload
    from mnemo_memory.conditions import Conditions
    from mnemo_memory.store import open_store
    from mnemo_memory.store_base import QdrantStoreBase

    emb = WordEmbedder()
    rng = np.random.default_rng(4)
    records = [make_record(i, "a cup", float(i), float(x), float(y), embedder=emb)
               for i, (x, y) in enumerate(rng.uniform([0, 0], [30, 12], (3000, 2)))]
    store = open_store(tmp_path / "d", "test-words", 64)
    store.add(records)
    assert store.positions_ready(timeout=0)  # filled by the writes
    store.close()
    store = open_store(tmp_path / "d", "test-words", 64)
    try:
        moved = make_record(17, "a cup", 17.0, 100.0, 100.0, embedder=emb)
        moved.id = records[17].id
        store.add([moved])  # rewritten (same id) while the positions may still be loading
        assert store.positions_ready(timeout=60) and not store.positions_error
        for x, y, radius, k in [(5.0, 5.0, 0.0, 10), (29.0, 0.5, 1.0, 50), (-40.0, 70.0, 0.0, 3),
                                (15.0, 6.0, 0.3, 10), (99.0, 99.0, 2.0, 5)]:
            got = store.search_position(x, y, radius=radius, k=k)
            engine = QdrantStoreBase._nearest_in_space(store, Conditions(), None, x, y, radius or math.inf, k)
            want = [record_from_payload(p, score=-d) for d, p in engine]
            assert [h.id for h in got] == [h.id for h in want] and got, (x, y, radius, k)
            assert [h.score for h in got] == pytest.approx([h.score for h in want])
        assert [h.id for h in store.search_position(99.0, 99.0, radius=2.0, k=5)] == [moved.id]
        assert store.search_position(records[18].robot_pose.x, records[18].robot_pose.y, 0.0, 1)[0].id == records[18].id
    finally:
        store.close()


def test_edge_store_past_the_positions_limit_keeps_no_grid(tmp_path):
    """Past ``positions_in_ram_max`` records the grid is freed (as the store grows, or at a reopen,
    which then reads nothing back) and the engine's indices answer the same records."""
    from dataclasses import replace

    from mnemo_memory.edge_store import EdgeStore
    from mnemo_memory.tuning import EdgeTuning

    emb = WordEmbedder()
    rng = np.random.default_rng(9)
    records = [make_record(i, "a cup", float(i), float(x), float(y), embedder=emb)
               for i, (x, y) in enumerate(rng.uniform([0, 0], [30, 12], (700, 2)))]
    small = replace(EdgeTuning(), positions_in_ram_max=500)
    queries = [(5.0, 5.0, 0.0, 10), (29.0, 0.5, 1.0, 50), (15.0, 6.0, 0.3, 10)]

    def answers(store):
        return [[h.id for h in store.search_position(x, y, radius=r, k=k)] for x, y, r, k in queries]

    store = EdgeStore(tmp_path / "m", "test-words", 64, tuning=small)
    store.add(records[:400])
    assert store.positions_in_ram and store.positions_ready(timeout=0)
    from_grid = answers(store)
    store.add(records[400:])
    assert not store.positions_in_ram and not store.positions_ready(timeout=0) and len(store._grid) == 0
    from_engine = answers(store)
    store.close()
    store = EdgeStore(tmp_path / "m", "test-words", 64, tuning=small)
    try:
        assert not store.positions_in_ram and store._grid_loader is None
        assert answers(store) == from_engine
    finally:
        store.close()
    store = EdgeStore(tmp_path / "m", "test-words", 64)  # the default limit: read back, the same answers
    try:
        assert store.positions_ready(timeout=60) and answers(store) == from_engine
    finally:
        store.close()
    # the grid's answers before the limit were the engine's for the records then
    store = EdgeStore(tmp_path / "m400", "test-words", 64, tuning=small)
    store.add(records[:400])
    store._drop_positions()
    try:
        assert answers(store) == from_grid
    finally:
        store.close()
