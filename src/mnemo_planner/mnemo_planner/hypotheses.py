"""Where to look next: the known things that fit the request, best first, with the places each may
be (where the scene graph or memory last put it, then where it has often been); then unexplored
places ranked by how plausibly they hold the thing (the embedding model's similarity of thing and
fixture), the search scope first, known-locked containers never, distance as a tie-breaker.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Optional, Sequence

from mnemo_planner import request as rq
from mnemo_planner.beliefs import Beliefs, Entity
from mnemo_planner.grounding import NEED, Grounding, describe_fit
from mnemo_planner.lexicon import lexicon
from mnemo_planner.matching import Similarity
from mnemo_planner.places import nearest
from mnemo_planner.wording import norm
from mnemo_planner.words import singular

CONTAINER_PROTOTYPE = "a closed storage unit with a door or a drawer"
SURFACE_PROTOTYPE = "an open flat surface to put things on"
FIT = 0.6  # least fit of a known thing to be fetched as the one asked for
# questions answered about the nearest known thing when their words name none (saying so); not "did you
# see it?" (its "no" is an answer), nor those that list (what was with it: the place they name answers)
STAND_IN_QUESTIONS = (rq.WHERE, rq.WHEN)
NEED_KNOWN = 0.45  # similarity of a need and a known thing at which it is worth going to that thing first
SCOPE = 1.0  # what settling weighs a thing found where the request says to search
PLACE_FIT = 1.0  # what place words that name no place weigh for a thing at the place they come nearest
PLACE_FLOOR = 0.4  # ... if that near at least
ANCHOR_FIT = 0.5  # ... and among the places they name


@dataclass
class Place:
    fixture: str
    entity: str = ""  # the thing believed there ("" when searching)
    reason: str = ""
    score: float = 0.0


def _at(beliefs: Beliefs, e: Entity, g: Grounding) -> bool:
    if g.fixtures:
        return e.support in g.fixtures
    room = (beliefs.fixtures[e.support].room if e.support in beliefs.fixtures else "") or e.room
    return room in g.rooms


def _constraint(beliefs: Beliefs, req: rq.Request, g: Grounding, e: Entity) -> float:
    """Bonus for satisfying the place, time and habit constraints; a penalty for contradicting them."""
    if not (g.fixtures or g.rooms) or g.place_spent:
        fit = 0.0 if g.place_spent else _nearest_place(req, g, e)
        if req.window is not None:
            return (1.0 if e.places(*req.window) else -1.0) + fit
        return fit
    anchors = set(g.fixtures)
    if g.rooms and not anchors:
        anchors = {fid for fid, f in beliefs.fixtures.items() if f.room in g.rooms}
    first = beliefs.fixture_label(g.fixtures[0]) if g.fixtures else ""

    # (where the words name fixtures: a room named alone names each of its fixtures alike)
    near_words = nearest(g.place_fit, anchors | set(g.kin)) if g.fixtures else set()

    def anchored(fid: str) -> float:  # (the nearest named fixture first, where several are named alike; then
        # a fixture the words may mean, of a kind of the one they name; of these, those the words come
        # nearest with their room)
        return ((3.0 if not first or beliefs.fixture_label(fid) == first else 2.9) if fid in anchors else 2.8) + \
            (ANCHOR_FIT if fid in near_words else 0.0)

    fids = _asked_places(req, e)
    if req.habit and not fids:
        return -1.0
    there = set(fids) & (anchors | set(g.kin))
    if there:
        return max(anchored(fid) for fid in there)
    return -2.0 if req.habit or req.window is not None else -1.5


def _asked_places(req: rq.Request, e: Entity) -> list[str]:
    """The thing's places the request asks about: its usual place, its places in the window, or where it is."""
    if req.habit:
        places = e.places()
        return [max(places.items(), key=lambda kv: kv[1])[0]] if places else []
    if req.window is not None:
        return list(e.places(*req.window))
    return [e.support] if e.support else []


