"""`mnemo graph show|history` against the real node process, across a SIGKILL restart."""
import subprocess
import sys

from mnemo_common import names
from mnemo_common.processes import NodeProcess, ros_env, unique_domain_id
from mnemo_common.types import Observation, Pose2D, Pose3D, PropertyValue, Sighting
from mnemo_scene_graph.persistence import GraphStore


def seed(data_dir):
    store = GraphStore(data_dir)
    g = store.load()
    store.attach(g)
    table = Sighting("table", (1.0, 2.0, 0.4), kind="fixture", object_id="table_1")
    sink = Sighting("sink", (3.0, 0.5, 0.4), kind="fixture", object_id="sink_1")
    g.integrate_observation(Observation(100.0, Pose2D(0, 0), Pose3D(), "kitchen", [
        table, sink, Sighting("mug", (1.0, 2.0, 0.8), {"color": "red"}, support="table_1", relation="on")]))
    g.integrate_observation(Observation(200.0, Pose2D(0, 0), Pose3D(), "kitchen", [table]), visible_fn=lambda p: True)
    g.integrate_observation(Observation(300.0, Pose2D(0, 0), Pose3D(), "kitchen", [
        sink, Sighting("mug", (3.0, 0.5, 0.9), {"color": "red"}, support="sink_1", relation="on")]))
    g.update("sink_1", {"material": PropertyValue("steel", 0.9, "vlm", 310.0)})
    store.flush()  # no snapshot: the node must rebuild from the log alone


def cli(env, *args):
    return subprocess.run([sys.executable, "-m", "mnemo_scene_graph.cli", "--timeout", "20", *args], env=env,
                          capture_output=True, text=True, timeout=60)


def test_cli_show_and_history_across_a_crash(tmp_path):
    data = tmp_path / "data"
    seed(data)
    env = ros_env(unique_domain_id())
    params = {"data_dir": str(data), "publish_period": 0.2}
    node = NodeProcess("mnemo_scene_graph.node", names.SCENE_GRAPH_NODE, params, env=env, log_dir=tmp_path / "log")
    try:
        shown = cli(env, "show")
        assert shown.returncode == 0, shown.stderr + node.log()
        lines = shown.stdout.splitlines()
        assert any(line.startswith("mug_1") and "on sink_1" in line for line in lines), shown.stdout
        assert lines[-1].startswith("3 nodes")
        only = cli(env, "show", "--label", "mug")
        assert only.returncode == 0 and only.stdout.splitlines()[-1].startswith("1 nodes")
        history = cli(env, "history", "mug_1")
        assert history.returncode == 0, history.stderr
        assert "on table_1" in history.stdout and "-> on sink_1" in history.stdout
        assert "current -> stale" in history.stdout and "stale -> current" in history.stdout
        missing = cli(env, "history", "ghost_7")
        assert missing.returncode == 1 and "ghost_7" in missing.stderr

        node.kill()  # no clean-up, no snapshot
        node = NodeProcess("mnemo_scene_graph.node", names.SCENE_GRAPH_NODE, params, env=env,
                           log_dir=tmp_path / "log2")
        again = cli(env, "show", "--label", "sink")
        assert again.returncode == 0 and "material=steel" in again.stdout, again.stdout + again.stderr
    finally:
        node.stop()
    assert (data / "scene_graph" / "snapshot.json").exists()  # written on the clean stop
