"""The planner node: serves the RetrieveObject action by running the decision loop, with memory,
scene-graph, keyframe and skill services called asynchronously from the action's execute
callback. Feedback after every step; cancel at any time; each step also on PLANNER_STEPS."""
from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Optional

from mnemo_common import names
from mnemo_common.limits import check_budget, check_message, clip
from mnemo_common.ros import time_from_msg, declare_config, run_node
from mnemo_common.types import MnemoError, Status
from mnemo_interfaces.action import RetrieveObject
from mnemo_interfaces.msg import PlannerStep as PlannerStepMsg
from rclpy.action import ActionServer, CancelResponse, GoalResponse
from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.node import Node

from mnemo_planner.conversions import step_to_msg
from mnemo_planner.loop import run_task_async
from mnemo_planner.ros_toolbox import RosToolbox

NODE_NAME = names.PLANNER_NODE


@dataclass(frozen=True)
class PlannerConfig:
    policy: str = "offline"
    llm_base_url: str = ""
    llm_model: str = "gpt-4o-mini"
    llm_vision: bool = True
    default_budget: int = 20
    max_budget: int = 200
    service_timeout: float = 30.0
    skill_timeout: float = 300.0
    use_keyframes: bool = True
    warm_up: bool = True
    time_zone: str = ""


CONFIG_TYPE = PlannerConfig
DESCRIPTIONS = {
    "policy": "offline (no model) or llm (OpenAI-compatible tool calling)",
    "llm_base_url": "OpenAI-compatible endpoint for the llm policy; empty falls back to offline",
    "llm_model": "model name for the llm policy",
    "llm_vision": "attach retrieved keyframes as images to the llm prompt",
    "default_budget": "step budget suggested to clients (goals must give one, 1..max_budget)",
    "max_budget": "largest step budget a goal may ask for",
    "service_timeout": "seconds to wait for a memory, scene-graph or keyframe service",
    "skill_timeout": "seconds to wait for a skill service",
    "use_keyframes": "let policies retrieve keyframes",
    "warm_up": "load the embedding model at start so the first goal does not wait for it",
    "time_zone": "IANA time zone in which time words ('this morning', 'on Monday') are read on ROS wall time "
                 "('' = the machine's zone); a simulator's /clock uses the simulator's calendar",
}


def make_policy(config: PlannerConfig, context=None, calendar=None):
    """A fresh policy for one goal: the offline policy (``mnemo_planner.policy.GeneralPolicy``), or the
    LLM policy with the offline policy as its fallback (it continues the task when the endpoint fails).
    ``context``: the conversation; ``calendar``: how time words map to the clock."""
    from mnemo_planner.policy import GeneralPolicy

    offline = GeneralPolicy(context=context, calendar=calendar)
    if config.policy == "llm" and config.llm_base_url:
        from mnemo_common.llm import LlmConfig

        from mnemo_planner.llm_policy import LlmPolicy

        return LlmPolicy(LlmConfig.from_values(config.llm_base_url, config.llm_model, vision=config.llm_vision),
                         fallback=offline)
    return offline


def check_goal(goal: RetrieveObject.Goal, max_budget: int) -> Optional[str]:
    """Why a goal is refused (INVALID_ARGUMENT), or None: mnemo_common.limits bound every field."""
    try:
        check_message(goal)
    except MnemoError as exc:
        return exc.message
    if not goal.instruction.strip():
        return "instruction is empty"
    return check_budget(int(goal.budget), max_budget)


