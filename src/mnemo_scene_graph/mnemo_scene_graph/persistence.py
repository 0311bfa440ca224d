"""Crash-safe persistence of a SceneGraph: a JSON snapshot plus an append-only JSONL event log.

    store = GraphStore(data_dir)           # files under data_dir/scene_graph/
    graph = store.load(config)             # snapshot + replay of the logged events after it
    store.attach(graph)                    # buffer every new event
    store.flush()                          # append buffered events to the log, fsync
    store.snapshot(graph)                  # write snapshot.json atomically (tmp + fsync + os.replace)

The log is never rewritten: every event ever emitted stays in it (the typed history). The
snapshot records the seq it includes, so a restart applies only the events after it. A crash
can leave a partial last line in the log; it is ignored (its event was never acknowledged). A
snapshot that cannot be read, or an unreadable line before the last, is corruption: ``load``
raises CorruptFileError naming the file rather than start with a graph that forgot. An append
that fails (a full disk) is cut back off the log and its events are kept for the next flush.
"""
from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import Optional

from mnemo_common.files import CorruptFileError, write_json_atomic

from mnemo_scene_graph.graph import GraphConfig, GraphEvent, SceneGraph

log = logging.getLogger(__name__)

SNAPSHOT = "snapshot.json"
EVENTS = "events.jsonl"


def read_events(path: Path) -> list[GraphEvent]:
    """Events of a JSONL log; a truncated or corrupt last line is dropped (a crash mid-append),
    a corrupt line before it raises CorruptFileError."""
    if not path.exists():
        return []
    events: list[GraphEvent] = []
    with open(path, "rb") as f:
        lines = f.read().split(b"\n")
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            events.append(GraphEvent.from_dict(json.loads(raw.decode("utf-8"))))
        except (ValueError, KeyError, TypeError, UnicodeDecodeError) as exc:
            if any(later.strip() for later in lines[number:]):  # not the tail a crashed append left
                raise CorruptFileError(path, f"line {number}: {type(exc).__name__}: {exc}") from exc
            log.warning("%s:%d: dropping the partial last line of a crashed write", path, number)
    return events


class GraphStore:
    """Snapshot + event log of one scene graph under `data_dir/scene_graph/`."""

    def __init__(self, data_dir: str | os.PathLike):
        self.dir = Path(data_dir) / "scene_graph"
        self.dir.mkdir(parents=True, exist_ok=True)
        self.snapshot_path = self.dir / SNAPSHOT
        self.events_path = self.dir / EVENTS
        self._pending: list[GraphEvent] = []
        self.events_since_snapshot = 0

    def load(self, config: Optional[GraphConfig] = None) -> SceneGraph:
        """Restore the graph: snapshot (if any), then every logged event newer than it."""
        graph = SceneGraph(config)
        if self.snapshot_path.exists():
            try:
                with open(self.snapshot_path, encoding="utf-8") as f:
                    graph = SceneGraph.from_dict(json.load(f), config)
            except (ValueError, KeyError, TypeError, AttributeError) as exc:  # ValueError covers JSON and UTF-8
                raise CorruptFileError(self.snapshot_path, f"{type(exc).__name__}: {exc}") from exc
        events = sorted(read_events(self.events_path), key=lambda e: e.seq)
        self.events_since_snapshot = graph.replay(events)
        self._repair_log_tail()
        return graph

    def _repair_log_tail(self) -> None:
        """Cut a partial last line left by a crash, so the next append starts a fresh line."""
        if not self.events_path.exists():
            return
        with open(self.events_path, "rb+") as f:
            data = f.read()
            if data and not data.endswith(b"\n"):
                f.truncate(data.rfind(b"\n") + 1)
                f.flush()
                os.fsync(f.fileno())

    def attach(self, graph: SceneGraph) -> None:
        graph.add_listener(self._on_event)

    def _on_event(self, event: GraphEvent) -> None:
        self._pending.append(event)

    @property
    def pending(self) -> int:
        return len(self._pending)

    def flush(self) -> int:
        """Append the buffered events to the log and fsync; returns how many were written."""
        if not self._pending:
            return 0
        events = list(self._pending)
        payload = "".join(json.dumps(e.to_dict(), separators=(",", ":")) + "\n" for e in events)
        data = memoryview(payload.encode("utf-8"))
        fd = os.open(self.events_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            size = os.fstat(fd).st_size
            try:
                while data:
                    data = data[os.write(fd, data):]
                os.fsync(fd)
            except OSError:
                # a full disk: no partial line may stay in the log (the next append would follow it)
                os.ftruncate(fd, size)
                raise
        finally:
            os.close(fd)
        del self._pending[:len(events)]
        self.events_since_snapshot += len(events)
        return len(events)

    def snapshot(self, graph: SceneGraph) -> None:
        """Flush the log, then write the snapshot atomically."""
        self.flush()
        write_json_atomic(self.snapshot_path, graph.to_dict())
        self.events_since_snapshot = 0
