"""Recall questions and follow-ups for a generated home, answered from the robot's sightings.

Kinds: where (the fixture it was last seen on or in), when (the day it was last seen), with (what
else stood there then), stored_with (what else was in an open container with it), which (of two
instances, the one seen at a place in a time window), count (instances of a class seen in a room).
Follow-ups: a recall question then "bring it", and one instance fetched then "the other one".
"""
from __future__ import annotations

from typing import Optional

from ..scenario import DAY
from .phrasing import ADJECTIVE_KEYS, NUMBER_WORDS, WEEKDAYS, plural, time_phrase
from .taskgen import Context, Draft, _clear_window, _pick, _recall, _seen_and_here


def _day_answers(ctx: Context, t: float) -> list[str]:
    day, today = int(t // DAY), int(ctx.t // DAY)
    answers = [f"day {day}", WEEKDAYS[day % 7]]
    if day == today:
        answers.append("today")
    elif day == today - 1:
        answers.append("yesterday")
    return answers


def _described(ctx: Context, oid: str) -> Optional[str]:
    return ctx.names.unique(oid, ctx.all_objects())


def recall_where(ctx: Context, oid: str, sequence: Optional[str] = None) -> Optional[Draft]:
    last = ctx.ev.last_seen(oid, ctx.t)
    phrase = _described(ctx, oid)
    if last is None or not phrase:
        return None
    return _recall("where", "recall_where", {"answer_obj": phrase}, [ctx.sc.fixture_by_id[last.support].label], sequence)


def recall_tasks(ctx: Context) -> list[Draft]:
    out: list[Draft] = []
    stale = [f["obj"] for k in ("put_away", "hidden", "used_up") for f in ctx.facts.get(k, [])]
    seen = [o for o in ctx.shuffled(ctx.all_objects()) if ctx.ev.before(o, ctx.t)]
    for oid in stale[:1] + seen[:1]:
        d = recall_where(ctx, oid)
        if d:
            out.append(d)
    # when: prefer things not seen today, whose last sighting is a real question
    for oid in stale + seen:
        last = ctx.ev.last_seen(oid, ctx.t)
        phrase = _described(ctx, oid) if last else None
        if phrase and int(last.t // DAY) < int(ctx.t // DAY):
            out.append(_recall("when", "recall_when", {"answer_obj": phrase}, _day_answers(ctx, last.t)))
            break
    for oid in seen:
        last = ctx.ev.last_seen(oid, ctx.t)
        mates = {ctx.label(o) for o in ctx.ev.companions(last)} - {ctx.label(oid)}
        place, phrase = ctx.names.place(last.support), _described(ctx, oid)
        if mates and place and phrase and not ctx.sc.fixture_by_id[last.support].is_container:
            out.append(_recall("with", "recall_with", {"answer_obj": phrase, "place": place}, sorted(mates)))
            break
    for f in ctx.facts.get("opened", []):
        for oid in f["objects"]:
            last = ctx.ev.last_seen(oid, ctx.t)
            if last is None or last.support != f["place"]:
                continue
            mates = {ctx.label(o) for o in ctx.ev.companions(last)} - {ctx.label(oid)}
            place, phrase = ctx.names.place(f["place"]), _described(ctx, oid)
            if mates and place and phrase:
                out.append(_recall("stored_with", "recall_stored_with", {"answer_obj": phrase, "place": place},
                                   sorted(mates)))
                break
    out += _which(ctx)
    out += _count(ctx)
    return out


def _which(ctx: Context) -> list[Draft]:
    """Of two instances, which one was at a place in a time window."""
    pairs = [(f["obj"], f["other"], f["place"]) for f in ctx.facts.get("temporal", []) + ctx.facts.get("habit", [])]
    for oid, other, fid in pairs:
        a, b = ctx.sc.object_by_id[oid].attributes, ctx.sc.object_by_id[other].attributes
        keys = [k for k in ADJECTIVE_KEYS if k in a and k in b and a[k] != b[k]]
        place = ctx.names.place(fid)
        good = [w for w in _clear_window(ctx, oid, fid) if w.key != "the_other_day"]
        if not keys or not place or not good:
            continue
        key, w = ctx.rng.choice(keys), ctx.rng.choice(good)
        when = time_phrase(ctx.cat, w, ctx.rng)
        if not when:
            continue
        pair = [a[key], b[key]]
        ctx.rng.shuffle(pair)
        options = f"the {pair[0]} one or the {pair[1]} one"
        return [_recall("which", "recall_which", {"options": options, "class_plural": plural(ctx.names.noun(ctx.label(oid))),
                                                  "place": place, "when": when}, [a[key]])]
    return []


def _count(ctx: Context) -> list[Draft]:
    labels = ctx.shuffled(sorted({o.label for o in ctx.sc.objects}))
    for label in labels:
        if len(ctx.instances(label)) < 2:
            continue
        for room in ctx.shuffled([r.id for r in ctx.sc.rooms]):
            n = len(ctx.ev.seen_in_room(label, room, ctx.t))
            phrase = ctx.names.room(room)
            if 1 <= n <= 5 and phrase:
                return [_recall("count", "recall_count", {"class_plural": plural(ctx.names.noun(label)), "room": phrase},
                                [str(n), NUMBER_WORDS[n]])]
    return []


def follow_up_tasks(ctx: Context) -> list[Draft]:
    out: list[Draft] = []
    for oid in ctx.shuffled(ctx.all_objects()):
        if oid in ctx.used or not _seen_and_here(ctx, oid) or not ctx.truth.on_surface(oid):
            continue
        first = recall_where(ctx, oid, sequence="follow_it")
        if first:
            ctx.used.add(oid)
            out += [first, _pick(ctx, "follow_up", "follow_up_it", oid, {}, sequence="follow_it", budget=12)]
            break
    for label in ctx.shuffled(sorted({o.label for o in ctx.sc.objects})):
        present = [o for o in ctx.truth.present(label) if ctx.truth.reachable(o)]
        if len(present) != 2 or len(ctx.instances(label)) != 2 or any(o in ctx.used for o in present):
            continue
        one, other = present
        keys = ctx.names.distinguishing(one, [other])
        if not keys or not all(_seen_and_here(ctx, o) for o in present):
            continue
        out.append(_pick(ctx, "attribute", "attribute", one, {"obj": ctx.names.with_attribute(one, ctx.rng.choice(keys))},
                         sequence="follow_other"))
        out.append(_pick(ctx, "follow_up", "follow_up_other", other, {}, sequence="follow_other"))
        break
    return out
