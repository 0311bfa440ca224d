"""The ``mnemo`` command: one front door whose subcommands live in the packages that own them.

Each entry maps a subcommand to ``module:function``; the module is imported only when that
subcommand runs, so ``mnemo --help`` stays fast and a package's heavy imports stay its own.
The function receives the remaining arguments and returns an exit code.
"""
from __future__ import annotations

import importlib
import sys
from typing import Callable, Optional

SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "run": ("mnemo_planner.main_job:main", "run the whole stack against the simulator: patrol, then a scenario's tasks"),
    "scenario": ("mnemo_sim.cli:main", "validate and replay household scenario files"),
    "memory": ("mnemo_memory.cli:main", "query the memory node, or ingest a rosbag2 (MCAP) offline"),
    "graph": ("mnemo_scene_graph.cli:main", "inspect the scene graph"),
    "bench": ("mnemo_bench.cli:main", "run the benchmark suite and write its report"),
    "launch": ("mnemo_common.launcher:main", "start a set of mnemo nodes as processes (no ros2 launch needed)"),
}


def _usage() -> str:
    lines = ["usage: mnemo <command> [args...]", "", "commands:"]
    lines += [f"  {name:<10} {help_}" for name, (_, help_) in SUBCOMMANDS.items()]
    lines += ["", "Run 'mnemo <command> --help' for a command's options."]
    return "\n".join(lines)


def resolve(name: str) -> Callable[[list[str]], int]:
    target, _ = SUBCOMMANDS[name]
    module_name, func_name = target.split(":")
    return getattr(importlib.import_module(module_name), func_name)


def main(argv: Optional[list[str]] = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help", "help"):
        print(_usage())
        return 0
    name, rest = args[0], args[1:]
    if name not in SUBCOMMANDS:
        print(f"mnemo: unknown command {name!r}\n\n{_usage()}", file=sys.stderr)
        return 2
    try:
        func = resolve(name)
    except ImportError as exc:
        print(f"mnemo {name}: the package providing it is not importable ({exc}); "
              "run scripts/setup and source scripts/env.sh", file=sys.stderr)
        return 2
    return int(func(rest) or 0)


if __name__ == "__main__":
    sys.exit(main())
