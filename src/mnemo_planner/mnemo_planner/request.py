"""An instruction, read into a frozen typed ``Request``: what is asked (fetch, locate, or a recall
question of some kind), the words that describe the thing, and the constraints on it (a place and
its preposition, a time window, a habit, an owner, exclusions, a reference to match or to the
previous request).

Reading is by function words only (question words, prepositions, time and habit words, pronouns,
negation); the words that name things stay open vocabulary and are grounded later against what the
robot has seen (``grounding``). Nothing here names an object or a room.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

from mnemo_planner.calendar import Calendar
from mnemo_planner.dialogue import CONNECTIVES, OPENERS
from mnemo_planner.function_words import STOPWORDS
from mnemo_planner.idioms import plain, without_closing
from mnemo_planner.lexicon import lexicon
from mnemo_planner.questions import (COUNT, COUNTED_AT, OPTIONS, SEEN, WHAT_AT, WHEN, WHERE, WHICH, WITH, asks_to_act,  # noqa: F401
                                     courtesy_of_time, is_question, mend_told, recall_kind, sentences_of, told_at)
from mnemo_planner.slips import fix_words

FETCH, LOCATE, RECALL = "fetch", "locate", "recall"
ATTRIBUTE = "attribute"  # "what colour is ...": ``asks`` holds the word for the attribute

PREPOSITIONS = ("on top of", "next to", "in front of", "close to", "on", "in", "inside", "into", "at", "from", "by",
                "near", "beside", "under", "off", "by the", "within")
HABIT = r"usually|usual|normally|typically|generally|always|often|mostly|most of the time|tends? to (?:be|sit|live|stay)|" \
        r"regularly|habitually|lives?|belongs?|(?:is|are) kept|ordinarily"
DEMONSTRATIVE = re.compile(r"\b(?:bring|get|fetch|grab|give|hand|pass|take|carry|collect)\s+(?:me\s+|us\s+)?(?:that|this)"
                           r"(?=\s*(?:[,.;:!?]|$|\b(?:over|here|back|along|across|for|to|please|now|when|whenever|"
                           r"if|once|thanks|cheers|ta)\b))")
PRONOUN_ONLY = re.compile(r"^(?:it|that|this|them|that one|this one|the same|same)$")
OTHER = re.compile(r"\b(?:the other|another|the second|a second|one more|the rest|the remaining|its (?:twin|pair))\b")
MATCH = re.compile(r"\b(?:exactly like|just like|same as|the same kind as|identical to|matching|that matches|"
                   r"one like|twin of|like the one|a copy of|another one like)\b|"
                   r"(?<!'d )(?<!would )(?<!\bi )(?<!\bwe )(?<!\byou )\blike\s+(?:the|that|this|those|these|my)\b")
# "go over to the plinth and ...": a verb of going and its destination, before the request proper
MOTION = re.compile(r"\b(?:go|head|walk|move|drive|come|pop|nip|run|roll|make your way)\s+"
                    r"(?:over\s+|across\s+|back\s+|down\s+|up\s+|along\s+|straight\s+|on\s+)?(?:to|into)\s+"
                    r"(?:the|a|an|my|our|your|that|this)\s+(?P<np>[\w' \-]+?)\s*"
                    r"(?=,|\band\b|\bthen\b|\bto (?:get|grab|fetch|bring|pick|find|take|collect)\b)")
# "a match for the gizmo", "its match": a match named by a noun, read as "one like the gizmo", "one like it"
MATCH_NOUN = re.compile(r"\b(?:(?:(?:a|the) (?:match|double|twin) (?:for|of|to)|the pair to) (?=the|that|this|my|your|our)|"
                        r"its (?:match|double)\b)")
QUOTED = re.compile(r"(?:(?<=\s)|^)['\"]((?:[^'\"]|'(?=\w))+?)['\"](?=[\s.,!?;:)]|$)")


@dataclass(frozen=True)
class Request:
    text: str  # the instruction as given
    intent: str  # FETCH | LOCATE | RECALL
    kind: str = ""  # recall kind
    words: tuple[str, ...] = ()  # content words of the main clause (the thing, its attributes, a need)
    phrase: str = ""  # the main clause without time words, negation and the place phrase
    quoted: tuple[str, ...] = ()  # quoted text ('Monday'): printed text or titles
    owner: str = ""  # "Ada's gizmo" -> ada
    relation: str = ""  # on | in | at | by ... of the place phrase
    place: str = ""  # the place phrase ("the plinth in the atrium")
    window: Optional[tuple[float, float]] = None
    time_words: str = ""
    habit: bool = False
    excluded: tuple[str, ...] = ()  # "not the plastic one" -> ("plastic",)
    options: tuple[str, ...] = ()  # "the red one or the blue one" -> ("red", "blue")
    match: bool = False  # "one exactly like the gizmo on the plinth": the reference is the described thing
    pronoun: bool = False  # "bring it": the previous request's thing
    other: bool = False  # "the other one": like the previous request's thing, not it
    scope: str = ""  # "check the crates in the atrium and find ...": where to search
    context: str = ""  # the other sentences
    asks: str = ""  # the attribute a question asks for ("colour", "title")
    named: str = ""  # the noun phrase after the verb of asking ("" when only a need is stated)
    companion: bool = False  # "what is in Y besides X": the words are X's and the place Y's, never swapped


def _clean(text: str) -> str:
    text = text.replace("’", "'").replace("‘", "'").replace("“", '"').replace("”", '"')
    return re.sub(r"\s+", " ", text).strip()


def content_words(text: str) -> list[str]:
    words = [w.strip("'") for w in re.findall(r"[a-z0-9][a-z0-9'\-]*", text.lower())]
    out = []
    for i, w in enumerate(words):
        if w.endswith("'s"):
            w = w[:-2]
        if w and (w not in STOPWORDS or noun_use(words, i)) and len(w) > 1:
            out.append(w)
    return out


DETERMINERS = {"the", "a", "an", "my", "our", "your", "his", "her", "their", "this", "that", "these", "those",
               "some", "any", "every", "each"}


def noun_use(words: list[str], i: int) -> bool:
    """Whether the function word ``words[i]`` is a noun here: one word of a name of two words that the
    lexicon knows as a thing, with the content word before or after it (a kind of can or saw named by what
    it is for, a tool for cans; "the gizmo can be ..." and "can you ..." are no such names); or a measure of
    a thing ("the big dax of gizmos"), after a determiner or a qualifier and before "of" and a content word
    (an auxiliary or a quantifier never stands there: "one of the ...", "can you ..."), where the lexicon
    knows a thing by that name."""
    for a, b in ((i - 1, i), (i, i + 1)):  # (the word before it and it, or it and the word after)
        other = a if b == i else b
        if 0 <= a and b < len(words) and words[other] not in STOPWORDS and lexicon().senses(f"{words[a]} {words[b]}"):
            return True
    if not 0 < i < len(words) - 2 or words[i + 1] != "of" or words[i + 2] in STOPWORDS:
        return False
    before = words[i - 1]
    return (before in DETERMINERS or before not in STOPWORDS) and bool(lexicon().senses(words[i]))


# "..., if it's no bother", "once you have a minute": a condition of courtesy
COURTESY = r"\b(?:if|when|whenever|once)\s+(?:you|you've|you're|that|that's|it|it's)\b[^,.;!?]*"


# Nouns that stand for whatever will do ("the proper thing", "some stuff"): no name of a thing.
PLACEHOLDERS = ("something", "anything", "thing", "things", "stuff", "whatever", "one", "ones")


# Irregular past participles that may follow the thing wanted ("the gizmo brought up", "it taken away").
PARTICIPLES = ("brought", "taken", "given", "sent", "put", "left", "kept", "got", "gotten", "shown", "held", "set",
               "carried", "fetched", "moved", "delivered", "returned")


# what sets the thing apart from another one said after it: "not", or a connective of contrast
CONTRAST = r"(?:not|rather than|instead of|other than|as opposed to|in place of|except)"
NEGATED = re.compile(r"\b(?:do not|don't|dont|does not|doesn't|did not|didn't|never|not)\s+(?:\w+\s+)?"
                     r"(?:want|need|like|mean|bring|get|fetch|grab|take)\b")


def _take(pattern: str, s: str) -> tuple[Optional[re.Match], str]:
    m = re.search(pattern, s)
    if not m:
        return None, s
    return m, (s[:m.start()] + " " + s[m.end():])


def parse(text: str, now: float, calendar: Optional[Calendar] = None) -> Request:
    calendar = calendar or Calendar.simulator()
    raw = _clean(text)
    quoted = tuple(m.group(1) for m in QUOTED.finditer(raw))
    sentences = sentences_of(raw)
    # "the gizmo; I don't want the mauve one": a sentence that declines something only constrains
    declined = [x for x in sentences if NEGATED.search(fix_words(x.lower()))] if len(sentences) > 1 else []
    refused = [w for x in declined for w in content_words(NEGATED.split(fix_words(x.lower()), 1)[-1])]
    sentences = [x for x in sentences if x not in declined] or sentences
    refused = refused if declined and sentences != declined else []
    questions = [x for x in sentences if is_question(x)]
    asking = [x for x in sentences if re.search(r"\b(?:bring|get|fetch|grab|find|give|hand|pass|take|need|want|"
                                                r"like|look|search|check|locate|retrieve|where|what|which|when|how)\b",
                                                x.lower())]
    fetching = [x for x in sentences if re.search(r"\b(?:bring|fetch|grab|hand|pass|give|carry|get)\b", x.lower())
                and not is_question(x)]
    main = (fetching or questions or asking or sentences)[-1] if len(sentences) > 1 else sentences[0]
    context = " ".join(x for x in sentences if x is not main)
    # the other sentence is part of what is asked:
    # "the mauve gizmo on the plinth is alone now; find the matching one": it describes the thing the
    # pronoun or the match refers to
    refers = bool(context) and bool(content_words(context)) and not questions and bool(
        pronoun_only(fix_words(main.lower())) or MATCH.search(main.lower()))
    # "the dax wobbles and I must fix it. what might serve?": a question that names no thing, after a
    # sentence saying what is going on, asks for what answers that
    offer = bool(context) and main in questions and _asks_for_nothing(main) and not questions[:-1] \
        and bool(content_words(fix_words(context.lower())))
    # "a gizmo stood on the plinth; the mauve one or the teal one?": the options ask about the other sentence
    options_only = bool(context) and not content_words(OPTIONS.sub(" ", fix_words(main.lower()))) \
        and bool(OPTIONS.search(main.lower()))
    if refers or offer or options_only:
        main, context = context.rstrip(".!?;") + "; " + main, ""
    s = " " + mend_told(fix_words(QUOTED.sub(" ", main.lower()))) + " "
    told = told_at(s)
    if told >= 0 and not asks_to_act(s):
        s = " " + s[told:]  # "be a dear and tell me where ...": the question is what follows
    s = courtesy_of_time(s)
    # "not the gizmo on the plinth, rather another identical to that": the thing named is what to match
    s = re.sub(r"\bnot\s+(?P<np>(?:the|that|this|my|our|your)\s+[^,;!?]+?)(?:\s+itself)?\s*,?\s*but\s+(?:rather\s+)?"
               r"(?P<m>(?:one|another(?:\s+one)?|a second(?:\s+one)?)\s+(?:exactly\s+|just\s+)?"
               r"(?:like|the same as|identical to)\s+)(?:it|that)(?=\s*(?:[,.;!?]|$|please\b))", r"\g<m>\g<np>", s)
    window, time_words = calendar.window(s, now)
    if time_words:
        s = s.replace(time_words, " ")
    habit = bool(re.search(rf"\b(?:{HABIT})\b", s))
    s = re.sub(rf"\b(?:{HABIT})\b", " ", s)
    excluded = list(refused)
    for pat in (rf",?\s*(?:but\s+)?{CONTRAST}\s+(?:the|that|a|an|my)\s+([\w' \-]+?)\s+ones?\b",
                r"\(?\s*the\s+([\w' \-]+?)\s+ones?\s+(?:is|are)\s+(?:wrong|not (?:it|right|the one))\s*\)?",
                rf",?\s*(?:but\s+)?{CONTRAST}\s+(?:the|that|a|an|my)\s+([\w' \-]+?)(?=[,.!?]|$)"):
        m, s = _take(pat, s)
        if m:
            excluded += content_words(m.group(1))
    options: tuple[str, ...] = ()
    asks_which = bool(re.search(r"\bwhich\b", s))
    m = OPTIONS.search(s)
    if m:
        options = tuple(x.split(" the ")[-1].strip() for x in (" " + m.group(1), " " + m.group(2)))
        s = s[:m.start()] + " " + s[m.end():]
    owner = ""
    m = re.search(r"\b([a-z]+)'s\b", s)
    if m and m.group(1) not in ("it", "that", "what", "where", "who", "there", "here", "he", "she", "let", "one"):
        owner = m.group(1)
    intent, kind = (RECALL, recall_kind(s.strip())) if is_question(main) and not offer and not re.search(
        r"^\s*(?:(?!(?:where|when|which|what|how|who)\b)\w+\W+){0,8}?(?:could|can|would|will) you (?:please )?(?:bring|get|fetch|grab|hand|pass|give|find|go)\b", s) \
        else (FETCH, "")
    if intent == RECALL and options and (asks_which or kind in (WHERE, SEEN, WHAT_AT)):
        kind = WHICH
    # "what is in the crate besides the gizmo", "apart from the gizmo, what ...": what else was with it there
    companion = None
    if intent == RECALL and kind in (WHAT_AT, WHERE, WITH):
        companion, s = _take(r",?\s*\b(?:besides|apart from|aside from)\s+(?:the|a|an|my|our|your|his|her|their)\s+"
                             r"(?!(?:one|ones)\b)([\w' \-]+?)(?=\s*(?:[,.;!?]|$))", s)
    if companion:
        kind = WITH
    asks = ""
    m = re.search(r"\bwhat\s+(?:is\s+the\s+|was\s+the\s+|'s\s+the\s+)?([a-z]+)\s+(?:is|was|of|does|did|has)\b", s)
    if intent == RECALL and m and m.group(1) not in STOPWORDS and kind in (WHAT_AT, WHERE):
        kind, asks = ATTRIBUTE, m.group(1)
        s = s[:m.start(1)] + " " + s[m.end(1):]
    scope = ""
    m = re.search(r"\b(?:look|search|check|go through|rummage|try|have a look|open)\s+(?:in|inside|through|into|in all of|"
                  r"all of|every one of|each of)?\s*(?!for\b|around for\b)(?P<scope>(?:(?!\bfor\b).)+?)\s+(?:and|to|for|until you)\s+"
                  r"(?:then\s+)?(?:find|get|grab|look for|locate|fetch|bring|see if|spot|retrieve)\b", s) or \
        re.search(r"\b(?:look|search|check|go|rummage|hunt)\s+(?:(?:in|inside|through|into|in all of|all of|each of)\s+|"
                  r"(?=(?:the|all|every|each|my|our|your)\b))(?P<scope>.+?)\s+for\b", s) or \
        re.search(r"(?:^|[,;.!?]|\band\b)\s*(?:then\s+)?(?:look|search|check|go through|rummage|try|have a look)\s+"
                  r"(?:in|inside|through|into)?\s*(?P<scope>(?:the|all|every|each|my|our|your)\b[^,;.!?]*?)"
                  r"\s*(?:please\s*)?(?:[,;.!?]|$)", s) or \
        re.search(r"^\s*(?:one|any|either|some)\s+of\s+(?P<scope>(?:the|my|our|your)\b[^,;.!?]*?)\s+(?:has|holds|contains|"
                  r"keeps|hides|has got|is holding|is keeping)\s+(?=(?:the|a|an|my|our|your|some)\b)", s)
    # "look through the crates in the den for the gizmo", "search the crates for the gizmo", "one of the
    # crates in the den holds the gizmo, ..." (what holds the thing is where to search)
    if m and intent != RECALL:
        scope = m.group("scope").strip()
        fetching_verb = re.search(r"\b(?:bring|fetch|get|grab|retrieve|hand|give|pass|take)\b", s)
        s = s[:m.start()] + " find " + s[m.end():]
        intent = FETCH if fetching_verb else LOCATE  # (a thing found is fetched when that was asked)
    s = MATCH_NOUN.sub(lambda m: " one like " if m.group(0).startswith(("a ", "the ")) else " one like it", s)
    match = bool(MATCH.search(s)) and intent != RECALL
    relation, place = "", ""
    motion = MOTION.search(s) if intent != RECALL else None
    if motion:  # "head to the plinth in the atrium and take the gizmo": where to go is where the thing is
        relation, place = "at", motion.group("np").strip()
        s = s[:motion.start()] + " " + s[motion.end():]
    preps = "|".join(re.escape(p) for p in sorted(PREPOSITIONS, key=len, reverse=True))
    for pm in ([] if motion else re.finditer(rf"\b({preps})\s+(?:(?:one|any|either|each|some|all|none) of\s+)?(?:the|a|an|my|our|that|this)\s+(?P<np>[\w' \-]+?)(?=\s*(?:[,.!?;:]|$|"
                          rf"\b(?:yesterday|today|and|but|so|if|when|whenever|once|unless|while|that|which|please|for|to|earlier|last|this|"
                          rf"then|right|because|thanks|with|along|together|alongside|next|beside|has|have|had|is|are|was|were|there|"
                          rf"(?:at|after|before|during|around|since|until)(?!\s+(?:the|a|an|my|our|your|this|that)\b)|"
                          rf"sometime|you|you'll|you're|i|we|they|he|she)\b))", s)):
        relation, place = pm.group(1).strip(), pm.group("np").strip()
        s_place = pm
    if place and not motion:
        s = s[:s_place.start()] + " " + s[s_place.end():]
    counted = COUNTED_AT.search(s) if intent == RECALL and kind == COUNT and not place else None
    if counted:
        relation, place, s = "in", counted.group("np").strip(), s[:counted.start()] + " " + s[counted.end():]
    s = without_closing(plain(s, STOPWORDS))  # (no idiom names a thing; the place phrase is out already)
    # "..., if it's no bother", "once you have a minute": a condition of courtesy, no thing (of a question,
    # only "if" after a comma: "when you ..." may date what it asks about, "tell me if ..." is the question)
    s = re.sub(COURTESY if intent != RECALL else r"(?<=[,;])\s*if\s+(?:you|you've|you're|that|that's|it|it's)\b[^,.;!?]*", " ", s)
    pronoun_phrase = re.sub(r"\b(?:bring|get|fetch|grab|give|hand|pass|take|me|us|to|for|over|here|back|please|"
                            r"now|ok|okay|great|thanks|and|then|it|that|one|this|them|same|the|as|well|too)\b",
                            " ", s)
    words = content_words(re.sub(r"\b(?:hand|pass)\s+(?:me|us|it|them|over|along)\b", " ", _of_pronoun(s)))  # verbs, not nouns
    m = re.search(r"\b(?:the|a|an|my|our|your|his|her|their|[a-z]+'s)\s+((?:[a-z]+(?:'s|s')\s+)?[a-z][\w\- ]*)", s) \
        if intent == RECALL and kind != COUNT else None  # ("how many gizmos does the den hold")
    if m:  # "where have you glimpsed the gizmo, at your leisure": the thing is the noun phrase, not the verb
        words = content_words(noun_phrase(m.group(1))) or words
    company = re.search(r"\b(?:with|alongside)\s+(?:the|a|an|my|our|your|his|her|their)\s+([a-z][\w\- ]*)", s) \
        if m and kind == WITH else None
    if company and m.start() < company.start() and content_words(noun_phrase(company.group(1))):
        # "what shared the plinth with the gizmo": the thing is the company, the other noun phrase where
        # (and where that stood, if said: "having looked into the crate in the den, what else lay with the gizmo")
        where = noun_phrase(m.group(1))
        if not place:
            relation, place = "at", where
        elif content_words(where):
            place = f"{where} {relation} the {place}"
        words = content_words(noun_phrase(company.group(1)))
    companion_words = content_words(noun_phrase(companion.group(1))) if companion else []
    if companion_words:
        if not place and m and content_words(noun_phrase(m.group(1))):
            relation, place = "at", noun_phrase(m.group(1))  # ("what else did the crate hold": the crate)
        words = companion_words
    if pronoun_only(s) and context:  # "where are my gizmos? bring them over": the thing is in the context
        words = content_words(fix_words(QUOTED.sub(" ", context.lower())))
    named = ""
    for m in re.finditer(r"\b(?:bring|fetch|get|grab|find|give|hand|pass|take|need|want|like|retrieve|locate|pick up|"
                         r"put|left|placed|stored|hid|dropped|(?:look|looking|search|hunt) for|(?:'m|am|are) after)\s+"
                         r"(?:me\s+|us\s+|over\s+)?(?:(?:the|a|an|my|some|any|our|his|her|their|[a-z]+'s)\s+)?"
                         r"([a-z][\w\- ]*)", s):
        phrase = noun_phrase(m.group(1))
        head = m.group(1)[len(phrase):].split()[:1]
        if phrase and phrase not in PLACEHOLDERS and not (head and head[0] in PLACEHOLDERS):
            named = phrase  # (not "the proper thing": words before a placeholder name nothing)
    if not named and intent == FETCH:
        named = _elliptic(s)
    # (a bare "that" or "this" is the pronoun only as a fetching verb's whole object: "carry that across",
    # not "carry that gizmo")
    demonstrative = DEMONSTRATIVE.search(s)
    it = re.search(r"\b(?:it|them|that one|this one)\b", s) or demonstrative
    # noun phrases opened by a determiner before the pronoun ("the gizmo was on the plinth, can you find it?":
    # the pronoun refers to one of them)
    phrases = list(re.finditer(r"\b(?:the|a|an|my|our|your|his|her|their)\s+(?!one\b)(?=[a-z])", s[:it.start()])) \
        if it else []
    named_before = bool(it) and (bool(phrases)
                                 or any(_names_some(w) for w in re.findall(r"\b(?:some|any)\s+([a-z]+)", s[:it.start()])))
    # the object of a verb of fetching ("pick it up and bring it here, much obliged"): the words around
    # it are courtesy, or where to bring it
    object_of_verb = bool(re.search(r"\b(?:bring|get|fetch|grab|give|hand|pass|take|pick|carry|collect)\s+"
                                    r"(?:me\s+|us\s+)?(?:it|them|that one|this one)\b", s) or demonstrative)
    sought = re.search(r"\b(?:bring|get|fetch|grab|take|find|locate|spot)\s+(?:me\s+|us\s+)?(?:it|them)\b", s)
    before = [(d.start(), noun_phrase(re.split(r"[,.;:!?]", s[d.end():it.start()])[0]))
              for d in phrases] if sought and not named else []
    before = [(at, x) for at, x in before if content_words(x)]
    if before:
        # "the gizmo is somewhere on the plinth, get it": what is sought is the sentence's subject, or else
        # the noun phrase said last before ("do me a kindness and lift the gizmo and bring it")
        named = before[0][1] if not s[:before[0][0]].strip() else before[-1][1]
    pronoun = bool(it) and (len(content_words(pronoun_phrase)) <= 1 or object_of_verb) and not named_before \
        and not quoted and not re.search(r"\bon it\b", s)
    other = bool(OTHER.search(s)) and len([w for w in words if w not in ("ones",)]) <= 1
    return Request(text=raw, intent=intent, kind=kind, words=tuple(words), phrase=re.sub(r"\s+", " ", s).strip(),
                   quoted=quoted, owner=owner, relation=relation, place=place, window=window,
                   time_words=time_words.strip(), habit=habit, excluded=tuple(excluded), options=options,
                   match=match, pronoun=pronoun, other=other, scope=scope, context=context, asks=asks, named=named,
                   companion=bool(companion))


def _of_pronoun(s: str) -> str:
    """``s`` without the word whose object a pronoun is ("zorp it"): a verb, whatever else it may name (no
    noun after a determiner: "the gizmo it stood on")."""
    return re.sub(r"(?<!\bthe )(?<!\ba )(?<!\ban )(?<!\bmy )\b[a-z]+(?=\s+(?:it|them)\b)", " ", s)


def _asks_for_nothing(question: str) -> bool:
    """A question of what or where with no noun phrase, no word the lexicon knows as a physical thing (of
    three letters or more: two are a symbol, "ta" no element) and no pronoun that refers to one ("what
    might serve?", "could you assist?"; not "where does it sit?", "where might the dax be?", or a question
    of what was seen)."""
    s = re.sub(COURTESY, " ", fix_words(question.lower()))
    determined = [m.group(1) for m in re.finditer(r"\b(?:the|a|an|my|our|your|his|her|their|this|that)\s+([a-z]+)", s)]
    return recall_kind(s) in (WHAT_AT, WHERE) and not OPTIONS.search(s) and \
        all(w in PLACEHOLDERS for w in determined) and not re.search(r"\b(?:it|they|them|those|these)\b", s) and \
        not any(len(w) > 2 and lexicon().senses(w) for w in content_words(s))


def _names_some(word: str) -> bool:
    """After "some" or "any", whether the word names things ("some daxes ... bring it"), not a quantity or a
    span of time ("some more", "any left", "some time")."""
    return word not in STOPWORDS and word != "more" and not lexicon().of_time(word)


# a request that is only its thing, after an interjection or a connective, with at most an adverb of
# sequence, thanks or a clause of time after it: "and the gizmo?", "right, the gizmo next, when you can"
ELLIPTIC = re.compile(r"^\s*(?:(?:" + "|".join(sorted(OPENERS | set(CONNECTIVES), key=len, reverse=True)) +
                      r")\b[\s,]*)*(?:the|my|our|your|his|her|their|some|a|an)\s+([a-z][a-z\- ]*?)"
                      r"(?:\s+(?:next|too|now|as well|also|please))?\s*(?:[,.;:!?]|$|\b(?:when|whenever|if|thanks|"
                      r"thank you|cheers|ta)\b)")


def _elliptic(s: str) -> str:
    """The thing a request names with no verb ("now the gizmo"): its noun phrase, or "" for any other."""
    m = ELLIPTIC.search(s)
    phrase = noun_phrase(m.group(1)) if m else ""
    # (the words up to the end of the clause are all the noun phrase: "the dax is wobbly, ..." is no request;
    # nor is it where the request goes on to ask for something else: "the dax snapped; hand over anything that mends it")
    whole = bool(phrase) and phrase == m.group(1).strip() and not re.search(
        r"\b(?:" + "|".join(PLACEHOLDERS) + r"|what)\b", s[m.end():])
    return phrase if whole and content_words(phrase) and phrase not in PLACEHOLDERS else ""


def noun_phrase(text: str) -> str:
    """The words that open ``text`` up to the first function word ("a box of gizmos" is one phrase) or a
    participle after them ("the gizmo carried in")."""
    out: list[str] = []
    words = text.split()
    for i, w in enumerate(words):
        # (the phrase opens after its determiner: "[the] dax of gizmos")
        if (w in STOPWORDS and not (w == "of" and out) and not noun_use(["the", *words], i + 1)) \
                or (out and w in PARTICIPLES):
            break
        out.append(w)
    while out and out[-1] == "of":
        out.pop()
    return " ".join(out)


def pronoun_only(s: str) -> bool:
    """The clause names its thing only by a pronoun ("bring them over")."""
    rest = re.sub(r"\b(?:it|them|they|that|this|those|these|one|ones)\b", " ", s)
    return bool(re.search(r"\b(?:it|them|they)\b", s)) and not content_words(rest)
