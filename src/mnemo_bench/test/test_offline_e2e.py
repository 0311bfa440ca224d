"""The planner's offline policy (``GeneralPolicy``) end to end in-process: the repo's scenarios, patrolled into memory and the
scene graph, each task run through the loop and judged by the simulator's scorer.

The repo scenarios run once per module (the slow part: patrol days into memory) and several tests
judge those runs: success per task type against issue 8's targets, physical actions against
optimal, and the locked-then-find rule."""
from collections import defaultdict

import pytest

from mnemo_planner.dialogue import DialogueContext
from mnemo_planner.policy import GeneralPolicy

from mnemo_bench.ablation import Ablation
from mnemo_bench.stack import InProcessStack, run_scenario

pytest.importorskip("mnemo_sim.tasks")
from mnemo_sim import list_scenarios  # noqa: E402
from mnemo_sim.scenario import load_scenario  # noqa: E402

# the module's runs of the four repo homes take ~2 min on an idle 2-core machine; a loaded one takes
# several times that, and the first test pays for them
pytestmark = pytest.mark.timeout(900)

EXAMPLE = [p for p in list_scenarios() if p.stem == "example_apartment"]
TARGETS = {"visible": 0.9, "interactive": 0.8, "commonsense": 0.6, "recall": 0.8}  # issue 8 (+ recall)
# Physical actions per success over optimal, all types, on these four homes. Issue 8 asked 1.25 of the
# offline policy tuned to them (it measured 1.02). The general policy that replaced it searches unseen
# homes by meaning and measured 1.55 here (long searches for things asked by a need) against 1.20 on
# generated development homes, where issue 15's 1.25 target is measured (mnemo bench --generated).
ACTIONS_CEILING = 1.6

# The example scenario's tasks with their instructions reworded.
PARAPHRASED = {
    "class_book": "Could you get me any book?",
    "attr_green_folder": "Please grab the green file folder.",
    "spatial_coffee_table_book": "Grab the book lying on the coffee table",
    "st_desk_book": "Fetch the book I saw on the desk the day before yesterday",
    "sf_sink_mug": "Get me the mug that normally sits next to the sink",
    "cs_milk": "Could you bring me some milk?",
    "seq_banana": "Search the cabinets in the kitchen for the banana.",
    "seq_ketchup": "Next, look for the ketchup.",
    "recall_keys_like": "Where have you last seen the TV remote?",
}


def _summary(runs):
    return "\n".join(f"{r.task_id}: {r.success} ({r.detail}) steps={r.steps} actions={r.physical_actions}/"
                     f"{r.optimal_actions} :: " + " | ".join(f"{s.tool}{s.arguments}->{s.outcome[:60]}" for s in r.trace)
                     for r in runs)


@pytest.fixture(scope="module")
def repo_runs(embedder):
    return {path: run_scenario(path, seed=0) for path in list_scenarios()}


def test_the_policy_meets_the_success_targets_on_the_repo_scenarios(repo_runs):
    runs = [r for rs in repo_runs.values() for r in rs]
    assert runs
    by_type = defaultdict(list)
    for r in runs:
        by_type[r.type].append(r)
        assert r.steps <= r.budget
    for kind, floor in TARGETS.items():
        of_kind = by_type.get(kind, [])
        if of_kind:
            assert sum(r.success for r in of_kind) / len(of_kind) >= floor, _summary(of_kind)


def test_physical_actions_stay_near_optimal(repo_runs):
    ok = [r for rs in repo_runs.values() for r in rs if r.success and r.optimal_actions]
    ratio = sum(r.physical_actions for r in ok) / sum(r.optimal_actions for r in ok)
    assert ratio <= ACTIONS_CEILING, _summary(sorted(ok, key=lambda r: r.optimal_actions - r.physical_actions)[:8])


def test_an_object_moved_since_memory_saw_it_costs_drives_not_grasps(embedder):
    """On arriving, the policy reads what the camera saw there from the scene graph (no physical
    action): where memory put the object but it has since gone, the drive is spent, not a blind
    grasp as well, until the object is seen and fetched."""
    from mnemo_planner.loop import run_task

    stack = InProcessStack(EXAMPLE[0], seed=0)
    stack.patrol("attr_green_folder")
    info = stack.runner.start_task("attr_green_folder")
    world = stack.runner.world
    believed = {n.id: (str(getattr(n.properties.get("instance_id"), "value", "")), n.parent)
                for n in stack.graph.nodes(kind="object", include_stale=False)}
    before = next(parent for inst, parent in believed.values() if inst == "folder_1")
    for inst, parent in believed.values():  # the rest of what the graph believes there is there
        if parent == before and inst and inst != "folder_1" and world.truth_location(inst) is not None:
            world.put(inst, before)
    dest = "shelf_1" if before != "shelf_1" else "counter_1"
    world.put("folder_1", dest)  # moved after the robot last saw it
    policy = GeneralPolicy(embedder=embedder)
    result = run_task(info.instruction, info.budget, policy, stack.toolbox, lambda: world.t)
    steps = [(s.tool, s.arguments.get("target", ""), s.ok) for s in result.trace]
    assert stack.runner.score("attr_green_folder").success, steps
    assert steps[-1] == ("pick", "folder_1", True), steps
    first = steps.index(("navigate", before, True))  # memory's place was tried first...
    there = steps[first + 1:]
    there = there[:next((i for i, s in enumerate(there) if s[0] == "navigate"), len(there))]
    assert there == [("query_scene_graph", "", True)], steps  # ...and ruled out by a look, not a grasp


