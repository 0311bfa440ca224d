"""Headless MuJoCo rendering of a household scenario: RGB, depth and instance segmentation.

:func:`build_scene` turns a scenario into an MJCF model plus an index of what each geom
belongs to; :class:`Renderer` keeps one model, one GL context and one ``MjrContext`` and
renders :class:`Frame` objects from any camera pose (see :mod:`mnemo_sim.camera` for the
pixel, depth and pose conventions).

The model:

- the floor of each room, and walls of ``wall_height`` along every room boundary, with a
  ``door_width`` gap at every door (shared boundaries are built once);
- fixtures: surfaces are tables (top + four legs) when their class names a table or desk,
  solid blocks otherwise; containers are a carcass open at the front (the fixture's local
  +x side) closed by a door on a hinge joint, or by a drawer on a slide joint when the class
  names a drawer (every container, so nothing inside shows unless the world has it open).
  Setting the joint opens it in the picture; a drawer carries its contents out with it
  (``DRAWER_TRAVEL`` of its depth), so they are drawn that far in front of their slot;
- objects: one mocap body each, shaped from the class (cylinders for mugs/bottles/cans,
  ellipsoids for fruit and balls, boxes otherwise), sized from ``size`` and coloured from
  ``attributes.color``. Their positions come from the world at every :meth:`Renderer.sync`;
  an object the world does not place (removed, held) is parked out of sight;
- the robot camera: a mocap body carrying a camera whose pose is set per frame.

Nothing is simulated: poses and joints are written and ``mj_kinematics`` places the bodies.
All GL work happens on one private thread, so a renderer may be used from any thread.
"""
from __future__ import annotations

import concurrent.futures
import ctypes.util
import hashlib
import math
import os
import re
import threading
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Optional
from xml.sax.saxutils import quoteattr

import numpy as np

from mnemo_common.types import Pose3D

from mnemo_sim.camera import CameraIntrinsics, mujoco_camera_quat
from mnemo_sim.scenario import ROBOT, Fixture, Scenario
from mnemo_sim.world import DRAWER_TRAVEL, World, container_floor_z


def _choose_gl_backend() -> None:
    """Use MUJOCO_GL when set; otherwise EGL, or OSMesa where no EGL library exists."""
    if "MUJOCO_GL" not in os.environ:
        backend = "egl" if ctypes.util.find_library("EGL") or not ctypes.util.find_library("OSMesa") else "osmesa"
        os.environ["MUJOCO_GL"] = backend
    os.environ.setdefault("PYOPENGL_PLATFORM", os.environ["MUJOCO_GL"])
    # triton (pulled in by torch/transformers when the embedding model loads) brings its own LLVM;
    # loading it after Mesa has made a GL context segfaults the process. Loaded first, both coexist.
    import importlib.util

    if importlib.util.find_spec("triton") is not None:
        try:
            import triton  # noqa: F401
        except Exception:  # noqa: BLE001 - a broken triton only matters to code that needs it
            pass


_choose_gl_backend()
import mujoco  # noqa: E402  (the backend must be chosen before mujoco is imported)

BACKGROUND = -1
PARKED_Z = -20.0  # where objects absent from the world wait, under the floor
DOOR_OPEN_ANGLE = 1.9  # rad an open hinged door swings out

