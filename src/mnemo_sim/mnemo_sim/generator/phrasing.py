"""Words for generated tasks: how people name an object, a place, a room and a moment, and how an
instruction is dressed (templates, politeness, fillers, misspellings).

Names come from the catalogue's synonyms and attributes; a name is only used when it picks out what
it should in this home (a synonym another class present also answers to is not used; a fixture is
qualified by its room or colour when its class occurs twice). Day 0 of a scenario is a Monday.
"""
from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import Optional

from ..scenario import DAY, Scenario
from .catalogue import Catalogue

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
ADJECTIVE_KEYS = ("color", "material", "pattern", "size", "flavor", "scent")
DISTINGUISHING_KEYS = ADJECTIVE_KEYS + ("brand", "text", "title", "owner")
# Verbs an instruction may start with, so that a polite prefix ("could you ...") reads well before it.
_BASE_VERBS = {"bring", "fetch", "get", "grab", "find", "hand", "pass", "take", "look", "check", "go", "show",
               "pick", "search", "tell", "locate", "give", "carry", "retrieve", "track", "dig", "hunt", "open"}
# Parts of a day, in hours: the windows time words stand for.
PARTS = {"morning": (5, 12), "afternoon": (12, 17), "evening": (17, 24)}


@dataclass(frozen=True)
class Window:
    key: str  # a time_words entry
    since: float
    until: float
    fill: dict  # values for the phrase's own slots ({n}, {weekday})


def plural(noun: str) -> str:
    if " of " in noun:  # "bottle of shampoo" -> "bottles of shampoo"
        first, _, rest = noun.partition(" of ")
        return f"{plural(first)} of {rest}"
    head, _, last = noun.rpartition(" ")
    if last.endswith(("s", "x", "ch", "sh")) and not last.endswith("ss"):
        word = last if last.endswith("s") else last + "es"
    elif last.endswith("ss"):
        word = last + "es"
    elif last.endswith("y") and last[-2:-1] not in "aeiou":
        word = last[:-1] + "ies"
    else:
        word = last + "s"
    return f"{head} {word}" if head else word


def article(phrase: str) -> str:
    return ("an " if phrase[:1] in "aeiou" else "a ") + phrase


class Namer:
    """Names for the things of one home that pick out what they should."""

    def __init__(self, cat: Catalogue, scenario: Scenario, rng: random.Random):
        self.cat, self.sc, self.rng = cat, scenario, rng
        labels = {o.label for o in scenario.objects}
        self._object_names: dict[str, list[str]] = {}
        for label in labels:
            mine = self.cat.objects[label].names if label in cat.objects else (label,)
            clash = {n for other in labels - {label}
                     for n in (cat.objects[other].names if other in cat.objects else (other,))}
            self._object_names[label] = [label] + [n for n in mine if n != label and n not in clash
                                                  and not any(n in c.split() or c.endswith(" " + n) for c in clash)]
        flabels = {f.label for f in scenario.fixtures}
        self._fixture_names: dict[str, list[str]] = {}
        for label in flabels:
            mine = cat.fixtures[label].names if label in cat.fixtures else (label,)
            clash = {n for other in flabels - {label} for n in (cat.fixtures[other].names if other in cat.fixtures else (other,))}
            self._fixture_names[label] = [label] + [n for n in mine if n != label and n not in clash]
        self._room_kind = {}
        for r in scenario.rooms:
            self._room_kind[r.id] = r.id.rsplit("_", 1)[0] if r.id[-1].isdigit() else r.id

    # ---------------------------------------------------------------- objects
    def noun(self, label: str) -> str:
        names = self._object_names.get(label, [label])
        return names[0] if len(names) == 1 or self.rng.random() < 0.5 else self.rng.choice(names[1:])

    def distinguishing(self, oid: str, among: list[str]) -> list[str]:
        """Attribute keys whose value tells ``oid`` apart from every object in ``among``."""
        attrs = self.sc.object_by_id[oid].attributes
        keys = []
        for k in DISTINGUISHING_KEYS:
            if k in attrs and all(self.sc.object_by_id[o].attributes.get(k) != attrs[k] for o in among if o != oid):
                keys.append(k)
        return keys

    def with_attribute(self, oid: str, key: str, noun: Optional[str] = None) -> str:
        """``the red mug``, ``Maya's mug``, ``the mug that says 'hello'`` (determiner included)."""
        value = self.sc.object_by_id[oid].attributes[key]
        noun = noun or self.noun(self.sc.object_by_id[oid].label)
        if key == "owner":
            return f"{value}'s {noun}"
        if key in ADJECTIVE_KEYS or key == "brand":
            return f"the {value} {noun}"
        if key == "text":
            return self.rng.choice((f"the {noun} with '{value}' on it", f"the {noun} that says '{value}'",
                                    f"the {noun} with '{value}' printed on it"))
        if key == "title":
            return self.rng.choice((f"the {noun} called '{value}'", f"the '{value}' {noun}"))
        return f"the {noun} ({key} {value})"

    def negated(self, oid: str, other: str) -> Optional[str]:
        """``the mug, not the plastic one``: the target by what the other instance is not."""
        a, b = self.sc.object_by_id[oid].attributes, self.sc.object_by_id[other].attributes
        keys = [k for k in ADJECTIVE_KEYS + ("brand",) if k in b and a.get(k) != b[k]]
        if not keys:
            return None
        template = self.rng.choice(self.cat.phrasing.negation)
        noun = self.noun(self.sc.object_by_id[oid].label)
        return template.replace("{obj}", f"the {noun}").replace("{other}", b[self.rng.choice(keys)])

    def unique(self, oid: str, among: list[str]) -> Optional[str]:
        """The object by its class alone when no other of ``among`` shares it, else by an attribute."""
        label = self.sc.object_by_id[oid].label
        rivals = [o for o in among if o != oid and self.sc.object_by_id[o].label == label]
        if not rivals:
            return "the " + self.noun(label)
        keys = self.distinguishing(oid, rivals)
        return self.with_attribute(oid, self.rng.choice(keys)) if keys else None

    # ---------------------------------------------------------------- places and rooms
    def room(self, rid: str) -> Optional[str]:
        kind = self._room_kind[rid]
        if sum(1 for r in self._room_kind.values() if r == kind) > 1 or kind not in self.cat.rooms:
            return None
        return "the " + self.rng.choice(self.cat.rooms[kind].names)

    def place(self, fid: str) -> Optional[str]:
        f = self.sc.fixture_by_id[fid]
        same = [g for g in self.sc.fixtures if g.label == f.label and g.id != fid]
        name = self.rng.choice(self._fixture_names.get(f.label, [f.label]))
        if not same:
            return "the " + name
        if not any(g.room == f.room for g in same):
            room = self.room(f.room)
            if room:
                return f"the {name} in {room}"
        color = f.attributes.get("color")
        if color and not any(g.attributes.get("color") == color for g in same):
            return f"the {color} {name}"
        return None

    def fixture_plural(self, fids: list[str]) -> Optional[str]:
        f = self.sc.fixture_by_id[fids[0]]
        room = self.room(f.room)
        name = plural(self._fixture_names.get(f.label, [f.label])[0])
        return f"the {name} in {room}" if room else None


