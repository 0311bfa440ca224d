"""mnemo_interfaces messages <-> mnemo_memory core types."""
from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Iterable

from mnemo_common.ros import (
    memory_record_span_fields, msg_builder, pose2d_to_msg, pose3d_to_msg, sighting_to_msg,
    time_from_msg, time_to_msg,
)
from mnemo_common.types import MemoryRecord
from mnemo_interfaces.msg import MemoryRecord as MemoryRecordMsg

_record_msg = msg_builder(MemoryRecordMsg)


class RecordMsgCache:
    """The message parts of records already sent (stamp, poses, sightings: most of the conversion
    time), keyed by record id, so a record answered again only gets its score filled in.

    The parts are shared between responses and never mutated. Valid while this process is the
    store's only writer (the embedded store's lock guarantees that): the writer calls
    ``discard`` with every id it writes, since a write may replace a record."""

    def __init__(self, capacity: int = 20_000):
        self._parts: OrderedDict[str, tuple] = OrderedDict()
        self._capacity = capacity
        self._lock = threading.Lock()

    def to_msg(self, r: MemoryRecord) -> MemoryRecordMsg:
        with self._lock:
            parts = self._parts.get(r.id)
            if parts is not None:
                self._parts.move_to_end(r.id)
        if parts is None:
            parts = (time_to_msg(r.stamp), pose2d_to_msg(r.robot_pose), pose3d_to_msg(r.camera_pose),
                     [sighting_to_msg(s) for s in r.sightings])
            with self._lock:
                self._parts[r.id] = parts
                if len(self._parts) > self._capacity:
                    self._parts.popitem(last=False)
        stamp, robot_pose, camera_pose, sightings = parts
        return _record_msg(id=r.id, stamp=stamp, robot_pose=robot_pose, camera_pose=camera_pose, room=r.room,
                           caption=r.caption, labels=list(r.labels), sightings=sightings, raw_ref=r.raw_ref,
                           score=float(r.score), **memory_record_span_fields(r))

    def discard(self, ids: Iterable[str]) -> None:
        with self._lock:
            for i in ids:
                self._parts.pop(i, None)


def time_query_from_request(req) -> dict:
    """SearchMemoryByTime request -> MemoryService.search_time keyword arguments (minus filter)."""
    if req.use_range:
        return {"since": time_from_msg(req.since), "until": time_from_msg(req.until), "around": None}
    return {"since": None, "until": None, "around": time_from_msg(req.around)}
