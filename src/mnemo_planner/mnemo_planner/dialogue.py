"""The conversation across consecutive requests: what the previous one asked, what it found, and
where it searched, so that "bring it to me", "now the other one" and "now find the jam" continue it.
The planner node and the in-process stack keep one and hand it to each task's policy."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional


@dataclass
class DialogueContext:
    window: float = 1200.0  # s: a request this soon after the previous one may continue it
    last: Optional[dict] = None

    def remember(self, **state: Any) -> None:
        self.last = dict(state)

    def recent(self, now: float) -> Optional[dict]:
        if self.last is None:
            return None
        gap = now - float(self.last.get("start", -1e18))
        return self.last if 0.0 <= gap <= self.window else None
