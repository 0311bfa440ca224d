"""The robot's camera in the simulated home: poses along a patrol route, visibility, oracle observations.

Camera model (``CameraConfig``): mounted ``height`` m above the floor, ``forward`` m ahead of the base
centre, pitched down by ``pitch`` rad, horizontal field of view ``hfov`` rad, image ``width`` x
``height_px`` (vertical FOV follows from the aspect ratio), seeing up to ``range`` m.
``camera_pose(robot_pose, config) -> Pose3D`` is the camera's OPTICAL frame in the map (z forward,
x right, y down), as published on ``names.CAMERA_POSE``; ``CameraConfig.intrinsics()`` gives fx, fy, cx, cy.

Visibility (the scenario spec): an object is observable when it is in the camera's room (walls block
sight, doors do not let the camera see into the next room), within ``range`` and the field of view, and
lies on a surface fixture or inside an OPEN container; never inside a closed one. Fixtures are visible
under the same room/range/horizontal-FOV rule applied to their centre and footprint corners (their ids
and the map are public knowledge).

Public API:
- ``observe(world, config=None) -> Observation`` for the robot's current pose.
- ``visible_now(world, config=None) -> (object ids, fixture ids)`` (simulator side; used by skills).
- ``patrol_segment(world, segment, config=None) -> Iterator[Observation]``: ``segment.observations``
  observations evenly spaced over [start, end] (both included), the world clock advancing with them and
  the timeline applied as it passes. The robot loops a route through ``segment.route``: for each room it
  enters through a door, stops in front of each fixture looking at it, and leaves through a door.
- ``build_route(scenario, rooms, config=None) -> Route``: the closed loop, with ``pose_at(phase_seconds)``.
- ``caption_for(room, sightings) -> str``: the oracle caption, e.g.
  "kitchen: a red ceramic mug on the dining table [dining_table_1], a white cabinet [cabinet_1] (closed)".

Observations carry sightings for visible objects (kind "object", object_id = instance id, label =
class, attributes, support = fixture id, relation "on"/"in") and visible fixtures (kind "fixture",
object_id = fixture id, attribute ``state`` open/closed for containers that open). Never a hidden value,
never a lock flag, never an object the camera cannot see.
"""
from __future__ import annotations

import math
import weakref
from dataclasses import dataclass, replace
from typing import Iterable, Iterator, Optional

import numpy as np

from mnemo_common.types import Observation, Pose2D, Pose3D, Sighting

from .navigation import approach_pose, plan_path
from .scenario import PatrolSegment, Scenario
from .world import World

_ADJECTIVE_KEYS = ("size", "color", "colour", "pattern", "material")


@dataclass(frozen=True)
class CameraConfig:
    height: float = 1.2  # camera above the floor (m)
    forward: float = 0.1  # camera ahead of the base centre (m)
    pitch: float = 0.2  # looking down (rad)
    hfov: float = math.radians(65.0)  # horizontal field of view (rad)
    width: int = 640
    height_px: int = 480
    range: float = 5.0  # farthest visible point (m)
    speed: float = 0.5  # patrol driving speed (m/s)
    turn_rate: float = 1.0  # patrol turning speed (rad/s)
    dwell: float = 8.0  # seconds spent looking at each fixture on patrol
    viewpoint_standoff: float = 1.3  # patrol viewpoints: metres in front of a fixture's front face

    @property
    def vfov(self) -> float:
        return 2.0 * math.atan(math.tan(self.hfov / 2) * self.height_px / self.width)

    def intrinsics(self) -> tuple[float, float, float, float]:
        """Pinhole fx, fy, cx, cy in pixels (square pixels, pixel centres at integers as in mnemo_sim.camera)."""
        f = (self.width / 2) / math.tan(self.hfov / 2)
        return (f, f, (self.width - 1) / 2, (self.height_px - 1) / 2)


DEFAULT_CAMERA = CameraConfig()


