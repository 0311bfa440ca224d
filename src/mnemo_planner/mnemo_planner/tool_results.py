"""What the tools answer, alike in process and over ROS: scene-graph nodes as the plain dicts the
policies read, and the one-line summaries of records, nodes and detections the working memory keeps."""
from __future__ import annotations

from typing import Any

from mnemo_common.types import Detection, MemoryRecord


def node_dict(node: Any) -> dict:
    """A scene-graph node as the plain dict the policies read (same keys over ROS)."""
    props = {k: getattr(v, "value", v) for k, v in (getattr(node, "properties", {}) or {}).items()}
    return {"id": node.id, "label": node.label, "kind": node.kind, "position": tuple(node.position),
            "room": node.room, "parent": node.parent, "relation": node.relation,
            "first_seen": float(node.first_seen), "last_seen": float(node.last_seen),
            "observation_count": int(node.observation_count), "properties": props,
            "contents": list(node.contents), "state": node.state, "task_history": list(node.task_history),
            "merged_ids": list(getattr(node, "merged_ids", [])),
            "trail": [{"parent": loc.parent, "since": float(loc.since), "until": float(loc.until)}
                      for loc in [*getattr(node, "location_trail", []), node.location()] if loc.parent]
            if hasattr(node, "location") else []}


def describe_records(records: list[MemoryRecord], limit: int = 5) -> str:
    if not records:
        return "no records"
    parts = []
    for r in records[:limit]:
        day, rest = divmod(int(r.stamp), 86400)
        parts.append(f"[{r.id} day {day} {rest // 3600:02d}:{rest % 3600 // 60:02d} {r.room}] {r.caption[:160]}")
    more = f" (+{len(records) - limit} more)" if len(records) > limit else ""
    return f"{len(records)} records: " + " | ".join(parts) + more


def describe_nodes(nodes: list[dict], limit: int = 12) -> str:
    if not nodes:
        return "no nodes"
    parts = []
    for n in nodes[:limit]:
        where = f" {n['relation'] or 'at'} {n['parent']}" if n.get("parent") else ""
        props = ",".join(f"{k}={v}" for k, v in n.get("properties", {}).items() if k != "instance_id")
        parts.append(f"{n['id']} ({n['label']}{'; ' + props if props else ''}){where} [{n.get('state', '')}]")
    more = f" (+{len(nodes) - limit} more)" if len(nodes) > limit else ""
    return f"{len(nodes)} nodes: " + "; ".join(parts) + more


def describe_detections(detections: list[Detection]) -> str:
    if not detections:
        return "nothing seen"
    return "saw " + ", ".join(
        f"{d.label}" + (f" ({','.join(f'{v}' for v in d.attributes.values())})" if d.attributes else "")
        + (f" [{d.instance_id or d.node_id}]" if (d.instance_id or d.node_id) else "") for d in detections)
