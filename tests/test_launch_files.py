"""Every launch file, for every deployment and documented argument combination, evaluated with the
launch shim: each node it starts must be an executable some package provides, each parameter it
passes must be one its node declares (with a type the declaration accepts), and every argument
must carry a description."""
from __future__ import annotations

import ast
import itertools
import re
import time
from functools import lru_cache
from pathlib import Path

import pytest

from mnemo_common import names
from mnemo_common.launch_shim import LaunchShimError, evaluate_launch_file

ROOT = Path(__file__).resolve().parents[1]
LAUNCH = ROOT / "launch"
# Parameters every ROS 2 node has without declaring them.
ROS_BUILTIN_PARAMS = {"use_sim_time", "start_type_description_service"}

# Each launch file with the arguments worth combining (every choice of every choice-argument).
VARIANTS = {
    "sim.launch.py": {"render": ["true", "false"], "policy": ["offline", "llm"], "use_sim_time": ["true", "false"],
                      "perception": ["oracle", "honest"]},
    "tiago.launch.py": {"operator_gate": ["true", "false"], "with_planner": ["true", "false"],
                        "policy": ["offline", "llm"]},
    "gazebo_tiago.launch.py": {"operator_gate": ["true", "false"], "policy": ["offline", "llm"]},
    "tidybot.launch.py": {"operator_gate": ["true", "false"], "policy": ["offline", "llm"]},
    "isaac.launch.py": {"robot": ["tiago", "tidybot"], "operator_gate": ["true", "false"]},
    "mnemo_stack.launch.py": {"with_skills": ["true", "false"], "with_planner": ["true", "false"],
                              "use_sim_time": ["true", "false"], "perception": ["oracle", "honest"]},
}


def combos(variants: dict[str, list[str]]):
    keys = sorted(variants)
    for values in itertools.product(*(variants[k] for k in keys)):
        yield dict(zip(keys, values))


CASES = [(name, args) for name, variants in VARIANTS.items() for args in combos(variants)]


def test_every_launch_file_is_covered():
    assert sorted(p.name for p in LAUNCH.glob("*.launch.py")) == sorted(VARIANTS)


# -- what the packages provide ---------------------------------------------------------
@lru_cache(maxsize=None)
def console_scripts() -> dict[tuple[str, str], str]:
    """(package, executable) -> module, from every src/*/setup.py."""
    out = {}
    for setup in sorted(ROOT.glob("src/*/setup.py")):
        for exe, module in re.findall(r"""["']\s*(\w+)\s*=\s*([\w.]+):\w+\s*["']""", setup.read_text()):
            out[(setup.parent.name, exe)] = module
    return out


def _module_file(module: str) -> Path:
    package = module.split(".")[0]
    return ROOT / "src" / package / (module.replace(".", "/") + ".py")


def _annotation(node: ast.AST) -> str:
    return ast.unparse(node).replace("typing.", "") if node is not None else ""


@lru_cache(maxsize=None)
def declared_params(module: str) -> tuple[str, dict[str, str]]:
    """(NODE_NAME, {parameter: annotation}) read from the node module's source (AST: no import,
    so a heavy node module costs nothing here). CONFIG_TYPE may be imported from a sibling module."""
    path = _module_file(module)
    tree = ast.parse(path.read_text())
    node_name, config_name = None, None
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            target = stmt.targets[0].id
            if target == "NODE_NAME":
                v = stmt.value
                node_name = (getattr(names, v.attr) if isinstance(v, ast.Attribute)
                             else ast.literal_eval(v))
            elif target == "CONFIG_TYPE" and isinstance(stmt.value, ast.Name):
                config_name = stmt.value.id
    assert node_name, f"{path}: no NODE_NAME"
    assert config_name, f"{path}: no CONFIG_TYPE = <dataclass>"
    return node_name, _dataclass_fields(tree, config_name, path)


