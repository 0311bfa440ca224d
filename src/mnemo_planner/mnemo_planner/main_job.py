"""The main job (``mnemo run``): the whole stack against the built-in simulator.

Starts every node of ``launch/sim.launch.py`` as its own process over real DDS, lets the robot
patrol to build memory, then runs each of the scenario's tasks through the planner's
RetrieveObject action, printing progress and each outcome, and writes a run report (markdown
summary and a top-down map with the robot's path, the scene graph and each task's target).
No network or API key is needed; with ``--llm-base-url`` (or MNEMO_LLM_BASE_URL) the planner
uses the LLM policy. Perception is honest by default: the simulator publishes rendered RGB-D
frames only, perception detects from pixels, the scene graph names what it sees, and the planner
never sees a simulator id; ``--perception oracle`` hands the stack the simulator's own
observations instead, an upper bound. The run ends with the wall time of its phases (start-up,
patrol, tasks).

The horizon (a task never benefits from what was observed after its start) over ROS: tasks run
in clock order, as in the benchmark (``mnemo_sim.tasks.ordered_tasks``: by ``at``, a sequence
back to back); before each task the robot patrols only the segments that end by its ``at``; and
the planner bounds memory answers by the clock at the goal's start (``/clock``, published by
StartTask before it answers). What remains: the scene-graph node holds one graph with all the
robot observed, so a task that starts at the same clock as an earlier one (an independent trial),
or before a sequence task run ahead of it, can see in the graph what that task saw after its own
start, and the planner's dialogue context can carry it over. The in-process stack (``mnemo
bench``) bounds the scene graph and the dialogue too (``mnemo_bench.stack.InProcessStack``).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Optional

from mnemo_common import names
from mnemo_common.processes import REPO_ROOT, ros_env, unique_domain_id

LAUNCH_FILE = REPO_ROOT / "launch" / "sim.launch.py"


@dataclass
class TaskOutcome:
    task_id: str
    instruction: str
    type: str
    family: str
    success: bool
    planner_success: bool
    detail: str
    steps: int
    budget: int
    physical_actions: int
    optimal_actions: int
    object_id: str
    fixture_id: str
    answer: str
    wall_time: float
    trace: list[str] = field(default_factory=list)


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="mnemo run", description=__doc__.split("\n\n")[0])
    p.add_argument("--scenario", default="example_apartment",
                   help="a scenario name shipped with mnemo_sim, or a household-scenario/1 YAML file")
    p.add_argument("--tasks", default="", help="comma-separated task ids to run (default: all)")
    p.add_argument("--out", default="", help="run directory (default: runs/<scenario>-<time>)")
    p.add_argument("--render", action="store_true",
                   help="oracle perception: also render RGB-D frames during tasks (keyframes and the analyzer's "
                        "collage); honest perception always renders")
    p.add_argument("--llm-base-url", default=os.environ.get("MNEMO_LLM_BASE_URL", ""),
                   help="OpenAI-compatible endpoint for the LLM policy (default: offline policy)")
    p.add_argument("--perception", choices=("honest", "oracle"), default="honest",
                   help="honest (default): rendered RGB-D only, through perception and the scene graph's association; "
                        "no simulator id or authored attribute downstream of the camera | oracle: the simulator's own "
                        "observations (its instance ids, supports and authored attributes), an upper bound no robot "
                        "reaches")
    p.add_argument("--seed", type=int, default=-1, help="simulator seed (-1: the scenario's own)")
    p.add_argument("--timeout", type=float, default=300.0, help="seconds allowed per task")
    return p.parse_args(argv)


def resolve_scenario(arg: str) -> Path:
    path = Path(arg)
    if path.suffix in (".yaml", ".yml") and path.exists():
        return path.resolve()
    from mnemo_sim import scenarios_dir

    candidate = Path(scenarios_dir()) / f"{arg}.yaml"
    if not candidate.exists():
        raise SystemExit(f"mnemo run: no scenario {arg!r} (not a file, not in {scenarios_dir()})")
    return candidate


def select_tasks(scenario, ids: str) -> list:
    """The tasks to run, all or the comma-separated ``ids``, in the order they run: clock order."""
    from mnemo_sim.tasks import ordered_tasks

    wanted = [t for t in ids.split(",") if t]
    unknown = set(wanted) - set(scenario.task_by_id)
    if unknown:
        raise ValueError(f"unknown task ids {sorted(unknown)}")
    return [t for t in ordered_tasks(scenario) if not wanted or t.id in wanted]


def main(argv: Optional[list[str]] = None) -> int:
    args = parse_args(list(sys.argv[1:] if argv is None else argv))
    scenario_path = resolve_scenario(args.scenario)
    from mnemo_sim.scenario import ScenarioError, load_scenario

    try:
        scenario = load_scenario(scenario_path)
    except ScenarioError as exc:
        print(f"mnemo run: {exc}", file=sys.stderr)
        return 2
    try:
        tasks = select_tasks(scenario, args.tasks)
    except ValueError as exc:
        print(f"mnemo run: {exc}", file=sys.stderr)
        return 2

    out = Path(args.out or REPO_ROOT / "runs" / f"{scenario.name}-{time.strftime('%Y%m%d-%H%M%S')}").resolve()
    out.mkdir(parents=True, exist_ok=True)
    domain = int(os.environ.get("ROS_DOMAIN_ID") or unique_domain_id())
    os.environ.update({"ROS_DOMAIN_ID": str(domain), "ROS_AUTOMATIC_DISCOVERY_RANGE": "LOCALHOST"})
    env = ros_env(domain)
    launch_args = {
        "scenario": str(scenario_path),
        "data_dir": str(out / "data"),
        "render": "true" if args.render else "false",
        "seed": str(args.seed),
        "policy": "llm" if args.llm_base_url else "offline",
        "llm_base_url": args.llm_base_url,
        "perception": args.perception,
    }
    print(f"mnemo run: scenario {scenario.name} ({len(tasks)} tasks), {args.perception} perception, "
          f"run directory {out}")
    print(f"mnemo run: starting the stack from {LAUNCH_FILE.relative_to(REPO_ROOT)} (ROS_DOMAIN_ID={domain})")
    from mnemo_common.launcher import start_launch_file

    phases = Phases()
    processes = start_launch_file(LAUNCH_FILE, launch_args, env=env, log_dir=out / "logs")
    try:
        outcomes, path, graph = _run(scenario, tasks, args, processes, phases)
    finally:
        for proc in processes:
            proc.stop()
    from mnemo_planner.report import write_report

    report = write_report(out, scenario, outcomes, path, graph)
    succeeded = sum(o.success for o in outcomes)
    print(f"mnemo run: {succeeded}/{len(outcomes)} tasks succeeded in {phases.summary()}; report {report}")
    (out / "results.json").write_text(json.dumps([asdict(o) for o in outcomes], indent=2))
    return 0


@dataclass
class Phases:
    """Wall time of the main job's phases (where a run's minutes go)."""

    started: float = field(default_factory=time.monotonic)
    startup: float = 0.0  # launch until every node serves
    patrol: float = 0.0  # patrols and the wait for memory to store them
    tasks: float = 0.0  # the tasks' goals and scoring

    def summary(self) -> str:
        return (f"{time.monotonic() - self.started:.0f} s (start-up {self.startup:.0f} s, patrol {self.patrol:.0f} s, "
                f"tasks {self.tasks:.0f} s)")


def _run(scenario, tasks, args, processes, phases: Optional[Phases] = None):
    """Patrol and run each task over ROS: (outcomes, robot path, graph nodes); ``phases`` gathers the wall
    time of each phase (mnemo_bench's ROS runner calls this without one)."""
    phases = phases or Phases()
    from geometry_msgs.msg import PoseStamped

    from mnemo_common.ros_client import RosClient
    from mnemo_interfaces.action import RetrieveObject
    from mnemo_interfaces.srv import GetSceneGraph, RunPatrol, ScoreTask, SearchMemoryByText, StartTask

    client = RosClient("mnemo_main_job")
    path: list[tuple[float, float]] = []
    client.subscribe(PoseStamped, names.ROBOT_POSE,
                     lambda m: path.append((m.pose.position.x, m.pose.position.y)))
    try:
        needed = [(RunPatrol, names.SIM_RUN_PATROL), (StartTask, names.SIM_START_TASK),
                  (ScoreTask, names.SIM_SCORE_TASK), (SearchMemoryByText, names.MEMORY_SEARCH_TEXT),
                  (GetSceneGraph, names.GRAPH_GET)]
        missing = client.wait_for_services(needed, timeout=120.0)
        dead = [p.name for p in processes if not p.alive()]
        if missing or dead:
            raise RuntimeError(f"the stack did not come up: missing services {missing}, exited nodes {dead}; "
                               f"see the logs under {processes[0].log_dir if processes else '?'}")
        phases.startup = time.monotonic() - phases.started
        print(f"mnemo run: all nodes are up after {phases.startup:.0f} s")
        outcomes = []
        for i, task in enumerate(tasks, 1):
            t_patrol = time.monotonic()
            patrol = client.call(RunPatrol, names.SIM_RUN_PATROL,
                                 RunPatrol.Request(until_task=task.id, rate=0.0, render=False), timeout=600.0)
            if patrol.error_code:
                raise RuntimeError(f"patrol failed: {patrol.error_msg}")
            if patrol.observations:
                _wait_for_memory(client)
                print(f"mnemo run: patrolled {patrol.observations} observations before task {task.id} "
                      f"({time.monotonic() - t_patrol:.0f} s)")
            phases.patrol += time.monotonic() - t_patrol
            t_task = time.monotonic()
            start = client.call(StartTask, names.SIM_START_TASK, StartTask.Request(task_id=task.id))
            if start.error_code:
                raise RuntimeError(f"start_task {task.id} failed: {start.error_msg}")
            print(f"[{i}/{len(tasks)}] {task.id} ({task.type}/{task.family}): {start.instruction!r} "
                  f"budget {start.budget}")
            t0 = time.monotonic()

            def on_feedback(fb):
                s = fb.step
                args_text = ", ".join(f"{kv.key}={kv.value}" for kv in s.arguments)
                print(f"    step {s.index + 1}: {s.tool}({args_text}) -> {'ok' if s.ok else 'error'}: "
                      f"{s.outcome[:100]} [budget left {fb.remaining_budget}]")

            status, result = client.send_goal(
                RetrieveObject, names.RETRIEVE_OBJECT,
                RetrieveObject.Goal(instruction=start.instruction, budget=start.budget, task_id=task.id),
                feedback=on_feedback, timeout=args.timeout)
            if result.error_code:  # UNAVAILABLE when the planner died, TIMEOUT past --timeout, or its own code
                print(f"    planner: {_code_name(result.error_code)}: {result.error_msg[:200]}")
            score = client.call(ScoreTask, names.SIM_SCORE_TASK,
                                ScoreTask.Request(task_id=task.id, answer=result.answer))
            outcome = TaskOutcome(
                task.id, start.instruction, task.type, task.family, bool(score.success), bool(result.success),
                score.detail or score.error_msg, int(result.steps_used), int(start.budget),
                int(score.physical_actions), int(score.optimal_actions), result.object_id, result.fixture_id,
                result.answer, time.monotonic() - t0,
                [f"{s.tool}({', '.join(f'{kv.key}={kv.value}' for kv in s.arguments)}) -> {s.outcome}"
                 for s in result.trace])
            outcomes.append(outcome)
            phases.tasks += time.monotonic() - t_task
            print(f"    => {'SUCCESS' if outcome.success else 'FAILED'}: {outcome.detail} "
                  f"({outcome.steps} steps, {outcome.physical_actions} physical actions, "
                  f"optimal {outcome.optimal_actions})")
        graph = client.call(GetSceneGraph, names.GRAPH_GET, GetSceneGraph.Request(include_stale=True)).graph
        nodes = [{"id": n.id, "label": n.label, "kind": n.kind, "x": n.position.x, "y": n.position.y,
                  "state": n.state} for n in graph.nodes]
        return outcomes, list(path), nodes
    finally:
        client.close()


def _wait_for_memory(client, timeout: float = 120.0) -> None:
    """Wait until the memory node has stored what the patrol published (its count stops growing)."""
    from mnemo_interfaces.srv import SearchMemoryByTime

    last, stable_since = -1, time.monotonic()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        response = client.call(SearchMemoryByTime, names.MEMORY_SEARCH_TIME,
                               SearchMemoryByTime.Request(use_range=False, k=1, around=_far_future()))
        newest = response.records[0].stamp.sec if response.records else 0
        if newest != last:
            last, stable_since = newest, time.monotonic()
        elif time.monotonic() - stable_since > 1.5:
            return
        time.sleep(0.3)


def _code_name(code: int) -> str:
    from mnemo_common.types import Status

    return Status(code).name if code in set(Status) else str(code)


def _far_future():
    from builtin_interfaces.msg import Time

    return Time(sec=2_000_000_000)


if __name__ == "__main__":
    sys.exit(main())
