"""What the in-process toolbox learns by doing is what the interaction analyzer node writes: the
node's rule (``mnemo_interaction.updates.node_update`` at its default ``min_confidence``) makes the
target's update, stamped with the world clock; a value less confident than that is neither written
nor reported as learned, and the outcome always is. Without the analyzer the graph records what was
done."""
from __future__ import annotations

import pytest

from mnemo_common.types import PropertyValue, SkillResult, SkillSignals
from mnemo_interaction.signals import Analysis
from mnemo_interaction.updates import MIN_CONFIDENCE
from mnemo_planner.tools import Action
from mnemo_scene_graph.graph import SceneGraph

from mnemo_bench.ablation import Ablation
from mnemo_bench.toolbox import InProcessToolbox

NOW = 5000.0


class Robot:
    """Opens any target and reports firm contact without motion."""

    def open(self, target):
        return SkillResult("open", target, False, message="it did not move",
                           signals=SkillSignals(contact=True, gripper_closure=0.6, gripper_effort=20.0, duration=2.0))


class Analyzer:
    """Finds the target locked, with one confident value and one that is not."""

    def analyze(self, event, prior_contents=None):
        sure, unsure = MIN_CONFIDENCE + 0.2, MIN_CONFIDENCE - 0.2
        return Analysis(event.action, event.target, False, "locked", confidence=sure,
                        property_updates={"locked": PropertyValue("true", sure, "interaction", event.end)},
                        new_properties={"colour": PropertyValue("teal", unsure, "interaction", event.end)},
                        contents_add=["spoon"])


def toolbox(analyzer, ablation=Ablation()):
    graph = SceneGraph()
    graph.add_fixture("cabinet_1", "cabinet", (1.0, 1.0, 0.0), room="kitchen")
    return InProcessToolbox(Robot(), graph=graph, analyzer=analyzer, ablation=ablation, clock=lambda: NOW)


def test_only_confident_values_are_written_and_learned():
    box = toolbox(Analyzer())
    out = box.execute(Action("open", {"target": "cabinet_1"}))
    assert out.data["learned"] == {"locked": "true"} and out.data["locked"] is True
    node = box.graph.get("cabinet_1")
    assert set(node.properties) == {"locked"} and node.properties["locked"].stamp == NOW
    assert node.contents == ["spoon"] and node.task_history == ["open:failed:locked"]
    assert [e.stamp for e in box.graph.history("cabinet_1") if e.kind != "created"] == [NOW, NOW, NOW]


@pytest.mark.parametrize("analyzer, ablation", [(None, Ablation()),
                                                (Analyzer(), Ablation(use_interaction_analysis=False))])
def test_without_the_analyzer_the_graph_records_what_was_done(analyzer, ablation):
    box = toolbox(analyzer, ablation)
    out = box.execute(Action("open", {"target": "cabinet_1"}))
    assert "learned" not in out.data
    node = box.graph.get("cabinet_1")
    assert node.properties == {} and node.task_history == ["open:failed"]
