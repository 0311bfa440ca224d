"""The keyframe node in-process over DDS (private domain): inputs, publication and services."""
import threading
import time

import numpy as np
import pytest
import rclpy
from PIL import Image as PILImage
from rclpy.executors import MultiThreadedExecutor
from rclpy.parameter import Parameter
from sensor_msgs.msg import Image

from mnemo_common import names
from mnemo_common.fake_openai import FakeOpenAI
from mnemo_common.processes import unique_domain_id
from mnemo_common.ros import interaction_to_msg, sensor_qos, time_to_msg
from mnemo_common.types import InteractionEvent as Event, SkillSignals, Status
from mnemo_interfaces.msg import GraphEvent, InteractionEvent, Keyframe
from mnemo_interfaces.srv import QueryKeyframes, RetrieveKeyframes, TagKeyframes
from mnemo_keyframes.node import KeyframesNode
from mnemo_keyframes.testing import textured

pytestmark = pytest.mark.ros


def wait_for(predicate, timeout=10.0, period=0.05):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(period)
    return False


def call(client, request, timeout=10.0):
    assert client.wait_for_service(timeout_sec=timeout), f"{client.srv_name} not available"
    future = client.call_async(request)
    assert wait_for(future.done, timeout), f"{client.srv_name} did not answer"
    return future.result()


@pytest.fixture
def running(tmp_path):
    context = rclpy.context.Context()
    rclpy.init(context=context, domain_id=unique_domain_id())
    fake = FakeOpenAI().start()
    node = KeyframesNode(context=context, parameter_overrides=[
        Parameter("data_dir", value=str(tmp_path / "data")), Parameter("embedding_base_url", value=fake.base_url),
        Parameter("embedding_model", value="fake"), Parameter("reliable_images", value=True)])
    probe = rclpy.create_node("keyframes_probe", context=context)
    executor = MultiThreadedExecutor(num_threads=4, context=context)
    executor.add_node(node)
    executor.add_node(probe)
    thread = threading.Thread(target=executor.spin, daemon=True)
    thread.start()
    try:
        yield node, probe
    finally:
        executor.shutdown(timeout_sec=2.0)
        node.close()
        node.destroy_node()
        probe.destroy_node()
        rclpy.try_shutdown(context=context)
        thread.join(timeout=5.0)
        fake.stop()


def image_msg(rgb, stamp):
    msg = Image(height=rgb.shape[0], width=rgb.shape[1], encoding="rgb8", step=rgb.shape[1] * 3, data=rgb.tobytes())
    msg.header.stamp = time_to_msg(stamp)
    return msg


def test_node_saves_links_tags_and_serves_keyframes(running, tmp_path):
    node, probe = running
    published = []
    probe.create_subscription(Keyframe, names.KEYFRAMES, published.append, 50)
    images = probe.create_publisher(Image, names.COLOR_IMAGE, sensor_qos(reliable=True))
    events = probe.create_publisher(GraphEvent, names.SCENE_GRAPH_EVENTS, 50)
    interactions = probe.create_publisher(InteractionEvent, names.INTERACTIONS, 20)
    query = probe.create_client(QueryKeyframes, names.KEYFRAMES_QUERY)
    retrieve = probe.create_client(RetrieveKeyframes, names.KEYFRAMES_RETRIEVE)
    tag = probe.create_client(TagKeyframes, names.KEYFRAMES_TAG)

    frame = textured(7)
    assert wait_for(lambda: images.get_subscription_count() > 0 and events.get_subscription_count() > 0)
    assert wait_for(lambda: (images.publish(image_msg(frame, 100.0)), len(node.ring) > 0)[1])
    events.publish(GraphEvent(stamp=time_to_msg(100.0), node_id="cabinet_1", kind="created"))
    events.publish(GraphEvent(stamp=time_to_msg(100.0), node_id="mug_1", kind="created"))
    assert wait_for(lambda: len(published) == 1)
    assert published[0].trigger == "new_node"

    refs = []
    for i in range(3):
        p = tmp_path / f"ix{i}.png"
        PILImage.fromarray(textured(20 + i, 120, 160)).save(p)
        refs.append(str(p))
    ev = Event("ix_00001", "open", "cabinet_1", 200.0, 205.0, False, Status.FAILED, "did not open",
               SkillSignals(True, 0.0, 0.8, 28.0, 5.0), frame_refs=refs)
    assert wait_for(lambda: interactions.get_subscription_count() > 0)
    interactions.publish(interaction_to_msg(ev))
    assert wait_for(lambda: len(published) == 4)

    got = call(query, QueryKeyframes.Request(node_id="cabinet_1"))
    assert got.error_code == 0 and len(got.keyframes) == 4
    assert {k.trigger for k in got.keyframes} == {"new_node", "interaction_before", "interaction_during",
                                                  "interaction_after"}
    assert set(got.keyframes[-1].node_ids) == {"cabinet_1", "mug_1"}

    tagged = call(tag, TagKeyframes.Request(keyframe_ids=["ix_00001-before", "ix_00001-during-1", "ix_00001-after"],
                                            tags=["locked"], caption="handle held", key_frame_id="ix_00001-during-1"))
    assert tagged.error_code == 0 and tagged.updated == 3
    locked = call(query, QueryKeyframes.Request(label="locked", trigger="interaction_key"))
    assert [k.id for k in locked.keyframes] == ["ix_00001-during-1"] and locked.keyframes[0].caption == "handle held"

    found = call(retrieve, RetrieveKeyframes.Request(task="is the cabinet locked", node_ids=["cabinet_1"], k=2))
    assert found.error_code == 0 and len(found.keyframes) == 2
    assert all(k.image_path.startswith(str(node.store.root)) for k in found.keyframes)

    timed = QueryKeyframes.Request(use_time_range=True, since=time_to_msg(150.0), until=time_to_msg(300.0))
    assert len(call(query, timed).keyframes) == 3

    for bad in (QueryKeyframes.Request(trigger="bogus"), QueryKeyframes.Request(limit=-1)):
        assert call(query, bad).error_code == Status.INVALID_ARGUMENT
    assert call(tag, TagKeyframes.Request(keyframe_ids=["../../etc/passwd"], tags=["x"])).error_code == \
        Status.INVALID_ARGUMENT
    assert call(retrieve, RetrieveKeyframes.Request(task="", k=2)).error_code == Status.INVALID_ARGUMENT
    assert call(retrieve, RetrieveKeyframes.Request(task="x", k=500)).error_code == Status.INVALID_ARGUMENT
