"""The README documents what the code does: its ROS API table is the one names.py generates,
and its two commands exist."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_ros_api_table_matches_names():
    table = subprocess.check_output([sys.executable, str(ROOT / "scripts/ros_api_table.py")], text=True).strip()
    assert table in (ROOT / "README.md").read_text(), "README ROS API table is out of date: rerun scripts/ros_api_table.py"


def test_readme_commands_exist_and_ci_calls_the_test_command():
    readme = (ROOT / "README.md").read_text()
    for command in ("scripts/demo", "scripts/test"):
        assert command in readme and (ROOT / command).exists()
    assert "scripts/test" in (ROOT / ".ci/run").read_text()
