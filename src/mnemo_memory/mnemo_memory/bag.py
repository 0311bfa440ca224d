"""rosbag2 MCAP files: read Observation messages to build memory offline, and write them (tests,
demos); read and write any ROS messages the same way (the raw sensor topics of a robot or of the
simulator: ``read_messages``, ``write_messages``). Messages are CDR-decoded with rclpy's own
deserializer, so a bag recorded by ``ros2 bag record -s mcap`` on a robot reads the same as one
written here.
"""
from __future__ import annotations

import importlib
import os
import re
from pathlib import Path
from typing import Any, Iterable, Iterator, Optional, Sequence

from mnemo_common.types import Observation

OBSERVATION_TYPE = "mnemo_interfaces/msg/Observation"
_PRIMITIVES = {"bool", "byte", "char", "float32", "float64", "int8", "uint8", "int16", "uint16", "int32", "uint32",
               "int64", "uint64", "string", "wstring"}


def _msg_file(datatype: str) -> Path:
    pkg, _, name = datatype.split("/")
    for prefix in os.environ.get("AMENT_PREFIX_PATH", "").split(os.pathsep):
        path = Path(prefix) / "share" / pkg / "msg" / f"{name}.msg"
        if path.is_file():
            return path
    raise FileNotFoundError(f"no definition of {datatype} under AMENT_PREFIX_PATH")


def msgdef_text(datatype: str) -> str:
    """The ros2msg schema text rosbag2 stores: the type's definition, then each dependency's."""
    main = _msg_file(datatype).read_text()
    sections, seen, todo = [], {datatype}, [(datatype, main)]
    while todo:
        current, text = todo.pop(0)
        pkg = current.split("/")[0]
        for line in text.splitlines():
            line = line.split("#", 1)[0].strip()
            if not line or "=" in line.split()[0]:
                continue
            field_type = re.sub(r"\[.*\]$", "", line.split()[0])
            field_type = re.sub(r"<=\d+$", "", field_type)
            if field_type in _PRIMITIVES or field_type.startswith(("string<", "wstring<")):
                continue
            dep = (f"{field_type.split('/')[0]}/msg/{field_type.split('/')[1]}" if "/" in field_type
                   else f"{pkg}/msg/{field_type}")
            if dep not in seen:
                seen.add(dep)
                dep_text = _msg_file(dep).read_text()
                sections.append(f"{'=' * 80}\nMSG: {dep}\n{dep_text}")
                todo.append((dep, dep_text))
    return "\n".join([main] + sections)


def write_messages(path: str | Path, messages: Iterable[tuple[str, str, Any, float]]) -> int:
    """Write (topic, datatype such as ``sensor_msgs/msg/Image``, message, stamp seconds) as a rosbag2
    MCAP file, each message CDR-serialised by rclpy (as ``ros2 bag record`` does); returns the count."""
    from mcap.writer import Writer
    from rclpy.serialization import serialize_message

    n = 0
    schemas: dict[str, int] = {}
    channels: dict[tuple[str, str], int] = {}
    with open(path, "wb") as f:
        writer = Writer(f)
        writer.start(profile="ros2", library="mnemo")
        for topic, datatype, msg, stamp in messages:
            if datatype not in schemas:
                schemas[datatype] = writer.register_schema(datatype, "ros2msg", msgdef_text(datatype).encode())
            if (topic, datatype) not in channels:
                channels[(topic, datatype)] = writer.register_channel(topic, "cdr", schemas[datatype])
            stamp_ns = int(round(stamp * 1e9))
            writer.add_message(channels[(topic, datatype)], log_time=stamp_ns, data=serialize_message(msg),
                               publish_time=stamp_ns, sequence=n)
            n += 1
        writer.finish()
    return n


def write_observations(path: str | Path, observations: Iterable[Observation], topic: str) -> int:
    """Write observations as a rosbag2 MCAP file; returns the count."""
    from mnemo_common.ros import observation_to_msg

    return write_messages(path, ((topic, OBSERVATION_TYPE, observation_to_msg(obs), obs.stamp) for obs in observations))


def message_class(datatype: str) -> Any:
    """The rclpy message class of ``pkg/msg/Name``."""
    pkg, _, name = datatype.split("/")
    return getattr(importlib.import_module(f"{pkg}.msg"), name)


def read_messages(path: str | Path, topics: Sequence[str]) -> Iterator[tuple[str, Any]]:
    """(topic, message) of the given topics in log-time order, deserialised by rclpy."""
    from mcap.reader import make_reader
    from rclpy.serialization import deserialize_message

    classes: dict[int, Any] = {}
    with open(path, "rb") as f:
        for schema, channel, message in make_reader(f).iter_messages(topics=list(topics), log_time_order=True):
            if schema is None:
                continue
            if schema.id not in classes:
                classes[schema.id] = message_class(schema.name)
            yield channel.topic, deserialize_message(message.data, classes[schema.id])


def read_observations(path: str | Path, topics: Optional[Sequence[str]] = None) -> Iterator[Observation]:
    """Observations from the given topics (every topic carrying Observation messages when None)."""
    from mcap.reader import make_reader
    from rclpy.serialization import deserialize_message

    from mnemo_common.ros import observation_from_msg
    from mnemo_interfaces.msg import Observation as ObservationMsg

    legacy: dict[int, object] = {}
    with open(path, "rb") as f:
        for schema, channel, message in make_reader(f).iter_messages(topics=list(topics) if topics else None):
            if schema is None or schema.name != OBSERVATION_TYPE:
                continue
            if b"attribute_keys" in schema.data:  # the current layout: rclpy's own deserializer
                yield observation_from_msg(deserialize_message(message.data, ObservationMsg))
                continue
            if schema.id not in legacy:
                from mcap_ros2.decoder import DecoderFactory

                legacy[schema.id] = DecoderFactory().decoder_for(channel.message_encoding, schema)
            yield _legacy_observation(legacy[schema.id](message.data))  # type: ignore[operator]


def _legacy_observation(m) -> Observation:
    """An Observation recorded before Sighting carried its attributes as parallel arrays (they were
    KeyValue[] attributes), decoded from the schema stored in the bag."""
    from mnemo_common.ros import point_from_msg, pose2d_from_msg, pose3d_from_msg
    from mnemo_common.types import Sighting

    def attributes(s) -> dict[str, str]:
        if hasattr(s, "attribute_keys"):
            return dict(zip(s.attribute_keys, s.attribute_values))
        return {kv.key: kv.value for kv in getattr(s, "attributes", [])}

    return Observation(
        stamp=m.header.stamp.sec + m.header.stamp.nanosec * 1e-9,  # a decoded message, not a builtin Time
        robot_pose=pose2d_from_msg(m.robot_pose), camera_pose=pose3d_from_msg(m.camera_pose),
        room=m.room, caption=m.caption, image_ref=m.image_ref, seq=m.seq,
        sightings=[Sighting(label=s.label, kind=s.kind, position=point_from_msg(s.position), attributes=attributes(s),
                            object_id=s.object_id, support=s.support, relation=s.relation, score=s.score)
                   for s in m.sightings])
