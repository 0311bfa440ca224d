"""`mnemo memory ingest BAG.mcap` builds memory offline from a rosbag2 MCAP file; time parsing."""
from __future__ import annotations

import argparse

import pytest

from mnemo_common import names
from mnemo_common.embedding import get_embedder
from mnemo_common.types import Observation, Pose2D, Pose3D, Sighting
from mnemo_memory.bag import read_observations, write_observations
from mnemo_memory.cli import main, parse_time
from mnemo_memory.service import MemoryService


def test_parse_time():
    assert parse_time("93600") == 93600.0
    assert parse_time("1D 02:00") == 86400 + 7200
    assert parse_time("2d 08:30:15") == 2 * 86400 + 8 * 3600 + 30 * 60 + 15
    assert parse_time("08:30") == 8 * 3600 + 30 * 60
    for bad in ("yesterday", "1D 25:00", "12:75"):
        with pytest.raises(argparse.ArgumentTypeError):
            parse_time(bad)


def _observations():
    out = []
    for i in range(40):  # 40 s of driving at 0.25 m/s, observations at 1 Hz
        label = "mug" if i < 20 else "book"
        out.append(Observation(stamp=1000.0 + i, robot_pose=Pose2D(0.25 * i, 0.0, 0.0), camera_pose=Pose3D(),
                               room="kitchen" if i < 20 else "study",
                               sightings=[Sighting(label, (0.25 * i + 1, 0, 0.8), {"color": "red"})], seq=i))
    return out


@pytest.mark.slow
def test_ingest_bag_then_query(tmp_path):
    bag = tmp_path / "patrol.mcap"
    assert write_observations(bag, _observations(), names.OBSERVATIONS) == 40
    write_observations(tmp_path / "other.mcap", _observations()[:3], "/other/topic")
    assert len(list(read_observations(bag, [names.OBSERVATIONS]))) == 40
    assert list(read_observations(bag, ["/no/such/topic"])) == []

    data = tmp_path / "data"
    assert main(["ingest", str(bag), "--data-dir", str(data)]) == 0
    memory = MemoryService.open(get_embedder(), data)
    try:
        n = memory.count()
        assert 15 <= n <= 25  # rate limited: every 2 s or 0.5 m
        top = memory.search_text("a red book", k=3)
        assert all(r.room == "study" and "book" in r.labels for r in top)
    finally:
        memory.close()
    assert main(["ingest", str(bag), "--data-dir", str(tmp_path / "all"), "--all"]) == 0
    memory = MemoryService.open(get_embedder(), tmp_path / "all")
    try:
        assert memory.count() == 40
    finally:
        memory.close()


def test_bags_recorded_before_sightings_had_attribute_arrays_still_read(tmp_path):
    """Sighting carried KeyValue[] attributes until its attributes became parallel string arrays:
    such a bag is decoded from the schema it stores."""
    from mcap_ros2.writer import Writer

    from mnemo_memory.bag import OBSERVATION_TYPE, msgdef_text

    old_sighting = ("string label\nstring kind\nstring object_id\nKeyValue[] attributes\n"
                    "geometry_msgs/Point position\nstring support\nstring relation\nfloat32 score\n")
    text = msgdef_text(OBSERVATION_TYPE)
    head, sep, rest = text.partition("MSG: mnemo_interfaces/msg/Sighting\n")
    rest = rest[rest.index("=" * 80):] if "=" * 80 in rest else ""
    old_text = (head + sep + old_sighting + rest + "\n" + "=" * 80 + "\nMSG: mnemo_interfaces/msg/KeyValue\n"
                "string key\nstring value\n")
    assert "attribute_keys" not in old_text
    bag = tmp_path / "old.mcap"
    with open(bag, "wb") as f:
        writer = Writer(f)
        schema = writer.register_msgdef(OBSERVATION_TYPE, old_text)
        writer.write_message(names.OBSERVATIONS, schema, {
            "header": {"stamp": {"sec": 1000, "nanosec": 500_000_000}, "frame_id": "map"}, "seq": 3,
            "robot_pose": {"x": 1.0, "y": 2.0, "theta": 0.5},
            "camera_pose": {"position": {"x": 1.0, "y": 2.0, "z": 1.2},
                            "orientation": {"x": 0.0, "y": 0.0, "z": 0.0, "w": 1.0}},
            "room": "kitchen", "caption": "a red mug", "image_ref": "",
            "sightings": [{"label": "mug", "kind": "object", "object_id": "mug_1",
                           "attributes": [{"key": "color", "value": "red"}, {"key": "size", "value": "small"}],
                           "position": {"x": 2.0, "y": 2.0, "z": 0.8}, "support": "table_1", "relation": "on",
                           "score": 0.5}]}, log_time=1, publish_time=1)
        writer.finish()
    (obs,) = list(read_observations(bag))
    assert (obs.stamp, obs.seq, obs.room, obs.robot_pose, obs.camera_pose.position) == (
        1000.5, 3, "kitchen", Pose2D(1.0, 2.0, 0.5), (1.0, 2.0, 1.2))
    (s,) = obs.sightings
    assert (s.label, s.object_id, s.attributes, s.position, s.support, s.score) == (
        "mug", "mug_1", {"color": "red", "size": "small"}, (2.0, 2.0, 0.8), "table_1", 0.5)
