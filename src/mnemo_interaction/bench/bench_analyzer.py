"""Locked vs missed-grasp accuracy of the signal-based interaction analyzer.

200 seeded open attempts with the simulator's own skills (``mnemo_sim.skills.SimRobot``) on the
containers of the example apartment, each home variant with a seeded half of its containers locked,
and a miss-grasp probability. Ground truth per attempt comes from the simulator: opened (the skill
succeeded), missed (the simulator's own miss draw came up), locked (the container is locked and the
grasp did not miss). The analyzer sees only the InteractionEvent (signals), never the truth.

Compared in the same run with a naive baseline ("a failed open means locked"). A second table runs
the same attempts with noisier sensors (contact flips, wider closure noise) to show the margin.

    python src/mnemo_interaction/bench/bench_analyzer.py [--trials 200] [--miss-rate 0.2] [--seed 1]
"""
from __future__ import annotations

import argparse
import copy
import sys
from collections import Counter
from dataclasses import replace
from pathlib import Path

import numpy as np
import yaml

from mnemo_common.types import InteractionEvent
from mnemo_interaction.signals import SignalAnalyzer
from mnemo_sim import scenarios_dir
from mnemo_sim.scenario import parse_scenario
from mnemo_sim.skills import SimRobot, SkillConfig
from mnemo_sim.world import World


class RecordingRng:
    """Wraps the robot's generator to read back the miss draw the simulator makes (ground truth)."""

    def __init__(self, rng: np.random.Generator):
        self._rng, self.last_random = rng, None

    def random(self, *a, **k):
        self.last_random = self._rng.random(*a, **k)
        return self.last_random

    def __getattr__(self, name):
        return getattr(self._rng, name)


def truth_of(event: InteractionEvent, missed: bool, locked: bool) -> str:
    if event.success:
        return "opened"
    return "missed" if missed else ("locked" if locked else "other")


def predict_signals(analyzer: SignalAnalyzer, event: InteractionEvent) -> str:
    a = analyzer.analyze(event)
    if a.task_success:
        return "opened"
    return {"locked": "locked", "missed_grasp": "missed"}.get(a.failure_reason, "other")


def predict_naive(event: InteractionEvent) -> str:
    return "opened" if event.success else "locked"


def noisier(event: InteractionEvent, rng: np.random.Generator) -> InteractionEvent:
    s = event.signals
    contact = (not s.contact) if rng.random() < 0.05 else s.contact
    closure = float(np.clip(s.gripper_closure + rng.normal(0, 0.06), 0.0, 1.0))
    effort = max(0.0, s.gripper_effort + rng.normal(0, 6.0))
    return replace(event, signals=replace(s, contact=contact, gripper_closure=closure, gripper_effort=effort,
                                          joint_displacement=s.joint_displacement + abs(rng.normal(0, 0.01))))


def run(trials: int, miss_rate: float, seed: int) -> list[tuple[InteractionEvent, str]]:
    base = yaml.safe_load((scenarios_dir() / "example_apartment.yaml").read_text())
    base.pop("tasks", None), base.pop("timeline", None), base.pop("patrol", None)
    containers = [f["id"] for f in base["fixtures"] if f.get("kind") == "container" and f.get("openable")]
    rng = np.random.default_rng(seed)
    out: list[tuple[InteractionEvent, str]] = []
    variants = max(1, trials // 20)
    for v in range(variants):
        data = copy.deepcopy(base)
        for f in data["fixtures"]:
            if f["id"] in containers:
                f["locked"] = bool(rng.random() < 0.5)
        scenario = parse_scenario(data, f"<variant {v}>")
        for t in range(trials // variants + (1 if v < trials % variants else 0)):
            world = World(scenario)
            robot = SimRobot(world, seed=int(rng.integers(1 << 31)), config=SkillConfig(miss_rate=miss_rate))
            recorder = RecordingRng(robot.rng)
            robot.rng = recorder
            target = containers[int(rng.integers(len(containers)))]
            robot.navigate(target)
            recorder.last_random = None
            robot.open(target)
            event = robot.events[-1]
            missed = recorder.last_random is not None and recorder.last_random < miss_rate
            out.append((event, truth_of(event, missed, world.truth_is_locked(target))))
    return out


def table(title: str, rows: list[tuple[InteractionEvent, str]], analyzer: SignalAnalyzer) -> dict:
    failed = [(e, t) for e, t in rows if t in ("locked", "missed")]
    scores = {}
    print(f"\n{title}")
    print(f"{'method':<28}{'locked/missed acc':>18}{'3-way acc':>11}{'false locked':>14}{'missed locks':>14}")
    for name, predict in (("signal analyzer", lambda e: predict_signals(analyzer, e)),
                          ("naive: failed open = locked", predict_naive)):
        pred_failed = [predict(e) for e, _ in failed]
        acc_failed = np.mean([p == t for p, (_, t) in zip(pred_failed, failed)]) if failed else float("nan")
        acc_all = np.mean([predict(e) == t for e, t in rows])
        false_locked = sum(p == "locked" and t == "missed" for p, (_, t) in zip(pred_failed, failed))
        missed_locks = sum(p != "locked" and t == "locked" for p, (_, t) in zip(pred_failed, failed))
        scores[name] = acc_failed
        print(f"{name:<28}{acc_failed:>17.1%} {acc_all:>10.1%}{false_locked:>14d}{missed_locks:>14d}")
    return scores


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--trials", type=int, default=200)
    p.add_argument("--miss-rate", type=float, default=0.2)
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args(argv)
    rows = run(args.trials, args.miss_rate, args.seed)
    counts = Counter(t for _, t in rows)
    print(f"{len(rows)} simulated open attempts (mnemo_sim SimRobot, miss rate {args.miss_rate}): "
          + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    analyzer = SignalAnalyzer()
    scores = table("simulator signals", rows, analyzer)
    noise_rng = np.random.default_rng(args.seed + 1)
    table("noisier sensors (5% contact flips, closure sd 0.06, effort sd 6)",
          [(noisier(e, noise_rng), t) for e, t in rows], analyzer)
    ours, naive = scores["signal analyzer"], scores["naive: failed open = locked"]
    print(f"\nlocked vs missed-grasp accuracy: {ours:.1%} (target >= 95%); naive baseline {naive:.1%}")
    return 0 if ours >= 0.95 else 1


if __name__ == "__main__":
    sys.exit(main())
