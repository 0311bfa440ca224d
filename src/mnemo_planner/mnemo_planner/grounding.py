"""Grounding a request in what the robot has seen: which labels its words name, which fixtures and
rooms its place words name, and how well each known thing fits the whole description (its label,
every attribute, owner, quoted text, exclusions, place, time and habit).

Words meet labels and values three ways: the same word (plural-insensitive), the same head noun
("long level" ~ "spirit level"), or the embedding model's similarity. No list of object words.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Optional, Sequence

from mnemo_planner.beliefs import Beliefs, Entity
from mnemo_planner.lexicon import lexicon
from mnemo_planner.matching import LabelMatch, Similarity, match_labels
from mnemo_planner.naming import HEAD, known_pairs, lexical, other_things
from mnemo_planner.places import ground_place, kin_fixtures, place_fits
from mnemo_planner.request import RECALL, SEEN, STOPWORDS, WHEN, WHERE, Request, content_words
from mnemo_planner.slips import one_edit
from mnemo_planner.values import slip_of, values_of, word_in_values
from mnemo_planner.wording import norm, respell, run_on
from mnemo_planner.words import singular

NAMED = 0.8  # embedding similarity at which words name a label without sharing a word
PROBABLE = 0.55  # ... at which they name it when it is clearly the nearest of the home's labels
MARGIN = 0.15  # how much nearer than the next label (or than an unrelated word, with one label known)
UNRELATED = 0.4  # similarity of words and a label they do not name, as the embedding model sees it
NEED = 0.25  # similarity at which a thing may answer a need stated in a sentence
DESCRIBES = 0.45  # ... at which words describe some known thing (else they state a need)
ADJACENT = 0.35  # a qualifying word right before the thing's name that none of its attributes bears
COMPATIBLE = 0.7  # ... unless the words together stay this close to the label
SLIP = 0.5  # a word no thing of its kind bears, one slip from a word this one bears
DESCRIBED = 0.55  # similarity at which words describe a known thing as a whole (what it bears and its name)
DESCRIBED_MARGIN = 0.1  # ... where its kind is this much nearer than every other kind
OWNED = 0.05  # a tie-break against a thing that is someone's, when the request names no owner


def named(matches: Sequence[LabelMatch], head: str = "") -> list[LabelMatch]:
    """The labels a phrase names, best first: those close to it, or else the one label clearly nearer
    than every other (a synonym the model places only fairly near, unless the lexicon knows the two as
    other things: ``naming.other_things``). With ``head`` (the phrase's last
    word, its head noun in English), a label named by words that end there wins over one named by a
    qualifier before it ("the gizmo stand": a stand, not a gizmo)."""
    if not matches:
        return []
    strong = [m for m in matches if m.score >= NAMED]
    if strong:
        at_head = [m for m in strong if head and m.span.split()[-1:] == [head]]
        if at_head and strong[0].span.split()[-1:] != [head]:
            strong = at_head
        top = strong[0].score
        return [m for m in strong if m.score >= top - 0.03]
    runner_up = matches[1].score if len(matches) > 1 else UNRELATED
    if matches[0].score >= PROBABLE and matches[0].score - runner_up >= MARGIN and \
            not other_things(matches[0].span, matches[0].label):  # (then only used together)
        return [matches[0]]
    return []


@dataclass
class Grounding:
    """What a request's words name."""

    labels: list[str] = field(default_factory=list)  # object labels the thing may have (best first)
    label_scores: dict[str, float] = field(default_factory=dict)
    span: str = ""  # the words that named the label
    modifiers: list[str] = field(default_factory=list)  # the other content words (attributes, maybe)
    adjacent: list[str] = field(default_factory=list)  # words right before the label's words: they qualify it
    qualifiers: list[str] = field(default_factory=list)  # modifiers inside the naming span, maybe part of a name
    fixtures: list[str] = field(default_factory=list)  # fixture ids the place words name
    kin: list[str] = field(default_factory=list)  # ... and those they may mean (a kind of a named one)
    rooms: list[str] = field(default_factory=list)
    scope: list[str] = field(default_factory=list)  # fixtures of the search scope
    need: str = ""  # when no label is named: the words that describe the thing, or the request stating a need
    situation: bool = False  # ... the whole request, a situation it states (not words that describe a thing)
    thing: str = ""  # ... and the words alone (what search and memory are asked with)
    named: str = ""  # ... and the thing's own name when the request names one the robot has not seen
    reference: Optional[Entity] = None  # "one like the gizmo on the plinth": that gizmo
    stand_in: bool = False  # the things ranked are only the nearest known to words that name none
    place_spent: bool = False  # the places named were searched in vain: the place rules nothing out
    compound: list[str] = field(default_factory=list)  # modifiers that make a known name with the name's head
    place_fit: dict[str, float] = field(default_factory=dict)  # how near the place words come to each fixture


