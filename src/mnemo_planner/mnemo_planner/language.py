"""Reading an instruction: what is wanted, where, when, and how habitual.

Parsing is by function words only (verbs of fetching, prepositions, time and habit words), so
the object, attribute and place words stay open vocabulary. Grounding those words to what the
robot has seen (labels, attribute values, fixture classes, rooms) goes through the embedding
model (`match_phrase`), so paraphrases reach the same things ("the couch" -> sofa).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Optional, Sequence

import numpy as np

from mnemo_planner.words import singular

DAY = 86400.0
HOUR = 3600.0
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
DAY0_WEEKDAY = 0  # the simulator's day 0 is taken to be a Monday
NUMBERS = {"one": 1, "a": 1, "an": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7}
PARTS_OF_DAY = {"morning": (5.0, 12.0), "afternoon": (12.0, 18.0), "evening": (18.0, 24.0), "night": (18.0, 24.0)}
HABIT_WORDS = r"usually|normally|typically|generally|always|often|mostly|most of the time|tends? to be|regularly"
DETERMINERS = {"the", "a", "an", "my", "our", "your", "some", "any", "this", "that", "these", "those", "his", "her",
               "their", "one", "ones"}
FILLER = {"please", "now", "then", "also", "again", "just", "quickly", "for", "me", "us", "to", "and"}

INTENT_FETCH = "fetch"  # retrieve (pick) the object
INTENT_LOCATE = "locate"  # go to where it is and stop there
INTENT_RECALL = "recall"  # answer from memory


@dataclass
class ParsedInstruction:
    text: str
    intent: str
    target: str = ""  # object noun phrase, determiners removed ("green folder"); "" when only a need is given
    relation: str = ""  # on | in | by | near | under | at
    anchor: str = ""  # the place phrase ("coffee table", "kitchen")
    scope: str = ""  # where to search, for "look in the kitchen cabinets and ..."
    window: Optional[tuple[float, float]] = None  # robot-clock time range the instruction refers to
    time_phrase: str = ""
    habit: bool = False
    need: str = ""  # a commonsense need when no object is named ("i'm thirsty")
    possessor: str = ""  # "john's mug" -> john
    asks: str = ""  # attribute a recall question asks for ("what colour is ..." -> color)
    context: str = ""  # the other sentences of the instruction ("I want to bake a cake.")
    description: str = ""  # a relative clause that describes without placing ("that is easiest to grab")
    followup: bool = False  # "Now ...", "Next, ...", "And the jam too": continues the previous request
    match_of: Optional["ParsedInstruction"] = None  # "the matching sock": the object it must match

    @property
    def object_phrase(self) -> str:
        return self.target or self.need


# -- time -------------------------------------------------------------------------------
_NUM = r"(\d+|one|two|three|four|five|six|seven|a|an)"
_TIME_PATTERNS = [
    (rf"\b(?:the\s+)?day before yesterday\b", "days_ago_2"),
    (rf"\byesterday(?:\s+(morning|afternoon|evening|night))?\b", "yesterday"),
    (rf"\b(?:this|earlier this)\s+(morning|afternoon|evening)\b", "this_part"),
    (r"\btonight\b", "tonight"),
    (r"\blast night\b", "last_night"),
    (rf"\b{_NUM}\s+days?\s+ago\b", "days_ago"),
    (rf"\b{_NUM}\s+hours?\s+ago\b", "hours_ago"),
    (r"\b(?:earlier\s+)?today\b", "today"),
    (r"\blast week\b", "last_week"),
    (rf"\b(?:on|last)\s+({'|'.join(WEEKDAYS)})\b", "weekday"),
]


def _num(word: str) -> int:
    return int(word) if word.isdigit() else NUMBERS.get(word, 1)


def parse_time(text: str, now: float) -> tuple[Optional[tuple[float, float]], str, str]:
    """(window, matched phrase, text without it) for the first time reference in text."""
    day = int(now // DAY)
    start = day * DAY
    for pattern, kind in _TIME_PATTERNS:
        m = re.search(pattern, text)
        if not m:
            continue
        if kind == "yesterday":
            base = start - DAY
            part = m.group(1)
            window = (base + PARTS_OF_DAY[part][0] * HOUR, base + PARTS_OF_DAY[part][1] * HOUR) if part else (base, start)
        elif kind == "this_part":
            lo, hi = PARTS_OF_DAY[m.group(1)]
            window = (start + lo * HOUR, min(now, start + hi * HOUR))
        elif kind == "tonight":
            window = (start + 18 * HOUR, now)
        elif kind == "last_night":
            window = (start - 6 * HOUR, start + 6 * HOUR)
        elif kind in ("days_ago", "days_ago_2"):
            n = 2 if kind == "days_ago_2" else _num(m.group(1))
            window = (start - n * DAY, start - (n - 1) * DAY)
        elif kind == "hours_ago":
            n = _num(m.group(1))
            window = (now - (n + 0.5) * HOUR, now - max(0.0, n - 0.5) * HOUR)
        elif kind == "today":
            window = (start, now)
        elif kind == "last_week":
            window = (start - 7 * DAY, start)
        else:  # weekday: the most recent such day up to today
            wanted = WEEKDAYS.index(m.group(1))
            back = (((day + DAY0_WEEKDAY) % 7) - wanted) % 7
            window = (start - back * DAY, start - back * DAY + DAY)
        return window, m.group(0), (text[:m.start()] + " " + text[m.end():])
    return None, "", text


def _clock_hour(text: str) -> float:
    if text in ("noon", "midday"):
        return 12.0
    if text == "midnight":
        return 0.0
    m = re.match(r"(\d{1,2})(?::(\d{2}))?\s*(am|pm)?", text)
    hour = int(m.group(1)) % 24 + int(m.group(2) or 0) / 60.0
    if m.group(3) == "pm" and hour < 12:
        hour += 12
    return hour


# -- structure ---------------------------------------------------------------------------
_RECALL = re.compile(r"^(?:(?:do you (?:know|remember)|can you tell me|tell me)\s+)?"
                     r"(where|when|what|which|have you seen|did you see)\b")
_RECALL_LEAD = re.compile(
    r"^(?:(?:do you (?:know|remember)|can you tell me|tell me)\s+)?(?:where|when|what|which)\s+"
    r"(?:(?:did|have|do) (?:you|i|we)\s+(?:last\s+|most recently\s+|recently\s+)?"
    r"(?:see|seen|notice|noticed|spot|spotted|put|leave|left|observe|observed)|"
    r"(?:is|are|was|were|'s)(?: the)?(?: last)?(?: seen)?|(?:you|i) (?:last )?(?:saw|left|put))\b")
_SCOPE = re.compile(r"\b(?:look|search|check|go through|rummage)\s+(?:in|inside|through|into|in all of|all of)?\s*"
                    r"(?P<scope>.+?)\s+(?:and|to|for)\b(?:\s+find\b)?")
_LEAD = re.compile(
    r"^(?:(?:please|now|then|ok|okay|hey|robot|and|also|can you|could you|would you|will you|go|go and)\s+)*"
    r"(?:(?:bring|get|fetch|grab|find|locate|retrieve|hand|give|take|pick up|pick|look for|search for|seek|"
    r"i need|i want|i would like|i'd like|i am looking for|i'm looking for|where's|get hold of)\b"
    r"(?:\s+(?:me|us|for me|over))?(?:\s+back)?)?\s*")
_FETCH_VERB = re.compile(r"\b(bring|get|fetch|grab|retrieve|hand|give|take|pick|need|want|would like|'d like|"
                         r"find me|find us|thirsty|hungry)\b")
_CLAUSE = re.compile(r"\b(?:that|which|who|where)\b|\b(?:i|you|we) (?:had|used|left|put|saw|was using)\b")
_PREP = re.compile(r"\b(on top of|on|in|inside|by|near|next to|beside|at|under|from|behind|close to|in front of)\s+")
_NEED = re.compile(r"\b(thirsty|hungry|cold|bored|tired|something|anything)\b")
_PREP_NORMAL = {"on top of": "on", "inside": "in", "next to": "by", "beside": "by", "close to": "by",
                "near": "by", "in front of": "by"}


def _clean(text: str) -> str:
    text = text.lower().replace("’", "'")
    text = re.sub(r"[^\w\s']", " ", text)
    return re.sub(r"\s+", " ", text).strip()


def strip_determiners(phrase: str) -> str:
    words = [w for w in phrase.split() if w not in DETERMINERS and w not in FILLER]
    return " ".join(words)


_ASKS = re.compile(r"^(?:(?:do you know|can you tell me|tell me)\s+)?what\s+(colou?r|kind|type|brand|material|size|shape|title|name|text)"
                   r"(?:\s+of)?\s+(?:is|was|are|were)?\b")
_ASKS_OF = re.compile(r"^(?:(?:do you know|can you tell me|tell me)\s+)?what(?:'s| is| was| are| were)?\s+(?:the\s+)?"
                      r"(\w+)\s+of\s+")
_WHICH = re.compile(r"^which\s+(?P<np>(?:\w+\s+){0,3}?\w+)\s+(?:is|was|are|were|did you see|have you seen|did you spot)\b")
_GO_TO = re.compile(r"^(?:please\s+)?(?:go|take me|lead me|show me|walk|drive|head)\s+(?:over\s+)?to\s+(?P<place>.+?)\s+"
                    r"(?:that|which|where)\s+(?:holds?|has|have|contains?|keeps?|stores?|is|are)\s+(?P<obj>.+)$")
_TRAILING = {"over", "here", "back", "along", "too", "please", "again", "as", "well"}
_ACTION_WORDS = re.compile(r"\b(bring|get|fetch|grab|find|locate|retrieve|hand|give|take|pick|look|search|check|need|"
                           r"want|where|what|which|when)\b")


_APPOSITIVE = re.compile(r"^(?:(?:the|a|an)\s+)?(?:(?:\w+\s+)?ones?|whichever(?:\s+ones?)?)\s*(?:that|which|who)?\b")
_NEGATED = re.compile(r"^(?:but\s+)?not\s+")
_PRONOUNS = {"it", "them", "they", "that", "this", "those", "these", "one", "ones", "him", "her"}
_SUBJECT_VERB = re.compile(r"^(?:someone|somebody|i|we|you|he|she|they|my \w+)\s+(?:(?:can't|cannot|couldn't|can not|"
                           r"have|had|has|just|probably|must have|might have|may have)\s+)*\w+\s+")
_FOLLOWUP_LEAD = re.compile(r"^(?:ok(?:ay)?\s+)?(?:and|now|next|then|also|plus|after that|and then|and now)\b")
_FOLLOWUP_ANY = re.compile(r"\b(?:too|as well|also)\b")


def _clauses(text: str) -> list[str]:
    """Sentences split at full stops, semicolons and commas; appositives ("the one that ...",
    "not the plastic one") stay with the clause they describe."""
    out: list[str] = []
    for sentence in re.split(r"[.!?;]+", text):
        for part in sentence.split(","):
            part = part.strip()
            if not part:
                continue
            low = _clean(part)
            if out and (_NEGATED.match(low) or _APPOSITIVE.match(low)):
                if _APPOSITIVE.match(low):  # "..., the one that is easiest to grab" -> "... that is easiest to grab"
                    rest = _APPOSITIVE.sub("", low, count=1).strip()
                    rest = re.sub(r"^(?:is|are)\b", "that is", rest) if not rest.startswith("that") else rest
                    part = ("that " + rest) if not rest.startswith("that") else rest
                out[-1] = out[-1] + " " + part
            else:
                out.append(part)
    return out


def _main_sentence(text: str) -> tuple[str, str]:
    """The clause that asks for something, and the rest as context."""
    parts = _clauses(text)
    if len(parts) <= 1:
        return (parts[0] if parts else text), ""
    asking = [p for p in parts if _ACTION_WORDS.search(_clean(p))]
    main = asking[-1] if asking else parts[-1]
    return main, " ".join(p for p in parts if p is not main)


def _referent(context: str, now: float) -> Optional["ParsedInstruction"]:
    """The object a pronoun ("bring it to me", "the other one") refers to: the last clause of the
    context that names one, with its place ("someone put a game controller in one of the drawers")."""
    for clause in reversed(_clauses(context)):
        low = _SUBJECT_VERB.sub("", _clean(clause), count=1)
        ref = parse_instruction(low, now, resolve=False)
        if ref.target and ref.target not in _PRONOUNS and not ref.need:
            return ref
    return None


def parse_instruction(text: str, now: float, resolve: bool = True) -> ParsedInstruction:
    raw = text
    text, context = _main_sentence(text)
    s = _clean(text)
    followup = bool(_FOLLOWUP_LEAD.match(_clean(raw)) or _FOLLOWUP_ANY.search(_clean(raw)))
    s = re.sub(r"\b(?:but\s+)?not\s+(?:the|a|an|my|that|this)\b.*$", " ", s)  # "..., not the plastic one"
    window, time_phrase, s = parse_time(s, now)
    hm = re.search(r"\b(?:at|around|about)\s+(noon|midday|midnight|\d{1,2}(?::\d{2})?\s*(?:am|pm|o'clock)?)\b", s)
    if hm:
        hour = _clock_hour(hm.group(1))
        day_start = (window[0] // DAY) * DAY if window is not None else (now // DAY) * DAY
        window = (day_start + (hour - 1.5) * HOUR, day_start + (hour + 1.5) * HOUR)
        time_phrase = (time_phrase + " " + hm.group(0)).strip()
        s = s[:hm.start()] + " " + s[hm.end():]
    s = re.sub(r"\s+", " ", s).strip()
    habit = bool(re.search(rf"\b({HABIT_WORDS})\b", s))
    s = re.sub(rf"\b({HABIT_WORDS})\b", " ", s)
    s = re.sub(r"\b(last|most recently|recently)\b(?= (?:see|saw|seen))", " ", s)
    s = re.sub(r"\s+", " ", s).strip()

    intent = INTENT_FETCH
    asks = ""
    am = _ASKS.match(s) or _ASKS_OF.match(s)
    if am:
        asks = {"colour": "color"}.get(am.group(1), am.group(1))
        s = "where is " + s[am.end():].strip()
    wm = _WHICH.match(s)
    if wm and not am:  # "which magazine title was on the armchair": the policy tells the asked key from the label
        s = "where is the " + wm.group("np") + " " + s[wm.end():].strip()
        asks = "which"
    locate_at = _GO_TO.match(s)  # "go to the drawer that holds the matching sock"
    if locate_at:
        s = "look in " + locate_at.group("place") + " and find " + locate_at.group("obj")
    if _RECALL.match(s):
        intent = INTENT_RECALL
        s = _RECALL_LEAD.sub(" ", s, count=1).strip()
    scope = ""
    m = _SCOPE.search(s)
    if m and intent != INTENT_RECALL:
        scope = strip_determiners(m.group("scope"))
        s = (s[:m.start()] + " " + s[m.end():]).strip()
        intent = INTENT_LOCATE
    fetch_verb = bool(_FETCH_VERB.search(s))
    find_only = intent == INTENT_FETCH and not fetch_verb and bool(
        re.match(r"^(?:now |then |please |and |next |also )*(?:find|locate|look for|search for)\b(?! me| us)", s))
    if find_only:
        intent = INTENT_LOCATE if scope else INTENT_FETCH
    s = _LEAD.sub("", s, count=1).strip()
    s = re.sub(r"\b(?:for me|for us|please|now)\b", " ", s)
    s = re.sub(r"\s+", " ", s).strip()

    relation = anchor = description = ""
    clause = _CLAUSE.search(s)
    head_part, rest = (s[:clause.start()], s[clause.end():]) if clause else (s, "")
    if not clause:
        p = _PREP.search(s)
        if p:
            head_part, rest = s[:p.start()], s[p.start():]
    p = _PREP.search(rest)
    if p:
        relation = _PREP_NORMAL.get(p.group(1), p.group(1))
        anchor = strip_determiners(rest[p.end():])
        anchor = re.sub(r"\b(with|and|so|because|has|have|had|is|are|was|were|will|would|did|does|do)\b.*$", "",
                        anchor).strip()
        anchor = re.sub(r"^(?:of|all)\s+", "", anchor).strip()  # "one of the office drawers"
    elif clause is not None and rest.strip():
        description = rest.strip()
    target = strip_determiners(head_part)
    target = " ".join(w for w in target.split() if w not in _TRAILING)
    possessor = ""
    pm = re.search(r"\b(\w+)'s\b", target)
    if pm and pm.group(1) not in ("it", "that", "what", "where"):
        possessor = pm.group(1)
        target = re.sub(r"\b\w+'s\b", " ", target).strip()
    target = re.sub(r"'s?\b|'", "", target)
    target = re.sub(r"\s+", " ", target).strip()
    need = ""
    if not target or _NEED.search(target) or target in ("i'm", "im", "i am"):
        need = _clean(raw)
        target = "" if (not target or re.match(r"^(i'm|im|i am)\b", target)) else target
        if _NEED.search(target or ""):
            need, target = target, ""
    if target in ("what", "which", "anything", "something") and intent == INTENT_RECALL:
        target = ""
    if find_only and relation == "in" and anchor and not scope:  # "find the tape in the office drawers"
        scope, intent = anchor, INTENT_LOCATE
    parsed = ParsedInstruction(text=raw, intent=intent, target=target, relation=relation, anchor=anchor, scope=scope,
                               window=window, time_phrase=time_phrase, habit=habit, need=need, possessor=possessor,
                               asks=asks, context=context, description=description, followup=followup)
    if resolve and context:
        _resolve_references(parsed, now)
    return parsed


_MATCHING = re.compile(r"\b(?:matching|other one|other|pair|partner|twin|mate|counterpart)\b")


def _resolve_references(p: ParsedInstruction, now: float) -> None:
    """Pronouns and "the matching/other one" take their object from the context clauses."""
    words = set(p.target.split())
    matching = bool(_MATCHING.search(p.target))
    if not (p.target in _PRONOUNS or not p.target and not p.need or matching or (words and words <= _PRONOUNS | {"other"})):
        return
    ref = _referent(p.context, now)
    if ref is None:
        return
    if matching:
        p.match_of, p.target = ref, ref.target  # the same kind of thing as the referent, not the referent
        return
    p.target, p.need = ref.target, ""
    if not p.anchor and ref.anchor:
        p.relation, p.anchor = ref.relation, ref.anchor
    if not p.scope and ref.scope:
        p.scope = ref.scope
    if p.window is None and ref.window is not None:
        p.window, p.time_phrase = ref.window, ref.time_phrase
    p.habit = p.habit or ref.habit
    if not p.possessor:
        p.possessor = ref.possessor


# -- grounding through the embedding model -------------------------------------------------
def normal(phrase: str) -> str:
    return " ".join(singular(w) for w in re.sub(r"[_\-]+", " ", phrase.lower()).split())


def ngrams(phrase: str) -> list[str]:
    words = phrase.split()
    return [" ".join(words[i:j]) for i in range(len(words)) for j in range(i + 1, len(words) + 1)]


@dataclass
class Match:
    candidate: str
    score: float
    span: str = ""  # the part of the phrase that matched


def match_phrase(phrase: str, candidates: Sequence[str], embedder, lexical_only: bool = False) -> list[Match]:
    """Candidates ranked by how well some span of the phrase names them: 1.0 for the same words
    (plural-insensitive), else the embedding model's cosine similarity of span and candidate."""
    phrase = normal(phrase)
    cands = list(dict.fromkeys(c for c in candidates if c))
    if not phrase or not cands:
        return []
    spans = ngrams(phrase)
    norm_cands = [normal(c) for c in cands]
    best: dict[str, Match] = {}
    for c, nc in zip(cands, norm_cands):
        for span in spans:
            if span == nc or (len(nc.split()) > 1 and re.search(rf"\b{re.escape(nc)}\b", phrase)):
                if c not in best or best[c].score < 1.0 or len(span) > len(best[c].span):
                    best[c] = Match(c, 1.0, nc)
    if not lexical_only:
        # embeddings score the head noun phrase: spans ending at the last word ("tomato sauce",
        # "sauce"), so a modifier alone ("tomato") cannot name a different thing
        words = phrase.split()
        spans = [" ".join(words[i:]) for i in range(len(words))]
        vs = embedder.embed(spans)
        vc = embedder.embed(norm_cands)
        sims = np.asarray(vs, dtype=np.float32) @ np.asarray(vc, dtype=np.float32).T  # spans x candidates
        for j, c in enumerate(cands):
            if c in best:
                continue
            i = int(np.argmax(sims[:, j]))
            # the whole phrase speaks for the candidate as much as its best part does
            score = float(sims[i, j])
            best[c] = Match(c, score, spans[i])
    return sorted(best.values(), key=lambda m: (-m.score, m.candidate))


def covered_words(phrase: str, span: str) -> list[str]:
    """Words of the phrase outside the matched span: the modifiers (colour, material, text)."""
    span_words = set(normal(span).split())
    return [w for w in normal(phrase).split() if w not in span_words]


@dataclass
class Vocabulary:
    """What the robot has seen, as words to ground an instruction against."""

    object_labels: list[str] = field(default_factory=list)
    fixture_labels: list[str] = field(default_factory=list)
    rooms: list[str] = field(default_factory=list)
    attribute_values: list[str] = field(default_factory=list)
