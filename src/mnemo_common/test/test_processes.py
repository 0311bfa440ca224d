"""Supervision of node processes: a node that refuses to start (exit code EXIT_REFUSED, after saying
why) is not started again, while any other exit of a respawning node is."""
from __future__ import annotations

import os
import time

from mnemo_common.processes import EXIT_REFUSED, NodeProcess, Supervisor, ros_env


def _exiting(tmp_path, name: str, code: int) -> NodeProcess:
    (tmp_path / f"{name}.py").write_text(f"import sys\nsys.exit({code})\n")
    env = {**ros_env(), "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])}
    return NodeProcess(name, name, env=env, log_dir=tmp_path / "log", respawn=True, respawn_delay=0.1)


def test_a_refused_start_is_not_respawned_and_other_exits_are(tmp_path):
    refuser, crasher = _exiting(tmp_path, "refuser", EXIT_REFUSED), _exiting(tmp_path, "crasher", 3)
    events: list[str] = []
    supervisor = Supervisor([refuser, crasher], on_event=events.append, period=0.05).start()
    try:
        deadline = time.monotonic() + 20.0
        while crasher.restarts < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert crasher.restarts >= 2, events
        assert refuser.restarts == 0 and not refuser.alive()
        assert f"refuser exited with code {EXIT_REFUSED} (it refused to start: see its log; not respawned)" in events
        assert "crasher exited with code 3; respawning in 0.1 s" in events
    finally:
        supervisor.stop()
        for p in (refuser, crasher):
            p.stop()
