"""Unseen homes on demand: ``household-scenario/1`` files generated from a seed.

``generate_document(seed, size="medium", days=None) -> dict`` builds a home (rooms and doors, furniture
along the walls, a few hundred possible object classes with attributes people use, several instances
of many), its days of life (habits, moves seen and unseen, things put away, hidden or used up, a
container left open, some locked), two patrols a day, and tasks of every family whose truth is checked
against the simulator's own replay of the patrols. ``generate_scenario`` returns the validated
``Scenario``; ``dump(document) -> str`` the YAML text. The same seed and size give the same file.

Development seeds are 0-999; the README's headline numbers use seeds 10000-10019 (see README.md).
Day 0 of a generated home is a Monday.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Optional

import yaml

from ..scenario import DAY, Scenario, clock, parse_scenario
from .catalogue import load_catalogue
from .evidence import collect
from .layout import Layout, make_layout
from .life import Event, Home, background_moves, patrols, populate
from . import motifs
from .phrasing import render
from .recall import follow_up_tasks, recall_tasks
from .taskgen import (Context, Draft, attribute_tasks, class_tasks, clutter_tasks, commonsense_tasks,
                      frequentist_tasks, hidden_tasks, locked_tasks, matching_tasks, spatial_tasks, temporal_tasks)

TASK_START = "18:00"  # fetch tasks; questions come first, from RECALL_START (after the last patrol)
RECALL_START = "17:20"
TASK_SPACING = 120.0  # seconds between task start times


@dataclass(frozen=True)
class Size:
    rooms: tuple[int, int]
    objects: tuple[int, int]
    fixtures: tuple[int, int]  # per room
    days: int
    per_room: int  # patrol observations per room and patrol
    quota: int  # tasks per family, roughly


SIZES = {
    "small": Size((2, 3), (14, 20), (4, 5), 3, 40, 1),
    "medium": Size((4, 5), (26, 34), (4, 6), 4, 40, 2),
    "large": Size((6, 8), (44, 58), (5, 7), 5, 40, 2),
}


def _hhmm(t: float) -> tuple[int, str]:
    day, rest = divmod(int(round(t / 60.0)) * 60, int(DAY))
    return day, f"{rest // 3600:02d}:{rest % 3600 // 60:02d}"


def _valid_events(home: Home) -> list[Event]:
    """The plan's events in time order, without those the state then makes impossible."""
    loc = {o.id: o.at for o in home.objects}
    locked = {f.id: f.locked for f in home.layout.fixtures}
    kept = []
    for e in sorted(home.events, key=lambda e: e.t):
        e.t = round(e.t / 60.0) * 60.0
        if e.action in ("move", "remove"):
            if loc.get(e.target) is None or locked.get(loc[e.target]) or (e.to and locked.get(e.to)):
                continue
            if e.action == "move" and e.to == loc[e.target]:
                continue
            loc[e.target] = e.to or None
        elif e.action in ("open", "close") and locked.get(e.target):
            continue
        kept.append(e)
    return kept


def _document(name: str, seed: int, home: Home, patrol: list[dict]) -> dict:
    layout: Layout = home.layout
    fixtures = []
    for f in layout.fixtures:
        item = {"id": f.id, "class": f.cls.label, "room": f.room, "pose": list(f.pose), "size": list(f.size),
                "kind": f.cls.kind}
        if f.cls.is_container:
            item.update({"openable": True, "locked": f.locked})
        if f.attributes:
            item["attributes"] = dict(f.attributes)
        fixtures.append(item)
    timeline = []
    for e in _valid_events(home):
        day, hm = _hhmm(e.t)
        item = {"day": day, "time": hm, e.action: e.target}
        if e.action in ("move", "add"):
            item["to"] = e.to
        timeline.append(item)
    return {
        "format": "household-scenario/1", "name": name, "seed": seed,
        "rooms": [{"id": r.id, "rect": list(r.rect)} for r in layout.rooms],
        "doors": [{"between": [a, b], "at": list(at)} for a, b, at in layout.doors],
        "fixtures": fixtures,
        "objects": [{"id": o.id, "class": o.cls.label, "attributes": dict(o.attributes), "size": list(o.size),
                     "at": o.at} for o in home.objects],
        "timeline": timeline, "patrol": patrol, "tasks": [],
    }


