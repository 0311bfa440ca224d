"""Furniture from a mapped home into the scene graph: ids, classes, footprint boxes, whether it has
doors, as a robot's map has them (never whether a door is locked). ``scenario`` is anything with
``fixtures`` shaped like mnemo_sim's (``id``, ``label``, ``pose``, ``size``, ``room``, ``kind``,
``footprint()``)."""
from __future__ import annotations

from typing import Any

from mnemo_common.types import PropertyValue


def declare_map_fixtures(graph: Any, scenario: Any, stamp: float = 0.0) -> None:
    """The mapped furniture in the scene graph (ids, classes, footprint boxes), as a robot's map has it."""
    for fx in scenario.fixtures:
        xs, ys = zip(*fx.footprint())
        graph.add_fixture(fx.id, fx.label, (fx.pose[0], fx.pose[1], fx.size[2] / 2),
                          (min(xs), min(ys), 0.0), (max(xs), max(ys), fx.size[2]), fx.room, stamp)
        # Whether furniture has doors is part of the map (never whether it is locked).
        graph.update(fx.id, properties={"kind": PropertyValue(fx.kind, 1.0, "map", stamp)}, source="map", stamp=stamp)
