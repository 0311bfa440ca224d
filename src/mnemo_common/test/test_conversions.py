import math

import numpy as np
import pytest

from mnemo_common import ros
from mnemo_common.skill_codes import SKILL_CODES
from mnemo_common.types import (Detection, InteractionEvent, MemoryFilter, MemoryRecord, MnemoError, Observation,
                                Pose2D, Pose3D, Sighting, SkillResult, SkillSignals, Status, invalid)


def test_time_roundtrip_and_rejects_nan():
    for t in (0.0, 1.5, 86400 * 3 + 18 * 3600 + 0.25):
        assert abs(ros.time_from_msg(ros.time_to_msg(t)) - t) < 1e-9
    with pytest.raises(ValueError):
        ros.time_to_msg(math.nan)


def test_observation_roundtrip():
    obs = Observation(stamp=90061.5, robot_pose=Pose2D(1.0, 2.0, 0.5),
                      camera_pose=Pose3D((1.0, 2.0, 1.2), (0.0, 0.1, 0.0, 0.995)), room="kitchen",
                      sightings=[Sighting("mug", (2.0, 2.0, 0.8), {"color": "red"}, "object", "mug_1",
                                          "dining_table_1", "on", 0.9),
                                 Sighting("cabinet", (0.3, 1.0, 0.45), {}, "fixture", "cabinet_1")],
                      caption="a red mug", image_ref="/tmp/x.png", seq=7)
    back = ros.observation_from_msg(ros.observation_to_msg(obs))
    assert back.robot_pose == obs.robot_pose and back.camera_pose.position == obs.camera_pose.position
    assert back.sightings[0].attributes == {"color": "red"} and back.sightings[1].kind == "fixture"
    assert back.sightings[0].score == pytest.approx(0.9)
    assert (back.stamp, back.room, back.caption, back.image_ref, back.seq) == (90061.5, "kitchen", "a red mug",
                                                                               "/tmp/x.png", 7)


def test_detection_and_signals_roundtrip():
    d = Detection("mug", 0.75, "object", (1, 2, 3, 4), 120, (1.0, 2.0, 0.8), (0.9, 1.9, 0.75), (1.1, 2.1, 0.85),
                  {"color": "blue"}, "mug_2", "mug_1")
    back = ros.detection_from_msg(ros.detection_to_msg(d))
    assert (back.label, back.kind, back.instance_id, back.node_id, back.attributes) == (
        "mug", "object", "mug_2", "mug_1", {"color": "blue"})
    assert back.box_2d == (1.0, 2.0, 3.0, 4.0) and back.centroid == pytest.approx(d.centroid)
    s = SkillSignals(True, 0.0, 0.8, 12.0, 2.5)
    back_s = ros.signals_from_msg(ros.signals_to_msg(s))
    assert back_s.contact is True
    assert (back_s.joint_displacement, back_s.gripper_closure, back_s.gripper_effort, back_s.duration) == \
        pytest.approx((0.0, 0.8, 12.0, 2.5))


def test_filter_roundtrip():
    f = MemoryFilter(since=10.0, until=20.0, room="study", labels=["mug"], near=(1.0, 2.0), radius=1.5)
    back = ros.memory_filter_from_msg(ros.memory_filter_to_msg(f))
    assert back == f
    assert ros.memory_filter_from_msg(ros.memory_filter_to_msg(MemoryFilter())) == MemoryFilter()


def test_fill_error_maps_exceptions():
    from mnemo_interfaces.srv import GetMemoryRecord

    r = ros.fill_error(GetMemoryRecord.Response(), invalid("k must be positive"))
    assert (r.error_code, r.error_msg) == (Status.INVALID_ARGUMENT, "k must be positive")
    r = ros.fill_error(GetMemoryRecord.Response(), RuntimeError("boom"))
    assert r.error_code == Status.INTERNAL and "boom" in r.error_msg
    assert ros.fill_error(GetMemoryRecord.Response(), None).error_code == Status.OK


