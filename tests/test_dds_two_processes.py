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


def test_service_and_action_between_processes(tmp_path):
    env = ros_env(unique_domain_id(), {"PYTHONPATH": f"{HERE.parent}:{ros_env()['PYTHONPATH']}"})
    server = NodeProcess("tests.peers.echo_server", "echo_server", env=env, log_dir=tmp_path)
    try:
        client = subprocess.run([sys.executable, "-m", "tests.peers.echo_client"], env=env, cwd=HERE.parent,
                                capture_output=True, text=True, timeout=120)
        assert client.returncode == 0, client.stderr[-2000:]
        out = json.loads(client.stdout.strip().splitlines()[-1])
        assert out["detect"] == ["red", "mug"]
        assert out["bad_detect"][0] == Status.INVALID_ARGUMENT and "empty" in out["bad_detect"][1]
        assert out["done"] == {"success": True, "steps": 3, "feedback": [2, 1, 0]}
        assert out["canceled"]["status"] == GoalStatus.STATUS_CANCELED
        assert out["canceled"]["code"] == Status.CANCELED and out["canceled"]["steps"] < 50
        assert server.alive(), "the server must survive the malformed request"
    finally:
        server.stop()


def test_a_lost_goal_accept_reply_still_ends_with_the_result(tmp_path):
    env = ros_env(unique_domain_id(), {"PYTHONPATH": f"{HERE.parent}:{ros_env()['PYTHONPATH']}"})
    server = NodeProcess("tests.peers.echo_server", "echo_server", env=env, log_dir=tmp_path)
    try:
        client = subprocess.run([sys.executable, "-m", "tests.peers.lost_reply_client"], env=env, cwd=HERE.parent,
                                capture_output=True, text=True, timeout=120)
        assert client.returncode == 0, client.stderr[-2000:]
        out = json.loads(client.stdout.strip().splitlines()[-1])
        assert out == {"status": GoalStatus.STATUS_SUCCEEDED, "success": True, "steps": 3, "feedback": [2, 1, 0],
                       "code": Status.OK}, out
    finally:
        server.stop()