# -- appearance ----------------------------------------------------------------------
COLORS: dict[str, tuple[float, float, float]] = {
    "red": (0.80, 0.10, 0.10), "dark red": (0.50, 0.05, 0.05), "maroon": (0.50, 0.0, 0.0),
    "green": (0.15, 0.65, 0.20), "dark green": (0.05, 0.35, 0.10), "lime": (0.55, 0.90, 0.20),
    "olive": (0.50, 0.50, 0.10),
    "blue": (0.15, 0.30, 0.85), "dark blue": (0.05, 0.10, 0.45), "navy": (0.05, 0.08, 0.35),
    "light blue": (0.55, 0.75, 0.95), "cyan": (0.10, 0.80, 0.85), "teal": (0.0, 0.50, 0.50),
    "turquoise": (0.25, 0.85, 0.80),
    "yellow": (0.95, 0.85, 0.10), "gold": (0.85, 0.70, 0.20), "orange": (0.95, 0.50, 0.10),
    "purple": (0.50, 0.20, 0.65), "violet": (0.60, 0.40, 0.85), "pink": (0.95, 0.55, 0.70),
    "magenta": (0.85, 0.15, 0.70),
    "brown": (0.45, 0.28, 0.12), "beige": (0.85, 0.78, 0.62), "tan": (0.80, 0.68, 0.50),
    "wood": (0.60, 0.42, 0.24), "wooden": (0.60, 0.42, 0.24),
    "white": (0.94, 0.94, 0.92), "cream": (0.96, 0.93, 0.82), "ivory": (0.97, 0.95, 0.86),
    "black": (0.07, 0.07, 0.07), "grey": (0.50, 0.50, 0.50), "gray": (0.50, 0.50, 0.50),
    "light grey": (0.75, 0.75, 0.75), "light gray": (0.75, 0.75, 0.75),
    "dark grey": (0.25, 0.25, 0.25), "dark gray": (0.25, 0.25, 0.25),
    "silver": (0.75, 0.75, 0.78), "metal": (0.65, 0.66, 0.70), "steel": (0.62, 0.64, 0.68),
    "transparent": (0.80, 0.90, 0.95), "clear": (0.80, 0.90, 0.95),
}
FIXTURE_COLORS: dict[str, tuple[float, float, float]] = {
    "table": COLORS["wood"], "desk": COLORS["wood"], "shelf": (0.55, 0.38, 0.22),
    "bookshelf": (0.55, 0.38, 0.22), "cabinet": COLORS["white"], "drawer": (0.70, 0.55, 0.38),
    "fridge": (0.90, 0.91, 0.93), "refrigerator": (0.90, 0.91, 0.93), "counter": (0.70, 0.70, 0.68),
    "sink": (0.78, 0.80, 0.82), "sofa": (0.45, 0.45, 0.50), "couch": (0.45, 0.45, 0.50),
    "bed": (0.80, 0.78, 0.90), "oven": (0.25, 0.25, 0.25), "microwave": (0.30, 0.30, 0.30),
}
ROUND_WORDS = ("apple", "orange", "ball", "fruit", "tomato", "egg", "lemon", "lime", "peach", "onion", "potato")
CYLINDER_WORDS = ("mug", "cup", "bottle", "can", "glass", "jar", "vase", "candle", "tube", "flask", "thermos")
TABLE_WORDS = ("table", "desk")
WALL_RGBA = "0.88 0.86 0.80 1"
ROOM_FLOOR_RGBA = ("0.72 0.66 0.58 1", "0.62 0.64 0.66 1", "0.70 0.60 0.50 1", "0.60 0.66 0.60 1")


def color_rgb(name: str, fallback_key: str = "") -> tuple[float, float, float]:
    """RGB in [0, 1] for a colour name ("red", "Dark Blue", "light-grey"), or a stable colour
    derived from ``fallback_key`` when the name is unknown or empty."""
    key = re.sub(r"[\s_\-]+", " ", str(name or "").strip().lower())
    words = key.split()
    for i in range(len(words)):  # longest known ending: "glossy dark blue" -> dark blue
        if " ".join(words[i:]) in COLORS:
            return COLORS[" ".join(words[i:])]
    for word in reversed(words):  # "red and white" -> white
        if word in COLORS:
            return COLORS[word]
    digest = hashlib.sha1((fallback_key or key).encode()).digest()
    return tuple(0.25 + 0.6 * b / 255.0 for b in digest[:3])  # type: ignore[return-value]


def _has_word(text: str, words: Iterable[str]) -> bool:
    tokens = set(re.split(r"[\s_\-]+", text.lower()))
    return any(w in tokens for w in words)


# -- the model -----------------------------------------------------------------------
@dataclass(frozen=True)
class RenderConfig:
    width: int = 640
    height: int = 480
    fovy: float = 58.0  # vertical field of view, degrees
    wall_height: float = 2.4
    wall_thickness: float = 0.1
    door_width: float = 0.9
    znear: float = 0.05
    zfar: float = 40.0


@dataclass
class SceneIndex:
    """What the built model holds: instance values, their ids, labels, kinds; joints; bodies."""

    instance_ids: list[str] = field(default_factory=list)  # value -> instance id
    labels: list[str] = field(default_factory=list)
    kinds: list[str] = field(default_factory=list)  # "object" | "fixture"
    body_value: dict[str, int] = field(default_factory=dict)  # body name -> instance value
    object_body: dict[str, str] = field(default_factory=dict)  # object id -> mocap body name
    object_half_height: dict[str, float] = field(default_factory=dict)
    container_joint: dict[str, tuple[str, str, float]] = field(default_factory=dict)  # id -> (joint, type, open qpos)
    fixture_frame: dict[str, tuple[float, float, float]] = field(default_factory=dict)  # id -> x, y, yaw

    def value_of(self, instance_id: str) -> int:
        return self.instance_ids.index(instance_id)

    def _add(self, instance_id: str, label: str, kind: str) -> int:
        self.instance_ids.append(instance_id)
        self.labels.append(label)
        self.kinds.append(kind)
        return len(self.instance_ids) - 1


