"""What the policy knows of the task in hand: the request and its grounding, where the robot is, which
places were searched, opened or found locked, what is in view, and what the gripper holds."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Optional

from mnemo_planner import request as rq
from mnemo_planner.grounding import Grounding
from mnemo_planner.hypotheses import Place


@dataclass
class TaskState:
    req: rq.Request
    now: float
    seen: int = 0
    surveyed: bool = False
    memory_asked: int = 0
    grounded: bool = False
    g: Grounding = field(default_factory=Grounding)
    ranked: list = field(default_factory=list)  # (fit, Entity)
    places: list = field(default_factory=list)
    planned: bool = False
    at: str = ""
    here: Optional[tuple] = None
    explored: set = field(default_factory=set)
    locked: set = field(default_factory=set)
    opened: set = field(default_factory=set)
    open_tries: Counter = field(default_factory=Counter)
    looked: bool = False
    inside: bool = False
    visible: list = field(default_factory=list)
    current: Optional[Place] = None
    holding: bool = False  # the gripper holds something, which must be put down before the next grasp
    carrying: bool = False  # ... what this task picked
    no_place: set = field(default_factory=set)  # fixtures where putting down failed
    closed: set = field(default_factory=set)  # containers found closed in this task
    failed: set = field(default_factory=set)  # (entity key, fixture) picks that found nothing
    target: str = ""  # the entity the request settled on
    held: str = ""  # the entity the request before left in the gripper, if it did
    glance: Optional[dict] = None  # entity key -> last seen, taken before reading the graph on arrival
    place_spent: bool = False  # every place the request names was searched in vain
    scope_carried: bool = False  # the search scope is the request before's (this one names none)
    settle: str = ""  # the best thing known that fits at all, fetched when the search cannot finish
