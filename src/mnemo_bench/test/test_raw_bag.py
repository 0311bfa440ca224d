"""A raw sensor recording of the simulator (colour, depth, camera info, poses; segmentation only for
the ground-truth backend) ingested offline through perception, the scene graph and memory gives a
data directory that answers what the live honest stack answers."""
import pytest


def test_raw_bag_ingest_builds_a_graph_and_memory_that_answer_recall(tiny, tiny_path, tmp_path):
    pytest.importorskip("mujoco")
    pytest.importorskip("mcap_ros2")
    from mnemo_common.embedding import get_embedder
    from mnemo_memory.bag import read_messages, write_messages
    from mnemo_perception.replay import RawTopics, ingest_raw_bag
    from mnemo_memory.service import MemoryService
    from mnemo_scene_graph.persistence import GraphStore
    from mnemo_sim.recording import patrol_sensor_messages
    from mnemo_sim.render import RenderUnavailable

    get_embedder()  # torch before the renderer's GL context (see runner.run_suite)
    bag = tmp_path / "raw.mcap"
    task = tiny.task_by_id["recall_remote"]
    try:
        written = write_messages(bag, patrol_sensor_messages(tiny, task.at, every=3, segmentation=True))
    except RenderUnavailable as exc:
        pytest.skip(f"no GL: {exc}")
    topics = {t for t, _ in read_messages(bag, RawTopics(segmentation="/camera/segmentation").all())}
    assert written and "/mnemo/observations" not in topics and "/camera/segmentation" in topics

    data = tmp_path / "data"
    report = ingest_raw_bag(str(bag), str(data), map_scenario=str(tiny_path))
    assert report.frames == written // 6 and report.dropped == 0 and report.records > 10

    graph = GraphStore(data).load()  # what the scene-graph node would serve
    remotes = graph.query(label="remote control", include_stale=True)
    assert len(remotes) == 1 and remotes[0].parent == "sofa_1"
    assert not any(n.prop("instance_id") for n in graph.nodes())
    memory = MemoryService.open(get_embedder(), data)
    try:
        hits = memory.search_text("remote control", k=3)
    finally:
        memory.close()
    assert hits and all("sofa" in h.caption for h in hits if "remote control" in h.caption)
    assert all(s.object_id in {n.id for n in graph.nodes()} for h in hits for s in h.sightings)

    # the live honest run over the same frames believes the same: the same things, on the same fixtures,
    # in the same state (a thing moved away since is stale in both: each frame's depth shows its place empty)
    live = _live_graph(tiny, task.at, every=3)
    assert _beliefs(graph) == _beliefs(live)
    assert ("mug", "coffee_table_1", "current") not in {(lab, at, state) for lab, at, _, state in _beliefs(graph)}


def _live_graph(scenario, until, every):
    from mnemo_bench.realistic import RealisticPerceiver, declare_map_fixtures, integrate
    from mnemo_scene_graph.graph import SceneGraph
    from mnemo_sim.tasks import TaskRunner

    runner, perceiver, graph = TaskRunner(scenario), RealisticPerceiver(scenario, every=every, honest=True), SceneGraph()
    declare_map_fixtures(graph, scenario)
    try:
        for obs in runner.run_patrols(until):
            perceived = perceiver.perceive(runner.world, obs, patrol=True)
            if perceived is not None:
                integrate(graph, perceived)
    finally:
        perceiver.close()
    return graph


def _beliefs(graph):
    from collections import Counter

    return Counter((n.label, n.parent, n.prop("color"), n.state) for n in graph.nodes(kind="object", include_stale=True))
