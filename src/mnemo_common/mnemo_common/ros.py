"""ROS-side helpers shared by every mnemo node: main(), parameters, and conversions of the
common types. Only thin nodes import this module; cores never do.
"""
from __future__ import annotations

import array
import dataclasses
import functools
import gc
import keyword
import math
import os
import sys
import threading
import time
from typing import Any, Callable, Optional, Type, TypeVar

import numpy as np
import rclpy
from builtin_interfaces.msg import Time as TimeMsg
from geometry_msgs.msg import Point, Pose, Pose2D as Pose2DMsg, PoseStamped, Quaternion
from rcl_interfaces.msg import ParameterDescriptor
from rclpy.executors import ExternalShutdownException, MultiThreadedExecutor, SingleThreadedExecutor
from rclpy.node import Node
from sensor_msgs.msg import CameraInfo, Image

from mnemo_common.geometry import pose2d_from_pose3d
from mnemo_common.limits import check_message, clip
from mnemo_common.types import (
    Detection, InteractionEvent, MemoryFilter, MemoryRecord, MnemoError, Observation, Pose2D, Pose3D, Sighting,
    SkillResult, SkillSignals, Status,
)

T = TypeVar("T")

# Generated message setters only assign (no conversion) unless field checks are on.
_CHECK_FIELDS = os.environ.get("ROS_PYTHON_CHECK_FIELDS", "") == "1"
_PLAIN_TYPES = {"string", "bool", "float", "double", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64",
                "uint64", "char", "octet", "byte", "sequence<string>"}


_MISSING = object()


def msg_builder(cls: Type[T]) -> Callable[..., T]:
    """A constructor for the generated message class ``cls`` taking every field as a keyword.

    The generated ``__init__`` builds a default value for every nested field (a Pose builds a Point
    and a Quaternion) before the caller's value replaces it, and assigns each field through a
    property. This one assigns the fields' slots directly (its code is generated per class, as
    dataclasses does): the messages of a memory answer of 10 records and 30 sightings are built
    5-7x faster (0.07-0.11 ms instead of 0.49-0.55 ms). The result is the message the constructor
    would build with field checks off (the default; the setters then assign the value as given).
    Falls back to ``cls(**fields)`` when field checks are on (ROS_PYTHON_CHECK_FIELDS=1), for
    classes with numeric arrays (their setters convert), when the generated layout is not the
    expected one, or when a field is missing."""
    fields = tuple(cls.get_fields_and_field_types().items())
    slots = tuple(getattr(cls, "__slots__", ()))
    plain = all(t in _PLAIN_TYPES or ("/" in t and "[" not in t) for _, t in fields)  # nested: msg or msg sequence
    names = [f for f, _ in fields]
    usable = all(f.isidentifier() and not keyword.iskeyword(f) and not f.startswith("_") and "_" + f in slots
                 for f in names)
    if _CHECK_FIELDS or not names or not plain or not usable or "_check_fields" not in slots:
        return cls
    params = ", ".join(f"{f}=__missing" for f in names)
    missing = " or ".join(f"{f} is __missing" for f in names)
    given = ", ".join(f"{f!r}: {f}" for f in names)
    assign = "".join(f"    __m._{f} = {f}\n" for f in names)
    source = (f"def build(*, {params}):\n"
              f"    if {missing}:\n"
              f"        return __cls(**{{k: v for k, v in {{{given}}}.items() if v is not __missing}})\n"
              f"    __m = __new(__cls)\n"
              f"    __m._check_fields = False\n"
              f"{assign}"
              f"    return __m\n")
    namespace: dict[str, Any] = {"__missing": _MISSING, "__cls": cls, "__new": cls.__new__}
    exec(compile(source, f"<msg_builder {cls.__module__}.{cls.__name__}>", "exec"), namespace)  # noqa: S102
    return namespace["build"]


# -- main ----------------------------------------------------------------------------
EXIT_GRACE = 10.0  # s a node's clean-up may take once it is asked to stop


