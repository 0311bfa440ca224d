"""Answers to recall questions, built from structured sightings (never from the question's words):
where and when a thing was last seen (fixture, room, time), what was with it, which of two it was,
how many were seen, what stood at a place. ``answer(...) -> str``.
"""
from __future__ import annotations

from typing import Optional, Sequence

from mnemo_planner import request as rq
from mnemo_planner.beliefs import Beliefs, Entity, Sighting
from mnemo_planner.calendar import Calendar
from mnemo_planner.grounding import UNRELATED, Grounding
from mnemo_planner.hypotheses import nearest_label, need_fit
from mnemo_planner.matching import Similarity
from mnemo_planner.places import nearest
from mnemo_planner.values import word_in_values
from mnemo_planner.wording import norm, respell


def _a(label: str) -> str:
    return ("an " if label[:1] in "aeiou" else "a ") + label


def _listing(labels: Sequence[str]) -> str:
    items = [_a(x) for x in dict.fromkeys(labels)]
    if len(items) <= 1:
        return items[0] if items else "nothing"
    return ", ".join(items[:-1]) + " and " + items[-1]


def _stand_in_note(words: str, label: str) -> str:
    """What an answer about the nearest known kind opens with, when the words named no kind seen."""
    return f"Nothing I saw went by the name {words}; the nearest is the {label}. "


def _placed(e: Entity, since: float, until: float) -> list[Sighting]:
    """The thing's sightings at a fixture that overlap [since, until]."""
    return [s for s in e.sightings if s.support and s.since <= until and s.until >= since]


