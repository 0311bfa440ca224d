"""The skill server core: runs one primitive at a time, bounded, cancelable, operator-gated, and
reports every physical interaction as an InteractionEvent. No ROS imports."""
from __future__ import annotations

import logging
import threading
import uuid
from typing import Optional

from mnemo_common.types import InteractionEvent, MnemoError, Pose2D, SkillResult, Status

from mnemo_skills.context import SkillContext, SkillSettings
from mnemo_skills.gate import OperatorGate
from mnemo_skills.ports import CancelToken, RobotPorts
from mnemo_skills.primitives import Primitive, RobotState, default_primitives
from mnemo_skills.profile import RobotProfile

SKILLS = ("navigate", "detect", "open", "close", "peek", "pick", "place")

log = logging.getLogger(__name__)


class SkillServer:
    def __init__(self, ports: RobotPorts, profile: RobotProfile, settings: SkillSettings = SkillSettings(),
                 gate: Optional[OperatorGate] = None, primitives: Optional[dict[str, Primitive]] = None):
        self.ports, self.profile, self.settings = ports, profile, settings
        self.gate = gate or OperatorGate(enabled=False)
        self.primitives = default_primitives()
        self.primitives.update(primitives or {})
        self.state = RobotState()
        self._lock = threading.Lock()
        self._active: Optional[tuple[str, CancelToken]] = None

    # -- one entry per service ---------------------------------------------------------
    def navigate(self, target: str = "", pose: Optional[Pose2D] = None, timeout: float = 0.0) -> SkillResult:
        limit = timeout if timeout > 0 else self.settings.navigate_timeout
        return self.execute("navigate", target, limit, pose=pose)

    def detect(self, query: str = "") -> SkillResult:
        return self.execute("detect", query, self.settings.service_timeout * 2 + self.settings.operator_timeout)

    def open(self, target: str) -> SkillResult:
        return self.execute("open", target)

    def close(self, target: str) -> SkillResult:
        return self.execute("close", target)

    def peek(self, target: str) -> SkillResult:
        return self.execute("peek", target)

    def pick(self, target: str) -> SkillResult:
        return self.execute("pick", target)

    def place(self, target: str) -> SkillResult:
        return self.execute("place", target)

    # -- control ----------------------------------------------------------------------
    def cancel(self, reason: str = "canceled by request") -> str:
        """Cancel the running skill; returns its name ("" when none was running)."""
        active = self._active
        if active is None:
            return ""
        active[1].cancel(reason)
        return active[0]

    @property
    def running(self) -> str:
        active = self._active
        return active[0] if active else ""

    def execute(self, skill: str, target: str, timeout: Optional[float] = None, **kwargs) -> SkillResult:
        if skill not in self.primitives:
            return SkillResult(skill, target, False, Status.INVALID_ARGUMENT, f"unknown skill {skill!r}")
        if not self._lock.acquire(blocking=False):
            return SkillResult(skill, target, False, Status.UNAVAILABLE, f"busy: {self.running} is running")
        cancel = CancelToken()
        self._active = (skill, cancel)
        ctx = SkillContext(skill, target, self.ports, self.profile, self.settings, self.gate, cancel,
                           timeout if timeout is not None else self.settings.skill_timeout)
        try:
            try:
                result = self.primitives[skill].run(ctx, self.state, target, **kwargs)
            except MnemoError as exc:
                result = SkillResult(skill, target, False, exc.code, exc.message)
            except Exception as exc:  # noqa: BLE001 - a broken adapter must not take the server down
                log.exception("%s %s failed", skill, target)
                result = SkillResult(skill, target, False, Status.INTERNAL, f"{type(exc).__name__}: {exc}")
            end = self.ports.clock.now()
            result.signals.duration = end - ctx.start
            if ctx.acted and skill != "detect":
                result.interaction_id = self._publish(ctx, result, end)
            return result
        finally:
            self._active = None
            self._lock.release()

    def _publish(self, ctx: SkillContext, result: SkillResult, end: float) -> str:
        event = InteractionEvent(
            id=f"{ctx.skill}-{uuid.uuid4().hex[:12]}", action=ctx.skill, target=ctx.target, start=ctx.start,
            end=end, success=result.success, code=result.code, message=result.message, signals=result.signals,
            seen_contents=[d.label for d in result.detections] if ctx.skill == "peek" else [],
            picked_id=result.picked_id if ctx.skill == "pick" else "",
            robot_pose=result.robot_pose or self.ports.navigator.current_pose())
        try:
            self.ports.events.publish(event)
        except Exception:  # noqa: BLE001 - the skill's own outcome still goes back to the caller
            log.exception("publishing interaction event %s failed", event.id)
        return event.id