def _plan_home(rng: random.Random, size: Size, days: int) -> Home:
    cat = load_catalogue()
    layout = make_layout(rng, cat, rng.randint(*size.rooms), size.fixtures)
    home = Home(layout, days=days)
    people = rng.sample(list(cat.people), rng.randint(2, 4))
    counts = populate(rng, cat, home, rng.randint(*size.objects), people)
    motifs.locked_row(rng, cat, home, layout.row, counts)
    motifs.random_locks(rng, home)
    motifs.twins(rng, cat, home, counts)
    motifs.clutter(rng, cat, home, counts, people)
    for _ in range(size.quota):
        motifs.habit(rng, cat, home, counts)
        motifs.temporal(rng, cat, home, counts)
        motifs.put_away(rng, home)
        motifs.stash(rng, cat, home, counts, people)
    motifs.put_away(rng, home, hide=True)
    motifs.used_up(rng, home)
    motifs.opened_container(rng, home)
    background_moves(rng, home, share=0.3)
    return home


def _drafts(ctx: Context) -> list[Draft]:
    builders = (locked_tasks, matching_tasks, clutter_tasks, frequentist_tasks, temporal_tasks, hidden_tasks,
                follow_up_tasks, spatial_tasks, commonsense_tasks, attribute_tasks, class_tasks, recall_tasks)
    drafts: list[Draft] = []
    for build in builders:
        drafts += build(ctx)
    return drafts


def _tasks(ctx: Context, drafts: list[Draft]) -> list[dict]:
    cat = load_catalogue()
    counts: dict[str, int] = {}
    # Independent tasks shuffled; each sequence stays together, in order.
    groups: list[list[Draft]] = []
    for d in drafts:
        if d.sequence and groups and groups[-1][0].sequence == d.sequence:
            groups[-1].append(d)
        else:
            groups.append([d])
    ctx.rng.shuffle(groups)
    # Questions are asked before the robot acts in the home: what it saw while fetching (in an earlier
    # trial of the same evening) must not change what the question's answer is.
    day = int(ctx.t // DAY)
    questions = [g for g in groups if g[0].type == "recall"]
    others = [g for g in groups if g[0].type != "recall"]
    tasks = _schedule(cat, ctx, questions, clock(day, RECALL_START), counts)
    tasks += _schedule(cat, ctx, others, ctx.t, counts)
    return tasks


def _schedule(cat, ctx: Context, groups: list[list[Draft]], t: float, counts: dict[str, int]) -> list[dict]:
    tasks = []
    for group in groups:
        for d in group:
            key = d.kind or d.family
            counts[key] = counts.get(key, 0) + 1
            day, hm = _hhmm(t)
            kind, values = d.success
            task = {"id": f"{key}_{counts[key]}", "at": {"day": day, "time": hm},
                    "instruction": render(cat, d.template, d.slots, ctx.rng), "type": d.type, "family": d.family,
                    "success": {kind: list(values)}, "optimal_actions": d.optimal, "budget": d.budget}
            if d.sequence:
                task["sequence"] = d.sequence
            tasks.append(task)
            t += TASK_SPACING
    return tasks


def generate_document(seed: int, size: str = "medium", days: Optional[int] = None) -> dict:
    """A generated home as a ``household-scenario/1`` mapping (deterministic for seed, size, days)."""
    if size not in SIZES:
        raise ValueError(f"size must be one of {sorted(SIZES)}, got {size!r}")
    spec = SIZES[size]
    days = spec.days if days is None else int(days)
    if not 2 <= days <= 30:
        raise ValueError(f"days must be between 2 and 30, got {days}")
    rng = random.Random(f"mnemo-household/{seed}/{size}/{days}")
    home = _plan_home(rng, spec, days)
    name = f"gen_{seed}_{size}" + (f"_{days}d" if days != spec.days else "")
    doc = _document(name, int(seed), home, patrols(home, spec.per_room))
    scenario = parse_scenario(doc, f"<generated {name}>")
    ctx = Context(load_catalogue(), scenario, collect(scenario), home.facts, clock(home.last_day, TASK_START),
                  rng, spec.quota)
    doc["tasks"] = _tasks(ctx, _drafts(ctx))
    return doc


def generate_scenario(seed: int, size: str = "medium", days: Optional[int] = None) -> Scenario:
    doc = generate_document(seed, size, days)
    return parse_scenario(doc, f"<generated {doc['name']}>")


class _Dumper(yaml.SafeDumper):
    pass


def _flow_mapping(dumper: yaml.SafeDumper, data: dict) -> yaml.Node:
    # Entries of the top-level lists read best one per line (as the shipped files are written).
    flow = all(not isinstance(v, dict) or len(v) <= 2 for v in data.values()) and "format" not in data
    return dumper.represent_mapping("tag:yaml.org,2002:map", data, flow_style=flow)


_Dumper.add_representer(dict, _flow_mapping)


def dump(document: dict) -> str:
    """The YAML text of a generated document."""
    header = (f"# Generated by `mnemo scenario generate` (seed {document['seed']}); regenerate rather than edit.\n")
    return header + yaml.dump(document, Dumper=_Dumper, sort_keys=False, width=250, allow_unicode=True)