def _f(*values: float) -> str:
    return " ".join(f"{v:.5g}" for v in values)


def _rgba(rgb: tuple[float, float, float], alpha: float = 1.0) -> str:
    return _f(*rgb, alpha)


def _merge(intervals: list[tuple[float, float]]) -> list[tuple[float, float]]:
    out: list[list[float]] = []
    for a, b in sorted(intervals):
        if out and a <= out[-1][1] + 1e-6:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return [(a, b) for a, b in out]


def _subtract(intervals: list[tuple[float, float]], gaps: list[tuple[float, float]]) -> list[tuple[float, float]]:
    result = intervals
    for g0, g1 in gaps:
        nxt = []
        for a, b in result:
            if g1 <= a or g0 >= b:
                nxt.append((a, b))
                continue
            if g0 > a:
                nxt.append((a, g0))
            if g1 < b:
                nxt.append((g1, b))
        result = nxt
    return [(a, b) for a, b in result if b - a > 1e-3]


def wall_segments(rooms: list[tuple[float, float, float, float]], doors: list[tuple[float, float]],
                  door_width: float) -> list[tuple[float, float, float, float]]:
    """Wall segments (x0, y0, x1, y1), axis-aligned, along every room boundary, each boundary
    line built once, minus a ``door_width`` gap centred on each door lying on it."""
    lines: dict[tuple[str, float], list[tuple[float, float]]] = {}
    for x0, y0, x1, y1 in rooms:
        for key, span in ((("h", round(y0, 4)), (x0, x1)), (("h", round(y1, 4)), (x0, x1)),
                          (("v", round(x0, 4)), (y0, y1)), (("v", round(x1, 4)), (y0, y1))):
            lines.setdefault(key, []).append(span)
    segments = []
    half = door_width / 2.0
    for (axis, c), spans in sorted(lines.items()):
        merged = _merge(spans)
        gaps = []
        for dx, dy in doors:
            along, across = (dx, dy) if axis == "h" else (dy, dx)
            if abs(across - c) < 0.05 and any(a - 1e-6 <= along <= b + 1e-6 for a, b in merged):
                gaps.append((along - half, along + half))
        for a, b in _subtract(merged, gaps):
            segments.append((a, c, b, c) if axis == "h" else (c, a, c, b))
    return segments


def _object_geom(label: str, size: tuple[float, float, float]) -> tuple[str, str]:
    sx, sy, sz = (max(float(v), 0.01) for v in size)
    if _has_word(label, CYLINDER_WORDS):
        return "cylinder", _f(min(sx, sy) / 2, sz / 2)
    if _has_word(label, ROUND_WORDS):
        return "ellipsoid", _f(sx / 2, sy / 2, sz / 2)
    return "box", _f(sx / 2, sy / 2, sz / 2)


