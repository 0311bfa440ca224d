"""Equal situations give the planner equal typed outcomes, whether the skills are the simulator's
(mnemo_sim.SimRobot) or the robot's (mnemo_skills.SkillServer over fakes of nav2, the controllers,
perception and the scene graph): the same actions go through the same in-process toolbox, and its
``outcome`` (a SkillCode), success and ``reachable_from`` must agree. And the same policy, handed
each side's working memory of the situation, decides the same next action."""
from __future__ import annotations

import copy
import math
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src/mnemo_skills/test"))

from mnemo_bench.toolbox import InProcessToolbox  # noqa: E402
from mnemo_common.skill_codes import SkillCode  # noqa: E402
from mnemo_planner.loop import PolicyInput, WorkingEntry  # noqa: E402
from mnemo_planner.tools import Action, ToolOutcome  # noqa: E402
from mnemo_sim.scenario import parse_scenario  # noqa: E402
from mnemo_sim.skills import SimRobot, SkillConfig  # noqa: E402
from mnemo_sim.world import World  # noqa: E402
from mnemo_skills.context import SkillSettings  # noqa: E402
from mnemo_skills.gate import OperatorGate  # noqa: E402
from mnemo_skills.server import SkillServer  # noqa: E402
from skills_fakes import FakeWorld, make_ports, profile  # noqa: E402

# The fakes' world (skills_fakes.FakeWorld) as a scenario: a table with a mug, a cabinet with a cup.
SCENARIO = {
    "format": "household-scenario/1", "name": "outcomes", "seed": 1,
    "rooms": [{"id": "kitchen", "rect": [-2.0, -1.0, 6.0, 7.0]}],
    "fixtures": [
        {"id": "table_1", "class": "table", "room": "kitchen", "pose": [0.0, 4.0, -1.5708], "size": [0.8, 1.2, 0.75],
         "kind": "surface"},
        {"id": "cabinet_1", "class": "cabinet", "room": "kitchen", "pose": [3.0, 1.0, 3.1416], "size": [0.5, 0.6, 0.9],
         "kind": "container"},
    ],
    "objects": [
        {"id": "mug_1", "class": "mug", "size": [0.08, 0.08, 0.1], "at": "table_1"},
        {"id": "cup_2", "class": "cup", "size": [0.08, 0.08, 0.1], "at": "cabinet_1"},
    ],
}
FAST = SkillSettings(navigate_timeout=5.0, skill_timeout=5.0, step_timeout=5.0, service_timeout=2.0)
FACING_THE_TABLE = {"x": 0.0, "y": 1.5, "yaw": math.pi / 2}  # 2 m in front of it, in view, out of reach


def cabinet_seen(state: str):
    """The robot's perception reports the cabinet open or closed (as the simulator's detections do)."""
    def setup(world: FakeWorld, server: SkillServer) -> None:
        for d in world.detections:
            if d.node_id == "cabinet_1":
                d.attributes["state"] = state
    return setup


# name: (actions before, the action compared, expected outcome, simulator setup, robot setup)
SITUATIONS = {
    "open a locked container": ([("navigate", {"target": "cabinet_1"})], ("open", {"target": "cabinet_1"}),
                                SkillCode.NO_MOTION, "locked", lambda w, s: setattr(w, "locked", True)),
    "open, missing the handle": ([("navigate", {"target": "cabinet_1"})], ("open", {"target": "cabinet_1"}),
                                 SkillCode.NO_MOTION, "miss", lambda w, s: setattr(w, "graspable", False)),
    "open while holding": ([("navigate", {"target": "table_1"}), ("pick", {"target": "mug"}),
                            ("navigate", {"target": "cabinet_1"})], ("open", {"target": "cabinet_1"}),
                           SkillCode.GRIPPER_OCCUPIED, None, None),
    "open away from the fixture": ([("navigate", {"target": "table_1"})], ("open", {"target": "cabinet_1"}),
                                   SkillCode.NOT_AT_FIXTURE, None, None),
    "open what is open": ([("navigate", {"target": "cabinet_1"})], ("open", {"target": "cabinet_1"}),
                          SkillCode.ALREADY_OPEN, "open", cabinet_seen("open")),
    "pick nothing in view": ([("navigate", {"target": "table_1"})], ("pick", {"target": "banana"}),
                             SkillCode.NOT_VISIBLE, None, None),
    "pick out of reach": ([("navigate", FACING_THE_TABLE)], ("pick", {"target": "mug"}),
                          SkillCode.OUT_OF_REACH, None, None),
    "pick while holding": ([("navigate", {"target": "table_1"}), ("pick", {"target": "mug"})],
                           ("pick", {"target": "mug"}), SkillCode.GRIPPER_OCCUPIED, None, None),
    "pick": ([("navigate", {"target": "table_1"})], ("pick", {"target": "mug"}), SkillCode.NONE, None, None),
    "place with an empty gripper": ([("navigate", {"target": "table_1"})], ("place", {"target": "table_1"}),
                                    SkillCode.GRIPPER_EMPTY, None, None),
    "place in a closed container": ([("navigate", {"target": "table_1"}), ("pick", {"target": "mug"}),
                                     ("navigate", {"target": "cabinet_1"})], ("place", {"target": "cabinet_1"}),
                                    SkillCode.CONTAINER_CLOSED, None, cabinet_seen("closed")),
    "peek into a closed container": ([("navigate", {"target": "cabinet_1"})], ("peek", {"target": "cabinet_1"}),
                                     SkillCode.CONTAINER_CLOSED, None, cabinet_seen("closed")),
    "navigate to an unknown target": ([], ("navigate", {"target": "fridge_9"}), SkillCode.UNKNOWN_TARGET,
                                      None, None),
}


