"""near_pairs and relations(): the grid finds exactly the pairs that comparing every pair finds."""
import math
import random

import numpy as np
import pytest

from mnemo_scene_graph.geometry import near_pairs
from mnemo_scene_graph.graph import KIND_FIXTURE, STATE_STALE, GraphEvent, GraphNode, SceneGraph


def every_pair(points, radius):
    """The definition (the code before the grid): all pairs, planar squared distance <= radius²."""
    if radius <= 0 or len(points) < 2:
        return []
    xy = np.array(points, dtype=float)
    d2 = ((xy[:, None, :] - xy[None, :, :]) ** 2).sum(-1)
    return [(int(i), int(j)) for i, j in zip(*np.nonzero(np.triu(d2 <= radius * radius, k=1)))]


@pytest.mark.parametrize("radius", [0.5, 0.3, 0.1, 1.0, 1e-3, 7.0])
def test_near_pairs_equal_every_pair_compared(radius):
    rng = random.Random(int(radius * 1000))
    points = [(rng.uniform(-5.0, 20.0), rng.uniform(-3.0, 10.0)) for _ in range(600)]
    points += [points[5], points[5]]  # the same place twice
    # exactly radius apart, along each axis and diagonally, across cell borders
    for k in range(40):
        x, y = rng.choice((0.0, radius, -radius, 3 * radius * 1.01)) + k * radius / 7, rng.uniform(-2.0, 2.0)
        points += [(x, y), (x + radius, y), (x, y - radius),
                   (x + radius / math.sqrt(2.0), y + radius / math.sqrt(2.0))]
    points += [(k * radius, 0.0) for k in range(-20, 20)]  # a row of neighbours radius apart
    rng.shuffle(points)
    assert near_pairs(points, radius) == every_pair(points, radius)


def test_near_pairs_of_nothing():
    assert near_pairs([], 0.5) == [] and near_pairs([(0.0, 0.0)], 0.5) == []
    assert near_pairs([(0.0, 0.0), (0.0, 0.0)], 0.0) == []


def node(node_id, x, y, room, parent="", state="current", kind="object"):
    return GraphNode(id=node_id, label=node_id.rsplit("_", 1)[0], kind=kind, position=(x, y, 0.8), room=room,
                     parent=parent, relation="on" if parent else "", state=state)


def test_relations_near_only_current_nodes_of_one_room_not_parent_and_child():
    g = SceneGraph()
    rng = random.Random(3)
    nodes = [node("table_1", 1.0, 1.0, "kitchen", kind=KIND_FIXTURE), node("cup_1", 1.1, 1.0, "kitchen", "table_1"),
             node("cup_2", 1.3, 1.0, "kitchen", "table_1"), node("cup_3", 1.3, 1.1, "hall"),
             node("cup_4", 1.2, 1.0, "kitchen", state=STATE_STALE)]
    nodes += [node(f"thing_{i}", rng.uniform(0, 8), rng.uniform(0, 4), rng.choice(("kitchen", "hall")))
              for i in range(300)]
    for seq, n in enumerate(nodes, start=1):
        g.replay([GraphEvent(seq, 1.0, n.id, "created", new=n.to_dict(trails=False))])
    relations = g.relations()
    current = [n for n in g.nodes() if n.state == "current"]
    near = [(current[i].id, "near", current[j].id)
            for i, j in every_pair([n.position[:2] for n in current], g.config.near_radius)
            if current[i].room == current[j].room and current[i].parent != current[j].id
            and current[j].parent != current[i].id]
    assert [r for r in relations if r[1] == "near"] == near
    assert ("cup_1", "near", "cup_2") in relations and ("cup_1", "near", "table_1") not in relations
    assert not any("cup_3" in r and "near" in r and "cup_2" in r for r in relations)  # another room
    assert not any(r[1] == "near" and "cup_4" in r for r in relations)  # stale
