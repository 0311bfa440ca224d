#!/usr/bin/env python3
"""Fault injection: SIGKILL each node of the simulated stack (launch/sim.launch.py, every node
respawning) in the middle of a RetrieveObject task and during a patrol, and check what a robot
relies on: every memory record, scene-graph node and event, and keyframe acknowledged before the
kill is served again after it; the node is back (answering) within 30 s; the task ends, with a
result or a clear code, within its timeout. Prints the fault matrix (node x moment -> outcome).

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


def probes() -> dict[str, tuple[Any, str, Any]]:
    """For each node: a service call that answers only when that node is up."""
    from mnemo_common import names
    from mnemo_interfaces.action import RetrieveObject  # noqa: F401 - the planner is probed as an action
    from mnemo_interfaces.srv import Detect, GetSceneGraph, QueryKeyframes, RunPatrol, SearchMemoryByText, UpdateNode

    return {names.MEMORY_NODE: (SearchMemoryByText, names.MEMORY_SEARCH_TEXT, SearchMemoryByText.Request(text="a", k=1)),
            names.SCENE_GRAPH_NODE: (GetSceneGraph, names.GRAPH_GET, GetSceneGraph.Request()),
            names.KEYFRAMES_NODE: (QueryKeyframes, names.KEYFRAMES_QUERY, QueryKeyframes.Request(limit=1)),
            names.PERCEPTION_NODE: (Detect, names.PERCEPTION_DETECT, Detect.Request(query="")),
            names.SIM_NODE: (RunPatrol, names.SIM_RUN_PATROL, None),
            names.ANALYZER_NODE: (UpdateNode, names.GRAPH_UPDATE, None),
            names.PLANNER_NODE: (None, names.RETRIEVE_OBJECT, None)}


@dataclass
class Snapshot:
    records: set[str] = field(default_factory=set)
    graph_nodes: set[str] = field(default_factory=set)
    events: dict[str, int] = field(default_factory=dict)  # graph node -> history length
    keyframes: set[str] = field(default_factory=set)


@dataclass
class Outcome:
    node: str
    moment: str
    task: str = ""
    result: str = ""
    task_seconds: float = 0.0
    back_seconds: Optional[float] = None
    lost: list[str] = field(default_factory=list)

    def ok(self) -> bool:
        return (not self.lost and self.back_seconds is not None and self.back_seconds <= BACK_WITHIN
                and not self.result.startswith("HANG"))


class FaultStack:
    """The simulated stack with every node respawning, and a client."""

    def __init__(self, out: Path):
        from mnemo_common.launcher import start_launch_file
        from mnemo_common.processes import ros_env, unique_domain_id
        from mnemo_common.ros_client import RosClient

        self.domain = unique_domain_id()
        os.environ.update({"ROS_DOMAIN_ID": str(self.domain), "ROS_AUTOMATIC_DISCOVERY_RANGE": "LOCALHOST"})
        self.events: list[str] = []
        self.launch = start_launch_file(ROOT / "launch/sim.launch.py",
                                        {"scenario": str(SCENARIO), "data_dir": str(out / "data")},
                                        env=ros_env(self.domain), log_dir=out / "logs", on_event=self.events.append)
        self.client = RosClient("fault_injector")
        from mnemo_common import names
        from mnemo_interfaces.srv import GetSceneGraph, QueryKeyframes, RunPatrol, SearchMemoryByText, StartTask

        missing = self.client.wait_for_services(
            [(RunPatrol, names.SIM_RUN_PATROL), (StartTask, names.SIM_START_TASK),
             (SearchMemoryByText, names.MEMORY_SEARCH_TEXT), (GetSceneGraph, names.GRAPH_GET),
             (QueryKeyframes, names.KEYFRAMES_QUERY)], timeout=180.0)
        if missing:
            self.close()
            raise RuntimeError(f"the stack did not come up: {missing}")

    def close(self) -> None:
        self.client.close()
        self.launch.stop()

    # -- what was acknowledged --------------------------------------------------------------
    def snapshot(self) -> Snapshot:
        from mnemo_common import limits, names
        from mnemo_common.ros import time_to_msg
        from mnemo_interfaces.srv import GetNodeHistory, GetSceneGraph, QueryKeyframes, SearchMemoryByTime

        snap = Snapshot()
        # every record, newest first, a day at a time (a query answers at most MAX_K)
        for day in range(0, 40):
            res = self.client.call(SearchMemoryByTime, names.MEMORY_SEARCH_TIME, SearchMemoryByTime.Request(
                use_range=True, since=time_to_msg(day * 86400.0 * 0.25), until=time_to_msg((day + 1) * 86400.0 * 0.25),
                k=limits.MAX_K), timeout=30.0)
            snap.records.update(r.id for r in res.records)
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
    def kill(self, name: str) -> int:
        proc = self.launch.by_name(name)
        restarts = proc.restarts
        os.kill(proc.proc.pid, signal.SIGKILL)
        return restarts

    def wait_back(self, name: str, restarts_before: int, t_kill: float) -> Optional[float]:
        """Seconds from the kill until the respawned node answers its probe (None: not within 60 s)."""
        from mnemo_interfaces.action import RetrieveObject
        from rclpy.action import ActionClient

        proc = self.launch.by_name(name)
        srv_type, srv_name, request = probes()[name]
        deadline = t_kill + 60.0
        while proc.restarts <= restarts_before or not proc.alive():
            if time.monotonic() > deadline:
                return None
            time.sleep(0.05)
        if srv_type is None:  # the planner: its action server
            action = ActionClient(self.client.node, RetrieveObject, srv_name)
            ok = action.wait_for_server(timeout_sec=max(0.0, deadline - time.monotonic()))
            action.destroy()
            return time.monotonic() - t_kill if ok else None
        if request is None:  # a node whose services are not its liveness: the process and its log
            while "ready" not in proc.log().rsplit("respawn", 1)[-1]:
                if time.monotonic() > deadline or not proc.alive():
                    return None
                time.sleep(0.1)
            return time.monotonic() - t_kill
        while time.monotonic() < deadline:
            try:
                res = self.client.call(srv_type, srv_name, request, timeout=2.0)
                if res.error_code in (0, 1, 2):  # answered (a refusal is an answer)
                    return time.monotonic() - t_kill
            except (TimeoutError, RuntimeError):
                pass
            time.sleep(0.2)
        return None

    def patrol(self, task_id: str, timeout: float = 300.0) -> str:
        from mnemo_common import names
        from mnemo_interfaces.srv import RunPatrol

        from mnemo_planner.main_job import _wait_for_memory

        res = self.client.call(RunPatrol, names.SIM_RUN_PATROL, RunPatrol.Request(until_task=task_id), timeout=timeout)
        if res.error_code:
            return f"patrol error {res.error_code}: {res.error_msg}"
        if res.observations:
            _wait_for_memory(self.client)
        return f"patrol ok ({res.observations} observations)"

    def run_task(self, task_id: str, kill: Optional[str] = None) -> tuple[str, float, Optional[float], int, float]:
        """Start the task and send its goal, killing ``kill`` after the first feedback. Returns
        (result text, seconds, kill time, restarts before the kill, time of the kill)."""
        from action_msgs.msg import GoalStatus

        from mnemo_common import names
        from mnemo_interfaces.action import RetrieveObject
        from mnemo_interfaces.srv import StartTask

        start = self.client.call(StartTask, names.SIM_START_TASK, StartTask.Request(task_id=task_id))
        if start.error_code:
            return f"start_task error {start.error_code}: {start.error_msg}", 0.0, None, 0, 0.0
        feedback: list[Any] = []
        killed: dict[str, Any] = {}

        def on_feedback(fb) -> None:
            feedback.append(fb)
            if kill and not killed:
                killed["t"], killed["restarts"] = time.monotonic(), self.kill(kill)

        t0 = time.monotonic()
        goal = RetrieveObject.Goal(instruction=start.instruction, budget=start.budget, task_id=task_id)
        try:
            status, result = self.client.send_goal(RetrieveObject, names.RETRIEVE_OBJECT, goal,
                                                   feedback=on_feedback, timeout=TASK_TIMEOUT)
            text = (f"{GoalStatus(status).name if hasattr(GoalStatus, 'name') else status}: success={result.success} "
                    f"code={result.error_code} steps={result.steps_used}")
            if status == GoalStatus.STATUS_SUCCEEDED:
                text = f"success={result.success} code={result.error_code} steps={result.steps_used}"
            else:
                text = f"status {status} code={result.error_code} ({result.error_msg[:60]})"
        except TimeoutError:
            text = "HANG: no result within the task timeout"
        if kill == names.PLANNER_NODE and text.startswith("HANG"):
            text = "goal lost with the planner (client times out)"
        return text, time.monotonic() - t0, killed.get("t"), killed.get("restarts", 0), killed.get("t", 0.0)


def inject(stack: FaultStack, node: str, moment: str, task_id: str) -> Outcome:
    outcome = Outcome(node, moment, task_id)
    if moment == "patrol":
        before = stack.snapshot()
        done: dict[str, str] = {}
        worker = threading.Thread(target=lambda: done.setdefault("r", _safe(lambda: stack.patrol(task_id, 120.0))))
        worker.start()
        time.sleep(1.0)
        t_kill = time.monotonic()
        restarts = stack.kill(node)
        outcome.back_seconds = stack.wait_back(node, restarts, t_kill)
        worker.join(180.0)
        outcome.result = done.get("r", "HANG: patrol call never ended")
        outcome.task_seconds = time.monotonic() - t_kill
    else:
        stack.patrol(task_id)
        before = stack.snapshot()
        text, seconds, t_kill, restarts, _ = stack.run_task(task_id, kill=node)
        outcome.result, outcome.task_seconds = text, seconds
        if t_kill is None:
            outcome.result += " (ended before the first feedback: not killed)"
            outcome.back_seconds = 0.0
        else:
            outcome.back_seconds = stack.wait_back(node, restarts, t_kill)
    outcome.lost = stack.lost(before)
    return outcome


def _safe(fn) -> str:
    try:
        return fn()
    except Exception as exc:  # noqa: BLE001 - a call that fails is an outcome to report
        return f"{type(exc).__name__}: {str(exc)[:80]}"


def table(outcomes: list[Outcome]) -> str:
    lines = ["| node | moment | task | outcome | task s | back in s | lost |", "|---|---|---|---|---|---|---|"]
    for o in outcomes:
        back = f"{o.back_seconds:.1f}" if o.back_seconds is not None else "NOT BACK"
        lines.append(f"| {o.node} | {o.moment} | {o.task} | {o.result} | {o.task_seconds:.1f} | {back} | "
                     f"{', '.join(o.lost) or 'none'} |")
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

    out = args.out or Path(tempfile.mkdtemp(prefix="mnemo_faults_"))
    tasks = [t.id for t in load_scenario(SCENARIO).tasks]
    # one task per node (in clock order): the kill during its patrol, then during the task itself
    rounds = [(node, moment, tasks[i % len(tasks)]) for i, node in enumerate(args.nodes) for moment in
              sorted(args.moments, key=lambda m: m != "patrol")]
    stack = FaultStack(out)
    outcomes = []
    try:
        for node, moment, task in rounds:
            outcome = inject(stack, node, moment, task)
            outcomes.append(outcome)
            print(f"{node} killed during the {moment} of {task}: {outcome.result}; back in {outcome.back_seconds}; "
                  f"lost: {outcome.lost or 'none'}", flush=True)
    finally:
        stack.close()
    print("\n" + table(outcomes))
    print(f"\nsupervisor: {len(stack.events)} events; logs in {out / 'logs'}")
    return 0 if all(o.ok() for o in outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
