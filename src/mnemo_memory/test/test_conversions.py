"""Message <-> core round trips."""
from __future__ import annotations

from mnemo_common.ros import time_to_msg
from mnemo_common.types import MemoryRecord, Pose2D, Pose3D, Sighting
from mnemo_interfaces.srv import SearchMemoryByTime
from mnemo_common.ros import memory_record_from_msg as record_from_msg, memory_record_to_msg as record_to_msg
from mnemo_memory.conversions import RecordMsgCache, time_query_from_request


def test_record_round_trip():
    r = MemoryRecord(id="abc", stamp=93600.25, robot_pose=Pose2D(1.5, -2.0, 0.3),
                     camera_pose=Pose3D((1.5, -2.0, 1.1), (0.0, 0.1, 0.0, 0.995)), caption="a red mug",
                     room="kitchen", labels=["mug", "table"],
                     sightings=[Sighting("mug", (1.0, 2.0, 0.8), {"color": "red"}, "object", "mug_1", "table_1", "on", 0.9)],
                     raw_ref="frames/1.png", score=0.75)
    back = record_from_msg(record_to_msg(r))
    assert back.id == r.id and back.caption == r.caption and back.room == r.room and back.labels == r.labels
    assert abs(back.stamp - r.stamp) < 1e-9 and back.robot_pose == r.robot_pose
    assert back.camera_pose == r.camera_pose and back.raw_ref == r.raw_ref
    assert back.sightings[0].attributes == {"color": "red"} and back.sightings[0].support == "table_1"
    assert abs(back.score - 0.75) < 1e-6 and abs(back.sightings[0].score - 0.9) < 1e-6


def test_time_request_modes():
    req = SearchMemoryByTime.Request(use_range=True, since=time_to_msg(10.0), until=time_to_msg(20.5))
    assert time_query_from_request(req) == {"since": 10.0, "until": 20.5, "around": None}
    req = SearchMemoryByTime.Request(around=time_to_msg(86400.0))
    assert time_query_from_request(req) == {"since": None, "until": None, "around": 86400.0}


def test_record_msg_cache_fills_scores_and_forgets_rewritten_records():
    r = MemoryRecord(id="abc", stamp=5.5, robot_pose=Pose2D(1.0, 2.0, 0.1), camera_pose=Pose3D((1.0, 2.0, 1.2)), caption="a red mug", room="kitchen",
                     labels=["mug"], sightings=[Sighting("mug", (1.0, 2.0, 0.8), {"color": "red"})], score=0.5)
    cache = RecordMsgCache(capacity=2)
    first = cache.to_msg(r)
    r.score = 0.25
    second = cache.to_msg(r)
    assert second.sightings[0] is first.sightings[0]  # parts shared
    assert (first.score, second.score) == (0.5, 0.25)
    assert record_from_msg(second).sightings == record_from_msg(record_to_msg(r)).sightings
    r.sightings = [Sighting("cup", (0.0, 0.0, 0.0))]
    assert record_from_msg(cache.to_msg(r)).sightings[0].label == "mug"  # stale until discarded
    cache.discard(["abc"])
    assert record_from_msg(cache.to_msg(r)).sightings[0].label == "cup"
    for i in range(3):  # bounded
        cache.to_msg(MemoryRecord(id=f"r{i}", stamp=0.0, robot_pose=Pose2D(0, 0, 0), camera_pose=Pose3D((0, 0, 0)), caption=""))
    assert len(cache._parts) == 2


def test_span_and_matched_sighting_round_trip_through_both_conversions():
    r = MemoryRecord(id="run", stamp=100.0, robot_pose=Pose2D(1.0, 2.0, 0.1), camera_pose=Pose3D((1.0, 2.0, 1.2)),
                     caption="a red mug", sightings=[Sighting("mug", (1.0, 2.0, 0.8))], raw_ref="frames/1.png",
                     last_stamp=86500.5, count=42, raw_ref_last="frames/42.png", matched_sighting=0)
    for msg in (record_to_msg(r), RecordMsgCache().to_msg(r)):
        back = record_from_msg(msg)
        assert (back.span, back.count, back.raw_ref_last, back.matched_sighting) == (
            (100.0, 86500.5), 42, "frames/42.png", 0)
    single = record_from_msg(record_to_msg(MemoryRecord(id="one", stamp=5.0, robot_pose=Pose2D(0, 0, 0),
                                                        camera_pose=Pose3D((0, 0, 0)), caption="")))
    assert (single.last_stamp, single.count, single.matched_sighting) == (None, 1, -1)
