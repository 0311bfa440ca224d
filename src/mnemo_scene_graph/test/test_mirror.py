"""GraphMirror: a replica fed with logged events reads like the live graph, and its snapshot loses nothing."""
from mnemo_common.types import Observation, Pose2D, Pose3D, PropertyValue, Sighting
from mnemo_scene_graph.graph import SceneGraph
from mnemo_scene_graph.mirror import GraphMirror
from mnemo_scene_graph.persistence import GraphStore


def obs(stamp, sightings):
    return Observation(stamp=stamp, robot_pose=Pose2D(0, 0), camera_pose=Pose3D(), room="kitchen",
                       sightings=sightings)


TABLE = Sighting("table", (1.0, 2.0, 0.4), kind="fixture", object_id="table_1")
MUG = Sighting("mug", (1.0, 2.0, 0.8), {"color": "red"}, object_id="m1", support="table_1", relation="on")


class Live:
    """A live graph as the node keeps it: events buffered, logged, then handed to the mirror."""

    def __init__(self, data_dir):
        self.store = GraphStore(data_dir)
        self.graph = self.store.load()
        self.mirror = GraphMirror(self.graph, self.store)
        self.store.attach(self.graph)
        self.unlogged = []
        self.graph.add_listener(self.unlogged.append)

    def log(self):
        self.store.flush()
        self.mirror.add(self.unlogged)
        self.unlogged.clear()


def test_replica_reads_like_the_live_graph_with_its_restored_history(tmp_path):
    first = Live(tmp_path)
    first.graph.integrate_observation(obs(1.0, [TABLE, MUG]))
    first.log()
    first.store.snapshot(first.graph)
    first.graph.update("mug_1", {"fullness": PropertyValue("empty", 1.0, "vlm", 2.0)}, outcome="pick:ok")
    first.log()

    live = Live(tmp_path)  # restarted: snapshot + log
    live.graph.integrate_observation(obs(5.0, [Sighting("mug", (3.0, 3.0, 0.8), {"color": "red"}, object_id="m1")]))
    live.log()
    with live.mirror.read() as replica:
        assert replica.to_dict() == live.graph.to_dict()
        assert [e.to_dict() for e in replica.history("mug_1")] == [e.to_dict() for e in live.graph.history("mug_1")]
        assert [n.id for n in replica.query(label="mug")] == ["mug_2", "mug_1"]
        assert replica.get("mug_1").properties["fullness"].value == "empty"


def test_replica_holds_only_logged_events_and_its_snapshot_restores_them(tmp_path):
    live = Live(tmp_path)
    live.graph.integrate_observation(obs(1.0, [TABLE, MUG]))
    live.log()
    logged = live.graph.to_dict()
    live.graph.update("table_1", {"material": PropertyValue("wood", 0.9, "vlm", 2.0)})  # not logged yet
    with live.mirror.read() as replica:
        assert "material" not in replica.get("table_1").properties
    live.mirror.snapshot()
    assert GraphStore(tmp_path).load().to_dict() == logged

    live.log()  # logged after the snapshot: the restart replays it from the log
    assert GraphStore(tmp_path).load().to_dict() == live.graph.to_dict()
    assert live.mirror.events_since_snapshot == 0  # not applied to the replica until read or caught up
    assert live.mirror.catch_up() == 1 and live.mirror.events_since_snapshot == 1
    with live.mirror.read() as replica:
        assert replica.get("table_1").properties["material"].value == "wood"
    assert live.mirror.catch_up() == 0


def test_mirror_of_an_empty_store_starts_empty(tmp_path):
    live = Live(tmp_path)
    with live.mirror.read() as replica:
        assert len(replica) == 0 and isinstance(replica, SceneGraph)