# a clause said to the robot: one that addresses it, or opens with a verb that asks it for something
ADDRESSED = re.compile(r"\byou\b|^\W*(?:bring|get|fetch|grab|hand|pass|give|find|help)\b")


def situation(text: str) -> str:
    """A stated need without the clauses that only ask the robot for something ("the dax wobbles, might
    you locate whichever gadget suits?"): they say nothing of the need and blur it for the embedding
    model. The whole request where no other clause has a content word."""
    clauses = [c.strip() for c in re.split(r"[,.;:!?]+|\bso\b", text.lower()) if c.strip()]
    kept = [c for c in clauses if not ADDRESSED.search(c)]
    return ", ".join(kept) if any(content_words(c) for c in kept) else text


def _describes_nothing(sim: Similarity, beliefs: Beliefs, words: Sequence[str]) -> bool:
    """Whether the words come near nothing the home has ("whatever does the trick"): a need, not a name."""
    labels = beliefs.labels()
    return not words or not labels or float(sim.matrix([" ".join(words)], [f"a {norm(x)}" for x in labels]).max()) < DESCRIBES


def _names_a_thing(sim: Similarity, beliefs: Beliefs, word: str) -> bool:
    """Whether a word names a kind of thing, fixture or room of the home."""
    names = beliefs.labels() + sorted({beliefs.fixture_label(fid) for fid in beliefs.fixtures}) + \
        sorted({f.room.replace("_", " ") for f in beliefs.fixtures.values() if f.room})
    m = match_labels(sim, [word], names)
    return bool(m) and m[0].score >= NAMED


def by_value(sim: Similarity, beliefs: Beliefs, words: Sequence[str], text: str = "") -> list[LabelMatch]:
    """The kind of thing whose instances alone bear a word of the phrase in an attribute (a brand, a
    printed name: "the Zenthra thingummy" of a home where only a gizmo says Zenthra), when no label is
    named. A value that several kinds bear (a colour) tells nothing."""
    bearers: dict[str, set[str]] = {}
    for e in beliefs.entities.values():
        for k, v in e.attributes.items():
            if k != "owner":
                for w in norm(str(v)).split():
                    bearers.setdefault(w, set()).add(e.label)
    # a word of the language before a head noun that names some other thing qualifies that thing (a
    # material said of a thing never seen is no call for the one thing of that material seen so far);
    # a name (a brand: no word of the language, or written with a capital inside the sentence) still
    # names what bears it
    head = words[-1] if words and lexicon().senses(words[-1]) else ""
    # (nor a word that makes one name with a word beside it, a compound the lexicon knows: a kind of its own)
    named_with = {w for pair in known_pairs(words) for w in pair}
    kinds = {next(iter(bearers[singular(w)])) for w in words if len(bearers.get(singular(w), ())) == 1
             and not (head and w != head and not _a_name(w, text)) and w not in named_with}
    return [LabelMatch(kinds.pop(), PROBABLE, "")] if len(kinds) == 1 else []


def _spelled(m: LabelMatch) -> bool:
    """Whether the words that matched a label spell one of its words (not only resemble it)."""
    return bool({singular(w) for w in m.span.split()} & {singular(w) for w in norm(m.label).split()})


def _a_name(word: str, text: str) -> bool:
    """A proper name: no word of the language, or written with a capital inside the sentence."""
    return not lexicon().knows(word) or word in {w.lower() for w in re.findall(r"(?<=[a-z,;] )[A-Z][\w'-]*", text)}


def _bears(sim: Similarity, values: Sequence[str], option: str) -> bool:
    """Whether a thing's attribute values bear every word of an option ("the mauve one")."""
    return all(word_in_values(sim, w, values) for w in norm(option).split())


def _bear_any(sim: Similarity, beliefs: Beliefs, labels: Sequence[str], options: Sequence[str]) -> bool:
    """Whether some known thing of these kinds bears one of the options in its attributes."""
    return any(_bears(sim, values_of(e), o) for e in beliefs.entities.values() if e.label in labels for o in options)


