"""Snapshot + event log: restart restores the same graph, crashes lose at most the unflushed tail."""
import json

import pytest

from mnemo_common.files import CorruptFileError
from mnemo_common.types import Observation, Pose2D, Pose3D, PropertyValue, Sighting
from mnemo_scene_graph.graph import SceneGraph
from mnemo_scene_graph.persistence import GraphStore, read_events


def obs(stamp, sightings):
    return Observation(stamp=stamp, robot_pose=Pose2D(0, 0), camera_pose=Pose3D(), room="kitchen",
                       sightings=sightings)


TABLE = Sighting("table", (1.0, 2.0, 0.4), kind="fixture", object_id="table_1")


def build(store: GraphStore) -> SceneGraph:
    g = store.load()
    store.attach(g)
    g.integrate_observation(obs(1.0, [TABLE, Sighting("mug", (1.0, 2.0, 0.8), {"color": "red"}, object_id="m1",
                                                      support="table_1", relation="on")]))
    store.flush()
    g.update("table_1", {"material": PropertyValue("wood", 0.9, "vlm", 2.0)}, outcome="inspect:ok")
    store.flush()
    return g


def test_restart_restores_same_graph_and_history(tmp_path):
    store = GraphStore(tmp_path)
    g = build(store)
    store.snapshot(g)
    g.integrate_observation(obs(5.0, [TABLE]), visible_fn=lambda p: True)  # mug turns stale after the snapshot
    g.integrate_observation(obs(9.0, [Sighting("mug", (4.0, 4.0, 0.8), {"color": "red"}, object_id="m1")]))
    store.flush()
    before = g.to_dict()
    history = [e.to_dict() for e in g.history("mug_1")]

    restored = GraphStore(tmp_path).load()
    assert restored.to_dict() == before
    assert [e.to_dict() for e in restored.history("mug_1")] == history
    assert restored.location_trail("mug_1")[-1].parent == "table_1"
    # New events continue the sequence without gaps or reuse.
    store2 = GraphStore(tmp_path)
    g2 = store2.load()
    store2.attach(g2)
    g2.update("mug_1", {"fullness": PropertyValue("empty")})
    store2.flush()
    seqs = [e.seq for e in read_events(store2.events_path)]
    assert seqs == list(range(1, len(seqs) + 1))


def test_truncated_last_log_line_is_tolerated(tmp_path):
    store = GraphStore(tmp_path)
    g = build(store)
    expected = g.to_dict()
    with open(store.events_path, "a") as f:
        f.write('{"seq": 999, "stamp": 3.0, "node_id": "mug_1", "kind": "prop')  # crash mid-write
    restored_store = GraphStore(tmp_path)
    restored = restored_store.load()
    assert restored.to_dict() == expected
    # The partial line was cut, so later appends stay readable.
    restored_store.attach(restored)
    restored.update("mug_1", {"x": PropertyValue("y")})
    restored_store.flush()
    assert GraphStore(tmp_path).load().get("mug_1").prop("x") == "y"


def test_snapshot_is_written_atomically(tmp_path):
    store = GraphStore(tmp_path)
    g = build(store)
    store.snapshot(g)
    assert not (store.dir / "snapshot.json.tmp").exists()
    data = json.loads(store.snapshot_path.read_text())
    assert data["seq"] == g.seq and {n["id"] for n in data["nodes"]} == {"table_1", "mug_1"}
    # Snapshot alone (log lost) still restores the snapshotted state.
    store.events_path.unlink()
    assert GraphStore(tmp_path).load().to_dict() == g.to_dict()


def test_empty_store_loads_empty_graph(tmp_path):
    g = GraphStore(tmp_path / "fresh").load()
    assert len(g) == 0 and g.seq == 0


@pytest.mark.parametrize("damage", ["truncated snapshot", "garbage snapshot", "corrupt log line"])
def test_a_damaged_store_refuses_to_open_naming_the_file(tmp_path, damage):
    """Never a graph that silently forgot: the error names the file (and the line)."""
    store = GraphStore(tmp_path)
    g = build(store)
    store.snapshot(g)
    g.update("mug_1", {"x": PropertyValue("y")})
    g.update("mug_1", {"x": PropertyValue("z")})
    store.flush()
    if damage == "corrupt log line":
        path = store.events_path
        lines = path.read_bytes().split(b"\n")
        lines[1] = lines[1][: len(lines[1]) // 2]
        path.write_bytes(b"\n".join(lines))
    else:
        path = store.snapshot_path
        data = path.read_bytes()
        path.write_bytes(data[: len(data) // 2] if damage == "truncated snapshot" else b"\x00\xff" * 40)
    with pytest.raises(CorruptFileError) as caught:
        GraphStore(tmp_path).load()
    assert caught.value.path == path and str(path) in caught.value.message
    assert ("line 2" in caught.value.message) == (damage == "corrupt log line")


def test_a_full_disk_fails_the_flush_and_keeps_the_log_whole(tmp_path, monkeypatch):
    """ENOSPC mid-append: flush raises, no partial line stays in the log, the events are kept and
    written by the next flush once there is space, and a restart sees them all."""
    import errno
    import os

    store = GraphStore(tmp_path)
    g = build(store)
    size = store.events_path.stat().st_size
    real_write = os.write

    def write_half_then_fail(fd, data):
        if len(data) > 8:
            real_write(fd, bytes(data[: len(data) // 2]))
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "write", write_half_then_fail)
    g.update("mug_1", {"x": PropertyValue("y")})
    with pytest.raises(OSError):
        store.flush()
    assert store.events_path.stat().st_size == size and store.pending == 1
    assert GraphStore(tmp_path).load().get("mug_1").prop("x") != "y"  # not acknowledged, not half there
    monkeypatch.setattr(os, "write", real_write)
    assert store.flush() == 1
    assert GraphStore(tmp_path).load().to_dict() == g.to_dict()
