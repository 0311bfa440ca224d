"""Words against names: cosine similarity of short texts through the embedding model (cached), and
each label's best-matching span of a phrase, judged by the same word, the same head, the lexicon's
kinds or the model."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from mnemo_planner.function_words import STOPWORDS
from mnemo_planner.naming import (ALIKE, HEAD, MODIFIER, SIBLING, beside, known_compound, lexical, noun_siblings,
                                  other_compound, related)
from mnemo_planner.wording import compound, norm, respell


def spans(words: Sequence[str], longest: int = 4) -> list[str]:
    out = []
    for i in range(len(words)):
        for j in range(i + 1, min(len(words), i + longest) + 1):
            out.append(" ".join(words[i:j]))
    return out


def _known_suffix(span: str) -> str:
    """The longest run of a span's last words, shorter than it, that the lexicon knows as a whole
    compound; the span itself when there is none."""
    words = span.split()
    for i in range(1, len(words) - 1):
        if known_compound(" ".join(words[i:])):
            return " ".join(words[i:])
    return span


SIM_DECIMALS = 6


class Similarity:
    """Cosine similarity of short texts through the embedding model, cached."""

    def __init__(self, embedder) -> None:
        self.embedder = embedder
        self._cache: dict[str, np.ndarray] = {}

    def vectors(self, texts: Sequence[str]) -> np.ndarray:
        missing = [t for t in dict.fromkeys(texts) if t not in self._cache]
        if missing:
            for t, v in zip(missing, np.asarray(self.embedder.embed(missing), dtype=np.float32)):
                self._cache[t] = v
        return np.stack([self._cache[t] for t in texts]) if texts else np.zeros((0, 1), np.float32)

    def matrix(self, a: Sequence[str], b: Sequence[str]) -> np.ndarray:
        """Cosine similarities, within [-1, 1] and to six decimals: a text's vector differs in its last bits
        with the texts it was embedded beside (a batch), so a text against itself may come out a hair above
        1 and tie-breaks between equal names would follow what was asked before."""
        if not a or not b:
            return np.zeros((len(a), len(b)), np.float32)
        return np.round(np.clip(self.vectors(a) @ self.vectors(b).T, -1.0, 1.0), SIM_DECIMALS)


@dataclass
class LabelMatch:
    label: str
    score: float
    span: str


def match_labels(sim: Similarity, words: Sequence[str], labels: Sequence[str],
                 noun_phrase: bool = False, text: str = "") -> list[LabelMatch]:
    """Each label with the best-matching span of ``words`` (spans end in a content word). Of a
    ``noun_phrase`` (the words after the verb, nothing else), only spans that end at its head, the last
    word: a "gizmo stand" is judged as a whole, never by its qualifier alone, even when no stand has
    been seen yet (a participle after the noun, "the gizmo lying there", is no head)."""
    words = respell(words, labels)
    cands = [s for s in spans(list(words)) if s.split()[-1] not in STOPWORDS]
    if noun_phrase and words and not words[-1].endswith(("ing", "ed")):
        cands = [s for s in cands if s.split()[-1] == words[-1]]
    labels = [lab for lab in dict.fromkeys(labels) if lab]
    if not cands or not labels:
        return []
    sims = sim.matrix(cands, [norm(lab) for lab in labels])
    whole = sim.matrix([" ".join(words)], [norm(lab) for lab in labels])[0] if noun_phrase and len(words) > 1 else None
    # the lexicon judges a span with the nouns before it (a "dax ledge" is not a ledge to judge by its head)
    with_nouns = {c: compound(list(words), c, text or " ".join(words) if noun_phrase else text) for c in cands}
    # a span inside a compound the lexicon knows names nothing alone ("the dax stand" is no "stand")
    inside = {c for c in cands for w in {with_nouns[c], _known_suffix(with_nouns[c])}
              if len(w.split()) > len(c.split()) and w in cands and known_compound(w)}
    # a compound the lexicon knows is another kind of its head than a label it does not relate, where it
    # relates some other label; else a shared head is the best evidence there is ("the dax bowl")
    kin = {c: any(related(with_nouns[c], lab) > 0 for lab in labels) for c in cands}
    # a span is judged as the compound it ends in, where the lexicon knows one ("the mauve dax stand" as
    # a "dax stand"): a word before it only qualifies it
    inner = {c: _known_suffix(c) for c in cands}
    kin.update({c: kin[c] or any(related(inner[c], lab) > 0 for lab in labels) for c in cands if inner[c] != c})
    row = {c: i for i, c in enumerate(cands)}

    def kind(name: str, j: int) -> float:
        """The lexicon's score of the name for label ``j``; nothing for two kinds of one head that the
        embedding model does not find alike as whole names (a "dax holder" for a gizmo, a kind of holder)."""
        score = related(name, labels[j])
        if score and beside(name, labels[j]):
            near = sims[row[name], j] if name in row else sim.matrix([name], [norm(labels[j])])[0, 0]
            return score if near >= ALIKE else 0.0
        return score

    out = []
    for j, lab in enumerate(labels):
        best = LabelMatch(lab, 0.0, "")
        for i, c in enumerate(cands):
            if c in inside:
                continue
            lex = lexical(c, lab)
            if lex == HEAD:
                said, name = norm(inner[c]).split(), norm(lab).split()
                if (kin[c] or noun_siblings(said, name)) and other_compound(said, name):
                    # ("the dax stand", a kind of holder, where a holder is known, or where "blick" of the
                    # blick stand is a noun too: two kinds of stand, and the model weighs the whole names)
                    lex = SIBLING
            if lex == MODIFIER and whole is not None and len(c.split()) < len(words):
                lex = min(lex, float(whole[j]))  # "the paper gizmos" are no "gizmo crate" unless alike as a whole
            score = max(lex, float(sims[i, j]))
            score = max(score, kind(with_nouns[c], j), kind(inner[c], j) if inner[c] != c else 0.0)
            if score > best.score or (score == best.score and len(c) > len(best.span)):
                best = LabelMatch(lab, score, c)
        out.append(best)
    return sorted(out, key=lambda m: (-m.score, m.label))
