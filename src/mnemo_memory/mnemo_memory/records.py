"""How a MemoryRecord is laid out in Qdrant: point id and payload (no engine imports here).

Payload keys (indexed ones marked *):
  id, stamp*, x*, y*, yaw, camera [px, py, pz, qx, qy, qz, qw], room*, caption, labels*,
  sightings (JSON text), raw_ref
"""
from __future__ import annotations

import json
import uuid
from typing import Any, Optional

import numpy as np

from mnemo_common.types import MemoryRecord, Pose2D, Pose3D, Sighting

# Payload fields with an index, and their kind ("float" range index or "keyword").
INDEXED_FIELDS: dict[str, str] = {"stamp": "float", "x": "float", "y": "float", "room": "keyword", "labels": "keyword"}

_ID_NAMESPACE = uuid.UUID("5b0c1a52-6c1d-4b55-9f3e-6d656d6f6d65")


def new_record_id() -> str:
    return str(uuid.uuid4())


def point_id(record_id: str) -> str:
    """Qdrant point ids are UUIDs: a record id that is one is used as is, any other string is
    mapped to a stable UUID (the original id stays in the payload)."""
    try:
        return str(uuid.UUID(record_id))
    except (ValueError, AttributeError, TypeError):
        return str(uuid.uuid5(_ID_NAMESPACE, str(record_id)))


def _sighting_dict(s: Sighting) -> dict[str, Any]:
    # by hand: dataclasses.asdict deep-copies and was most of the ingest time
    return {"label": s.label, "position": [float(v) for v in s.position], "attributes": dict(s.attributes),
            "kind": s.kind, "object_id": s.object_id, "support": s.support, "relation": s.relation,
            "score": float(s.score)}


def record_to_payload(r: MemoryRecord) -> dict[str, Any]:
    return {
        "id": r.id,
        "stamp": float(r.stamp),
        "x": float(r.robot_pose.x),
        "y": float(r.robot_pose.y),
        "yaw": float(r.robot_pose.yaw),
        "camera": [float(v) for v in (*r.camera_pose.position, *r.camera_pose.orientation)],
        "room": r.room,
        "caption": r.caption,
        "labels": sorted(set(r.labels)),
        "sightings": json.dumps([_sighting_dict(s) for s in r.sightings], separators=(",", ":")),
        "raw_ref": r.raw_ref,
    }


def _sighting(d: dict) -> Sighting:
    d = dict(d)
    d["position"] = tuple(d.get("position", (0.0, 0.0, 0.0)))
    return Sighting(**d)


def record_from_payload(p: dict[str, Any], vector: Optional[Any] = None, score: float = 0.0) -> MemoryRecord:
    cam = p.get("camera") or [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0]
    return MemoryRecord(
        id=p["id"],
        stamp=float(p["stamp"]),
        robot_pose=Pose2D(float(p["x"]), float(p["y"]), float(p.get("yaw", 0.0))),
        camera_pose=Pose3D(tuple(cam[:3]), tuple(cam[3:7])),
        caption=p.get("caption", ""),
        room=p.get("room", ""),
        labels=list(p.get("labels", [])),
        sightings=[_sighting(s) for s in json.loads(p.get("sightings") or "[]")],
        raw_ref=p.get("raw_ref", ""),
        embedding=None if vector is None else np.asarray(vector, dtype=np.float32),
        score=float(score),
    )
