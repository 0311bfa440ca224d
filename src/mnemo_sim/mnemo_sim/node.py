"""The ``mnemo_sim`` node: the built-in household simulator on ROS.

Publishes ``/clock`` (scenario seconds), the robot and camera poses, oracle observations and,
when rendering, the camera streams (colour rgb8, depth 32FC1 metres, CameraInfo, instance
segmentation) with one header stamp per frame; the camera pose of a frame is published with its
stamp (the head tilted down at a fixture included). Serves the skill services (the same ones a
robot's skill server offers), RunPatrol, StartTask and ScoreTask (the only place the hidden
truth is read). Every physical skill publishes an InteractionEvent whose ``frame_refs`` are PNGs
rendered before, during and after the action (``data_dir/interactions/<id>/``) when rendering.
After every skill the node publishes a fresh observation (and frame) from the robot's pose, so
memory sees what the robot sees during tasks too.

With ``perception:=honest`` the simulator is a robot without oracle help (``mnemo_sim.honest``): it
always renders, publishes no Observation (the scene graph publishes its own, named by its nodes),
and its segmentation image has per-frame values and no object instance ids (fixture ids are the
map's). Its skills see what the stack's perception makes of the current view: the frame is
published and the perception node's DetectionArray of that stamp awaited (``perception_timeout``);
objects are named by the latest scene graph (``names.SCENE_GRAPH``) and ``pick`` takes a graph node
id, resolved to the physical object by label and position, failing NOT_VISIBLE when none is there.
A patrol renders every ``image_every``-th observation's view and awaits those frames the same way
(``patrol_awaits_perception``): each one rendered is perceived, however slow the machine. Each
patrol logs its frames, how often they were sent and where the time went (render, until perceived).
Only ScoreTask maps what was picked back to the truth.

Run: ``python -m mnemo_sim.node --ros-args -p scenario:=FILE -p render:=true``.
"""
from __future__ import annotations

import math
import re
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable, Optional

import rclpy
from rclpy.callback_groups import MutuallyExclusiveCallbackGroup, ReentrantCallbackGroup
from rclpy.node import Node
from rclpy.qos import QoSProfile, ReliabilityPolicy

from mnemo_common import names
from mnemo_common.geometry import pose3d_from_pose2d
from mnemo_common.ros import (
    camera_info_to_msg, declare_config, detection_from_msg, fill_skill_response, guarded, image_to_msg,
    interaction_to_msg, latched_qos, observation_to_msg, pose2d_from_msg, pose_stamped_to_msg, raise_for_failure,
    run_node, sensor_qos, time_to_msg,
)
from mnemo_common.types import (
    Detection, InteractionEvent, MnemoError, Observation, Pose3D, SkillResult, Status, check_perception_mode, invalid,
)
from mnemo_interfaces.msg import (
    DetectionArray, InstanceSegmentation, InteractionEvent as InteractionEventMsg, Observation as ObservationMsg,
    SceneGraph as SceneGraphMsg,
)
from mnemo_interfaces.srv import Close, Detect, Navigate, Open, Peek, Pick, Place, RunPatrol, ScoreTask, StartTask
from geometry_msgs.msg import PoseStamped
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import CameraInfo, Image

from mnemo_sim import scenarios_dir
from mnemo_sim.conversions import clock_to_msg, graph_objects_from_msg, segmentation_to_msg
from mnemo_sim.honest import GraphPerception, anonymous_segmentation
from mnemo_sim.interaction_frames import save_interaction_frames
from mnemo_sim.node_config import DESCRIPTIONS, SimConfig
from mnemo_sim.patrol import camera_pose
from mnemo_sim.perceived import FrameStamps, PerceivedFrames
from mnemo_sim.scenario import clock, load_scenario
from mnemo_sim.skills import SkillConfig
from mnemo_sim.tasks import TaskRunner

NODE_NAME = names.SIM_NODE
CONFIG_TYPE = SimConfig

_DAY_TIME = re.compile(r"^\s*(?:day\s*)?(\d+)[\s/T]+(\d{1,2}:\d{2})\s*$", re.IGNORECASE)


