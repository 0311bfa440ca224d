"""How a MemoryRecord is laid out in Qdrant: point id and payload (no engine imports here).

Payload keys (schema 2 and 3): the indexed fields as top-level values, everything else in one compact
JSON text ``d`` (the engines convert each payload value separately, and lists cost most: one text
instead of a dozen values and two lists made ingest about twice as fast)::

  stamp*, x*, y*, room* (omitted when empty), labels* (omitted when empty),
  last* (compacted records only, in stores with spans: when the merged observations last held),
  rh* (schema 3: room and hour of the stamp as one keyword, ``room_hour``; omitted without a room),
  d = {"id", "yaw", "cam": [px, py, pz, qx, qy, qz, qw], "caption", "sightings": [...], "raw_ref",
       "n" and "raw_last" (compacted records only: observations merged, the last one's raw reference)}

A sighting leaves out the fields at their default (kind "object", score 1.0, empty strings and
attributes); readers fill them back from Sighting's defaults.

Schema 1 payloads (every key top-level, sightings as JSON text) are still read.
"""
from __future__ import annotations

import json
import math
import uuid
from typing import Any, Optional

import numpy as np

try:  # Rust JSON codec (a qdrant-client dependency): ~6x faster than json.dumps, ~3.5x than json.loads here
    from pydantic_core import from_json as _loads
    from pydantic_core import to_json as _to_json

    def _dumps(obj: Any) -> str:
        return _to_json(obj).decode()
except ImportError:  # pragma: no cover
    _loads = json.loads

    def _dumps(obj: Any) -> str:
        return json.dumps(obj, separators=(",", ":"))

from mnemo_common.types import MemoryRecord, Pose2D, Pose3D, Sighting

ROOM_HOUR = "rh"  # the room-hour keyword's field (schema 3)
# Payload fields with an index, and their kind ("float" range index or "keyword").
INDEXED_FIELDS: dict[str, str] = {"stamp": "float", "x": "float", "y": "float", "room": "keyword",
                                   "labels": "keyword", "last": "float", ROOM_HOUR: "keyword"}


def hour_of(stamp: float) -> int:
    """The hour since the epoch a stamp falls in."""
    return math.floor(float(stamp) / 3600.0)


def room_hour(room: str, hour: int) -> str:
    """One keyword for a room and an hour (``hour_of``). A query for a room within a few hours
    matches a handful of these exactly, which the engine counts and walks far faster than a stamp
    range (a tenth of a month) and a room (a sixth of the home) checked point by point."""
    return f"{room}@{hour}"

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
    # by hand: dataclasses.asdict deep-copies and was most of the ingest time. Fields at their
    # default are left out (Sighting's defaults fill them back): a shorter text to write and read.
    d: dict[str, Any] = {"label": s.label, "position": [float(v) for v in s.position]}
    if s.attributes:
        d["attributes"] = dict(s.attributes)
    if s.kind != "object":
        d["kind"] = s.kind
    for key, value in (("object_id", s.object_id), ("support", s.support), ("relation", s.relation)):
        if value:
            d[key] = value
    if s.score != 1.0:
        d["score"] = float(s.score)
    return d


def record_to_payload(r: MemoryRecord, spans: bool = True, room_hours: bool = False) -> dict[str, Any]:
    """``spans``: the store indexes spans (stores created before compaction do not); ``room_hours``:
    it indexes ``rh`` (schema 3)."""
    rp, cp = r.robot_pose, r.camera_pose
    payload: dict[str, Any] = {"stamp": float(r.stamp), "x": float(rp.x), "y": float(rp.y)}
    if spans and r.last_stamp is not None:
        payload["last"] = float(r.last_stamp)
    if r.room:
        payload["room"] = r.room
        if room_hours:
            payload[ROOM_HOUR] = room_hour(r.room, hour_of(r.stamp))
    if r.labels:
        payload["labels"] = sorted(set(r.labels))
    d = {"id": r.id, "yaw": float(rp.yaw), "cam": [float(v) for v in (*cp.position, *cp.orientation)],
         "caption": r.caption, "sightings": [_sighting_dict(s) for s in r.sightings], "raw_ref": r.raw_ref}
    if r.last_stamp is not None:
        d.update(last=float(r.last_stamp), n=int(r.count), raw_last=r.raw_ref_last)
    payload["d"] = _dumps(d)
    return payload


def _sighting(d: dict) -> Sighting:
    d = dict(d)
    d["position"] = tuple(d.get("position", (0.0, 0.0, 0.0)))
    return Sighting(**d)


def record_from_payload(p: dict[str, Any], vector: Optional[Any] = None, score: float = 0.0) -> MemoryRecord:
    if "d" in p:
        d = _loads(p["d"])
        sightings = d.get("sightings", [])
    else:  # schema 1
        d = dict(p, cam=p.get("camera"))
        sightings = json.loads(p.get("sightings") or "[]")
    cam = d.get("cam") or [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0]
    return MemoryRecord(
        id=d["id"],
        stamp=float(p["stamp"]),
        robot_pose=Pose2D(float(p["x"]), float(p["y"]), float(d.get("yaw", 0.0))),
        camera_pose=Pose3D(tuple(cam[:3]), tuple(cam[3:7])),
        caption=d.get("caption", ""),
        room=p.get("room", ""),
        labels=list(p.get("labels", [])),
        sightings=[_sighting(s) for s in sightings],
        raw_ref=d.get("raw_ref", ""),
        embedding=None if vector is None else np.asarray(vector, dtype=np.float32),
        score=float(score),
        last_stamp=d.get("last"),
        count=int(d.get("n", 1)),
        raw_ref_last=d.get("raw_last", ""),
    )
