"""``mnemo bench [SCENARIO_FILES...] [--generated N [--size S] [--days D]] [--methods ...]
[--perception MODE...] [--ros] [--seed N] [--out DIR] [--qa]``: run the benchmark and write its report.

Perception is honest unless told otherwise: the simulator's rendered RGB-D frames through perception
and the scene graph's own association, as on a robot. Honest (and realistic) perception render every
patrol frame, so without scenario files they run on the smallest shipped scenario only;
``--perception oracle`` runs every scenario shipped with mnemo_sim on the simulator's own
observations, an upper bound no robot reaches. ``--perception oracle honest`` reports both side by
side (oracle labelled an upper bound). Every method and the memory QA run unless told otherwise.

``--generated N`` adds N homes from mnemo_sim's generator (generator seeds ``--seed`` ..
``--seed + N - 1``), homes no method was tuned on; with no scenario argument they replace the
default suite. The report gives the shipped and the generated homes their own tables.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, Optional

from mnemo_bench.methods import DEFAULT_METHODS, METHODS
from mnemo_bench.realistic import PERCEPTION_MODES

REALISTIC_DEFAULT = "student_flat"  # the smallest shipped scenario (800 patrol frames)
ROS_DEFAULT_METHODS = ("full",)


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="mnemo bench", description=__doc__.split("\n\n")[0])
    p.add_argument("scenarios", nargs="*", help="household-scenario/1 files or shipped scenario names "
                                                "(default: every shipped scenario; none with --generated)")
    p.add_argument("--generated", type=int, default=0, metavar="N",
                   help="also run N generated homes, generator seeds --seed .. --seed+N-1; without scenario "
                        "arguments, only these (in-process only, not with --ros)")
    p.add_argument("--size", choices=("small", "medium", "large"), default="medium",
                   help="size of the generated homes (default: medium)")
    p.add_argument("--days", type=int, default=None, metavar="D",
                   help="days each generated home covers (default: the generator's)")
    p.add_argument("--methods", nargs="+", default=None, metavar="METHOD",
                   help=f"methods to run (default: all): {', '.join(METHODS)}")
    p.add_argument("--perception", nargs="+", choices=PERCEPTION_MODES, default=None, metavar="MODE",
                   help="one or more of: honest (rendered frames through the perception ground-truth backend and "
                        "deprojection, no simulator instance ids: identity from the scene graph's association, skills "
                        "resolve node ids by label and position); realistic (the same with the simulator's instance "
                        "ids kept); oracle (the simulator's own observations, ids, supports and authored attributes: "
                        "an upper bound no robot reaches). Several modes are reported side by side (default: honest; "
                        "oracle with --ros; without scenario files, honest and realistic run on the smallest shipped "
                        "scenario, oracle on every shipped one)")
    p.add_argument("--ros", action="store_true", help="run the tasks through the ROS nodes (launch/sim.launch.py) "
                                                       "and compare with the in-process run of the same seed")
    p.add_argument("--tasks", default="", help="comma-separated task ids to run (default: all)")
    p.add_argument("--seed", type=int, default=0,
                   help="simulator seed (default: 0); with --generated also the first generator seed")
    p.add_argument("--out", default="bench_results", help="report directory (default: bench_results)")
    qa = p.add_mutually_exclusive_group()
    qa.add_argument("--qa", dest="qa", action="store_true", default=None, help="run the memory QA (default: on)")
    qa.add_argument("--no-qa", dest="qa", action="store_false", help="skip the memory QA")
    p.add_argument("--no-plots", action="store_true", help="skip the PNG plots")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    return p.parse_args(argv)


def resolve_scenario(arg: str) -> Path:
    path = Path(arg)
    if path.exists():
        return path.resolve()
    from mnemo_sim import scenarios_dir

    candidate = Path(scenarios_dir()) / f"{arg}.yaml"
    if not candidate.exists():
        raise FileNotFoundError(f"no scenario {arg!r} (not a file, not in {scenarios_dir()})")
    return candidate


def generated_homes(first_seed: int, count: int, size: str, days: Optional[int]) -> list[Any]:
    """``count`` homes from mnemo_sim's generator, seeds ``first_seed`` .. ``first_seed + count - 1``."""
    if count <= 0:
        return []
    from mnemo_sim.generator import generate_scenario

    return [generate_scenario(seed, size=size, days=days) for seed in range(first_seed, first_seed + count)]


