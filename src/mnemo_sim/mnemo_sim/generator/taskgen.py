"""Tasks of every family for a generated home, each checked against what the robot really saw.

``build_tasks(ctx) -> list[Draft]``: drafts for class, attribute, spatial, spatial-temporal,
spatial-frequentist, commonsense, locked-then-find sequences, follow-ups, matching, clutter and recall
questions (where, when, what was with it, what is stored with it, which one, how many). Every draft's
truth comes from the simulator: the world at the task's time (``Truth``) and the patrol sightings
before it (``Evidence``); a planted situation that did not come out as planned yields no task.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Optional

from ..scenario import Scenario
from .catalogue import Catalogue
from .evidence import Evidence, Truth
from .phrasing import Namer, Window, article, time_phrase, windows

BUDGET = {"visible": 20, "interactive": 20, "commonsense": 20, "recall": 6}


@dataclass
class Draft:
    family: str
    type: str
    template: str  # phrasing family
    slots: dict[str, str]
    success: tuple[str, list[str]]
    optimal: int
    budget: int = 0
    sequence: Optional[str] = None
    kind: str = ""  # finer kind for ids (recall: where, when, with, ...)


@dataclass
class Context:
    cat: Catalogue
    sc: Scenario
    ev: Evidence
    facts: dict[str, list[dict]]
    t: float  # when the tasks are asked
    rng: random.Random
    quota: int  # tasks per family (roughly)
    truth: Truth = field(init=False)
    names: Namer = field(init=False)
    used: set[str] = field(default_factory=set)  # objects already asked about

    def __post_init__(self) -> None:
        self.truth = Truth(self.sc).at(self.t)
        self.names = Namer(self.cat, self.sc, self.rng)

    def label(self, oid: str) -> str:
        return self.sc.object_by_id[oid].label

    def instances(self, label: str) -> list[str]:
        return [o.id for o in self.sc.objects if o.label == label]

    def all_objects(self) -> list[str]:
        return [o.id for o in self.sc.objects]

    def pick_type(self, oid: str) -> str:
        return "visible" if self.truth.on_surface(oid) else "interactive"

    def shuffled(self, items: list) -> list:
        items = list(items)
        self.rng.shuffle(items)
        return items


def _pick(ctx: Context, family: str, template: str, oid: str, slots: dict[str, str], targets: Optional[list[str]] = None,
          sequence: Optional[str] = None, budget: int = 0) -> Draft:
    targets = targets or [oid]
    ctx.used.add(oid)
    typ = "visible" if any(ctx.truth.on_surface(o) for o in targets) else "interactive"
    return Draft(family, typ, template, slots, ("pick_any", targets), min(ctx.truth.optimal_pick(o) for o in targets),
                 budget or BUDGET[typ], sequence)


def _recall(kind: str, template: str, slots: dict[str, str], answers: list[str], sequence: Optional[str] = None) -> Draft:
    return Draft("memory_query", "recall", template, slots, ("answer_any", sorted(set(answers))), 0, BUDGET["recall"],
                 sequence, kind)


def _seen_and_here(ctx: Context, oid: str) -> bool:
    """Reachable now, and last seen where it is now."""
    last = ctx.ev.last_seen(oid, ctx.t)
    return ctx.truth.reachable(oid) and last is not None and last.support == ctx.truth.location(oid)


# ----------------------------------------------------------------------------------------- pick families

def class_tasks(ctx: Context) -> list[Draft]:
    out = []
    labels = ctx.shuffled(sorted({ctx.label(o) for o in ctx.all_objects() if _seen_and_here(ctx, o)}))
    for label in labels[: ctx.quota]:
        cls = ctx.cat.objects.get(label)
        kinds = [k for k in (cls.kinds if cls else ()) if k != label]
        targets = [o for o in ctx.truth.present(label) if ctx.truth.reachable(o)]
        phrase = article(ctx.names.noun(label))
        if kinds and ctx.rng.random() < 0.35:  # by a category: any present thing of it will do
            kind = ctx.rng.choice(kinds)
            targets = [o.id for o in ctx.sc.objects if ctx.truth.reachable(o.id) and o.label in ctx.cat.objects
                       and kind in ctx.cat.objects[o.label].kinds]
            phrase = ("some " + kind) if kind.endswith(("ware", "ing", "ery", "ies")) else article(kind)
        out.append(_pick(ctx, "class", "class", targets[0], {"obj": phrase}, targets))
    return out


def attribute_tasks(ctx: Context, count: Optional[int] = None) -> list[Draft]:
    out = []
    for oid in ctx.shuffled(ctx.all_objects()):
        if len(out) >= (count or ctx.quota + 1):
            break
        rivals = [o for o in ctx.instances(ctx.label(oid)) if o != oid]
        if oid in ctx.used or not rivals or not ctx.truth.reachable(oid) or not ctx.ev.before(oid, ctx.t):
            continue
        keys = ctx.names.distinguishing(oid, rivals)
        if not keys:
            continue
        phrase = None
        if len(rivals) == 1 and ctx.rng.random() < 0.3:
            phrase = ctx.names.negated(oid, rivals[0])
        phrase = phrase or ctx.names.with_attribute(oid, ctx.rng.choice(keys))
        out.append(_pick(ctx, "attribute", "attribute", oid, {"obj": phrase}))
    return out


def spatial_tasks(ctx: Context) -> list[Draft]:
    out = []
    habit = [f["other"] for f in ctx.facts.get("habit", [])]
    for oid in habit + ctx.shuffled(ctx.all_objects()):
        if len(out) >= ctx.quota or oid in ctx.used or not _seen_and_here(ctx, oid) or not ctx.truth.on_surface(oid):
            continue
        label, here = ctx.label(oid), ctx.truth.location(oid)
        rivals = [o for o in ctx.truth.present(label) if o != oid]
        if not rivals or any(ctx.truth.location(o) == here for o in rivals):
            continue
        room = ctx.sc.fixture_by_id[here].room
        in_room = any(ctx.sc.fixture_by_id[ctx.truth.location(o)].room == room for o in rivals)
        room_phrase = ctx.names.room(room) if not in_room else None
        place = ctx.names.place(here)
        noun = "the " + ctx.names.noun(label)
        if room_phrase and (place is None or ctx.rng.random() < 0.3):
            out.append(_pick(ctx, "spatial", "spatial_room", oid, {"obj": noun, "room": room_phrase}))
        elif place:
            out.append(_pick(ctx, "spatial", "spatial", oid, {"obj": noun, "place": place}))
    return out


def _clear_window(ctx: Context, oid: str, fid: str) -> list[Window]:
    """Time phrases in which the object was seen on the fixture and no other of its class was."""
    rivals = [o for o in ctx.instances(ctx.label(oid)) if o != oid]
    good = []
    for w in windows(ctx.t):
        until = min(w.until, ctx.t)
        if ctx.ev.seen_at(oid, fid, w.since, until) and not any(ctx.ev.seen_at(o, fid, w.since, until) for o in rivals):
            good.append(w)
    return good


def temporal_tasks(ctx: Context) -> list[Draft]:
    out = []
    planted = [(f["obj"], f["place"]) for f in ctx.facts.get("temporal", [])]
    others = [(s.obj, s.support) for s in ctx.shuffled(ctx.ev.sightings[::25])]
    for oid, fid in planted + others:
        if len(out) >= ctx.quota or oid in ctx.used or not ctx.truth.reachable(oid) or not fid:
            continue
        if ctx.truth.location(oid) == fid or len(ctx.instances(ctx.label(oid))) < 2:
            continue  # asking where it was is only a test when it has moved since, and has rivals
        place = ctx.names.place(fid)
        options = [(w, time_phrase(ctx.cat, w, ctx.rng)) for w in _clear_window(ctx, oid, fid)]
        options = [(w, p) for w, p in options if p and (w.key != "the_other_day" or len(options) == 1)]
        if not place or not options:
            continue
        w, when = ctx.rng.choice(options)
        out.append(_pick(ctx, "spatial_temporal", "spatial_temporal", oid,
                         {"obj": "the " + ctx.names.noun(ctx.label(oid)), "place": place, "when": when}))
    return out


def _habitual_place(ctx: Context, oid: str) -> Optional[str]:
    counts = ctx.ev.place_counts(oid, ctx.t)
    total = sum(counts.values())
    if total < 6:
        return None
    place, n = max(counts.items(), key=lambda kv: kv[1])
    return place if n >= 0.6 * total else None


def frequentist_tasks(ctx: Context) -> list[Draft]:
    out = []
    planted = [f["obj"] for f in ctx.facts.get("habit", [])]
    for oid in planted + ctx.shuffled(ctx.all_objects()):
        if len(out) >= max(1, ctx.quota - 1) or oid in ctx.used or not ctx.truth.reachable(oid):
            continue
        place = _habitual_place(ctx, oid)
        rivals = [o for o in ctx.instances(ctx.label(oid)) if o != oid]
        if not place or not rivals or any(_habitual_place(ctx, o) == place for o in rivals):
            continue
        if oid not in planted and ctx.truth.location(oid) == place and ctx.rng.random() < 0.5:
            continue  # prefer habits that are broken right now
        phrase = ctx.names.place(place)
        if phrase:
            out.append(_pick(ctx, "spatial_frequentist", "spatial_frequentist", oid,
                             {"obj": "the " + ctx.names.noun(ctx.label(oid)), "place": phrase}))
    return out


def commonsense_tasks(ctx: Context) -> list[Draft]:
    out = []
    for oid in ctx.shuffled(ctx.all_objects()):
        if len(out) >= ctx.quota or oid in ctx.used:
            continue
        label = ctx.label(oid)
        present = [o for o in ctx.truth.present(label) if ctx.truth.reachable(o)]
        if ctx.truth.on_surface(oid) or not ctx.truth.reachable(oid) or any(ctx.truth.on_surface(o) for o in present):
            continue
        if any(ctx.ev.before(o, ctx.t) for o in ctx.instances(label)):
            continue  # never seen: where it is must be inferred
        cls = ctx.cat.objects.get(label)
        if cls and cls.needs and ctx.rng.random() < 0.6:
            need = ctx.rng.choice(cls.needs)
            also = [o.id for o in ctx.sc.objects if o.label != label and o.label in ctx.cat.objects
                    and need in ctx.cat.objects[o.label].needs and ctx.truth.reachable(o.id)]
            draft = _pick(ctx, "commonsense", "commonsense_need", oid, {"need": need}, present + also)
        else:
            draft = _pick(ctx, "commonsense", "commonsense_named", oid, {"obj": "the " + ctx.names.noun(label)}, present)
        draft.type = "commonsense"
        out.append(draft)
    return out


def hidden_tasks(ctx: Context) -> list[Draft]:
    """Objects put away or hidden since the robot last saw them: asked for as usual."""
    out = []
    for f in ctx.facts.get("put_away", []) + ctx.facts.get("hidden", []):
        oid = f["obj"]
        if oid in ctx.used or not ctx.truth.reachable(oid) or ctx.truth.on_surface(oid):
            continue
        phrase = ctx.names.unique(oid, ctx.all_objects())
        if phrase:
            family = "class" if phrase.startswith("the ") and phrase[4:] in ctx.names._object_names.get(ctx.label(oid), []) else "attribute"
            out.append(_pick(ctx, family, family, oid, {"obj": phrase}))
    return out


def locked_tasks(ctx: Context) -> list[Draft]:
    out = []
    for i, f in enumerate(ctx.facts.get("locked_row", [])):
        first, second = f["first"], f["second"]
        if not (ctx.truth.reachable(first) and ctx.truth.reachable(second)
                and ctx.truth.world.truth_is_locked(f["locked"])):
            continue
        group = ctx.names.fixture_plural(f["fixtures"])
        a, b = ctx.names.unique(first, ctx.all_objects()), ctx.names.unique(second, ctx.all_objects())
        if not (group and a and b):
            continue
        seq = f"locked_{i + 1}"
        ctx.used.update({first, second})
        out.append(Draft("locked", "interactive", "locked_first", {"fixtures": group, "obj": a},
                         ("reach_any", [ctx.truth.location(first)]), 3, 12, seq))
        out.append(Draft("locked", "interactive", "locked_next", {"obj": b},
                         ("reach_any", [ctx.truth.location(second)]), 3, 8, seq))
    return out


def matching_tasks(ctx: Context) -> list[Draft]:
    out = []
    for f in ctx.facts.get("twins", []):
        ref, twin = f["ref"], f["twin"]
        here = ctx.truth.location(ref)
        if not (here and ctx.truth.on_surface(ref) and ctx.truth.reachable(twin) and _seen_and_here(ctx, ref)):
            continue
        if any(ctx.truth.location(o) == here for o in ctx.instances(ctx.label(ref)) if o != ref):
            continue
        place = ctx.names.place(here)
        if place:
            ctx.used.update({ref, twin})
            out.append(_pick(ctx, "matching", "matching", twin,
                             {"obj": f"the {ctx.names.noun(ctx.label(ref))} on {place}"}))
    return out


def clutter_tasks(ctx: Context) -> list[Draft]:
    out = []
    for f in ctx.facts.get("clutter", []):
        place = ctx.names.place(f["place"])
        on_it = [o for o in f["objects"] if ctx.truth.location(o) == f["place"]]
        for oid in ctx.shuffled(on_it):
            phrase = ctx.names.unique(oid, on_it)
            if place and phrase and oid not in ctx.used and _seen_and_here(ctx, oid):
                out.append(_pick(ctx, "clutter", "clutter", oid, {"obj": phrase, "place": place}))
                break
    return out
