"""Signal-based interaction analysis: what the skill felt says what the action revealed.

The key distinction (MessyMem appendix B.1): a failed ``open`` is either a *locked* fixture (the
gripper held the handle, closure partial, firm pull, but the joint did not move: a persistent
property, the planner should go elsewhere) or a *missed grasp* (no contact, or the jaws closed on
nothing: an execution failure, the planner may retry). Only the first is written as ``locked``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Optional, Sequence

from mnemo_common.types import InteractionEvent, PropertyValue, SkillSignals

SOURCE = "interaction"
MANIPULATIONS = ("open", "close", "peek", "pick", "place")


@dataclass(frozen=True)
class SignalThresholds:
    moved: float = 0.05  # joint displacement (rad or m) that counts as motion
    holding_min: float = 0.3  # gripper closure range of jaws closed on a handle or object
    holding_max: float = 0.95  # above: closed on nothing
    firm_effort: float = 15.0  # effort of a firm pull (raises confidence in "locked")


@dataclass
class Analysis:
    """What one interaction revealed about its target, ready for the scene graph."""

    action: str
    target: str
    task_success: bool
    failure_reason: str = ""  # "" | locked | missed_grasp | stuck | not_attempted | failed
    property_updates: dict[str, PropertyValue] = field(default_factory=dict)
    new_properties: dict[str, PropertyValue] = field(default_factory=dict)
    contents_add: list[str] = field(default_factory=list)
    contents_remove: list[str] = field(default_factory=list)
    confidence: float = 1.0
    key_frame: int = -1  # index into the event's frame_refs of the most informative frame
    tags: list[str] = field(default_factory=list)
    caption: str = ""
    retryable: bool = False
    source: str = "signals"  # signals | vlm | signals-fallback

    @property
    def outcome(self) -> str:
        """The task-history entry, e.g. ``open:failed:locked`` or ``open:ok``."""
        if self.task_success:
            return f"{self.action}:ok"
        return f"{self.action}:failed" + (f":{self.failure_reason}" if self.failure_reason else "")


def _value(flag: bool) -> str:
    return "true" if flag else "false"


def contents_change(seen: Sequence[str], prior: Optional[Sequence[str]]) -> tuple[list[str], list[str]]:
    """(add, remove) making a container's contents what was just seen inside it; without a prior,
    nothing is removed."""
    seen_list = list(dict.fromkeys(s.strip() for s in seen if s and s.strip()))
    prior_list = list(prior or [])
    seen_norm = {s.lower() for s in seen_list}
    prior_norm = {p.lower() for p in prior_list}
    return ([s for s in seen_list if s.lower() not in prior_norm],
            [p for p in prior_list if p.lower() not in seen_norm])


def _middle(n: int) -> int:
    return n // 2 if n else -1


class SignalAnalyzer:
    def __init__(self, thresholds: SignalThresholds = SignalThresholds()):
        self.t = thresholds

    # -- classification ------------------------------------------------------------
    def moved(self, s: SkillSignals) -> bool:
        return math.isfinite(s.joint_displacement) and abs(s.joint_displacement) >= self.t.moved

    def holding(self, s: SkillSignals) -> bool:
        return s.contact and self.t.holding_min <= s.gripper_closure <= self.t.holding_max

    @staticmethod
    def untouched(s: SkillSignals) -> bool:
        """The skill never reached for anything (e.g. refused: not at the fixture)."""
        return not s.contact and s.gripper_closure <= 0.05 and s.gripper_effort <= 0.0 and s.joint_displacement == 0.0

    def analyze(self, event: InteractionEvent, prior_contents: Optional[Sequence[str]] = None) -> Analysis:
        handler = {"open": self._articulate, "close": self._articulate, "peek": self._peek,
                   "pick": self._pick, "place": self._place}.get(event.action)
        if handler is None:  # navigate, detect: nothing about the target to learn from signals
            return Analysis(event.action, event.target, event.success,
                            "" if event.success else "failed", confidence=1.0, retryable=not event.success)
        return handler(event, prior_contents)

    def _prop(self, value: bool | str, confidence: float, stamp: float) -> PropertyValue:
        v = _value(value) if isinstance(value, bool) else value
        return PropertyValue(v, round(confidence, 3), SOURCE, stamp)

    def _articulate(self, event: InteractionEvent, prior: Optional[Sequence[str]]) -> Analysis:
        s, n = event.signals, len(event.frame_refs)
        a = Analysis(event.action, event.target, event.success)
        opening = event.action == "open"
        if event.success or self.moved(s):
            a.task_success = True
            a.property_updates["openable"] = self._prop(True, 0.95, event.end)
            a.property_updates["is_opened"] = self._prop(opening, 0.95, event.end)
            if opening:
                a.property_updates["locked"] = self._prop(False, 0.95, event.end)
                if self.moved(s):  # the door swung open now: its interior was just in view
                    a.contents_add, a.contents_remove = contents_change(event.seen_contents, prior)
                a.tags = ["open", "interior"] + list(dict.fromkeys(event.seen_contents))
                a.caption = f"{event.target} opened" + (
                    f"; inside: {', '.join(event.seen_contents)}" if event.seen_contents else "; looks empty inside")
            else:
                a.tags, a.caption = ["closed"], f"{event.target} closed"
            a.confidence, a.key_frame = 0.95, n - 1 if n else -1
        elif self.untouched(s):
            a.failure_reason, a.retryable, a.confidence = "not_attempted", True, 0.9
            a.caption = f"{event.action} of {event.target} was not attempted"
        elif self.holding(s):
            # Held the handle, nothing moved: a persistent property, not an execution failure.
            firm = s.gripper_effort >= self.t.firm_effort
            a.confidence = 0.9 if firm else 0.7
            a.failure_reason = "locked" if opening else "stuck"
            a.property_updates["locked" if opening else "is_opened"] = self._prop(True, a.confidence, event.end)
            a.tags = ["locked" if opening else "stuck", "handle grasped", "no motion"]
            a.caption = f"gripper held the handle of {event.target} but it did not move"
            a.key_frame = _middle(n)
        else:
            a.failure_reason, a.retryable, a.confidence = "missed_grasp", True, 0.85
            a.tags = ["missed grasp"]
            a.caption = f"gripper missed the handle of {event.target}" + (
                " (closed on nothing)" if s.gripper_closure > self.t.holding_max else " (no contact)")
            a.key_frame = _middle(n)
        return a

    def _peek(self, event: InteractionEvent, prior: Optional[Sequence[str]]) -> Analysis:
        a = Analysis(event.action, event.target, event.success, confidence=0.9)
        if event.success:
            a.contents_add, a.contents_remove = contents_change(event.seen_contents, prior)
            a.tags = ["interior"] + list(dict.fromkeys(event.seen_contents))
            a.caption = f"inside {event.target}: " + (", ".join(event.seen_contents) or "nothing")
            a.key_frame = len(event.frame_refs) - 1 if event.frame_refs else -1
        else:
            a.failure_reason, a.retryable = "failed", True
        return a

    def _pick(self, event: InteractionEvent, prior: Optional[Sequence[str]]) -> Analysis:
        s = event.signals
        a = Analysis(event.action, event.target, event.success)
        if event.success:
            a.property_updates["pickable"] = self._prop(True, 0.95, event.end)
            a.confidence, a.tags = 0.95, ["picked"]
            a.caption = f"picked {event.target}"
            a.key_frame = _middle(len(event.frame_refs))
        elif self.untouched(s) or not s.contact or s.gripper_closure > self.t.holding_max:
            a.failure_reason, a.retryable, a.confidence = ("not_attempted" if self.untouched(s) else "missed_grasp",
                                                           True, 0.8)
        else:
            a.failure_reason, a.confidence = "failed", 0.6
        return a

    def _place(self, event: InteractionEvent, prior: Optional[Sequence[str]]) -> Analysis:
        return Analysis(event.action, event.target, event.success, "" if event.success else "failed",
                        confidence=0.9, retryable=not event.success)
