"""The planner's tools over the cores in one process (no ROS): the benchmark and the tests use it.

`InProcessToolbox` executes actions against a robot exposing the skill calls
(navigate/detect/open/close/peek/pick/place -> SkillResult), a memory service
(search_text/search_time/search_position/get), a SceneGraph core, the interaction analyzer
(learning from doing: what a skill's signals reveal, e.g. a locked door, is written into the
scene graph) and a keyframe retriever. Each part can be switched off for ablations; a switched-off
tool answers an error outcome (and still costs the step the policy spent on it). ``horizon``, when
set, is the running task's start clock: memory answers hold only records stamped no later.

`InProcessStack` runs a whole scenario in one process under the benchmark's protocol: a task
sees only evidence stamped no later than its start (memory through ``horizon``, the scene graph
through ``horizon.GraphHistory``) and what it observes itself.
"""
from __future__ import annotations

import uuid
from dataclasses import asdict, dataclass
from typing import Any, Callable, Optional

from mnemo_common.types import (
    Detection, InteractionEvent, MemoryFilter, MemoryRecord, MnemoError, Pose2D, PropertyValue, SkillResult, Status,
)

from mnemo_planner.horizon import GraphHistory
from mnemo_planner.tools import Action, ToolOutcome, error_outcome


@dataclass(frozen=True)
class Ablation:
    """Which parts of memory the planner may use (MessyMem's table: SG, SG+IA, SG+KF, SG+IA+KF;
    STAR's TR+S is use_scene_graph=False)."""

    use_memory: bool = True
    use_scene_graph: bool = True
    use_interaction_analysis: bool = True
    use_keyframes: bool = False


def node_dict(node: Any) -> dict:
    """A scene-graph node as the plain dict the policies read (same keys over ROS)."""
    props = {k: getattr(v, "value", v) for k, v in (getattr(node, "properties", {}) or {}).items()}
    return {"id": node.id, "label": node.label, "kind": node.kind, "position": tuple(node.position),
            "room": node.room, "parent": node.parent, "relation": node.relation,
            "first_seen": float(node.first_seen), "last_seen": float(node.last_seen),
            "observation_count": int(node.observation_count), "properties": props,
            "contents": list(node.contents), "state": node.state, "task_history": list(node.task_history),
            "trail": [{"parent": loc.parent, "since": float(loc.since), "until": float(loc.until)}
                      for loc in [*getattr(node, "location_trail", []), node.location()] if loc.parent]
            if hasattr(node, "location") else []}


def describe_records(records: list[MemoryRecord], limit: int = 5) -> str:
    if not records:
        return "no records"
    parts = []
    for r in records[:limit]:
        day, rest = divmod(int(r.stamp), 86400)
        parts.append(f"[{r.id} day {day} {rest // 3600:02d}:{rest % 3600 // 60:02d} {r.room}] {r.caption[:160]}")
    more = f" (+{len(records) - limit} more)" if len(records) > limit else ""
    return f"{len(records)} records: " + " | ".join(parts) + more


def describe_nodes(nodes: list[dict], limit: int = 12) -> str:
    if not nodes:
        return "no nodes"
    parts = []
    for n in nodes[:limit]:
        where = f" {n['relation'] or 'at'} {n['parent']}" if n.get("parent") else ""
        props = ",".join(f"{k}={v}" for k, v in n.get("properties", {}).items() if k != "instance_id")
        parts.append(f"{n['id']} ({n['label']}{'; ' + props if props else ''}){where} [{n.get('state', '')}]")
    more = f" (+{len(nodes) - limit} more)" if len(nodes) > limit else ""
    return f"{len(nodes)} nodes: " + "; ".join(parts) + more


def describe_detections(detections: list[Detection]) -> str:
    if not detections:
        return "nothing seen"
    return "saw " + ", ".join(
        f"{d.label}" + (f" ({','.join(f'{v}' for v in d.attributes.values())})" if d.attributes else "")
        + (f" [{d.instance_id or d.node_id}]" if (d.instance_id or d.node_id) else "") for d in detections)


