#!/usr/bin/env python3
"""Fault injection: SIGKILL each node of the simulated stack (launch/sim.launch.py, every node
respawning) in the middle of a RetrieveObject task and during a patrol, and check what a robot
relies on: every memory record, scene-graph node and event, and keyframe acknowledged before the
kill is served again after it; the node is back (answering) within 30 s; the task ends, with a
result or a clear code, within its timeout. Prints the fault matrix (node x moment -> outcome).

The stack first patrols the scenario up to its tasks (days 0-2). A "task" kill lands at the
first feedback of a RetrieveObject goal (one of the scenario's tasks); a "patrol" kill lands at
the KILL_AT_OBSERVATION-th observation of a patrol of a fresh day (the scenario is extended with
a day per round: PATROL_OBSERVATIONS observations at PATROL_RATE per second, rendered, so that
keyframes are stored), once the memory has stored some of them: those are checked too.

    source scripts/env.sh
    python scripts/bench_faults.py                          # all seven nodes, both moments
    python scripts/bench_faults.py --nodes memory --moments task
"""
from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

ROOT = Path(__file__).resolve().parents[1]
SCENARIO = ROOT / "src/mnemo_sim/scenarios/example_apartment.yaml"
BACK_WITHIN = 30.0  # s a killed node has to answer again
TASK_TIMEOUT = 240.0  # s a RetrieveObject goal has to end
MOMENTS = ("task", "patrol")
PATROL_RATE = 30.0  # observations/s of a patrol round: it publishes for PATROL_OBSERVATIONS / PATROL_RATE s
PATROL_OBSERVATIONS = 300
KILL_AT_OBSERVATION = 45
FIRST_PATROL_DAY = 3  # the scenario's own patrols end on day 2


def fault_scenario(out: Path, days: int) -> Path:
    """The example scenario with ``days`` more patrol days, one per patrol round."""
    import yaml

    from mnemo_sim.scenario import load_scenario

    data = yaml.safe_load(SCENARIO.read_text())
    route = data["patrol"][0]["route"]
    data["patrol"] += [{"day": FIRST_PATROL_DAY + i, "start": "09:00", "end": "18:00",
                        "observations": PATROL_OBSERVATIONS, "route": route} for i in range(days)]
    path = out / "fault_scenario.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    load_scenario(path)  # still valid
    return path


def probes() -> dict[str, tuple[Any, str, Any]]:
    """For each node: a service call that answers (an error is an answer) only when that node is up;
    None: the node is up when its log says "ready" (the analyzer) or its action server is back."""
    from mnemo_common import names
    from mnemo_interfaces.action import RetrieveObject  # noqa: F401 - the planner is probed as an action
    from mnemo_interfaces.srv import Detect, GetSceneGraph, QueryKeyframes, ScoreTask, SearchMemoryByText, UpdateNode

    return {names.MEMORY_NODE: (SearchMemoryByText, names.MEMORY_SEARCH_TEXT, SearchMemoryByText.Request(text="a", k=1)),
            names.SCENE_GRAPH_NODE: (GetSceneGraph, names.GRAPH_GET, GetSceneGraph.Request()),
            names.KEYFRAMES_NODE: (QueryKeyframes, names.KEYFRAMES_QUERY, QueryKeyframes.Request(limit=1)),
            names.PERCEPTION_NODE: (Detect, names.PERCEPTION_DETECT, Detect.Request(query="")),
            names.SIM_NODE: (ScoreTask, names.SIM_SCORE_TASK, ScoreTask.Request(task_id="no_such_task")),
            names.ANALYZER_NODE: (UpdateNode, names.GRAPH_UPDATE, None),
            names.PLANNER_NODE: (None, names.RETRIEVE_OBJECT, None)}


@dataclass
class Snapshot:
    records: set[str] = field(default_factory=set)
    graph_nodes: set[str] = field(default_factory=set)
    events: dict[str, int] = field(default_factory=dict)  # graph node -> history length
    keyframes: set[str] = field(default_factory=set)

    def counts(self) -> str:
        return f"{len(self.records)}/{sum(self.events.values())}/{len(self.keyframes)}"


@dataclass
class Outcome:
    node: str
    moment: str
    task: str = ""
    result: str = ""
    task_seconds: float = 0.0
    back_seconds: Optional[float] = None
    lost: list[str] = field(default_factory=list)
    checked: str = ""  # records/events/keyframes acknowledged before the kill

    def ok(self) -> bool:
        return (not self.lost and self.back_seconds is not None and self.back_seconds <= BACK_WITHIN
                and not self.result.startswith("HANG") and self.task_seconds < TASK_TIMEOUT)


