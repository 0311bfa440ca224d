"""Messages <-> simulator core types: segmentation, clock and the scene graph's nodes as the honest
skill server reads them (images, camera info and poses: mnemo_common.ros).
Every ``*_to_msg`` has a ``*_from_msg`` partner (round-trip tested) where the other side needs one.
"""
from __future__ import annotations

import numpy as np
from rosgraph_msgs.msg import Clock

from mnemo_common.ros import image_from_msg, image_to_msg, time_to_msg
from mnemo_interfaces.msg import InstanceSegmentation, SceneGraph

from mnemo_sim.honest import GraphObject


def segmentation_to_msg(seg: np.ndarray, seg_ids: dict[int, str], labels: dict[int, str], kinds: dict[int, str],
                        stamp: float, frame_id: str) -> InstanceSegmentation:
    """Instance-value image + value tables -> InstanceSegmentation (only values present in the image)."""
    msg = InstanceSegmentation()
    msg.header.stamp = time_to_msg(stamp)
    msg.header.frame_id = frame_id
    msg.mask = image_to_msg(seg.astype(np.int32), "32SC1", stamp, frame_id)
    present = [int(v) for v in np.unique(seg) if v >= 0]
    msg.values = present
    msg.instance_ids = [seg_ids[v] for v in present]
    msg.labels = [labels.get(v, "") for v in present]
    msg.kinds = [kinds.get(v, "object") for v in present]
    return msg


def segmentation_from_msg(msg: InstanceSegmentation) -> tuple[np.ndarray, dict[int, str], dict[int, str], dict[int, str]]:
    """InstanceSegmentation -> (H x W int32 values, value -> instance id, value -> label, value -> kind)."""
    values = [int(v) for v in msg.values]
    if not (len(values) == len(msg.instance_ids) == len(msg.labels) == len(msg.kinds)):
        raise ValueError("segmentation values, instance_ids, labels and kinds must have equal lengths")
    return (image_from_msg(msg.mask), dict(zip(values, msg.instance_ids)), dict(zip(values, msg.labels)),
            dict(zip(values, msg.kinds)))


# -- clock ---------------------------------------------------------------------------
def clock_to_msg(t: float) -> Clock:
    return Clock(clock=time_to_msg(t))


# -- scene graph (honest skills) ---------------------------------------------------------
def graph_objects_from_msg(msg: SceneGraph) -> dict[str, GraphObject]:
    """Node id -> (id, label, kind, position, colour property) of every node of a SceneGraph message."""
    return {n.id: GraphObject(n.id, n.label, n.kind, (float(n.position.x), float(n.position.y), float(n.position.z)),
                              next((p.value for p in n.properties if p.name == "color"), ""))
            for n in msg.nodes}