def test_interaction_event_roundtrip_and_unknown_code():
    e = InteractionEvent("ix_1", "open", "cabinet_1", 10.0, 15.5, False, Status.FAILED, "did not open",
                         SkillSignals(True, 0.001953125, 0.8125, 28.0, 5.0), ["mug"], "", ["/a.png", "/b.png"],
                         Pose2D(1.0, 2.0, 0.25))
    msg = ros.interaction_to_msg(e)
    assert msg.start.sec == 10 and msg.end.nanosec == 500_000_000 and msg.error_code == Status.FAILED
    assert ros.interaction_from_msg(msg) == e
    picked = InteractionEvent("ix_2", "pick", "mug_1", 1.0, 2.0, True, picked_id="mug_1")
    assert ros.interaction_from_msg(ros.interaction_to_msg(picked)) == \
        InteractionEvent("ix_2", "pick", "mug_1", 1.0, 2.0, True, picked_id="mug_1", robot_pose=Pose2D(0.0, 0.0, 0.0))
    msg.error_code = 999  # a code from a newer build: still an event, marked FAILED
    assert ros.interaction_from_msg(msg).code == Status.FAILED


@pytest.mark.parametrize("srv,skill", [("Navigate", "navigate"), ("Open", "open"), ("Close", "close"),
                                       ("Detect", "detect"), ("Peek", "peek"), ("Pick", "pick"), ("Place", "place")])
def test_skill_responses_roundtrip(srv, skill):
    import mnemo_interfaces.srv

    response_type = getattr(mnemo_interfaces.srv, srv).Response
    result = SkillResult(skill=skill, target="t", success=True, signals=SkillSignals(True, 1.4, 0.8, 9.0, 5.0),
                         robot_pose=Pose2D(1.0, 2.0, 0.5), at_fixture="cabinet_2", room="kitchen",
                         detections=[Detection(label="apple", score=1.0, instance_id="apple_1")],
                         picked_id="apple_1", picked_label="apple", interaction_id="ix_00001",
                         outcome=SKILL_CODES[skill][-1], reachable_from="table_1")
    response = ros.fill_skill_response(response_type(), result)
    back = ros.skill_result_from_response(skill, "t", response)
    fields = response_type.get_fields_and_field_types()
    assert back.success and back.code == Status.OK and (back.skill, back.target) == (skill, "t")
    assert back.outcome == SKILL_CODES[skill][-1]
    assert back.reachable_from == ("table_1" if "reachable_from" in fields else "")
    if "signals" in fields:
        assert back.signals.joint_displacement == pytest.approx(1.4) and back.signals.contact
    if "interaction_id" in fields:
        assert back.interaction_id == "ix_00001"
    if "robot_pose" in fields:
        assert back.robot_pose == Pose2D(1.0, 2.0, 0.5)
    if "at_fixture" in fields:
        assert back.at_fixture == "cabinet_2" and back.room == "kitchen"
    if "duration" in fields:
        assert back.signals.duration == pytest.approx(5.0)
    if "contents" in fields or "detections" in fields:
        assert [d.instance_id for d in back.detections] == ["apple_1"]
    if "picked_id" in fields or "placed_id" in fields:
        assert back.picked_id == "apple_1"
    if "picked_label" in fields:
        assert back.picked_label == "apple"


def test_failed_skill_keeps_fields_and_raises_its_status():
    from mnemo_interfaces.srv import Pick

    failed = SkillResult("pick", "m", False, Status.FAILED, "slipped", SkillSignals(True, 0.0, 1.0, 0.2, 2.0),
                         interaction_id="pick-1")
    pick = ros.fill_skill_response(Pick.Response(), failed)
    assert pick.interaction_id == "pick-1" and pick.signals.gripper_closure == 1.0
    with pytest.raises(MnemoError) as err:
        ros.raise_for_failure(failed)
    assert (err.value.code, err.value.message) == (Status.FAILED, "slipped")
    with pytest.raises(MnemoError) as err:  # a failure that carries no status still fails
        ros.raise_for_failure(SkillResult("pick", "m", False, Status.OK, "no reason"))
    assert err.value.code == Status.FAILED
    ros.raise_for_failure(SkillResult("pick", "m", True))
    # what a caller sees once guarded() has set the status
    back = ros.skill_result_from_response("pick", "m", ros.fill_error(pick, err.value))
    assert not back.success and back.code == Status.FAILED and back.interaction_id == "pick-1"