class FaultStack:
    """The simulated stack with every node respawning, patrolled up to the scenario's tasks, and a client."""

    def __init__(self, out: Path, patrol_days: int = 0):
        from mnemo_common import names
        from mnemo_common.launcher import start_launch_file
        from mnemo_common.processes import ros_env, unique_domain_id
        from mnemo_common.ros_client import RosClient
        from mnemo_interfaces.msg import Observation
        from mnemo_interfaces.srv import GetSceneGraph, QueryKeyframes, RunPatrol, SearchMemoryByText, StartTask

        self.domain = unique_domain_id()
        os.environ.update({"ROS_DOMAIN_ID": str(self.domain), "ROS_AUTOMATIC_DISCOVERY_RANGE": "LOCALHOST"})
        self.events: list[str] = []
        out.mkdir(parents=True, exist_ok=True)
        self.days = FIRST_PATROL_DAY + patrol_days
        self.launch = start_launch_file(ROOT / "launch/sim.launch.py",
                                        {"scenario": str(fault_scenario(out, patrol_days)),
                                         "data_dir": str(out / "data"), "perception": "oracle"},
                                        env=ros_env(self.domain), log_dir=out / "logs", on_event=self.events.append)
        self.client = RosClient("fault_injector")
        self.published = 0  # observations seen on the topic
        self.client.subscribe(Observation, names.OBSERVATIONS, self._count)
        missing = self.client.wait_for_services(
            [(RunPatrol, names.SIM_RUN_PATROL), (StartTask, names.SIM_START_TASK),
             (SearchMemoryByText, names.MEMORY_SEARCH_TEXT), (GetSceneGraph, names.GRAPH_GET),
             (QueryKeyframes, names.KEYFRAMES_QUERY)], timeout=180.0)
        if missing:
            self.close()
            raise RuntimeError(f"the stack did not come up: {missing}")
        # the scenario's own patrols, at full speed: the memory the tasks and kills work on
        self.patrol(f"day {FIRST_PATROL_DAY - 1} 18:00")
        self.settle()

    def _count(self, _msg) -> None:
        self.published += 1

    def close(self) -> None:
        self.client.close()
        self.launch.stop()

    # -- what was acknowledged --------------------------------------------------------------
    def records(self, day: int) -> set[str]:
        """Ids of the memory records stamped on ``day`` (two queries: a query answers at most MAX_K)."""
        from mnemo_common import limits, names
        from mnemo_common.ros import time_to_msg
        from mnemo_interfaces.srv import SearchMemoryByTime

        ids: set[str] = set()
        for half in (0, 1):
            since = (day + half / 2) * 86400.0
            res = self.client.call(SearchMemoryByTime, names.MEMORY_SEARCH_TIME, SearchMemoryByTime.Request(
                use_range=True, since=time_to_msg(since), until=time_to_msg(since + 43200.0), k=limits.MAX_K),
                timeout=30.0)
            if res.error_code:
                raise RuntimeError(f"memory answered {res.error_code}: {res.error_msg}")
            ids.update(r.id for r in res.records)
        return ids

    def snapshot(self) -> Snapshot:
        from mnemo_common import limits, names
        from mnemo_interfaces.srv import GetNodeHistory, GetSceneGraph, QueryKeyframes

        snap = Snapshot()
        for day in range(self.days):
            snap.records |= self.records(day)
        graph = self.client.call(GetSceneGraph, names.GRAPH_GET, GetSceneGraph.Request(include_stale=True)).graph
        snap.graph_nodes = {n.id for n in graph.nodes}
        for node_id in sorted(snap.graph_nodes)[:40]:
            history = self.client.call(GetNodeHistory, names.GRAPH_HISTORY, GetNodeHistory.Request(node_id=node_id))
            snap.events[node_id] = len(history.events)
        frames = self.client.call(QueryKeyframes, names.KEYFRAMES_QUERY, QueryKeyframes.Request(limit=limits.MAX_K))
        snap.keyframes = {k.id for k in frames.keyframes}
        return snap

    def lost(self, before: Snapshot) -> list[str]:
        after = self.snapshot()
        lost = [f"{len(before.records - after.records)} records"] if before.records - after.records else []
        if before.graph_nodes - after.graph_nodes:
            lost.append(f"graph nodes {sorted(before.graph_nodes - after.graph_nodes)[:5]}")
        shorter = [n for n, count in before.events.items() if after.events.get(n, 0) < count]
        if shorter:
            lost.append(f"events of {shorter[:5]}")
        if before.keyframes - after.keyframes:
            lost.append(f"{len(before.keyframes - after.keyframes)} keyframes")
        return lost

    # -- faults ---------------------------------------------------------------------------------
    def kill(self, name: str) -> tuple[int, frozenset]:
        """SIGKILL the node; (its restarts so far, the planner's action servers before the kill)."""
        from mnemo_common import names
        from mnemo_common.ros import service_servers

        proc = self.launch.by_name(name)
        restarts = proc.restarts
        servers = service_servers(self.client.node, f"{names.RETRIEVE_OBJECT}/_action/send_goal")
        os.kill(proc.proc.pid, signal.SIGKILL)
        return restarts, servers

    def wait_back(self, name: str, before: tuple[int, frozenset], t_kill: float) -> Optional[float]:
        """Seconds from the kill until the respawned node answers its probe (None: not within 60 s)."""
        from mnemo_common import names
        from mnemo_common.ros import service_servers
        from mnemo_common.ros_client import ServerLost

        restarts_before, servers_before = before
        proc = self.launch.by_name(name)
        srv_type, srv_name, request = probes()[name]
        deadline = t_kill + 60.0
        while proc.restarts <= restarts_before or not proc.alive():
            if time.monotonic() > deadline:
                return None
            time.sleep(0.05)
        if name == names.PLANNER_NODE:  # a new action server in the graph
            while not service_servers(self.client.node, f"{srv_name}/_action/send_goal") - servers_before:
                if time.monotonic() > deadline or not proc.alive():
                    return None
                time.sleep(0.1)
            return time.monotonic() - t_kill
        if request is None:  # a node whose services are not its liveness: the process and its log
            while "ready" not in proc.log().rsplit("respawn", 1)[-1]:
                if time.monotonic() > deadline or not proc.alive():
                    return None
                time.sleep(0.1)
            return time.monotonic() - t_kill
        while time.monotonic() < deadline:
            try:
                self.client.call(srv_type, srv_name, request, timeout=2.0)
                return time.monotonic() - t_kill
            except (TimeoutError, ServerLost, RuntimeError):
                time.sleep(0.2)
        return None

    def patrol(self, until: str, rate: float = 0.0, render: bool = False, timeout: float = 300.0) -> str:
        from mnemo_common import names
        from mnemo_interfaces.srv import RunPatrol

        res = self.client.call(RunPatrol, names.SIM_RUN_PATROL, RunPatrol.Request(until_task=until, rate=rate,
                                                                                  render=render), timeout=timeout)
        if res.error_code:
            return f"patrol error {res.error_code}: {res.error_msg}"
        return f"patrol ok ({res.observations} observations)"

    def settle(self) -> None:
        """Wait until the memory node has stored what was published."""
        from mnemo_planner.main_job import _wait_for_memory

        _wait_for_memory(self.client)

    def run_task(self, task_id: str, kill: Optional[str] = None) -> tuple[str, float, Optional[float], tuple,
                                                                         Optional[float]]:
        """Start the task and send its goal, killing ``kill`` at the first feedback. Returns
        (result text, seconds, time of the kill or None, what kill() returned, seconds until the killed
        node answered again, measured while the task goes on)."""
        from action_msgs.msg import GoalStatus

        from mnemo_common import names
        from mnemo_common.types import Status
        from mnemo_interfaces.action import RetrieveObject
        from mnemo_interfaces.srv import StartTask

        start = self.client.call(StartTask, names.SIM_START_TASK, StartTask.Request(task_id=task_id))
        if start.error_code:
            return f"start_task error {start.error_code}: {start.error_msg}", 0.0, None, ()
        killed: dict[str, Any] = {}

        def on_feedback(_fb) -> None:
            if kill and not killed:
                killed["t"], killed["before"] = time.monotonic(), self.kill(kill)
                # the node's return is timed from the kill, not from the end of a task that waited on it
                killed["watch"] = threading.Thread(target=lambda: killed.setdefault(
                    "back", self.wait_back(kill, killed["before"], killed["t"])), daemon=True)
                killed["watch"].start()

        t0 = time.monotonic()
        goal = RetrieveObject.Goal(instruction=start.instruction, budget=start.budget, task_id=task_id)
        status, result = self.client.send_goal(RetrieveObject, names.RETRIEVE_OBJECT, goal, feedback=on_feedback,
                                               timeout=TASK_TIMEOUT)
        code = Status(result.error_code).name if result.error_code in set(Status) else str(result.error_code)
        if status == GoalStatus.STATUS_SUCCEEDED and result.success:
            text = f"success ({result.steps_used} steps)"
        else:
            text = f"{code} ({result.error_msg[:70]})"
        seconds = time.monotonic() - t0
        if "watch" in killed:
            killed["watch"].join(90.0)
        return text, seconds, killed.get("t"), killed.get("before", ()), killed.get("back")


