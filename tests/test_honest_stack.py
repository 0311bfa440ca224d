"""Honest perception over DDS, rendering on: the whole stack from launch/sim.launch.py with
perception:=honest on the tiny flat, rewritten so that every simulator object id and authored-only
attribute carries a marker. A rendered patrol of three days goes through the perception node
(detections from pixels of every frame the simulator renders, one per ``image_every`` observations of
config/sim.yaml; it moves on from a frame only once perception has answered it, so every frame counts
however slow the machine), the scene graph (association into its own node
ids, supports from geometry) and memory (records from the graph-named observations); then one task
of each kind runs through the RetrieveObject action and is scored. Nothing downstream of the camera
may carry the marker: not perception's detections, the graph, the observations memory stores,
memory's answers, nor what the planner was told and answered."""
import importlib.util
import math
import time

import pytest
import rclpy
import yaml
from action_msgs.msg import GoalStatus

from mnemo_common import names
from mnemo_common.launcher import start_launch_file
from mnemo_common.processes import REPO_ROOT, enter_domain, restore_domain, ros_env, unique_domain_id
from mnemo_interfaces.msg import Status
from mnemo_planner.main_job import _wait_for_memory

pytestmark = [pytest.mark.ros, pytest.mark.slow]
TINY = REPO_ROOT / "src/mnemo_bench/test/tiny_flat.yaml"
PATROL_RATE = 0.0  # observations/s: as fast as perception answers the frames
# the simulator renders every Nth patrol observation, as the deployment's YAML says
IMAGE_EVERY = yaml.safe_load((REPO_ROOT / "config/sim.yaml").read_text())["mnemo_sim"]["ros__parameters"].get(
    "image_every", 1)
TASKS = ["recall_remote", "red_mug", "remote", "go_ketchup"]  # a home's questions before its fetch tasks


