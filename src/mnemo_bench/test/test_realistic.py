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


def test_the_skills_see_a_node_in_the_colour_its_sightings_voted_not_the_colour_of_this_frame():
    """Seen white five times, a vase reads grey in the frame a skill looks at: the skill's detection
    names its node and says white, and the original detection (the graph's input) is left as it was."""
    from types import SimpleNamespace

    from mnemo_common.types import Detection, Observation, Pose2D, Pose3D
    from mnemo_scene_graph.graph import SceneGraph

    from mnemo_bench.realistic import Perceived, StackPerception, integrate

    def frame(stamp, color):
        vase = Detection("vase", 0.9, centroid=(1.0, 1.0, 0.9), box_min=(0.95, 0.95, 0.8), box_max=(1.05, 1.05, 1.0),
                         mask_area=400, attributes={"color": color})
        return Perceived(Observation(stamp, Pose2D(0.0, 0.0), Pose3D()), [vase])

    graph = SceneGraph()
    for t in range(5):
        integrate(graph, frame(float(t), "white"))
    now = frame(5.0, "grey")
    stack = SimpleNamespace(runner=SimpleNamespace(world=None, robot=None), toolbox=SimpleNamespace(graph=graph),
                            ingest=lambda views: [integrate(graph, v) for v in views])
    perceiver = SimpleNamespace(views=lambda world, robot: [now])
    [seen] = StackPerception(stack, perceiver).sense()
    assert seen.node_id == "vase_1" and seen.attributes == {"color": "white"}
    assert now.detections[0].attributes == {"color": "grey"}