def _optical_quaternions(yaw: np.ndarray, pitch: float) -> np.ndarray:
    """(n, 4) quaternions (x, y, z, w) of R_z(yaw) R_y(pitch) R_optical, vectorised over yaw."""
    # R_optical maps optical axes into the body frame: x_opt = -y_body, y_opt = -z_body, z_opt = x_body.
    # Its quaternion is (-0.5, 0.5, -0.5, 0.5); compose q_yaw * q_pitch * q_optical.
    cy, sy = np.cos(yaw / 2), np.sin(yaw / 2)
    cp, sp = math.cos(pitch / 2), math.sin(pitch / 2)
    # q_yaw * q_pitch = (0,0,sy,cy) * (0,sp,0,cp)
    x1, y1, z1, w1 = -sy * sp, cy * sp, sy * cp, cy * cp
    x2, y2, z2, w2 = -0.5, 0.5, -0.5, 0.5
    return np.stack([
        w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
        w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2,
        w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2,
        w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2,
    ], axis=-1)


def camera_pose(robot_pose: Pose2D, config: CameraConfig = DEFAULT_CAMERA) -> Pose3D:
    q = _optical_quaternions(np.array([robot_pose.yaw]), config.pitch)[0]
    c, s = math.cos(robot_pose.yaw), math.sin(robot_pose.yaw)
    return Pose3D((robot_pose.x + config.forward * c, robot_pose.y + config.forward * s, config.height),
                  tuple(float(v) for v in q))  # type: ignore[arg-type]


# --------------------------------------------------------------------------------------------- captions

def _article(phrase: str) -> str:
    return ("an " if phrase[:1].lower() in "aeiou" else "a ") + phrase


def _describe(label: str, attributes: dict[str, str]) -> str:
    adjectives = [attributes[k] for k in _ADJECTIVE_KEYS if k in attributes]
    rest = [f"{k} '{v}'" if k == "text" else f"{k} {v}" for k, v in attributes.items()
            if k not in _ADJECTIVE_KEYS and k != "state"]
    phrase = " ".join(adjectives + [label])
    return phrase + (f" ({', '.join(rest)})" if rest else "")


def caption_for(room: str, sightings: list[Sighting], fixture_labels: Optional[dict[str, str]] = None) -> str:
    """Deterministic oracle caption from sightings: objects with where they are, then fixtures."""
    labels = fixture_labels or {s.object_id: s.label for s in sightings if s.kind == "fixture"}
    parts = []
    for s in sightings:
        if s.kind == "fixture":
            continue
        where = f" {s.relation} the {labels.get(s.support, 'furniture')} [{s.support}]" if s.support else ""
        parts.append(_article(_describe(s.label, s.attributes)) + where)
    for s in sightings:
        if s.kind == "fixture":
            state = f" ({s.attributes['state']})" if "state" in s.attributes else ""
            parts.append(_article(_describe(s.label, s.attributes)) + f" [{s.object_id}]" + state)
    return f"{room}: " + (", ".join(parts) if parts else "nothing in view")


# --------------------------------------------------------------------------------------------- visibility

