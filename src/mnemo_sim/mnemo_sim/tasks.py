"""Running a scenario: patrols, tasks that start from the right world state, and scoring.

``ordered_tasks(scenario) -> list[Task]``: the order tasks run in, for ``mnemo run`` and the benchmark
alike: clock order (by ``at``), a sequence's tasks back to back at its first task's time.

``TaskRunner(scenario, seed=None, skills=SkillConfig(), camera=None)`` owns one ``World`` and one
``SimRobot`` (``runner.world``, ``runner.robot``). Public API:

- ``patrols_until(t) -> list[PatrolSegment]``: patrol segments not yet run that end by clock ``t``
  (never one that ends after it: a task gets nothing observed after its ``at`` from patrols).
- ``run_patrols(until) -> Iterator[Observation]``: run them (``until``: a task id or a clock in seconds).
  Each patrol sees the world as the timeline makes it (the robot's own changes are dropped first).
- ``start_task(task_id) -> TaskInfo``: the world at the task's ``at`` time, fresh from the timeline,
  unless the previous task started belongs to the same ``sequence``: then the robot's changes (open
  doors, moved objects, its pose) persist and the clock runs on to ``at`` (or stays, if already later).
  Resets the action counter and the list of picks.
- ``score(task_id, picked_ids=None, final_fixture=None, answer="") -> Score``: judged against the
  truth; picks and final fixture default to what the robot did in this task. When a ``pick_any`` task
  succeeds the object is handed to the user and leaves the world.
- ``current_task``: the running ``Task`` or None.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator, Optional, Union

from mnemo_common.types import Observation

from .patrol import CameraConfig, patrol_segment
from .scenario import PatrolSegment, Scenario, Task
from .scoring import Score, judge
from .skills import SimRobot, SkillConfig
from .world import World


def ordered_tasks(scenario: Scenario) -> list[Task]:
    """Tasks in clock order; ties and a sequence's tasks keep their file order (the loader checks
    that a sequence is listed back to back and never goes back in time)."""
    tasks = list(scenario.tasks)
    first_at: dict[str, float] = {}
    for t in tasks:
        if t.sequence:
            first_at.setdefault(t.sequence, t.at)
    index = {t.id: i for i, t in enumerate(tasks)}
    return sorted(tasks, key=lambda t: (first_at[t.sequence] if t.sequence else t.at, index[t.id]))


@dataclass(frozen=True)
class TaskInfo:
    id: str
    instruction: str
    type: str
    family: str
    budget: int
    clock: float
    continued: bool  # True when the world carried over from the previous task of the same sequence


class TaskRunner:
    def __init__(self, scenario: Scenario, seed: Optional[int] = None, skills: Optional[SkillConfig] = None,
                 camera: Optional[CameraConfig] = None):
        self.scenario = scenario
        skills = skills or SkillConfig()
        if camera is not None:
            skills = SkillConfig(**{**skills.__dict__, "camera": camera})
        self.camera = skills.camera
        self.world = World(scenario, seed)
        self.robot = SimRobot(self.world, seed, skills)
        self.current_task: Optional[Task] = None
        self._last_task: Optional[Task] = None
        self._patrols_done = 0
        self._robot_changed = False
        self.robot.listeners.append(self._on_interaction)

    def _on_interaction(self, event) -> None:
        self._robot_changed = True

    def _clock_of(self, until: Union[str, float]) -> float:
        if isinstance(until, str):
            if until not in self.scenario.task_by_id:
                raise KeyError(f"no task named {until!r}")
            return self.scenario.task_by_id[until].at
        return float(until)

    def patrols_until(self, until: Union[str, float]) -> list[PatrolSegment]:
        limit = self._clock_of(until)
        return [p for p in self.scenario.patrol[self._patrols_done:] if p.end_t <= limit]

    def run_patrols(self, until: Union[str, float]) -> Iterator[Observation]:
        for segment in self.patrols_until(until):
            if self._robot_changed or self.world.t > segment.start_t:
                self.world.reset_to(segment.start_t)
                self._robot_changed = False
            self.current_task = None
            self._last_task = None
            yield from patrol_segment(self.world, segment, self.camera)
            self._patrols_done += 1

    def start_task(self, task_id: str) -> TaskInfo:
        task = self.scenario.task_by_id.get(task_id)
        if task is None:
            raise KeyError(f"no task named {task_id!r}")
        last = self._last_task
        continued = bool(task.sequence and last is not None and last.sequence == task.sequence)
        if continued:
            self.world.advance_to(max(self.world.t, task.at))
        else:
            self.world.reset_to(task.at)
            self._robot_changed = False
        self.robot.reset_counters()
        self.current_task = self._last_task = task
        return TaskInfo(task.id, task.instruction, task.type, task.family, task.budget, self.world.t, continued)

    def score(self, task_id: str, picked_ids: Optional[list[str]] = None, final_fixture: Optional[str] = None,
              answer: str = "") -> Score:
        task = self.scenario.task_by_id.get(task_id)
        if task is None:
            raise KeyError(f"no task named {task_id!r}")
        if self.current_task is None or self.current_task.id != task_id:
            raise ValueError(f"task {task_id!r} is not the running task; start it first")
        picked = list(self.robot.picked if picked_ids is None else picked_ids)
        fixture = self.world.at_fixture if final_fixture is None else final_fixture
        success, detail = judge(task, picked, fixture, answer)
        if success and task.success.kind == "pick_any":
            for oid in picked:
                if self.world.truth_location(oid) is not None:
                    self.world.hand_over(oid)
                    self._robot_changed = True
        return Score(success, detail, self.robot.physical_actions, task.optimal_actions)