def simulator(setup):
    data = copy.deepcopy(SCENARIO)
    data["fixtures"][1]["locked"] = setup == "locked"
    world = World(parse_scenario(data, "outcomes.yaml"))
    if setup == "open":
        world.set_open("cabinet_1", True)
    return InProcessToolbox(SimRobot(world, seed=0, config=SkillConfig(miss_rate=1.0 if setup == "miss" else 0.0)))


def robot(setup):
    world = FakeWorld(profile("tiago"))
    server = SkillServer(make_ports(world), world.profile, FAST, OperatorGate(enabled=False))
    if setup is not None:
        setup(world, server)
    return InProcessToolbox(server)


@pytest.mark.parametrize("name", list(SITUATIONS))
def test_equal_situations_give_equal_outcomes(name):
    before, (tool, args), expected, sim_setup, robot_setup = SITUATIONS[name]
    seen = {}
    for side, toolbox in (("simulator", simulator(sim_setup)), ("robot", robot(robot_setup))):
        for prep_tool, prep_args in before:
            prep = toolbox.execute(Action(prep_tool, dict(prep_args)))
            assert prep.ok, f"{side}: {prep.summary}"
        out = toolbox.execute(Action(tool, dict(args)))
        seen[side] = (out.ok, SkillCode(out.data["outcome"]), out.data.get("reachable_from", ""))
    assert seen["simulator"] == seen["robot"], seen
    success, outcome, reachable_from = seen["robot"]
    assert outcome == expected and success == (outcome in (SkillCode.NONE, SkillCode.ALREADY_OPEN))
    assert reachable_from == ("table_1" if outcome == SkillCode.OUT_OF_REACH else "")


# What the user asked for in each situation: the mug on the table, or the cup in the cabinet.
WANTED = {name: "cup" if "cabinet_1" in str(SITUATIONS[name][:2]) else "mug" for name in SITUATIONS}


def _node(node_id: str, kind: str, position: tuple, parent: str = "", state: str = "") -> dict:
    return {"id": node_id, "label": node_id.split("_")[0], "kind": kind, "position": position, "room": "kitchen",
            "parent": parent, "relation": "in" if parent == "cabinet_1" else "on" if parent else "",
            "first_seen": 0.0, "last_seen": 100.0, "observation_count": 1,
            "properties": {"state": state} if state else {}, "contents": [], "state": "current",
            "task_history": [], "trail": []}


# What the scene graph told the policy before the situation: the same on both sides.
SURVEY = WorkingEntry(Action("query_scene_graph", {}), ToolOutcome(True, "4 nodes", {"nodes": [
    _node("table_1", "fixture", (0.0, 4.0, 0.75)), _node("cabinet_1", "fixture", (3.0, 1.0, 0.9), state="closed"),
    _node("mug_1", "object", (0.0, 4.0, 0.8), "table_1"), _node("cup_2", "object", (3.0, 1.0, 0.5), "cabinet_1")]}))


@pytest.fixture(scope="module")
def embedder():
    from mnemo_common.embedding import get_embedder

    return get_embedder()