def run_node(factory: Callable[[], Node], args: Optional[list[str]] = None, threads: int = 4) -> None:
    """The one main() of every mnemo node: init, spin an executor (multi-threaded unless the node or
    the caller asks for one thread), shut down cleanly. Started by a launcher, the node dies with
    it (PR_SET_PDEATHSIG); a clean-up that hangs ends the process after ``EXIT_GRACE`` seconds."""
    from mnemo_common.processes import EXIT_REFUSED, die_with_parent

    die_with_parent()
    rclpy.init(args=args)
    node = None
    refused = ""
    try:
        try:
            node = factory()
        except MnemoError as exc:
            if exc.code in (Status.UNAVAILABLE, Status.TIMEOUT):
                raise  # (what may pass: a store still held, a server not up yet; a respawn tries again)
            refused = exc.message  # a start refused for a reason the node states: no traceback, no respawn
            return
        threads = int(getattr(node, "executor_threads", threads))  # a node may choose (a parameter)
        # What start-up built (models, libraries, stores) lives as long as the node: moved out of the
        # collector's generations, it is no longer traversed by every collection the callbacks'
        # garbage triggers (memory node, 100k records, 10 nearest over DDS, two alternating pairs:
        # p50 3.0-3.8 ms, mean 3.2-4.1, against 3.3-5.8 and 3.5-6.7 without).
        # No gc.collect() first: with torch loaded it takes ~0.3 s, during which the node is
        # discoverable but not spinning, and a patrol's burst overflowed the subscription's queue.
        gc.freeze()
        executor = MultiThreadedExecutor(num_threads=threads) if threads > 1 else SingleThreadedExecutor()
        executor.add_node(node)
        executor.spin()
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    finally:
        # No orphan, ever: whatever close() waits on, the process is gone after the grace period.
        watchdog = threading.Timer(EXIT_GRACE, os._exit, (1,))
        watchdog.daemon = True
        watchdog.start()
        if node is not None:
            close = getattr(node, "close", None)
            if callable(close):
                close()
            node.destroy_node()
        rclpy.try_shutdown()
        watchdog.cancel()
        if refused:
            print(f"not started: {refused}", file=sys.stderr, flush=True)
            sys.exit(EXIT_REFUSED)


# -- parameters ----------------------------------------------------------------------
def declare_config(node: Node, config_type: Type[T], descriptions: dict[str, str], prefix: str = "") -> T:
    """Declare one parameter per field of a frozen config dataclass (its default as default)
    and read them once into an instance of it."""
    values: dict[str, Any] = {}
    for f in dataclasses.fields(config_type):
        default = f.default if f.default is not dataclasses.MISSING else f.default_factory()  # type: ignore[misc]
        if isinstance(default, tuple):
            default = list(default)
        name = prefix + f.name
        # An empty list default has no element type; without dynamic typing rclpy would fix it to
        # BYTE_ARRAY and reject a string list from a parameters file.
        descriptor = ParameterDescriptor(description=descriptions.get(f.name, f.name.replace("_", " ")),
                                         dynamic_typing=isinstance(default, list) and not default)
        value = node.declare_parameter(name, default, descriptor).value
        if isinstance(f.default, tuple) and isinstance(value, list):
            value = tuple(value)
        values[f.name] = value
    return config_type(**values)


# -- status --------------------------------------------------------------------------
def fill_error(response: Any, error: Optional[BaseException]) -> Any:
    """Set error_code/error_msg on a response from an exception (None means OK)."""
    if error is None:
        response.error_code = int(Status.OK)
        response.error_msg = ""
    elif isinstance(error, MnemoError):
        response.error_code = int(error.code)
        response.error_msg = error.message
    elif isinstance(error, (ValueError, TypeError, KeyError)):
        response.error_code = int(Status.INVALID_ARGUMENT)
        response.error_msg = str(error)
    else:
        response.error_code = int(Status.INTERNAL)
        response.error_msg = f"{type(error).__name__}: {error}"
    return response


