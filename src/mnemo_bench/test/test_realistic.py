"""Realistic perception: rendered frames -> ground-truth segmentation -> deprojection -> scene graph."""
import pytest


def test_rendered_patrol_frames_place_objects_on_their_fixtures(tiny):
    pytest.importorskip("mujoco")
    from mnemo_common.embedding import get_embedder
    from mnemo_scene_graph.graph import SceneGraph
    from mnemo_sim.render import RenderUnavailable
    from mnemo_sim.tasks import TaskRunner

    from mnemo_bench.realistic import RealisticPerceiver, declare_map_fixtures, integrate

    get_embedder()  # load torch before any EGL context (see runner.run_suite)
    runner = TaskRunner(tiny, 0)
    perceiver = RealisticPerceiver(tiny, every=4)
    graph = SceneGraph()
    declare_map_fixtures(graph, tiny)
    seen = []
    try:
        for obs in runner.run_patrols(tiny.patrol[0].end_t):
            perceived = perceiver.perceive(runner.world, obs, patrol=True)
            if perceived is not None:
                assert not obs.sightings or perceived.obs.sightings == []  # the oracle's sightings are dropped
                seen.append(integrate(graph, perceived))
    except RenderUnavailable as exc:
        pytest.skip(f"no GL: {exc}")
    finally:
        perceiver.close()
    assert perceiver.frames_rendered == len(seen) == 30  # every 4th of 120 frames
    mugs = graph.query(label="mug", include_stale=True)
    assert any(n.parent == "table_1" and n.prop("color") == "red" for n in mugs), \
        f"the red mug on the table was not placed there: {[(n.id, n.parent, n.prop('color')) for n in mugs]}"
    sightings = [s for o in seen for s in o.sightings if s.kind == "object"]
    assert sightings and all(s.support for s in sightings if s.label == "mug")