def _dataclass_fields(tree: ast.Module, cls_name: str, path: Path) -> dict[str, str]:
    for stmt in tree.body:
        if isinstance(stmt, ast.ClassDef) and stmt.name == cls_name:
            return {s.target.id: _annotation(s.annotation) for s in stmt.body
                    if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)
                    and not _annotation(s.annotation).startswith("ClassVar")}
        if isinstance(stmt, ast.ImportFrom) and any((a.asname or a.name) == cls_name for a in stmt.names):
            original = next(a.name for a in stmt.names if (a.asname or a.name) == cls_name)
            other = _module_file(stmt.module)
            return _dataclass_fields(ast.parse(other.read_text()), original, other)
    raise AssertionError(f"{path}: CONFIG_TYPE class {cls_name} not found")


def type_problem(annotation: str, value) -> str:
    """Why a YAML/launch value would not fit a parameter declared with this annotation ("" if fine)."""
    base = annotation.split("[")[0].strip()
    if base == "float" and not (isinstance(value, float)):
        return "expects a float: write it with a decimal point"
    if base == "int" and (not isinstance(value, int) or isinstance(value, bool)):
        return "expects an int"
    if base == "bool" and not isinstance(value, bool):
        return "expects true/false"
    if base == "str" and not isinstance(value, str):
        return "expects a string (quote it)"
    if base in ("tuple", "list", "Tuple", "List") and not isinstance(value, list):
        return "expects a list"
    return ""


@pytest.mark.parametrize("launch_file, args", CASES, ids=[f"{n}-{'-'.join(a.values())}" for n, a in CASES])
def test_launch_file_nodes_and_parameters(launch_file, args):
    result = evaluate_launch_file(LAUNCH / launch_file, args)
    assert result.nodes, f"{launch_file} starts no node"
    problems = []
    for spec in result.nodes:
        module = console_scripts().get((spec.package, spec.executable))
        if module is None:
            problems.append(f"{spec.name}: no package provides {spec.package}/{spec.executable}")
            continue
        if not _module_file(module).exists():
            problems.append(f"{spec.name}: {spec.package}/{spec.executable} points at missing module {module}")
            continue
        node_name, fields = declared_params(module)
        if spec.name != node_name:
            problems.append(f"{spec.name}: launched under another name than its NODE_NAME {node_name!r}")
        for param, value in sorted(spec.params.items()):
            if param in ROS_BUILTIN_PARAMS:
                continue
            if param not in fields:
                problems.append(f"{spec.name}: parameter {param!r} is not declared by {module} "
                                f"(declared: {sorted(fields)})")
                continue
            why = type_problem(fields[param], value)
            if why:
                problems.append(f"{spec.name}: parameter {param}={value!r} {why} ({fields[param]})")
    assert not problems, f"{launch_file} {args}:\n  " + "\n  ".join(problems)


@pytest.mark.parametrize("launch_file", sorted(VARIANTS))
def test_every_argument_is_described(launch_file):
    result = evaluate_launch_file(LAUNCH / launch_file)
    missing = [a.name for a in result.arguments if len(a.description.strip()) < 10]
    assert not missing, f"{launch_file}: arguments without a description: {missing}"


def test_deployments_start_the_expected_nodes():
    sim_nodes = evaluate_launch_file(LAUNCH / "sim.launch.py").nodes
    sim = {n.name for n in sim_nodes}
    # against the simulator as on a robot: honest perception unless oracle is asked for
    assert {n.name: n.params["perception"] for n in sim_nodes if "perception" in n.params} == {
        names.SIM_NODE: "honest", names.PERCEPTION_NODE: "honest", names.SCENE_GRAPH_NODE: "honest"}
    assert sim == {names.SIM_NODE, names.MEMORY_NODE, names.PERCEPTION_NODE, names.SCENE_GRAPH_NODE,
                   names.KEYFRAMES_NODE, names.ANALYZER_NODE, names.PLANNER_NODE}
    tiago = evaluate_launch_file(LAUNCH / "tiago.launch.py", {"with_planner": "false"})
    assert {n.name for n in tiago.nodes} == sim - {names.SIM_NODE, names.PLANNER_NODE} | {names.SKILLS_NODE}


