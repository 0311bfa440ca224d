"""Whether a sentence of an instruction is a question, and of which kind (where, when, with what,
which, how many, did you see, what is at): read by question words, auxiliaries and verbs only."""
from __future__ import annotations

import re

from mnemo_planner.function_words import STOPWORDS
from mnemo_planner.lexicon import lexicon
from mnemo_planner.slips import fix_words, one_edit

# recall kinds
WHERE, WHEN, WITH, WHICH, COUNT, SEEN, WHAT_AT = "where", "when", "with", "which", "count", "seen", "what_at"


def sentences_of(text: str) -> list[str]:
    parts = [p.strip() for p in re.split(r"(?<=[.!?;])\s+", text) if p.strip()]
    return parts or [text]


_QUESTION = re.compile(r"^(?:(?:ok|okay|hey|so|and|robot|please|quick question|tell me|do you (?:know|remember)|"
                       r"can you (?:tell me|remember)|could you tell me|any idea|i wonder)[, ]+)*"
                       r"(where|when|what|which|how many|how much|how long ago|did you|have you|do you|was there|"
                       r"is there|were there|are there|whereabouts)\b")


def recall_kind(s: str) -> str:
    """The kind of a question, from its question words and verbs (those of the main clause: "when you
    saw the gizmo, what was beside it" asks what, not when)."""
    main = re.sub(r"^\W*(?:when|while|after|as|once)\s+(?:you|i|we)\b[^,?]*,\s*", "", s)
    if main != s and re.search(r"\b(?:what|which|where|how|who|was|were|did|is|are)\b", main):
        s = main
    if re.search(r"\bhow many\b|\bhow much\b|\bnumber of\b|\bcount\b", s):
        return COUNT
    if re.search(r"\bwhen\b|\bwhat time\b|\bhow long ago\b|\bwhat day\b", s):
        return WHEN
    if re.search(r"\bwhich\b", s) and re.search(r"\bor\b", s):
        return WHICH
    if re.search(r"\b(?:what|name|list|which|something|anything|things)\b[^?]*\b(?:next to|beside|with|alongside|else|"
                 r"near|along with|together|sitting by|stored|kept|around|company)\b", s):
        return WITH
    if re.search(r"^\W*(?:\w+\W+){0,3}?(?:did|have) you (?:see|seen|spot|spotted|notice)\b", s) and \
            not re.search(r"\b(?:where|anywhere|somewhere)\b", s):
        return SEEN
    if re.search(r"\bwhat\b", s) and not re.search(r"\bwhere\b", s):
        return WHAT_AT
    return WHERE


_ASK = re.compile(r"^(?:(?:ok|okay|hey|so|and|robot|please|now)[, ]+)*(?:name|list|tell me|say)\b")
# "..., tell me what was beside the gizmo": a question put as a request to tell, after any opening
_TELL = re.compile(r"\b(?:tell|remind) (?:me|us)\b|\blet (?:me|us) know\b")
_WH_AFTER = re.compile(r"^\s*(?:what|where|which|when|how many|how much|whether|if)\b")


QUESTION_WORDS = ("where", "when", "what", "which")
AUXILIARIES = ("is", "are", "was", "were")  # (a verb that cannot open the clause after "tell me")


def told_at(s: str) -> int:
    """Where a question put as a request to tell begins ("..., tell me what ..."), or -1."""
    tell = _TELL.search(s)
    return tell.start() if tell and _WH_AFTER.match(s[tell.end():]) else -1


def mend_told(s: str) -> str:
    """Right after "tell me" a question word or a clause is due: a word there one slip from a question
    word is that word when it is no word of the language, or a verb that cannot open a clause ("tell me
    wher ...", "tell me were the dax is"); "tell me that ..." stays. So is such a word opening the question
    before an auxiliary verb."""
    def mend(m: re.Match) -> str:
        w = m.group(2)
        if w in AUXILIARIES or (w not in STOPWORDS and not lexicon().knows(w)):
            wh = next((x for x in QUESTION_WORDS if one_edit(w, x)), "")
            if wh:
                return m.group(1) + wh
        return m.group(0)
    s = re.sub(rf"((?:{_TELL.pattern})\s+)([a-z]+)\b", mend, s)
    # the same slip opening a question, before the auxiliary verb that follows a question word there
    # ("were did the dax go", "wher is it"; "were you there" stays)
    return re.sub(rf"^(\W*)([a-z]+)(?=\s+{_OPENING_AUX}\b)", mend, s)


