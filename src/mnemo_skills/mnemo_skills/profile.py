"""Robot profiles: how each primitive moves a given robot, read from a YAML file.

A profile names the robot's controller actions and joints, its gripper, and for each primitive a
list of phases, each a list of steps. Step forms:

    {motion: prepare_grasp}                      # play a pre-recorded motion (play_motion2)
    {controller: arm, positions: [...], duration: 3.0}
    {controller: arm, points: [{positions: [...], time: 1.0}, ...]}
    {gripper: open} / {gripper: close}           # through the gripper's controller or command action
    {torso: target}                              # lift the torso to the target's height

Phases per primitive (all optional except where the primitive needs a grasp):
    open/close/pick: reach, grasp, actuate, retreat      place: reach, release, retreat
    peek: look, retreat

An optional ``look`` section points a pan-tilt head at the fixture the robot has driven to, so
the camera sees what lies on (or, once opened, in) it::

    look: {controller: head, camera_height: 1.05, tilt_down: -1, pan_limits: [-1.2, 1.2],
           tilt_limits: [-1.0, 0.7], duration: 1.0}
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional, Union

import yaml

from mnemo_skills.ports import TrajectoryPoint

PHASES: dict[str, tuple[str, ...]] = {
    "open": ("reach", "grasp", "actuate", "retreat"),
    "close": ("reach", "grasp", "actuate", "retreat"),
    "pick": ("reach", "grasp", "actuate", "retreat"),
    "place": ("reach", "release", "retreat"),
    "peek": ("look", "retreat"),
}


class ProfileError(ValueError):
    """A robot profile that cannot be used; the message names the file and the field."""


@dataclass(frozen=True)
class Controller:
    action: str
    joints: tuple[str, ...]


@dataclass(frozen=True)
class Gripper:
    joints: tuple[str, ...]
    open_position: float
    closed_position: float
    controller: str = ""  # key of `controllers` (FollowJointTrajectory), or
    command_action: str = ""  # a control_msgs/GripperCommand action
    max_effort: float = 0.0
    duration: float = 1.0
    contact_below: float = 0.9  # closure under this after closing: the fingers hold something

    def closure(self, position: float) -> float:
        span = self.open_position - self.closed_position
        if span == 0:
            return 0.0
        return min(1.0, max(0.0, (self.open_position - position) / span))


@dataclass(frozen=True)
class Torso:
    controller: str
    offset: float  # torso position = target height - offset
    minimum: float
    maximum: float
    duration: float = 2.0

    def position_for(self, height: float) -> float:
        return min(self.maximum, max(self.minimum, height - self.offset))


@dataclass(frozen=True)
class Look:
    """A pan-tilt head: one controller whose two joints are pan then tilt."""

    controller: str
    camera_height: float  # m above the floor of the camera with the torso down (the torso adds its lift)
    tilt_down: float = 1.0  # +1: a positive tilt looks down; -1: a negative tilt does
    pan_limits: tuple[float, float] = (-math.pi, math.pi)
    tilt_limits: tuple[float, float] = (-math.pi / 2, math.pi / 2)
    duration: float = 1.0


@dataclass(frozen=True)
class MotionStep:
    motion: str


@dataclass(frozen=True)
class TrajectoryStep:
    controller: str
    points: tuple[TrajectoryPoint, ...]


@dataclass(frozen=True)
class GripperStep:
    close: bool


@dataclass(frozen=True)
class TorsoStep:
    pass


Step = Union[MotionStep, TrajectoryStep, GripperStep, TorsoStep]


@dataclass(frozen=True)
class RobotProfile:
    robot: str
    controllers: dict[str, Controller] = field(default_factory=dict)
    gripper: Optional[Gripper] = None
    torso: Optional[Torso] = None
    look: Optional[Look] = None
    motion_action: str = "/play_motion2"
    hand_frame: str = ""
    min_fixture_displacement: float = 0.05
    primitives: dict[str, dict[str, tuple[Step, ...]]] = field(default_factory=dict)

    def phase(self, primitive: str, name: str) -> tuple[Step, ...]:
        return self.primitives.get(primitive, {}).get(name, ())

    def supports(self, primitive: str) -> bool:
        return primitive in self.primitives


def _require(d: dict, key: str, where: str) -> Any:
    if key not in d:
        raise ProfileError(f"{where}: missing '{key}'")
    return d[key]


def _floats(values: Any, where: str) -> tuple[float, ...]:
    if not isinstance(values, list) or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
        raise ProfileError(f"{where}: expected a list of numbers, got {values!r}")
    return tuple(float(v) for v in values)


def _step(raw: Any, where: str, controllers: dict[str, Controller], profile_has: dict[str, bool]) -> Step:
    if not isinstance(raw, dict) or not raw:
        raise ProfileError(f"{where}: a step is a mapping such as {{motion: home}}, got {raw!r}")
    if "motion" in raw:
        if not profile_has["motions"]:
            raise ProfileError(f"{where}: motion step but the profile has no motion_action")
        return MotionStep(str(raw["motion"]))
    if "gripper" in raw:
        if raw["gripper"] not in ("open", "close"):
            raise ProfileError(f"{where}: gripper must be 'open' or 'close', got {raw['gripper']!r}")
        if not profile_has["gripper"]:
            raise ProfileError(f"{where}: gripper step but the profile has no gripper")
        return GripperStep(raw["gripper"] == "close")
    if "torso" in raw:
        if raw["torso"] != "target":
            raise ProfileError(f"{where}: torso step takes 'target', got {raw['torso']!r}")
        if not profile_has["torso"]:
            raise ProfileError(f"{where}: torso step but the profile has no torso")
        return TorsoStep()
    if "controller" in raw:
        name = raw["controller"]
        if name not in controllers:
            raise ProfileError(f"{where}: unknown controller {name!r} (known: {sorted(controllers)})")
        n = len(controllers[name].joints)
        if "points" in raw:
            pts = []
            for i, p in enumerate(raw["points"] or []):
                pw = f"{where}.points[{i}]"
                pos = _floats(_require(p, "positions", pw), pw + ".positions")
                pts.append(TrajectoryPoint(pos, float(_require(p, "time", pw))))
        else:
            pos = _floats(_require(raw, "positions", where), where + ".positions")
            pts = [TrajectoryPoint(pos, float(raw.get("duration", 2.0)))]
        for i, p in enumerate(pts):
            if len(p.positions) != n:
                raise ProfileError(f"{where}: point {i} has {len(p.positions)} positions, controller {name!r} has {n} joints")
        if not pts:
            raise ProfileError(f"{where}: trajectory without points")
        return TrajectoryStep(name, tuple(pts))
    raise ProfileError(f"{where}: unknown step {sorted(raw)}; use motion, controller, gripper or torso")


def _limits(values: Any, where: str, default: tuple[float, float]) -> tuple[float, float]:
    if values is None:
        return default
    lo_hi = _floats(values, where)
    if len(lo_hi) != 2 or not lo_hi[0] < lo_hi[1]:
        raise ProfileError(f"{where}: expected [lower, upper] with lower < upper, got {values!r}")
    return lo_hi[0], lo_hi[1]


def _look(raw: Any, where: str, controllers: dict[str, Controller]) -> Look:
    if not isinstance(raw, dict):
        raise ProfileError(f"{where}: expected a mapping with controller and camera_height")
    name = str(_require(raw, "controller", where))
    if name not in controllers or len(controllers[name].joints) != 2:
        raise ProfileError(f"{where}: controller must name a two-joint (pan, tilt) controller, got {name!r}")
    height = _floats([_require(raw, "camera_height", where)], where + ".camera_height")[0]
    tilt_down = _floats([raw.get("tilt_down", 1.0)], where + ".tilt_down")[0]
    if tilt_down not in (1.0, -1.0) or not 0.0 < height < 5.0:
        raise ProfileError(f"{where}: tilt_down must be 1 or -1 and camera_height in (0, 5) m")
    return Look(controller=name, camera_height=height, tilt_down=tilt_down,
                pan_limits=_limits(raw.get("pan_limits"), where + ".pan_limits", (-math.pi, math.pi)),
                tilt_limits=_limits(raw.get("tilt_limits"), where + ".tilt_limits", (-math.pi / 2, math.pi / 2)),
                duration=_floats([raw.get("duration", 1.0)], where + ".duration")[0])


def parse_profile(data: Any, source: str = "<profile>") -> RobotProfile:
    if not isinstance(data, dict):
        raise ProfileError(f"{source}: a profile is a mapping")
    robot = str(_require(data, "robot", source))
    controllers = {}
    for name, c in (data.get("controllers") or {}).items():
        where = f"{source}: controllers.{name}"
        if not isinstance(c, dict):
            raise ProfileError(f"{where}: expected a mapping with action and joints")
        controllers[name] = Controller(str(_require(c, "action", where)),
                                       tuple(str(j) for j in _require(c, "joints", where)))
    gripper = None
    if data.get("gripper"):
        g, where = data["gripper"], f"{source}: gripper"
        gripper = Gripper(joints=tuple(str(j) for j in _require(g, "joints", where)),
                          open_position=float(_require(g, "open_position", where)),
                          closed_position=float(_require(g, "closed_position", where)),
                          controller=str(g.get("controller", "")), command_action=str(g.get("command_action", "")),
                          max_effort=float(g.get("max_effort", 0.0)), duration=float(g.get("duration", 1.0)),
                          contact_below=float(g.get("contact_below", 0.9)))
        if bool(gripper.controller) == bool(gripper.command_action):
            raise ProfileError(f"{where}: give exactly one of 'controller' or 'command_action'")
        if gripper.controller and gripper.controller not in controllers:
            raise ProfileError(f"{where}: unknown controller {gripper.controller!r}")
    torso = None
    if data.get("torso"):
        t, where = data["torso"], f"{source}: torso"
        torso = Torso(controller=str(_require(t, "controller", where)), offset=float(_require(t, "offset", where)),
                      minimum=float(_require(t, "min", where)), maximum=float(_require(t, "max", where)),
                      duration=float(t.get("duration", 2.0)))
        if torso.controller not in controllers or len(controllers[torso.controller].joints) != 1:
            raise ProfileError(f"{where}: controller must name a one-joint controller")
    look = _look(data.get("look"), f"{source}: look", controllers) if data.get("look") else None
    motion_action = str(data.get("motion_action", ""))
    has = {"motions": bool(motion_action), "gripper": gripper is not None, "torso": torso is not None}
    primitives: dict[str, dict[str, tuple[Step, ...]]] = {}
    for prim, phases in (data.get("primitives") or {}).items():
        if prim not in PHASES:
            raise ProfileError(f"{source}: primitives.{prim}: unknown primitive (known: {sorted(PHASES)})")
        primitives[prim] = {}
        for phase, steps in (phases or {}).items():
            where = f"{source}: primitives.{prim}.{phase}"
            if phase not in PHASES[prim]:
                raise ProfileError(f"{where}: unknown phase (phases of {prim}: {list(PHASES[prim])})")
            primitives[prim][phase] = tuple(_step(s, f"{where}[{i}]", controllers, has) for i, s in enumerate(steps or []))
        if prim in ("open", "close", "pick") and gripper is None:
            raise ProfileError(f"{source}: primitives.{prim} needs a gripper")
    return RobotProfile(robot=robot, controllers=controllers, gripper=gripper, torso=torso, look=look,
                        motion_action=motion_action, hand_frame=str(data.get("hand_frame", "")),
                        min_fixture_displacement=float(data.get("min_fixture_displacement", 0.05)),
                        primitives=primitives)


def load_profile(path: Union[str, Path]) -> RobotProfile:
    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text())
    except OSError as exc:
        raise ProfileError(f"{path}: cannot read robot profile ({exc})") from exc
    except yaml.YAMLError as exc:
        raise ProfileError(f"{path}: not valid YAML ({exc})") from exc
    return parse_profile(data, str(path))