def main(argv: Optional[list[str]] = None) -> int:
    args = parse_args(list(sys.argv[1:] if argv is None else argv))
    from mnemo_sim.scenario import ScenarioError, load_scenario

    from mnemo_bench.methods import resolve_methods
    from mnemo_bench.runner import default_scenarios

    if args.generated < 0:
        print("mnemo bench: --generated needs a count >= 0", file=sys.stderr)
        return 2
    args.perception = args.perception or (["oracle"] if args.ros else ["honest"])
    if args.ros and args.perception != ["oracle"]:
        print("mnemo bench: --ros runs the nodes with oracle perception only (the honest mode is in-process)",
              file=sys.stderr)
        return 2
    if args.generated and args.ros:
        print("mnemo bench: --generated homes have no scenario file for the ROS launch; run them without --ros",
              file=sys.stderr)
        return 2
    try:
        if args.scenarios:
            paths = [resolve_scenario(s) for s in args.scenarios]
        elif args.generated:
            paths = []
        elif set(args.perception) != {"oracle"} or args.ros:
            paths = [resolve_scenario(REALISTIC_DEFAULT)]
        else:
            paths = default_scenarios()
        generated = generated_homes(args.seed, args.generated, args.size, args.days)
        scenarios = [load_scenario(p) for p in paths] + generated
        names = args.methods or list(ROS_DEFAULT_METHODS if args.ros else DEFAULT_METHODS)
        methods = resolve_methods(names)
    except (FileNotFoundError, ScenarioError, ValueError) as exc:
        print(f"mnemo bench: {exc}", file=sys.stderr)
        return 2
    wanted = {t for t in args.tasks.split(",") if t}
    known = {t.id for sc in scenarios for t in sc.tasks}
    if wanted - known:
        print(f"mnemo bench: unknown task ids {sorted(wanted - known)}", file=sys.stderr)
        return 2
    task_filter = (lambda sc, t: t.id in wanted) if wanted else None
    qa = (not args.ros) if args.qa is None else args.qa
    out = Path(args.out)
    print(f"mnemo bench: {len(scenarios)} scenario(s) ({', '.join(s.name for s in scenarios)}), methods "
          f"{', '.join(m.name for m in methods)}, {' and '.join(args.perception)} perception, seed {args.seed}"
          f"{', through ROS' if args.ros else ''}{', memory QA' if qa else ''}", file=sys.stderr)
    if args.ros:
        from mnemo_bench.ros_runner import run_ros_suite

        result = run_ros_suite(scenarios, methods, paths, seed=args.seed, out=out, task_filter=task_filter,
                               progress=not args.quiet)
    else:
        from mnemo_bench.runner import run_modes

        result = run_modes(scenarios, methods, args.perception, seed=args.seed, qa=qa, progress=not args.quiet,
                           task_filter=task_filter)
    if generated:
        result.meta["generated"] = {"seeds": list(range(args.seed, args.seed + args.generated)), "size": args.size,
                                    "days": args.days, "scenarios": [sc.name for sc in generated]}
    from mnemo_bench.report import markdown_table, summarize, write_report

    files = write_report(result, out, plots=not args.no_plots)
    print("\n".join(markdown_table(summarize(result), result.meta["methods"])))
    for kind, path in files.items():
        print(f"mnemo bench: {kind}: {path}", file=sys.stderr)
    if args.ros and result.meta.get("ros_mismatches"):
        print(f"mnemo bench: ROS and in-process runs differ on {result.meta['ros_mismatches']} task(s); "
              "see report.md", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
