from mnemo_common.types import InteractionEvent, SkillSignals
from mnemo_interaction.signals import SignalAnalyzer, contents_change
from mnemo_interaction.updates import keyframe_tags, node_update

LOCKED = SkillSignals(contact=True, joint_displacement=0.002, gripper_closure=0.8, gripper_effort=28.0)
MISSED = SkillSignals(contact=False, joint_displacement=0.001, gripper_closure=0.995, gripper_effort=0.0)
SLIPPED = SkillSignals(contact=True, joint_displacement=0.0, gripper_closure=1.0, gripper_effort=3.0)
OPENED = SkillSignals(contact=True, joint_displacement=1.38, gripper_closure=0.79, gripper_effort=9.0)
REFUSED = SkillSignals()


def ev(action="open", success=False, signals=LOCKED, seen=(), refs=("a.png", "b.png", "c.png", "d.png")):
    return InteractionEvent("ix_1", action, "cabinet_1", 10.0, 15.0, success, signals=signals,
                            seen_contents=list(seen), frame_refs=list(refs))


def test_locked_when_handle_held_and_nothing_moved():
    a = SignalAnalyzer().analyze(ev())
    assert a.failure_reason == "locked" and not a.retryable and a.outcome == "open:failed:locked"
    assert a.property_updates["locked"].value == "true" and a.property_updates["locked"].source == "interaction"
    assert a.confidence >= 0.9 and a.key_frame == 2


def test_missed_or_slipped_grasp_is_retryable_and_not_locked():
    for signals in (MISSED, SLIPPED):
        a = SignalAnalyzer().analyze(ev(signals=signals))
        assert a.failure_reason == "missed_grasp" and a.retryable
        assert "locked" not in a.property_updates and a.property_updates == {}


def test_refused_skill_teaches_nothing():
    a = SignalAnalyzer().analyze(ev(signals=REFUSED))
    assert a.failure_reason == "not_attempted" and a.property_updates == {}


def test_opened_sets_openable_unlocked_and_contents():
    a = SignalAnalyzer().analyze(ev(success=True, signals=OPENED, seen=["banana", "mug"]), prior_contents=["Mug", "ketchup"])
    props = {k: v.value for k, v in a.property_updates.items()}
    assert props == {"openable": "true", "is_opened": "true", "locked": "false"}
    assert a.contents_add == ["banana"] and a.contents_remove == ["ketchup"]
    assert a.outcome == "open:ok" and a.key_frame == 3


def test_open_of_an_already_open_fixture_does_not_touch_contents():
    a = SignalAnalyzer().analyze(ev(success=True, signals=SkillSignals(gripper_closure=0.0)), prior_contents=["mug"])
    assert a.contents_remove == [] and a.property_updates["is_opened"].value == "true"


def test_close_peek_pick():
    a = SignalAnalyzer().analyze(ev("close", True, OPENED))
    assert a.property_updates["is_opened"].value == "false"
    a = SignalAnalyzer().analyze(ev("peek", True, REFUSED, seen=["scissors"]), prior_contents=[])
    assert a.contents_add == ["scissors"] and a.task_success
    a = SignalAnalyzer().analyze(ev("pick", True, SkillSignals(True, 0.0, 0.4, 12.0)))
    assert a.property_updates["pickable"].value == "true"
    a = SignalAnalyzer().analyze(ev("pick", False, MISSED))
    assert a.failure_reason == "missed_grasp" and a.property_updates == {}
    nav = SignalAnalyzer().analyze(ev("navigate", True, REFUSED))
    assert node_update(nav) is None


def test_node_update_drops_unconfident_values_and_keeps_outcome():
    a = SignalAnalyzer().analyze(ev(signals=SkillSignals(True, 0.0, 0.8, 5.0)))  # weak pull: 0.7
    assert node_update(a, 0.8).properties == {} and node_update(a, 0.8).outcome == "open:failed:locked"
    assert node_update(a, 0.5).properties["locked"].value == "true"


def test_keyframe_tags_name_the_window_frames():
    a = SignalAnalyzer().analyze(ev())
    t = keyframe_tags(ev(), a)
    assert t.keyframe_ids == ["ix_1-before", "ix_1-during-1", "ix_1-during-2", "ix_1-after"]
    assert t.key_frame_id == "ix_1-during-2" and "locked" in t.tags and "open:failed:locked" in t.tags
    assert keyframe_tags(ev(refs=()), a) is None


def test_contents_change():
    assert contents_change(["a", "b", "b"], None) == (["a", "b"], [])
    assert contents_change([], ["x"]) == ([], ["x"])
