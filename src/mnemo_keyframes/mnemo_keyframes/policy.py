"""When to save a keyframe, and what to link it to.

- Scene-graph events: ``created`` saves a ``new_node`` keyframe, ``location``/``property`` an
  ``updated_node`` keyframe, cut from the ring-buffer frame nearest the event and linked to every
  node in view (the nodes of ``observed`` events and the sightings of the same frame). These perception keyframes go through the blank/blurry/near-duplicate filters; one
  frame that creates several nodes becomes one keyframe linked to all of them. A new node whose
  frame was filtered out stays pending and gets the next acceptable frame it is observed in.
- Interaction events: every frame of the action window (before, during..., after) is kept, linked
  to the action's target; the analyzer later marks the most informative one (``interaction_key``).

Keyframe ids of an interaction window derive from the event id, so the analyzer can name them
without asking the keyframe node (``interaction_keyframe_ids``).
"""
from __future__ import annotations

import threading
import uuid
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from mnemo_common.types import InteractionEvent, KeyframeMeta, MnemoError, Observation

from mnemo_keyframes.filters import KeyframeFilter
from mnemo_keyframes.ring import Frame, FrameRing
from mnemo_keyframes.store import ID_PATTERN, KeyframeStore, safe_id

GRAPH_EVENT_TRIGGERS = {"created": "new_node", "location": "updated_node", "property": "updated_node"}
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg")


def trigger_for_graph_event(kind: str) -> Optional[str]:
    return GRAPH_EVENT_TRIGGERS.get(kind)


def is_keyframe_ref(ref: str) -> bool:
    """A frame reference that already names a stored keyframe (not an image path)."""
    return bool(ID_PATTERN.match(ref)) and ".." not in ref and not ref.lower().endswith(IMAGE_SUFFIXES)


def window_roles(count: int) -> list[str]:
    """Trigger of each frame of an interaction window: before, during..., after."""
    if count <= 0:
        return []
    if count == 1:
        return ["interaction_before"]
    return ["interaction_before"] + ["interaction_during"] * (count - 2) + ["interaction_after"]


def interaction_keyframe_ids(event_id: str, frame_refs: list[str]) -> list[str]:
    """The keyframe id each frame reference of an interaction window is stored under."""
    base = safe_id(event_id)
    ids = []
    for i, (ref, role) in enumerate(zip(frame_refs, window_roles(len(frame_refs)))):
        if is_keyframe_ref(ref):
            ids.append(ref)
        else:
            ids.append(f"{base}-{role.removeprefix('interaction_')}" + (f"-{i}" if role == "interaction_during" else ""))
    return ids


@dataclass(frozen=True)
class RecorderConfig:
    frame_tolerance: float = 0.5  # seconds between an event or observation and the frame it belongs to
    camera: str = "head"
    max_remembered_frames: int = 256  # ring frames already saved (several events -> one keyframe)