class PlannerNode(Node):
    def __init__(self, **kwargs):
        super().__init__(NODE_NAME, **kwargs)
        self.config: PlannerConfig = declare_config(self, CONFIG_TYPE, DESCRIPTIONS)
        if self.config.policy not in ("offline", "llm"):
            raise ValueError(f"policy must be offline or llm, got {self.config.policy!r}")
        self.toolbox = RosToolbox(self, self.config.service_timeout, self.config.skill_timeout,
                                  self.config.use_keyframes)
        self.steps_pub = self.create_publisher(PlannerStepMsg, names.PLANNER_STEPS, 50)
        # The robot clock that memory stamps use: /clock when a simulator publishes one (the built-in
        # simulator jumps between days, so nodes keep wall-time timers and only the task clock follows it).
        self._sim_clock: Optional[float] = None
        from rosgraph_msgs.msg import Clock

        self.create_subscription(Clock, names.CLOCK, self._on_clock, 10)
        self._busy = threading.Lock()
        from mnemo_planner.dialogue import DialogueContext

        self.dialogue = DialogueContext()  # one conversation across goals: a follow-up continues the previous one
        self.action_server = ActionServer(
            self, RetrieveObject, names.RETRIEVE_OBJECT, execute_callback=self._execute,
            goal_callback=self._on_goal, cancel_callback=lambda _: CancelResponse.ACCEPT,
            callback_group=ReentrantCallbackGroup())
        if self.config.warm_up:  # the llm policy falls back to the offline one, which needs the model
            threading.Thread(target=self._warm_up, daemon=True).start()
        self.get_logger().info(f"planner ready ({self.config.policy} policy) on {names.RETRIEVE_OBJECT}")

    def _warm_up(self) -> None:
        try:
            from mnemo_common.embedding import get_embedder

            get_embedder().embed(["warm up"])
        except Exception as exc:  # noqa: BLE001 - a failed warm-up only delays the first goal
            self.get_logger().warning(f"embedding model warm-up failed: {exc}")

    def _on_goal(self, goal) -> GoalResponse:
        # Bad goals are accepted and aborted with an error code, so the client learns why.
        return GoalResponse.ACCEPT

    def _on_clock(self, msg) -> None:
        self._sim_clock = time_from_msg(msg.clock)

    def calendar(self):
        """The simulator's calendar under /clock, else ROS wall time read in the configured zone."""
        from mnemo_planner.calendar import Calendar

        return Calendar.simulator() if self._sim_clock is not None else Calendar.wall(self.config.time_zone)

    def now(self) -> float:
        if self._sim_clock is not None:
            return self._sim_clock
        return self.get_clock().now().nanoseconds / 1e9

    async def _execute(self, goal_handle):
        goal = goal_handle.request
        result = RetrieveObject.Result()
        problem = check_goal(goal, self.config.max_budget)
        if problem is None and not self._busy.acquire(blocking=False):
            problem, code = "another task is running", Status.REJECTED
        else:
            code = Status.INVALID_ARGUMENT
        if problem is not None:
            result.error_code, result.error_msg = int(code), problem
            goal_handle.abort()
            return result
        try:
            canceled = lambda: goal_handle.is_cancel_requested  # noqa: E731
            self.toolbox.should_cancel = canceled
            self.toolbox.horizon = self.now()  # memory answers: what was observed before the task began

            def on_step(step) -> None:
                msg = step_to_msg(step)
                self.steps_pub.publish(msg)
                goal_handle.publish_feedback(RetrieveObject.Feedback(step=msg, remaining_budget=msg.remaining_budget))

            self.get_logger().info(f"task {goal.task_id or '-'}: {clip(goal.instruction)!r} (budget {goal.budget})")
            try:
                policy = make_policy(self.config, self.dialogue, self.calendar())
                outcome = await run_task_async(goal.instruction, int(goal.budget), policy, self.toolbox, self.now,
                                               on_step=on_step, should_cancel=canceled)
            except Exception as exc:  # noqa: BLE001 - the node keeps serving
                self.get_logger().error(f"task failed: {type(exc).__name__}: {clip(str(exc))}")
                result.error_code, result.error_msg = int(Status.INTERNAL), f"{type(exc).__name__}: {exc}"
                goal_handle.abort()
                return result
            result.success = bool(outcome.success)
            result.object_id, result.fixture_id, result.answer = outcome.object_id, outcome.fixture_id, outcome.answer
            result.trace = [step_to_msg(s) for s in outcome.trace]
            result.steps_used, result.physical_actions = outcome.steps_used, outcome.physical_actions
            if outcome.canceled:
                result.error_code, result.error_msg = int(Status.CANCELED), "canceled"
                goal_handle.canceled()
            else:
                result.error_msg = outcome.message
                goal_handle.succeed()
            self.get_logger().info(f"task {goal.task_id or '-'}: success={result.success} steps={result.steps_used} "
                                   f"physical={result.physical_actions}")
            return result
        finally:
            self.toolbox.should_cancel = lambda: False
            self._busy.release()

    def close(self) -> None:
        self.action_server.destroy()
        self.toolbox.destroy()


def main(args=None) -> None:
    run_node(PlannerNode, args)


if __name__ == "__main__":
    main()