_OPENING_AUX = r"(?:do|does|did|is|are|was|were|has|have|had|can|could|would|will|should|might|may)"


_ACT = re.compile(r"\b(?:bring|fetch|grab|hand|pass|get|give|find|take|carry|pick)\b")


OPTIONS = re.compile(r"\b(?:the\s+)?([\w' \-]+?)\s+ones?\s+or\s+(?:the\s+)?([\w' \-]+?)\s+ones?\b")


def is_question(sentence: str) -> bool:
    s = mend_told(fix_words(sentence.lower().strip()))
    if s.endswith("?") and OPTIONS.search(s) and not _ACT.search(s):
        return True  # "... the mauve one or the teal one?"
    if re.search(r"\b(?:count|tally)\b(?! on\b)", s) and not _ACT.search(s):
        return True  # "count the gizmos on the plinth for me": a question of how many
    if _ACT.search(s) and not s.rstrip(" .!").endswith("?"):
        return False  # "when you have a moment, bring me ...": a request with a clause of time
    if _QUESTION.match(s) or (_ASK.match(s) and not _ACT.search(s)):
        return True
    if told_at(s) >= 0:
        return True
    # a question of fact asked otherwise ("... was it the red one?"), not a plea for help ("can you help?")
    if re.search(r"\b(?:where|when|how many|which)\b[^,.;!?]*\?$", s):
        return True  # "I can't find the gizmos, where are they?": the question closes the sentence
    closing = re.search(r"\b(?:where|when|how many|which)\b[^,.;!?]*,([^,.;!?]*)\?$", s)
    if closing and not _ACT.search(closing.group(1)) and len(closing.group(1).split()) <= 4:
        return True  # ... but for a few words after it that ask nothing of the robot (a thanks, a name)
    if not s.endswith("?") or _ACT.search(s):
        return False
    if re.search(r"\b(?:where|when|how many|which|what)\b", s):
        return True
    return re.search(r"\b(?:was|is|were|are|did|has|had)\s+(?:it|there|that|they|this)\b|^\W*(?:[\w']+\W+){0,3}?did\s+you\b",
                     s) is not None and \
        not re.search(r"\b(?:can|could|would|will) you\b|\bhelp\b|\bideas?\b", s)


# "..., whenever you find the leisure?": a clause of time that offers the robot leisure, no time of the thing
_LEISURE = re.compile(r"[,;]?\s*\b(?:when|whenever|once|if)\s+(?:you|you've|you're)\s+(?:(?:have|get|got|find)\s+"
                      r"(?:a|an|the|some|any)?\s*(?P<noun>[a-z]+)\b|can(?=\s*[,.!?;]|\s*$))")


# "..., no fuss.": a clause that is only "no" and one noun
_NO_CLAUSE = re.compile(r"(?:^|(?<=[,;.!?]))\s*no\s+(?P<noun>[a-z]+)\s*(?=[,;.!?]|$)")
# "be a gem and ...": the listener told what to be, before what to do
_BE_AND = re.compile(r"^\s*(?:please\s+)?be\s+(?:a|an|so)\s+[^,;.!?]*?\band\s+(?=\w)")


def courtesy_of_time(s: str) -> str:
    """``s`` without clauses that give the robot leisure: the time they name is its own, a span of time
    or another noun of no thing ("once you have the dax" names the dax, "when you have seen it" is no
    leisure; "no fuss" is leisure, "no dax" is not); and without an opening clause that tells the robot
    what to be ("be a gem and fetch ...")."""
    lex = lexicon()

    def drop(m: re.Match) -> str:
        noun = m.group("noun")
        leisure = not noun or (lex.noun(noun) and (lex.of_time(noun) or not lex.senses(noun)))
        return " " if leisure else m.group(0)
    return _BE_AND.sub(" ", _NO_CLAUSE.sub(drop, _LEISURE.sub(drop, s)))


def asks_to_act(s: str) -> bool:
    """Whether a sentence asks the robot to do something with a thing (bring, find, ...)."""
    return _ACT.search(s) is not None


# the noun phrase the auxiliary of a question of how many asks about, with its verb at the clause's end
# ("how many gizmos does the den hold?"): where to count
COUNTED_AT = re.compile(r"\b(?:does|do|did)\s+(?:the|my|our|your|this|that)\s+(?P<np>[a-z][\w'\- ]*?)\s+[a-z]+\s*(?=[,.;!?]|$)")