def inject(stack: FaultStack, node: str, moment: str, task_id: str, day: int = FIRST_PATROL_DAY) -> Outcome:
    """Kill ``node`` during a patrol of ``day`` or in the middle of task ``task_id``."""
    if moment == "patrol":
        outcome = Outcome(node, moment, f"patrol day {day}")
        before = stack.snapshot()
        done: dict[str, str] = {}
        published = stack.published
        worker = threading.Thread(target=lambda: done.setdefault("r", _safe(lambda: stack.patrol(
            f"day {day} 18:00", rate=PATROL_RATE, render=True, timeout=120.0))))
        worker.start()
        while stack.published - published < KILL_AT_OBSERVATION and worker.is_alive():
            time.sleep(0.01)
        # what the memory acknowledged of this patrol so far (it stores in batches: wait for one)
        deadline = time.monotonic() + 5.0
        while not (acked := stack.records(day)) and time.monotonic() < deadline:
            time.sleep(0.2)
        before.records |= acked
        mid_patrol = worker.is_alive()
        t_kill = time.monotonic()
        killed = stack.kill(node)
        outcome.back_seconds = stack.wait_back(node, killed, t_kill)
        worker.join(180.0)
        outcome.result = done.get("r", "HANG: patrol call never ended")
        outcome.task_seconds = time.monotonic() - t_kill
        if not mid_patrol:
            outcome.result += " (the patrol had ended before the kill)"
        stack.settle()
    else:
        outcome = Outcome(node, moment, task_id)
        stack.patrol(task_id)
        stack.settle()
        before = stack.snapshot()
        text, seconds, t_kill, killed, back = stack.run_task(task_id, kill=node)
        outcome.result, outcome.task_seconds = text, seconds
        if t_kill is None:
            outcome.result += " (ended before the first feedback: not killed)"
            outcome.back_seconds = 0.0
        else:
            outcome.back_seconds = back
    outcome.checked = before.counts()
    outcome.lost = stack.lost(before)
    return outcome


