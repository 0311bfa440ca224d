"""What the robot really saw: the simulator replays a generated home's patrols and every sighting is
kept (object, the fixture it stood on or in, room, time), so tasks are built on evidence, never on
what the plan intended.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Optional

from ..scenario import Scenario
from ..tasks import TaskRunner
from ..world import World


@dataclass(frozen=True)
class Seen:
    t: float
    obj: str
    support: str
    room: str
    frame: int  # index of the observation


@dataclass
class Evidence:
    scenario: Scenario
    sightings: list[Seen] = field(default_factory=list)
    by_object: dict[str, list[Seen]] = field(default_factory=lambda: defaultdict(list))
    by_frame: dict[int, list[Seen]] = field(default_factory=lambda: defaultdict(list))

    def before(self, oid: str, t: float) -> list[Seen]:
        return [s for s in self.by_object.get(oid, ()) if s.t < t]

    def last_seen(self, oid: str, t: float) -> Optional[Seen]:
        seen = self.before(oid, t)
        return seen[-1] if seen else None

    def seen_at(self, oid: str, fid: str, since: float, until: float) -> int:
        return sum(1 for s in self.by_object.get(oid, ()) if s.support == fid and since <= s.t < until)

    def place_counts(self, oid: str, until: float) -> dict[str, int]:
        counts: dict[str, int] = defaultdict(int)
        for s in self.before(oid, until):
            counts[s.support] += 1
        return dict(counts)

    def companions(self, seen: Seen) -> set[str]:
        """Other objects seen on or in the same fixture in the same frame."""
        return {s.obj for s in self.by_frame[seen.frame] if s.support == seen.support and s.obj != seen.obj}

    def seen_in_room(self, label: str, room: str, until: float) -> set[str]:
        labels = {o.id: o.label for o in self.scenario.objects}
        return {s.obj for s in self.sightings if s.t < until and s.room == room and labels[s.obj] == label}


def collect(scenario: Scenario) -> Evidence:
    """Replay every patrol of the scenario and keep each object sighting."""
    ev = Evidence(scenario)
    runner = TaskRunner(scenario)
    for i, obs in enumerate(runner.run_patrols(float("inf"))):
        for s in obs.sightings:
            if s.kind != "object" or not s.object_id:
                continue
            seen = Seen(obs.stamp, s.object_id, s.support, obs.room, i)
            ev.sightings.append(seen)
            ev.by_object[s.object_id].append(seen)
            ev.by_frame[i].append(seen)
    return ev


class Truth:
    """The world as the timeline makes it at a moment (the scorer's side, for building tasks)."""

    def __init__(self, scenario: Scenario):
        self.scenario = scenario
        self.world = World(scenario)

    def at(self, t: float) -> "Truth":
        self.world.reset_to(t)
        return self

    def location(self, oid: str) -> Optional[str]:
        loc = self.world.truth_location(oid)
        return None if loc in (None, "robot") else loc

    def reachable(self, oid: str) -> bool:
        loc = self.location(oid)
        return loc is not None and not self.world.truth_is_locked(loc)

    def on_surface(self, oid: str) -> bool:
        loc = self.location(oid)
        return loc is not None and not self.scenario.fixture_by_id[loc].is_container

    def present(self, label: str) -> list[str]:
        return [o.id for o in self.scenario.objects if o.label == label and self.location(o.id) is not None]

    def optimal_pick(self, oid: str) -> int:
        """navigate, detect, pick on a surface; navigate, open, look, pick in a container."""
        return 3 if self.on_surface(oid) else 4
