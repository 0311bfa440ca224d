"""`mnemo graph`: inspect a running scene-graph node.

    mnemo graph show [--label L] [--room R] [--stale]   one line per node
    mnemo graph history NODE_ID                         the node, its past locations and changes
"""
from __future__ import annotations

import argparse
import sys
from typing import Optional

from mnemo_scene_graph.conversions import decode_value


def _fmt_time(seconds: float) -> str:
    day, rest = divmod(max(0.0, seconds), 86400.0)
    return f"d{int(day)} {int(rest // 3600):02d}:{int(rest % 3600 // 60):02d}:{int(rest % 60):02d}"


def format_node(node) -> str:
    """One line describing an ObjectNode message."""
    p = node.position
    where = f" {node.relation} {node.parent}" if node.parent else ""
    props = ", ".join(f"{q.name}={q.value}" for q in node.properties if q.name != "instance_id")
    parts = [f"{node.id:<18} {node.kind:<7} ({p.x:6.2f}, {p.y:6.2f}, {p.z:5.2f}) {node.room}{where}",
             f"seen {node.observation_count}x, last {_fmt_time(node.last_seen.sec + node.last_seen.nanosec * 1e-9)}"]
    if node.state != "current":
        parts.append(node.state.upper())
    if props:
        parts.append(props)
    if node.contents:
        parts.append("contents: " + ", ".join(node.contents))
    if node.task_history:
        parts.append("history: " + "; ".join(node.task_history))
    return "  ".join(parts)


def format_event(event) -> str:
    stamp = _fmt_time(event.stamp.sec + event.stamp.nanosec * 1e-9)
    old, new = decode_value(event.old_value), decode_value(event.new_value)

    def short(value) -> str:
        if isinstance(value, dict) and "position" in value and "parent" in value:
            x, y, z = value["position"]
            where = f"{value.get('relation') or 'at'} {value['parent']}" if value.get("parent") else "free"
            return f"{where} ({x:.2f}, {y:.2f}, {z:.2f})"
        if isinstance(value, dict) and "value" in value:
            return f"{value['value']} ({value.get('source', '')}, {value.get('confidence', 1.0):.2f})"
        if isinstance(value, dict):
            return f"{value.get('label', '')} created"
        if isinstance(value, list):
            return "[" + ", ".join(map(str, value)) + "]"
        return "-" if value is None else str(value)

    change = short(new) if event.kind in ("created", "outcome") else f"{short(old)} -> {short(new)}"
    return f"#{event.seq:<6} {stamp}  {event.kind:<9} {event.field:<12} {change}  [{event.source}]"


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="mnemo graph", description="Inspect the scene graph of a running node.")
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds to wait for the node")
    sub = parser.add_subparsers(dest="command", required=True)
    show = sub.add_parser("show", help="list nodes")
    show.add_argument("--label", default="", help="only nodes of this label")
    show.add_argument("--room", default="", help="only nodes in this room")
    show.add_argument("--stale", action="store_true", help="include stale and contradicted nodes")
    hist = sub.add_parser("history", help="a node's changes and past locations")
    hist.add_argument("node_id")
    args = parser.parse_args(argv)

    from mnemo_common import names
    from mnemo_common.ros_client import RosClient
    from mnemo_interfaces.srv import GetNodeHistory, GetSceneGraph

    try:
        with RosClient("mnemo_graph_cli") as client:
            if args.command == "show":
                request = GetSceneGraph.Request(labels=[args.label] if args.label else [], room=args.room,
                                                include_stale=args.stale)
                response = client.call(GetSceneGraph, names.GRAPH_GET, request, timeout=args.timeout)
                if response.error_code:
                    print(f"mnemo graph: {response.error_msg}", file=sys.stderr)
                    return 1
                for node in response.graph.nodes:
                    print(format_node(node))
                print(f"{len(response.graph.nodes)} nodes, {len(response.graph.relations)} relations")
            else:
                response = client.call(GetNodeHistory, names.GRAPH_HISTORY,
                                       GetNodeHistory.Request(node_id=args.node_id), timeout=args.timeout)
                if response.error_code:
                    print(f"mnemo graph: {response.error_msg}", file=sys.stderr)
                    return 1
                if response.node.id:
                    print(format_node(response.node))
                for event in response.events:
                    print(format_event(event))
    except TimeoutError as exc:
        print(f"mnemo graph: {exc} (is the scene_graph node running?)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
