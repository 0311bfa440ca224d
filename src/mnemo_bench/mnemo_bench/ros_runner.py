"""``mnemo bench --ros``: the same tasks through the ROS nodes, compared with the in-process run.

Starts ``launch/sim.launch.py`` (every node its own process over DDS, a private domain id) and
drives it exactly as the main job does (``mnemo_planner.main_job._run``: RunPatrol, StartTask,
the RetrieveObject action, ScoreTask). The planner node runs the offline policy with everything
on, i.e. the ``full`` method. The simulator node takes the scenario's own seed (the launch file
has no seed argument), so the in-process comparison runs with ``seed=None`` too. Rows that differ
between the two runs are counted in ``meta["ros_mismatches"]`` and listed in ``meta["ros_diff"]``.
Locked retries over ROS are read from the traces (an ``open`` of a container whose earlier open in
the same sequence reported it locked), since the truth stays inside the simulator node.
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any, Callable, Optional, Sequence

from mnemo_bench.runner import Progress, SuiteResult, TaskRow, ordered_tasks, run_suite

COMPARED = ("success", "detail", "steps", "physical_actions", "answer", "object_id")


def _locked_retries(rows: list[TaskRow]) -> None:
    import re

    found: dict[str, set[str]] = {}
    for r in rows:
        scope = found.setdefault(r.sequence or f"task:{r.task_id}", set())
        for step in r.trace:
            m = re.match(r"open\(target=([^,)]+)\) -> (.*)", step)
            if not m:
                continue
            if m.group(1) in scope:
                r.locked_retries += 1
            elif "locked" in m.group(2).lower() and "failed" in m.group(2).lower():
                scope.add(m.group(1))


def run_ros_scenario(scenario: Any, path: Path, tasks: list[Any], out: Path, timeout: float = 300.0) -> list[TaskRow]:
    from mnemo_common.launcher import start_launch_file
    from mnemo_common.processes import REPO_ROOT, enter_domain, restore_domain, ros_env, unique_domain_id
    from mnemo_planner.main_job import _run

    run_dir = Path(out) / "ros" / scenario.name
    run_dir.mkdir(parents=True, exist_ok=True)
    domain = unique_domain_id()
    saved = enter_domain(domain)
    processes = start_launch_file(REPO_ROOT / "launch" / "sim.launch.py",
                                  {"scenario": str(path), "data_dir": str(run_dir / "data"), "render": "false",
                                   "perception": "oracle", "policy": "offline"}, env=ros_env(domain), log_dir=run_dir / "logs")
    try:
        outcomes, _, _ = _run(scenario, tasks, argparse.Namespace(timeout=timeout), processes)
    finally:
        for proc in processes:
            proc.stop()
        restore_domain(saved)
    by_id = {t.id: t for t in tasks}
    rows = []
    for o in outcomes:
        ratio = o.physical_actions / o.optimal_actions if o.optimal_actions else None
        rows.append(TaskRow(scenario.name, "full (ROS)", o.task_id, o.type, o.family, by_id[o.task_id].sequence or "",
                            o.instruction, o.success, o.planner_success, o.detail, o.steps, o.budget,
                            o.physical_actions, o.optimal_actions, ratio, o.wall_time, 0, o.answer, o.object_id,
                            list(o.trace)))
    _locked_retries(rows)
    return rows


def compare(ros_rows: Sequence[TaskRow], local_rows: Sequence[TaskRow]) -> list[dict]:
    local = {(r.scenario, r.task_id): r for r in local_rows}
    diffs = []
    for r in ros_rows:
        other = local.get((r.scenario, r.task_id))
        if other is None:
            continue
        fields = {f: (getattr(r, f), getattr(other, f)) for f in COMPARED if getattr(r, f) != getattr(other, f)}
        if fields:
            diffs.append({"scenario": r.scenario, "task": r.task_id,
                          "differs": {f: {"ros": a, "in_process": b} for f, (a, b) in fields.items()}})
    return diffs


def run_ros_suite(scenarios: Sequence[Any], methods: Sequence[Any], paths: Sequence[Path], seed: int = 0,
                  out: Path = Path("bench_results"), task_filter: Optional[Callable[[Any, Any], bool]] = None,
                  progress: bool = True) -> SuiteResult:
    """The ``full`` method over ROS, plus the in-process run of the same tasks (scenario seed) to compare."""
    from mnemo_bench.methods import METHODS

    t0 = time.perf_counter()
    rows: list[TaskRow] = []
    for sc, path in zip(scenarios, paths):
        tasks = [t for t in ordered_tasks(sc) if task_filter is None or task_filter(sc, t)]
        rows += run_ros_scenario(sc, Path(path), tasks, Path(out))
    local = run_suite(scenarios, [METHODS["full"]], seed=None, progress=progress, task_filter=task_filter).rows
    diffs = compare(rows, local)
    bar = Progress(0, enabled=False)
    del bar
    meta = {"seed": "scenario (the sim node's default)", "perception": "oracle",
            "methods": ["full (ROS)", "full"], "scenarios": [sc.name for sc in scenarios],
            "tasks": len(local), "seconds": round(time.perf_counter() - t0, 2),
            "ros_mismatches": len(diffs), "ros_diff": diffs}
    if seed not in (None, 0):
        meta["note"] = "--seed is not passed to the ROS simulator (sim.launch.py has no seed argument)"
    return SuiteResult(rows + list(local), [], meta)
