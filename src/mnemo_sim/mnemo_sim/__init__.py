"""mnemo_sim: the built-in household simulator.

Pure core (no ROS): ``scenario`` (file format), ``world`` (state over time), ``navigation`` (paths through
doors), ``patrol`` (camera, visibility, observations), ``skills`` (SimRobot), ``tasks`` (task runner and
scoring), ``cli`` (``mnemo scenario``). The ROS node and renderer live in ``node``, ``render``, ``conversions``.
"""
from __future__ import annotations

from pathlib import Path


def scenarios_dir() -> Path:
    """Folder of the scenarios shipped with mnemo_sim (source tree, or the installed share folder)."""
    here = Path(__file__).resolve().parent.parent / "scenarios"
    if here.is_dir():
        return here
    from ament_index_python.packages import get_package_share_directory

    return Path(get_package_share_directory("mnemo_sim")) / "scenarios"


def list_scenarios() -> list[Path]:
    """Paths of the shipped scenario files, sorted by name."""
    return sorted(scenarios_dir().glob("*.yaml"))