class _RoomView:
    """What can possibly be seen in one room for one world version, as arrays."""

    def __init__(self, world: World, room: str):
        sc = world.scenario
        fixtures = [f for f in sc.fixtures if f.room == room]
        objects = []
        for f in fixtures:
            if f.is_container and not world.is_open(f.id):
                continue
            objects.extend(world.present_objects_at(f.id))
        self.object_ids = objects
        self.fixture_ids = [f.id for f in fixtures]
        self.obj_xyz = np.array([world.object_position(o) for o in objects], dtype=float).reshape(-1, 3)
        # A fixture is in view when its centre or a corner of its footprint is (5 points each).
        self.fix_xyz = np.array([(x, y, f.size[2] / 2) for f in fixtures for x, y in [f.pose[:2]] + f.footprint()],
                                dtype=float).reshape(-1, 3)
        # Sighting field templates (copied per sighting so consumers cannot change the world's data).
        self.obj_fields = []
        for oid in objects:
            spec = sc.object_by_id[oid]
            x, y, z = (float(v) for v in world.object_position(oid))
            self.obj_fields.append((spec.label, (x, y, z), spec.attributes, oid,
                                    world.truth_location(oid), world.object_relation(oid)))
        self.fix_fields = []
        for f in fixtures:
            attrs = dict(f.attributes)
            if f.openable:
                attrs["state"] = "open" if world.is_open(f.id) else "closed"
            self.fix_fields.append((f.label, (float(f.pose[0]), float(f.pose[1]), f.size[2] / 2), attrs, f.id))
        self.fixture_labels = {f.id: f.label for f in sc.fixtures}
        self.captions: dict[tuple, str] = {}

    def visible(self, cx: np.ndarray, cy: np.ndarray, yaw: np.ndarray, config: CameraConfig) -> tuple[np.ndarray, np.ndarray]:
        """Boolean (n_poses, n_objects) and (n_poses, n_fixtures) visibility for camera positions/yaws."""
        fix = self._in_view(self.fix_xyz, cx, cy, yaw, config, vertical=False)
        return (self._in_view(self.obj_xyz, cx, cy, yaw, config, vertical=True),
                fix.reshape(cx.shape[0], -1, 5).any(axis=2))

    @staticmethod
    def _in_view(xyz: np.ndarray, cx: np.ndarray, cy: np.ndarray, yaw: np.ndarray, config: CameraConfig,
                 vertical: bool) -> np.ndarray:
        if xyz.shape[0] == 0:
            return np.zeros((cx.shape[0], 0), dtype=bool)
        dx = xyz[None, :, 0] - cx[:, None]
        dy = xyz[None, :, 1] - cy[:, None]
        dist = np.hypot(dx, dy)
        bearing = np.arctan2(dy, dx) - yaw[:, None]
        bearing = (bearing + np.pi) % (2 * np.pi) - np.pi
        ok = (dist <= config.range) & (np.abs(bearing) <= config.hfov / 2)
        if vertical:
            # Elevation relative to the optical axis, measured along the bearing.
            forward = np.maximum(dist * np.cos(bearing), 1e-6)
            elevation = np.arctan2(xyz[None, :, 2] - config.height, forward) + config.pitch
            ok &= np.abs(elevation) <= config.vfov / 2
        return ok

    def sightings(self, obj_mask: np.ndarray, fix_mask: np.ndarray) -> list[Sighting]:
        out = [Sighting(label=f[0], position=f[1], attributes=dict(f[2]), kind="object", object_id=f[3],
                        support=f[4], relation=f[5]) for f, v in zip(self.obj_fields, obj_mask) if v]
        out += [Sighting(label=f[0], position=f[1], attributes=dict(f[2]), kind="fixture", object_id=f[3])
                for f, v in zip(self.fix_fields, fix_mask) if v]
        return out

    def caption(self, room: str, obj_mask: np.ndarray, fix_mask: np.ndarray, sightings: list[Sighting]) -> str:
        key = (obj_mask.tobytes(), fix_mask.tobytes())
        text = self.captions.get(key)
        if text is None:
            text = self.captions[key] = caption_for(room, sightings, self.fixture_labels)
        return text