def _fixture_xml(fx: Fixture, name: str, index: SceneIndex) -> str:
    """MJCF of one fixture (surface table/block or container with hinged door/drawer)."""
    fid, label, attrs = fx.id, fx.label, fx.attributes
    x, y, yaw = fx.pose
    sx, sy, h = fx.size
    base = next((c for w, c in FIXTURE_COLORS.items() if _has_word(label, [w])), None)
    rgb = color_rgb(attrs["color"], fid) if attrs.get("color") else (base or color_rgb("", label))
    rgba = _rgba(rgb)
    index.fixture_frame[fid] = (x, y, yaw)
    lines = [f'<body name="{name}" pos="{_f(x, y, 0)}" euler="0 0 {yaw:.6g}">']
    if fx.is_container:
        t = min(0.02, sx / 8, sy / 8, h / 8)
        inner = sx - t  # depth from back panel to the front opening
        floor = container_floor_z(fx)  # the world stands contents on this height
        lines += [
            f'<geom type="box" size="{_f(t / 2, sy / 2, h / 2)}" pos="{_f(-sx / 2 + t / 2, 0, h / 2)}" rgba="{rgba}"/>',
            f'<geom type="box" size="{_f(inner / 2, t / 2, h / 2)}" pos="{_f(-t / 2, -sy / 2 + t / 2, h / 2)}" rgba="{rgba}"/>',
            f'<geom type="box" size="{_f(inner / 2, t / 2, h / 2)}" pos="{_f(-t / 2, sy / 2 - t / 2, h / 2)}" rgba="{rgba}"/>',
            f'<geom type="box" size="{_f(inner / 2, sy / 2, t / 2)}" pos="{_f(-t / 2, 0, h - t / 2)}" rgba="{rgba}"/>',
            f'<geom type="box" size="{_f(inner / 2, sy / 2, floor / 2)}" pos="{_f(-t / 2, 0, floor / 2)}" rgba="{rgba}"/>',
        ]
        handle_rgba = "0.35 0.35 0.38 1"
        if fx.is_drawer:
            travel = DRAWER_TRAVEL * sx
            joint = f"{name}__slide"
            # The drawer's front covers the lower part; a fixed rail closes the carcass above it,
            # so the contents show only when the drawer is pulled out.
            wall = h * 0.15
            front = floor + wall
            lines += [
                f'<geom type="box" size="{_f(t / 2, sy / 2, (h - front) / 2)}" pos="{_f(sx / 2 - t / 2, 0, (h + front) / 2)}" rgba="{rgba}"/>',
                f'<body name="{name}__drawer" pos="0 0 0">',
                f'<joint name="{joint}" type="slide" axis="1 0 0" range="0 {travel:.5g}"/>',
                f'<geom type="box" size="{_f(t / 2, sy / 2, front / 2)}" pos="{_f(sx / 2 - t / 2, 0, front / 2)}" rgba="{rgba}"/>',
                f'<geom type="box" size="{_f(0.02, 0.08, 0.012)}" pos="{_f(sx / 2 + 0.02, 0, front * 0.6)}" rgba="{handle_rgba}"/>',
                f'<geom type="box" size="{_f(inner / 2 - t, sy / 2 - 2 * t, t / 4)}" pos="{_f(-t / 2, 0, floor - t / 4)}" rgba="{rgba}"/>',
                f'<geom type="box" size="{_f(inner / 2 - t, t / 4, wall / 2)}" pos="{_f(-t / 2, -sy / 2 + 1.5 * t, floor + wall / 2)}" rgba="{rgba}"/>',
                f'<geom type="box" size="{_f(inner / 2 - t, t / 4, wall / 2)}" pos="{_f(-t / 2, sy / 2 - 1.5 * t, floor + wall / 2)}" rgba="{rgba}"/>',
                f'<geom type="box" size="{_f(t / 4, sy / 2 - 2 * t, wall / 2)}" pos="{_f(-sx / 2 + 1.5 * t, 0, floor + wall / 2)}" rgba="{rgba}"/>',
                "</body>",
            ]
            index.container_joint[fid] = (joint, "slide", travel)
        else:  # every container gets a door: the world decides when it stands open
            joint = f"{name}__hinge"
            lines += [
                f'<body name="{name}__door" pos="{_f(sx / 2, -sy / 2, 0)}">',
                f'<joint name="{joint}" type="hinge" axis="0 0 1" range="-2.0 0"/>',
                f'<geom type="box" size="{_f(t / 2, sy / 2, h / 2)}" pos="{_f(-t / 2, sy / 2, h / 2)}" rgba="{rgba}"/>',
                f'<geom type="box" size="{_f(0.015, 0.012, min(0.12, h / 6))}" pos="{_f(0.015, sy * 0.88, h * 0.55)}" rgba="{handle_rgba}"/>',
                "</body>",
            ]
            index.container_joint[fid] = (joint, "hinge", -DOOR_OPEN_ANGLE)
    elif _has_word(label, TABLE_WORDS):
        top = min(0.04, h / 4)
        leg = min(0.05, sx / 6, sy / 6)
        lines.append(f'<geom type="box" size="{_f(sx / 2, sy / 2, top / 2)}" pos="{_f(0, 0, h - top / 2)}" rgba="{rgba}"/>')
        for ix in (-1, 1):
            for iy in (-1, 1):
                lines.append(f'<geom type="box" size="{_f(leg / 2, leg / 2, (h - top) / 2)}" '
                             f'pos="{_f(ix * (sx / 2 - leg), iy * (sy / 2 - leg), (h - top) / 2)}" rgba="{rgba}"/>')
    else:
        lines.append(f'<geom type="box" size="{_f(sx / 2, sy / 2, h / 2)}" pos="{_f(0, 0, h / 2)}" rgba="{rgba}"/>')
    lines.append("</body>")
    return "\n".join(lines)


