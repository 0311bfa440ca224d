"""Where to look next: the known things that fit the request, best first, with the places each may
be (where the scene graph or memory last put it, then where it has often been); then unexplored
places ranked by how plausibly they hold the thing (the embedding model's similarity of thing and
fixture), the search scope first, known-locked containers never, distance as a tie-breaker.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional, Sequence

from mnemo_planner import request as rq
from mnemo_planner.beliefs import Beliefs, Entity
from mnemo_planner.grounding import Grounding, Similarity, describe_fit, norm

CONTAINER_PROTOTYPE = "a closed storage unit with a door or a drawer"
SURFACE_PROTOTYPE = "an open flat surface to put things on"
FIT = 0.6  # least fit of a known thing to be fetched as the one asked for
NEED_KNOWN = 0.45  # similarity of a need and a known thing at which it is worth going to that thing first


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
    if not (g.fixtures or g.rooms):
        if req.window is not None:
            return 1.0 if e.places(*req.window) else -1.0
        return 0.0
    anchors = set(g.fixtures)
    if g.rooms and not anchors:
        anchors = {fid for fid, f in beliefs.fixtures.items() if f.room in g.rooms}
    if req.habit:
        places = e.places()
        if not places:
            return -1.0
        top = max(places.items(), key=lambda kv: kv[1])[0]
        return 3.0 if top in anchors else -2.0
    if req.window is not None:
        return 3.0 if set(e.places(*req.window)) & anchors else -2.0
    return 3.0 if e.support in anchors else -1.5


def rank_entities(sim: Similarity, beliefs: Beliefs, req: rq.Request, g: Grounding,
                  previous: Optional[dict]) -> list[tuple[float, Entity]]:
    ents = list(beliefs.entities.values())
    prev_key = (previous or {}).get("target", "")
    prev_label = (previous or {}).get("label", "")
    if req.pronoun and not g.labels and prev_key:
        e = beliefs.entities.get(prev_key)
        return [(10.0, e)] if e is not None else []
    if req.other and not g.labels and prev_label:
        return [(5.0 - 0.0001 * i, e) for i, e in enumerate(sorted(
            (e for e in ents if e.label == prev_label and e.key != prev_key), key=lambda e: -e.last_seen))]
    if g.labels:
        cands = [e for e in ents if e.label in g.labels]
    elif g.need:
        texts = [e.text() for e in ents]
        if not texts:
            return []
        sims = sim.matrix([g.need], texts)[0]  # only a close answer is worth going to before searching
        return sorted(((float(s), e) for s, e in zip(sims, ents) if s >= NEED_KNOWN), key=lambda x: -x[0])[:5]
    else:
        return []
    if req.match:
        return _matching(sim, beliefs, req, g, cands)
    scored = [(fit_of(sim, beliefs, req, g, e), e) for e in cands]
    return sorted(((f, e) for f, e in scored if f >= FIT), key=lambda x: (-x[0], -x[1].last_seen, x[1].key))


def fit_of(sim: Similarity, beliefs: Beliefs, req: rq.Request, g: Grounding, e: Entity) -> float:
    """The whole description's fit: label and attributes, then place, time and habit."""
    siblings = [o for o in beliefs.entities.values() if o.label == e.label]
    return describe_fit(sim, g, req, e, siblings) + _constraint(beliefs, req, g, e)


def _matching(sim: Similarity, beliefs: Beliefs, req: rq.Request, g: Grounding, cands: list[Entity]):
    """"One exactly like the mug on the desk": the reference is the described thing at the place; the
    answer is another thing with its label and every attribute it has (owner aside), never itself."""
    refs = sorted(cands, key=lambda e: (-(describe_fit(sim, g, req, e, cands) + _constraint(beliefs, req, g, e)),
                                        -e.last_seen))
    if not refs:
        return []
    ref = refs[0]
    same = {k: norm(v) for k, v in ref.attributes.items() if k != "owner"}
    out = []
    for e in cands:
        if e.key == ref.key or e.label != ref.label:
            continue
        agree = sum(1 for k, v in same.items() if norm(e.attributes.get(k, "")) == v)
        out.append((1.0 + agree - 2.0 * (len(same) - agree), e))
    g.reference = ref
    return sorted(out, key=lambda x: (-x[0], -x[1].last_seen))


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
HUB = 0.3  # weight of "many different things were seen here" (where things get put down)


def search_places(sim: Similarity, beliefs: Beliefs, thing: str, g: Grounding, skip: set[str], here: Optional[tuple],
                  last_seen: Optional[float], scope: Sequence[str] = ()) -> list[Place]:
    """Unexplored fixtures by plausibility, the scope first of all. A surface the camera has looked at
    since the thing was last seen there or anywhere (never, for a thing never seen) is less likely: what
    is not in view was put away, so containers come first then."""
    fids = [fid for fid in beliefs.fixtures if fid not in skip]
    if not fids:
        return []
    labels = [f"a {beliefs.fixture_label(fid)}" for fid in fids]
    plaus = sim.matrix([f"a {thing}"], labels)[0] if thing else [0.0] * len(fids)
    out = []
    hubs: dict[str, int] = {}
    for e in beliefs.entities.values():
        for place in {s.support for s in e.sightings if s.support}:
            hubs[place] = hubs.get(place, 0) + 1
    top = max(hubs.values(), default=0) or 1
    for fid, p in zip(fids, plaus):
        f = beliefs.fixtures[fid]
        container = is_container(sim, beliefs, fid)
        looked = not container and f.last_seen > (last_seen + LOOKED_MARGIN if last_seen is not None else float("-inf"))
        score = float(p) - (LOOKED_AT if looked else 0.0) + (2.0 if fid in scope else 0.0)
        if not container:
            score += HUB * hubs.get(fid, 0) / top
        if g.fixtures and fid in g.fixtures:
            score += 1.0
        if g.rooms and f.room in g.rooms:
            score += 0.5
        if here is not None and f.position:
            score -= 0.02 * math.dist(here[:2], tuple(f.position)[:2])
        out.append(Place(fid, "", "plausible, not searched yet", score))
    return sorted(out, key=lambda p: (-p.score, p.fixture))
