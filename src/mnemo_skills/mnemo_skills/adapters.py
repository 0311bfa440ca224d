"""ROS adapters that fill the skill server's ports on a robot.

nav2_msgs, control_msgs, trajectory_msgs, play_motion2_msgs and tf2_ros exist only on a full
ROS 2 install: each adapter imports its package when it is built, and `build_ports` puts a
`Missing` port (every call: UNAVAILABLE, naming the package to install) where one is absent.
Every blocking call runs in a service callback of a MultiThreadedExecutor and waits on the
future's done-callback, never spinning itself.
"""
from __future__ import annotations

import threading
import time
from typing import Any, Callable, Optional

from mnemo_common import names
from mnemo_common.geometry import quaternion_from_yaw, yaw_from_quaternion
from mnemo_common.ros import detection_from_msg, interaction_to_msg, pose2d_from_msg, robot_pose_from_msg
from mnemo_common.types import InteractionEvent, Pose2D, Status

from mnemo_skills.conversions import (
    graph_node_from_msg, gripper_outcome, message_constants, motion_outcome, nav2_code_meanings, nav2_outcome,
    status_outcome, trajectory_outcome,
)
from mnemo_skills.ports import CancelToken, GraphNode, JointReading, Outcome, RobotPorts, TrajectoryPoint

POLL = 0.05


def wait_future(future, deadline: float, cancel: Optional[CancelToken]) -> bool:
    """Wait for an rclpy future until the monotonic deadline or a cancel; True when done."""
    done = threading.Event()
    future.add_done_callback(lambda _f: done.set())
    while not done.is_set():
        if cancel is not None and cancel.cancelled:
            return False
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        done.wait(min(POLL, left))
    return True


class ActionCall:
    """One action client used as a blocking, cancelable, time-bounded call."""

    def __init__(self, node, action_type, name: str, group, server_wait: float):
        from mnemo_common.ros import action_client

        self.name, self.server_wait = name, server_wait
        self.client = action_client(node, action_type, name, callback_group=group)

    def run(self, goal, timeout: float, cancel: CancelToken, to_outcome: Callable[[int, Any], Outcome]) -> Outcome:
        deadline = time.monotonic() + max(0.0, timeout)
        if not self.client.wait_for_server(timeout_sec=max(0.0, min(self.server_wait, timeout))):
            return Outcome(Status.UNAVAILABLE, f"action server {self.name} is not available")
        send = self.client.send_goal_async(goal)
        if not wait_future(send, deadline, cancel):
            # Cancel the goal if it is accepted after we gave up on it.
            send.add_done_callback(lambda f: f.result() is not None and f.result().accepted
                                   and f.result().cancel_goal_async())
            return self._gave_up(timeout, cancel)
        handle = send.result()
        if handle is None or not handle.accepted:
            return Outcome(Status.FAILED, f"{self.name} rejected the goal")
        result = handle.get_result_async()
        if not wait_future(result, deadline, cancel):
            cancel_done = handle.cancel_goal_async()
            wait_future(cancel_done, time.monotonic() + 2.0, None)
            return self._gave_up(timeout, cancel)
        wrapped = result.result()
        return to_outcome(int(wrapped.status), wrapped.result)

    def _gave_up(self, timeout: float, cancel: CancelToken) -> Outcome:
        if cancel.cancelled:
            return Outcome(Status.CANCELED, f"{self.name}: {cancel.reason}; goal canceled")
        return Outcome(Status.TIMEOUT, f"{self.name} did not finish within {timeout:.1f} s; goal canceled")


class Missing:
    """Stands in for any port whose ROS package is not installed."""

    def __init__(self, package: str):
        self.package = package

    def _outcome(self) -> Outcome:
        return Outcome(Status.UNAVAILABLE, f"{self.package} is not installed on this machine "
                                           f"(install ros-$ROS_DISTRO-{self.package.replace('_', '-')})")

    def navigate(self, *a, **k) -> Outcome:
        return self._outcome()

    def current_pose(self):
        return None

    def play(self, *a, **k) -> Outcome:
        return self._outcome()

    def follow(self, *a, **k) -> Outcome:
        return self._outcome()

    def command(self, *a, **k) -> Outcome:
        return self._outcome()

    def hand_position(self):
        return None