def _decision(policy, toolbox, name: str) -> tuple:
    before, compared, *_ = SITUATIONS[name]
    history = [SURVEY]
    for tool, args in [*before, compared]:
        history.append(WorkingEntry(Action(tool, dict(args)), toolbox.execute(Action(tool, dict(args)))))
    budget = 20
    action = policy.decide(PolicyInput(f"Bring me the {WANTED[name]}", 200.0, budget, budget - len(history), history))
    return action.tool, action.arguments


@pytest.mark.parametrize("name", [n for n in SITUATIONS if SITUATIONS[n][1][0] != "pick" or SITUATIONS[n][2]])
def test_equal_situations_give_the_policy_equal_decisions(name, embedder):
    """The general policy (mnemo_planner.policy), a fresh one per side, after the situation's actions
    (a successful pick ends the task, so it is not asked what comes next)."""
    from mnemo_planner.policy import GeneralPolicy

    _, _, _, sim_setup, robot_setup = SITUATIONS[name]
    on_simulator = _decision(GeneralPolicy(embedder=embedder), simulator(sim_setup), name)
    on_robot = _decision(GeneralPolicy(embedder=embedder), robot(robot_setup), name)
    assert on_simulator == on_robot, f"simulator: {on_simulator}, robot: {on_robot}"


@pytest.mark.ros
def test_the_ros_toolbox_reads_the_same_outcomes_over_dds():
    """The simulator's skills behind the skill services (as its node and skills_node serve them):
    the planner's ROS toolbox gets the outcomes the in-process toolbox gets."""
    rclpy = pytest.importorskip("rclpy")
    import threading
    import time

    from rclpy.callback_groups import MutuallyExclusiveCallbackGroup
    from rclpy.executors import MultiThreadedExecutor

    from mnemo_common import names
    from mnemo_common.processes import unique_domain_id
    from mnemo_common.ros import fill_skill_response, guarded, pose2d_from_msg, raise_for_failure
    from mnemo_interfaces import srv
    from mnemo_planner.ros_toolbox import RosToolbox

    actions = [("navigate", FACING_THE_TABLE), ("pick", {"target": "mug"}), ("navigate", {"target": "cabinet_1"}),
               ("open", {"target": "cabinet_1"}), ("close", {"target": "cabinet_1"}), ("place", {"target": "cabinet_1"})]
    in_process = simulator("locked")
    expected = [in_process.execute(Action(tool, dict(args))) for tool, args in actions]
    sim = simulator("locked").robot
    context = rclpy.Context()
    rclpy.init(context=context, domain_id=unique_domain_id())
    node = rclpy.create_node("skill_outcomes_test", context=context)
    skills_group = MutuallyExclusiveCallbackGroup()

    def serve(srv_type, name, run):
        def handler(request, response):
            result = run(request)
            fill_skill_response(response, result)
            raise_for_failure(result)
            return response
        node.create_service(srv_type, name, guarded(node, handler), callback_group=skills_group)

    serve(srv.Navigate, names.SKILL_NAVIGATE,
          lambda r: sim.navigate(r.target, None if r.target else pose2d_from_msg(r.pose)))
    for verb in ("pick", "open", "close", "place"):
        serve(getattr(srv, verb.capitalize()), getattr(names, f"SKILL_{verb.upper()}"),
              lambda r, verb=verb: getattr(sim, verb)(r.target))
    executor = MultiThreadedExecutor(num_threads=3, context=context)
    executor.add_node(node)
    threading.Thread(target=executor.spin, daemon=True).start()
    box = RosToolbox(node, service_timeout=5.0, skill_timeout=10.0)
    box.connect_timeout, box.analysis_wait, box.view_wait = 0.2, 0.0, 0.0
    try:
        for (tool, args), want in zip(actions, expected):
            task = executor.create_task(box.execute(Action(tool, dict(args))))
            deadline = time.monotonic() + 20.0
            while not task.done():
                assert time.monotonic() < deadline, f"{tool} hung"
                time.sleep(0.02)
            got = task.result()
            assert (got.ok, got.data["outcome"], got.data.get("reachable_from")) == \
                (want.ok, want.data["outcome"], want.data.get("reachable_from")), (tool, got, want)
        assert [SkillCode(w.data["outcome"]) for w in expected] == [
            SkillCode.NONE, SkillCode.OUT_OF_REACH, SkillCode.NONE, SkillCode.NO_MOTION, SkillCode.ALREADY_CLOSED,
            SkillCode.GRIPPER_EMPTY]
    finally:
        executor.shutdown(timeout_sec=2.0)
        node.destroy_node()
        rclpy.try_shutdown(context=context)
