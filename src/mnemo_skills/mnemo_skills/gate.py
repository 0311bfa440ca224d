"""Operator gate: a physical primitive waits for a person's approval before it moves.

One pending request at a time (the skill server runs one skill at a time). The node wires the
ConfirmAction service and the decision topic to `confirm()`; the primitive blocks in `request()`.
"""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from enum import Enum
from typing import Optional

from mnemo_common.types import MnemoError, Status

from mnemo_skills.ports import CancelToken


class Decision(Enum):
    APPROVED = "approved"
    REJECTED = "rejected"
    TIMEOUT = "timeout"
    CANCELED = "canceled"


@dataclass(frozen=True)
class PendingAction:
    action_id: str
    description: str


class OperatorGate:
    """Blocking approval slot. `enabled=False` approves everything at once."""

    def __init__(self, enabled: bool = True, poll: float = 0.05):
        self.enabled = enabled
        self._poll = poll
        self._cond = threading.Condition()
        self._pending: Optional[PendingAction] = None
        self._decision: Optional[bool] = None
        self.on_pending = None  # callable(PendingAction | None): the node announces it on a topic

    @property
    def pending(self) -> Optional[PendingAction]:
        with self._cond:
            return self._pending

    def request(self, action_id: str, description: str, timeout: float, cancel: CancelToken) -> Decision:
        if not self.enabled:
            return Decision.APPROVED
        deadline = time.monotonic() + max(0.0, timeout)
        pending = PendingAction(action_id, description)
        with self._cond:
            self._pending, self._decision = pending, None
        self._announce(pending)
        try:
            with self._cond:
                while self._decision is None:
                    if cancel.cancelled:
                        return Decision.CANCELED
                    left = deadline - time.monotonic()
                    if left <= 0:
                        return Decision.TIMEOUT
                    self._cond.wait(min(left, self._poll))
                return Decision.APPROVED if self._decision else Decision.REJECTED
        finally:
            with self._cond:
                self._pending, self._decision = None, None
            self._announce(None)

    def confirm(self, action_id: str, approve: bool) -> PendingAction:
        """Decide the pending action. An empty id means "whatever is pending" (a topic has no id)."""
        with self._cond:
            pending = self._pending
            if pending is None:
                raise MnemoError(Status.NOT_FOUND, "no action is waiting for confirmation")
            if action_id and action_id != pending.action_id:
                raise MnemoError(Status.NOT_FOUND,
                                 f"action {action_id!r} is not pending; pending is {pending.action_id!r}")
            self._decision = bool(approve)
            self._cond.notify_all()
            return pending

    def _announce(self, pending: Optional[PendingAction]) -> None:
        if self.on_pending is not None:
            self.on_pending(pending)