@pytest.mark.parametrize("skill", list(SKILL_CODES))
def test_each_skill_service_declares_its_result_codes_as_skill_code_does(skill):
    import mnemo_interfaces.srv

    response_type = getattr(mnemo_interfaces.srv, skill.capitalize()).Response
    declared = {n: v for n, v in vars(response_type).items() if n.isupper() and "__" not in n and isinstance(v, int)}
    assert declared == {c.name: int(c) for c in SKILL_CODES[skill]}
    assert "result_code" in response_type.get_fields_and_field_types()


def test_pose_stamped_roundtrip():
    pose = Pose3D((1.0, 2.0, 1.2), (0.0, 0.0, math.sin(0.4), math.cos(0.4)))
    msg = ros.pose_stamped_to_msg(pose, 86400.25, "odom")
    assert msg.header.frame_id == "odom" and ros.pose_stamped_to_msg(pose, 0.0).header.frame_id == "map"
    stamp, back = ros.pose_stamped_from_msg(msg)
    assert stamp == pytest.approx(86400.25) and back == pose


@pytest.mark.parametrize("encoding,dtype,shape", [
    ("rgb8", np.uint8, (4, 5, 3)), ("bgra8", np.uint8, (4, 5, 4)), ("mono8", np.uint8, (4, 5)),
    ("16UC1", np.uint16, (4, 5)), ("32FC1", np.float32, (4, 5)), ("32SC1", np.int32, (4, 5)),
])
def test_image_roundtrip(encoding, dtype, shape):
    a = (np.random.default_rng(0).random(shape) * 1000).astype(dtype)
    msg = ros.image_to_msg(a, encoding, 12.5, "cam")
    assert (msg.width, msg.height, msg.step, msg.is_bigendian) == (5, 4, a.itemsize * a[0].size, 0)
    assert msg.header.frame_id == "cam" and (msg.header.stamp.sec, msg.header.stamp.nanosec) == (12, 500_000_000)
    back = ros.image_from_msg(msg)
    assert back.dtype == dtype and back.shape == shape
    np.testing.assert_array_equal(back, a)


def test_image_keeps_nan_and_rejects_wrong_shapes():
    depth = np.random.default_rng(1).random((6, 8), dtype=np.float32)
    depth[0, 0] = np.nan
    assert np.array_equal(ros.image_from_msg(ros.image_to_msg(depth, "32FC1")), depth, equal_nan=True)
    with pytest.raises(ValueError):
        ros.image_to_msg(depth, "rgb8")
    with pytest.raises(ValueError):
        ros.image_to_msg(np.zeros((2, 2, 4), np.uint8), "rgb8")
    with pytest.raises(ValueError, match="unsupported"):
        ros.image_to_msg(depth, "yuv422")


def test_depth_in_metres_from_either_encoding():
    metres = np.array([[0.0, 1.5], [np.nan, 2.25]], np.float32)
    np.testing.assert_array_equal(ros.depth_from_msg(ros.image_to_msg(metres, "32FC1")), metres)
    millimetres = np.array([[0, 1500], [0, 2250]], np.uint16)
    depth = ros.depth_from_msg(ros.image_to_msg(millimetres, "16UC1"))
    assert depth.dtype == np.float32
    np.testing.assert_allclose(depth, [[0.0, 1.5], [0.0, 2.25]])  # 0 stays 0: no reading
    with pytest.raises(ValueError, match="depth image encoding"):
        ros.depth_from_msg(ros.image_to_msg(millimetres, "mono16"))