def _safe(fn) -> str:
    try:
        return fn()
    except Exception as exc:  # noqa: BLE001 - a call that fails is an outcome to report
        return f"{type(exc).__name__}: {str(exc)[:80]}"


def table(outcomes: list[Outcome]) -> str:
    lines = ["| node | moment | during | outcome | ends in s | back in s | checked (records/events/keyframes) | lost |",
             "|---|---|---|---|---|---|---|---|"]
    for o in outcomes:
        back = f"{o.back_seconds:.1f}" if o.back_seconds is not None else "NOT BACK"
        lines.append(f"| {o.node} | {o.moment} | {o.task} | {o.result} | {o.task_seconds:.1f} | {back} | "
                     f"{o.checked} | {', '.join(o.lost) or 'none'} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    from mnemo_common import names

    all_nodes = [names.MEMORY_NODE, names.SCENE_GRAPH_NODE, names.KEYFRAMES_NODE, names.PERCEPTION_NODE,
                 names.ANALYZER_NODE, names.PLANNER_NODE, names.SIM_NODE]
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", nargs="*", default=all_nodes, choices=all_nodes)
    parser.add_argument("--moments", nargs="*", default=list(MOMENTS), choices=MOMENTS)
    parser.add_argument("--out", type=Path, default=None, help="data and logs (default: a temporary folder)")
    args = parser.parse_args(argv)
    import tempfile

    from mnemo_sim.scenario import load_scenario
    from mnemo_sim.tasks import ordered_tasks

    out = args.out or Path(tempfile.mkdtemp(prefix="mnemo_faults_"))
    tasks = [t.id for t in ordered_tasks(load_scenario(SCENARIO)) if not t.sequence]
    # per node: the kill during a patrol (a fresh day each), then during a task
    rounds = [(node, moment, tasks[i % len(tasks)]) for i, node in enumerate(args.nodes) for moment in
              sorted(args.moments, key=lambda m: m != "patrol")]
    stack = FaultStack(out, patrol_days=sum(m == "patrol" for _, m, _ in rounds))
    outcomes = []
    day = FIRST_PATROL_DAY
    try:
        for node, moment, task in rounds:
            outcome = inject(stack, node, moment, task, day)
            day += moment == "patrol"
            outcomes.append(outcome)
            print(f"{node} killed during {outcome.task}: {outcome.result}; back in {outcome.back_seconds}; "
                  f"checked {outcome.checked}; lost: {outcome.lost or 'none'}", flush=True)
    finally:
        stack.close()
    print("\n" + table(outcomes))
    print(f"\nsupervisor: {len(stack.events)} events; logs in {out / 'logs'}")
    return 0 if all(o.ok() for o in outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
