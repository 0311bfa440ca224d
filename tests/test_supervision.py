"""`mnemo launch` as a supervisor: SIGINT, SIGTERM and SIGHUP to the launcher, or the launcher
killed outright, leave no node process behind within 10 s; a node with respawn=True comes back
after it is killed; on a machine with the real launch packages, they run the file instead."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mnemo_common.processes import REPO_ROOT, ros_env, unique_domain_id

pytestmark = [pytest.mark.ros, pytest.mark.slow]
PROFILE = REPO_ROOT / "src" / "mnemo_skills" / "profiles" / "tiago.yaml"
LAUNCH = """from launch import LaunchDescription
from launch_ros.actions import Node


def generate_launch_description():
    return LaunchDescription([
        Node(package="mnemo_skills", executable="skills_node", name=name, respawn={respawn}, respawn_delay=0.5,
             parameters=[{{"profile_file": "{profile}", "operator_gate": False}}],
             remappings=[("/mnemo/skills/pending", "/" + name + "/pending")])
        for name in ("skills_a", "skills_b")
    ])
"""


def processes_under(marker: str) -> list[int]:
    """Pids of the processes whose command line names ``marker`` (a file in the test's log folder)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and int(entry.name) != os.getpid():
            try:
                if marker in (entry / "cmdline").read_bytes().decode(errors="replace"):
                    pids.append(int(entry.name))
            except OSError:
                pass
    return pids


def wait_for(predicate, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)


def ready_count(log_dir: Path) -> int:
    return sum(p.read_text(errors="replace").count("ready (operator gate off)") for p in log_dir.glob("*.log"))


@pytest.fixture
def launched():
    """Started launchers, killed at the end whatever the test did (their nodes die with them)."""
    started: list[subprocess.Popen] = []
    yield started
    for launcher in started:
        if launcher.poll() is None:
            launcher.kill()
            launcher.wait()


def start_launcher(launched, tmp_path: Path, respawn: bool = False) -> tuple[subprocess.Popen, Path]:
    path = tmp_path / "two.launch.py"
    path.write_text(LAUNCH.format(respawn=respawn, profile=PROFILE))
    log_dir = tmp_path / "log"
    launcher = subprocess.Popen([sys.executable, "-m", "mnemo_common.launcher", str(path), "--log-dir", str(log_dir)],
                                env=ros_env(unique_domain_id()), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                text=True)
    launched.append(launcher)
    wait_for(lambda: ready_count(log_dir) >= 2 or launcher.poll() is not None, 60.0, "two nodes ready")
    assert launcher.poll() is None, launcher.stdout.read()
    return launcher, log_dir


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP], ids=lambda s: s.name)
def test_a_stop_signal_to_the_launcher_leaves_no_process(launched, tmp_path, sig):
    launcher, log_dir = start_launcher(launched, tmp_path, respawn=True)
    assert len(processes_under(f"{log_dir}/")) == 2
    t0 = time.monotonic()
    launcher.send_signal(sig)
    assert launcher.wait(10.0) == 0
    wait_for(lambda: not processes_under(f"{log_dir}/"), 10.0 - (time.monotonic() - t0), "no node left")
    assert f"{sig.name}: stopping every node" in launcher.stdout.read()


def test_a_killed_launcher_takes_its_nodes_with_it(launched, tmp_path):
    launcher, log_dir = start_launcher(launched, tmp_path, respawn=True)
    launcher.kill()
    launcher.wait()
    wait_for(lambda: not processes_under(f"{log_dir}/"), 10.0, "no orphan node")


def test_a_killed_node_respawns(launched, tmp_path):
    launcher, log_dir = start_launcher(launched, tmp_path, respawn=True)
    try:
        (first,) = processes_under(str(log_dir / "skills_a.params.yaml"))
        os.kill(first, signal.SIGKILL)
        wait_for(lambda: ready_count(log_dir) >= 3, 30.0, "skills_a ready again")
        (second,) = processes_under(str(log_dir / "skills_a.params.yaml"))
        assert second != first
        assert "respawn 1 of skills_a" in (log_dir / "skills_a.log").read_text()
    finally:
        launcher.send_signal(signal.SIGTERM)
        launcher.wait(15.0)
    out = launcher.stdout.read()
    assert "skills_a exited with code -9; respawning in 0.5 s" in out and "skills_a respawned" in out


def test_real_launch_packages_run_the_file_instead_of_the_shim(tmp_path):
    """A stand-in for launch / launch_ros on the path: `mnemo launch` hands the file and its
    arguments to launch.LaunchService, as `ros2 launch` does, and starts nothing itself."""
    fake = tmp_path / "site"
    (fake / "launch").mkdir(parents=True)
    (fake / "launch_ros").mkdir()
    (fake / "launch_ros" / "__init__.py").write_text("")
    (fake / "launch" / "__init__.py").write_text(
        "class LaunchDescription(list):\n    pass\n"
        "class LaunchService:\n"
        "    def __init__(self, argv):\n        self.argv = argv\n"
        "    def include_launch_description(self, d):\n        self.d = d\n"
        "    def run(self):\n"
        "        (inc,) = self.d\n"
        "        print('real launch ran', inc.source.path, inc.launch_arguments, self.argv)\n        return 3\n")
    (fake / "launch" / "actions.py").write_text(
        "class IncludeLaunchDescription:\n"
        "    def __init__(self, source, launch_arguments):\n"
        "        self.source, self.launch_arguments = source, launch_arguments\n")
    (fake / "launch" / "launch_description_sources.py").write_text(
        "class AnyLaunchDescriptionSource:\n    def __init__(self, path):\n        self.path = path\n")
    env = ros_env(extra={"PYTHONPATH": f"{fake}{os.pathsep}{ros_env()['PYTHONPATH']}"})
    done = subprocess.run([sys.executable, "-m", "mnemo_common.launcher", "sim.launch.py", "render:=false"],
                          env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 3, done.stderr
    assert done.stdout.strip() == (f"real launch ran {REPO_ROOT / 'launch' / 'sim.launch.py'} "
                                   "[('render', 'false')] ['render:=false']")