def build_scene(scenario: Scenario, config: RenderConfig = RenderConfig()) -> tuple[str, SceneIndex]:
    """MJCF text of a scenario plus the index mapping bodies to instance values."""
    index = SceneIndex()
    rooms = [tuple(float(v) for v in r.rect) for r in scenario.rooms]
    doors = [tuple(float(v) for v in d.at) for d in scenario.doors]
    if rooms:
        xs = [r[0] for r in rooms] + [r[2] for r in rooms]
        ys = [r[1] for r in rooms] + [r[3] for r in rooms]
        bounds = (min(xs), min(ys), max(xs), max(ys))
    else:
        bounds = (-5.0, -5.0, 5.0, 5.0)
    cx, cy = (bounds[0] + bounds[2]) / 2, (bounds[1] + bounds[3]) / 2
    w, h = config.width, config.height
    parts = [
        '<mujoco model="mnemo_household">',
        '<compiler angle="radian"/>',
        '<option gravity="0 0 0"/>',
        f'<statistic extent="1" center="{_f(cx, cy, 1)}"/>',
        "<visual>",
        f'<global offwidth="{w}" offheight="{h}" fovy="{config.fovy:.6g}"/>',
        '<quality offsamples="0" shadowsize="0"/>',
        f'<map znear="{config.znear:.6g}" zfar="{config.zfar:.6g}"/>',
        '<headlight ambient="0.45 0.45 0.45" diffuse="0.35 0.35 0.35" specular="0 0 0"/>',
        "</visual>",
        '<default><geom contype="0" conaffinity="0" group="0"/></default>',
        "<worldbody>",
        '<light directional="true" pos="0 0 5" dir="-0.3 -0.2 -1" diffuse="0.45 0.45 0.45" castshadow="false"/>',
    ]
    # Floors (one slab per room, tops at z = 0) and walls.
    for i, (x0, y0, x1, y1) in enumerate(rooms):
        parts.append(f'<geom name="floor_{i}" type="box" size="{_f((x1 - x0) / 2, (y1 - y0) / 2, 0.01)}" '
                     f'pos="{_f((x0 + x1) / 2, (y0 + y1) / 2, -0.01)}" rgba="{ROOM_FLOOR_RGBA[i % len(ROOM_FLOOR_RGBA)]}"/>')
    if not rooms:
        parts.append('<geom name="floor" type="plane" size="10 10 0.1" rgba="0.7 0.7 0.7 1"/>')
    t, wh = config.wall_thickness, config.wall_height
    for i, (x0, y0, x1, y1) in enumerate(wall_segments(rooms, doors, config.door_width + t)):
        length = math.hypot(x1 - x0, y1 - y0) + t  # overlap at corners
        sx, sy = (length / 2, t / 2) if abs(y1 - y0) < 1e-9 else (t / 2, length / 2)
        parts.append(f'<geom name="wall_{i}" type="box" size="{_f(sx, sy, wh / 2)}" '
                     f'pos="{_f((x0 + x1) / 2, (y0 + y1) / 2, wh / 2)}" rgba="{WALL_RGBA}"/>')
    # Fixtures.
    for fx in scenario.fixtures:
        fid = fx.id
        value = index._add(fid, fx.label, "fixture")
        body = f"fx{value}"
        parts.append(_fixture_xml(fx, body, index))
        index.body_value[body] = value
        joint = index.container_joint.get(fid)
        if joint is not None:
            index.body_value[body + ("__drawer" if joint[1] == "slide" else "__door")] = value
    # Objects: mocap bodies, parked until the world places them.
    for obj in scenario.objects:
        oid, label, attrs = obj.id, obj.label, obj.attributes
        value = index._add(oid, label, "object")
        size = tuple(float(v) for v in obj.size)
        gtype, gsize = _object_geom(label, size)
        body = f"ob{value}"
        parts.append(f'<body name="{body}" mocap="true" pos="{_f(0, 0, PARKED_Z)}">'
                     f'<geom type="{gtype}" size="{gsize}" rgba="{_rgba(color_rgb(attrs.get("color", ""), label))}"/></body>')
        index.body_value[body] = value
        index.object_body[oid] = body
        index.object_half_height[oid] = size[2] / 2
    # The robot camera.
    parts += [
        '<body name="robot_camera" mocap="true" pos="0 0 1">',
        f'<camera name="robot_camera" mode="fixed" fovy="{config.fovy:.6g}"/>',
        "</body>",
        "</worldbody>",
        "</mujoco>",
    ]
    return "\n".join(parts), index