def test_robot_camera_topics_and_profiles_reach_the_nodes():
    nodes = {n.name: n for n in evaluate_launch_file(LAUNCH / "tiago.launch.py").nodes}
    assert (names.COLOR_IMAGE, "/head_front_camera/rgb/image_raw") in nodes[names.PERCEPTION_NODE].remappings
    # the scene graph judges misses by the same camera's depth
    assert nodes[names.SCENE_GRAPH_NODE].remappings == nodes[names.PERCEPTION_NODE].remappings
    skills = nodes[names.SKILLS_NODE]
    assert skills.params["profile_file"].endswith("profiles/tiago.yaml") and Path(skills.params["profile_file"]).exists()
    assert skills.params["operator_gate"] is True and skills.params["use_sim_time"] is False
    isaac = {n.name: n for n in evaluate_launch_file(LAUNCH / "isaac.launch.py", {"robot": "tidybot"}).nodes}
    assert (names.DEPTH_IMAGE, "/depth") in isaac[names.PERCEPTION_NODE].remappings
    assert isaac[names.SKILLS_NODE].params["profile_file"].endswith("profiles/tidybot.yaml")
    assert isaac[names.SKILLS_NODE].params["base_frame"] == "base_link"  # from config/tidybot.yaml
    assert isaac[names.SKILLS_NODE].params["use_sim_time"] is True


