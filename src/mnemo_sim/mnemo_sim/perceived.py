"""What the stack's perception and scene graph have answered, as the honest simulator waits on it
(``perception: honest``). Plain Python; the node feeds it from its subscriptions and its skills and
patrols wait on it.

- ``on_detections(stamp_ns, detections)``: perception's DetectionArray of the frame stamped so;
- ``on_graph(nodes, stamp_ns)``: the latest scene graph (its object nodes name what a skill sees);
- ``wait_detections(stamp_ns, timeout)``: the detections of that frame once they are here, or None;
- ``wait_graph(after, stamp_ns, timeout)``: until a graph newer than ``after`` graphs and stamped no
  earlier than the frame has come (the frame's new objects then have nodes).

``FrameStamps`` stamps new frames: answers are matched to frames by stamp, so two views must never
share one (the view after a skill and the view the next skill takes once a door has moved are both
taken at the same simulated instant; the later answer to the first was taken for the second).
"""
from __future__ import annotations

import threading
from collections import deque
from typing import Optional

from mnemo_common.types import Detection

from .honest import GraphObject


class PerceivedFrames:
    def __init__(self, keep: int = 50):
        self.keep = keep  # answers of frames nobody waits for any more are forgotten beyond this many
        self.nodes: dict[str, GraphObject] = {}
        self._graphs = (0, -1)  # (graphs received, newest stamp in ns)
        self._answers: dict[int, tuple[list[Detection], int]] = {}  # stamp -> (detections, graphs by then)
        self._changed = threading.Condition()

    @property
    def graphs(self) -> int:
        return self._graphs[0]

    def on_graph(self, nodes: dict[str, GraphObject], stamp_ns: int) -> None:
        with self._changed:
            self.nodes = nodes
            self._graphs = (self._graphs[0] + 1, stamp_ns)
            self._changed.notify_all()

    def on_detections(self, stamp_ns: int, detections: list[Detection]) -> None:
        with self._changed:
            self._answers[stamp_ns] = (detections, self._graphs[0])
            while len(self._answers) > self.keep:
                del self._answers[next(iter(self._answers))]
            self._changed.notify_all()

    def forget(self, stamp_ns: int) -> None:
        """Drop an answer of this stamp (an earlier frame of the same stamp may have shown another state)."""
        with self._changed:
            self._answers.pop(stamp_ns, None)

    def wait_detections(self, stamp_ns: int, timeout: float) -> Optional[tuple[list[Detection], int]]:
        """(detections, graphs received when they came) of the frame, taken out; None after ``timeout`` s."""
        with self._changed:
            if self._changed.wait_for(lambda: stamp_ns in self._answers, max(0.0, timeout)):
                return self._answers.pop(stamp_ns)
            return None

    def wait_graph(self, after: int, stamp_ns: int, timeout: float) -> bool:
        with self._changed:
            return self._changed.wait_for(lambda: self._graphs[0] > after and self._graphs[1] >= stamp_ns,
                                          max(0.0, timeout))


class FrameStamps:
    """The stamp of each new frame: the given time, moved on by ``step`` s while one of the ``recent``
    last frames has it (a frame sent again keeps its stamp: it is not a new frame)."""

    def __init__(self, recent: int = 100, step: float = 1e-3):
        self.step = step
        self._recent: deque[int] = deque(maxlen=recent)

    def next(self, t: float) -> float:
        while round(t * 1e9) in self._recent:
            t += self.step
        self._recent.append(round(t * 1e9))
        return t