def test_a_container_found_locked_is_never_tried_again(repo_runs):
    """Within a locked-then-find sequence, once an open attempt taught that a container is locked,
    no later open of it, in that task or the next ones."""
    checked = 0
    for path, runs in repo_runs.items():
        sequence_of = {t.id: t.sequence for t in load_scenario(path).tasks}
        known_locked: dict[str, set] = defaultdict(set)
        for r in runs:
            seq = sequence_of.get(r.task_id)
            if not seq:
                continue
            for step in r.trace:
                if step.tool != "open":
                    continue
                target = step.arguments.get("target", "")
                assert target not in known_locked[seq], f"{path.stem}/{r.task_id} opened {target} again:\n" + _summary([r])
                if "locked=true" in step.outcome:
                    known_locked[seq].add(target)
                    checked += 1
    assert checked, "no sequence found a locked container: the check checked nothing"


def test_follow_up_continues_in_the_previous_scope(embedder):
    """'Now find the ketchup.' right after 'Look in the kitchen cabinets and find the banana.' searches
    the remaining kitchen cabinets, not the fridge (which the same words alone would rank first)."""
    if not EXAMPLE:
        pytest.skip("example scenario not shipped")
    stack = InProcessStack(EXAMPLE[0], seed=0)
    first = stack.run_task("seq_banana", GeneralPolicy())
    follow = stack.run_task("seq_ketchup", GeneralPolicy())
    assert first.success and follow.success, _summary([first, follow])
    visited = [s.arguments["target"] for s in follow.trace if s.tool == "navigate"]
    assert visited and all(v.startswith("cabinet_") for v in visited), _summary([follow])
    # without the dialogue context the same request is not scoped
    alone = GeneralPolicy(context=DialogueContext())
    alone_run = stack.run_task("seq_ketchup", alone)
    assert alone._t.g.scope == []
    assert alone_run.trace[0].tool == "query_scene_graph"


@pytest.mark.skipif(not EXAMPLE, reason="example scenario not shipped")
def test_the_policy_follows_paraphrased_instructions(embedder):
    stack = InProcessStack(EXAMPLE[0], seed=0)
    runs = [stack.run_task(t.id, GeneralPolicy(), PARAPHRASED.get(t.id, "")) for t in stack.scenario.tasks]
    failed = [r for r in runs if not r.success]
    assert len(failed) <= 1, _summary(runs)


@pytest.mark.skipif(not EXAMPLE, reason="example scenario not shipped")
def test_without_scene_graph_memory_alone_still_answers(embedder):
    runs = run_scenario(EXAMPLE[0], ablation=Ablation(use_scene_graph=False), seed=0,
                        task_ids=["class_book", "recall_keys_like"])
    assert all(r.trace[0].tool != "query_scene_graph" for r in runs)


@pytest.mark.slow
@pytest.mark.skipif(not EXAMPLE, reason="example scenario not shipped")
def test_the_offline_policy_finishes_a_task_the_model_began(embedder):
    """On the example home: the LLM policy surveys and asks memory, then its endpoint fails; the
    offline policy (the planner node's fallback) carries on from that working memory and fetches
    the object, as the simulator's scorer judges."""
    from mnemo_common.fake_openai import FakeOpenAI
    from mnemo_common.llm import LlmConfig
    from mnemo_planner.llm_policy import MODEL_ERROR, LlmPolicy

    def call(name, arguments):
        return {"tool_calls": [{"name": name, "arguments": arguments}]}

    stack = InProcessStack(EXAMPLE[0], seed=0)
    with FakeOpenAI() as fake:
        fake.push(call("query_scene_graph", {}), call("search_memory", {"text": "book"}), 503)
        policy = LlmPolicy(LlmConfig(base_url=fake.base_url, model="fake-model", timeout=5.0),
                           fallback=GeneralPolicy(embedder=embedder))
        run = stack.run_task("class_book", policy)
        requests = len(fake.requests)
    tools = [s.tool for s in run.trace]
    assert tools[:3] == ["query_scene_graph", "search_memory", MODEL_ERROR], tools
    assert run.trace[2].arguments["fallback"] == "GeneralPolicy continues the task"
    assert run.success and tools[-1] == "pick" and requests == 3, run.trace