def _nearest_place(req: rq.Request, g: Grounding, e: Entity) -> float:
    """Where the place words name no place of the home by its name ("the gizmo on the plinth", and no
    fixture or room is so called): ``PLACE_FIT`` if the thing's place the request asks about is among those
    the words come nearest, at least ``PLACE_FLOOR`` near."""
    if not g.place_fit or not g.labels:  # (which of the things of a kind named: a need's words say no place)
        return 0.0
    return PLACE_FIT if set(_asked_places(req, e)) & nearest(g.place_fit, g.place_fit, PLACE_FLOOR) else 0.0


def rank_entities(sim: Similarity, beliefs: Beliefs, req: rq.Request, g: Grounding,
                  previous: Optional[dict]) -> list[tuple[float, Entity]]:
    ents = list(beliefs.entities.values())
    prev_key = (previous or {}).get("target", "")
    prev_label = (previous or {}).get("label", "")
    if req.pronoun and not g.labels and prev_key and (req.match or not req.other):  # ("another of it": not it)
        e = beliefs.entities.get(prev_key)
        if e is not None and req.match:  # "one like it": the previous thing is the reference
            g.reference, g.labels, g.label_scores = e, [e.label], {e.label: 1.0}
            return sorted(((f, x) for x in ents for f in [match_fit(e, x)] if f > 0), key=lambda x: (-x[0], -x[1].last_seen))
        return [(10.0, e)] if e is not None else []
    if req.other and not g.labels and prev_label:
        return [(5.0 - 0.0001 * i, e) for i, e in enumerate(sorted(
            (e for e in ents if e.label == prev_label and e.key != prev_key), key=lambda e: -e.last_seen))]
    if g.labels:
        cands = [e for e in ents if e.label in g.labels]
    elif g.need and not g.named:  # (a thing asked for by a name never seen is searched for by that name)
        if not ents:
            return []
        # what a thing is (its label), not its colour or brand, answers a need; only a close answer is
        # worth going to before searching, and a stated place or time still holds
        sims = need_fit(sim, g.need, ents, g.situation)
        scored = [(s + _constraint(beliefs, req, g, e), e) for s, e in zip(sims, ents) if s >= NEED_KNOWN]
        if not scored and req.intent == rq.RECALL and req.kind in STAND_IN_QUESTIONS:
            return _stand_ins(g, sims, ents)
        return sorted(scored, key=lambda x: (-x[0], -x[1].last_seen, x[1].key))[:5]
    elif g.named and req.intent == rq.RECALL and req.kind in STAND_IN_QUESTIONS:
        return _stand_ins(g, need_fit(sim, g.named, ents) if g.named.strip() else [], ents)
    else:
        return []
    if req.match:
        return _matching(sim, beliefs, req, g, cands)
    scored = [(fit_of(sim, beliefs, req, g, e), e) for e in cands]
    # a question about a named kind of thing is answered about the instance that fits best, however
    # well: one the robot has seen is a better answer than "not seen" (and the answer names it)
    least = float("-inf") if req.intent == rq.RECALL else FIT
    return sorted(((f, e) for f, e in scored if f >= least), key=lambda x: (-x[0], -x[1].last_seen, x[1].key))


def _stand_ins(g: Grounding, sims: list[float], ents: list[Entity]) -> list[tuple[float, Entity]]:
    """A question about a thing by words that name nothing the home showed ("where is the gizmo?"):
    the things of the label nearest the words (``sims``: ``need_fit`` of each thing, at least ``NEED``),
    last seen first, marked as stand-ins for an answer that says so, rather than "not seen" (the thing
    is most likely known by another name)."""
    label = nearest_label(sims, ents)
    if not label:
        return []
    g.stand_in = True
    return sorted(((s, e) for s, e in zip(sims, ents) if e.label == label), key=lambda x: (-x[1].last_seen, x[1].key))


