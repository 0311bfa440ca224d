"""The planner's tools over the cores in one process (no ROS): the benchmark's toolbox, the
in-process counterpart of ``mnemo_planner.ros_toolbox.RosToolbox`` (``mnemo_planner.tools.Toolbox``).

`InProcessToolbox` executes actions against a robot exposing the skill calls
(navigate/detect/open/close/peek/pick/place -> SkillResult), a memory service
(search_text/search_time/search_position/get), a SceneGraph core, the interaction analyzer's
signal analysis (learning from doing: what a skill's signals reveal, e.g. a locked door, is written
into the scene graph as the analyzer node writes it) and a keyframe retriever. Each part can be
switched off (``ablation.Ablation``); a switched-off tool answers an error outcome (and still costs
the step the policy spent on it). ``horizon``, when set, is the running task's start clock: memory
answers hold only records stamped no later.

The whole stack in one process (``InProcessStack``) is in ``mnemo_bench.stack``.
"""
from __future__ import annotations

import uuid
from dataclasses import asdict
from typing import Any, Callable, Optional

from mnemo_common.types import InteractionEvent, MemoryFilter, MemoryRecord, MnemoError, Pose2D, SkillResult
from mnemo_interaction.signals import MANIPULATIONS, SignalAnalyzer
from mnemo_interaction.updates import MIN_CONFIDENCE, NodeUpdate, node_update
from mnemo_interaction.vlm import AnalysisContext, analyze_event
from mnemo_planner.memory_filters import check_horizon, memory_filter, within_horizon
from mnemo_planner.tool_results import describe_detections, describe_nodes, describe_records, node_dict
from mnemo_planner.tools import Action, ToolOutcome, error_outcome

from mnemo_bench.ablation import Ablation


class InProcessToolbox:
    def __init__(self, robot: Any, memory: Any = None, graph: Any = None, analyzer: Optional[SignalAnalyzer] = None,
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

    def _write(self, update: NodeUpdate, stamp: float) -> None:
        """One update of a scene-graph node, stamped with the world clock."""
        update.apply(self.graph, stamp)

    def _learn(self, result: SkillResult) -> dict[str, str]:
        """Learning from doing, as the interaction analyzer node does it (``mnemo_interaction.node``):
        the analyzer reads the skill's signals (``analyze_event``), and the node's own rule
        (``node_update``, at its default ``min_confidence``) makes the target's update; what the
        update holds is what was learned. Without the analyzer the graph still records what was done
        (task history)."""
        if result.skill not in MANIPULATIONS:
            return {}
        now = float(self.clock())
        graph_on = self.graph is not None and self.ablation.use_scene_graph and result.target in self.graph
        if self.analyzer is None or not self.ablation.use_interaction_analysis:
            if graph_on:
                contents = [d.label for d in result.detections] if result.skill == "peek" else []
                self._write(NodeUpdate(result.target, contents_add=contents,
                                       outcome=f"{result.skill}:{'ok' if result.success else 'failed'}"), now)
            return {}
        event = InteractionEvent(id=result.interaction_id or uuid.uuid4().hex[:12], action=result.skill,
                                 target=result.target, start=now - max(result.signals.duration, 0.0), end=now,
                                 success=result.success, code=result.code, message=result.message,
                                 signals=result.signals, seen_contents=[d.label for d in result.detections],
                                 picked_id=result.picked_id, robot_pose=result.robot_pose)
        belief = {"contents": list(self.graph.get(result.target).contents)} if graph_on else {}
        analysis = analyze_event(event, AnalysisContext(belief), self.analyzer, vlm=None)
        update = node_update(analysis, MIN_CONFIDENCE)
        if update is None:
            return {}
        if graph_on:
            self._write(update, now)
        learned = {name: str(value.value) for name, value in update.properties.items()}
        if analysis.failure_reason == "locked":
            learned["locked"] = "true"
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