def guarded(node: Node, handler: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    """Wrap a service handler so any exception becomes an error response, never a crash; a
    request beyond mnemo_common.limits is answered INVALID_ARGUMENT before the handler runs."""

    def wrapper(request: Any, response: Any) -> Any:
        try:
            check_message(request)
            result = handler(request, response)
            return fill_error(result if result is not None else response, None)
        except Exception as exc:  # noqa: BLE001 - the node must keep serving
            if not isinstance(exc, (MnemoError, ValueError, TypeError, KeyError)):
                node.get_logger().error(f"service handler failed: {type(exc).__name__}: {clip(str(exc))}")
            return fill_error(response, exc)

    return wrapper


# -- graph ---------------------------------------------------------------------------
def service_servers(node: Node, service: str) -> frozenset:
    """Ids of the endpoints serving ``service`` (the readers of its request topic, as the DDS
    RMWs name it). A server that was killed stays listed until its lease expires (seconds), while
    its restarted successor appears at once with a new id: a changed set tells a caller waiting for
    an answer that the request it sent was lost."""
    infos = node.get_subscriptions_info_by_topic(f"rq{service}Request", no_mangle=True)
    return frozenset(bytes(info.endpoint_gid) for info in infos)


class ServerWatch:
    """Watches who serves ``service`` while a caller waits for an answer: ``lost()`` names why the
    answer will never come (the server "went away", or "restarted": a successor appeared, the
    request died with its predecessor), else None. Looks at the graph at most every ``period`` s."""

    def __init__(self, node: Node, service: str, period: float = 0.25):
        self.node, self.service, self.period = node, service, period
        self.servers = service_servers(node, service)
        self._look = time.monotonic()

    def lost(self) -> Optional[str]:
        if time.monotonic() - self._look < self.period:
            return None
        self._look = time.monotonic()
        now = service_servers(self.node, self.service)
        if not now:
            return "went away"
        return "restarted" if now - self.servers else None


def action_client(node: Node, action_type: Any, name: str, **kwargs: Any) -> Any:
    """An ActionClient that is safe to create while another thread spins ``node``.

    rclpy's ActionClient registers itself with the node before it creates its lock; an executor
    thread that builds its wait set in that moment raises AttributeError and its spin thread dies,
    so every later call on that node waits forever. The lock is made before registration here."""
    from rclpy.action import ActionClient

    class _LockedFirst(ActionClient):
        def __init__(self, *args: Any, **kw: Any) -> None:
            self._lock = threading.Lock()
            super().__init__(*args, **kw)

    return _LockedFirst(node, action_type, name, **kwargs)


# -- time ----------------------------------------------------------------------------
def time_to_msg(seconds: float) -> TimeMsg:
    if not math.isfinite(seconds):
        raise ValueError(f"time must be finite, got {seconds}")
    nanos = int(round(seconds * 1e9))
    return _time(sec=nanos // 1_000_000_000, nanosec=nanos % 1_000_000_000)


def time_from_msg(msg: TimeMsg) -> float:
    return rclpy.time.Time.from_msg(msg).nanoseconds / 1e9


# -- geometry ------------------------------------------------------------------------
_pose2d = msg_builder(Pose2DMsg)
_point = msg_builder(Point)
_quaternion = msg_builder(Quaternion)
_pose = msg_builder(Pose)
_time = msg_builder(TimeMsg)


def pose2d_to_msg(p: Optional[Pose2D]) -> Pose2DMsg:
    if p is None:
        return Pose2DMsg()
    return _pose2d(x=float(p.x), y=float(p.y), theta=float(p.yaw))


def pose2d_from_msg(m: Pose2DMsg) -> Pose2D:
    return Pose2D(m.x, m.y, m.theta)


def pose3d_to_msg(p: Pose3D) -> Pose:
    (px, py, pz), (qx, qy, qz, qw) = p.position, p.orientation
    return _pose(position=_point(x=float(px), y=float(py), z=float(pz)),
                 orientation=_quaternion(x=float(qx), y=float(qy), z=float(qz), w=float(qw)))


def pose3d_from_msg(m: Pose) -> Pose3D:
    return Pose3D((m.position.x, m.position.y, m.position.z),
                  (m.orientation.x, m.orientation.y, m.orientation.z, m.orientation.w))


def pose_stamped_to_msg(pose: Pose3D, stamp: float, frame_id: str = "map") -> PoseStamped:
    msg = PoseStamped(pose=pose3d_to_msg(pose))
    msg.header.stamp = time_to_msg(stamp)
    msg.header.frame_id = frame_id
    return msg


def pose_stamped_from_msg(msg: PoseStamped) -> tuple[float, Pose3D]:
    """(stamp in seconds, pose)."""
    return time_from_msg(msg.header.stamp), pose3d_from_msg(msg.pose)


def robot_pose_from_msg(msg: PoseStamped) -> tuple[float, Pose2D]:
    """(stamp in seconds, planar pose): a base pose in the map frame as the robot's Pose2D."""
    stamp, pose = pose_stamped_from_msg(msg)
    return stamp, pose2d_from_pose3d(pose)


def point_to_msg(p: tuple[float, float, float]) -> Point:
    return _point(x=float(p[0]), y=float(p[1]), z=float(p[2]))


def point_from_msg(m: Point) -> tuple[float, float, float]:
    return (m.x, m.y, m.z)


def kv_to_msgs(d: dict[str, str]) -> list:
    from mnemo_interfaces.msg import KeyValue

    return [KeyValue(key=str(k), value=str(v)) for k, v in d.items()]


def kv_from_msgs(items: list) -> dict[str, str]:
    return {kv.key: kv.value for kv in items}


# -- common messages -----------------------------------------------------------------
@functools.lru_cache(maxsize=None)
def _interface_builder(name: str) -> Callable[..., Any]:
    """msg_builder of a mnemo_interfaces message (imported on first use: nodes that never send one
    do not need the package built)."""
    import mnemo_interfaces.msg

    return msg_builder(getattr(mnemo_interfaces.msg, name))


def sighting_to_msg(s: Sighting):
    attrs = s.attributes
    return _interface_builder("Sighting")(
        label=s.label, kind=s.kind, object_id=s.object_id,
        attribute_keys=[str(k) for k in attrs], attribute_values=[str(v) for v in attrs.values()],
        position=point_to_msg(s.position), support=s.support, relation=s.relation, score=float(s.score))


def sighting_from_msg(m) -> Sighting:
    keys, values = m.attribute_keys, m.attribute_values
    if len(keys) != len(values):
        raise ValueError(f"sighting {m.label!r}: {len(keys)} attribute_keys but {len(values)} attribute_values")
    return Sighting(label=m.label, kind=m.kind, position=point_from_msg(m.position), attributes=dict(zip(keys, values)),
                    object_id=m.object_id, support=m.support, relation=m.relation, score=m.score)


def observation_to_msg(o: Observation, frame_id: str = "map"):
    from mnemo_interfaces.msg import Observation as ObservationMsg

    msg = ObservationMsg()
    msg.header.stamp = time_to_msg(o.stamp)
    msg.header.frame_id = frame_id
    msg.seq = int(o.seq)
    msg.robot_pose = pose2d_to_msg(o.robot_pose)
    msg.camera_pose = pose3d_to_msg(o.camera_pose)
    msg.room = o.room
    msg.sightings = [sighting_to_msg(s) for s in o.sightings]
    msg.caption = o.caption
    msg.image_ref = o.image_ref
    return msg


def observation_from_msg(m) -> Observation:
    return Observation(stamp=time_from_msg(m.header.stamp), robot_pose=pose2d_from_msg(m.robot_pose),
                       camera_pose=pose3d_from_msg(m.camera_pose), room=m.room,
                       sightings=[sighting_from_msg(s) for s in m.sightings], caption=m.caption,
                       image_ref=m.image_ref, seq=m.seq)


def memory_record_to_msg(r: MemoryRecord):
    return _interface_builder("MemoryRecord")(
        id=r.id, stamp=time_to_msg(r.stamp), robot_pose=pose2d_to_msg(r.robot_pose),
        camera_pose=pose3d_to_msg(r.camera_pose), room=r.room, caption=r.caption, labels=list(r.labels),
        sightings=[sighting_to_msg(s) for s in r.sightings], raw_ref=r.raw_ref, score=float(r.score),
        **memory_record_span_fields(r))


def memory_record_span_fields(r: MemoryRecord) -> dict:
    """The MemoryRecord message fields of compaction and of the matched sighting."""
    return {"count": int(r.count), "last_stamp": time_to_msg(r.last_stamp or 0.0), "raw_ref_last": r.raw_ref_last,
            "matched_sighting": int(r.matched_sighting)}


def memory_record_from_msg(m) -> MemoryRecord:
    """The message carries no embedding: the record comes back without one."""
    last = time_from_msg(m.last_stamp)
    return MemoryRecord(id=m.id, stamp=time_from_msg(m.stamp), robot_pose=pose2d_from_msg(m.robot_pose),
                        camera_pose=pose3d_from_msg(m.camera_pose), caption=m.caption, room=m.room,
                        labels=list(m.labels), sightings=[sighting_from_msg(s) for s in m.sightings],
                        raw_ref=m.raw_ref, score=float(m.score), last_stamp=last or None,
                        count=max(1, int(m.count)), raw_ref_last=m.raw_ref_last,
                        matched_sighting=int(m.matched_sighting))


def detection_to_msg(d: Detection):
    from mnemo_interfaces.msg import Detection as DetectionMsg

    return DetectionMsg(label=d.label, kind=d.kind, score=float(d.score), box_2d=[float(v) for v in d.box_2d],
                        mask_area=int(d.mask_area), centroid=point_to_msg(d.centroid),
                        box_min=point_to_msg(d.box_min), box_max=point_to_msg(d.box_max),
                        attributes=kv_to_msgs(d.attributes), instance_id=d.instance_id, node_id=d.node_id)


def detection_from_msg(m) -> Detection:
    return Detection(label=m.label, kind=m.kind, score=m.score, box_2d=tuple(float(v) for v in m.box_2d),
                     mask_area=m.mask_area, centroid=point_from_msg(m.centroid), box_min=point_from_msg(m.box_min),
                     box_max=point_from_msg(m.box_max), attributes=kv_from_msgs(m.attributes),
                     instance_id=m.instance_id, node_id=m.node_id)


def signals_to_msg(s: SkillSignals):
    from mnemo_interfaces.msg import SkillSignals as SignalsMsg

    return SignalsMsg(contact=bool(s.contact), joint_displacement=float(s.joint_displacement),
                      gripper_closure=float(s.gripper_closure), gripper_effort=float(s.gripper_effort),
                      duration=float(s.duration))


def signals_from_msg(m) -> SkillSignals:
    return SkillSignals(m.contact, m.joint_displacement, m.gripper_closure, m.gripper_effort, m.duration)


def memory_filter_to_msg(f: MemoryFilter):
    from mnemo_interfaces.msg import MemoryFilter as FilterMsg

    msg = FilterMsg(room=f.room, labels=list(f.labels))
    if f.since is not None or f.until is not None:
        msg.use_time_range = True
        msg.since = time_to_msg(f.since if f.since is not None else 0.0)
        msg.until = time_to_msg(f.until if f.until is not None else 4e9)
    if f.near is not None:
        msg.use_region = True
        msg.x, msg.y = float(f.near[0]), float(f.near[1])
        msg.radius = float(f.radius)
    return msg


def memory_filter_from_msg(m) -> MemoryFilter:
    f = MemoryFilter(room=m.room, labels=list(m.labels))
    if m.use_time_range:
        f.since, f.until = time_from_msg(m.since), time_from_msg(m.until)
    if m.use_region:
        f.near, f.radius = (m.x, m.y), m.radius
    return f


def interaction_to_msg(event: InteractionEvent):
    from mnemo_interfaces.msg import InteractionEvent as InteractionEventMsg

    return InteractionEventMsg(
        id=event.id, action=event.action, target=event.target, start=time_to_msg(event.start),
        end=time_to_msg(event.end), success=bool(event.success), error_code=int(event.code), message=event.message,
        signals=signals_to_msg(event.signals), seen_contents=list(event.seen_contents), picked_id=event.picked_id,
        frame_refs=list(event.frame_refs), robot_pose=pose2d_to_msg(event.robot_pose))


def interaction_from_msg(msg) -> InteractionEvent:
    """An error code this build does not know becomes FAILED rather than an exception in a subscriber."""
    code = Status(msg.error_code) if msg.error_code in Status._value2member_map_ else Status.FAILED
    return InteractionEvent(
        id=msg.id, action=msg.action, target=msg.target, start=time_from_msg(msg.start), end=time_from_msg(msg.end),
        success=msg.success, code=code, message=msg.message, signals=signals_from_msg(msg.signals),
        seen_contents=list(msg.seen_contents), picked_id=msg.picked_id, frame_refs=list(msg.frame_refs),
        robot_pose=pose2d_from_msg(msg.robot_pose))


# -- skill responses -----------------------------------------------------------------
def fill_skill_response(response: Any, result: SkillResult) -> Any:
    """Copy a skill's outcome into any of the skill services' responses (the fields each one has).

    error_code/error_msg are left to the service wrapper (``guarded``): a handler calls
    ``raise_for_failure(result)`` after this, so the fields filled here still reach the caller."""
    fields = type(response).get_fields_and_field_types()
    response.result_code = int(result.outcome)
    if "reachable_from" in fields:
        response.reachable_from = result.reachable_from
    if "signals" in fields:
        response.signals = signals_to_msg(result.signals)
    if "interaction_id" in fields:
        response.interaction_id = result.interaction_id
    if "robot_pose" in fields and result.robot_pose is not None:
        response.robot_pose = pose2d_to_msg(result.robot_pose)
    if "at_fixture" in fields:
        response.at_fixture = result.at_fixture
    if "room" in fields:
        response.room = result.room
    if "duration" in fields:
        response.duration = float(result.signals.duration)
    if "detections" in fields:
        response.detections = [detection_to_msg(d) for d in result.detections]
    if "contents" in fields:
        response.contents = [detection_to_msg(d) for d in result.detections]
    if "picked_id" in fields:
        response.picked_id = result.picked_id
    if "picked_label" in fields:
        response.picked_label = result.picked_label
    if "placed_id" in fields:
        response.placed_id = result.picked_id
    return response


def raise_for_failure(result: SkillResult) -> None:
    """Raise a failed skill's status as MnemoError (FAILED when it carries none) for ``guarded``."""
    if not result.success:
        raise MnemoError(result.code if result.code != Status.OK else Status.FAILED, result.message)


def skill_result_from_response(skill: str, target: str, response: Any) -> SkillResult:
    """The caller's view of a skill response."""
    fields = type(response).get_fields_and_field_types()
    detections = [detection_from_msg(d)
                  for d in (getattr(response, "detections", None) or getattr(response, "contents", None) or [])]
    result = SkillResult(skill=skill, target=target, success=response.error_code == Status.OK,
                         code=Status(response.error_code), message=response.error_msg, detections=detections,
                         outcome=int(response.result_code), reachable_from=getattr(response, "reachable_from", ""))
    if "signals" in fields:
        result.signals = signals_from_msg(response.signals)
    if "duration" in fields:
        result.signals.duration = float(response.duration)
    if "robot_pose" in fields:
        result.robot_pose = pose2d_from_msg(response.robot_pose)
    result.at_fixture = getattr(response, "at_fixture", "")
    result.room = getattr(response, "room", "")
    result.interaction_id = getattr(response, "interaction_id", "")
    result.picked_id = getattr(response, "picked_id", "") or getattr(response, "placed_id", "")
    result.picked_label = getattr(response, "picked_label", "")
    return result


# -- images --------------------------------------------------------------------------
# encoding -> (numpy dtype, channels)
IMAGE_ENCODINGS = {
    "rgb8": (np.uint8, 3), "bgr8": (np.uint8, 3), "rgba8": (np.uint8, 4), "bgra8": (np.uint8, 4),
    "mono8": (np.uint8, 1), "8UC1": (np.uint8, 1), "8UC3": (np.uint8, 3),
    "mono16": (np.uint16, 1), "16UC1": (np.uint16, 1), "32FC1": (np.float32, 1), "32SC1": (np.int32, 1),
}
RGB_ENCODINGS = ("rgb8", "bgr8", "rgba8", "bgra8", "mono8")


def image_to_msg(pixels: np.ndarray, encoding: str, stamp: float = 0.0, frame_id: str = "") -> Image:
    """HxW (one channel) or HxWxC array -> sensor_msgs/Image (little-endian, tightly packed rows)."""
    if encoding not in IMAGE_ENCODINGS:
        raise ValueError(f"unsupported image encoding {encoding!r}")
    dtype, channels = IMAGE_ENCODINGS[encoding]
    shape = np.shape(pixels)
    if len(shape) != (2 if channels == 1 else 3) or (channels > 1 and shape[2] != channels):
        raise ValueError(f"array of shape {shape} does not fit encoding {encoding}")
    data = np.ascontiguousarray(pixels, dtype=dtype)
    msg = Image(height=int(data.shape[0]), width=int(data.shape[1]), encoding=encoding, is_bigendian=0,
                step=int(data.shape[1] * channels * data.itemsize))
    msg.header.stamp = time_to_msg(stamp)
    msg.header.frame_id = frame_id
    msg.data = array.array("B", data.tobytes())  # an array.array is taken as is, without a per-byte check
    return msg


def image_from_msg(msg: Image) -> np.ndarray:
    """HxW (one channel) or HxWxC array (a copy, native byte order); honours row padding and big-endian data."""
    if msg.encoding not in IMAGE_ENCODINGS:
        raise ValueError(f"unsupported image encoding {msg.encoding!r}")
    dtype, channels = IMAGE_ENCODINGS[msg.encoding]
    dt = np.dtype(dtype).newbyteorder(">" if msg.is_bigendian else "<")
    row_bytes = msg.width * channels * dt.itemsize
    if msg.step < row_bytes or len(msg.data) < msg.step * msg.height:
        raise ValueError(f"image data too short: {len(msg.data)} bytes for {msg.height} rows of step {msg.step} "
                         f"({msg.width}x{channels} {msg.encoding})")
    raw = np.frombuffer(msg.data, dtype=np.uint8, count=msg.step * msg.height).reshape(msg.height, msg.step)
    pixels = raw[:, :row_bytes].copy().view(dt).astype(dt.newbyteorder("="), copy=False)
    return pixels.reshape(msg.height, msg.width) if channels == 1 else pixels.reshape(msg.height, msg.width, channels)


def rgb_from_msg(msg: Image) -> np.ndarray:
    """HxWx3 uint8 RGB from rgb8, bgr8, rgba8, bgra8 (alpha dropped) or mono8 (grey repeated)."""
    if msg.encoding not in RGB_ENCODINGS:
        raise ValueError(f"colour image encoding must be one of {RGB_ENCODINGS}, got {msg.encoding!r}")
    if msg.height == 0 or msg.width == 0:
        raise ValueError(f"empty {msg.width}x{msg.height} image")
    pixels = image_from_msg(msg)
    if pixels.ndim == 2:
        return np.repeat(pixels[:, :, None], 3, axis=2)
    pixels = pixels[:, :, 2::-1] if msg.encoding.startswith("bgr") else pixels[:, :, :3]
    return np.ascontiguousarray(pixels)


DEPTH_ENCODINGS = ("32FC1", "16UC1")


def depth_from_msg(msg: Image) -> np.ndarray:
    """HxW float32 metres from 32FC1 (metres) or 16UC1 (millimetres); 0 stays 0 (invalid)."""
    if msg.encoding not in DEPTH_ENCODINGS:
        raise ValueError(f"depth image encoding must be one of {DEPTH_ENCODINGS}, got {msg.encoding!r}")
    array = image_from_msg(msg)
    return array.astype(np.float32) / 1000.0 if msg.encoding == "16UC1" else array.astype(np.float32, copy=False)


def camera_info_to_msg(intrinsics: Any, stamp: float = 0.0, frame_id: str = "") -> CameraInfo:
    """Pinhole intrinsics (any object with width, height, fx, fy, cx, cy) -> CameraInfo with no
    distortion and identity rectification."""
    k = intrinsics
    msg = CameraInfo(width=int(k.width), height=int(k.height), distortion_model="plumb_bob")
    msg.header.stamp = time_to_msg(stamp)
    msg.header.frame_id = frame_id
    msg.d = [0.0] * 5
    msg.k = [k.fx, 0.0, k.cx, 0.0, k.fy, k.cy, 0.0, 0.0, 1.0]
    msg.r = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]
    msg.p = [k.fx, 0.0, k.cx, 0.0, 0.0, k.fy, k.cy, 0.0, 0.0, 0.0, 1.0, 0.0]
    return msg


def camera_info_from_msg(msg: CameraInfo, intrinsics_type: Callable[..., T]) -> T:
    """CameraInfo's K and size as ``intrinsics_type(width=, height=, fx=, fy=, cx=, cy=)``."""
    return intrinsics_type(width=int(msg.width), height=int(msg.height), fx=float(msg.k[0]), fy=float(msg.k[4]),
                           cx=float(msg.k[2]), cy=float(msg.k[5]))


# -- QoS -----------------------------------------------------------------------------
def latched_qos(depth: int = 1):
    """Latest-state topics (scene graph, markers): late joiners get the last message."""
    from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy

    return QoSProfile(depth=depth, reliability=ReliabilityPolicy.RELIABLE, durability=DurabilityPolicy.TRANSIENT_LOCAL)


def sensor_qos(reliable: bool = False, depth: int = 5):
    """Image streams: the sensor-data profile, reliability selectable by parameter."""
    from rclpy.qos import QoSProfile, ReliabilityPolicy, qos_profile_sensor_data

    profile = QoSProfile(depth=depth, history=qos_profile_sensor_data.history,
                         durability=qos_profile_sensor_data.durability,
                         reliability=ReliabilityPolicy.RELIABLE if reliable else ReliabilityPolicy.BEST_EFFORT)
    return profile