def test_image_padded_rows_big_endian_and_short_data():
    a = np.arange(12, dtype=np.uint16).reshape(3, 4)
    msg = ros.image_to_msg(a, "16UC1")
    rows = a.astype(">u2").tobytes()
    msg.is_bigendian = 1
    msg.step = 10  # 8 bytes of pixels + 2 of padding per row
    msg.data = b"".join(rows[i * 8:(i + 1) * 8] + b"\0\0" for i in range(3))
    back = ros.image_from_msg(msg)
    np.testing.assert_array_equal(back, a)
    assert back.dtype == np.dtype(np.uint16)  # native byte order
    msg.data = msg.data[:-5]
    with pytest.raises(ValueError, match="too short"):
        ros.image_from_msg(msg)
    msg.encoding = "yuv422"
    with pytest.raises(ValueError, match="unsupported"):
        ros.image_from_msg(msg)


def padded_image(pixels: np.ndarray, encoding: str, pad: int = 3):
    from sensor_msgs.msg import Image

    h, w = pixels.shape[:2]
    c = 1 if pixels.ndim == 2 else pixels.shape[2]
    rows = np.zeros((h, w * c + pad), np.uint8)
    rows[:, : w * c] = pixels.reshape(h, w * c)
    return Image(height=h, width=w, encoding=encoding, step=w * c + pad, data=rows.tobytes())


@pytest.mark.parametrize("encoding", ["rgb8", "bgr8", "rgba8", "bgra8", "mono8"])
def test_rgb_from_colour_encodings(encoding):
    rgb = np.random.default_rng(0).integers(0, 255, (4, 5, 3), dtype=np.uint8)
    if encoding == "mono8":
        src, want = rgb[:, :, 0], np.repeat(rgb[:, :, :1], 3, axis=2)
    else:
        src = rgb[:, :, ::-1] if encoding.startswith("bgr") else rgb
        if encoding.endswith("a8"):
            src = np.concatenate([src, np.full((4, 5, 1), 255, np.uint8)], axis=2)
        want = rgb
    got = ros.rgb_from_msg(padded_image(src, encoding))
    assert got.dtype == np.uint8 and got.flags.c_contiguous
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(ros.rgb_from_msg(ros.image_to_msg(src, encoding)), want)


def test_rgb_rejects_other_encodings_short_and_empty_images():
    from sensor_msgs.msg import Image

    with pytest.raises(ValueError):
        ros.rgb_from_msg(Image(height=2, width=2, encoding="32FC1", step=8, data=bytes(16)))
    with pytest.raises(ValueError):
        ros.rgb_from_msg(Image(height=2, width=2, encoding="rgb8", step=6, data=bytes(5)))
    with pytest.raises(ValueError):
        ros.rgb_from_msg(Image(height=0, width=0, encoding="rgb8", step=0))


def test_robot_pose_from_pose_stamped():
    msg = ros.pose_stamped_to_msg(Pose3D((1.0, -2.0, 0.0), (0.0, 0.0, math.sin(0.4), math.cos(0.4))), 3.5)
    stamp, p = ros.robot_pose_from_msg(msg)
    assert stamp == 3.5 and (p.x, p.y) == (1.0, -2.0) and p.yaw == pytest.approx(0.8)


def test_camera_info_roundtrip_into_any_intrinsics_type():
    from types import SimpleNamespace

    k = SimpleNamespace(fx=500.0, fy=505.0, cx=319.5, cy=239.5, width=640, height=480)
    msg = ros.camera_info_to_msg(k, 3.0, "cam")
    assert (msg.width, msg.height, msg.header.frame_id, msg.header.stamp.sec) == (640, 480, "cam", 3)
    assert list(msg.k) == [500.0, 0.0, 319.5, 0.0, 505.0, 239.5, 0.0, 0.0, 1.0] and list(msg.d) == [0.0] * 5
    assert msg.p[0] == 500.0 and msg.p[2] == 319.5 and msg.p[10] == 1.0
    assert ros.camera_info_from_msg(msg, SimpleNamespace) == k