class Answerer:
    def __init__(self, beliefs: Beliefs, sim: Similarity, calendar: Calendar, now: float) -> None:
        self.b, self.sim, self.cal, self.now = beliefs, sim, calendar, now

    def where(self, s: Sighting) -> str:
        f = self.b.fixtures.get(s.support)
        room = (f.room if f is not None else "") or s.room
        relation = "in" if f is not None and f.container else "on"
        return f"{relation} the {self.b.fixture_label(s.support)}" + (f" in the {room.replace('_', ' ')}" if room else "")

    def _window(self, req: rq.Request) -> tuple[float, float]:
        return req.window if req.window is not None else (float("-inf"), self.now)

    def _at_place(self, e: Entity, g: Grounding, since: float, until: float) -> list[Sighting]:
        out = []
        for s in e.within(since, until):
            if not s.support:
                continue
            if g.fixtures and s.support not in g.fixtures:
                continue
            if g.rooms and not g.fixtures:
                room = (self.b.fixtures[s.support].room if s.support in self.b.fixtures else "") or s.room
                if room not in g.rooms:
                    continue
            out.append(s)
        return out

    def answer(self, req: rq.Request, g: Grounding, ranked: list[Entity]) -> str:
        since, until = self._window(req)
        kind = req.kind
        if kind == rq.COUNT:
            return self.count(g, since, until)
        if kind == rq.ATTRIBUTE and ranked:
            return self.attribute(req, ranked[0])
        if kind == rq.WHAT_AT or (not ranked and (g.fixtures or g.rooms) and kind != rq.WHICH):
            return self.what_at(g, since, until)
        if kind == rq.WHICH:
            return self.which(req, g, ranked, since, until)
        if not ranked:
            return "I have not seen it" + (f" {req.time_words}" if req.time_words else "") + "."
        e = ranked[0]
        if g.stand_in:  # (hypotheses._stand_ins)
            return _stand_in_note(g.named or g.thing, e.label) + self._about(req, g, e, kind, since, until)
        return self._about(req, g, e, kind, since, until)

    def _about(self, req: rq.Request, g: Grounding, e: Entity, kind: str, since: float, until: float) -> str:
        seen = self._at_place(e, g, since, until) if (g.fixtures or g.rooms) and kind == rq.WITH else \
            _placed(e, since, until)
        if kind == rq.WITH and req.place and not (seen and (g.fixtures or g.rooms)):
            seen = self._at_place_named(e, req.place, since, until) or seen
        last: Optional[Sighting] = max(seen, key=lambda s: min(s.until, until)) if seen else e.last_place(self.now)
        if last is None:
            return f"I have not seen the {e.label}."
        t = min(last.until, until, self.now)
        if kind == rq.WITH:
            mates = [o.label for o in self.b.together(e, last) if o.label != e.label] or \
                [o.label for o in self.b.together(e, last)]
            return f"With the {e.label} {self.where(last)} there was {_listing(mates)} ({self.cal.describe(t, self.now)})."
        if kind == rq.WHEN:
            return f"I last saw the {e.label} {self.cal.describe(t, self.now)}, {self.where(last)}."
        if kind == rq.SEEN:
            if seen:
                return f"Yes: I saw the {e.label} {self.where(last)} {self.cal.describe(t, self.now)}."
            return f"No, not {req.time_words or 'then'}; I last saw the {e.label} {self.where(last)} " \
                   f"{self.cal.describe(t, self.now)}."
        return f"I last saw the {e.label} {self.where(last)}, {self.cal.describe(t, self.now)}."

    def _at_place_named(self, e: Entity, words: str, since: float, until: float) -> list[Sighting]:
        """Where the thing was never seen at the place the words were taken to name (or at none): its
        sightings at the fixture whose name the words come nearest, if related at all (they named that
        one by another name)."""
        options = _placed(e, since, until)
        if not options:
            return []
        names = [norm(self.b.fixture_label(s.support)) for s in options]
        near = self.sim.matrix([norm(words)], names)[0]
        if float(near.max()) < UNRELATED:
            return []  # (no name of its places is related to the words)
        best = names[int(near.argmax())]
        return [s for s, name in zip(options, names) if name == best]

    def attribute(self, req: rq.Request, e: Entity) -> str:
        """"What colour is the umbrella": the value of the attribute whose name is nearest the word asked."""
        keys = [k for k in e.attributes if k != "owner"]
        if not keys:
            return f"I do not know the {req.asks} of the {e.label}."
        sims = self.sim.matrix([req.asks], keys)[0]
        key = keys[int(sims.argmax())]
        return f"The {e.label}'s {key} is {e.attributes[key]}."

    def which(self, req: rq.Request, g: Grounding, ranked: list[Entity], since: float, until: float) -> str:
        """Of the options ("the red one or the blue one"), the one seen at the place in the window: the
        option the thing seen there bears, or else the only option no other thing of its kind bears (an
        option may name what the thing lacks: "the plain one")."""
        def bears(option: str, e: Entity) -> bool:
            words = [w for w in norm(option).split() if w]
            values = [norm(str(v)) for v in e.attributes.values()]
            return bool(words) and all(word_in_values(self.sim, w, values) for w in words)

        # the options' slips mended against the values the things bear ("the mauvve one" of a "mauve" one)
        vocab = [str(v) for e in ranked for v in e.attributes.values()]
        options = [" ".join(respell(o.lower().split(), vocab)) for o in req.options]
        there = self._there(g, ranked, since, until)
        if not there:
            if any(bears(o, e) for o in options for e in ranked):
                return "I did not see either of them there then."
            return "I cannot tell which one."
        seen = there[0]
        mine = [o for o in options if bears(o, seen)]
        others = [e for e in ranked if e.key != seen.key]
        if len(mine) > 1:  # (it bears both: the option no other one bears tells it apart)
            mine = [o for o in mine if not any(bears(o, e) for e in others)] or mine
        if len(mine) == 1:
            return f"The {mine[0]} one ({seen.label})."
        free = [o for o in options if not any(bears(o, e) for e in others)]
        if not mine and len(free) == 1:
            return f"The {free[0]} one ({seen.label})."
        return "I cannot tell which one."

    def _there(self, g: Grounding, ents: list[Entity], since: float, until: float) -> list[Entity]:
        """The things seen at the place asked about in the window, likeliest first: the one seen at the
        place whose name and room the place words come nearest (where they named several places, or none
        the home has by that name: then every place the things were seen at is weighed so), then the one
        seen there more often, then more lately."""
        seen = {e.key: self._at_place(e, g, since, until) for e in ents}
        near = nearest(g.place_fit, {s.support for h in seen.values() for s in h})
        scored = [(bool({s.support for s in h} & near), len(h), max(s.until for s in h), e)
                  for e in ents for h in [seen[e.key]] if h]
        return [x[-1] for x in sorted(scored, key=lambda x: (-x[0], -x[1], -x[2]))]

    def count(self, g: Grounding, since: float, until: float) -> str:
        labels = set(g.labels[:1]) | {lab for lab, sc in g.label_scores.items() if sc >= 0.99}
        hedge = ""
        if not labels:  # words that name no kind seen: the kind seen there that they come nearest
            kind = self._nearest_there(g, since, until)
            if kind:
                labels, hedge = {kind}, _stand_in_note(g.named or g.need or g.thing, kind)
        found = [e for e in self.b.entities.values() if e.label in labels and self._at_place(e, g, since, until)]
        where = f" in the {g.rooms[0].replace('_', ' ')}" if g.rooms else \
            (f" on the {self.b.fixture_label(g.fixtures[0])}" if g.fixtures else "")
        label = next(iter(labels), "of them")
        plural = label if len(found) == 1 or label.endswith("s") or not labels else label + "s"
        return f"{hedge}I saw {len(found)} {plural}{where}."

    def _nearest_there(self, g: Grounding, since: float, until: float) -> str:
        """The label of the things seen at the place asked about (anywhere, when none is) that the
        request's words come nearest, at least ``NEED`` near; "" when none does."""
        words = g.named or g.need or g.thing
        ents = [e for e in self.b.entities.values() if not (g.fixtures or g.rooms) or self._at_place(e, g, since, until)]
        if not words.strip() or not ents:
            return ""
        return nearest_label(need_fit(self.sim, words, ents), ents)

    def what_at(self, g: Grounding, since: float, until: float) -> str:
        found = [e for e in self.b.entities.values() if self._at_place(e, g, since, until)]
        place = f"the {self.b.fixture_label(g.fixtures[0])}" if g.fixtures else \
            (f"the {g.rooms[0].replace('_', ' ')}" if g.rooms else "there")
        if not found:
            return f"I did not see anything at {place} then."
        return f"At {place} I saw {_listing([e.label for e in found])}."