class PoseSource:
    """The base pose in the map: TF (map -> base frame) when tf2_ros is installed, else the last
    pose on a PoseStamped topic."""

    def __init__(self, node, map_frame: str, base_frame: str, topic: str, tf_buffer=None):
        from geometry_msgs.msg import PoseStamped

        self.map_frame, self.base_frame, self.tf = map_frame, base_frame, tf_buffer
        self._last: Optional[Pose2D] = None
        node.create_subscription(PoseStamped, topic, self._on_pose, 10)

    def _on_pose(self, msg) -> None:
        self._last = robot_pose_from_msg(msg)[1]

    def current(self) -> Optional[Pose2D]:
        if self.tf is not None:
            try:
                from rclpy.time import Time

                t = self.tf.lookup_transform(self.map_frame, self.base_frame, Time()).transform
                return Pose2D(t.translation.x, t.translation.y,
                              yaw_from_quaternion((t.rotation.x, t.rotation.y, t.rotation.z, t.rotation.w)))
            except Exception:  # noqa: BLE001 - TF not ready yet: fall back to the topic
                pass
        return self._last


class Nav2Navigator:
    """nav2's NavigateToPose action (what nav2_simple_commander's BasicNavigator.goToPose sends)."""

    def __init__(self, node, action_name: str, group, server_wait: float, poses: PoseSource):
        from nav2_msgs.action import ComputePathToPose, FollowPath, NavigateToPose

        self.node, self.poses, self.action_type = node, poses, NavigateToPose
        self.call = ActionCall(node, NavigateToPose, action_name, group, server_wait)
        self.meanings = nav2_code_meanings(*(message_constants(t.Result)
                                             for t in (NavigateToPose, ComputePathToPose, FollowPath)))

    def navigate(self, goal: Pose2D, frame: str, timeout: float, cancel: CancelToken) -> Outcome:
        msg = self.action_type.Goal()
        msg.pose.header.frame_id = frame
        msg.pose.header.stamp = self.node.get_clock().now().to_msg()
        msg.pose.pose.position.x, msg.pose.pose.position.y = float(goal.x), float(goal.y)
        o = msg.pose.pose.orientation
        o.x, o.y, o.z, o.w = quaternion_from_yaw(goal.yaw)
        return self.call.run(msg, timeout, cancel, lambda status, r: nav2_outcome(
            status, int(getattr(r, "error_code", 0)), str(getattr(r, "error_msg", "")), self.meanings))

    def current_pose(self) -> Optional[Pose2D]:
        return self.poses.current()


class PlayMotion2Player:
    def __init__(self, node, action_name: str, group, server_wait: float):
        from play_motion2_msgs.action import PlayMotion2

        self.action_type = PlayMotion2
        self.call = ActionCall(node, PlayMotion2, action_name, group, server_wait)

    def play(self, motion: str, timeout: float, cancel: CancelToken) -> Outcome:
        goal = self.action_type.Goal(motion_name=motion, skip_planning=False)
        return self.call.run(goal, timeout, cancel, lambda status, r: motion_outcome(
            status, bool(getattr(r, "success", True)), str(getattr(r, "error", ""))))


