"""Start mnemo nodes as separate processes: used by multi-process tests, the main job and
``mnemo launch`` on machines without ``ros2 launch``.

Each process gets the workspace's PYTHONPATH, a parameters YAML keyed by node name (the
format ``ros2 launch`` uses), and its own log file.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable, Optional

import yaml

REPO_ROOT = Path(__file__).resolve().parents[3]


def workspace_pythonpath() -> str:
    """PYTHONPATH with every package source under src/ ahead of the current one."""
    src = REPO_ROOT / "src"
    parts = [str(p) for p in sorted(src.iterdir()) if (p / "package.xml").exists()] if src.is_dir() else []
    existing = os.environ.get("PYTHONPATH", "")
    return os.pathsep.join(parts + ([existing] if existing else []))


def ros_env(domain_id: Optional[int] = None, extra: Optional[dict[str, str]] = None) -> dict[str, str]:
    """Environment for node processes: local discovery only, a private domain id."""
    env = dict(os.environ)
    env["PYTHONPATH"] = workspace_pythonpath()
    env["ROS_AUTOMATIC_DISCOVERY_RANGE"] = "LOCALHOST"
    env.setdefault("RMW_IMPLEMENTATION", "rmw_fastrtps_cpp")
    env["PYTHONUNBUFFERED"] = "1"
    if domain_id is not None:
        env["ROS_DOMAIN_ID"] = str(domain_id)
    if extra:
        env.update(extra)
    return env


def unique_domain_id() -> int:
    """A domain id in 1..100 that differs between concurrently running test processes."""
    return 1 + (os.getpid() * 7 + int(time.time())) % 100


DOMAIN_VARIABLES = ("ROS_DOMAIN_ID", "ROS_AUTOMATIC_DISCOVERY_RANGE")


def enter_domain(domain_id: int) -> dict[str, Optional[str]]:
    """Make this process's own ROS nodes talk on ``domain_id``, local discovery only; returns what
    ``restore_domain`` puts back."""
    saved = {k: os.environ.get(k) for k in DOMAIN_VARIABLES}
    os.environ.update({"ROS_DOMAIN_ID": str(domain_id), "ROS_AUTOMATIC_DISCOVERY_RANGE": "LOCALHOST"})
    return saved


def restore_domain(saved: dict[str, Optional[str]]) -> None:
    for k, v in saved.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


def write_params(path: Path, node_name: str, params: dict[str, Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump({node_name: {"ros__parameters": params}}, sort_keys=True))
    return path


PARENT_PID_ENV = "MNEMO_PARENT_PID"
PR_SET_PDEATHSIG = 1  # linux/prctl.h


def die_with_parent(sig: int = signal.SIGTERM) -> None:
    """In a node process started by NodeProcess: ask the kernel to send ``sig`` when the process
    that started it dies (even by SIGKILL), so a launcher that is killed leaves no orphans. The
    check after prctl closes the race with a parent that died before it was made."""
    parent = os.environ.pop(PARENT_PID_ENV, "")  # not inherited by this node's own children
    if not parent or not sys.platform.startswith("linux"):
        return
    import ctypes

    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, int(sig), 0, 0, 0)
    if os.getppid() != int(parent):
        os.kill(os.getpid(), sig)


class ProcessGroup:
    """The one process group the nodes of a launch share (apart from the launcher's own, so a
    terminal's Ctrl-C reaches only the launcher, which stops them in order): `kill -- -PGID`
    stops them all, and stopping the group also reaches any process a node started."""

    def __init__(self):
        self.pgid: Optional[int] = None

    def popen(self, cmd: list[str], **kwargs) -> subprocess.Popen:
        if self.pgid is not None:
            try:
                return subprocess.Popen(cmd, process_group=self.pgid, **kwargs)
            except (PermissionError, ProcessLookupError, subprocess.SubprocessError):
                pass  # every member has exited: the group is gone, start a new one
        proc = subprocess.Popen(cmd, process_group=0, **kwargs)
        self.pgid = proc.pid
        return proc

    def kill(self, sig: int = signal.SIGKILL) -> None:
        if self.pgid is not None:
            try:
                os.killpg(self.pgid, sig)
            except (ProcessLookupError, PermissionError):
                pass


# A node that refuses to start (a missing model, a store built by another one, a bad setting) exits with
# sysexits' EX_CONFIG after saying why: starting it again cannot heal that, so it is not respawned.
EXIT_REFUSED = 78


class NodeProcess:
    """One node in its own process: ``python -m MODULE --ros-args -r __node:=NAME --params-file F``.

    With ``respawn`` (launch_ros semantics) a Supervisor starts it again ``respawn_delay`` seconds
    after it exits, at most ``respawn_max_retries`` times (-1: always), until ``stop()``, unless it
    refused to start (``EXIT_REFUSED``). The node dies with the process that started it
    (``die_with_parent``)."""

    def __init__(self, module: str, name: str, params: Optional[dict[str, Any]] = None,
                 env: Optional[dict[str, str]] = None, log_dir: Optional[Path] = None,
                 params_file: Optional[Path] = None, args: Optional[list[str]] = None,
                 respawn: bool = False, respawn_delay: float = 0.0, respawn_max_retries: int = -1,
                 group: Optional[ProcessGroup] = None):
        self.module, self.name = module, name
        self.respawn, self.respawn_delay, self.respawn_max_retries = respawn, respawn_delay, respawn_max_retries
        self.restarts = 0
        self.stopping = False
        self.log_dir = Path(log_dir or Path.cwd() / "log")
        self.log_dir.mkdir(parents=True, exist_ok=True)
        self.log_path = self.log_dir / f"{name}.log"
        cmd = [sys.executable, "-m", module, *(args or []), "--ros-args", "-r", f"__node:={name}"]
        if params_file is not None:
            cmd += ["--params-file", str(params_file)]
        if params:
            cmd += ["--params-file", str(write_params(self.log_dir / f"{name}.params.yaml", name, params))]
        self.cmd, self.env = cmd, dict(env or ros_env())
        self.group = group or ProcessGroup()
        self._lock = threading.Lock()
        self._log = open(self.log_path, "w")
        self.proc = self._spawn()

    def _spawn(self) -> subprocess.Popen:
        return self.group.popen(self.cmd, env={**self.env, PARENT_PID_ENV: str(os.getpid())},
                                stdout=self._log, stderr=subprocess.STDOUT)

    def alive(self) -> bool:
        return self.proc.poll() is None

    def may_respawn(self) -> bool:
        return self.respawn and not self.stopping and self.proc.returncode != EXIT_REFUSED and (
            self.respawn_max_retries < 0 or self.restarts < self.respawn_max_retries)

    def respawn_now(self) -> bool:
        """Start the node again (the Supervisor calls this once the delay has passed); False when
        it was stopped meanwhile."""
        with self._lock:
            if not self.may_respawn() or self.alive():
                return False
            self.restarts += 1
            self._log.write(f"[mnemo] respawn {self.restarts} of {self.name}\n")
            self._log.flush()
            self.proc = self._spawn()
            return True

    def log(self) -> str:
        self._log.flush()
        return self.log_path.read_text(errors="replace")

    def interrupt(self) -> None:
        """Ask the node to stop (SIGINT: rclpy shuts down, the node's close() runs); no respawn."""
        with self._lock:
            self.stopping = True
            if self.proc.poll() is None:
                self.proc.send_signal(signal.SIGINT)

    def stop(self, timeout: float = 10.0) -> int:
        self.interrupt()
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self._log.close()
        return self.proc.returncode

    def kill(self) -> None:
        """SIGKILL: the crash tests' way to end a node without any clean-up (and no respawn)."""
        with self._lock:
            self.stopping = True
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self._log.close()

    def __enter__(self) -> "NodeProcess":
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


def stop_all(procs: list[NodeProcess], timeout: float = 8.0) -> None:
    """Stop every node at once: SIGINT to all, then SIGKILL to their process groups for what is
    left after ``timeout`` seconds (so a whole stack is down in ``timeout`` plus a moment)."""
    for p in procs:
        p.interrupt()
    deadline = time.monotonic() + timeout
    for p in procs:
        try:
            p.proc.wait(max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            pass
    for group in {id(p.group): p.group for p in procs}.values():
        group.kill(signal.SIGKILL)
    for p in procs:
        p.stop(timeout=0.0)


class Supervisor:
    """Watches a launch's nodes from one thread: reports each exit and starts the respawning ones
    again after their delay. Events go to ``on_event(text)`` (the launcher prints them)."""

    def __init__(self, procs: list[NodeProcess], on_event: Optional[Callable[[str], None]] = None,
                 period: float = 0.1):
        self.procs, self.on_event, self.period = procs, on_event or (lambda text: None), period
        self._due: dict[int, float] = {}  # index of an exited node -> when it starts again
        self._reported: set[int] = set()
        self._stop = threading.Event()
        # A node dies with the thread that started it (PR_SET_PDEATHSIG), so respawns come from
        # this thread, which lives as long as the launch.
        self._thread = threading.Thread(target=self._run, name="mnemo-supervisor", daemon=True)

    def start(self) -> "Supervisor":
        self._thread.start()
        return self

    def running(self) -> bool:
        """Whether any node is alive, or exited but not reported yet, or will be started again."""
        return any(not p.stopping and i not in self._reported for i, p in enumerate(self.procs))

    def _run(self) -> None:
        while not self._stop.wait(self.period):
            self.check()

    def check(self) -> None:
        now = time.monotonic()
        for i, p in enumerate(self.procs):
            if p.alive() or p.stopping:
                continue
            if i not in self._due and i not in self._reported:
                code = p.proc.returncode
                if p.may_respawn():
                    self._due[i] = now + p.respawn_delay
                    self.on_event(f"{p.name} exited with code {code}; respawning in {p.respawn_delay:.1f} s")
                else:
                    self._reported.add(i)
                    refused = " (it refused to start: see its log; not respawned)" if code == EXIT_REFUSED else ""
                    self.on_event(f"{p.name} exited with code {code}{refused}")
            elif i in self._due and now >= self._due[i]:
                del self._due[i]
                if p.respawn_now():
                    self.on_event(f"{p.name} respawned (pid {p.proc.pid}, restart {p.restarts})")

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout=2.0)