def nearest_label(sims: Sequence[float], ents: Sequence[Entity]) -> str:
    """The label of the thing whose similarity (``sims``, one per thing) is highest, if at least ``NEED``;
    "" otherwise."""
    if not sims:
        return ""
    best = max(range(len(ents)), key=lambda i: sims[i])
    return ents[best].label if sims[best] >= NEED else ""


def need_fit(sim: Similarity, need: str, ents: Sequence[Entity], defined: bool = False) -> list[float]:
    """How well each thing answers a need or a description that names no known label: the
    similarity of the words and the thing's label or, for a situation stated (``defined``) where nearer,
    the dictionary's definition of the label: what a thing is for is said there, which its name alone
    may not carry to the embedding model. Words that name or describe a thing are weighed against names."""
    if not ents:
        return []
    labels = [norm(e.label) for e in ents]
    fits = [float(x) for x in sim.matrix([need], [f"a {lab}" for lab in labels])[0]]
    if not defined:
        return fits
    lex = lexicon()
    meaning = {lab: lex.definition(lab) for lab in set(labels)}
    said = sorted({d for d in meaning.values() if d})
    if not said:
        return fits
    near = dict(zip(said, (float(x) for x in sim.matrix([need], said)[0])))
    return [max(f, near[meaning[lab]]) if meaning[lab] else f for f, lab in zip(fits, labels)]


def fit_of(sim: Similarity, beliefs: Beliefs, req: rq.Request, g: Grounding, e: Entity) -> float:
    """The whole description's fit: label and attributes, then place, time and habit."""
    siblings = [o for o in beliefs.entities.values() if o.label == e.label]
    return describe_fit(sim, g, req, e, siblings, beliefs.value_words()) + _constraint(beliefs, req, g, e)


def _matching(sim: Similarity, beliefs: Beliefs, req: rq.Request, g: Grounding, cands: list[Entity]):
    """"One exactly like the gizmo on the plinth": the reference is the described thing at the place; the
    answer is another thing with its label and every attribute it has (owner aside), never itself."""
    refs = sorted(cands, key=lambda e: (-(describe_fit(sim, g, req, e, cands) + _constraint(beliefs, req, g, e)),
                                        -e.last_seen))
    if not refs:
        return []
    ref = refs[0]
    g.reference = ref
    out = [(f, e) for f, e in ((match_fit(ref, e), e) for e in cands) if f > 0]
    return sorted(out, key=lambda x: (-x[0], -x[1].last_seen))


def match_fit(ref: Entity, e: Entity) -> float:
    """How well ``e`` matches the reference thing: 1 + the attributes they share; 0 when it is the
    reference itself, another kind of thing, or an attribute both show differs."""
    if e.key == ref.key or e.label != ref.label:
        return 0.0
    same = {k: norm(v) for k, v in ref.attributes.items() if k != "owner"}
    theirs = {k: norm(v) for k, v in e.attributes.items() if k != "owner"}
    if any(k in theirs and theirs[k] != v for k, v in same.items()):
        return 0.0
    return 1.0 + sum(1 for k, v in same.items() if theirs.get(k) == v)


def obtainable(beliefs: Beliefs, failed: set, locked: set[str]) -> list[Entity]:
    """The known things still to be had: where the graph holds them now, in no locked container, and not
    where a grasp of them failed."""
    return [e for e in beliefs.entities.values() if e.support and e.current and e.support not in locked
            and (e.key, e.support) not in failed]