def test_memory_record_roundtrip_without_embedding():
    rec = MemoryRecord(id="rec_7", stamp=90061.5, robot_pose=Pose2D(1.0, 2.0, 0.5),
                       camera_pose=Pose3D((1.0, 2.0, 1.2), (0.0, 0.0, 0.0, 1.0)), caption="a red mug on the table",
                       room="kitchen", labels=["mug", "table"],
                       sightings=[Sighting("mug", (2.0, 2.0, 0.8), {"color": "red"}, "object", "mug_1", "table_1",
                                           "on")],
                       raw_ref="/d/rec_7.png", embedding=np.ones(4, np.float32), score=0.75)
    back = ros.memory_record_from_msg(ros.memory_record_to_msg(rec))
    assert back.embedding is None
    assert (back.id, back.stamp, back.robot_pose, back.camera_pose, back.caption, back.room, back.labels,
            back.raw_ref) == (rec.id, rec.stamp, rec.robot_pose, rec.camera_pose, rec.caption, rec.room, rec.labels,
                              rec.raw_ref)
    assert back.score == pytest.approx(0.75) and back.sightings[0].attributes == {"color": "red"}
    assert (back.sightings[0].object_id, back.sightings[0].support) == ("mug_1", "table_1")


def test_msg_builder_builds_what_the_constructor_builds(monkeypatch):
    from geometry_msgs.msg import Point, Pose, Quaternion
    from rclpy.serialization import serialize_message

    from mnemo_interfaces.msg import MemoryRecord as MemoryRecordMsg
    from mnemo_interfaces.msg import Sighting as SightingMsg

    rec = MemoryRecord(id="rec_8", stamp=12.25, robot_pose=Pose2D(1.0, -2.0, 0.5),
                       camera_pose=Pose3D((1.0, 2.0, 1.2), (0.0, 0.1, 0.0, 0.995)), caption="a red mug",
                       room="kitchen", labels=["mug"],
                       sightings=[Sighting("mug", (2.0, 2.0, 0.8), {"color": "red", "size": "small"}, "object",
                                           "mug_1", "table_1", "on", 0.5)], raw_ref="f.png", score=0.25)
    fast = ros.memory_record_to_msg(rec)
    s = rec.sightings[0]
    slow = MemoryRecordMsg(
        id="rec_8", stamp=ros.TimeMsg(sec=12, nanosec=250_000_000), robot_pose=ros.Pose2DMsg(x=1.0, y=-2.0, theta=0.5),
        camera_pose=Pose(position=Point(x=1.0, y=2.0, z=1.2), orientation=Quaternion(x=0.0, y=0.1, z=0.0, w=0.995)),
        room="kitchen", caption="a red mug", labels=["mug"], raw_ref="f.png", score=0.25,
        sightings=[SightingMsg(label="mug", kind="object", object_id="mug_1", attribute_keys=["color", "size"],
                               attribute_values=["red", "small"], position=Point(x=2.0, y=2.0, z=0.8),
                               support="table_1", relation="on", score=0.5)])
    assert type(fast) is MemoryRecordMsg and fast == slow
    assert serialize_message(fast) == serialize_message(slow)
    assert "camera_pose=geometry_msgs.msg.Pose(position=" in repr(fast)  # every slot is set
    # a missing field falls back to the constructor's defaults; an unknown one is an error
    assert ros.msg_builder(Point)(x=1.0) == Point(x=1.0)
    with pytest.raises(TypeError):
        ros.msg_builder(Point)(x=1.0, y=2.0, z=3.0, w=4.0)
    from std_msgs.msg import Empty
    assert ros.msg_builder(Empty) is Empty
    # field checks on, or a numeric array (its setter converts): the plain constructor
    monkeypatch.setattr(ros, "_CHECK_FIELDS", True)
    assert ros.msg_builder(Point) is Point
    monkeypatch.setattr(ros, "_CHECK_FIELDS", False)
    from mnemo_interfaces.msg import Detection as DetectionMsg
    assert ros.msg_builder(DetectionMsg) is DetectionMsg


def test_sighting_attribute_arrays_of_different_lengths_are_rejected():
    msg = ros.sighting_to_msg(Sighting("mug", (0.0, 0.0, 0.0), {"color": "red"}))
    assert (list(msg.attribute_keys), list(msg.attribute_values)) == (["color"], ["red"])
    msg.attribute_values = []
    with pytest.raises(ValueError, match="1 attribute_keys but 0 attribute_values"):
        ros.sighting_from_msg(msg)
