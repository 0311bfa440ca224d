"""One perceived frame into the scene graph, and back out as the observation memory stores: its
sightings named, supported and placed as the graph resolved them (node ids, never a detector's
instance ids unless the detector gave them)."""
from __future__ import annotations

from dataclasses import replace
from typing import Any

from mnemo_common.types import Detection, Observation, Sighting


def integrate_frame(graph: Any, obs: Observation, detections: list[Detection]) -> Observation:
    """Integrate a frame's detections (``obs`` gives stamp, camera pose and room); returns ``obs``
    with one sighting per detection. Each detection's ``node_id`` is set to its node."""
    graph.integrate_detections(detections, obs.stamp, camera_pose=obs.camera_pose, room=obs.room)
    sightings = []
    for d in detections:
        node = graph.get(d.node_id) if d.node_id and d.node_id in graph else None
        supported = node is not None and d.kind != "fixture"
        sightings.append(Sighting(label=d.label, position=tuple(d.centroid), attributes=dict(d.attributes),
                                  kind=d.kind, object_id=d.instance_id or d.node_id,
                                  support=node.parent if supported else "",
                                  relation=node.relation if supported else "", score=float(d.score)))
    return replace(obs, sightings=sightings)