def by_options(sim: Similarity, beliefs: Beliefs, words: Sequence[str], req: Request,
               place: tuple[list[str], list[str]]) -> list[LabelMatch]:
    """"Of the daxes, which stood on the plinth, the mauve one or the teal one?" asked by a name that names
    no label: the question says that things of its kind bear the options; of the kinds whose things bear
    every option, those seen at the place then come first, then the one nearest the words."""
    since, until = req.window if req.window is not None else (float("-inf"), float("inf"))
    fixtures, rooms = place
    borne: dict[str, set[str]] = {}
    there: set[str] = set()
    for e in beliefs.entities.values():
        values = values_of(e)
        mine = {o for o in req.options if _bears(sim, values, o)}
        if mine:
            borne.setdefault(e.label, set()).update(mine)
            if any(s.support in fixtures or (not fixtures and s.room in rooms) for s in e.within(since, until)):
                there.add(e.label)
    kinds = [lab for lab, opts in borne.items() if len(opts) == len(set(req.options))]
    if not kinds or not words:
        return []
    near = sim.matrix([" ".join(words)], [norm(lab) for lab in kinds])[0]
    best = max(zip(kinds, near), key=lambda x: (x[0] in there, float(x[1])))
    return [LabelMatch(best[0], PROBABLE, "")]


def compounded(words: Sequence[str], head: str) -> list[str]:
    """The word right before ``head`` where the two make a name the lexicon knows ("lemon curd"): part of
    the name, not something the thing bears."""
    return [a for a, b in known_pairs(words) if b == head]


def by_description(sim: Similarity, beliefs: Beliefs, words: Sequence[str]) -> list[LabelMatch]:
    """The kind of the known thing whose whole description (what it bears and its name) the words come
    nearest, when they name no label: another name for it, said with what it bears (a "dax leash" for a
    "blick lead" of dax). Only a kind clearly nearer than every other counts; the head word is the span,
    so the words before it still tell its instances apart."""
    ents = list(beliefs.entities.values())
    if words and compounded(words, words[-1]):  # (a name of its own, "cold cream", describes no thing by its parts)
        return []
    if not words or not ents:
        return []
    texts = [" ".join(["a", *values_of(e), norm(e.label)]) for e in ents]
    near = sim.matrix([" ".join(words)], texts)[0]
    best: dict[str, float] = {}
    for e, s in zip(ents, near):
        best[e.label] = max(best.get(e.label, -1.0), float(s))
    ranked = sorted(best.items(), key=lambda kv: -kv[1])
    runner_up = ranked[1][1] if len(ranked) > 1 else UNRELATED
    if ranked[0][1] < DESCRIBED or ranked[0][1] - runner_up < DESCRIBED_MARGIN:
        return []
    return [LabelMatch(ranked[0][0], ranked[0][1], words[-1])]


def by_place(sim: Similarity, beliefs: Beliefs, words: Sequence[str], fixtures: Sequence[str]) -> list[LabelMatch]:
    """"One like the blick on the plinth", by a name that names no label of the home: the kind of the thing
    seen on the plinth that the words come nearest (at least ``NEED``), among the few seen there."""
    there = [e for e in beliefs.entities.values() if e.support in fixtures or any(s.support in fixtures for s in e.sightings)]
    if not words or not there:
        return []
    near = sim.matrix([" ".join(words)], [f"a {norm(e.label)}" for e in there])[0]
    best = max(range(len(there)), key=lambda i: (float(near[i]), there[i].last_seen))
    return [LabelMatch(there[best].label, float(near[best]), "")] if near[best] >= NEED else []


