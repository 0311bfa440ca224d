"""Situations planted in a generated home so that every task family has something to ask about.

Each motif reserves the objects it uses (background moves leave them alone), adds timeline events and
records a fact (``home.fact(kind, ...)``). Facts are proposals: the task builders check them against
what the simulator's replay shows the robot actually saw, and drop any that do not hold.
"""
from __future__ import annotations

import random
from typing import Iterator, Optional

from ..scenario import clock
from .catalogue import Catalogue
from .layout import FixturePlan
from .life import Event, Home, ObjectPlan, add_object, homes_for, lunch, move, night


def _surface_pairs(home: Home, rng: random.Random) -> list[tuple[ObjectPlan, ObjectPlan]]:
    """Two unreserved instances of one class, both on surfaces at different places."""
    by_class: dict[str, list[ObjectPlan]] = {}
    for o in home.objects:
        if o.id not in home.reserved and o.at and not home.fixture(o.at).cls.is_container:
            by_class.setdefault(o.cls.label, []).append(o)
    pairs = [(a, b) for objs in by_class.values() for a in objs for b in objs if a is not b and a.at != b.at]
    rng.shuffle(pairs)
    return pairs


def _other_surface(rng: random.Random, home: Home, obj: ObjectPlan, avoid: set[str]) -> Optional[FixturePlan]:
    options = [f for f in homes_for(obj.cls, home.layout, containers=False) if f.id not in avoid]
    options = options or [f for f in home.layout.fixtures if not f.cls.is_container and f.id not in avoid]
    return rng.choice(options) if options else None


def _pairs(rng: random.Random, cat: Catalogue, home: Home, counts: dict[str, int]) -> Iterator[tuple[ObjectPlan, ObjectPlan]]:
    """Pairs already in the home first; failing those, two instances of a class new to the home, on two
    of its usual surfaces."""
    yield from _surface_pairs(home, rng)
    classes = [c for c in cat.objects.values() if not home.instances(c.label)
               and len(homes_for(c, home.layout, containers=False)) >= 3]
    rng.shuffle(classes)
    for cls in classes[:10]:
        spots = [f.id for f in homes_for(cls, home.layout, containers=False)]
        rng.shuffle(spots)
        a = add_object(rng, home, cls, counts, [], at=spots[0])
        b = add_object(rng, home, cls, counts, [], at=spots[1])
        yield a, b
        return


def habit(rng: random.Random, cat: Catalogue, home: Home, counts: dict[str, int]) -> None:
    """An object that stays at one place day after day is moved away today, and another instance of
    its class takes that place."""
    last = home.last_day
    for x, y in _pairs(rng, cat, home, counts):
        place = x.at
        away = _other_surface(rng, home, x, {place, y.at})
        if away is None:
            continue
        t = lunch(last, rng)
        move(home, x.id, away.id, t)
        move(home, y.id, place, t + 600)
        if last >= 2:  # one earlier excursion, back the same evening
            detour = _other_surface(rng, home, x, {place})
            if detour is not None:
                day = rng.randint(1, last - 1)
                move(home, x.id, detour.id, lunch(day, rng))
                move(home, x.id, place, night(day, rng))
        home.reserved.update({x.id, y.id})
        home.fact("habit", obj=x.id, place=place, other=y.id)
        return


def temporal(rng: random.Random, cat: Catalogue, home: Home, counts: dict[str, int]) -> None:
    """An object stood somewhere earlier (yesterday, or this morning); now it is elsewhere and another
    instance of its class stands there."""
    last = home.last_day
    for x, z in _pairs(rng, cat, home, counts):
        place = x.at
        away = _other_surface(rng, home, x, {place, z.at})
        if away is None:
            continue
        if last >= 1 and rng.random() < 0.6:
            t_out, t_in = night(last - 1, rng), clock(last, "07:00")
        else:
            t_out = lunch(last, rng)
            t_in = t_out + 600
        move(home, x.id, away.id, t_out)
        move(home, z.id, place, t_in)
        home.reserved.update({x.id, z.id})
        home.fact("temporal", obj=x.id, place=place, other=z.id, moved_at=t_out)
        return


def put_away(rng: random.Random, home: Home, hide: bool = False) -> None:
    """Someone puts an object into a container unseen (``hide``: into a container of another room)."""
    free = [o for o in home.objects if o.id not in home.reserved and o.at and not home.fixture(o.at).cls.is_container]
    rng.shuffle(free)
    for o in free:
        here = home.fixture(o.at).room
        if hide:
            options = [f for f in home.layout.fixtures if f.cls.is_container and not f.locked and f.room != here]
        else:
            options = [f for f in homes_for(o.cls, home.layout, containers=True) if not f.locked]
        if not options:
            continue
        dest = rng.choice(options)
        t = night(rng.randint(0, home.last_day - 1), rng) if home.last_day >= 1 else lunch(0, rng)
        move(home, o.id, dest.id, t)
        home.reserved.add(o.id)
        home.fact("hidden" if hide else "put_away", obj=o.id, place=dest.id, seen_at=o.at)
        return


def used_up(rng: random.Random, home: Home) -> None:
    """A consumable is used up (it leaves the home) after the robot has seen it."""
    free = [o for o in home.objects if o.cls.consumable and o.id not in home.reserved and o.at
            and not home.fixture(o.at).cls.is_container]
    if not free or home.last_day < 1:
        return
    o = rng.choice(free)
    home.events.append(Event(night(rng.randint(0, home.last_day - 1), rng), "remove", o.id))
    home.reserved.add(o.id)
    home.fact("used_up", obj=o.id, place=o.at)