def settle_for(sim: Similarity, beliefs: Beliefs, req: rq.Request, g: Grounding, failed: set,
               locked: set[str], searched: frozenset = frozenset()) -> Optional[tuple[float, Entity]]:
    """When the search cannot finish (budget nearly spent, or no plausible place left): the known
    thing that fits the request best at all, if any. An instance of a named label whose attributes
    fit less than ``FIT`` (none contradicted), or, for a name no label matched or a need, the thing
    whose label is nearest the words (at least ``NEED``), with what else the request says of it: the
    end of a search in vain is when a name the home never showed most likely names a thing known by
    another name, however loosely the embedding model relates the two. What the search found at the
    places it chose as plausible for the request (``searched``), and what bears the words said or stands
    where the request puts it, may be settled for however loosely its name relates to the words: the
    place, and what it bears, are evidence too."""
    cands = obtainable(beliefs, failed, locked)
    if g.labels:
        scored = [(fit_of(sim, beliefs, req, g, e), e) for e in cands if e.label in g.labels]
        scored = [(f, e) for f, e in scored if f > 0.0]
    else:
        # a name never seen may be no name at all but the situation's noun ("the blick wobbles, I need
        # zorp"): it is read both ways, as the name and as the whole request, and the nearer reading counts
        readings = [(g.named, False), (req.text, True)] if g.named else [(g.need, g.situation)] if g.need else []
        fits = [max(r) for r in zip(*(need_fit(sim, words, cands, defined) for words, defined in readings))] \
            if readings else []
        # the place and time the request puts it at count (a place searched in vain was searched for the
        # name, which the thing there may bear under another), and for a thing named, what it bears and
        # whose it is ("the mauve blick from the plinth": a mauve thing there). Only the name's own words
        # say what it bears (not those of its place), and not a word that is part of a known name too
        # ("the dax zorps" where "dax blicks" are known and dax is a material): it may be the name's own
        own = set(norm(g.named).split()) - {singular(w) for lab in beliefs.labels() for w in norm(lab).split()}
        said = replace(g, place_spent=False, modifiers=[w for w in g.modifiers if singular(w) in own])
        more = [fit_of(sim, beliefs, req, replace(said, labels=[e.label], label_scores={}), e) if g.named
                else _constraint(beliefs, req, said, e) for e in cands]
        scored = [(s + m, e) for s, m, e in zip(fits, more, cands)
                  if s >= NEED or (s > 0.0 and (m > 0.0 or e.support in searched))]
    # (where the request says to search, "check the crates", a thing found there is the likelier one)
    scored = [(f + (SCOPE if e.support in g.scope else 0.0), e) for f, e in scored]
    return max(scored, key=lambda x: (x[0], x[1].last_seen, x[1].key), default=None)


def entity_places(beliefs: Beliefs, e: Entity, locked: set[str]) -> list[Place]:
    """Where a thing may be: where it was last seen (the graph's belief first), then its usual places."""
    out: list[Place] = []
    if e.support:
        out.append(Place(e.support, e.key, "last seen there"))
    for fid, _ in sorted(e.places().items(), key=lambda kv: -kv[1]):
        if fid not in {p.fixture for p in out}:
            out.append(Place(fid, e.key, "often seen there"))
    return [p for p in out if p.fixture not in locked]


def is_container(sim: Similarity, beliefs: Beliefs, fid: str) -> bool:
    f = beliefs.fixtures.get(fid)
    if f is not None and f.container is not None:
        return f.container
    label = beliefs.fixture_label(fid)
    s = sim.matrix([label], [CONTAINER_PROTOTYPE, SURFACE_PROTOTYPE])[0]
    return bool(s[0] > s[1])


LOOKED_AT = 0.4  # a surface the camera saw well after the thing was last seen (without it) is less likely
LOOKED_MARGIN = 1800.0  # s: ... that much later
KIN_PLACE = 0.8  # a fixture the place words may mean (of a kind of the one they name), after it
HUB = 0.3  # weight of "many different things were seen here" (where things get put down)


def keeps(sim: Similarity, beliefs: Beliefs, fid: str) -> str:
    """The place as what it keeps, for the embedding model to weigh a thing against: the fixture with its
    room ("something kept in a dax in the den") places things better than the fixture's name alone."""
    room = beliefs.room_label(fid)
    return f"something kept {'in' if is_container(sim, beliefs, fid) else 'on'} a {beliefs.fixture_label(fid)}" + \
        (f" in the {room}" if room else "")