def memory_filter(args: dict) -> MemoryFilter:
    f = MemoryFilter(since=args.get("since"), until=args.get("until"), room=args.get("room", ""),
                     labels=list(args.get("labels", [])))
    if "x" in args and "y" in args and args.get("radius", 0.0) > 0:
        f.near, f.radius = (float(args["x"]), float(args["y"])), float(args["radius"])
    return f


def within_horizon(f: MemoryFilter, horizon: Optional[float]) -> MemoryFilter:
    """The filter, further bounded to records stamped no later than ``horizon`` (when set)."""
    if horizon is not None:
        f.until = horizon if f.until is None else min(f.until, horizon)
    return f


def check_horizon(record: MemoryRecord, horizon: Optional[float]) -> MemoryRecord:
    if horizon is not None and record.stamp > horizon:
        raise MnemoError(Status.NOT_FOUND, f"no memory record with id {record.id!r} before the task began")
    return record


class InProcessToolbox:
    def __init__(self, robot: Any, memory: Any = None, graph: Any = None, analyzer: Any = None,
                 keyframes: Any = None, ablation: Ablation = Ablation(),
                 clock: Optional[Callable[[], float]] = None):
        self.robot, self.memory, self.graph = robot, memory, graph
        self.analyzer, self.keyframes, self.ablation = analyzer, keyframes, ablation
        self.clock = clock or (lambda: 0.0)
        self.horizon: Optional[float] = None  # the running task's start clock: no memory record stamped later
        self.tool_seconds = 0.0  # time spent inside the cores (the benchmark's baseline)

    def execute(self, action: Action) -> ToolOutcome:
        import time

        handler = getattr(self, "_" + action.tool, None)
        if handler is None:
            return error_outcome(f"tool {action.tool!r} is not available here")
        t0 = time.perf_counter()
        try:
            return handler(**action.arguments)
        except MnemoError as exc:
            return error_outcome(f"{exc.code.name.lower()}: {exc.message}")
        finally:
            self.tool_seconds += time.perf_counter() - t0

    # -- memory ------------------------------------------------------------------------------
    def _need_memory(self) -> None:
        if self.memory is None or not self.ablation.use_memory:
            raise MnemoError(3, "long-term memory is not available")

    def _records(self, records: list[MemoryRecord]) -> ToolOutcome:
        # Records that score alike (the same caption at other times) come newest first: an approximate
        # index returns ties in no particular order, and runs of one seed must not differ.
        records = sorted(records, key=lambda r: (-round(float(getattr(r, "score", 0.0) or 0.0), 4), -r.stamp, r.id))
        return ToolOutcome(True, describe_records(records), {"records": records})

    def _search_memory(self, text: str, k: int = 5, **kw: Any) -> ToolOutcome:
        self._need_memory()
        return self._records(self.memory.search_text(text, k=k,
                                                     filter=within_horizon(memory_filter(kw), self.horizon)))

    def _search_memory_time(self, since: Optional[float] = None, until: Optional[float] = None,
                            around: Optional[float] = None, text: str = "", k: int = 5, room: str = "") -> ToolOutcome:
        self._need_memory()
        return self._records(self.memory.search_time(since=since, until=until, around=around, k=k, text=text,
                                                     filter=within_horizon(MemoryFilter(room=room), self.horizon)))

    def _search_memory_position(self, x: float, y: float, radius: float = 0.0, text: str = "", k: int = 5) -> ToolOutcome:
        self._need_memory()
        return self._records(self.memory.search_position(x, y, radius=radius, k=k, text=text,
                                                         filter=within_horizon(MemoryFilter(), self.horizon)))

    def _look_again(self, record_id: str) -> ToolOutcome:
        self._need_memory()
        record = check_horizon(self.memory.get(record_id), self.horizon)
        raw = getattr(record, "raw_ref", "")
        sightings = ", ".join(f"{s.label}@{s.support or '?'}" for s in record.sightings)
        return ToolOutcome(True, f"{record.caption} | sightings: {sightings} | raw: {raw or 'none'}",
                           {"record": record, "raw_path": raw})

    # -- scene graph --------------------------------------------------------------------------
    def _need_graph(self) -> None:
        if self.graph is None or not self.ablation.use_scene_graph:
            raise MnemoError(3, "the scene graph is not available")

    def _query_scene_graph(self, label: str = "", attributes: Optional[dict] = None, in_fixture: str = "",
                           room: str = "", include_stale: bool = False, k: int = 0) -> ToolOutcome:
        self._need_graph()
        nodes = [node_dict(n) for n in self.graph.query(label=label or None, attributes=attributes or None,
                                                        in_fixture=in_fixture or None, room=room or None,
                                                        include_stale=include_stale, k=k)]
        return ToolOutcome(True, describe_nodes(nodes), {"nodes": nodes})

    def _node_history(self, node_id: str) -> ToolOutcome:
        self._need_graph()
        node = node_dict(self.graph.get(self.graph.resolve(node_id)))
        events = [e.to_dict() if hasattr(e, "to_dict") else asdict(e) for e in self.graph.history(node_id)]
        lines = [f"{e.get('kind')}:{e.get('field', '')}={e.get('new')}" for e in events[-8:]]
        return ToolOutcome(True, f"{describe_nodes([node])}; history: {'; '.join(lines) or 'none'}",
                           {"node": node, "events": events})

    def _retrieve_keyframes(self, task: str, k: int = 4) -> ToolOutcome:
        if self.keyframes is None or not self.ablation.use_keyframes:
            return error_outcome("keyframes are not available")
        frames = list(self.keyframes.retrieve(task, k=k))
        frames = [getattr(f, "meta", f) for f in frames]
        text = "; ".join(f"{f.id} ({f.trigger} {f.action} {','.join(f.labels)}) {f.caption[:80]}" for f in frames)
        return ToolOutcome(True, f"{len(frames)} keyframes: {text or 'none'}", {"keyframes": frames})

    # -- physical skills ------------------------------------------------------------------------
    def _skill(self, result: SkillResult, data: dict) -> ToolOutcome:
        data["outcome"] = int(result.outcome)  # the typed outcome (a SkillCode) the policy branches on
        data.setdefault("signals", result.signals)
        learned = self._learn(result)
        if learned:
            data["learned"] = learned
            if learned.get("locked") == "true":
                data["locked"] = True
        text = result.message or ("ok" if result.success else "failed")
        if learned:
            text += " (learned " + ", ".join(f"{k}={v}" for k, v in learned.items()) + ")"
        return ToolOutcome(bool(result.success), f"{result.skill} {result.target}: {text}", data)

    def _update_graph(self, target: str, **change: Any) -> None:
        self.graph.update(target, **change)

    def _learn(self, result: SkillResult) -> dict[str, str]:
        """Learning from doing: the analyzer reads the skill's signals; its findings go to the scene
        graph. Without the analyzer the graph still records what was done (task history)."""
        if result.skill not in ("open", "close", "pick", "place", "peek"):
            return {}
        now = float(self.clock())
        if self.analyzer is None or not self.ablation.use_interaction_analysis:
            if self.graph is not None and self.ablation.use_scene_graph and result.target in self.graph:
                contents = [d.label for d in result.detections] if result.skill == "peek" else []
                self._update_graph(result.target, contents_add=contents, source="interaction", stamp=now,
                                   outcome=f"{result.skill}:{'ok' if result.success else 'failed'}")
            return {}
        event = InteractionEvent(id=result.interaction_id or uuid.uuid4().hex[:12], action=result.skill,
                                 target=result.target, start=now - max(result.signals.duration, 0.0), end=now,
                                 success=result.success, code=result.code, message=result.message,
                                 signals=result.signals, seen_contents=[d.label for d in result.detections],
                                 picked_id=result.picked_id, robot_pose=result.robot_pose)
        graph_on = self.graph is not None and self.ablation.use_scene_graph and result.target in self.graph
        prior = list(self.graph.get(result.target).contents) if graph_on else None
        analysis = self.analyzer.analyze(event, prior)
        updates = {**dict(getattr(analysis, "new_properties", {}) or {}),
                   **dict(getattr(analysis, "property_updates", {}) or {})}
        learned = {k: str(getattr(v, "value", v)) for k, v in updates.items()}
        if getattr(analysis, "failure_reason", "") == "locked":
            learned["locked"] = "true"
        if graph_on:
            props = {k: (v if isinstance(v, PropertyValue) else PropertyValue(str(v), 1.0, "interaction", now))
                     for k, v in updates.items()}
            self._update_graph(result.target, properties=props, contents_add=getattr(analysis, "contents_add", []),
                               contents_remove=getattr(analysis, "contents_remove", []),
                               outcome=getattr(analysis, "outcome", ""), source="interaction", stamp=now)
        return learned

    def _navigate(self, target: str = "", x: Optional[float] = None, y: Optional[float] = None,
                  yaw: float = 0.0) -> ToolOutcome:
        pose = Pose2D(float(x), float(y), float(yaw)) if x is not None and y is not None and not target else None
        r = self.robot.navigate(target=target, pose=pose)
        pose_t = (r.robot_pose.x, r.robot_pose.y, r.robot_pose.yaw) if r.robot_pose else None
        return self._skill(r, {"at_fixture": r.at_fixture, "room": r.room, "robot_pose": pose_t})

    def _detect(self, query: str = "") -> ToolOutcome:
        r = self.robot.detect(query)
        out = self._skill(r, {"detections": list(r.detections)})
        out.summary = f"detect: {describe_detections(r.detections)}" if r.success else out.summary
        return out

    def _open(self, target: str) -> ToolOutcome:
        return self._skill(self.robot.open(target), {})

    def _close(self, target: str) -> ToolOutcome:
        return self._skill(self.robot.close(target), {})

    def _peek(self, target: str) -> ToolOutcome:
        r = self.robot.peek(target)
        out = self._skill(r, {"contents": list(r.detections)})
        out.summary = f"peek {target}: {describe_detections(r.detections)}" if r.success else out.summary
        return out

    def _pick(self, target: str) -> ToolOutcome:
        r = self.robot.pick(target)
        return self._skill(r, {"picked_id": r.picked_id, "picked_label": r.picked_label,
                               "reachable_from": r.reachable_from})

    def _place(self, target: str) -> ToolOutcome:
        return self._skill(self.robot.place(target), {})


