"""The decision loop (STAR IV-C/IV-D): at each step a policy picks one tool from the unified
action space given the instruction, the working memory H_k = (a_1..k-1, y_1..k-1) and the
remaining budget R_k; the tool runs (in memory or in the world), and (a_k, y_k) is appended.

Every step spends budget, whether it queried memory, moved the robot, or failed. An unknown
tool, bad arguments or a policy exception becomes an error outcome in the working memory and
costs a step; the loop itself never raises. The loop stops when the object is picked, the
policy answers or declares done, the budget is spent, or cancellation is requested.
"""
from __future__ import annotations

import inspect
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Protocol

from mnemo_common.types import PlannerStep

from mnemo_planner.tools import Action, ToolArgumentError, ToolOutcome, Toolbox, error_outcome, is_physical, validate


@dataclass
class WorkingEntry:
    """One (action, outcome) pair of the working memory."""

    action: Action
    outcome: ToolOutcome


@dataclass
class PolicyInput:
    instruction: str
    now: float  # robot clock when the task began
    budget: int
    remaining: int
    history: list[WorkingEntry]


class Policy(Protocol):
    def decide(self, state: PolicyInput) -> Action: ...


@dataclass
class TaskResult:
    success: bool  # as the planner believes; the scorer judges
    object_id: str = ""
    fixture_id: str = ""
    answer: str = ""
    trace: list[PlannerStep] = field(default_factory=list)
    steps_used: int = 0
    physical_actions: int = 0
    canceled: bool = False
    message: str = ""


class _Suspended(RuntimeError):
    pass


def _outcome_of(value: Any) -> ToolOutcome:
    if not isinstance(value, ToolOutcome):
        return error_outcome(f"toolbox returned {type(value).__name__}, not a ToolOutcome")
    return value


async def run_task_async(instruction: str, budget: int, policy: Policy, toolbox: Toolbox,
                         clock_now: Callable[[], float],
                         on_step: Optional[Callable[[PlannerStep], None]] = None,
                         should_cancel: Optional[Callable[[], bool]] = None) -> TaskResult:
    """The loop; awaits the toolbox when it returns awaitables (the ROS toolbox)."""
    history: list[WorkingEntry] = []
    result = TaskResult(success=False)
    start = float(clock_now())
    fixture = ""
    for index in range(int(budget)):
        if should_cancel is not None and should_cancel():
            result.canceled, result.message = True, "canceled"
            break
        t0 = time.perf_counter()
        remaining = int(budget) - index
        outcome: Optional[ToolOutcome] = None
        try:
            raw = policy.decide(PolicyInput(instruction, start, int(budget), remaining, list(history)))
        except Exception as exc:  # noqa: BLE001 - a failing policy costs a step, never the task
            action, outcome = Action("policy_error"), error_outcome(f"policy failed: {type(exc).__name__}: {exc}")
        else:
            action = raw if isinstance(raw, Action) else Action(str(raw))
            try:
                action = validate(action)
            except ToolArgumentError as exc:
                outcome = error_outcome(str(exc))
        if outcome is None:
            if action.tool in ("answer", "done"):
                outcome = ToolOutcome(True, "task ended", {})
            else:
                try:
                    value = toolbox.execute(action)
                    if inspect.isawaitable(value):
                        value = await value
                    outcome = _outcome_of(value)
                except Exception as exc:  # noqa: BLE001 - a failing tool is an outcome
                    outcome = error_outcome(f"{action.tool} failed: {type(exc).__name__}: {exc}")
            if is_physical(action.tool):
                result.physical_actions += 1
        history.append(WorkingEntry(action, outcome))
        step = PlannerStep(index=index, tool=action.tool, arguments=action.text_arguments(), ok=outcome.ok,
                           outcome=outcome.summary, remaining_budget=remaining - 1,
                           duration=time.perf_counter() - t0)
        result.trace.append(step)
        result.steps_used = index + 1
        if on_step is not None:
            try:
                on_step(step)
            except Exception:  # noqa: BLE001 - a feedback failure must not end the task
                pass
        if action.tool == "navigate" and outcome.ok:
            fixture = str(outcome.data.get("at_fixture", "")) or ""
        if action.tool == "answer" and outcome.ok:
            result.success, result.answer = True, str(action.arguments.get("text", ""))
            break
        if action.tool == "done" and outcome.ok:
            result.success = bool(action.arguments.get("success", True))
            result.message = str(action.arguments.get("reason", ""))
            break
        if action.tool == "pick" and outcome.ok:
            result.success = True
            result.object_id = str(outcome.data.get("picked_id", "")) or str(action.arguments.get("target", ""))
            result.message = action.note
            break
    else:
        result.message = "budget spent"
    result.fixture_id = fixture
    return result


def run_task(instruction: str, budget: int, policy: Policy, toolbox: Toolbox, clock_now: Callable[[], float],
             on_step: Optional[Callable[[PlannerStep], None]] = None,
             should_cancel: Optional[Callable[[], bool]] = None) -> TaskResult:
    """The loop with a synchronous toolbox (in-process). Drives the coroutine without an event
    loop: with a synchronous toolbox it never suspends."""
    coro = run_task_async(instruction, budget, policy, toolbox, clock_now, on_step, should_cancel)
    try:
        coro.send(None)
    except StopIteration as stop:
        return stop.value
    coro.close()
    raise _Suspended("run_task needs a synchronous toolbox; use run_task_async with an awaitable one")