class _Perception:
    """Per-world cache of room views (rebuilt when the world's version changes) and the observation counter."""

    def __init__(self, world: World):
        sc = world.scenario
        self.world_ref = weakref.ref(world)
        self.version = -1
        self.views: dict[str, _RoomView] = {}
        self.seq = 0
        self.room_ids = [r.id for r in sc.rooms]
        self.rects = np.array([r.rect for r in sc.rooms], dtype=float)

    def view(self, room: str) -> _RoomView:
        world = self.world_ref()
        if world.version != self.version:
            self.views.clear()
            self.version = world.version
        v = self.views.get(room)
        if v is None:
            v = self.views[room] = _RoomView(world, room)
        return v

    def rooms_of(self, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
        """Index of the (first) room containing each point; -1 outside every room."""
        r = self.rects
        inside = ((xs[:, None] >= r[None, :, 0] - 1e-3) & (xs[:, None] <= r[None, :, 2] + 1e-3) &
                  (ys[:, None] >= r[None, :, 1] - 1e-3) & (ys[:, None] <= r[None, :, 3] + 1e-3))
        return np.where(inside.any(axis=1), inside.argmax(axis=1), -1)

    def next_seq(self) -> int:
        self.seq += 1
        return self.seq


_PERCEPTION: "weakref.WeakKeyDictionary[World, _Perception]" = weakref.WeakKeyDictionary()


def _perception(world: World) -> _Perception:
    p = _PERCEPTION.get(world)
    if p is None:
        p = _PERCEPTION[world] = _Perception(world)
    return p


def _camera_xy(x: np.ndarray, y: np.ndarray, yaw: np.ndarray, config: CameraConfig) -> tuple[np.ndarray, np.ndarray]:
    return x + config.forward * np.cos(yaw), y + config.forward * np.sin(yaw)


def _masks_now(world: World, config: CameraConfig) -> tuple[str, _RoomView, np.ndarray, np.ndarray]:
    p = _perception(world)
    pose = world.robot_pose
    x, y, yaw = np.array([pose.x]), np.array([pose.y]), np.array([pose.yaw])
    room_index = int(p.rooms_of(x, y)[0])
    if room_index < 0:
        raise ValueError(f"the robot at ({pose.x:.2f}, {pose.y:.2f}) is outside every room")
    room = p.room_ids[room_index]
    view = p.view(room)
    cx, cy = _camera_xy(x, y, yaw, config)
    obj, fix = view.visible(cx, cy, yaw, config)
    return room, view, obj[0], fix[0]


def visible_now(world: World, config: Optional[CameraConfig] = None) -> tuple[list[str], list[str]]:
    """Ids of the objects and fixtures the camera sees from the robot's current pose."""
    _, view, obj, fix = _masks_now(world, config or DEFAULT_CAMERA)
    return ([o for o, v in zip(view.object_ids, obj) if v], [f for f, v in zip(view.fixture_ids, fix) if v])


def observe(world: World, config: Optional[CameraConfig] = None, extra_objects: Iterable[str] = (),
            look_pitch: Optional[float] = None) -> Observation:
    """One oracle observation from the robot's current pose at the world's current time.

    ``look_pitch``: the head also tilts down to this pitch (rad) to look at the fixture in front;
    the observation holds what either view shows and carries the tilted camera pose.
    ``extra_objects``: objects of the robot's room seen although the visibility rule misses them
    (what lies on the fixture the robot stands at and looks at)."""
    config = config or DEFAULT_CAMERA
    room, view, obj, fix = _masks_now(world, config)
    if look_pitch is not None:
        config = replace(config, pitch=float(look_pitch))
        _, _, obj_down, fix_down = _masks_now(world, config)
        obj, fix = obj | obj_down, fix | fix_down
    extra = set(extra_objects)
    if extra:
        obj = obj | np.array([o in extra for o in view.object_ids], dtype=bool)
    sightings = view.sightings(obj, fix)
    return Observation(stamp=world.t, robot_pose=world.robot_pose, camera_pose=camera_pose(world.robot_pose, config),
                       room=room, sightings=sightings, caption=view.caption(room, obj, fix, sightings),
                       seq=_perception(world).next_seq())


# --------------------------------------------------------------------------------------------- routes

@dataclass(frozen=True)
class Route:
    """A closed patrol loop as keyframes: times (s from the loop start), x, y and continuous yaw."""

    times: np.ndarray
    xs: np.ndarray
    ys: np.ndarray
    yaws: np.ndarray  # unwrapped, so linear interpolation turns the short way
    stops: tuple[tuple[str, str], ...]  # (room, fixture id or "") viewpoints in visiting order

    @property
    def duration(self) -> float:
        return float(self.times[-1])

    def poses_at(self, phase: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Poses at loop times (seconds from the loop start, taken modulo the loop duration)."""
        phase = np.mod(phase, self.duration)
        return (np.interp(phase, self.times, self.xs), np.interp(phase, self.times, self.ys),
                np.interp(phase, self.times, self.yaws))

    def length(self) -> float:
        return float(np.hypot(np.diff(self.xs), np.diff(self.ys)).sum())


class _RouteBuilder:
    def __init__(self, config: CameraConfig, start: Pose2D):
        self.config = config
        self.t, self.x, self.y, self.yaw = 0.0, start.x, start.y, start.yaw
        self.keys = [(0.0, start.x, start.y, start.yaw)]

    def turn_to(self, heading: float) -> None:
        delta = (heading - self.yaw + math.pi) % (2 * math.pi) - math.pi
        if abs(delta) > 1e-6:
            self.t += abs(delta) / self.config.turn_rate
            self.yaw += delta
            self.keys.append((self.t, self.x, self.y, self.yaw))

    def move_to(self, x: float, y: float) -> None:
        dist = math.hypot(x - self.x, y - self.y)
        if dist < 1e-6:
            return
        self.turn_to(math.atan2(y - self.y, x - self.x))
        self.t += dist / self.config.speed
        self.x, self.y = x, y
        self.keys.append((self.t, x, y, self.yaw))

    def dwell(self, seconds: float) -> None:
        self.t += seconds
        self.keys.append((self.t, self.x, self.y, self.yaw))

    def spin(self) -> None:
        for _ in range(4):
            self.turn_to(self.yaw + math.pi / 2 - 1e-3)
            self.dwell(self.config.dwell / 2)


def _room_viewpoints(scenario: Scenario, room: str, entry: tuple[float, float], config: CameraConfig) -> list[tuple[Pose2D, str]]:
    """Viewpoints in front of each fixture of the room, greedily nearest-first from the entry point."""
    todo = [(approach_pose(scenario, f.id, config.viewpoint_standoff), f.id) for f in scenario.fixtures if f.room == room]
    ordered, here = [], entry
    while todo:
        best = min(todo, key=lambda item: math.dist(here, (item[0].x, item[0].y)))
        todo.remove(best)
        ordered.append(best)
        here = (best[0].x, best[0].y)
    return ordered


def build_route(scenario: Scenario, rooms: tuple[str, ...] | list[str], config: Optional[CameraConfig] = None) -> Route:
    """A closed loop visiting every fixture of each listed room in order, moving room to room through doors."""
    config = config or DEFAULT_CAMERA
    first_room = rooms[0]
    start_xy = scenario.room_by_id[first_room].center
    first_views = _room_viewpoints(scenario, first_room, start_xy, config)
    start = first_views[0][0] if first_views else Pose2D(*start_xy, 0.0)
    builder = _RouteBuilder(config, start)
    stops = []
    for room in rooms:
        if scenario.room_at(builder.x, builder.y) != room or builder.t > 0:
            views = _room_viewpoints(scenario, room, _entry_point(scenario, (builder.x, builder.y), room), config)
        else:
            views = first_views
        target = (views[0][0].x, views[0][0].y) if views else scenario.room_by_id[room].center
        for x, y in plan_path(scenario, (builder.x, builder.y), target)[1:]:
            builder.move_to(x, y)
        if not views:
            builder.spin()
            stops.append((room, ""))
        for pose, fid in views:
            builder.move_to(pose.x, pose.y)
            builder.turn_to(pose.yaw)
            builder.dwell(config.dwell)
            stops.append((room, fid))
    for x, y in plan_path(scenario, (builder.x, builder.y), (start.x, start.y))[1:]:
        builder.move_to(x, y)
    builder.turn_to(start.yaw)
    if builder.t <= 0:
        builder.dwell(config.dwell)
    keys = np.array(builder.keys, dtype=float)
    return Route(keys[:, 0], keys[:, 1], keys[:, 2], keys[:, 3], tuple(stops))


def _entry_point(scenario: Scenario, here: tuple[float, float], room: str) -> tuple[float, float]:
    """Where the robot enters a room coming from ``here`` (the last waypoint of the path to its centre)."""
    path = plan_path(scenario, here, scenario.room_by_id[room].center)
    return path[-2] if len(path) > 2 else path[0]


# --------------------------------------------------------------------------------------------- patrol

def _route_for(scenario: Scenario, rooms: tuple[str, ...], config: CameraConfig) -> Route:
    cache = scenario.__dict__.setdefault("_route_cache", {})  # routes depend only on the static layout
    route = cache.get((rooms, config))
    if route is None:
        route = cache[(rooms, config)] = build_route(scenario, rooms, config)
    return route


def patrol_times(segment: PatrolSegment) -> np.ndarray:
    return np.linspace(segment.start_t, segment.end_t, segment.observations) if segment.observations > 1 \
        else np.array([segment.start_t])


def patrol_poses(scenario: Scenario, segment: PatrolSegment, config: Optional[CameraConfig] = None
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(times, x, y, yaw) of every observation of a patrol segment.

    The loop is stretched so that a whole number of loops fills the segment (the robot keeps patrolling
    all along it), and the observations sample it evenly.
    """
    config = config or DEFAULT_CAMERA
    route = _route_for(scenario, segment.route, config)
    times = patrol_times(segment)
    duration = max(segment.end_t - segment.start_t, 1e-9)
    loops = max(1, round(duration / route.duration))
    phase = (times - segment.start_t) * (route.duration * loops / duration)
    xs, ys, yaws = route.poses_at(phase)
    return times, xs, ys, yaws


def patrol_segment(world: World, segment: PatrolSegment, config: Optional[CameraConfig] = None) -> Iterator[Observation]:
    """Run one patrol segment: yields its observations in time order while advancing the world's clock."""
    config = config or DEFAULT_CAMERA
    times, xs, ys, yaws = patrol_poses(world.scenario, segment, config)
    perception = _perception(world)
    cxs, cys = _camera_xy(xs, ys, yaws, config)
    room_index = perception.rooms_of(xs, ys)
    quats = _optical_quaternions(yaws, config.pitch)
    n = len(times)
    i = 0
    while i < n:
        world.advance_to(float(times[i]))
        version = world.version
        # Observations until the next timeline event see the same world: compute them as one block.
        end = int(np.searchsorted(times, world.next_event_time(), side="left"))
        end = max(end, i + 1)
        block = slice(i, end)
        masks: dict[int, tuple[_RoomView, np.ndarray, np.ndarray, np.ndarray]] = {}
        for r in np.unique(room_index[block]):
            rows = np.nonzero(room_index[block] == r)[0] + i
            view = perception.view(perception.room_ids[r])
            obj, fix = view.visible(cxs[rows], cys[rows], yaws[rows], config)
            masks[int(r)] = (view, rows, obj, fix)
        row_of = {}
        for r, (view, rows, obj, fix) in masks.items():
            for k, row in enumerate(rows):
                row_of[int(row)] = (r, view, obj[k], fix[k])
        for j in range(i, end):
            world.advance_to(float(times[j]))
            if world.version != version:  # the caller changed the world meanwhile: recompute from here
                end = j
                break
            r, view, obj, fix = row_of[j]
            pose = Pose2D(float(xs[j]), float(ys[j]), float(math.remainder(yaws[j], 2 * math.pi)))
            world.move_robot(pose)
            room = perception.room_ids[r]
            sightings = view.sightings(obj, fix)
            yield Observation(
                stamp=float(times[j]), robot_pose=pose,
                camera_pose=Pose3D((float(cxs[j]), float(cys[j]), config.height), tuple(float(v) for v in quats[j])),
                room=room, sightings=sightings, caption=view.caption(room, obj, fix, sightings),
                seq=perception.next_seq())
        i = end
