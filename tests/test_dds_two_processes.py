"""Two real node processes exchange a service call and an action goal (feedback, cancel) over DDS."""
import json
import subprocess
import sys
from pathlib import Path

import pytest
from action_msgs.msg import GoalStatus

from mnemo_common.processes import NodeProcess, ros_env, unique_domain_id
from mnemo_interfaces.msg import Status

pytestmark = pytest.mark.ros
HERE = Path(__file__).parent


def _client_beside_echo_server(tmp_path, client_module: str) -> tuple[dict, bool]:
    """Run a peer client process against the echo server (on a private domain); its last line of
    output as JSON, and whether the server was still alive when the client ended."""
    env = ros_env(unique_domain_id(), {"PYTHONPATH": f"{HERE.parent}:{ros_env()['PYTHONPATH']}"})
    server = NodeProcess("tests.peers.echo_server", "echo_server", env=env, log_dir=tmp_path)
    try:
        client = subprocess.run([sys.executable, "-m", client_module], env=env, cwd=HERE.parent,
                                capture_output=True, text=True, timeout=120)
        assert client.returncode == 0, client.stderr[-2000:]
        alive = server.alive()
        return json.loads(client.stdout.strip().splitlines()[-1]), alive
    finally:
        server.stop()


def test_service_and_action_between_processes(tmp_path):
    out, server_alive = _client_beside_echo_server(tmp_path, "tests.peers.echo_client")
    assert out["detect"] == ["red", "mug"]
    assert out["bad_detect"][0] == Status.INVALID_ARGUMENT and "empty" in out["bad_detect"][1]
    assert out["done"] == {"success": True, "steps": 3, "feedback": [2, 1, 0]}
    assert out["canceled"]["status"] == GoalStatus.STATUS_CANCELED
    assert out["canceled"]["code"] == Status.CANCELED and out["canceled"]["steps"] < 50
    assert server_alive, "the server must survive the malformed request"


def test_a_lost_goal_accept_reply_still_ends_with_the_result(tmp_path):
    out, _ = _client_beside_echo_server(tmp_path, "tests.peers.lost_reply_client")
    assert out == {"status": GoalStatus.STATUS_SUCCEEDED, "success": True, "steps": 3, "feedback": [2, 1, 0],
                   "code": Status.OK}, out