# -- the whole stack in one process: patrol into memory, then every task through the loop ----------
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


def _default_memory():
    """The memory core in a temporary directory, when mnemo_memory is importable (else None)."""
    try:
        import tempfile

        from mnemo_common.embedding import get_embedder
        from mnemo_memory.service import MemoryService
    except ImportError:
        return None
    return MemoryService.open(get_embedder(), data_dir=tempfile.mkdtemp(prefix="mnemo_planner_memory_"))


def _record(obs: Any) -> Any:
    from mnemo_memory.ingest import record_from_observation

    return record_from_observation(obs, obs.caption)


def integration(obs: Any) -> Callable[[Any], Any]:
    """An oracle observation as scene-graph evidence: the call that integrates it into a graph."""
    return lambda graph: graph.integrate_observation(obs)


class _ObservingToolbox(InProcessToolbox):
    """Everything the robot sees while acting goes into memory and the scene graph too; what it
    learns by doing is recorded as scene-graph evidence (``record(stamp, apply)``), so the graphs
    of later tasks hold it once their start is past its stamp."""

    def __init__(self, *args, observe: Optional[Callable[[], Any]] = None, sink: Optional[Callable[[Any], None]] = None,
                 record: Optional[Callable[[float, Callable[[Any], Any]], Any]] = None, **kwargs):
        super().__init__(*args, **kwargs)
        self._observe, self._sink, self._record = observe, sink, record

    def _update_graph(self, target: str, **change: Any) -> None:
        if self._record is None:
            return super()._update_graph(target, **change)
        self._record(change["stamp"], lambda graph: graph.update(target, **change) if target in graph else None)

    def execute(self, action: Action) -> ToolOutcome:
        import time

        outcome = super().execute(action)
        if action.tool in ("navigate", "open", "close", "pick", "place", "peek") and self._observe is not None:
            t0 = time.perf_counter()
            self._sink(self._observe())
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
        self.memory = _default_memory() if memory == "default" else memory
        if analyzer == "default":
            try:
                from mnemo_interaction.signals import SignalAnalyzer

                analyzer = SignalAnalyzer()
            except (ImportError, TypeError):
                analyzer = None
        self.analyzer = analyzer
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
                self.memory.add([_record(obs)])
            else:
                batch.append(_record(obs))
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