class KeyframeRecorder:
    """Turns sensor frames, observations, graph events and interactions into stored keyframes."""

    def __init__(self, store: KeyframeStore, ring: FrameRing, frame_filter: KeyframeFilter,
                 config: RecorderConfig = RecorderConfig()):
        self.store, self.ring, self.filter, self.config = store, ring, frame_filter, config
        self._saved: OrderedDict[tuple, str] = OrderedDict()  # (camera, stamp) of a frame -> keyframe id
        self._pending_nodes: dict[str, str] = {}  # node id -> trigger waiting for an acceptable frame
        self._early_events: list[tuple[float, str, str]] = []  # (stamp, trigger, node) that beat their frame
        self._lock = threading.RLock()
        self.rejected: dict[str, int] = {"blank": 0, "blurry": 0, "duplicate": 0}

    # -- sensor side -----------------------------------------------------------------
    def on_frame(self, stamp: float, rgb, camera: str = "head") -> Optional[KeyframeMeta]:
        """A camera frame into the ring; saved at once for events that arrived before it."""
        frame = self.ring.push(stamp, rgb, camera)
        with self._lock:
            due = [e for e in self._early_events if abs(e[0] - stamp) <= self.config.frame_tolerance]
            if not due:
                return None
            self._early_events = [e for e in self._early_events if e not in due]
            return self._save_perception(frame, due[0][1], [node for _, _, node in due])

    def on_observation(self, obs: Observation) -> None:
        """Attach the labels seen (and the pose) to their frame. Sighting ids are not linked: in
        oracle mode they are simulator instance ids, not scene-graph node ids."""
        self.ring.annotate(obs.stamp, self.config.frame_tolerance, [s.label for s in obs.sightings], [],
                           obs.robot_pose)

    def on_graph_event(self, kind: str, node_id: str, stamp: float) -> Optional[KeyframeMeta]:
        """Save (or extend) the perception keyframe for one scene-graph event; None when nothing new
        was stored."""
        if not node_id:
            return None
        if kind == "observed":  # a node in view: link it to this frame's keyframe, now or when saved
            frame = self.ring.annotate(stamp, self.config.frame_tolerance, [], [node_id])
            if frame is None:
                return None
            with self._lock:
                saved_id = self._saved.get((frame.camera, frame.stamp))
                if saved_id is not None:
                    self.store.link(saved_id, [node_id])
                    self._pending_nodes.pop(node_id, None)
                    return None
                if node_id in self._pending_nodes:  # its new-node frame was filtered out: try this one
                    return self._save_perception(frame, self._pending_nodes[node_id], [node_id])
            return None
        trigger = trigger_for_graph_event(kind)
        if trigger is None:
            return None
        frame = self.ring.nearest(stamp, self.config.frame_tolerance)
        with self._lock:
            if frame is None:
                latest = self.ring.latest()
                if latest is None or latest.stamp < stamp:  # its frame may still be on the way
                    self._early_events = (self._early_events + [(stamp, trigger, node_id)])[-64:]
                    return None
                frame = latest
            return self._save_perception(frame, trigger, [node_id])

    def _save_perception(self, frame: Frame, trigger: str, event_nodes: list[str]) -> Optional[KeyframeMeta]:
        saved_id = self._saved.get((frame.camera, frame.stamp))
        if saved_id is not None:  # another event of the same frame: link, do not save twice
            self.store.link(saved_id, event_nodes, frame.labels)
            for n in event_nodes:
                self._pending_nodes.pop(n, None)
            return None
        node_ids = list(dict.fromkeys(frame.node_ids + event_nodes))
        keep, reason = self.filter.admit(frame.rgb, node_ids)
        if not keep:
            self.rejected[reason] += 1
            if trigger == "new_node":
                for n in event_nodes:
                    self._pending_nodes[n] = trigger
            return None
        meta = self.store.add(KeyframeMeta(id=f"kf-{uuid.uuid4().hex[:16]}", stamp=frame.stamp, trigger=trigger,
                                           camera=frame.camera, node_ids=node_ids, labels=list(frame.labels),
                                           robot_pose=frame.pose), frame.rgb)
        self._saved[(frame.camera, frame.stamp)] = meta.id
        while len(self._saved) > self.config.max_remembered_frames:
            self._saved.popitem(last=False)
        for n in node_ids:
            self._pending_nodes.pop(n, None)
        return meta

    # -- interactions ------------------------------------------------------------------
    def on_interaction(self, event: InteractionEvent) -> tuple[list[KeyframeMeta], list[str]]:
        """Keep every frame of the action window, linked to the target. Returns (saved, problems)."""
        refs = list(event.frame_refs)
        ids = interaction_keyframe_ids(event.id, refs)
        roles = window_roles(len(refs))
        nodes = [n for n in (event.target, event.picked_id) if n]
        saved: list[KeyframeMeta] = []
        problems: list[str] = []
        parent = ""
        for i, (ref, kf_id, role) in enumerate(zip(refs, ids, roles)):
            stamp = event.start + (event.end - event.start) * (i / max(1, len(refs) - 1))
            try:
                if is_keyframe_ref(ref):  # the skill stored it already: just link it
                    self.store.link(kf_id, nodes)
                elif self.store.get(kf_id) is None:
                    meta = KeyframeMeta(id=kf_id, stamp=stamp, trigger=role, camera=self.config.camera,
                                        action=event.action, parent_id=parent, node_ids=nodes,
                                        robot_pose=event.robot_pose, labels=list(event.seen_contents))
                    saved.append(self.store.add_from_file(meta, Path(ref)))
            except MnemoError as exc:
                problems.append(f"{ref}: {exc.message}")
                continue
            parent = parent or kf_id
        return saved, problems