# -- frames --------------------------------------------------------------------------
@dataclass
class Frame:
    """One rendered camera frame. ``seg`` holds instance values (int32, -1 background) whose
    ids, labels and kinds are in the dicts; conventions are those of :mod:`mnemo_sim.camera`."""

    rgb: np.ndarray  # H x W x 3 uint8
    depth: np.ndarray  # H x W float32, metres along the optical axis, NaN where nothing
    seg: np.ndarray  # H x W int32
    seg_ids: dict[int, str]
    labels: dict[int, str]
    kinds: dict[int, str]
    intrinsics: CameraIntrinsics
    camera_pose: Pose3D
    stamp: float = 0.0

    @property
    def K(self) -> np.ndarray:  # noqa: N802
        return self.intrinsics.K

    def mask(self, instance_id: str) -> np.ndarray:
        values = [v for v, i in self.seg_ids.items() if i == instance_id]
        return np.isin(self.seg, values) if values else np.zeros(self.seg.shape, bool)

    def visible(self, min_pixels: int = 1) -> dict[str, int]:
        """Instance id -> pixel count, for instances covering at least ``min_pixels``."""
        values, counts = np.unique(self.seg[self.seg >= 0], return_counts=True)
        return {self.seg_ids[int(v)]: int(c) for v, c in zip(values, counts) if c >= min_pixels}


class RenderUnavailable(RuntimeError):
    """No GL context could be created (no EGL/OSMesa), so frames cannot be rendered."""


# -- world access ----------------------------------------------------------------------
def world_render_state(world: World) -> tuple[dict[str, Optional[tuple[float, float, float]]], dict[str, bool], dict[str, str]]:
    """(object id -> centre position or None when out of the world, container id -> open,
    object id -> fixture it rests on or in). Simulator side: reads where things truly are."""
    positions: dict[str, Optional[tuple[float, float, float]]] = {}
    supports: dict[str, str] = {}
    for obj in world.scenario.objects:
        where = world.truth_location(obj.id)
        positions[obj.id] = None if where is None else world.object_position(obj.id)
        if where not in (None, ROBOT):
            supports[obj.id] = where
            fixture = world.scenario.fixture_by_id[where]
            if fixture.is_drawer and world.is_open(where):
                # set_state moves drawer contents with the slide joint: hand it the closed-drawer slot
                x, y, z = positions[obj.id]
                travel = DRAWER_TRAVEL * fixture.size[0]
                positions[obj.id] = (x - travel * math.cos(fixture.pose[2]), y - travel * math.sin(fixture.pose[2]), z)
    open_state = {fx.id: world.is_open(fx.id) for fx in world.scenario.fixtures if fx.is_container}
    return positions, open_state, supports


