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
import time
from pathlib import Path
from typing import Any, Optional

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


def write_params(path: Path, node_name: str, params: dict[str, Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump({node_name: {"ros__parameters": params}}, sort_keys=True))
    return path


class NodeProcess:
    """One node in its own process: ``python -m MODULE --ros-args -r __node:=NAME --params-file F``."""

    def __init__(self, module: str, name: str, params: Optional[dict[str, Any]] = None,
                 env: Optional[dict[str, str]] = None, log_dir: Optional[Path] = None,
                 params_file: Optional[Path] = None, args: Optional[list[str]] = None):
        self.module, self.name = module, name
        self.log_dir = Path(log_dir or Path.cwd() / "log")
        self.log_dir.mkdir(parents=True, exist_ok=True)
        self.log_path = self.log_dir / f"{name}.log"
        cmd = [sys.executable, "-m", module, *(args or []), "--ros-args", "-r", f"__node:={name}"]
        if params_file is not None:
            cmd += ["--params-file", str(params_file)]
        if params:
            cmd += ["--params-file", str(write_params(self.log_dir / f"{name}.params.yaml", name, params))]
        self._log = open(self.log_path, "w")
        self.proc = subprocess.Popen(cmd, env=env or ros_env(), stdout=self._log, stderr=subprocess.STDOUT,
                                     start_new_session=True)

    def alive(self) -> bool:
        return self.proc.poll() is None

    def log(self) -> str:
        self._log.flush()
        return self.log_path.read_text(errors="replace")

    def stop(self, timeout: float = 10.0) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._log.close()
        return self.proc.returncode

    def kill(self) -> None:
        """SIGKILL: the crash tests' way to end a node without any clean-up."""
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self._log.close()

    def __enter__(self) -> "NodeProcess":
        return self

    def __exit__(self, *exc) -> None:
        self.stop()
