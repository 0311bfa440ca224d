"""How a request's words line up with the names the robot knows, before any meaning is weighed:
words normalised (lowercase, singular), slips of the keyboard mended against the known names, a name
that holds a function word run on past it, and the nouns that make a compound with a word."""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Sequence

from mnemo_planner.lexicon import lexicon
from mnemo_planner.function_words import STOPWORDS
from mnemo_planner.slips import one_edit
from mnemo_planner.words import singular


def words_of(phrase: str) -> list[str]:
    """The words of a phrase or a label, lower case, as written ("kitchen_table" -> kitchen, table)."""
    return re.findall(r"[a-z0-9]+", phrase.lower().replace("_", " "))


def norm(phrase: str) -> str:
    return " ".join(singular(w) for w in words_of(phrase))


def respell(words: Sequence[str], names: Sequence[str]) -> list[str]:
    """Each word that is no word of the language but one slip away from a word of the known names
    becomes that word ("the qourvo box" of a "quorvo box"); a word of three or four letters only for a
    dropped letter (or, of four, two neighbours swapped): one changed letter of a short word makes another
    word too often."""
    lex = lexicon()
    if not lex:
        return list(words)
    vocab = _vocabulary(tuple(names))
    out = []
    for w in words:
        if len(w) >= 3 and w not in vocab and not lex.knows(w):
            near = [v for v in vocab if one_edit(w, v) and (len(w) > 4 or len(v) > len(w) or sorted(v) == sorted(w))]
            w = near[0] if len(near) == 1 else w
        out.append(w)
    return out


@lru_cache(maxsize=256)
def _vocabulary(names: tuple[str, ...]) -> frozenset:
    """The words of three letters or more of the names (one set per list of names: the known labels
    change only when something new is seen, and every grounding asks)."""
    return frozenset(w for name in names for w in norm(name).split() if len(w) >= 3)


def run_on(phrase: str, thing: list[str], labels: Sequence[str]) -> list[str]:
    """``thing`` (a noun phrase's content words, cut at its first function word) run on to the end of
    a known name that holds a function word and that the sentence spells whole from one of its words
    ("the mauve dax up gizmo" names a "dax up gizmo", not a "mauve dax")."""
    words, mine = norm(phrase).split(), [singular(w) for w in thing]
    for lab in labels:
        name = norm(lab).split()
        if not set(name) & STOPWORDS or name[0] not in mine:
            continue
        if any(words[i:i + len(name)] == name for i in range(len(words) - len(name) + 1)):
            return thing[:mine.index(name[0])] + [w for w in name if w not in STOPWORDS]
    return thing


def compound(words: list[str], span: str, text: str = "") -> str:
    """``span`` with the nouns (no adjectives) right before it in ``words`` that stand right before it
    in ``text`` too (the words may have lost the function words between them)."""
    parts, plain = span.split(), f" {' '.join(re.findall(r'[a-z0-9]+', text.lower()))} "
    for i in range(len(words) - len(parts) + 1):
        if words[i:i + len(parts)] == parts:
            start = i
            while start > 0 and words[start - 1] not in STOPWORDS and lexicon().noun_only(words[start - 1]) \
                    and f" {' '.join(words[start - 1:i + len(parts)])} " in plain:
                start -= 1
            return " ".join(words[start:i] + parts)
    return span
