"""``mnemo bench`` perceives honestly unless told otherwise: rendered frames, no simulator ids. Oracle
perception is asked for by name, is what ``--ros`` runs, and the report calls it an upper bound."""
import pytest

import mnemo_bench.runner as runner
from mnemo_bench.cli import main
from mnemo_bench.runner import SuiteResult

ARGS = ["--methods", "SG", "--no-qa", "--no-plots", "--quiet"]


@pytest.fixture
def modes(monkeypatch):
    """The perception modes main() runs, and the scenarios it runs them on (nothing is run)."""
    seen = []

    def run_modes(scenarios, methods, modes, **kwargs):
        seen.append((list(modes), [sc.name for sc in scenarios]))
        meta = {"seed": 0, "perception": " and ".join(modes), "methods": [m.name for m in methods],
                "scenarios": [sc.name for sc in scenarios], "tasks": 0, "seconds": 0.0}
        return SuiteResult([], [], meta)

    monkeypatch.setattr(runner, "run_modes", run_modes)
    return seen


def test_honest_unless_told_otherwise(modes, tiny_path, tmp_path):
    assert main([str(tiny_path), *ARGS, "--out", str(tmp_path / "a")]) == 0
    assert main([*ARGS, "--out", str(tmp_path / "b")]) == 0  # no scenario: the smallest shipped one
    assert main([*ARGS, "--perception", "oracle", "--out", str(tmp_path / "c")]) == 0  # every shipped one
    assert [m for m, _ in modes] == [["honest"], ["honest"], ["oracle"]]
    assert modes[1][1] == ["student_flat"] and len(modes[2][1]) > 1
    assert "upper bound" not in (tmp_path / "a" / "report.md").read_text()
    assert "oracle perception (oracle: " in (tmp_path / "c" / "report.md").read_text()
    assert "upper bound" in (tmp_path / "c" / "report.md").read_text()


def test_ros_runs_oracle_and_refuses_honest(tiny_path, tmp_path, monkeypatch):
    import mnemo_bench.ros_runner as ros_runner

    ran = []
    monkeypatch.setattr(ros_runner, "run_ros_suite", lambda *a, **k: ran.append(1) or SuiteResult(
        [], [], {"seed": 0, "perception": "oracle", "methods": ["full"], "scenarios": ["tiny_flat"], "tasks": 0,
                 "seconds": 0.0}))
    assert main([str(tiny_path), "--ros", *ARGS, "--out", str(tmp_path)]) == 0 and ran == [1]
    assert main([str(tiny_path), "--ros", "--perception", "honest", *ARGS, "--out", str(tmp_path)]) == 2

