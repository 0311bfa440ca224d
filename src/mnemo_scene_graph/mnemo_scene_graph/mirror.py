"""A replica of the live scene graph, for work that must not wait for ingest: reads and snapshots.

The node's live graph integrates frames and writes updates under one lock, held for a frame and
the log append (fsync) that makes its events durable: under load, hundreds of milliseconds. A
query that took that lock waited as long. Building the whole-graph message, its markers and
relations, or a snapshot takes time that grows with the graph (quadratic for the relations). A
mirror is a second SceneGraph fed with the live graph's events once they are in the log; it
applies them when read, under a lock of its own, so its readers never wait for a frame.

    mirror = GraphMirror(graph, store)     # before any listener is attached to graph
    mirror.add(events)                     # events appended to the log (store.flush() returned)
    mirror.catch_up()                      # apply them now (periodically: reads then apply few)
    with mirror.read() as replica: ...     # the replica, caught up with every event added
    mirror.snapshot()                      # snapshot.json from the replica

A replica holds only logged events: a reader never serves an event a crash could lose, a snapshot
written from it never includes one the log lacks (load() replays the log after the snapshot's
seq), and an event added before a write was acknowledged is seen by every read after it.
"""
from __future__ import annotations

import threading
from contextlib import contextmanager
from typing import Iterable, Iterator

from mnemo_common.files import write_json_atomic

from mnemo_scene_graph.graph import GraphEvent, SceneGraph
from mnemo_scene_graph.persistence import GraphStore


class GraphMirror:
    def __init__(self, graph: SceneGraph, store: GraphStore):
        self._replica = graph.copy()  # with the history the graph restored from the log
        self._store = store
        self._incoming: list[GraphEvent] = []
        self._incoming_lock = threading.Lock()
        self._lock = threading.Lock()  # the replica and the snapshot file
        self.events_since_snapshot = store.events_since_snapshot

    def add(self, events: Iterable[GraphEvent]) -> None:
        """Hand over events that are in the log (cheap: called under the live graph's lock)."""
        with self._incoming_lock:
            self._incoming.extend(events)

    def catch_up(self) -> int:
        """Apply the events added so far; returns how many."""
        with self._lock:
            return self._catch_up()

    def _catch_up(self) -> int:
        with self._incoming_lock:
            events, self._incoming = self._incoming, []
        applied = self._replica.replay(events)
        self.events_since_snapshot += applied
        return applied

    @contextmanager
    def read(self) -> Iterator[SceneGraph]:
        """The replica with every added event applied; hold it only for reading."""
        with self._lock:
            self._catch_up()
            yield self._replica

    def snapshot(self) -> None:
        """Write snapshot.json from the replica, caught up."""
        with self._lock:
            self._catch_up()
            write_json_atomic(self._store.snapshot_path, self._replica.to_dict())
            self.events_since_snapshot = 0