# -- the shim refuses what it does not implement ---------------------------------------
def _write(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "x.launch.py"
    path.write_text(body)
    return path


HEADER = "from launch import LaunchDescription\n"


@pytest.mark.parametrize("body, message", [
    (HEADER + "from launch.actions import ExecuteProcess\n"
              "def generate_launch_description():\n    return LaunchDescription([])\n",
     "launch.actions.ExecuteProcess is not supported"),
    (HEADER + "from launch.substitutions import PythonExpression\n"
              "def generate_launch_description():\n    return LaunchDescription([])\n",
     "PythonExpression is not supported"),
    (HEADER + "def generate_launch_description():\n    return LaunchDescription([object()])\n",
     "unsupported launch entity object"),
    (HEADER + "from launch_ros.actions import Node\n"
              "def generate_launch_description():\n"
              "    return LaunchDescription([Node(package='p', executable='e', ros_arguments=['--log-level'])])\n",
     "unsupported argument"),
    (HEADER + "from launch.actions import DeclareLaunchArgument\n"
              "def generate_launch_description():\n"
              "    return LaunchDescription([DeclareLaunchArgument('needed', description='no default')])\n",
     "'needed' is required"),
    (HEADER + "from launch.actions import DeclareLaunchArgument\n"
              "def generate_launch_description():\n"
              "    return LaunchDescription([DeclareLaunchArgument('a', default_value='x', choices=['y'],"
              " description='d')])\n",
     "expected one of"),
    (HEADER + "from launch.actions import GroupAction\nfrom launch.conditions import IfCondition\n"
              "def generate_launch_description():\n"
              "    return LaunchDescription([GroupAction([], condition=IfCondition('maybe'))])\n",
     "true/false/1/0"),
])
def test_shim_refuses_unknown_constructs_clearly(tmp_path, body, message):
    with pytest.raises(LaunchShimError, match=message):
        evaluate_launch_file(_write(tmp_path, body))


def test_shim_parameter_and_scope_semantics(tmp_path):
    params = tmp_path / "p.yaml"
    params.write_text("/**:\n  ros__parameters:\n    shared: 1\n"
                      "talker:\n  ros__parameters:\n    rate: 2.0\n    nested: {a: true}\n"
                      "other:\n  ros__parameters:\n    rate: 9.0\n")
    body = (HEADER + "from launch.actions import DeclareLaunchArgument, GroupAction, SetEnvironmentVariable\n"
            "from launch.conditions import UnlessCondition\nfrom launch.substitutions import LaunchConfiguration\n"
            "from launch_ros.actions import Node\n"
            "def generate_launch_description():\n"
            "    return LaunchDescription([\n"
            "        DeclareLaunchArgument('quiet', default_value='False', description='d'),\n"
            "        SetEnvironmentVariable('X', 'y'),\n"
            "        GroupAction([DeclareLaunchArgument('inner', default_value='1', description='d')]),\n"
            f"        Node(package='mnemo_common', executable='mnemo', name='talker', parameters=['{params}',\n"
            "             {'rate': LaunchConfiguration('inner', default='3.5'), 'flag': LaunchConfiguration('quiet')}],\n"
            "             remappings=[('/a', '/b')], condition=UnlessCondition(LaunchConfiguration('quiet'))),\n"
            "    ])\n")
    result = evaluate_launch_file(_write(tmp_path, body))
    (node,) = result.nodes
    assert node.params == {"shared": 1, "rate": 3.5, "nested.a": True, "flag": False}
    assert node.remappings == [("/a", "/b")] and node.env == {"X": "y"}
    assert "inner" not in result.configurations  # the scoped group's argument stayed inside it
    assert evaluate_launch_file(_write(tmp_path, body), {"quiet": "true"}).nodes == []


# -- mnemo launch: the nodes of a launch file as processes ------------------------------
SKILLS_LAUNCH = (HEADER + "from launch_ros.actions import Node\n"
                 "from launch.actions import DeclareLaunchArgument\n"
                 "from launch.substitutions import LaunchConfiguration\n"
                 "def generate_launch_description():\n"
                 "    return LaunchDescription([\n"
                 "        DeclareLaunchArgument('profile', default_value='{profile}', description='robot profile'),\n"
                 "        Node(package='mnemo_skills', executable='skills_node', name='skills',\n"
                 "             parameters=[{{'profile_file': LaunchConfiguration('profile'), 'operator_gate': False}}],\n"
                 "             remappings=[('/mnemo/skills/pending', '/test/pending')]),\n"
                 "    ])\n")
TIAGO_PROFILE = ROOT / "src" / "mnemo_skills" / "profiles" / "tiago.yaml"


def test_dry_run_lists_the_resolved_nodes(tmp_path, capsys):
    from mnemo_common.launcher import main

    path = tmp_path / "skills.launch.py"
    path.write_text(SKILLS_LAUNCH.format(profile=TIAGO_PROFILE))
    assert main([str(path), "profile:=other.yaml", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "skills: mnemo_skills/skills_node (python -m mnemo_skills.node)" in out
    assert "param profile_file = 'other.yaml'" in out and "param operator_gate = False" in out
    assert "remap /mnemo/skills/pending -> /test/pending" in out
    assert main(["nope.launch.py", "--dry-run"]) == 2
    path.write_text(SKILLS_LAUNCH.format(profile=TIAGO_PROFILE).replace("skills_node", "no_such_node"))
    assert main([str(path), "--dry-run"]) == 1
    assert "MISSING: package mnemo_skills has no executable no_such_node" in capsys.readouterr().out


@pytest.mark.ros
def test_start_launch_file_runs_the_node_with_its_parameters(tmp_path):
    from mnemo_common.launcher import start_launch_file
    from mnemo_common.processes import ros_env, unique_domain_id

    path = tmp_path / "skills.launch.py"
    path.write_text(SKILLS_LAUNCH.format(profile=TIAGO_PROFILE))
    procs = start_launch_file(path, {}, env=ros_env(unique_domain_id()), log_dir=tmp_path / "log")
    try:
        (proc,) = procs
        assert proc.module == "mnemo_skills.node" and "/test/pending" in " ".join(proc.proc.args)
        deadline = time.monotonic() + 30.0
        while "ready" not in proc.log() and proc.alive() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert "skills for tiago ready (operator gate off)" in proc.log(), proc.log()
    finally:
        for p in procs:
            p.stop()


@pytest.mark.ros
def test_mnemo_launch_stops_when_a_node_dies(tmp_path, capsys):
    from mnemo_common.launcher import main

    path = tmp_path / "broken.launch.py"
    path.write_text(SKILLS_LAUNCH.format(profile=tmp_path / "missing.yaml"))
    t0 = time.monotonic()
    assert main([str(path), "--log-dir", str(tmp_path / "log")]) == 1
    assert time.monotonic() - t0 < 60.0
    captured = capsys.readouterr()
    assert "[skills] " in captured.out and "missing.yaml" in captured.out
    assert "skills exited with code" in captured.err
