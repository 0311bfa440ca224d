"""One perceived frame into the scene graph, and back out as the observation memory stores: its
sightings named, supported and placed as the graph resolved them (node ids, never a detector's
instance ids unless the detector gave them)."""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Optional

from mnemo_common.types import Detection, Observation, Sighting, with_node_color
from mnemo_scene_graph.coverage import CameraView


def integrate_frame(graph: Any, obs: Observation, detections: list[Detection],
                    view: Optional[CameraView] = None) -> Observation:
    """Integrate a frame's detections (``obs`` gives stamp, camera pose and room; ``view`` the
    frame's depth, which judges the nodes it covered and did not see); returns ``obs`` with one
    sighting per detection. Each detection's ``node_id`` is set to its node."""
    graph.integrate_detections(detections, obs.stamp, camera_pose=obs.camera_pose, room=obs.room, view=view)
    return named_observation(graph, obs, detections)


def named_observation(graph: Any, obs: Observation, detections: list[Detection]) -> Observation:
    """``obs`` with one sighting per detection of a frame the graph has integrated: the node's id
    (a detector's instance id only when the detector gave one), its support and relation. Detections
    the graph dropped (no node: a non-finite position, no label) are no sightings. A colour measured
    from pixels is recorded as the node's colour (the heaviest of its sightings' votes), so memory
    does not keep one frame's odd light as what the thing looked like."""
    sightings = []
    for d in detections:
        if not d.node_id:
            continue
        node = graph.get(d.node_id) if d.node_id and d.node_id in graph else None
        supported = node is not None and d.kind != "fixture"
        attributes = with_node_color(d, node.prop("color") if node is not None and node.color_votes else "").attributes
        sightings.append(Sighting(label=d.label, position=tuple(d.centroid), attributes=dict(attributes),
                                  kind=d.kind, object_id=d.instance_id or d.node_id,
                                  support=node.parent if supported else "",
                                  relation=node.relation if supported else "", score=float(d.score)))
    return replace(obs, sightings=sightings)