class JointTrajectoryController:
    """FollowJointTrajectory on any controller; one client per action name."""

    def __init__(self, node, group, server_wait: float):
        from control_msgs.action import FollowJointTrajectory

        self.node, self.group, self.server_wait = node, group, server_wait
        self.action_type = FollowJointTrajectory
        self.calls: dict[str, ActionCall] = {}

    def follow(self, action: str, joints: list[str], points: list[TrajectoryPoint], timeout: float,
               cancel: CancelToken) -> Outcome:
        from builtin_interfaces.msg import Duration
        from trajectory_msgs.msg import JointTrajectoryPoint

        if action not in self.calls:
            self.calls[action] = ActionCall(self.node, self.action_type, action, self.group, self.server_wait)
        goal = self.action_type.Goal()
        goal.trajectory.joint_names = list(joints)
        for p in points:
            nanos = int(p.time_from_start * 1e9)
            goal.trajectory.points.append(JointTrajectoryPoint(
                positions=[float(v) for v in p.positions],
                time_from_start=Duration(sec=nanos // 1_000_000_000, nanosec=nanos % 1_000_000_000)))
        return self.calls[action].run(goal, timeout, cancel, lambda status, r: trajectory_outcome(
            status, int(getattr(r, "error_code", 0)), str(getattr(r, "error_string", ""))))


class GripperCommandClient:
    def __init__(self, node, group, server_wait: float):
        from control_msgs.action import GripperCommand

        self.node, self.group, self.server_wait = node, group, server_wait
        self.action_type = GripperCommand
        self.calls: dict[str, ActionCall] = {}

    def command(self, action: str, position: float, max_effort: float, timeout: float,
                cancel: CancelToken) -> Outcome:
        if action not in self.calls:
            self.calls[action] = ActionCall(self.node, self.action_type, action, self.group, self.server_wait)
        goal = self.action_type.Goal()
        goal.command.position, goal.command.max_effort = float(position), float(max_effort)
        return self.calls[action].run(goal, timeout, cancel, lambda status, r: gripper_outcome(
            status, bool(getattr(r, "reached_goal", False)), bool(getattr(r, "stalled", False))))


class JointStateCache:
    """Latest position and effort per joint; robots may publish joints in several messages."""

    def __init__(self, node, topic: str):
        from mnemo_common.ros import sensor_qos
        from sensor_msgs.msg import JointState

        self._lock = threading.Lock()
        self._joints: dict[str, JointReading] = {}
        node.create_subscription(JointState, topic, self._on_joints, sensor_qos(reliable=True, depth=10))

    def _on_joints(self, msg) -> None:
        with self._lock:
            for i, name in enumerate(msg.name):
                pos = msg.position[i] if i < len(msg.position) else 0.0
                eff = msg.effort[i] if i < len(msg.effort) else 0.0
                self._joints[name] = JointReading(float(pos), float(eff))

    def latest(self) -> dict[str, JointReading]:
        with self._lock:
            return dict(self._joints)


class TfHandTracker:
    def __init__(self, tf_buffer, map_frame: str, hand_frame: str):
        self.tf, self.map_frame, self.hand_frame = tf_buffer, map_frame, hand_frame

    def hand_position(self):
        from rclpy.time import Time

        try:
            t = self.tf.lookup_transform(self.map_frame, self.hand_frame, Time()).transform.translation
            return (t.x, t.y, t.z)
        except Exception:  # noqa: BLE001 - not measurable right now
            return None


class ServiceCall:
    def __init__(self, node, srv_type, name: str, group):
        self.name = name
        self.client = node.create_client(srv_type, name, callback_group=group)
        self.srv_type = srv_type

    def call(self, request, timeout: float, cancel: Optional[CancelToken] = None):
        """(Outcome, response or None)."""
        deadline = time.monotonic() + max(0.0, timeout)
        if not self.client.wait_for_service(timeout_sec=max(0.0, timeout)):
            return Outcome(Status.UNAVAILABLE, f"service {self.name} is not available"), None
        future = self.client.call_async(request)
        if not wait_future(future, deadline, cancel):
            self.client.remove_pending_request(future)
            if cancel is not None and cancel.cancelled:
                return Outcome(Status.CANCELED, f"{self.name}: {cancel.reason}"), None
            return Outcome(Status.TIMEOUT, f"{self.name} did not answer within {timeout:.1f} s"), None
        response = future.result()
        return status_outcome(response.error_code, response.error_msg, self.name), response


class PerceptionClient:
    def __init__(self, node, group, service: str = names.PERCEPTION_DETECT):
        from mnemo_interfaces.srv import Detect

        self.call = ServiceCall(node, Detect, service, group)

    def detect(self, query: str, timeout: float, cancel: CancelToken):
        outcome, response = self.call.call(self.call.srv_type.Request(query=query), timeout, cancel)
        if response is None or not outcome.ok:
            return outcome, [], None
        return outcome, [detection_from_msg(d) for d in response.detections], pose2d_from_msg(response.robot_pose)


class SceneGraphClient:
    def __init__(self, node, group, service: str = names.GRAPH_GET):
        from mnemo_interfaces.srv import GetSceneGraph

        self.call = ServiceCall(node, GetSceneGraph, service, group)

    def _nodes(self, timeout: float, kinds: list[str]) -> tuple[Outcome, list[GraphNode]]:
        outcome, response = self.call.call(self.call.srv_type.Request(kinds=kinds), timeout)
        if response is None or not outcome.ok:
            return outcome, []
        return outcome, [graph_node_from_msg(n) for n in response.graph.nodes]

    def find(self, target: str, timeout: float):
        outcome, nodes = self._nodes(timeout, [])
        if not outcome.ok:
            return outcome, None
        by_id = [n for n in nodes if n.id == target]
        by_label = [n for n in nodes if n.label.lower() == target.lower()]
        if by_id:
            return outcome, by_id[0]
        return outcome, (by_label[0] if len(by_label) == 1 else None)

    def fixtures(self, timeout: float) -> list[GraphNode]:
        return self._nodes(timeout, ["fixture"])[1]


class EventPublisher:
    def __init__(self, node):
        from mnemo_interfaces.msg import InteractionEvent as EventMsg

        self.pub = node.create_publisher(EventMsg, names.INTERACTIONS, 10)

    def publish(self, event: InteractionEvent) -> None:
        self.pub.publish(interaction_to_msg(event))


class RosClock:
    """Robot-clock seconds (ROS time) for event stamps and durations."""

    def __init__(self, node):
        self.node = node

    def now(self) -> float:
        return self.node.get_clock().now().nanoseconds / 1e9


def _optional(build: Callable[[], Any], package: str, log) -> Any:
    try:
        return build()
    except ImportError:
        log.warning(f"{package} is not installed: primitives that need it answer UNAVAILABLE")
        return Missing(package)


def build_ports(node, config, profile, group) -> RobotPorts:
    """Every port of a real robot, with Missing stand-ins where a package is absent."""
    log = node.get_logger()
    tf_buffer = None
    try:
        from tf2_ros import Buffer, TransformListener

        tf_buffer = Buffer()
        node._tf_listener = TransformListener(tf_buffer, node)
    except ImportError:
        log.warning("tf2_ros is not installed: base pose from the pose topic, fixture travel not measurable")
    poses = PoseSource(node, config.map_frame, config.base_frame, config.robot_pose_topic, tf_buffer)
    wait = config.service_timeout
    navigator = _optional(lambda: Nav2Navigator(node, config.nav_action, group, wait, poses), "nav2_msgs", log)
    if isinstance(navigator, Missing):
        navigator.current_pose = poses.current
    motions = (_optional(lambda: PlayMotion2Player(node, profile.motion_action, group, wait), "play_motion2_msgs", log)
               if profile.motion_action else None)
    trajectories = (_optional(lambda: JointTrajectoryController(node, group, wait), "control_msgs", log)
                    if profile.controllers else None)
    gripper = (_optional(lambda: GripperCommandClient(node, group, wait), "control_msgs", log)
               if profile.gripper is not None and profile.gripper.command_action else None)
    hand = TfHandTracker(tf_buffer, config.map_frame, profile.hand_frame) if tf_buffer and profile.hand_frame else None
    return RobotPorts(navigator=navigator, perception=PerceptionClient(node, group),
                      scene_graph=SceneGraphClient(node, group), events=EventPublisher(node),
                      motions=motions, trajectories=trajectories, gripper=gripper,
                      joints=JointStateCache(node, config.joint_states_topic), hand=hand, clock=RosClock(node))

