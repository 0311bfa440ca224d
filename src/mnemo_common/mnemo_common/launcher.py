"""`mnemo launch FILE.launch.py [name:=value ...] [--dry-run] [--log-dir DIR]`: start the nodes of
a launch file as processes, on machines without `ros2 launch`.

The launch file is evaluated with mnemo_common.launch_shim; each node runs as
`python -m <module>` (the module its package's console_scripts entry names) with its resolved
parameters, remappings and environment. Logs stream to the terminal prefixed with the node's
name; Ctrl-C, or any node dying, stops them all.
"""
from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path
from typing import Optional

from mnemo_common.launch_shim import LaunchShimError, NodeSpec, evaluate_launch_file
from mnemo_common.processes import REPO_ROOT, NodeProcess, ros_env


def console_script_module(package: str, executable: str) -> str:
    """The module a package's console_scripts entry `executable = module:func` points at."""
    setup = REPO_ROOT / "src" / package / "setup.py"
    if not setup.is_file():
        raise LaunchShimError(f"no package {package} under {REPO_ROOT / 'src'}")
    for exe, module in re.findall(r"""["']\s*(\w+)\s*=\s*([\w.]+):\w+\s*["']""", setup.read_text()):
        if exe == executable:
            return module
    raise LaunchShimError(f"package {package} has no executable {executable} (see its setup.py console_scripts)")


def resolve_launch_file(path: str) -> Path:
    """A path, or a file name in the repo's launch/ folder (as `ros2 launch mnemo NAME` takes)."""
    candidate = Path(path)
    if candidate.is_file():
        return candidate
    shipped = REPO_ROOT / "launch" / path
    if shipped.is_file():
        return shipped
    raise LaunchShimError(f"launch file {path} not found (nor in {REPO_ROOT / 'launch'})")


def ros_arguments(spec: NodeSpec) -> list[str]:
    """Extra `--ros-args` for what NodeProcess does not set itself: remappings and namespace."""
    extra = []
    for src, dst in spec.remappings:
        extra += ["-r", f"{src}:={dst}"]
    if spec.namespace:
        extra += ["-r", f"__ns:={spec.namespace if spec.namespace.startswith('/') else '/' + spec.namespace}"]
    return [*spec.arguments, *(["--ros-args", *extra] if extra else [])]


def start_launch_file(path, args: Optional[dict[str, str]] = None, env: Optional[dict[str, str]] = None,
                      log_dir: Optional[Path] = None) -> list[NodeProcess]:
    """Evaluate a launch file and start each of its nodes as a process; the caller stops them
    (NodeProcess.stop). `env` is the base environment (default: mnemo_common.processes.ros_env());
    the launch file's SetEnvironmentVariable values apply on top of it."""
    result = evaluate_launch_file(resolve_launch_file(str(path)), args or {})
    base = dict(env) if env is not None else ros_env()
    log_dir = Path(log_dir) if log_dir is not None else Path.cwd() / "log" / "launch"
    started: list[NodeProcess] = []
    try:
        for spec in result.nodes:
            module = console_script_module(spec.package, spec.executable)
            started.append(NodeProcess(module, spec.name, params=spec.params, env={**base, **spec.env},
                                       log_dir=log_dir, args=ros_arguments(spec)))
    except Exception:
        for proc in started:
            proc.stop()
        raise
    return started


def describe(spec: NodeSpec) -> tuple[str, bool]:
    """A node spec as text, and whether its executable resolves to a module."""
    try:
        how, ok = f"python -m {console_script_module(spec.package, spec.executable)}", True
    except LaunchShimError as exc:
        how, ok = f"MISSING: {exc}", False
    lines = [f"{spec.name}: {spec.package}/{spec.executable} ({how})"]
    lines += [f"    param {k} = {v!r}" for k, v in sorted(spec.params.items())]
    lines += [f"    remap {a} -> {b}" for a, b in spec.remappings]
    lines += [f"    env {k}={v}" for k, v in sorted(spec.env.items())]
    return "\n".join(lines), ok


class LogTail:
    """Prints new lines of a node's log file with its name as prefix."""

    def __init__(self, proc: NodeProcess, width: int):
        self.proc, self.prefix, self._offset, self._partial = proc, f"[{proc.name:<{width}}] ", 0, ""

    def pump(self, out) -> None:
        try:
            with open(self.proc.log_path, "r", errors="replace") as f:
                f.seek(self._offset)
                chunk = f.read()
                self._offset = f.tell()
        except FileNotFoundError:
            return
        if not chunk:
            return
        lines = (self._partial + chunk).split("\n")
        self._partial = lines.pop()
        for line in lines:
            out.write(self.prefix + line + "\n")
        out.flush()


def parse_args(argv: list[str]) -> tuple[argparse.Namespace, dict[str, str]]:
    parser = argparse.ArgumentParser(prog="mnemo launch", description=__doc__.split("\n\n")[0])
    parser.add_argument("launch_file", help="a .launch.py path, or a file name in the repo's launch/ folder")
    parser.add_argument("arguments", nargs="*", help="launch arguments as name:=value")
    parser.add_argument("--dry-run", action="store_true", help="print the resolved nodes and exit")
    parser.add_argument("--log-dir", type=Path, default=None, help="folder for the nodes' logs (default log/launch)")
    ns = parser.parse_args(argv)
    launch_args = {}
    for item in ns.arguments:
        if ":=" not in item:
            parser.error(f"launch arguments are name:=value, got {item!r}")
        name, value = item.split(":=", 1)
        launch_args[name] = value
    return ns, launch_args


def main(argv: Optional[list[str]] = None) -> int:
    ns, launch_args = parse_args(list(sys.argv[1:] if argv is None else argv))
    try:
        if ns.dry_run:
            result = evaluate_launch_file(resolve_launch_file(ns.launch_file), launch_args)
            for arg in result.arguments:
                print(f"arg {arg.name} = {result.configurations.get(arg.name)!r}  # {arg.description}")
            resolved = True
            for spec in result.nodes:
                text, ok = describe(spec)
                print(text)
                resolved = resolved and ok
            return 0 if resolved else 1
        procs = start_launch_file(ns.launch_file, launch_args, log_dir=ns.log_dir)
    except LaunchShimError as exc:
        print(f"mnemo launch: {exc}", file=sys.stderr)
        return 2
    width = max((len(p.name) for p in procs), default=0)
    tails = [LogTail(p, width) for p in procs]
    print(f"mnemo launch: started {', '.join(p.name for p in procs)}; Ctrl-C stops them", flush=True)
    code = 0
    try:
        while True:
            for tail in tails:
                tail.pump(sys.stdout)
            dead = [p for p in procs if not p.alive()]
            if dead:
                for tail in tails:
                    tail.pump(sys.stdout)
                for p in dead:
                    print(f"mnemo launch: {p.name} exited with code {p.proc.returncode}; stopping the others",
                          file=sys.stderr, flush=True)
                code = 1 if any(p.proc.returncode not in (0, None) for p in dead) else 0
                break
            time.sleep(0.2)
    except KeyboardInterrupt:
        pass
    finally:
        for p in procs:
            p.stop()
        for tail in tails:
            tail.pump(sys.stdout)
    return code


if __name__ == "__main__":
    sys.exit(main())
