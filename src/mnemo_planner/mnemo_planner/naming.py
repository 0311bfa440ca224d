"""How a name said meets a label by its letters and by the lexical database: the same words, a shared
head noun, a slip of the keyboard, a compound word, a word of a label's qualifier; synonyms and is-a
links that the embedding model may place far apart; compounds the database knows as a whole."""
from __future__ import annotations

from functools import lru_cache
from typing import Sequence

from mnemo_planner.function_words import STOPWORDS
from mnemo_planner.lexicon import lexicon
from mnemo_planner.slips import one_edit
from mnemo_planner.wording import norm, words_of

HEAD = 0.9  # score of a shared head noun
SIBLING = 0.5  # ... between a compound the lexicon knows and another kind of its head (too low to name a
# label alone: the embedding model judges the whole names)
MODIFIER = 0.8  # score of a one-word name that is a non-head word of a label
KIND = (0.85, 0.8, 0.65)  # score of names the lexicon relates: synonyms, one is-a link, two links
ALIKE = 0.45  # similarity by the embedding model at which two kinds of one head may be one thing (below,
# the lexicon's link between them names nothing: a "dax holder" is not every kind of holder)


def lexical(span: str, label: str) -> float:
    s, lab = norm(span).split(), norm(label).split()
    if not s or not lab:
        return 0.0
    if s == lab or "".join(s) == "".join(lab):  # (a compound written apart or joined: "gizmo box", "gizmobox")
        return 1.0
    if len(s) > 1 and s == [w for w in lab if w not in STOPWORDS]:
        return 1.0  # the name's words but its function word, which the request's words leave out
    if s[-1] == lab[-1]:  # (a one-word label elsewhere in the words only qualifies: a "gizmo stand")
        return HEAD
    if len(s) == len(lab) and all(a == b or (one_edit(a, b) and not lexicon().knows(a)) for a, b in zip(s, lab)) \
            and sum(len(a) for a in s) >= 5:
        return 0.95  # a slip of the keyboard (a word of the language is itself, never a slip of a neighbour)
    if len(s[-1]) >= 5 and one_edit(s[-1], lab[-1]) and not lexicon().knows(s[-1]):
        return HEAD - 0.05  # ... in the head of a longer name ("the mauve gizmoo")
    if len(s) == 1 and len(lab) == 1 and len(s[0]) >= 4 and lab[0].endswith(s[0]) and _word_before(lab[0][:-len(s[0])]):
        return HEAD  # "widget" ~ "boxwidget": the head of a compound word of two words ("idget" is none)
    if len(s) == 1 and s[0] in lab[:-1]:
        return MODIFIER  # "gizmo" ~ "gizmo crate": the label's head is what holds or carries the word
    return 0.0


def _word_before(prefix: str) -> bool:
    """Whether what precedes a word inside a compound word is a word itself (any, without the lexicon)."""
    lex = lexicon()
    return len(prefix) >= 2 and (not lex or lex.knows(prefix))


def known_compound(phrase: str) -> bool:
    """A name of several words that the lexical database knows as a whole."""
    senses, head_only = lexicon().meaning(phrase)
    return len(phrase.split()) > 1 and bool(senses) and not head_only


def known_pairs(words: Sequence[str]) -> list[tuple[str, str]]:
    """Each two neighbouring words that make a name the lexicon knows ("lemon curd"), in order."""
    return [(a, b) for a, b in zip(words, words[1:]) if known_compound(f"{a} {b}")]


def other_compound(s: list[str], lab: list[str]) -> bool:
    """Whether the words name a compound of their own that the lexical database knows and does not
    relate to the label with the same head (a "dax stand" and a "blick stand": two kinds of stand)."""
    if len(s) < 2 or set(s) <= set(lab):
        return False
    return known_compound(" ".join(s)) and lexicon().distance(" ".join(s), " ".join(lab)) is None


def noun_siblings(s: list[str], lab: list[str]) -> bool:
    """Whether the words and the label share their head and differ in the noun before it, a noun only on
    both sides (an adjective may describe the label's thing: a "mauve stand")."""
    if len(s) < 2 or len(lab) < 2 or s[-1] != lab[-1] or s[-2] in lab or lab[-2] in s:
        return False
    lex = lexicon()
    return lex.noun_only(s[-2]) and lex.noun_only(lab[-2])


def other_things(span: str, label: str) -> bool:
    """Whether the words and the label name two things the lexical database knows and does not relate:
    neither a kind of the other (within four is-a links) nor both kinds of one thing (an ancestor shared
    within three). A name only fairly near such a label by the embedding model names no other thing."""
    lex = lexicon()
    mine, theirs = lex.senses(span), lex.senses(norm(label))
    if not mine or not theirs or lexical(span, label) > 0 or lex.distance(span, norm(label), hops=4) is not None:
        return False
    return not set(lex.ancestors(mine, 3)) & set(lex.ancestors(theirs, 3))


@lru_cache(maxsize=65536)
def related(span: str, label: str) -> float:
    """Score of names the lexical database relates (two names of one thing, or one a kind of the
    other), which the embedding model may place far apart."""
    # (as written: the lexicon folds the last word's plural; "clothes" before it is no plural)
    d = lexicon().distance(" ".join(words_of(span)), " ".join(words_of(label)))
    return 0.0 if d is None else KIND[d]


def beside(span: str, label: str) -> bool:
    """Whether the lexicon relates the words to the label only as two kinds of one head: the words a name
    it knows by its head alone, the label a kind below that head (see ``Lexicon.beside``)."""
    return lexicon().beside(" ".join(words_of(span)), " ".join(words_of(label)))
