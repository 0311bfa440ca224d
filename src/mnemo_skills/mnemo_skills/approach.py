"""Where the base should stand to work at a fixture: in front of one of its sides, facing it."""
from __future__ import annotations

import math
from typing import Iterable, Optional

from mnemo_common.types import Pose2D

from mnemo_skills.ports import GraphNode


def approach_candidates(node: GraphNode, standoff: float) -> list[Pose2D]:
    """One pose per side of the node's box (axis-aligned in the map), `standoff` metres out from
    the face, facing the box centre."""
    cx, cy = node.position[0], node.position[1]
    hx = max(0.0, (node.box_max[0] - node.box_min[0]) / 2.0)
    hy = max(0.0, (node.box_max[1] - node.box_min[1]) / 2.0)
    out = []
    for dx, dy in ((1.0, 0.0), (-1.0, 0.0), (0.0, 1.0), (0.0, -1.0)):
        x = cx + dx * (hx + standoff)
        y = cy + dy * (hy + standoff)
        out.append(Pose2D(x, y, math.atan2(cy - y, cx - x)))
    return out


def _inside(p: Pose2D, box: GraphNode, clearance: float) -> bool:
    return (box.box_min[0] - clearance <= p.x <= box.box_max[0] + clearance
            and box.box_min[1] - clearance <= p.y <= box.box_max[1] + clearance)


def approach_pose(node: GraphNode, standoff: float, robot: Optional[Pose2D] = None,
                  obstacles: Iterable[GraphNode] = (), clearance: float = 0.25) -> Pose2D:
    """The free approach pose nearest the robot (or the first free one when the robot's pose is
    unknown). A candidate is free when it is not inside another fixture's box grown by `clearance`.
    Falls back to the nearest candidate when none is free: nav2 then reports what blocks it."""
    if not (math.isfinite(standoff) and standoff >= 0.0):
        raise ValueError(f"standoff must be a finite non-negative distance, got {standoff}")
    candidates = approach_candidates(node, standoff)
    others = [o for o in obstacles if o.id != node.id]
    free = [c for c in candidates if not any(_inside(c, o, clearance) for o in others)] or candidates
    if robot is None:
        return free[0]
    return min(free, key=lambda c: robot.distance_to(c.x, c.y))


def look_target(node: GraphNode, camera_height: float) -> tuple[float, float, float]:
    """Where the camera should look at a fixture: the middle of its top when that is below the
    camera (what stands on a table, counter or open drawer), else the middle of its height (a
    shelf, a fridge)."""
    x = (node.box_min[0] + node.box_max[0]) / 2.0
    y = (node.box_min[1] + node.box_max[1]) / 2.0
    top = node.box_max[2]
    z = top if top < camera_height - 0.1 else (node.box_min[2] + top) / 2.0
    return x, y, z


def head_angles(robot: Pose2D, camera_height: float, target: tuple[float, float, float],
                tilt_down: float = 1.0, pan_limits: tuple[float, float] = (-math.pi, math.pi),
                tilt_limits: tuple[float, float] = (-math.pi / 2, math.pi / 2)) -> tuple[float, float]:
    """(pan, tilt) joint positions pointing a head camera above the base centre at ``target``,
    clamped to the joints' limits. ``tilt_down``: the sign of a tilt that looks down."""
    dx, dy = target[0] - robot.x, target[1] - robot.y
    pan = math.atan2(dy, dx) - robot.yaw
    pan = math.atan2(math.sin(pan), math.cos(pan))
    down = math.atan2(camera_height - target[2], max(0.2, math.hypot(dx, dy)))
    return (min(pan_limits[1], max(pan_limits[0], pan)),
            min(tilt_limits[1], max(tilt_limits[0], tilt_down * down)))
