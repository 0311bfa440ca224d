"""Print the README's ROS API table from mnemo_common/names.py (one source of truth).

Each name constant's trailing comment gives its type (and meaning); the serving or publishing node
is derived from the name. Usage: python scripts/ros_api_table.py > table.md
"""
import ast
import re
from pathlib import Path

NAMES = Path(__file__).resolve().parents[1] / "src/mnemo_common/mnemo_common/names.py"

OWNERS = [  # (name prefix, node, kind)
    ("/camera/", "mnemo_sim / robot drivers", "topic"),
    ("/clock", "mnemo_sim", "topic"),
    ("/mnemo/camera_pose", "mnemo_sim / localisation", "topic"),
    ("/mnemo/robot_pose", "mnemo_sim / localisation", "topic"),
    ("/mnemo/observations", "mnemo_sim (oracle) / scene_graph (honest)", "topic"),
    ("/mnemo/detections", "perception", "topic"),
    ("/mnemo/scene_graph/get", "scene_graph", "service"),
    ("/mnemo/scene_graph/query", "scene_graph", "service"),
    ("/mnemo/scene_graph/history", "scene_graph", "service"),
    ("/mnemo/scene_graph/update", "scene_graph", "service"),
    ("/mnemo/scene_graph", "scene_graph", "topic"),
    ("/mnemo/interactions", "mnemo_sim / skills", "topic"),
    ("/mnemo/keyframes/", "keyframes", "service"),
    ("/mnemo/keyframes", "keyframes", "topic"),
    ("/mnemo/planner/steps", "planner", "topic"),
    ("/mnemo/memory/", "memory", "service"),
    ("/mnemo/perception/", "perception", "service"),
    ("/mnemo/skills/confirm", "skills (operator gate)", "service"),
    ("/mnemo/skills/", "mnemo_sim / skills", "service"),
    ("/mnemo/sim/", "mnemo_sim", "service"),
    ("/mnemo/retrieve_object", "planner", "action"),
]


def rows():
    source = NAMES.read_text().splitlines()
    for node in ast.parse(NAMES.read_text()).body:
        if not (isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant)):
            continue
        value = node.value.value
        if not (isinstance(value, str) and value.startswith("/")):
            continue
        comment = source[node.lineno - 1].partition("#")[2].strip()
        type_, _, meaning = comment.partition(",")
        type_ = type_.strip()
        if "/" not in type_ and type_:
            type_ = f"mnemo_interfaces/{type_}"
        owner, kind = next(((o, k) for p, o, k in OWNERS if value.startswith(p)), ("?", "?"))
        yield value, kind, re.sub(r"\s+", " ", type_), owner, meaning.strip()


def main():
    print("| name | kind | type | node | meaning |")
    print("|---|---|---|---|---|")
    for name, kind, type_, owner, meaning in rows():
        print(f"| `{name}` | {kind} | `{type_}` | {owner} | {meaning} |")


if __name__ == "__main__":
    main()
