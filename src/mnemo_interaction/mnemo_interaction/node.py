"""The interaction analyzer node: after each action, write what it revealed into the scene graph.

Subscribes to interaction events; a worker thread analyses each one (the VLM when ``llm_base_url``
is set, else the skill's signals), writes the target's update through the scene graph's update
service (old values go to the property trails there) and tags the window's keyframes. Both
services are optional at run time: a missing one is logged and skipped.
"""
from __future__ import annotations

import queue
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

from rclpy.callback_groups import MutuallyExclusiveCallbackGroup, ReentrantCallbackGroup
from rclpy.node import Node

from mnemo_common import names
from mnemo_common.llm import ChatClient, LlmConfig
from mnemo_common.ros import declare_config, interaction_from_msg, run_node, time_to_msg
from mnemo_common.types import InteractionEvent as InteractionEventCore, Status
from mnemo_interfaces.msg import InteractionEvent, Property
from mnemo_interfaces.srv import GetSceneGraph, TagKeyframes, UpdateNode

from mnemo_interaction.signals import Analysis, SignalAnalyzer, SignalThresholds
from mnemo_interaction.updates import MIN_CONFIDENCE, keyframe_tags, node_update
from mnemo_interaction.vlm import AnalysisContext, VlmAnalyzer, analyze_event

NODE_NAME = names.ANALYZER_NODE


@dataclass(frozen=True)
class AnalyzerConfig:
    llm_base_url: str = ""
    llm_model: str = ""
    llm_timeout: float = 60.0
    min_confidence: float = MIN_CONFIDENCE
    data_dir: str = "data"
    service_timeout: float = 5.0
    moved_threshold: float = 0.05
    holding_min: float = 0.3
    holding_max: float = 0.95
    firm_effort: float = 15.0
    queue_size: int = 100


CONFIG_TYPE = AnalyzerConfig

DESCRIPTIONS = {
    "llm_base_url": "OpenAI-compatible VLM endpoint; empty = signal-based analysis only",
    "llm_model": "VLM model name at llm_base_url",
    "llm_timeout": "seconds one VLM request may take",
    "min_confidence": "updates less confident than this are not written (the outcome always is)",
    "data_dir": "collages are written under <data_dir>/collages",
    "service_timeout": "seconds to wait for the scene graph and keyframe services",
    "moved_threshold": "joint displacement (rad or m) that counts as the fixture moving",
    "holding_min": "lowest gripper closure of jaws closed on a handle",
    "holding_max": "highest gripper closure of jaws closed on a handle (above: closed on nothing)",
    "firm_effort": "gripper effort of a firm pull (raises confidence in 'locked')",
    "queue_size": "interaction events waiting for analysis before new ones are dropped",
}


def belief_from_node(node_msg) -> dict:
    """The target's belief state as the prompt shows it."""
    return {"label": node_msg.label, "kind": node_msg.kind,
            "properties": {p.name: p.value for p in node_msg.properties},
            "contents": list(node_msg.contents), "task_history": list(node_msg.task_history)[-5:]}