def search_places(sim: Similarity, beliefs: Beliefs, thing: str, g: Grounding, skip: set[str], here: Optional[tuple],
                  last_seen: Optional[float], scope: Sequence[str] = (),
                  sought: frozenset = frozenset()) -> list[Place]:
    """Unexplored fixtures by plausibility, the scope first of all. A surface the camera has looked at
    since the thing was last seen there or anywhere (never, for a thing never seen) is less likely: what
    is not in view was put away, so containers come first then. The things ``sought`` (whose own places
    are searched before these) are no kin of their own (see ``kindred``)."""
    fids = [fid for fid in beliefs.fixtures if fid not in skip]
    if not fids:
        return []
    plaus = sim.matrix([f"a {thing}"], [keeps(sim, beliefs, fid) for fid in fids])[0] if thing else [0.0] * len(fids)
    plaus = [max(float(p), k) for p, k in zip(plaus, kindred(sim, beliefs, thing, fids, sought))]
    out = []
    hubs: dict[str, int] = {}
    for e in beliefs.entities.values():
        for place in {s.support for s in e.sightings if s.support}:
            hubs[place] = hubs.get(place, 0) + 1
    top = max(hubs.values(), default=0) or 1
    for fid, p in zip(fids, plaus):
        f = beliefs.fixtures[fid]
        container = is_container(sim, beliefs, fid)
        # an open container shows its contents to a passing camera as a surface does
        looked = (not container or f.open) and \
            f.last_seen > (last_seen + LOOKED_MARGIN if last_seen is not None else float("-inf"))
        score = float(p) - (LOOKED_AT if looked else 0.0) + (2.0 if fid in scope else 0.0)
        if not container and last_seen is not None:  # (where things get put down: a thing seen about)
            score += HUB * hubs.get(fid, 0) / top
        if g.fixtures and fid in g.fixtures:
            score += 1.0
        elif fid in g.kin:
            score += KIN_PLACE
        if g.rooms and f.room in g.rooms and not (g.fixtures and g.place_spent):
            score += 0.5  # (a room that only said which fixture was meant says nothing once it is searched)
        if here is not None and f.position:
            score -= 0.02 * math.dist(here[:2], tuple(f.position)[:2])
        out.append(Place(fid, "", "plausible, not searched yet", score))
    return sorted(out, key=lambda p: (-p.score, p.fixture))


KIN_ROOM = 0.8  # weight of kindred things seen elsewhere in the fixture's room


def kindred(sim: Similarity, beliefs: Beliefs, thing: str, fids: Sequence[str],
            sought: frozenset = frozenset()) -> list[float]:
    """For each fixture, how alike the thing is to what has been seen on or in it (and, weighed less,
    elsewhere in its room): things are kept with their kind. What was seen of the things ``sought``
    themselves counts for nothing: their own places are searched first, and that they were once in a
    room says nothing of where else in it they were put."""
    at: dict[str, set[str]] = {}
    for e in beliefs.entities.values():
        if e.key in sought:
            continue
        for s in e.sightings:
            if s.support:
                at.setdefault(s.support, set()).add(e.label)
    labels = sorted({lab for labs in at.values() for lab in labs})
    if not thing or not labels:
        return [0.0] * len(fids)
    score = dict(zip(labels, (float(x) for x in sim.matrix([f"a {thing}"], [f"a {norm(lab)}" for lab in labels])[0])))
    by_room: dict[str, float] = {}
    for fid, labs in at.items():
        room = beliefs.fixtures[fid].room if fid in beliefs.fixtures else ""
        if room:
            by_room[room] = max(by_room.get(room, 0.0), max(score[lab] for lab in labs))
    out = []
    for fid in fids:
        own = max((score[lab] for lab in at.get(fid, ())), default=0.0)
        room = beliefs.fixtures[fid].room if fid in beliefs.fixtures else ""
        out.append(max(own, KIN_ROOM * by_room.get(room, 0.0)))
    return out