# -------------------------------------------------------------------------------------------- time words

def windows(task_t: float) -> list[Window]:
    """Every time phrase that can be said at ``task_t``, with the window it means."""
    day = int(task_t // DAY)
    out = [Window("earlier_today", day * DAY, task_t, {})]
    for part, (h0, h1) in PARTS.items():
        if (day * DAY + h1 * 3600) <= task_t:
            out.append(Window(f"this_{part}", day * DAY + h0 * 3600, day * DAY + h1 * 3600, {}))
    if day >= 1:
        y = (day - 1) * DAY
        out.append(Window("yesterday", y, y + DAY, {}))
        for part, (h0, h1) in PARTS.items():
            out.append(Window(f"yesterday_{part}", y + h0 * 3600, y + h1 * 3600, {}))
    for back in range(2, min(day, 6) + 1):
        d = (day - back) * DAY
        out.append(Window("days_ago", d, d + DAY, {"n": NUMBER_WORDS[back]}))
        out.append(Window("weekday", d, d + DAY, {"weekday": WEEKDAYS[(day - back) % 7]}))
    if day >= 1:
        out.append(Window("the_other_day", 0.0, day * DAY, {}))
    return out


def time_phrase(cat: Catalogue, window: Window, rng: random.Random) -> Optional[str]:
    options = cat.phrasing.time_words.get(window.key)
    if not options:
        return None
    text = rng.choice(options)
    for k, v in window.fill.items():
        text = text.replace("{" + k + "}", v)
    return text


# -------------------------------------------------------------------------------------------- instructions

def _typo(text: str, cat: Catalogue, rng: random.Random) -> str:
    """One slip of the keyboard in a word outside quotes."""
    parts = re.split(r"('[^']*')", text)
    spans = [(i, m) for i, part in enumerate(parts) if not part.startswith("'")
             for m in re.finditer(r"[a-z]{4,}", part)]
    if not spans:
        return text
    i, m = rng.choice(spans)
    word = m.group(0)
    if word in cat.phrasing.misspellings and rng.random() < 0.6:
        new = cat.phrasing.misspellings[word]
    else:
        k = rng.randint(1, len(word) - 2)
        kind = rng.randrange(3)
        new = (word[:k] + word[k + 1] + word[k] + word[k + 2:] if kind == 0 else
               word[:k] + word[k + 1:] if kind == 1 else word[:k] + word[k] + word[k:])
    parts[i] = parts[i][:m.start()] + new + parts[i][m.end():]
    return "".join(parts)


def render(cat: Catalogue, family: str, slots: dict[str, str], rng: random.Random, typo_rate: float = 0.12) -> str:
    """An instruction of a family: a template with its slots filled, sometimes polite, chatty or mistyped."""
    templates = [t for t in cat.phrasing.families[family] if all("{" + k + "}" in t for k in slots)]
    text = rng.choice(templates or list(cat.phrasing.families[family]))
    for k, v in slots.items():
        text = text.replace("{" + k + "}", v)
    question = text.rstrip().endswith("?")
    text = text.rstrip(" ?.!")
    first = text.split(" ", 1)[0]
    if not question and first in _BASE_VERBS and cat.phrasing.prefixes and rng.random() < 0.3:
        prefix = rng.choice(cat.phrasing.prefixes)
        text = prefix + text
        question = question or prefix.strip().endswith("you") or prefix.startswith(("could", "can", "would", "will"))
    if cat.phrasing.suffixes and rng.random() < 0.25:
        text += rng.choice(cat.phrasing.suffixes)
    if rng.random() < typo_rate:
        text = _typo(text, cat, rng)
    text = text[:1].upper() + text[1:]
    return text + ("?" if question else rng.choice((".", ".", ".", "!")))
