"""``mnemo scenario``: validate and replay household scenario files.

- ``mnemo scenario check FILE [FILE ...]``: load each file (errors name the file, the field and what was
  expected), then replay its timeline to each task's time and confirm the target is where the success
  spec needs it: a ``pick_any`` target is in the world and not only behind locked doors, a
  ``reach_any`` fixture exists. Warnings (e.g. a fixture through a wall) are printed but do not fail.
  Exit 0 when every file is fine, 1 otherwise.
- ``mnemo scenario list``: the scenarios shipped with mnemo_sim.
- ``mnemo scenario generate --seed N [--size small|medium|large] [--days D] [--out FILE]``: a generated
  home (``mnemo_sim.generator``), deterministic per seed; written to FILE or printed. Development seeds
  are 0-999; 10000-10019 are kept for the README's headline table.
``main(argv) -> int`` is the entry point (``mnemo_common.cli`` dispatches to it).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Optional

from . import list_scenarios
from .scenario import Scenario, ScenarioError, format_clock, load_scenario
from .world import World


def task_problems(scenario: Scenario) -> list[str]:
    """Replay the timeline and report tasks whose targets are not where their success spec needs them."""
    problems = []
    world = World(scenario)
    for i, task in enumerate(scenario.tasks):
        world.reset_to(task.at)
        where = f"{scenario.source}: tasks[{i}] ({task.id}) at {format_clock(task.at)}"
        if task.success.kind == "pick_any":
            present = [o for o in task.success.values if world.truth_location(o) not in (None, "robot")]
            if not present:
                problems.append(f"{where}: none of the pick_any targets {list(task.success.values)} is in the world then")
                continue
            reachable = [o for o in present if not world.truth_is_locked(world.truth_location(o))]
            if not reachable:
                problems.append(f"{where}: every pick_any target is inside a locked container "
                                f"({', '.join(f'{o} in {world.truth_location(o)}' for o in present)})")
    return problems


def _check(paths: list[str]) -> int:
    failed = 0
    for path in paths:
        try:
            scenario = load_scenario(path)
        except ScenarioError as exc:
            print(f"error: {exc}", file=sys.stderr)
            failed += 1
            continue
        for warning in scenario.warnings:
            print(f"warning: {warning}", file=sys.stderr)
        problems = task_problems(scenario)
        for problem in problems:
            print(f"error: {problem}", file=sys.stderr)
        if problems:
            failed += 1
            continue
        observations = sum(p.observations for p in scenario.patrol)
        print(f"ok: {path}: {scenario.name}: {len(scenario.rooms)} rooms, {len(scenario.fixtures)} fixtures, "
              f"{len(scenario.objects)} objects, {len(scenario.timeline)} timeline events over {scenario.days} days, "
              f"{len(scenario.patrol)} patrols ({observations} observations), {len(scenario.tasks)} tasks")
    return 1 if failed else 0


def _list() -> int:
    for path in list_scenarios():
        try:
            scenario = load_scenario(path)
            print(f"{scenario.name:<24} {len(scenario.tasks):>3} tasks  {scenario.days} days  {path}")
        except ScenarioError as exc:
            print(f"{Path(path).stem:<24} invalid: {exc}")
    return 0


def _generate(seed: int, size: str, days: Optional[int], out: str) -> int:
    from .generator import SIZES, dump, generate_document

    if size not in SIZES:
        print(f"error: --size must be one of {sorted(SIZES)}", file=sys.stderr)
        return 2
    try:
        document = generate_document(seed, size, days)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    text = dump(document)
    if not out:
        sys.stdout.write(text)
        return 0
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    Path(out).write_text(text, encoding="utf-8")
    print(f"ok: {out}: {document['name']}: {len(document['rooms'])} rooms, {len(document['fixtures'])} fixtures, "
          f"{len(document['objects'])} objects, {len(document['tasks'])} tasks", file=sys.stderr)
    return 0


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="mnemo scenario", description="Validate and replay household scenario files.")
    sub = parser.add_subparsers(dest="command", required=True)
    check = sub.add_parser("check", help="validate files and replay their timelines against their tasks")
    check.add_argument("files", nargs="+", help="scenario YAML files")
    sub.add_parser("list", help="list the scenarios shipped with mnemo_sim")
    gen = sub.add_parser("generate", help="generate a household (deterministic per seed)")
    gen.add_argument("--seed", type=int, required=True, help="development seeds: 0-999 (10000-10019 are the README's)")
    gen.add_argument("--size", default="medium", help="small (2-3 rooms), medium (4-5) or large (6-8)")
    gen.add_argument("--days", type=int, default=None, help="days of life (default: 3, 4 or 5 by size)")
    gen.add_argument("--out", default="", help="YAML file to write (default: standard output)")
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits on --help and on usage errors
        return int(exc.code or 0)
    if args.command == "generate":
        return _generate(args.seed, args.size, args.days, args.out)
    return _check(args.files) if args.command == "check" else _list()


if __name__ == "__main__":
    sys.exit(main())