def ground(sim: Similarity, beliefs: Beliefs, req: Request) -> Grounding:
    g = Grounding()
    # slips mended against the names and attribute words known, for every use of the words below
    known = [*beliefs.labels(), *sorted(beliefs.value_words())]
    req = replace(req, words=tuple(respell(list(req.words), known)))
    inner = re.match(r"(.+?)\s+(?:on|in|at|inside|under|by)\s+(?:the|a|an|my|our|your)\s+(.+)$", req.place)
    if req.kind == "with" and not req.companion and inner and \
            not named(match_labels(sim, list(req.words), beliefs.labels())) and \
            named(match_labels(sim, content_words(inner.group(1)), beliefs.labels())):
        # "what was beside the mauve gizmo on the plinth in the den": the thing, then its place
        req = replace(req, words=tuple(content_words(inner.group(1))), place=inner.group(2))
    words = list(req.words)
    labels = beliefs.labels()
    # "what was next to X on Y", "like the X on Y": X may sit in the place slot, unless the words before it
    # name a thing (the place's words must not outbid them: "the dax seat"); never where the question said
    # which words are the thing ("what is in Y besides X")
    if (req.kind == "with" and not req.companion) or req.match:
        alone = match_labels(sim, words, labels, text=req.phrase)
        if not alone or alone[0].score < PROBABLE:
            words += content_words(req.place)
    matches = match_labels(sim, words, labels, text=f"{req.phrase} {req.place}")
    place = ground_place(sim, beliefs, req.place) if req.place else ([], [])
    keep = named(matches, req.words[-1] if req.words else "")
    if req.named and req.intent != "recall" and not req.match and req.kind != "with":
        # the noun phrase after the verb names the thing; the rest of the sentence is the situation
        # ("I want to fix the plinth, I need a gizmo")
        thing = run_on(req.phrase, content_words(req.named), labels)
        keep = named(match_labels(sim, thing, labels, noun_phrase=True), thing[-1] if thing else "")
    if not keep and req.place and (not any(place) or (req.intent == RECALL and req.kind in (WHEN, WHERE, SEEN))):
        # "when did your sensors last land on the mauve gizmo": the place slot holds the thing (of a
        # question about one thing, also where its words could name a place: "set eyes on the den gizmo")
        thing = content_words(req.place)
        keep = named(match_labels(sim, thing, labels), thing[-1] if thing else "")
        if keep:  # ... and its other words describe the thing
            req, place = replace(req, words=tuple(thing), place=""), ([], [])
    if not keep and (req.named or req.intent == "recall"):  # (a need names no thing: "something to ...")
        keep = by_value(sim, beliefs, content_words(req.named) if req.named and req.intent != "recall" else words,
                        req.text)
    if keep and not _spelled(keep[0]):
        # "the Zenthra blick": the kind that alone bears a name said, over a kind the words only resemble
        brand = by_value(sim, beliefs, [w for w in words if _a_name(w, req.text)], req.text)
        keep = brand if brand and brand[0].label not in {m.label for m in keep} else keep
    if req.options and (not keep or not _bear_any(sim, beliefs, [m.label for m in keep], req.options)):
        # (a kind whose things bear none of the options offered is not the one asked about)
        keep = by_options(sim, beliefs, words, req, place) or keep
    if not keep and (req.named or req.intent == RECALL):  # (a need describes no thing: "something to ...")
        keep = by_description(sim, beliefs, content_words(req.named) if req.named and req.intent != RECALL else words)
    if not keep and req.match and place[0]:
        keep = by_place(sim, beliefs, list(req.words), place[0])
    if keep:
        g.labels = [m.label for m in keep]
        g.label_scores = {m.label: m.score for m in keep}
        g.span = keep[0].span
    # the span's words that the label does not spell qualify the thing ("the small cutting board" named by
    # its head): they are attribute words like any other, though none may name an attribute at all
    label_words = {singular(x) for lab in g.labels[:1] for x in norm(lab).split()}
    head_named = bool(g.span) and (singular(g.span.split()[-1]) in label_words or
                                   lexical(g.span.split()[-1], g.labels[0]) >= HEAD - 0.05)  # (or a slip of it)
    # (said inside another name of the thing, a brand or a word things of the home bear qualifies it whatever
    # the name: "the Zenthra widget box", "the mauve widget box" of a gizmo)
    g.qualifiers = [w for w in g.span.split()[:-1] if w not in STOPWORDS and not any(
        singular(w) in x for x in label_words) and (head_named or _a_name(w, req.text) or singular(w) in beliefs.value_words())]
    used = set(g.span.split()) - set(g.qualifiers)
    place_words = set(content_words(req.place)) if g.span and not set(g.span.split()) & set(content_words(req.place)) else set()
    g.modifiers = [w for w in req.words if w not in used and w not in place_words and singular(w) not in label_words]
    # a word that makes one name with the head of the words that named the label ("the mauve dax soup", a
    # kind of soup the lexicon knows) may be part of that name: it tells for the thing that bears it, never
    # against one that does not
    g.compound = compounded(list(req.words), g.span.split()[-1]) if g.span else []
    # a word right before the name qualifies what the name names; where the name is only the label's
    # qualifier ("a mauve gizmo" of a "gizmo crate"), it qualifies the gizmos, not the crate
    heads_alike = bool(g.span) and singular(g.span.split()[-1]) == singular(norm(g.labels[0]).split()[-1])
    if g.span and heads_alike:
        before = req.phrase.split(g.span.split()[0])[0].split() if g.span.split()[0] in req.phrase else []
        for w in reversed(before[-2:]):
            w = w.strip(",.!?'")
            if w in STOPWORDS or not w:
                break
            if w in g.span.split() or _names_a_thing(sim, beliefs, w):
                continue  # (a noun before the name, "the den gizmo", says whose or where)
            if float(sim.matrix([f"{w} {g.span}"], [norm(g.labels[0])])[0, 0]) < COMPATIBLE:
                g.adjacent.append(w)  # far from the label with the name ("a fluted gizmo", "widget gizmo")
    if req.place:
        g.fixtures, g.rooms = place
        g.kin = kin_fixtures(beliefs, g.fixtures, g.rooms)
        g.place_fit = place_fits(sim, beliefs, req.place)
    if not g.fixtures and not g.rooms and req.kind in ("with", "what_at", "count"):
        g.fixtures, g.rooms = ground_place(sim, beliefs, " ".join(w for w in req.words if w not in g.span.split()))
    if req.scope:
        g.scope, scope_rooms = ground_place(sim, beliefs, req.scope)
        if not g.scope and scope_rooms:
            g.scope = [fid for fid, f in beliefs.fixtures.items() if f.room in scope_rooms]
    if not g.labels:
        # a need ("the dax wobbles; fetch whichever suits") is weighed as the sentences that state it put it
        # (the embedding model reads a situation from sentences better than from their content words); words
        # that describe a known thing ("the blick adapter was on the plinth, find it") are that thing
        need = not req.named and req.intent != RECALL and _describes_nothing(sim, beliefs, list(req.words))
        g.need = situation(req.text) if need else " ".join(req.words) or req.phrase
        g.situation = need
        g.thing = " ".join(req.words)
        g.named = " ".join(respell(req.named.split(), known))  # (as the words: what it bears is read from it)
    return g


