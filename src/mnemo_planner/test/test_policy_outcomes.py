"""The general policy learns the robot's state from typed skill outcomes, never from the dialogue:
a request that follows a fetch does not assume the gripper still holds the fetched thing or that the
robot still stands where it picked it; a refusal because the gripper is full, or because the robot is
not at the fixture, corrects the belief and the task goes on."""
from __future__ import annotations

from mnemo_common.skill_codes import SkillCode
from mnemo_planner.dialogue import DialogueContext
from mnemo_planner.loop import run_task
from mnemo_planner.policy import GeneralPolicy
from mnemo_planner.tools import ToolOutcome

NODES = [
    {"id": "plinth_1", "kind": "fixture", "label": "table", "room": "atrium", "position": (1.0, 0.0, 0.7),
     "observation_count": 3, "last_seen": 10.0},
    {"id": "vault_1", "kind": "fixture", "label": "cupboard", "room": "atrium", "position": (3.0, 0.0, 0.5),
     "properties": {"state": "closed", "openable": "true"}, "last_seen": 10.0},
    {"id": "mug_1", "kind": "object", "label": "mug", "parent": "plinth_1", "room": "atrium", "last_seen": 10.0},
    {"id": "bowl_1", "kind": "object", "label": "bowl", "parent": "plinth_1", "room": "atrium", "last_seen": 10.0},
]


class World:
    """A robot at a fixture (or nowhere), with a gripper; skills answer with typed codes."""

    def __init__(self, holding: str = "", at: str = ""):
        self.holding, self.at, self.calls = holding, at, []

    def _fail(self, code: SkillCode, text: str, **data) -> ToolOutcome:
        return ToolOutcome(False, text, {"outcome": int(code), **data})

    def execute(self, action):
        tool, target = action.tool, str(action.arguments.get("target", ""))
        self.calls.append((tool, target))
        if tool == "query_scene_graph":
            return ToolOutcome(True, "graph", {"nodes": NODES})
        if tool == "navigate":
            self.at = target
            return ToolOutcome(True, "arrived", {"at_fixture": target, "robot_pose": (0.0, 0.0, 0.0)})
        if tool in ("open", "peek") and target != self.at:
            return self._fail(SkillCode.NOT_AT_FIXTURE, "somewhere else")
        if tool == "open":
            return ToolOutcome(True, "opened", {"outcome": 0})
        if tool == "peek":
            return ToolOutcome(True, "inside", {"contents": []})
        if tool == "detect":
            here = [n for n in NODES if n.get("parent") == self.at]
            return ToolOutcome(True, "seen", {"detections": [{"label": n["label"], "node_id": n["id"]} for n in here]})
        if tool == "place":
            if not self.holding:
                return self._fail(SkillCode.GRIPPER_EMPTY, "empty")
            self.holding = ""
            return ToolOutcome(True, "placed", {"outcome": 0})
        if tool == "pick":
            if self.holding:
                return self._fail(SkillCode.GRIPPER_OCCUPIED, "full")
            node = next((n for n in NODES if n["id"] == target), None)
            if node is None or node.get("parent") != self.at:
                return self._fail(SkillCode.NOT_VISIBLE, "not in view")
            self.holding = target
            return ToolOutcome(True, "picked", {"picked_id": target})
        return ToolOutcome(True, "ok", {})


def physical(world):
    return [c for c in world.calls if c[0] not in ("query_scene_graph",) and not c[0].startswith("search_memory")]


def test_a_request_after_a_fetch_does_not_assume_the_gripper_or_the_place():
    context = DialogueContext()
    first = World()
    assert run_task("bring me the mug", 12, GeneralPolicy(context=context), first, lambda: 100.0).success
    assert first.holding == "mug_1"
    # the fetched thing was handed over and the robot went elsewhere between the two requests
    second = World(holding="", at="")
    result = run_task("bring me the bowl", 12, GeneralPolicy(context=context), second, lambda: 200.0)
    assert result.success and second.holding == "bowl_1"
    assert physical(second)[0] == ("navigate", "plinth_1")
    assert not [c for c in second.calls if c[0] == "place"]


def test_a_full_gripper_is_emptied_when_a_grasp_is_refused_for_it():
    world = World(holding="spoon_9")
    result = run_task("bring me the bowl", 12, GeneralPolicy(), world, lambda: 100.0)
    assert result.success and world.holding == "bowl_1"
    tools = [c[0] for c in physical(world)]
    assert tools.index("place") > tools.index("pick") and tools.count("pick") == 2


def test_not_at_the_fixture_sends_the_robot_there_instead_of_repeating_the_skill():
    world = World()
    world.execute = _refuse_first_peek(world)
    run_task("find the ladle", 10, GeneralPolicy(), world, lambda: 100.0)
    calls = world.calls
    first = calls.index(("peek", "vault_1"))
    assert calls[first + 1] == ("navigate", "vault_1")  # the refusal taught that the robot is elsewhere
    assert calls.count(("peek", "vault_1")) == 2


def _refuse_first_peek(world):
    """The first look into a container is refused as if the robot had been moved away after arriving."""
    execute = World.execute.__get__(world)
    state = {"refused": False}

    def run(action):
        if action.tool == "peek" and not state["refused"]:
            state["refused"] = True
            world.calls.append((action.tool, str(action.arguments.get("target", ""))))
            return world._fail(SkillCode.NOT_AT_FIXTURE, "somewhere else")
        return execute(action)
    return run


def test_when_the_search_cannot_finish_the_nearest_thing_known_is_fetched():
    """A word no known label matches ("dinnerware": neither the embedding model nor the lexicon names a
    label by it): the search goes on while the budget allows, then settles for the known thing nearest
    the words instead of ending empty-handed."""
    world = World()
    result = run_task("bring me some dinnerware", 6, GeneralPolicy(), world, lambda: 100.0)
    assert world.holding in ("mug_1", "bowl_1"), world.calls
    assert result.steps_used <= 6
    assert any(tool == "navigate" and target == "vault_1" for tool, target in world.calls)  # it searched first