class AnalyzerNode(Node):
    def __init__(self, **kwargs):
        super().__init__(NODE_NAME, **kwargs)
        self.config: AnalyzerConfig = declare_config(self, CONFIG_TYPE, DESCRIPTIONS)
        c = self.config
        self.signals = SignalAnalyzer(SignalThresholds(c.moved_threshold, c.holding_min, c.holding_max, c.firm_effort))
        llm = LlmConfig.from_values(c.llm_base_url, c.llm_model, timeout=c.llm_timeout)
        self.vlm = VlmAnalyzer(ChatClient(llm), self.signals, Path(c.data_dir) / "collages") if llm else None
        clients = ReentrantCallbackGroup()
        self.graph_get = self.create_client(GetSceneGraph, names.GRAPH_GET, callback_group=clients)
        self.graph_update = self.create_client(UpdateNode, names.GRAPH_UPDATE, callback_group=clients)
        self.tag_client = self.create_client(TagKeyframes, names.KEYFRAMES_TAG, callback_group=clients)
        self.create_subscription(InteractionEvent, names.INTERACTIONS, self.on_interaction, 20,
                                 callback_group=MutuallyExclusiveCallbackGroup())
        self.results: list[tuple[str, Analysis]] = []  # (event id, analysis), for tests and introspection
        self._queue: queue.Queue = queue.Queue(maxsize=c.queue_size)
        self._stop = threading.Event()
        self._worker = threading.Thread(target=self._work, name="analyzer", daemon=True)
        self._worker.start()
        self.get_logger().info("interaction analyzer ready (" + ("VLM " + c.llm_model if self.vlm else "signals") + ")")

    def on_interaction(self, msg: InteractionEvent) -> None:
        try:
            self._queue.put_nowait(interaction_from_msg(msg))
        except queue.Full:
            self.get_logger().error(f"analysis queue full: interaction {msg.id} dropped")

    # -- worker ------------------------------------------------------------------------
    def _call(self, client, request) -> Optional[Any]:
        """A service call from the worker thread (the executor completes the future)."""
        if not client.wait_for_service(timeout_sec=min(1.0, self.config.service_timeout)):
            return None
        future = client.call_async(request)
        done = threading.Event()
        future.add_done_callback(lambda _f: done.set())
        if not done.wait(self.config.service_timeout):
            client.remove_pending_request(future)
            return None
        return future.result()

    def _graph_context(self, event: InteractionEventCore) -> tuple[AnalysisContext, Optional[bool]]:
        """The target's belief and the known node ids; the flag says whether the target is known
        (None when the scene graph could not be asked)."""
        response = self._call(self.graph_get, GetSceneGraph.Request(include_stale=True))
        if response is None or response.error_code != Status.OK:
            return AnalysisContext(), None
        nodes = {n.id: n for n in response.graph.nodes}
        target = nodes.get(event.target)
        belief = belief_from_node(target) if target is not None else {}
        return AnalysisContext(belief, set(nodes)), target is not None

    def _work(self) -> None:
        while not self._stop.is_set():
            try:
                event = self._queue.get(timeout=0.2)
            except queue.Empty:
                continue
            try:
                self.process(event)
            except Exception as exc:  # noqa: BLE001 - the worker must survive one bad event
                self.get_logger().error(f"analysis of {event.id} failed: {type(exc).__name__}: {exc}")

    def process(self, event: InteractionEventCore) -> Analysis:
        context, target_known = self._graph_context(event)
        analysis = analyze_event(event, context, self.signals, self.vlm)
        self.results.append((event.id, analysis))
        self.get_logger().info(f"{event.id} {event.action}({event.target}) -> {analysis.outcome} "
                               f"[{analysis.source}, confidence {analysis.confidence:.2f}]")
        update = node_update(analysis, self.config.min_confidence)
        if update is not None and target_known is not False:
            request = UpdateNode.Request(
                node_id=update.node_id, contents_add=update.contents_add, contents_remove=update.contents_remove,
                outcome=update.outcome, source=update.source,
                properties=[Property(name=k, value=v.value, confidence=float(v.confidence), source=v.source,
                                     stamp=time_to_msg(v.stamp)) for k, v in update.properties.items()])
            response = self._call(self.graph_update, request)
            if response is None:
                self.get_logger().warn(f"scene graph update service unavailable: {event.id} not written")
            elif response.error_code != Status.OK:
                self.get_logger().warn(f"scene graph refused the update of {update.node_id}: {response.error_msg}")
        elif update is not None:
            self.get_logger().info(f"{event.target!r} is not a scene-graph node: nothing written")
        tags = keyframe_tags(event, analysis)
        if tags is not None:
            response = self._call(self.tag_client, TagKeyframes.Request(
                keyframe_ids=tags.keyframe_ids, tags=tags.tags, caption=tags.caption, key_frame_id=tags.key_frame_id))
            if response is None:
                self.get_logger().info("keyframe node not available: keyframes not tagged")
            elif response.error_code != Status.OK:
                self.get_logger().warn(f"keyframe tagging refused: {response.error_msg}")
        return analysis

    def close(self) -> None:
        self._stop.set()
        self._worker.join(timeout=2.0)


def main(args: Optional[list[str]] = None) -> None:
    run_node(AnalyzerNode, args)


if __name__ == "__main__":
    main()
