"""Planner benchmark: the planner's own overhead per step (policy + loop, excluding skill, memory
and scene-graph time) against the time of the toolbox calls alone, measured in the same run; and
success / physical actions per family on the repo's scenarios, in-process, offline policy.

    python src/mnemo_planner/bench/bench_planner.py [--scenarios a,b] [--seed 0]
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import defaultdict

from mnemo_bench.ablation import Ablation
from mnemo_bench.stack import InProcessStack
from mnemo_common.embedding import get_embedder
from mnemo_planner.policy import GeneralPolicy
from mnemo_sim import list_scenarios

TARGET_MS = 20.0


class TimedEmbedder:
    """The embedding model with its time counted, so model time can be told from planner time."""

    def __init__(self, inner):
        self.inner, self.name, self.dim, self.seconds = inner, inner.name, inner.dim, 0.0

    def embed(self, texts):
        t0 = time.perf_counter()
        try:
            return self.inner.embed(texts)
        finally:
            self.seconds += time.perf_counter() - t0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--scenarios", default="", help="comma-separated scenario names (default: all shipped)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--files", default="", help="comma-separated household-scenario/1 files to run instead "
                                                "(e.g. the held-out homes in src/mnemo_planner/test/data)")
    args = p.parse_args(argv)
    wanted = [s for s in args.scenarios.split(",") if s]
    scenarios = [s for s in list_scenarios() if not wanted or s.stem in wanted]
    if args.files:
        from pathlib import Path

        scenarios = [Path(f) for f in args.files.split(",") if f]
    embedder = TimedEmbedder(get_embedder())
    embedder.embed(["warm up"])  # model load is not planner overhead

    per_step_planner, per_step_tools, per_step_model, runs = [], [], [], []
    t_all = time.perf_counter()
    for path in scenarios:
        stack = InProcessStack(path, Ablation(), seed=args.seed)
        for task in stack.scenario.tasks:
            embedder.seconds = 0.0
            run = stack.run_task(task.id, GeneralPolicy(embedder=embedder))
            runs.append((path.stem, run))
            if run.steps:
                per_step_model.append(1000.0 * embedder.seconds / run.steps)
                per_step_planner.append(1000.0 * max(0.0, run.planner_seconds - embedder.seconds) / run.steps)
                per_step_tools.append(1000.0 * (run.wall_time - run.planner_seconds) / run.steps)
    total = time.perf_counter() - t_all

    print(f"\nPlanner overhead per step ({len(per_step_planner)} tasks, {sum(r.steps for _, r in runs)} steps, "
          f"{len(scenarios)} scenarios, {total:.1f} s)")
    print(f"{'':28}{'median ms':>10}{'mean ms':>10}{'p90 ms':>10}")
    for name, xs in (("planner (policy + loop)", per_step_planner), ("embedding model", per_step_model),
                     ("toolbox calls (baseline)", per_step_tools)):
        xs = sorted(xs)
        print(f"{name:28}{statistics.median(xs):10.2f}{statistics.mean(xs):10.2f}{xs[int(0.9 * (len(xs) - 1))]:10.2f}")
    ratio = statistics.mean(per_step_planner) / max(1e-9, statistics.mean(per_step_tools))
    print(f"planner / toolbox = {ratio:.2f}x; target <= {TARGET_MS:.0f} ms per step: "
          f"{'met' if statistics.mean(per_step_planner) <= TARGET_MS else 'NOT met'} (mean)")

    by = defaultdict(list)
    for _, r in runs:
        by[(r.type, r.family)].append(r)
    print(f"\n{'type':12}{'family':22}{'n':>3}{'success':>9}{'actions/success':>17}{'optimal':>9}{'ratio':>7}")
    for key in sorted(by):
        rs = by[key]
        ok = [r for r in rs if r.success]
        acts = sum(r.physical_actions for r in ok)
        opt = sum(r.optimal_actions for r in ok)
        ratio = f"{acts / opt:.2f}" if opt else "-"
        print(f"{key[0]:12}{key[1]:22}{len(rs):3d}{len(ok) / len(rs):9.2f}"
              f"{(acts / len(ok) if ok else 0):17.2f}{(opt / len(ok) if ok else 0):9.2f}{ratio:>7}")
    by_type = defaultdict(list)
    for _, r in runs:
        by_type[r.type].append(r)
    print(f"\n{'type':12}{'n':>3}{'success':>9}{'actions/optimal (successes)':>29}")
    for t, rs in sorted(by_type.items()):
        ok = [r for r in rs if r.success]
        opt = sum(r.optimal_actions for r in ok)
        ratio = f"{sum(r.physical_actions for r in ok) / opt:.2f}" if opt else "-"
        print(f"{t:12}{len(rs):3d}{len(ok) / len(rs):9.2f}{ratio:>29}")
    ok = [r for _, r in runs if r.success]
    opt = sum(r.optimal_actions for r in ok)
    print(f"{'all':12}{len(runs):3d}{len(ok) / len(runs):9.2f}"
          f"{(sum(r.physical_actions for r in ok) / opt if opt else 0):29.2f}")
    per_task = [r.physical_actions / r.optimal_actions for r in ok if r.optimal_actions]
    if per_task:
        print(f"mean of per-task actions/optimal (successes): {statistics.mean(per_task):.2f}")
    failed = [(s, r) for s, r in runs if not r.success]
    if failed:
        print("\nfailed: " + ", ".join(f"{s}/{r.task_id} ({r.detail})" for s, r in failed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
