"""Object-level memory: every object sighting of a record is also an entry of its own.

A view record's caption lists everything in view, so its embedding is an average over a dozen
objects and a query about one of them ("where are my keys", "a red mug") may rank a view of a
book or a sofa first. Each object sighting therefore gets its own text ("a small grey hoodie on
the chair in the kids room, brand Playtron"), a dense vector of that text and a sparse vector of
its words. The engine fuses the two (reciprocal rank fusion): the dense one matches meaning, the
sparse one (weighted by inverse document frequency) matches exact words such as brand names,
titles and printed text, which a small embedding model blurs.

Payload of a sighting entry (no engine imports here): the record's indexed fields, so the same
filters apply (``stamp``, ``last`` of a compacted record, ``x``/``y`` of the robot, ``room``,
``rh`` in schema 3, ``labels`` = [the sighting's label]), plus ``object`` (instance id), ``support``, ``record`` (the
record's point id) and ``i`` (the sighting's index in the record).
"""
from __future__ import annotations

import re
import uuid
import zlib
from typing import Any

from mnemo_common.types import MemoryRecord, Sighting

from mnemo_memory.caption import ADJECTIVE_KEYS, describe_sighting
from mnemo_memory.records import ROOM_HOUR, hour_of, room_hour

# Indexed payload fields of sighting entries and their kind (like records.INDEXED_FIELDS).
SIGHTING_INDEXED_FIELDS: dict[str, str] = {"stamp": "float", "x": "float", "y": "float", "room": "keyword",
                                           "labels": "keyword", "object": "keyword", "last": "float",
                                           ROOM_HOUR: "keyword"}
DENSE, SPARSE = "text", "words"

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_ID_NAMESPACE = uuid.UUID("0f3c4f0e-8a4e-4f4b-9d57-6f626a656374")


def object_sightings(record: MemoryRecord) -> list[tuple[int, Sighting]]:
    """(index, sighting) of the record's objects (fixtures stay with the view)."""
    return [(i, s) for i, s in enumerate(record.sightings) if s.kind == "object"]


def sighting_text(s: Sighting, room: str) -> str:
    """The sighting as a phrase: adjectives, label, where it rests, the room, every other attribute."""
    text = describe_sighting(s)
    if room:
        text += f" in the {room.replace('_', ' ')}"
    extra = [f"{key} {value}" for key, value in s.attributes.items() if key not in ADJECTIVE_KEYS and value]
    return f"{text}, {', '.join(extra)}" if extra else text


def words(text: str) -> set[str]:
    """The lower-cased words of a text."""
    return set(_WORD.findall(text.lower()))


def sparse_words(text: str) -> tuple[list[int], list[float]]:
    """Bag of lower-cased words as a sparse vector (indices: a stable hash of each word)."""
    indices = sorted({zlib.crc32(w.encode()) & 0x7FFFFFFF for w in words(text)})
    return indices, [1.0] * len(indices)


def sighting_point_id(record_pid: str, index: int) -> str:
    return str(uuid.uuid5(_ID_NAMESPACE, f"{record_pid}/{index}"))


def sighting_payload(record: MemoryRecord, record_pid: str, index: int, s: Sighting,
                     room_hours: bool = False) -> dict[str, Any]:
    payload: dict[str, Any] = {"stamp": float(record.stamp), "x": float(record.robot_pose.x),
                               "y": float(record.robot_pose.y), "labels": [s.label],
                               "record": record_pid, "i": index}
    if record.last_stamp is not None:
        payload["last"] = float(record.last_stamp)
    if record.room:
        payload["room"] = record.room
        if room_hours:
            payload[ROOM_HOUR] = room_hour(record.room, hour_of(record.stamp))
    if s.object_id:
        payload["object"] = s.object_id
    if s.support:
        payload["support"] = s.support
    return payload
