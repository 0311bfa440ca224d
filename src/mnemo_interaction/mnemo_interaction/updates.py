"""What an Analysis writes: one scene-graph update for the target and one tagging of the window's
keyframes."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from mnemo_common.types import InteractionEvent, PropertyValue
from mnemo_keyframes.policy import interaction_keyframe_ids

from mnemo_interaction.signals import MANIPULATIONS, Analysis

MIN_CONFIDENCE = 0.5  # the analyzer node's default: values less confident are not written


@dataclass
class NodeUpdate:
    """The arguments of SceneGraph.update / the UpdateNode service."""

    node_id: str
    properties: dict[str, PropertyValue] = field(default_factory=dict)
    contents_add: list[str] = field(default_factory=list)
    contents_remove: list[str] = field(default_factory=list)
    outcome: str = ""
    source: str = "interaction"

    def apply(self, graph, stamp: Optional[float] = None) -> object:
        """Write it into an in-process scene graph (anything with SceneGraph.update's signature),
        stamped ``stamp`` (None: the graph's latest stamp, as the UpdateNode service does)."""
        return graph.update(self.node_id, properties=self.properties, contents_add=self.contents_add,
                            contents_remove=self.contents_remove, outcome=self.outcome, source=self.source,
                            stamp=stamp)


@dataclass
class KeyframeTags:
    """The arguments of the TagKeyframes service."""

    keyframe_ids: list[str]
    tags: list[str]
    caption: str
    key_frame_id: str = ""


def node_update(analysis: Analysis, min_confidence: float = MIN_CONFIDENCE) -> Optional[NodeUpdate]:
    """The update for the action's target; None for actions that teach nothing about a node.
    Values less confident than ``min_confidence`` are not written; the outcome always is."""
    if analysis.action not in MANIPULATIONS or not analysis.target:
        return None
    properties = {name: value for name, value in {**analysis.new_properties, **analysis.property_updates}.items()
                  if value.confidence >= min_confidence}
    confident = analysis.confidence >= min_confidence
    return NodeUpdate(analysis.target, properties, list(analysis.contents_add) if confident else [],
                      list(analysis.contents_remove) if confident else [], analysis.outcome,
                      "vlm" if analysis.source == "vlm" else "interaction")


def keyframe_tags(event: InteractionEvent, analysis: Analysis) -> Optional[KeyframeTags]:
    """Labels for the keyframes of the event's window; None when the window has no frames."""
    ids = interaction_keyframe_ids(event.id, list(event.frame_refs))
    if not ids:
        return None
    tags = list(dict.fromkeys([analysis.outcome] + analysis.tags))
    key = ids[analysis.key_frame] if 0 <= analysis.key_frame < len(ids) else ""
    return KeyframeTags(ids, tags, analysis.caption, key)
