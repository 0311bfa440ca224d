"""Slips of the keyboard in function words ("brimg", "the ohter one", "whn you can"), mended before a
request is read, and the one-edit test that every reader of names shares."""
from __future__ import annotations

import re

from mnemo_planner.function_words import CLOSED_CLASS, STOPWORDS
from mnemo_planner.lexicon import lexicon


def known(word: str) -> bool:
    """A word of the language (True when no lexical database is installed: nothing is taken for a slip)."""
    lex = lexicon()
    return not lex or word in CLOSED_CLASS or lex.knows(word)


# Function words a slip of the keyboard must not hide (compared within one edit), the first always and the
# rest (every other function word) only where the slip is no word of the language.
LEXICON = ("other", "another", "bring", "fetch", "where", "which", "when", "what", "yesterday", "morning", "evening",
           "afternoon", "today", "usually", "normally", "please", "exactly", "same", "like", "find", "there", "last",
           "seen", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "many", "the",
           "three", "four", "five", "seven", "eight", "nine", "days", "hours", "week", "earlier", "before", "ago",
           "want", "need", "wrong", "next", "near", "from", "with", "kind") + \
    ("twin", "pair", "identical", "matching", "matches", "check", "search") + \
    ("tell", "remind", "remember", "recall", "name", "list", "time")
FUNCTION = tuple(sorted(w for w in STOPWORDS if "'" not in w))
# ... of which these words of reference to another thing, and verbs that name where to search, only where
# the slip is no word itself ("twine", "cheek"), the words a question turns on: the verbs that put it as a
# request, and the time it asks for ("telly", "timer"), and "other" (never from "bother")
UNKNOWN_ONLY = ("twin", "pair", "identical", "matching", "matches", "check", "search", "tell", "remind", "remember",
                "recall", "name", "list", "time", "other", "another")
# ... of which these only before a determiner: "form the plinth", but "a tax form"
BEFORE_DETERMINER = ("from", "with")
# ... of which a word of the language is taken for these verbs only before what may begin their object and,
# a noun, not after a word of its clause that may qualify it ("brink me the gizmo" and "blick, brink it over"
# ask for it; "the dax brink." and "a mauve brink on the plinth" are a kind of thing)
FETCH_VERBS = ("bring", "fetch", "find", "want", "need")
# a question word's contraction misspelt ("whre's"): any stem within one edit that is not itself a
# contraction of English ("here's", "that's", "there's")
WH = ("where", "what", "when", "which")
CONTRACTED = ("here", "there", "that", "it", "he", "she", "who", "let", "one")
# ... where it opens a clause: first, after punctuation, or after one of these ("tell me whre's ...")
CLAUSE_OPENERS = ("me", "us", "and", "but", "so", "or", "then", "now", "ok", "okay", "hey", "oh", "um", "er", "well",
                  "know", "remember", "wonder", "tell", "remind", "sure")


def near_a_word(word: str) -> bool:
    """Whether some word of the language other than a function word is one edit away."""
    lex = lexicon()
    if not lex:
        return True
    letters = "abcdefghijklmnopqrstuvwxyz"
    splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    edits = {a + b[1:] for a, b in splits if b} | {a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1} | \
        {a + c + b[1:] for a, b in splits if b for c in letters} | {a + c + b for a, b in splits for c in letters}
    return any(e != word and len(e) > 2 and e not in STOPWORDS and lex.knows(e) for e in edits)


def one_edit(a: str, b: str) -> bool:
    """Whether a and b differ by one insertion, deletion, substitution or swap of neighbours."""
    if a == b or abs(len(a) - len(b)) > 1:
        return a == b
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        return len(diff) == 1 or (len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]]
                                  and a[diff[1]] == b[diff[0]])
    short, long_ = (a, b) if len(a) < len(b) else (b, a)
    return any(long_[:i] + long_[i + 1:] == short for i in range(len(long_)))


# ... of which these may follow a determiner ("the other", "this morning"); no verb or question word may
COUNTS = ("three", "four", "five", "seven", "eight", "nine")
UNITS = ("days", "hours")
NOMINAL = ("other", "twin", "pair", "same", "last", "morning", "evening", "afternoon", "days", "hours", "week", "monday", "tuesday",
           "wednesday", "thursday", "friday", "saturday", "sunday") + COUNTS
DETERMINERS = ("the", "a", "an", "my", "your", "our", "his", "her", "their", "this", "that", "some", "any", "its")
OBJECT_STARTS = DETERMINERS + ("these", "those", "me", "us", "it", "them", "him", "something", "anything", "one",
                               "back", "over", "here")


def fix_words(text: str) -> str:
    """Words of 4+ letters one edit away from a function word become that word; after a determiner only
    a word that may stand there ("the ohter", but "the brink" is a noun, not a misspelt verb)."""
    def fix(m: re.Match) -> str:
        w = m.group(0)
        if len(w) < 3 or w in LEXICON or w in STOPWORDS or (len(w) == 3 and known(w)) or text[m.end():].startswith("'"):
            return w  # (a three-letter word only when it is no word at all and lost a letter; never a possessive)
        before = re.findall(r"[a-z']+", text[:m.start()][-12:])
        after_determiner = bool(before) and before[-1] in DETERMINERS
        # a four-letter word is only taken for a longer one (a dropped letter) or for the same letters with
        # two neighbours swapped: changing one letter of a short word makes another word too often
        after = re.findall(r"[a-z]+", text[m.end():][:12])
        clause_before = re.findall(r"[a-z']+", re.split(r"[,.;:!?]", text[:m.start()])[-1][-12:])

        def near(words: tuple[str, ...]) -> list[str]:
            return [x for x in words if len(x) >= 4 and one_edit(w, x)
                    and (len(w) > 4 or len(x) > len(w) or sorted(w) == sorted(x))
                    and (not after_determiner or x in NOMINAL)
                    and (x not in UNKNOWN_ONLY or not known(w))
                    and (x not in BEFORE_DETERMINER or (after and after[0] in DETERMINERS))
                    and (x not in FETCH_VERBS or not known(w) or w.startswith(x) or (
                        after and after[0] in OBJECT_STARTS and not (
                            clause_before and clause_before[-1] not in STOPWORDS and lexicon().noun(w))))
                    # a count is only a count before a unit of time, a unit only after a count ("right", "yours")
                    and (x not in COUNTS or (after and after[0].rstrip("s") in ("day", "hour", "week", "minute")))
                    and (x not in UNITS or (before and (before[-1] in COUNTS or before[-1].isdigit())))]
        found = near(LEXICON)
        if not found and not known(w) and not near_a_word(w):
            # any other function word, where the slip is no word and one edit from no word of the language
            # ("aawy"; but "bnder" may be a "binder")
            found = near(FUNCTION)
        return found[0] if len(found) == 1 else w

    def wh(m: re.Match) -> str:
        w = m.group(1)
        before = re.findall(r"[a-z']+|[^\sa-z']", text[:m.start()])
        if w in WH or w in CONTRACTED or (before and before[-1][0].isalpha() and before[-1] not in CLAUSE_OPENERS):
            return m.group(0)  # (a question word opens its clause: after "fetch", "dax's" is someone's)
        near = [x for x in WH if one_edit(w, x)]
        return near[0] + "'s" if len(near) == 1 else m.group(0)
    text = re.sub(r"\b([a-z]+)'s\b", wh, text)
    return re.sub(r"[a-z]+", fix, text)
