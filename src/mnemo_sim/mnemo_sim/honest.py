"""The simulator as a robot without oracle help (``perception: honest``): what it publishes and how
its skill server knows what it sees. Plain Python; the node wires it to ROS.

- ``anonymous_segmentation``: the segmentation image as a class-level segmenter gives it: one value
  per instance, numbered per frame in the order the instances first appear in the image, with labels
  and kinds; objects carry no instance id (fixture ids stay: they are the map's).
- ``GraphPerception``: the skill server's ``RobotPerception`` (``mnemo_sim.skills``) over the stack's
  own perception and scene graph: ``sense`` takes the detections perception made of the current view
  and names each object by the scene-graph node of its label nearest to it; ``locate`` resolves a
  node id to its label and position.
- a named detection carries its node's colour (``mnemo_common.types.with_node_color``), which the scene
  graph votes over every sighting, not the colour one frame measured.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Callable, Iterable, Optional

import numpy as np

from mnemo_common.types import Detection, with_node_color

from .skills import words


def anonymous_segmentation(seg: np.ndarray, seg_ids: dict[int, str], labels: dict[int, str],
                           kinds: dict[int, str]) -> tuple[np.ndarray, dict[int, str], dict[int, str], dict[int, str]]:
    """(mask, value -> id, value -> label, value -> kind) with per-frame values 0..n-1 and no object ids."""
    flat = seg.ravel()
    present, first = np.unique(flat[flat >= 0], return_index=True)
    # pixel index of each present value's first appearance (np.unique's index is into the filtered array)
    first_pixel = np.flatnonzero(flat >= 0)[first]
    order: dict[str, int] = {}  # instance id -> new value, by first appearance
    remap = np.full(int(seg.max(initial=-1)) + 2, -1, dtype=np.int32)
    out_ids: dict[int, str] = {}
    out_labels: dict[int, str] = {}
    out_kinds: dict[int, str] = {}
    for value in present[np.argsort(first_pixel, kind="stable")]:
        value = int(value)
        instance = seg_ids.get(value, f"value {value}")
        new = order.setdefault(instance, len(order))
        remap[value] = new
        kind = kinds.get(value, "object")
        out_ids[new] = instance if kind == "fixture" else ""
        out_labels[new] = labels.get(value, "")
        out_kinds[new] = kind
    mask = np.where(seg >= 0, remap[np.clip(seg, -1, None)], -1).astype(np.int32)
    return mask, out_ids, out_labels, out_kinds


@dataclass(frozen=True)
class GraphObject:
    """What the skill server reads of a scene-graph node."""

    id: str
    label: str
    kind: str
    position: tuple[float, float, float]
    color: str = ""  # the node's colour property ("" when it has none)


def same_label(a: str, b: str) -> bool:
    return words(a) == words(b)


def name_by_graph(detections: Iterable[Detection], nodes: Iterable[GraphObject], radius: float) -> list[Detection]:
    """Object detections named by the nearest scene-graph object node of their label within ``radius``
    m (each node names one detection at most); others keep the node id perception gave (fixtures:
    the map's), or none. A detection named so carries its node's colour (``with_node_color``)."""
    detections = list(detections)
    by_id = {n.id: n for n in nodes}
    objects = [n for n in by_id.values() if n.kind == "object"]
    pairs = sorted((math.dist(d.centroid, n.position), i, n.id) for i, d in enumerate(detections)
                   if d.kind == "object" for n in objects if same_label(d.label, n.label))
    named: dict[int, str] = {}
    used: set[str] = set()
    for dist, i, node_id in pairs:
        if dist > radius:
            break
        if i not in named and node_id not in used:
            named[i] = node_id
            used.add(node_id)
    out = []
    for i, d in enumerate(detections):
        node_id = named.get(i, d.node_id if d.kind == "fixture" else "")
        node = by_id.get(node_id)
        out.append(with_node_color(replace(d, instance_id="", node_id=node_id), node.color if node else ""))
    return out


class GraphPerception:
    """``RobotPerception`` over the stack: ``perceive()`` returns perception's detections of the
    current camera view (no instance ids); ``nodes()`` the scene graph's latest nodes by id."""

    def __init__(self, perceive: Callable[[], list[Detection]], nodes: Callable[[], dict[str, GraphObject]],
                 radius: float = 0.5):
        self.perceive, self.nodes, self.radius = perceive, nodes, radius

    def sense(self) -> list[Detection]:
        return name_by_graph(self.perceive(), self.nodes().values(), self.radius)

    def locate(self, target: str) -> Optional[tuple[str, tuple[float, float, float]]]:
        node = self.nodes().get(target)
        return (node.label, node.position) if node is not None and node.kind == "object" else None