class Renderer:
    """Renders a scenario's home from any camera pose.

    ``sync(world)`` (or ``set_state``) moves objects and opens/closes containers;
    ``render(camera_pose)`` returns a :class:`Frame` (RGB + depth in one GL pass, the
    segmentation in a second). One GL context and ``MjrContext`` serve every frame.
    """

    def __init__(self, scenario: Scenario, width: int = 640, height: int = 480, fovy: float = 58.0,
                 config: Optional[RenderConfig] = None):
        self.config = config or RenderConfig(width=width, height=height, fovy=fovy)
        self.xml, self.index = build_scene(scenario, self.config)
        self.model = mujoco.MjModel.from_xml_string(self.xml)
        self.data = mujoco.MjData(self.model)
        self.intrinsics = CameraIntrinsics.from_fovy(self.config.width, self.config.height, self.config.fovy)
        m = self.model
        self._body_mocap = {name: int(m.body_mocapid[m.body(name).id]) for name in self.index.object_body.values()}
        self._camera_mocap = int(m.body_mocapid[m.body("robot_camera").id])
        self._camera_id = m.camera("robot_camera").id
        self._joints = {fid: (int(m.jnt_qposadr[m.joint(j).id]), kind, open_q)
                        for fid, (j, kind, open_q) in self.index.container_joint.items()}
        # geom id -> instance value (-1 for floor, walls)
        body_value = np.full(m.nbody, BACKGROUND, dtype=np.int32)
        for name, value in self.index.body_value.items():
            body_value[m.body(name).id] = value
        self._geom_value = body_value[m.geom_bodyid]
        self.seg_ids = dict(enumerate(self.index.instance_ids))
        self.labels = dict(enumerate(self.index.labels))
        self.kinds = dict(enumerate(self.index.kinds))
        self._lock = threading.Lock()
        self._pool = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="mnemo-render")
        self._gl: Any = None
        self._ctx: Any = None
        try:
            self._pool.submit(self._init_gl).result()
        except Exception as exc:
            self._pool.shutdown(wait=False)
            raise RenderUnavailable(f"cannot create a {os.environ.get('MUJOCO_GL')} GL context "
                                    f"({type(exc).__name__}: {exc}); set MUJOCO_GL=osmesa or egl") from exc
        mujoco.mj_kinematics(m, self.data)

    # GL state lives on the worker thread only.
    def _init_gl(self) -> None:
        w, h = self.config.width, self.config.height
        self._gl = mujoco.GLContext(w, h)
        self._gl.make_current()
        self._ctx = mujoco.MjrContext(self.model, mujoco.mjtFontScale.mjFONTSCALE_100)
        mujoco.mjr_setBuffer(mujoco.mjtFramebuffer.mjFB_OFFSCREEN, self._ctx)
        self._ctx.readDepthMap = mujoco.mjtDepthMap.mjDEPTH_ZEROFAR
        self._scene = mujoco.MjvScene(self.model, maxgeom=max(1000, 2 * self.model.ngeom))
        self._option = mujoco.MjvOption()
        self._perturb = mujoco.MjvPerturb()
        self._cam = mujoco.MjvCamera()
        self._cam.type = mujoco.mjtCamera.mjCAMERA_FIXED
        self._cam.fixedcamid = self._camera_id
        self._rect = mujoco.MjrRect(0, 0, w, h)
        self._rgb = np.empty((h, w, 3), np.uint8)
        self._raw_depth = np.empty((h, w), np.float32)
        self._seg_rgb = np.empty((h, w, 3), np.uint8)

    # -- state -----------------------------------------------------------------------
    def set_state(self, positions: Mapping[str, Optional[Iterable[float]]],
                  open_state: Mapping[str, Any] = {}, supports: Mapping[str, str] = {}) -> None:
        """Place objects (centre positions; None parks the object out of sight) and set
        containers open (True, or a fraction in [0, 1]) or closed. Objects resting in a
        drawer move out with it."""
        with self._lock:
            d = self.data
            for fid, (adr, _kind, open_q) in self._joints.items():
                if fid in open_state:
                    d.qpos[adr] = open_q * min(max(float(open_state[fid]), 0.0), 1.0)
            for oid, pos in positions.items():
                body = self.index.object_body.get(oid)
                if body is None:
                    continue
                mocap = self._body_mocap[body]
                if pos is None:
                    d.mocap_pos[mocap] = (0.0, 0.0, PARKED_Z)
                    continue
                p = np.array([float(v) for v in list(pos)[:3]])
                support = supports.get(oid, "")
                # The world lays objects out in their fixture's frame: turn them with it.
                yaw = self.index.fixture_frame[support][2] if support in self.index.fixture_frame else 0.0
                joint = self._joints.get(support)
                if joint is not None and joint[1] == "slide":
                    p[:2] += d.qpos[joint[0]] * np.array([math.cos(yaw), math.sin(yaw)])
                d.mocap_pos[mocap] = p
                d.mocap_quat[mocap] = (math.cos(yaw / 2), 0.0, 0.0, math.sin(yaw / 2))
            mujoco.mj_kinematics(self.model, d)

    def sync(self, world: World) -> None:
        """Match the picture to the world: object positions and container doors."""
        positions, open_state, supports = world_render_state(world)
        self.set_state(positions, open_state, supports)

    def joint_opening(self, fixture_id: str) -> float:
        """Current opening of a container's door/drawer joint (rad or m; 0 closed)."""
        adr, _kind, _ = self._joints[fixture_id]
        return float(abs(self.data.qpos[adr]))

    # -- rendering -------------------------------------------------------------------
    def render(self, camera_pose: Pose3D, stamp: float = 0.0, segmentation: bool = True) -> Frame:
        """Render RGB, depth and (unless disabled) segmentation from an optical-frame pose."""
        if not camera_pose.is_finite():
            raise ValueError(f"camera pose must be finite, got {camera_pose}")
        return self._pool.submit(self._render, camera_pose, stamp, segmentation).result()

    def _render(self, pose: Pose3D, stamp: float, segmentation: bool) -> Frame:
        m, d = self.model, self.data
        with self._lock:
            d.mocap_pos[self._camera_mocap] = pose.position
            d.mocap_quat[self._camera_mocap] = mujoco_camera_quat(pose)
            mujoco.mj_kinematics(m, d)
            mujoco.mj_camlight(m, d)
            mujoco.mjv_updateScene(m, d, self._option, self._perturb, self._cam,
                                   mujoco.mjtCatBit.mjCAT_ALL, self._scene)
        scn = self._scene
        flags = mujoco.mjtRndFlag
        for flag in (flags.mjRND_SHADOW, flags.mjRND_REFLECTION, flags.mjRND_SKYBOX, flags.mjRND_HAZE):
            scn.flags[flag] = 0
        scn.flags[flags.mjRND_SEGMENT] = 0
        scn.flags[flags.mjRND_IDCOLOR] = 0
        mujoco.mjr_render(self._rect, scn, self._ctx)
        mujoco.mjr_readPixels(self._rgb, self._raw_depth, self._rect, self._ctx)
        rgb = np.flipud(self._rgb).copy()
        depth = self._metric_depth(np.flipud(self._raw_depth))
        if segmentation:
            scn.flags[flags.mjRND_SEGMENT] = 1
            scn.flags[flags.mjRND_IDCOLOR] = 1
            mujoco.mjr_render(self._rect, scn, self._ctx)
            mujoco.mjr_readPixels(self._seg_rgb, None, self._rect, self._ctx)
            scn.flags[flags.mjRND_SEGMENT] = 0
            scn.flags[flags.mjRND_IDCOLOR] = 0
            seg = self._decode_segmentation(np.flipud(self._seg_rgb))
        else:
            seg = np.full(depth.shape, BACKGROUND, np.int32)
        return Frame(rgb=rgb, depth=depth, seg=seg, seg_ids=self.seg_ids, labels=self.labels, kinds=self.kinds,
                     intrinsics=self.intrinsics, camera_pose=pose, stamp=stamp)

    def _metric_depth(self, raw: np.ndarray) -> np.ndarray:
        """Reversed-Z depth buffer ([1 near, 0 far]) -> metres along the optical axis.

        With reversed Z the buffer holds near * (far - z) / (z * (far - near)) for eye depth z,
        whose inverse is well conditioned in float32 (unlike the classic mapping)."""
        extent = self.model.stat.extent
        near, far = np.float32(self.model.vis.map.znear * extent), np.float32(self.model.vis.map.zfar * extent)
        with np.errstate(divide="ignore"):
            z = (near * far) / (raw * (far - near) + near)
        z[raw <= 0.0] = np.nan
        return z

    def _decode_segmentation(self, seg_rgb: np.ndarray) -> np.ndarray:
        """IDCOLOR pixels (scene geom segid + 1, little-endian RGB) -> instance values."""
        scn = self._scene
        ngeom = scn.ngeom
        lut = np.full(max(ngeom + 2, 256), BACKGROUND, np.int32)
        geom_type = int(mujoco.mjtObj.mjOBJ_GEOM)
        for i in range(ngeom):
            g = scn.geoms[i]
            if g.segid >= 0 and g.objtype == geom_type and 0 <= g.objid < len(self._geom_value):
                lut[g.segid + 1] = self._geom_value[g.objid]
        if ngeom + 1 < 256:  # every id fits the red channel
            return lut[seg_rgb[..., 0]]
        code = (seg_rgb[..., 0].astype(np.int32) | (seg_rgb[..., 1].astype(np.int32) << 8)
                | (seg_rgb[..., 2].astype(np.int32) << 16))
        np.clip(code, 0, ngeom + 1, out=code)
        return lut[code]

    def close(self) -> None:
        if self._pool is None:
            return

        def release() -> None:
            if self._ctx is not None:
                self._ctx.free()
                self._ctx = None
            if self._gl is not None:
                self._gl.free()
                self._gl = None

        try:
            self._pool.submit(release).result()
        finally:
            self._pool.shutdown(wait=True)
            self._pool = None  # type: ignore[assignment]

    def __enter__(self) -> "Renderer":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
