"""The benchmark's protocol in the in-process stack: a task sees only what was observed no later
than its start (memory answers and scene graph), tasks run in clock order, and what the robot
observed in one task never reaches another that started at the same clock.

The scenario: a red mug stands on the dining table until day 1 10:00, when it moves to the coffee
table. The day-0 patrol saw it on the table; the day-1 patrol (11:00-12:00) sees it on the coffee
table. ``where_mug`` (day 1 10:30) runs after the sequence ``later`` (its second task on day 1
13:00 patrols day 1 first), so that patrol is in memory and the scene graph when it runs, but
stamped after its start."""
import copy

import pytest

from mnemo_planner.tools import Action

from mnemo_bench.horizon import GraphHistory
from mnemo_bench.stack import InProcessStack

pytest.importorskip("mnemo_sim.tasks")
from mnemo_sim.scenario import clock, parse_scenario  # noqa: E402
from mnemo_sim.tasks import ordered_tasks  # noqa: E402

FLAT = {
    "format": "household-scenario/1",
    "name": "moved_mug",
    "seed": 3,
    "rooms": [{"id": "kitchen", "rect": [0.0, 0.0, 4.0, 4.0]}, {"id": "living_room", "rect": [4.0, 0.0, 8.0, 4.0]}],
    "doors": [{"between": ["kitchen", "living_room"], "at": [4.0, 2.0]}],
    "fixtures": [
        {"id": "table_1", "class": "dining table", "room": "kitchen", "pose": [2.0, 2.0, 0.0],
         "size": [1.0, 0.8, 0.75], "kind": "surface"},
        {"id": "cabinet_2", "class": "cabinet", "room": "kitchen", "pose": [0.3, 2.5, 0.0],
         "size": [0.4, 0.6, 0.9], "kind": "container", "openable": True},
        {"id": "sofa_1", "class": "sofa", "room": "living_room", "pose": [6.0, 3.4, 3.1416],
         "size": [1.8, 0.8, 0.45], "kind": "surface"},
        {"id": "coffee_table_1", "class": "coffee table", "room": "living_room", "pose": [6.0, 2.0, 0.0],
         "size": [0.9, 0.5, 0.45], "kind": "surface"},
    ],
    "objects": [
        {"id": "mug_1", "class": "mug", "attributes": {"color": "red"}, "size": [0.08, 0.08, 0.10], "at": "table_1"},
        {"id": "remote_1", "class": "remote control", "attributes": {"color": "black"},
         "size": [0.05, 0.18, 0.02], "at": "sofa_1"},
        {"id": "ketchup_1", "class": "ketchup bottle", "attributes": {"color": "red"},
         "size": [0.06, 0.06, 0.2], "at": "cabinet_2"},
    ],
    "timeline": [{"day": 1, "time": "10:00", "move": "mug_1", "to": "coffee_table_1"}],
    "patrol": [
        {"day": 0, "start": "09:00", "end": "12:00", "observations": 120, "route": ["kitchen", "living_room"]},
        {"day": 1, "start": "11:00", "end": "12:00", "observations": 60, "route": ["kitchen", "living_room"]},
    ],
    "tasks": [
        {"id": "later_remote", "at": {"day": 0, "time": "13:00"}, "instruction": "Bring me the remote control.",
         "type": "visible", "family": "class", "success": {"pick_any": ["remote_1"]}, "optimal_actions": 2,
         "budget": 12, "sequence": "later"},
        {"id": "later_ketchup", "at": {"day": 1, "time": "13:00"}, "instruction": "Find the ketchup in the cabinet.",
         "type": "interactive", "family": "class", "success": {"reach_any": ["cabinet_2"]}, "optimal_actions": 2,
         "budget": 12, "sequence": "later"},
        {"id": "where_mug", "at": {"day": 1, "time": "10:30"}, "instruction": "Where did you last see the red mug?",
         "type": "recall", "family": "memory_query", "success": {"answer_any": ["dining table"]},
         "optimal_actions": 0, "budget": 6},
    ],
}


class Scripted:
    """Plays the given actions, then keeps every outcome it was shown."""

    def __init__(self, actions):
        self.actions, self.seen = list(actions), []

    def decide(self, state):
        self.seen = [entry.outcome for entry in state.history]
        return self.actions[len(state.history)] if len(state.history) < len(self.actions) else Action("done")


