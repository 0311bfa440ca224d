"""What the honest simulator waits on: perception's answer to a frame, then a scene graph that includes it."""
import threading
import time

import pytest

from mnemo_common.types import Detection

from mnemo_sim.honest import GraphObject
from mnemo_sim.perceived import FrameStamps, PerceivedFrames

MUG = Detection("mug", 1.0, centroid=(1.0, 2.0, 0.8), box_min=(1.0, 2.0, 0.8), box_max=(1.0, 2.0, 0.8))


def _later(seconds, action):
    timer = threading.Timer(seconds, action)
    timer.start()
    return timer


def test_an_answer_is_waited_for_and_taken_once():
    frames = PerceivedFrames()
    _later(0.05, lambda: frames.on_detections(7, [MUG]))
    assert frames.wait_detections(7, timeout=5.0) == ([MUG], 0)
    assert frames.wait_detections(7, timeout=0.01) is None  # taken out


def test_no_answer_ends_after_the_timeout():
    frames = PerceivedFrames()
    frames.on_detections(8, [MUG])  # another frame's answer
    started = time.monotonic()
    assert frames.wait_detections(7, timeout=0.1) is None
    assert 0.09 <= time.monotonic() - started < 2.0


def test_an_answer_of_an_earlier_frame_of_the_same_stamp_is_forgotten():
    frames = PerceivedFrames()
    frames.on_detections(7, [MUG])
    frames.forget(7)
    assert frames.wait_detections(7, timeout=0.01) is None


def test_only_the_newest_answers_are_kept():
    frames = PerceivedFrames(keep=3)
    for stamp in range(5):
        frames.on_detections(stamp, [])
    assert frames.wait_detections(1, timeout=0.0) is None
    assert frames.wait_detections(4, timeout=0.0) == ([], 0)


def test_the_graph_wait_needs_a_newer_graph_stamped_no_earlier_than_the_frame():
    frames = PerceivedFrames()
    frames.on_graph({}, stamp_ns=5)
    frames.on_detections(10, [MUG])
    _, graphs_then = frames.wait_detections(10, timeout=1.0)
    assert graphs_then == 1
    frames.on_graph({}, stamp_ns=9)  # newer, but from before the frame
    assert not frames.wait_graph(graphs_then, 10, timeout=0.05)
    mug = GraphObject("mug_3", "mug", "object", (1.0, 2.0, 0.8))
    _later(0.05, lambda: frames.on_graph({"mug_3": mug}, stamp_ns=10))
    assert frames.wait_graph(graphs_then, 10, timeout=5.0)
    assert frames.nodes == {"mug_3": mug}


def test_frames_taken_at_one_instant_get_stamps_of_their_own():
    stamps = FrameStamps(recent=3)
    assert [stamps.next(10.0) for _ in range(3)] == pytest.approx([10.0, 10.001, 10.002], abs=1e-9)
    assert stamps.next(11.0) == 11.0  # time moved on: its own stamp
    assert stamps.next(10.0) == 10.0  # a stamp long out of use is free again
