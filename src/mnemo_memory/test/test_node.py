"""The memory node as its own process over DDS: ingest from the topic, every service, bad requests
answered with an error while the node keeps serving, the CLI as a ROS client."""
from __future__ import annotations

import math
import os
import subprocess
import sys
import time

import pytest
import rclpy

from mnemo_common import names
from mnemo_common.processes import EXIT_REFUSED, NodeProcess, ros_env, unique_domain_id
from mnemo_common.ros import memory_filter_to_msg, observation_to_msg, time_to_msg
from mnemo_common.types import MemoryFilter, Observation, Pose2D, Pose3D, Sighting, Status
from mnemo_interfaces.msg import Observation as ObservationMsg
from mnemo_interfaces.srv import (
    AddMemoryRecord, GetMemoryRecord, SearchMemoryByPosition, SearchMemoryByText, SearchMemoryByTime,
)

pytestmark = [pytest.mark.ros, pytest.mark.slow]


@pytest.fixture(scope="module")
def ros(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("memnode")
    domain = unique_domain_id()
    (tmp / "data" / "frames").mkdir(parents=True)
    (tmp / "data" / "frames" / "f1.png").write_bytes(b"png")
    node = NodeProcess("mnemo_memory.node", names.MEMORY_NODE, env=ros_env(domain), log_dir=tmp / "log",
                       params={"data_dir": str(tmp / "data"), "min_interval": 2.0, "flush_period": 0.1})
    os.environ["ROS_AUTOMATIC_DISCOVERY_RANGE"] = "LOCALHOST"
    context = rclpy.Context()
    rclpy.init(context=context, domain_id=domain)
    client_node = rclpy.create_node("memory_test_client", context=context)
    executor = rclpy.executors.SingleThreadedExecutor(context=context)
    executor.add_node(client_node)
    try:
        yield {"node": node, "client": client_node, "executor": executor, "tmp": tmp, "domain": domain}
    finally:
        client_node.destroy_node()
        rclpy.try_shutdown(context=context)
        node.stop()


def call(ros, srv_type, name, request, timeout=60.0):
    client = ros["client"].create_client(srv_type, name)
    try:
        deadline = time.monotonic() + timeout
        while not client.wait_for_service(timeout_sec=0.5):
            assert ros["node"].alive(), ros["node"].log()
            assert time.monotonic() < deadline, f"{name} never came up:\n{ros['node'].log()}"
        future = client.call_async(request)
        while not future.done():
            ros["executor"].spin_once(timeout_sec=0.1)
            assert time.monotonic() < deadline, f"{name} did not answer"
        return future.result()
    finally:
        ros["client"].destroy_client(client)


def observation(i, label, x, room):
    return Observation(stamp=5000.0 + 10 * i, robot_pose=Pose2D(x, 0.0, 0.0), camera_pose=Pose3D((x, 0, 1.2)),
                       room=room, sightings=[Sighting(label, (x + 1, 0, 0.8), {"color": "red"})], seq=i,
                       image_ref="frames/f1.png" if i == 0 else "")


def test_ingest_query_and_errors(ros):
    # add_record is answered once durable
    res = call(ros, AddMemoryRecord, names.MEMORY_ADD_RECORD,
               AddMemoryRecord.Request(observation=observation_to_msg(observation(0, "mug", 0.0, "kitchen"))))
    assert res.error_code == 0 and res.stored and res.id
    first_id = res.id
    # the stream: published observations are written in batches by the worker
    pub = ros["client"].create_publisher(ObservationMsg, names.OBSERVATIONS, 100)
    labels = ["book", "plant", "keys", "mug"]
    deadline = time.monotonic() + 30
    while pub.get_subscription_count() == 0:  # publish once the node's subscription is matched
        ros["executor"].spin_once(timeout_sec=0.1)
        assert time.monotonic() < deadline, "the memory node never subscribed"
    time.sleep(0.5)
    malformed = observation_to_msg(observation(30, "mug", 50.0, "kitchen"))
    malformed.sightings[0].attribute_values = []  # one key, no value: dropped with a warning
    pub.publish(malformed)
    for i in range(1, 9):
        pub.publish(observation_to_msg(observation(i, labels[i % 4], 2.0 * i, "study" if i % 2 else "kitchen")))
        ros["executor"].spin_once(timeout_sec=0.05)
    deadline = time.monotonic() + 30
    while True:
        res = call(ros, SearchMemoryByTime, names.MEMORY_SEARCH_TIME, SearchMemoryByTime.Request(
            use_range=True, since=time_to_msg(0.0), until=time_to_msg(1e6), k=100))
        if len(res.records) >= 9 or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert res.error_code == 0 and len(res.records) == 9

    # bad requests: each an error response, the node keeps serving
    bad = [
        (SearchMemoryByText, names.MEMORY_SEARCH_TEXT, SearchMemoryByText.Request(text="", k=5)),
        (SearchMemoryByText, names.MEMORY_SEARCH_TEXT, SearchMemoryByText.Request(text="mug", k=0)),
        (SearchMemoryByText, names.MEMORY_SEARCH_TEXT, SearchMemoryByText.Request(text="mug", k=1_000_000)),
        (SearchMemoryByTime, names.MEMORY_SEARCH_TIME, SearchMemoryByTime.Request(
            use_range=True, since=time_to_msg(100.0), until=time_to_msg(50.0), k=5)),
        (SearchMemoryByPosition, names.MEMORY_SEARCH_POSITION, SearchMemoryByPosition.Request(x=math.nan, y=0.0, k=5)),
        (SearchMemoryByPosition, names.MEMORY_SEARCH_POSITION, SearchMemoryByPosition.Request(x=0.0, y=math.inf, k=5)),
        (GetMemoryRecord, names.MEMORY_GET_RECORD, GetMemoryRecord.Request(id="")),
    ]
    for srv_type, name, req in bad:
        res = call(ros, srv_type, name, req)
        assert res.error_code == Status.INVALID_ARGUMENT and res.error_msg, (name, req)
    res = call(ros, GetMemoryRecord, names.MEMORY_GET_RECORD, GetMemoryRecord.Request(id="nope"))
    assert res.error_code == Status.NOT_FOUND
    bad_obs = observation_to_msg(observation(20, "mug", 0.0, "kitchen"))
    bad_obs.robot_pose.x = math.nan
    res = call(ros, AddMemoryRecord, names.MEMORY_ADD_RECORD, AddMemoryRecord.Request(observation=bad_obs))
    assert res.error_code == Status.INVALID_ARGUMENT
    res = call(ros, AddMemoryRecord, names.MEMORY_ADD_RECORD, AddMemoryRecord.Request(observation=malformed))
    assert res.error_code == Status.INVALID_ARGUMENT and "attribute_values" in res.error_msg
    assert ros["node"].alive() and "unreadable observation" in ros["node"].log()

    # good queries after the bad ones
    res = call(ros, SearchMemoryByText, names.MEMORY_SEARCH_TEXT, SearchMemoryByText.Request(
        text="red keys", k=2, filter=memory_filter_to_msg(MemoryFilter(room="kitchen"))))
    assert res.error_code == 0 and "keys" in res.records[0].labels and res.records[0].room == "kitchen"
    top = res.records[0]
    assert top.sightings[top.matched_sighting].label == "keys"  # the sighting that matched comes with its record
    res = call(ros, SearchMemoryByPosition, names.MEMORY_SEARCH_POSITION,
               SearchMemoryByPosition.Request(x=8.1, y=0.0, radius=0.0, k=1))
    assert res.error_code == 0 and res.records[0].robot_pose.x == 8.0
    res = call(ros, SearchMemoryByTime, names.MEMORY_SEARCH_TIME,
               SearchMemoryByTime.Request(around=time_to_msg(5031.0), k=1))
    assert res.records[0].stamp.sec == 5030
    res = call(ros, GetMemoryRecord, names.MEMORY_GET_RECORD, GetMemoryRecord.Request(id=first_id))
    assert res.error_code == 0 and res.record.id == first_id
    assert res.raw_path == str((ros["tmp"] / "data" / "frames" / "f1.png").resolve())

    # the CLI is a ROS client of the same node
    cli = subprocess.run([sys.executable, "-m", "mnemo_memory.cli", "query", "red mug", "--k", "3",
                          "--since", "0D 01:00", "--until", "1D 00:00"],
                         env=ros_env(ros["domain"]), capture_output=True, text=True, timeout=60)
    assert cli.returncode == 0, cli.stderr
    assert "records (text index)" in cli.stdout and "matched: a red mug" in cli.stdout
    cli = subprocess.run([sys.executable, "-m", "mnemo_memory.cli", "query", "--near", "4,0", "--radius", "2.5"],
                         env=ros_env(ros["domain"]), capture_output=True, text=True, timeout=60)
    assert cli.returncode == 0 and "3 records (position index)" in cli.stdout, cli.stdout + cli.stderr


def test_object_search_over_dds(ros):
    # one mug seen at three places, another once: object search answers each instance once, with
    # the sighting that matched; plain text search answers records
    def seen(i, color, x):
        mug = Sighting("mug", (x + 1, 5.0, 0.8), {"color": color}, object_id=f"mug_{color}", support="shelf",
                       relation="on")
        return Observation(stamp=9000.0 + 10 * i, robot_pose=Pose2D(x, 5.0, 0.0), camera_pose=Pose3D((x, 5.0, 1.2)),
                           room="pantry", sightings=[mug], seq=100 + i)

    for i, (color, x) in enumerate((("red", 20.0), ("red", 22.0), ("red", 24.0), ("blue", 26.0))):
        res = call(ros, AddMemoryRecord, names.MEMORY_ADD_RECORD,
                   AddMemoryRecord.Request(observation=observation_to_msg(seen(i, color, x))))
        assert res.error_code == 0 and res.stored
    pantry = memory_filter_to_msg(MemoryFilter(room="pantry"))
    res = call(ros, SearchMemoryByText, names.MEMORY_SEARCH_TEXT,
               SearchMemoryByText.Request(text="a red mug", k=5, filter=pantry, objects=True))
    assert res.error_code == 0
    assert [r.sightings[r.matched_sighting].object_id for r in res.records] == ["mug_red", "mug_blue"]
    res = call(ros, SearchMemoryByText, names.MEMORY_SEARCH_TEXT,
               SearchMemoryByText.Request(text="a red mug", k=5, filter=pantry))
    assert res.error_code == 0 and len(res.records) == 4
    assert res.records[0].sightings[res.records[0].matched_sighting].object_id == "mug_red"
    res = call(ros, SearchMemoryByText, names.MEMORY_SEARCH_TEXT,
               SearchMemoryByText.Request(text="a red mug", k=0, objects=True))
    assert res.error_code == Status.INVALID_ARGUMENT and res.error_msg
    assert ros["node"].alive()


def test_a_missing_embedding_model_is_logged_and_nothing_is_served(tmp_path):
    """A node configured with a model that is not installed must not serve with another one."""
    model = tmp_path / "no-such-model"
    node = NodeProcess("mnemo_memory.node", names.MEMORY_NODE, env=ros_env(unique_domain_id()),
                       log_dir=tmp_path / "log",
                       params={"data_dir": str(tmp_path / "data"), "embedding_model": str(model)})
    try:
        deadline = time.monotonic() + 60.0
        while node.alive() and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not node.alive(), node.log()
        assert f"memory not started: embedding_model '{model}': no model directory at {model}" in node.log()
        assert not (tmp_path / "data" / "memory").exists()
        # a refused start says why without a traceback, and with the code a supervisor does not respawn
        assert node.proc.returncode == EXIT_REFUSED and "Traceback" not in node.log(), node.log()
    finally:
        node.stop()


def test_a_store_left_unfinished_by_an_interrupted_copy_is_not_served(tmp_path):
    """A reembed cut short leaves its target marked unfinished: a node pointed at it stops, saying
    which store and what to do, instead of serving some of the records as the whole memory."""
    from mnemo_memory.edge_store import EdgeStore

    root = tmp_path / "data" / "memory" / "new"
    EdgeStore(root, "words-new", 32, unfinished="mnemo memory reembed of 'mnemo_memory' with 'words-new'").close()
    node = NodeProcess("mnemo_memory.node", names.MEMORY_NODE, env=ros_env(unique_domain_id()),
                       log_dir=tmp_path / "log", params={"data_dir": str(tmp_path / "data"), "collection": "new"})
    try:
        deadline = time.monotonic() + 60.0
        while node.alive() and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not node.alive(), node.log()
        assert f"memory not started: memory store {root / 'meta.json'} is unfinished: mnemo memory reembed" in node.log()
        assert node.proc.returncode == EXIT_REFUSED and "Traceback" not in node.log(), node.log()
    finally:
        node.stop()
