"""Which fixtures and rooms of the home a place phrase names ("the desk in the office", "the kitchen")."""
from __future__ import annotations

import re
from typing import Iterable

import numpy as np

from mnemo_planner.beliefs import Beliefs
from mnemo_planner.lexicon import lexicon
from mnemo_planner.matching import LabelMatch, Similarity, match_labels
from mnemo_planner.naming import HEAD, known_pairs, related
from mnemo_planner.request import content_words
from mnemo_planner.wording import norm, respell

PLACE = 0.6  # similarity at which words name a fixture or room of the home: a place phrase names one of few
PLACE_TIE = 0.03  # known places, so the best fit wins from a lower similarity, every place as good within this
ROOM_CLEAR = 0.5  # where words name no fixture and no room: the room they come this near, if clearly nearest
ROOM_MARGIN = 0.1  # ... by this much over every other room


def _whole_names_first(matches: list[LabelMatch]) -> list[LabelMatch]:
    """Of the labels that tie for the best, drop those named by a part of the words that named another
    ("the dax drawer" names a dax drawer, not the dax it is part of, where the home has both)."""
    if not matches:
        return matches
    tied = [m for m in matches if m.score >= matches[0].score - PLACE_TIE]
    inside = {m.label for m in tied if any(set(m.span.split()) < set(o.span.split()) for o in tied)}
    return [m for m in matches if m.label not in inside]


def ground_place(sim: Similarity, beliefs: Beliefs, phrase: str) -> tuple[list[str], list[str]]:
    """Fixture ids and rooms a place phrase names ("the desk in the office", "the kitchen")."""
    words = content_words(phrase)
    if not words:
        return [], []
    rooms = sorted({f.room for f in beliefs.fixtures.values() if f.room} | {e.room for e in beliefs.entities.values() if e.room})
    room_names = {r.replace("_", " "): r for r in rooms}
    labels = sorted({beliefs.fixture_label(fid) for fid in beliefs.fixtures})
    mended = respell(words, [*room_names, *labels])  # ("the wrok bench": slips against the places' names)
    for w, m in zip(words, mended):
        phrase = re.sub(rf"\b{re.escape(w)}\b", m, phrase) if m != w else phrase
    words = mended
    rm = [m for m in match_labels(sim, words, list(room_names), text=phrase) if m.score >= PLACE]
    outright = [m for m in rm if not _compound_with_next(words, m.span)]
    if outright and len(outright) < len(rm):
        # "the dax table in the den": a room word that makes one name the lexicon knows with the word after it
        # names a kind of fixture; the room named outright is the room
        rm = outright
    room_words = set(rm[0].span.split()) if rm else set()
    tied = [m for m in rm if m.score >= rm[0].score - PLACE_TIE]
    if len(tied) > 1 and norm(rm[0].span) != norm(rm[0].label):
        # rooms named alike by a head most of them share ("the gizmo room"): the head and the word before
        # it decide, judged as a whole (the span that tied may run on into the fixture's words)
        head = rm[0].span.split()[-1]
        i = words.index(head) if head in words else 0
        room_words = set(words[max(i - 1, 0):i + 1])
        said = " ".join(words[max(i - 1, 0):i + 1])  # (or the lexicon's name for it: a synonym wins the tie)
        near = np.maximum(sim.matrix([said], [m.label for m in tied])[0], [related(said, m.label) for m in tied])
        rm = [m for m, v in sorted(zip(tied, near), key=lambda x: -x[1]) if v >= near.max() - PLACE_TIE]
    fm_all = _whole_names_first(match_labels(sim, words, labels, text=phrase))
    shared = set(fm_all[0].span.split()) & room_words if rm and fm_all else set()
    by_head = bool(shared) and fm_all[0].score == HEAD and not shared <= set(norm(fm_all[0].label).split())
    if shared and not by_head and (
            fm_all[0].score > rm[0].score or (fm_all[0].score >= rm[0].score and
                                              len(fm_all[0].span.split()) > len(rm[0].span.split()))):
        # the words name a fixture better than a room, or as well and with more of them ("the den stand"
        # where the home has one so called); a fixture they name by its head alone leaves the room word
        # to the room ("the den table": a table in the den)
        rm, room_words = [], set()
    chosen_rooms = [room_names[m.label] for m in rm if m.score >= rm[0].score - PLACE_TIE] if rm else []
    rest = [w for w in words if w not in room_words]
    fixtures: list[str] = []
    if rest:
        fm = fm_all if rest == words else _whole_names_first(match_labels(sim, rest, labels, text=phrase))
        if fm and fm[0].score >= PLACE:
            top = [m.label for m in fm if m.score >= fm[0].score - PLACE_TIE]
            fixtures = [fid for fid in beliefs.fixtures if beliefs.fixture_label(fid) in top
                        and (not chosen_rooms or beliefs.fixtures[fid].room in chosen_rooms or not beliefs.fixtures[fid].room)]
            head = fm[0].span.split()[-1]
            before = [i for i, w in enumerate(words) if w in room_words and head in words and i < words.index(head)]
            if not fixtures and chosen_rooms and before:
                # no such fixture in that room: the room's name qualifies the fixture ("the den table" may
                # stand in another room), so every fixture so named, nearest whole name first
                fixtures = [fid for fid in beliefs.fixtures if beliefs.fixture_label(fid) in top]
                rest, chosen_rooms = words, []
            color = [w for w in rest if w not in {x for lab in top for x in norm(lab).split()}]
            if len(fixtures) > 1 and color:  # "the mauve crate": a fixture's own attribute words
                def own(fid: str) -> str:
                    f = beliefs.fixtures[fid]
                    return norm(" ".join([f.label, *f.attributes.values()]))
                by_attr = [fid for fid in fixtures if any(w in own(fid).split() for w in color)]
                fixtures = by_attr or fixtures
            if len(fixtures) > 1 and color and not rm:
                # the other words may name a room by another name (one of several crates, said with a
                # word for its room that names no room of the home outright): the fixtures' room they
                # come clearly nearest, as for a room named alone
                fixtures = _in_room_named(sim, beliefs, color, fixtures)
            if len({beliefs.fixture_label(fid) for fid in fixtures}) > 1:
                # labels alike by their head ("the gizmo table" of several tables): nearest whole name first
                near = sim.matrix([" ".join(rest)], [norm(beliefs.fixture_label(fid)) for fid in fixtures])[0]
                fixtures = [fid for _, fid in sorted(zip(-near, fixtures), key=lambda x: x[0])]
    if not fixtures and not chosen_rooms and len(room_names) > 1:
        # another name of a room (a home has a handful, each named by its kind): the one clearly nearest
        room = _clearly_nearest_room(sim, words, list(room_names.values()))
        chosen_rooms = [room] if room else []
    return fixtures, chosen_rooms


