"""The whole stack in one process (no ROS): patrol into memory, then every task through the loop.

`InProcessStack` runs a whole scenario in one process under the benchmark's protocol: a task
sees only evidence stamped no later than its start (memory through ``horizon``, the scene graph
through ``horizon.GraphHistory``) and what it observes itself. The tools it gives the policy are
``toolbox.InProcessToolbox``'s.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Optional

from mnemo_interaction.signals import SignalAnalyzer
from mnemo_interaction.updates import NodeUpdate
from mnemo_planner.tools import Action, ToolOutcome

from mnemo_bench.ablation import Ablation
from mnemo_bench.horizon import GraphHistory
from mnemo_bench.memory import make_memory
from mnemo_bench.toolbox import InProcessToolbox


@dataclass
class TaskRun:
    task_id: str
    type: str
    family: str
    instruction: str
    success: bool  # per the simulator's scorer
    planner_success: bool  # what the planner believed
    detail: str
    steps: int
    budget: int
    physical_actions: int
    optimal_actions: int
    wall_time: float
    planner_seconds: float  # wall time minus the time spent inside tools (skills, memory, graph)
    answer: str = ""
    object_id: str = ""
    trace: list = None  # list[PlannerStep]


def memory_record(obs: Any) -> Any:
    """An oracle observation as a memory record."""
    from mnemo_memory.ingest import record_from_observation

    return record_from_observation(obs, obs.caption)


def integration(obs: Any) -> Callable[[Any], Any]:
    """An oracle observation as scene-graph evidence: the call that integrates it into a graph."""
    return lambda graph: graph.integrate_observation(obs)


class _ObservingToolbox(InProcessToolbox):
    """Everything the robot sees while acting (``observe()``, after each physical action) goes into
    memory and the scene graph too (``sink``); what it learns by doing is recorded as scene-graph
    evidence (``record(stamp, apply)``), so the graphs of later tasks hold it once their start is
    past its stamp."""

    def __init__(self, *args, observe: Optional[Callable[[], Any]] = None, sink: Optional[Callable[[Any], None]] = None,
                 record: Optional[Callable[[float, Callable[[Any], Any]], Any]] = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.observe = observe
        self._sink, self._record = sink, record

    def _write(self, update: NodeUpdate, stamp: float) -> None:
        if self._record is None:
            return super()._write(update, stamp)
        self._record(stamp, lambda graph: update.apply(graph, stamp) if update.node_id in graph else None)

    def execute(self, action: Action) -> ToolOutcome:
        import time

        outcome = super().execute(action)
        if action.tool in ("navigate", "open", "close", "pick", "place", "peek") and self.observe is not None:
            t0 = time.perf_counter()
            self._sink(self.observe())
            self.tool_seconds += time.perf_counter() - t0
        return outcome


class InProcessStack:
    """A scenario's simulator, memory, scene graph and analyzer in one process.

    `patrol(until)` feeds every patrol observation before `until` into memory and the scene graph;
    `run_task(task_id, policy)` starts the task in the simulator, runs the loop and scores it;
    `run_all` runs tasks in clock order (`mnemo_sim.tasks.ordered_tasks`).

    The horizon: a task's memory answers and scene graph (`graph`) hold only evidence stamped no
    later than its start clock, plus what it observes itself, so a task never benefits from what
    the robot observed in a task that ran earlier but started later or at the same clock (an
    independent trial). Likewise the dialogue context carries over only from a task that had
    ended when this one starts.
    """

    def __init__(self, scenario: Any, ablation: Ablation = Ablation(), seed: Optional[int] = None,
                 memory: Any = "default", analyzer: Any = "default", keyframes: Any = None):
        from mnemo_scene_graph.graph import SceneGraph
        from mnemo_sim.scenario import load_scenario
        from mnemo_sim.tasks import TaskRunner

        self.scenario = load_scenario(scenario) if not hasattr(scenario, "tasks") else scenario
        self.ablation = ablation
        self.runner = TaskRunner(self.scenario, seed)
        self.history = GraphHistory(SceneGraph())
        self.memory = make_memory() if memory == "default" else memory
        self.analyzer = SignalAnalyzer() if analyzer == "default" else analyzer
        self.keyframes = keyframes
        self.observations = 0
        from mnemo_planner.dialogue import DialogueContext

        self.dialogue = DialogueContext()  # consecutive requests: a follow-up continues the previous one
        self._last_end = float("-inf")  # world clock when the previous task ended
        self.toolbox = _ObservingToolbox(self.runner.robot, self.memory, self.graph, self.analyzer, keyframes,
                                         ablation, clock=lambda: self.runner.world.t,
                                         observe=self.runner.robot.observe, sink=self.ingest,
                                         record=self.history.record)

    @property
    def graph(self) -> Any:
        """The scene graph as of the running task's start (or the last patrol) and what it saw since."""
        return self.history.view

    def _view_as_of(self, clock: float) -> None:
        self.toolbox.graph = self.history.as_of(clock)

    def _join_patrols(self, until: Any) -> None:
        """Before the patrols up to ``until`` run: the graph their observations join holds
        nothing stamped after the first of them."""
        segments = self.runner.patrols_until(until)
        if segments:
            self._view_as_of(segments[0].start_t)

    def ingest(self, obs: Any, batch: Optional[list] = None) -> None:
        """One observation into the scene graph and (batched when a list is given) into memory."""
        self.history.record(obs.stamp, integration(obs))
        if self.memory is not None:
            if batch is None:
                self.memory.add([memory_record(obs)])
            else:
                batch.append(memory_record(obs))
        self.observations += 1

    def patrol(self, until: Any) -> int:
        self._join_patrols(until)
        n, batch = 0, []
        for obs in self.runner.run_patrols(until):
            self.ingest(obs, batch)
            n += 1
            if len(batch) >= 512:
                self.memory.add(batch)
                batch = []
        if batch:
            self.memory.add(batch)
        return n

    def run_task(self, task_id: str, policy: Any, instruction: str = "") -> TaskRun:
        """Run one task (optionally with a paraphrased instruction) and score it."""
        import time

        from mnemo_planner.loop import run_task

        self.patrol(task_id)
        info = self.runner.start_task(task_id)
        task = self.scenario.task_by_id[task_id]
        self._view_as_of(info.clock)
        self.toolbox.horizon = info.clock
        self.toolbox.tool_seconds = 0.0
        if info.clock < self._last_end:  # the previous request is another trial, not one that came before
            self.dialogue.last = None
        if getattr(policy, "context", False) is None:
            policy.context = self.dialogue
        t0 = time.perf_counter()
        result = run_task(instruction or info.instruction, info.budget, policy, self.toolbox, lambda: self.runner.world.t)
        wall = time.perf_counter() - t0
        self._last_end = self.runner.world.t
        score = self.runner.score(task_id, answer=result.answer)
        return TaskRun(task_id, task.type, task.family, instruction or task.instruction, bool(score.success), result.success,
                       score.detail, result.steps_used, info.budget, score.physical_actions, score.optimal_actions,
                       wall, max(0.0, wall - self.toolbox.tool_seconds), result.answer, result.object_id,
                       result.trace)

    def run_all(self, policy_factory: Callable[[], Any], task_ids: Optional[list[str]] = None) -> list[TaskRun]:
        """The tasks (all, or the given ones) in clock order, each with a fresh policy."""
        from mnemo_sim.tasks import ordered_tasks

        unknown = set(task_ids or ()) - set(self.scenario.task_by_id)
        if unknown:
            raise KeyError(f"no tasks named {sorted(unknown)}")
        ids = [t.id for t in ordered_tasks(self.scenario) if not task_ids or t.id in task_ids]
        return [self.run_task(tid, policy_factory()) for tid in ids]


def run_scenario(scenario: Any, policy_factory: Optional[Callable[[], Any]] = None, ablation: Ablation = Ablation(),
                 seed: Optional[int] = None, task_ids: Optional[list[str]] = None, **kwargs: Any) -> list[TaskRun]:
    """Patrol, then every task (or the given ones) with a fresh policy each; the benchmark's entry point."""
    if policy_factory is None:
        from mnemo_planner.policy import GeneralPolicy

        def policy_factory():
            return GeneralPolicy(use_scene_graph=ablation.use_scene_graph, use_memory=ablation.use_memory)
    stack = InProcessStack(scenario, ablation, seed, **kwargs)
    return stack.run_all(policy_factory, task_ids)
