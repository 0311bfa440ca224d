"""A blocking ROS client for command-line tools and the main job (never used inside a node's
callbacks): one private node spun by a background executor thread, with deadline-bounded calls.

A call or goal whose server dies is not waited out: the client watches who serves it in the ROS
graph (``ServerWatch``) and ends the wait as soon as the server goes away or is replaced by a
restarted one (the request or goal died with it): ``call`` raises ``ServerLost``, ``send_goal``
returns an UNAVAILABLE result.
"""
from __future__ import annotations

import threading
import time
import uuid
from typing import Any, Callable, Optional

import rclpy
from action_msgs.msg import GoalStatus
from rclpy.action.client import ClientGoalHandle
from unique_identifier_msgs.msg import UUID
from rclpy.executors import MultiThreadedExecutor

from mnemo_common.ros import ServerWatch, action_client
from mnemo_common.types import Status


class ServerLost(ConnectionError):
    """The server of a pending call went away or restarted: its answer will never come."""


class RosClient:
    def __init__(self, name: str = "mnemo_cli", args: Optional[list[str]] = None):
        self._owns_context = not rclpy.ok()
        if self._owns_context:
            rclpy.init(args=args)
        self.node = rclpy.create_node(name)
        self._executor = MultiThreadedExecutor(num_threads=2)
        self._executor.add_node(self.node)
        self._thread = threading.Thread(target=self._executor.spin, daemon=True)
        self._thread.start()
        self._clients: dict[str, Any] = {}

    def _wait(self, future, timeout: float, what: str, watch: Optional[ServerWatch] = None):
        deadline = time.monotonic() + timeout
        while not future.done():
            if time.monotonic() > deadline:
                future.cancel()
                raise TimeoutError(f"{what}: no answer within {timeout:.0f} s")
            if watch is not None and (why := watch.lost()) is not None:
                future.cancel()
                raise ServerLost(f"{what}: the server {why} before answering")
            time.sleep(0.005)
        return future.result()

    def call(self, srv_type: Any, name: str, request: Any, timeout: float = 30.0) -> Any:
        client = self._clients.get(name)
        if client is None:
            client = self._clients[name] = self.node.create_client(srv_type, name)
        if not client.wait_for_service(timeout_sec=min(timeout, 30.0)):
            raise TimeoutError(f"service {name} is not available")
        watch = ServerWatch(self.node, client.srv_name)
        return self._wait(client.call_async(request), timeout, name, watch)

    def wait_for_services(self, services: list[tuple[Any, str]], timeout: float = 60.0) -> list[str]:
        """Names of the services still missing after the timeout (empty when all are up)."""
        deadline = time.monotonic() + timeout
        missing = list(services)
        while missing and time.monotonic() < deadline:
            missing = [(t, n) for t, n in missing
                       if not self._clients.setdefault(n, self.node.create_client(t, n)).service_is_ready()]
            if missing:
                time.sleep(0.2)
        return [n for _, n in missing]

    def send_goal(self, action_type: Any, name: str, goal: Any,
                  feedback: Optional[Callable[[Any], None]] = None, timeout: float = 600.0,
                  cancel_after: Optional[Callable[[], bool]] = None, accept_timeout: float = 30.0) -> tuple[int, Any]:
        """Send a goal and wait for its result: (GoalStatus, result). cancel_after() is polled and
        cancels the goal when it returns True. The wait always ends within ``timeout`` (plus the
        wait for the server, at most 30 s): a goal that cannot run or finish returns
        STATUS_ABORTED with a result whose ``error_code`` says why: UNAVAILABLE (no server, or
        it died or restarted while the goal ran), REJECTED, or TIMEOUT (the goal is canceled)."""
        client = self._clients.get(name)
        if client is None:
            client = self._clients[name] = action_client(self.node, action_type, name)
        if not client.wait_for_server(timeout_sec=30.0):
            return _failed(action_type, Status.UNAVAILABLE, f"action {name} is not available")
        # the goal lives in the server process: if that one dies, no result will ever come
        watch = ServerWatch(self.node, f"{name}/_action/get_result")
        goal_id = UUID(uuid=list(uuid.uuid4().bytes))
        running = threading.Event()  # the server sent feedback for this goal: it accepted it

        def on_feedback(msg: Any) -> None:
            running.set()
            if feedback is not None:
                feedback(msg.feedback)

        try:
            handle = self._wait(client.send_goal_async(goal, feedback_callback=on_feedback, goal_uuid=goal_id),
                                accept_timeout, name, watch)
        except TimeoutError as exc:
            if not running.is_set():
                return _failed(action_type, Status.UNAVAILABLE, str(exc))
            # The goal runs (its feedback arrives) but the reply accepting it never came: ask for its
            # result by its id, as the reply would have let us.
            handle = ClientGoalHandle(client, goal_id, action_type.Impl.SendGoalService.Response(accepted=True))
        except ServerLost as exc:
            return _failed(action_type, Status.UNAVAILABLE, str(exc))
        if not handle.accepted:
            return _failed(action_type, Status.REJECTED, f"goal rejected by {name}")
        result_future = handle.get_result_async()
        deadline = time.monotonic() + timeout
        canceled = False
        while not result_future.done():
            if time.monotonic() > deadline:
                handle.cancel_goal_async()
                return _failed(action_type, Status.TIMEOUT, f"{name}: no result within {timeout:.0f} s (canceled)")
            if (why := watch.lost()) is not None:
                return _failed(action_type, Status.UNAVAILABLE, f"{name}: the action server {why} while the goal ran")
            if cancel_after is not None and not canceled and cancel_after():
                handle.cancel_goal_async()
                canceled = True
            time.sleep(0.01)
        wrapped = result_future.result()
        return wrapped.status, wrapped.result

    def subscribe(self, msg_type: Any, topic: str, callback: Callable[[Any], None], qos: Any = 10) -> Any:
        return self.node.create_subscription(msg_type, topic, callback, qos)

    def close(self) -> None:
        self._executor.shutdown(timeout_sec=2.0)
        # Let the spin thread leave before the node and context go, or the process can abort at
        # exit ("terminate called without an active exception").
        self._thread.join(timeout=5.0)
        self.node.destroy_node()
        if self._owns_context:
            rclpy.try_shutdown()

    def __enter__(self) -> "RosClient":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _failed(action_type: Any, code: Status, message: str) -> tuple[int, Any]:
    """An aborted goal's (status, result) for a goal the server never finished."""
    return GoalStatus.STATUS_ABORTED, action_type.Result(success=False, error_code=int(code), error_msg=message)