def spoken(beliefs: Beliefs, fid: str) -> str:
    """A fixture as a person names it, with its room ("the dax shelf in the den")."""
    room = beliefs.room_label(fid).strip()
    return norm(beliefs.fixture_label(fid)) + (f" in the {room}" if room else "")


def place_fits(sim: Similarity, beliefs: Beliefs, phrase: str) -> dict[str, float]:
    """How near a place phrase comes to each fixture of the home, named with its room, as a whole: the
    evidence that ranks places where the phrase named several, or none by a name the home has (rounded,
    so that alike names tie)."""
    fids = sorted(beliefs.fixtures)
    if not phrase.strip() or not fids:
        return {}
    near = sim.matrix([norm(phrase)], [spoken(beliefs, fid) for fid in fids])[0]
    return {fid: round(float(v), 3) for fid, v in zip(fids, near)}


def nearest(fits: dict[str, float], among: Iterable[str], floor: float = 0.0) -> set[str]:
    """Of the places ``among``, those the words come nearest (within ``PLACE_TIE`` of the best, which must
    reach ``floor``): a nearer one by less than that is no evidence."""
    scores = {fid: fits[fid] for fid in among if fid in fits}
    best = max(scores.values(), default=float("-inf"))
    return {fid for fid, v in scores.items() if v >= best - PLACE_TIE} if best >= floor else set()


def _compound_with_next(words: list[str], span: str) -> bool:
    """Whether the span's last word and the word after it make a name the lexicon knows."""
    last = span.split()[-1] if span else ""
    return any(a == last for a, _ in known_pairs(words))


def _clearly_nearest_room(sim: Similarity, words: list[str], rooms: list[str]) -> str:
    """Of two or more rooms, the one the words come at least ``ROOM_CLEAR`` near and ``ROOM_MARGIN``
    nearer than every other; "" when none does."""
    near = sim.matrix([" ".join(words)], [r.replace("_", " ") for r in rooms])[0]
    order = np.argsort(-near)
    if near[order[0]] < ROOM_CLEAR or near[order[0]] - near[order[1]] < ROOM_MARGIN:
        return ""
    return rooms[order[0]]


def _in_room_named(sim: Similarity, beliefs: Beliefs, words: list[str], fixtures: list[str]) -> list[str]:
    """Of fixtures in several rooms, those in the room the words come clearly nearest (at least
    ``ROOM_CLEAR``, ``ROOM_MARGIN`` nearer than each other room of theirs); all of them otherwise."""
    rooms = sorted({beliefs.fixtures[fid].room for fid in fixtures if beliefs.fixtures[fid].room})
    room = _clearly_nearest_room(sim, words, rooms) if len(rooms) > 1 else ""
    return [fid for fid in fixtures if beliefs.fixtures[fid].room == room] if room else fixtures


def kin_fixtures(beliefs: Beliefs, fixtures: list[str], rooms: list[str]) -> list[str]:
    """Fixtures the place words may mean beside those they named: of a kind of a named fixture, as the
    lexicon knows kinds (a "plinth" said may be a dax plinth), in the rooms named (anywhere when none is).
    They come after the named ones. A fixture of a more general kind is not one of them: the words named
    something more particular (a plinth need not be the dax plinth said)."""
    labels = {beliefs.fixture_label(fid) for fid in fixtures}
    return [fid for fid, f in beliefs.fixtures.items() if fid not in fixtures and (not rooms or f.room in rooms)
            and beliefs.fixture_label(fid) not in labels
            and any(lexicon().kind_of(beliefs.fixture_label(fid), lab) for lab in labels)]