def parse_until(text: str, task_ids: set[str]) -> float | str:
    """RunPatrol's ``until_task``: a task id, "day 2 18:00" / "2 18:00" / "2/18:00", or empty (all patrols)."""
    text = text.strip()
    if not text:
        return math.inf
    if text in task_ids:
        return text
    match = _DAY_TIME.match(text)
    if match:
        hh, mm = match.group(2).split(":")
        return clock(int(match.group(1)), f"{int(hh):02d}:{mm}")
    raise invalid(f"until_task {text!r} is neither a task id nor 'day D HH:MM'")


class SimNode(Node):
    def __init__(self, **kwargs: Any):
        super().__init__(NODE_NAME, **kwargs)
        self.config: SimConfig = declare_config(self, SimConfig, DESCRIPTIONS)
        cfg = self.config
        self.honest = check_perception_mode(cfg.perception) == "honest"
        self.rendering = cfg.render or self.honest  # honest perception has nothing but frames
        path = Path(cfg.scenario) if cfg.scenario else scenarios_dir() / "example_apartment.yaml"
        self.scenario = load_scenario(path)
        self.runner = TaskRunner(self.scenario, None if cfg.seed < 0 else cfg.seed,
                                 SkillConfig(miss_rate=float(cfg.miss_grasp_probability)))
        self.world, self.robot, self.camera = self.runner.world, self.runner.robot, self.runner.camera
        self.data_dir = Path(cfg.data_dir)
        self._lock = threading.RLock()  # one actor at a time in the world
        self._renderer: Any = None
        self._render_lock = threading.Lock()
        self._events: list[InteractionEvent] = []
        self.frame_stamps = FrameStamps()  # no two views share a stamp: perception's answers are matched by it
        self.robot.listeners.append(self._events.append)

        # Deep enough for a whole patrol day published as fast as possible (subscribers: keep a deep queue too).
        observations_qos = QoSProfile(depth=10000, reliability=ReliabilityPolicy.RELIABLE)
        image_qos = sensor_qos(reliable=cfg.reliable_images)
        self.pub_clock = self.create_publisher(Clock, names.CLOCK, 10)
        self.pub_robot = self.create_publisher(PoseStamped, names.ROBOT_POSE, 10)
        self.pub_camera = self.create_publisher(PoseStamped, names.CAMERA_POSE, 10)
        self.pub_obs = self.create_publisher(ObservationMsg, names.OBSERVATIONS, observations_qos)
        self.pub_events = self.create_publisher(InteractionEventMsg, names.INTERACTIONS, QoSProfile(depth=100))
        self.pub_color = self.create_publisher(Image, names.COLOR_IMAGE, image_qos)
        self.pub_depth = self.create_publisher(Image, names.DEPTH_IMAGE, image_qos)
        self.pub_info = self.create_publisher(CameraInfo, names.CAMERA_INFO, image_qos)
        self.pub_seg = self.create_publisher(InstanceSegmentation, names.SEGMENTATION, image_qos)

        services = ReentrantCallbackGroup()  # long handlers (patrols) must not block the heartbeat
        skills: list[tuple[type, str, Callable]] = [
            (Navigate, names.SKILL_NAVIGATE, self._navigate), (Detect, names.SKILL_DETECT, self._detect),
            (Open, names.SKILL_OPEN, self._open), (Close, names.SKILL_CLOSE, self._close),
            (Peek, names.SKILL_PEEK, self._peek), (Pick, names.SKILL_PICK, self._pick),
            (Place, names.SKILL_PLACE, self._place), (RunPatrol, names.SIM_RUN_PATROL, self._run_patrol),
            (StartTask, names.SIM_START_TASK, self._start_task), (ScoreTask, names.SIM_SCORE_TASK, self._score_task),
        ]
        self._services = [self.create_service(t, n, guarded(self, h), callback_group=services) for t, n, h in skills]
        if cfg.publish_rate > 0:
            self.create_timer(1.0 / cfg.publish_rate, self._heartbeat, callback_group=MutuallyExclusiveCallbackGroup())
        if self.honest:
            self.perceived = PerceivedFrames()
            inputs = MutuallyExclusiveCallbackGroup()  # fed while a skill handler waits for perception
            self.create_subscription(SceneGraphMsg, names.SCENE_GRAPH, self._on_graph, latched_qos(),
                                     callback_group=inputs)
            self.create_subscription(DetectionArray, names.DETECTIONS, self._on_detections, 20, callback_group=inputs)
            self.robot.perception = GraphPerception(self._perceive_view, lambda: self.perceived.nodes,
                                                    self.robot.config.resolve_radius)
        if self.rendering:
            self.renderer()
        self.get_logger().info(f"scenario {self.scenario.name} ({path}); render={self.rendering}, "
                               f"perception={cfg.perception}")

    # -- rendering -------------------------------------------------------------------
    def renderer(self):
        """The MuJoCo renderer, created on first use (a GL context takes a moment)."""
        with self._render_lock:
            if self._renderer is None:
                from mnemo_sim.render import Renderer

                cam = self.camera
                self._renderer = Renderer(self.scenario, cam.width, cam.height_px, math.degrees(cam.vfov))
            return self._renderer

    def _render(self, robot_pose=None, state=None, camera=None, stamp: Optional[float] = None):
        """A frame of the world (or of a given render state) from the robot's camera."""
        renderer = self.renderer()
        if state is None:
            renderer.sync(self.world)
        else:
            renderer.set_state(*state)
        pose = camera or camera_pose(robot_pose or self.world.robot_pose, self.camera)
        return renderer.render(pose, stamp=self.world.t if stamp is None else stamp)

    def _publish_frame(self, frame) -> None:
        fid, t = self.config.camera_frame_id, frame.stamp
        seg = (frame.seg, frame.seg_ids, frame.labels, frame.kinds)
        if self.honest:
            seg = anonymous_segmentation(*seg)
        self.pub_color.publish(image_to_msg(frame.rgb, "rgb8", t, fid))
        self.pub_depth.publish(image_to_msg(frame.depth, "32FC1", t, fid))
        self.pub_info.publish(camera_info_to_msg(frame.intrinsics, t, fid))
        self.pub_seg.publish(segmentation_to_msg(*seg, t, fid))

    # -- streams ---------------------------------------------------------------------
    def _head_pose(self) -> Pose3D:
        """The camera now: level, or tilted down at the fixture the robot stands at (as ``observe``)."""
        pitch = self.robot.look_pitch()
        return camera_pose(self.world.robot_pose, self.camera if pitch is None else replace(self.camera, pitch=pitch))

    def _publish_state(self, stamp: float, obs: Optional[Observation] = None) -> None:
        """Clock, robot and camera poses at ``stamp``: those of ``obs`` (a patrol's), else the robot's now."""
        robot = obs.robot_pose if obs is not None else self.world.robot_pose
        camera = obs.camera_pose if obs is not None else self._head_pose()
        self.pub_clock.publish(clock_to_msg(stamp))
        self.pub_robot.publish(pose_stamped_to_msg(pose3d_from_pose2d(robot), stamp, self.config.frame_id))
        self.pub_camera.publish(pose_stamped_to_msg(camera, stamp, self.config.frame_id))

    def _heartbeat(self) -> None:
        if self._lock.acquire(blocking=False):  # a running patrol publishes its own clock
            try:
                self._publish_state(self.world.t)
            finally:
                self._lock.release()

    def _publish_observation(self, obs: Observation, with_image: bool) -> None:
        if not self.honest:  # honest: the scene graph publishes observations, named by its nodes
            self.pub_obs.publish(observation_to_msg(obs, self.config.frame_id))
        if with_image:
            self._publish_frame(self._render(camera=obs.camera_pose, stamp=obs.stamp))

    def _observe_now(self) -> None:
        obs = self.robot.observe()
        obs = replace(obs, stamp=self.frame_stamps.next(obs.stamp))
        self._publish_state(obs.stamp, obs)
        self._publish_observation(obs, self.rendering)

    # -- honest perception -------------------------------------------------------------
    def _on_graph(self, msg: SceneGraphMsg) -> None:
        try:
            nodes = graph_objects_from_msg(msg)
        except (ValueError, TypeError) as exc:
            self.get_logger().warning(f"ignoring an unreadable scene graph: {type(exc).__name__}: {exc}")
            return
        self.perceived.on_graph(nodes, rclpy.time.Time.from_msg(msg.header.stamp).nanoseconds)

    def _on_detections(self, msg: DetectionArray) -> None:
        try:
            detections = [detection_from_msg(d) for d in msg.detections]
        except (ValueError, TypeError) as exc:
            self.get_logger().warning(f"ignoring unreadable detections: {type(exc).__name__}: {exc}")
            return
        self.perceived.on_detections(rclpy.time.Time.from_msg(msg.header.stamp).nanoseconds, detections)

    def _perceive_view(self) -> list[Detection]:
        """Perception's detections of the current view; then, up to ``graph_wait`` s, until the scene
        graph has integrated them too (a graph newer than the detections, stamped no earlier than the
        frame), so that new objects have nodes."""
        stamp = self.frame_stamps.next(self.world.t)
        detections, graphs_then, _ = self._until_perceived(self._render(camera=self._head_pose(), stamp=stamp),
                                                           lambda: self._publish_state(stamp))
        self.perceived.wait_graph(graphs_then, _stamp_ns(stamp), self.config.graph_wait)
        return detections

    def _until_perceived(self, frame, publish_state: Callable[[], None]) -> tuple[list[Detection], int, int]:
        """Publish the poses and a frame (again every ``perception_resend`` s: a frame can be lost) until the
        perception node's DetectionArray of its stamp arrives: (its detections, graphs received by then,
        times the frame was sent). Raises UNAVAILABLE after ``perception_timeout`` s."""
        key = _stamp_ns(frame.stamp)
        self.perceived.forget(key)  # an earlier frame of this stamp may show another state
        deadline = time.monotonic() + self.config.perception_timeout
        sends = 0
        while True:
            publish_state()
            self._publish_frame(frame)
            sends += 1
            answer = self.perceived.wait_detections(key, min(deadline, time.monotonic() + self.config.perception_resend)
                                                    - time.monotonic())
            if answer is not None:
                return (*answer, sends)
            if time.monotonic() >= deadline:
                raise MnemoError(Status.UNAVAILABLE, f"no detections of the current view on {names.DETECTIONS} within "
                                                     f"{self.config.perception_timeout:.1f} s: is perception up?")

    # -- skills ----------------------------------------------------------------------
    def _skill(self, response: Any, run: Callable[[], SkillResult]) -> Any:
        """Run one skill: frames before/during/after, interaction events, a fresh observation."""
        with self._lock:
            rendering = self.rendering
            before = self._render_state() if rendering else None
            before_pose = self.world.robot_pose
            before_frame = self._render(before_pose, before) if rendering else None
            self._events.clear()
            result = run()
            events, self._events[:] = list(self._events), []
            for event in events:
                if rendering:
                    event.frame_refs = self._save_frames(event, before_frame, before)
                self.pub_events.publish(interaction_to_msg(event))
            self._observe_now()
        fill_skill_response(response, result)
        raise_for_failure(result)
        return response

    def _render_state(self):
        from mnemo_sim.render import world_render_state

        return world_render_state(self.world)

    def _save_frames(self, event: InteractionEvent, before_frame, before) -> list[str]:
        return save_interaction_frames(self.data_dir / "interactions" / event.id, before_frame, before,
                                       self._render_state(), lambda state: self._render(self.world.robot_pose, state),
                                       moving=event.action != "navigate")

    def _navigate(self, request: Navigate.Request, response: Navigate.Response) -> Navigate.Response:
        target = request.target.strip()
        pose = None if target else pose2d_from_msg(request.pose)
        return self._skill(response, lambda: self.robot.navigate(target, pose))

    def _detect(self, request: Detect.Request, response: Detect.Response) -> Detect.Response:
        return self._skill(response, lambda: self.robot.detect(request.query))

    def _open(self, request: Open.Request, response: Open.Response) -> Open.Response:
        return self._skill(response, lambda: self.robot.open(_required(request.target)))

    def _close(self, request: Close.Request, response: Close.Response) -> Close.Response:
        return self._skill(response, lambda: self.robot.close(_required(request.target)))

    def _peek(self, request: Peek.Request, response: Peek.Response) -> Peek.Response:
        return self._skill(response, lambda: self.robot.peek(_required(request.target)))

    def _pick(self, request: Pick.Request, response: Pick.Response) -> Pick.Response:
        return self._skill(response, lambda: self.robot.pick(_required(request.target)))

    def _place(self, request: Place.Request, response: Place.Response) -> Place.Response:
        return self._skill(response, lambda: self.robot.place(_required(request.target)))

    # -- simulator control -----------------------------------------------------------
    def _run_patrol(self, request: RunPatrol.Request, response: RunPatrol.Response) -> RunPatrol.Response:
        if not math.isfinite(request.rate) or request.rate < 0:
            raise invalid(f"rate must be >= 0, got {request.rate}")
        until = parse_until(request.until_task, set(self.scenario.task_by_id))
        render = bool(request.render or self.rendering)
        every = max(1, int(self.config.image_every))
        period = 1.0 / request.rate if request.rate > 0 else 0.0
        # honest: perception paces the frames (each one perceived); else the schedule does (late ones skipped)
        awaits = self.honest and self.config.patrol_awaits_perception
        count = frames = sends = 0
        render_s = perceive_s = 0.0
        with self._lock:
            start = time.monotonic()
            for obs in self.runner.run_patrols(until):
                obs = replace(obs, stamp=self.frame_stamps.next(obs.stamp))
                behind = False
                if period:
                    delay = start + count * period - time.monotonic()
                    if delay > 0:
                        time.sleep(delay)
                    behind = delay < -period and not awaits  # rendering would lose the requested rate: skip it
                with_image = render and count % every == 0 and not behind
                if with_image and awaits:  # honest: the frame is all there is to publish
                    t0 = time.monotonic()
                    frame = self._render(camera=obs.camera_pose, stamp=obs.stamp)
                    t1 = time.monotonic()
                    sends += self._until_perceived(frame, lambda: self._publish_state(obs.stamp, obs))[2]
                    render_s, perceive_s = render_s + t1 - t0, perceive_s + time.monotonic() - t1
                else:
                    self._publish_state(obs.stamp, obs)
                    self._publish_observation(obs, with_image)
                count, frames = count + 1, frames + with_image
            response.observations = count
            response.clock = time_to_msg(self.world.t)
        wall = time.monotonic() - start
        timing = (f" ({sends} sent; per frame: render {1000 * render_s / frames:.0f} ms, publish until perceived "
                  f"{1000 * perceive_s / frames:.0f} ms)" if awaits and frames else "")
        self.get_logger().info(f"patrol: {count} observations, {frames} frames{' perceived' if awaits else ''}"
                               f"{timing} in {wall:.1f} s, clock now {self.world.t:.0f} s")
        return response

    def _start_task(self, request: StartTask.Request, response: StartTask.Response) -> StartTask.Response:
        with self._lock:
            info = self.runner.start_task(_required(request.task_id))
            self._observe_now()
        response.instruction, response.budget = info.instruction, int(info.budget)
        response.type, response.family = info.type, info.family
        response.clock = time_to_msg(info.clock)
        return response

    def _score_task(self, request: ScoreTask.Request, response: ScoreTask.Response) -> ScoreTask.Response:
        with self._lock:
            score = self.runner.score(_required(request.task_id), answer=request.answer)
        response.success, response.detail = bool(score.success), score.detail
        response.physical_actions, response.optimal_actions = int(score.physical_actions), int(score.optimal_actions)
        return response

    def close(self) -> None:
        if self._renderer is not None:
            self._renderer.close()
            self._renderer = None


def _stamp_ns(stamp: float) -> int:
    """A stamp as the messages carry it, in ns (the key perception's answers come back under)."""
    return rclpy.time.Time.from_msg(time_to_msg(stamp)).nanoseconds


def _required(text: str) -> str:
    if not text.strip():
        raise invalid("target must not be empty")
    return text.strip()


def main(args: Optional[list[str]] = None) -> None:
    run_node(SimNode, args)


if __name__ == "__main__":
    main()
