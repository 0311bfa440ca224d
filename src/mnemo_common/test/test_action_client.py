"""An action client created while another thread spins its node must never be half-built when
the executor first sees it (rclpy's own class registers before it has its lock)."""
import threading

import pytest

rclpy = pytest.importorskip("rclpy")

from mnemo_common.ros import action_client  # noqa: E402


@pytest.fixture
def node():
    context = rclpy.Context()
    rclpy.init(context=context)
    n = rclpy.create_node("action_client_probe", context=context)
    yield n
    n.destroy_node()
    rclpy.shutdown(context=context)


def test_registered_only_when_its_wait_set_can_be_built(node):
    from mnemo_interfaces.action import RetrieveObject as Action
    seen = []
    register = node.add_waitable

    def probe(waitable):
        # what an executor thread does the moment the waitable is on the node
        seen.append(waitable.get_num_entities())
        register(waitable)

    node.add_waitable = probe
    client = action_client(node, Action, "probe")
    assert len(seen) == 1 and seen[0].num_clients == 3 and client.server_is_ready() is False


def test_many_clients_while_spinning(node):
    from mnemo_interfaces.action import RetrieveObject as Action
    from rclpy.executors import SingleThreadedExecutor
    executor = SingleThreadedExecutor(context=node.context)
    executor.add_node(node)
    errors = []

    def spin():
        try:
            while not stop.is_set():
                executor.spin_once(timeout_sec=0.0)
        except Exception as exc:  # the failure this guards against kills the spin thread
            errors.append(exc)

    stop = threading.Event()
    thread = threading.Thread(target=spin, daemon=True)
    thread.start()
    try:
        for i in range(200):
            action_client(node, Action, f"probe_{i}")
    finally:
        stop.set()
        thread.join(timeout=5.0)
        executor.shutdown()
    assert errors == [] and not thread.is_alive()
