"""`mnemo launch FILE.launch.py [name:=value ...] [--dry-run] [--log-dir DIR]`: start the nodes of
a launch file as processes, on machines without `ros2 launch`.

Where the real `launch` / `launch_ros` are importable (a full ROS 2 install), the file runs
through them, exactly as `ros2 launch` would. Elsewhere it is evaluated with
mnemo_common.launch_shim; each node runs as `python -m <module>` (the module its package's
console_scripts entry names) with its resolved parameters, remappings and environment, all in one
process group of their own. Logs stream to the terminal prefixed with the node's name. As with
`ros2 launch`, a node with `respawn=True` starts again `respawn_delay` seconds after it exits, and
the launcher runs until no node is left. SIGINT, SIGTERM or SIGHUP stop every node (SIGINT, then
SIGKILL after a grace period); if the launcher itself is killed, the kernel stops them
(PR_SET_PDEATHSIG).
"""
from __future__ import annotations

import argparse
import re
import signal
import sys
import threading
from pathlib import Path
from typing import Optional

from mnemo_common.launch_shim import LaunchShimError, NodeSpec, evaluate_launch_file, real_launch_available
from mnemo_common.processes import REPO_ROOT, NodeProcess, ProcessGroup, Supervisor, ros_env, stop_all

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
STOP_GRACE = 6.0  # s between SIGINT and SIGKILL when stopping a launch


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


class Launch(list):
    """The node processes of a launch file (a list of NodeProcess) and the supervisor that
    respawns them; ``stop()`` stops them all at once."""

    def __init__(self, procs: list[NodeProcess], supervisor: Supervisor):
        super().__init__(procs)
        self.supervisor = supervisor

    def by_name(self, name: str) -> NodeProcess:
        return next(p for p in self if p.name == name)

    def stop(self, timeout: float = STOP_GRACE) -> None:
        stop_all(list(self), timeout)
        self.supervisor.stop()


def start_launch_file(path, args: Optional[dict[str, str]] = None, env: Optional[dict[str, str]] = None,
                      log_dir: Optional[Path] = None, on_event=None) -> Launch:
    """Evaluate a launch file and start each of its nodes as a process, supervised (respawn) from
    a thread of the calling process; the caller stops them (Launch.stop, or NodeProcess.stop each).
    `env` is the base environment (default: mnemo_common.processes.ros_env()); the launch file's
    SetEnvironmentVariable values apply on top of it. `on_event(text)` hears of exits and respawns."""
    result = evaluate_launch_file(resolve_launch_file(str(path)), args or {})
    base = dict(env) if env is not None else ros_env()
    log_dir = Path(log_dir) if log_dir is not None else Path.cwd() / "log" / "launch"
    group = ProcessGroup()
    started: list[NodeProcess] = []
    try:
        for spec in result.nodes:
            module = console_script_module(spec.package, spec.executable)
            started.append(NodeProcess(module, spec.name, params=spec.params, env={**base, **spec.env},
                                       log_dir=log_dir, args=ros_arguments(spec), respawn=spec.respawn,
                                       respawn_delay=spec.respawn_delay,
                                       respawn_max_retries=spec.respawn_max_retries, group=group))
    except Exception:
        stop_all(started)
        raise
    return Launch(started, Supervisor(started, on_event).start())


def run_with_ros2_launch(path: Path, args: dict[str, str]) -> int:
    """Run a launch file through the real launch / launch_ros, as `ros2 launch` does (it handles
    signals, respawn and shutdown itself)."""
    import launch
    from launch.actions import IncludeLaunchDescription
    from launch.launch_description_sources import AnyLaunchDescriptionSource

    service = launch.LaunchService(argv=[f"{k}:={v}" for k, v in args.items()])
    service.include_launch_description(launch.LaunchDescription([IncludeLaunchDescription(
        AnyLaunchDescriptionSource(str(path)), launch_arguments=list(args.items()))]))
    return int(service.run() or 0)


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
    if spec.respawn:
        lines.append(f"    respawn after {spec.respawn_delay:g} s"
                     + (f" (at most {spec.respawn_max_retries} times)" if spec.respawn_max_retries >= 0 else ""))
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


class StopRequest:
    """SIGINT, SIGTERM and SIGHUP (Ctrl-C, `docker stop`, systemd, `timeout`, a closed terminal)
    set an event instead of ending the launcher, which then stops its nodes."""

    def __init__(self):
        self.event, self.signal_name = threading.Event(), ""
        self._previous = {sig: signal.signal(sig, self._handle) for sig in STOP_SIGNALS}

    def _handle(self, signum, frame) -> None:
        self.signal_name = self.signal_name or signal.Signals(signum).name
        self.event.set()

    def restore(self) -> None:
        for sig, handler in self._previous.items():
            signal.signal(sig, handler)


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
        if real_launch_available():
            return run_with_ros2_launch(resolve_launch_file(ns.launch_file), launch_args)
    except LaunchShimError as exc:
        print(f"mnemo launch: {exc}", file=sys.stderr)
        return 2
    stop = StopRequest()

    def on_event(text: str) -> None:
        print(f"mnemo launch: {text}", file=sys.stderr, flush=True)

    try:
        procs = start_launch_file(ns.launch_file, launch_args, log_dir=ns.log_dir, on_event=on_event)
    except LaunchShimError as exc:
        stop.restore()
        print(f"mnemo launch: {exc}", file=sys.stderr)
        return 2
    width = max((len(p.name) for p in procs), default=0)
    tails = [LogTail(p, width) for p in procs]
    group = procs[0].group.pgid if procs else "-"
    print(f"mnemo launch: started {', '.join(p.name for p in procs)} (process group {group}); Ctrl-C stops them",
          flush=True)
    try:
        while not stop.event.wait(0.2):
            for tail in tails:
                tail.pump(sys.stdout)
            if not procs.supervisor.running():
                break
        if stop.event.is_set():
            print(f"mnemo launch: {stop.signal_name}: stopping every node", file=sys.stderr, flush=True)
    finally:
        procs.stop()
        stop.restore()
        for tail in tails:
            tail.pump(sys.stdout)
    exits = [p.proc.returncode for p in procs]
    return 0 if stop.event.is_set() or all(code in (0, None) for code in exits) else 1


if __name__ == "__main__":
    sys.exit(main())
