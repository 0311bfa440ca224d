"""Memory queries as both toolboxes make them: the filter a tool's arguments ask for, bounded by the
task's horizon (its start clock: no record stamped later is answered)."""
from __future__ import annotations

from typing import Optional

from mnemo_common.types import MemoryFilter, MemoryRecord, MnemoError, Status


def memory_filter(args: dict) -> MemoryFilter:
    f = MemoryFilter(since=args.get("since"), until=args.get("until"), room=args.get("room", ""),
                     labels=list(args.get("labels", [])))
    if "x" in args and "y" in args and args.get("radius", 0.0) > 0:
        f.near, f.radius = (float(args["x"]), float(args["y"])), float(args["radius"])
    return f


def within_horizon(f: MemoryFilter, horizon: Optional[float]) -> MemoryFilter:
    """The filter, further bounded to records stamped no later than ``horizon`` (when set)."""
    if horizon is not None:
        f.until = horizon if f.until is None else min(f.until, horizon)
    return f


def check_horizon(record: MemoryRecord, horizon: Optional[float]) -> MemoryRecord:
    if horizon is not None and record.stamp > horizon:
        raise MnemoError(Status.NOT_FOUND, f"no memory record with id {record.id!r} before the task began")
    return record