ASK = [Action("search_memory", {"text": "red mug", "k": 50}),
       Action("search_memory_time", {"text": "red mug", "k": 50, "since": 0.0}),
       Action("search_memory_position", {"x": 6.0, "y": 2.0, "radius": 3.0, "k": 50}),
       Action("query_scene_graph", {"label": "mug", "include_stale": True})]


def _flat(**changes):
    data = copy.deepcopy(FLAT)
    data.update(changes)
    return parse_scenario(data)


def _records(outcomes):
    return [r for o in outcomes for r in o.data.get("records", [])]


def _mug_parents(outcomes):
    return {n["parent"] for o in outcomes for n in o.data.get("nodes", []) if n["label"] == "mug"}


@pytest.fixture(scope="module")
def moved(embedder):
    """The stack after the sequence ran ahead of ``where_mug`` (clock order), and the scripted asking."""
    sc = _flat()
    assert [t.id for t in ordered_tasks(sc)] == ["later_remote", "later_ketchup", "where_mug"]
    stack = InProcessStack(sc, seed=0)
    for tid in ("later_remote", "later_ketchup"):
        stack.run_task(tid, Scripted([]))
    asking = Scripted(ASK)
    stack.run_task("where_mug", asking)
    return stack, asking


def test_a_later_patrol_is_in_memory_and_the_graph_but_not_for_an_earlier_task(moved):
    stack, asking = moved
    start = clock(1, "10:30")
    # the later observation exists (so the checks below can fail) ...
    later = [r for r in stack.memory.search_text("red mug", k=200) if r.stamp > start]
    assert any("coffee" in r.caption for r in later)
    assert "coffee_table_1" in {n.parent for n in stack.history.as_of(clock(1, "12:00")).nodes(kind="object")
                                if n.label == "mug"}
    # ... but the task's memory answers and scene graph stop at its start
    records = _records(asking.seen)
    assert records and all(r.stamp <= start for r in records)
    assert _mug_parents(asking.seen) == {"table_1"}


def test_a_recall_before_the_later_patrol_answers_the_old_place(moved, embedder):
    from mnemo_planner.policy import GeneralPolicy

    stack, _ = moved
    run = stack.run_task("where_mug", GeneralPolicy(embedder=embedder))
    assert run.success, (run.answer, run.detail)


def test_two_tasks_at_the_same_clock_do_not_see_each_other(embedder):
    """The first task walks to the coffee table and sees the mug there (after the shared start);
    the second, an independent trial at the same clock, asks memory and the graph about the mug."""
    tasks = [{**FLAT["tasks"][2], "id": "go_look", "type": "visible", "instruction": "Go to the coffee table.",
              "success": {"reach_any": ["coffee_table_1"]}, "optimal_actions": 1},
             {**FLAT["tasks"][2], "id": "ask"}]
    stack = InProcessStack(_flat(tasks=tasks, patrol=FLAT["patrol"][:1]), seed=0)
    looking = Scripted([Action("navigate", {"target": "coffee_table_1"})])
    stack.run_task("go_look", looking)
    start = clock(1, "10:30")
    assert stack.runner.world.t > start
    assert "coffee_table_1" in _mug_parents([stack.toolbox.execute(Action("query_scene_graph", {"label": "mug"}))])
    asking = Scripted(ASK)
    stack.run_task("ask", asking)
    records = _records(asking.seen)
    assert records and all(r.stamp <= start for r in records)
    assert _mug_parents(asking.seen) == {"table_1"}


def test_graph_history_replays_evidence_up_to_a_clock():
    from mnemo_scene_graph.graph import SceneGraph

    history = GraphHistory(SceneGraph())

    def add(fid):
        return lambda graph: graph.add_fixture(fid, "table", (0.0, 0.0, 0.0), room="kitchen")

    history.record(10.0, add("a"))
    history.record(30.0, add("c"))
    assert {"a", "c"} <= {n.id for n in history.view.nodes()}  # applied at once
    history.record(20.0, add("b"), now=False)
    assert {n.id for n in history.as_of(20.0).nodes()} == {"a", "b"}
    assert {n.id for n in history.as_of(5.0).nodes()} == set()
    assert {n.id for n in history.as_of(30.0).nodes()} == {"a", "b", "c"}
    history.as_of(20.0)
    history.record(25.0, add("d"))  # what a task starting at 20 sees itself: in its view at once ...
    assert {n.id for n in history.view.nodes()} == {"a", "b", "d"}
    assert {n.id for n in history.as_of(20.0).nodes()} == {"a", "b"}  # ... not in another trial's at 20
