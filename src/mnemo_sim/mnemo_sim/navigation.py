"""Geometry of moving around a home: approach poses in front of fixtures and paths through doors.

Rooms are axis-aligned rectangles, so a straight line between two points of one room never crosses a
wall; a path between rooms goes from door to door (passing half a metre either side of each door so it
crosses the wall square-on). Public API:

- ``approach_pose(scenario, fixture_id, standoff=0.6) -> Pose2D``: where the robot stands to act on a
  fixture: in front of its front face (the fixture's own +x), facing it, kept inside the room.
- ``plan_path(scenario, start, goal) -> list[(x, y)]``: waypoints from start to goal (both in rooms),
  through doors; raises ``ValueError`` when the goal is outside every room or unreachable.
- ``path_length(points) -> float``.
- ``home_pose(scenario) -> Pose2D``: where the robot waits between tasks (its dock): the centre of the
  first room of the first patrol route (or of the first room), facing +x.
"""
from __future__ import annotations

import heapq
import math
from typing import Optional

from mnemo_common.types import Pose2D

from .scenario import Door, Scenario

DOOR_CLEARANCE = 0.5  # metres on each side of a door the path passes through, square to the wall
WALL_MARGIN = 0.35  # the robot's centre stays this far from walls


def _clamp_into_room(scenario: Scenario, room_id: str, x: float, y: float, margin: float = WALL_MARGIN) -> tuple[float, float]:
    x0, y0, x1, y1 = scenario.room_by_id[room_id].rect
    return (min(max(x, x0 + margin), x1 - margin), min(max(y, y0 + margin), y1 - margin))


def approach_pose(scenario: Scenario, fixture_id: str, standoff: float = 0.6) -> Pose2D:
    """The pose in front of a fixture, ``standoff`` metres from its front face, facing the fixture."""
    fixture = scenario.fixture_by_id[fixture_id]
    fx, fy, yaw = fixture.pose
    px, py = fixture.to_map(fixture.size[0] / 2 + standoff, 0.0)
    px, py = _clamp_into_room(scenario, fixture.room, px, py)
    return Pose2D(px, py, math.atan2(fy - py, fx - px) if math.hypot(fy - py, fx - px) > 1e-6 else yaw + math.pi)


def home_pose(scenario: Scenario) -> Pose2D:
    room = scenario.patrol[0].route[0] if scenario.patrol else scenario.rooms[0].id
    cx, cy = scenario.room_by_id[room].center
    return Pose2D(cx, cy, 0.0)


def _door_sides(scenario: Scenario, door: Door) -> dict[str, tuple[float, float]]:
    """For each of the door's two rooms, the point DOOR_CLEARANCE inside that room, in front of the door."""
    out = {}
    for rid in door.between:
        cx, cy = scenario.room_by_id[rid].center
        x0, y0, x1, y1 = scenario.room_by_id[rid].rect
        dx, dy = door.at
        if abs(dx - x0) < 1e-3 or abs(dx - x1) < 1e-3:  # door in a vertical wall
            point = (dx + (DOOR_CLEARANCE if cx > dx else -DOOR_CLEARANCE), dy)
        else:
            point = (dx, dy + (DOOR_CLEARANCE if cy > dy else -DOOR_CLEARANCE))
        out[rid] = point
    return out


def plan_path(scenario: Scenario, start: tuple[float, float], goal: tuple[float, float]) -> list[tuple[float, float]]:
    """Shortest door-to-door path (Dijkstra over door points) from start to goal."""
    start_room, goal_room = scenario.room_at(*start), scenario.room_at(*goal)
    if goal_room is None:
        raise ValueError(f"goal ({goal[0]:.2f}, {goal[1]:.2f}) is outside every room")
    if start_room is None:
        raise ValueError(f"start ({start[0]:.2f}, {start[1]:.2f}) is outside every room")
    if start_room == goal_room:
        return [tuple(start), tuple(goal)]  # type: ignore[list-item]
    # Nodes: ("start",), ("goal",), (door index, room). Edges: straight lines inside one room, and door crossings.
    sides = [_door_sides(scenario, d) for d in scenario.doors]
    nodes_in_room: dict[str, list[tuple]] = {}
    points: dict[tuple, tuple[float, float]] = {("start",): tuple(start), ("goal",): tuple(goal)}  # type: ignore[dict-item]
    for i, side in enumerate(sides):
        for rid, pt in side.items():
            points[(i, rid)] = pt
            nodes_in_room.setdefault(rid, []).append((i, rid))
    nodes_in_room.setdefault(start_room, []).append(("start",))
    nodes_in_room.setdefault(goal_room, []).append(("goal",))

    def neighbours(node: tuple):
        room = start_room if node == ("start",) else goal_room if node == ("goal",) else node[1]
        for other in nodes_in_room.get(room, []):
            if other != node:
                yield other, math.dist(points[node], points[other])
        if len(node) == 2:
            door = scenario.doors[node[0]]
            other_room = door.between[1] if door.between[0] == node[1] else door.between[0]
            yield (node[0], other_room), 2 * DOOR_CLEARANCE

    best: dict[tuple, float] = {("start",): 0.0}
    parent: dict[tuple, Optional[tuple]] = {("start",): None}
    heap: list = [(0.0, 0, ("start",))]
    counter = 1
    while heap:
        cost, _, node = heapq.heappop(heap)
        if node == ("goal",):
            break
        if cost > best.get(node, math.inf):
            continue
        for nxt, step in neighbours(node):
            if cost + step < best.get(nxt, math.inf):
                best[nxt] = cost + step
                parent[nxt] = node
                heapq.heappush(heap, (cost + step, counter, nxt))
                counter += 1
    if ("goal",) not in parent:
        raise ValueError(f"no path through doors from room {start_room!r} to room {goal_room!r}")
    path, node = [], ("goal",)
    while node is not None:
        path.append(points[node])
        node = parent[node]
    return path[::-1]


def path_length(points: list[tuple[float, float]]) -> float:
    return sum(math.dist(a, b) for a, b in zip(points, points[1:]))