# -- how well a known thing fits ------------------------------------------------------------------

def said_before_name(req: Request, g: Grounding, word: str) -> bool:
    """Whether the word qualifies the thing's name where an attribute is said: right before it, or inside."""
    return word in g.qualifiers or bool(g.span) and re.search(
        rf"\b{re.escape(word)}\s+{re.escape(g.span.split()[0])}\b", req.phrase) is not None


def describe_fit(sim: Similarity, g: Grounding, req: Request, e: Entity, siblings: Sequence[Entity],
                 vocabulary: frozenset = frozenset()) -> float:
    """How well the entity fits every word and constraint of the request (higher is better; below 0
    means a stated attribute, owner, quoted text or exclusion contradicts it). ``vocabulary``: the words of
    every attribute value seen in the home."""
    score = g.label_scores.get(e.label, 0.0)
    values = values_of(e)
    sibling_values = [values_of(s) for s in siblings if s.key != e.key]
    for w in g.modifiers:
        mine = word_in_values(sim, w, values)
        theirs = any(word_in_values(sim, w, v) for v in sibling_values)
        if mine:
            score += 1.0
        elif w in g.compound:
            continue
        elif theirs:
            score -= 2.0  # the word tells instances apart, and names another one
        elif singular(w) in vocabulary and w not in g.qualifiers:
            score -= 1.0  # a word this home uses for attributes, which this thing does not show
        elif said_before_name(req, g, w) and slip_of(w, values) and not any(slip_of(w, v) for v in sibling_values):
            score += SLIP  # a qualifier one slip from a word only it bears ("the pine gizmo" of the pink one)
    for w in g.adjacent:  # "a fluted gizmo" is not the widget gizmo, whatever else they share
        if w not in g.modifiers or not word_in_values(sim, w, values + [norm(e.attributes.get("owner", ""))]):
            score -= ADJACENT
    for q in req.quoted:  # (the text quoted is most of the words of one value: a "blue" one is no 'blues')
        said = set(norm(q).split())
        have = any(len(said & set(v.split())) >= 0.5 * max(len(said), len(v.split())) for v in values if v)
        score += 2.0 if have else -3.0
    if req.owner:
        # (a name said with a slip is the owner's it is one slip from, where no thing's owner is so spelt)
        owners = [x.attributes.get("owner", "").lower() for x in (e, *siblings)]
        exact = req.owner in owners

        def is_owner(name: str) -> bool:
            return bool(name) and (name == req.owner or (not exact and len(req.owner) >= 3 and one_edit(name, req.owner)))
        owner = owners[0]
        if is_owner(owner):
            score += 2.0
        elif owner or any(is_owner(x) for x in owners[1:]):
            score -= 3.0
    elif e.attributes.get("owner") and any(not s.attributes.get("owner") for s in siblings if s.key != e.key):
        score -= OWNED  # (asked for without an owner, one of its kind that is someone's is less likely meant)
    if req.excluded:
        # "not the mauve dax one" refuses the thing that bears most of the words, not each that bears one
        # of them (a dax one in teal is not refused; a word of filler that no thing bears changes nothing)
        refused = [sum(word_in_values(sim, w, v) for w in req.excluded) for v in [values, *sibling_values]]
        if refused[0] and refused[0] >= max(refused):
            score -= 5.0
    return score