def locked_row(rng: random.Random, cat: Catalogue, home: Home, row: list[str], counts: dict[str, int]) -> None:
    """A row of alike containers, one locked, two holding things someone will ask for."""
    if len(row) < 3:
        return
    locked = rng.choice(row)
    home.fixture(locked).locked = True
    open_ones = [f for f in row if f != locked]
    rng.shuffle(open_ones)
    label = home.fixture(row[0]).cls.label
    fitting = [c for c in cat.objects.values() if label in c.stored_in and not home.instances(c.label)]
    fitting = fitting or [c for c in cat.objects.values() if max(c.size) <= 0.3 and not home.instances(c.label)]
    rng.shuffle(fitting)
    placed = []
    for fid, cls in zip(open_ones + [locked], fitting):
        o = add_object(rng, home, cls, counts, [], at=fid)
        if o is not None:
            placed.append(o.id)
            home.reserved.add(o.id)
    if len(placed) >= 2:
        home.fact("locked_row", fixtures=list(row), locked=locked, first=placed[0], second=placed[1])


def twins(rng: random.Random, cat: Catalogue, home: Home, counts: dict[str, int]) -> None:
    """Two instances exactly alike and a third that differs, on three different surfaces."""
    classes = [c for c in cat.objects.values() if not home.instances(c.label) and len(c.attributes) >= 2
               and len(homes_for(c, home.layout, containers=False)) >= 2]
    rng.shuffle(classes)
    for cls in classes[:10]:
        surfaces = [f for f in home.layout.fixtures if not f.cls.is_container]
        rng.shuffle(surfaces)
        usual = [f for f in homes_for(cls, home.layout, containers=False)]
        rng.shuffle(usual)
        spots = list(dict.fromkeys([f.id for f in usual] + [f.id for f in surfaces]))[:3]
        if len(spots) < 3:
            continue
        first = add_object(rng, home, cls, counts, [], at=spots[0])
        second = add_object(rng, home, cls, counts, [], at=spots[1], attributes=dict(first.attributes))
        third = add_object(rng, home, cls, counts, [], at=spots[2])
        home.reserved.update({first.id, second.id, third.id})
        home.fact("twins", ref=first.id, twin=second.id, other=third.id)
        return


def clutter(rng: random.Random, cat: Catalogue, home: Home, counts: dict[str, int], people: list[str]) -> None:
    """One big surface crowded with many different things."""
    surfaces = [f for f in home.layout.fixtures if not f.cls.is_container and f.size[0] * f.size[1] >= 0.45]
    if not surfaces:
        return
    place = rng.choice(surfaces)
    classes = [c for c in cat.objects.values() if place.cls.label in c.found_on and not home.instances(c.label)]
    classes = classes or [c for c in cat.objects.values() if max(c.size) <= 0.25 and not home.instances(c.label)]
    rng.shuffle(classes)
    added = []
    for cls in classes[: rng.randint(7, 10)]:
        o = add_object(rng, home, cls, counts, people, at=place.id)
        if o is not None:
            added.append(o.id)
            home.reserved.add(o.id)
    if len(added) >= 5:
        home.fact("clutter", place=place.id, objects=added)


def opened_container(rng: random.Random, home: Home) -> None:
    """Someone leaves a container open for a morning: the robot sees what is stored in it."""
    if home.last_day < 1:
        return
    full: dict[str, list[str]] = {}
    for o in home.objects:
        if o.at and home.fixture(o.at).cls.is_container and not home.fixture(o.at).locked:
            full.setdefault(o.at, []).append(o.id)
    options = [f for f, objs in full.items() if len(objs) >= 2]
    if not options:
        return
    fid = rng.choice(options)
    day = rng.randint(0, home.last_day - 1)
    home.events.append(Event(clock(day, "08:10"), "open", fid))
    home.events.append(Event(clock(day, "11:20"), "close", fid))
    home.reserved.update(full[fid])
    home.fact("opened", place=fid, day=day, objects=full[fid])


def stash(rng: random.Random, cat: Catalogue, home: Home, counts: dict[str, int], people: list[str]) -> None:
    """Something kept where it belongs, behind a closed door the robot never sees through."""
    classes = [c for c in cat.objects.values() if not home.instances(c.label)
               and any(not f.locked and f.id not in home.layout.row for f in homes_for(c, home.layout, containers=True))]
    rng.shuffle(classes)
    for cls in classes:
        spots = [f for f in homes_for(cls, home.layout, containers=True) if not f.locked and f.id not in home.layout.row]
        o = add_object(rng, home, cls, counts, people, at=rng.choice(spots).id)
        if o is not None:
            home.reserved.add(o.id)
            home.fact("stashed", obj=o.id)
            return


def random_locks(rng: random.Random, home: Home, share: float = 0.2) -> None:
    """Some other lockable containers are locked too (nothing anyone asks for is inside)."""
    for f in home.layout.fixtures:
        if f.cls.lockable and not f.locked and rng.random() < share:
            inside = [o for o in home.objects if o.at == f.id]
            if not any(o.id in home.reserved for o in inside):
                f.locked = True
                home.reserved.update(o.id for o in inside)