def _bench_honest_test():
    """The in-process honest test's scenario marking (one definition for both tests)."""
    path = REPO_ROOT / "src/mnemo_bench/test/test_honest.py"
    spec = importlib.util.spec_from_file_location("bench_test_honest", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _text(value) -> str:
    """Every string of a message, recursively (what a leak check searches)."""
    if hasattr(value, "get_fields_and_field_types"):
        return " ".join(_text(getattr(value, f)) for f in value.get_fields_and_field_types())
    if isinstance(value, (list, tuple)):
        return " ".join(_text(v) for v in value)
    return value if isinstance(value, str) else ""


@pytest.fixture(scope="module")
def honest_stack(tmp_path_factory):
    pytest.importorskip("mujoco")
    out = tmp_path_factory.mktemp("honest")
    bench = _bench_honest_test()
    scenario = bench.marked_scenario(TINY, out)
    domain = unique_domain_id()
    saved = enter_domain(domain)
    processes = start_launch_file(REPO_ROOT / "launch/sim.launch.py",
                                  {"scenario": str(out / "tiny_marked.yaml"), "data_dir": str(out / "data"),
                                   "perception": "honest"},
                                  env=ros_env(domain), log_dir=out / "logs")
    from mnemo_common.ros import latched_qos
    from mnemo_common.ros_client import RosClient
    from mnemo_common.ros import sensor_qos
    from mnemo_interfaces.msg import DetectionArray, InstanceSegmentation, Observation, SceneGraph

    client = RosClient("honest_e2e_client")
    seen = {"detections": [], "observations": [], "graph": [], "segment ids": []}
    client.subscribe(InstanceSegmentation, names.SEGMENTATION,
                     lambda m: seen["segment ids"].append(list(m.instance_ids)),
                     sensor_qos(reliable=True, depth=50))  # best effort loses most frames of a few MB
    client.subscribe(DetectionArray, names.DETECTIONS, seen["detections"].append, 1000)
    client.subscribe(Observation, names.OBSERVATIONS, seen["observations"].append, 1000)
    client.subscribe(SceneGraph, names.SCENE_GRAPH, seen["graph"].append, latched_qos())
    try:
        from mnemo_interfaces.srv import Detect, GetSceneGraph, RunPatrol, SearchMemoryByText, StartTask

        # perception too: the patrol waits for its answer to every frame
        missing = client.wait_for_services([(RunPatrol, names.SIM_RUN_PATROL), (StartTask, names.SIM_START_TASK),
                                            (SearchMemoryByText, names.MEMORY_SEARCH_TEXT),
                                            (GetSceneGraph, names.GRAPH_GET), (Detect, names.PERCEPTION_DETECT)],
                                           timeout=120.0)
        assert not missing, f"services never came up: {missing}; logs: " + "; ".join(
            f"{p.name}: {p.log()[-800:]}" for p in processes if not p.alive())
        yield client, processes, seen, bench.MARK, scenario
    finally:
        client.close()
        for p in processes:
            p.stop()
        restore_domain(saved)


def test_patrol_and_tasks_over_dds_without_simulator_ids(honest_stack):
    from mnemo_interfaces.action import RetrieveObject
    from mnemo_interfaces.srv import GetSceneGraph, RunPatrol, ScoreTask, SearchMemoryByText, StartTask

    client, processes, seen, mark, scenario = honest_stack
    t0 = time.monotonic()
    patrol = client.call(RunPatrol, names.SIM_RUN_PATROL, RunPatrol.Request(until_task=TASKS[0], rate=PATROL_RATE),
                         timeout=300.0)
    assert patrol.error_code == Status.OK, patrol.error_msg
    _wait_for_memory(client)
    patrol_s = time.monotonic() - t0

    # perception built detections from pixels of every patrol frame, one per image_every observations (a
    # frame sent again may be answered twice), the graph named them, memory stored graph-named observations
    answers = list(seen["detections"])
    perceived = {rclpy.time.Time.from_msg(m.header.stamp).nanoseconds for m in answers}
    assert len(perceived) == math.ceil(patrol.observations / IMAGE_EVERY), (len(perceived), patrol.observations)
    frames = [m for m in answers if m.detections]
    objects = [d for m in frames for d in m.detections if d.kind == "object"]
    assert objects and all(not d.instance_id for d in objects)
    assert any(kv.key == "color" for d in objects for kv in d.attributes)  # measured from pixels
    graph = client.call(GetSceneGraph, names.GRAPH_GET, GetSceneGraph.Request(include_stale=True)).graph
    object_nodes = {n.id: n for n in graph.nodes if n.kind == "object"}
    assert {n.label for n in object_nodes.values()} >= {"mug", "remote control"}
    named = [s for m in seen["observations"] for s in m.sightings if s.kind == "object"]
    # named by graph nodes (a node may since have been merged into its look-alike: it moved)
    assert named and all(s.object_id for s in named) and {s.object_id for s in named} & set(object_nodes)
    assert any(s.support for s in named)  # supports inferred from geometry against the mapped furniture
    hits = client.call(SearchMemoryByText, names.MEMORY_SEARCH_TEXT,
                       SearchMemoryByText.Request(text="remote control", k=5))
    assert hits.error_code == Status.OK and hits.records

    told, rates = [hits], {}
    for task_id in TASKS:
        patrol = client.call(RunPatrol, names.SIM_RUN_PATROL, RunPatrol.Request(until_task=task_id, rate=PATROL_RATE),
                             timeout=300.0)
        assert patrol.error_code == Status.OK, patrol.error_msg
        if patrol.observations:
            _wait_for_memory(client)
        start = client.call(StartTask, names.SIM_START_TASK, StartTask.Request(task_id=task_id))
        assert start.error_code == Status.OK, start.error_msg
        feedback = []
        status, result = client.send_goal(RetrieveObject, names.RETRIEVE_OBJECT,
                                          RetrieveObject.Goal(instruction=start.instruction, budget=start.budget,
                                                              task_id=task_id),
                                          feedback=feedback.append, timeout=120.0)
        assert status in (GoalStatus.STATUS_SUCCEEDED, GoalStatus.STATUS_ABORTED), (task_id, status)
        score = client.call(ScoreTask, names.SIM_SCORE_TASK, ScoreTask.Request(task_id=task_id, answer=result.answer))
        assert score.error_code == Status.OK, score.error_msg
        rates[task_id] = (bool(score.success), score.detail)
        told += [result, *feedback]
        if score.success and scenario.task_by_id[task_id].type == "visible":
            # the planner names what it picked by the graph's node; the scorer alone knows the instance
            assert result.object_id and not result.object_id.startswith(mark), result.object_id
    print(f"honest DDS stack: patrol {patrol_s:.0f} s, {len(perceived)} frames perceived, {len(frames)} of "
          f"{len(answers)} answers with detections, object nodes "
          f"{sorted((n.id, n.state) for n in object_nodes.values())}; tasks {rates}")

    graph = client.call(GetSceneGraph, names.GRAPH_GET, GetSceneGraph.Request(include_stale=True)).graph
    assert seen["segment ids"] and any(ids for ids in seen["segment ids"])  # fixtures keep the map's ids
    for where, messages in [("the simulator's segmentation", seen["segment ids"]),
                            ("perception", seen["detections"]), ("observations for memory", seen["observations"]),
                            ("scene graph", [graph, *seen["graph"]]), ("memory or planner", told)]:
        leaks = [t for t in map(_text, messages) if mark in t]
        assert not leaks, f"{where} saw the simulator's ids or authored attributes: {leaks[0][:400]}"
    # every frame is perceived, so the outcome does not hang on what a machine renders: 4 of 4 in each run
    # on a shared 2-core machine; one miss is allowed, never the recall
    assert rates["recall_remote"][0] and sum(ok for ok, _ in rates.values()) >= 3, rates
    assert all(p.alive() for p in processes)
