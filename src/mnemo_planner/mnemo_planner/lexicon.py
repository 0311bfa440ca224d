"""Names of things that the embedding model does not relate, from a lexical database: WordNet's noun
synonym sets and their is-a links, read from the database files that Debian's ``wordnet-base`` (and
every WordNet 3.x distribution) installs.

Only senses of physical things count (artifacts, food, natural objects, plants, substances: WordNet's
own lexicographer files), so a word's figurative senses relate nothing. Without the files the lexicon
is empty and every relation is None: grounding then relies on the embedding model alone.
"""
from __future__ import annotations

import os
import threading
from functools import lru_cache
from typing import Optional

from mnemo_planner.words import singular

DEFAULT_ROOT = "/usr/share/wordnet"
ENV = "MNEMO_WORDNET"  # a directory holding index.noun, data.noun and noun.exc; "" turns the lexicon off
PHYSICAL = {"06", "13", "17", "20", "27"}  # noun.artifact, noun.food, noun.object, noun.plant, noun.substance
TIME = "28"  # noun.time
HYPERNYM = ("@", "@i")
INFLECTIONS = ("s", "es", "d", "ed", "ing")  # regular endings of nouns and verbs
NOT_HEAD_FINAL = {"of", "and", "or", "with", "for", "in", "on", "to"}  # ("a box of gizmos" is a box)


class Lexicon:
    """Synsets of nouns and their hypernyms, read lazily from a WordNet database directory."""

    def __init__(self, root: str) -> None:
        self.root = root
        self._index: dict[str, tuple[int, ...]] = {}
        self._irregular: dict[str, str] = {}
        self._synsets: dict[int, tuple[str, tuple[int, ...]]] = {}
        self._glosses: dict[int, str] = {}
        self._data = None
        self._phrases: dict[str, frozenset] = {}  # multi-word lemmas per part of speech ("a_lot", "put_away")
        self._verb_forms: dict[str, str] = {}  # irregular verb forms and their lemma ("brought" -> "bring")
        self._adverbs: frozenset = frozenset()  # adverbs of one word ("back", "away", "down")
        self._lock = threading.Lock()  # (one file position, shared by the threads that ask)
        index = os.path.join(root, "index.noun")
        if not root or not os.path.isfile(index) or not os.path.isfile(os.path.join(root, "data.noun")):
            return
        with open(index, encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith(" "):
                    continue  # the licence header
                parts = line.split()
                try:
                    n = int(parts[2])
                except (IndexError, ValueError):
                    continue
                self._index[parts[0]] = tuple(int(o) for o in parts[-n:])
        exc = os.path.join(root, "noun.exc")
        if os.path.isfile(exc):
            with open(exc, encoding="utf-8", errors="replace") as f:
                for line in f:
                    parts = line.split()
                    if len(parts) >= 2:
                        self._irregular.setdefault(parts[0], parts[1])
        self._data = open(os.path.join(root, "data.noun"), "rb")
        self._other: set[str] = set()  # lemmas of the other parts of speech, and their irregular forms
        self._adjectives: set[str] = set()
        for pos in ("verb", "adj", "adv"):
            for name in (f"index.{pos}", f"{pos}.exc"):
                path = os.path.join(root, name)
                if os.path.isfile(path):
                    with open(path, encoding="utf-8", errors="replace") as f:
                        rows = [line.split() for line in f if line[:1] not in (" ", "\n")]
                    lemmas = {r[0] for r in rows}
                    self._other |= lemmas
                    if pos == "adj":
                        # an inflected form that is a noun of its own is read as the noun before another
                        # noun (the database lists some nouns ending in "-er" as comparatives)
                        self._adjectives |= lemmas if name.startswith("index.") else lemmas - self._index.keys()
                    if name == "verb.exc":
                        self._verb_forms.update((r[0], r[1]) for r in rows if len(r) >= 2)
                    elif name.startswith("index."):
                        self._phrases[pos] = frozenset(x for x in lemmas if "_" in x)
                        if pos == "adv":
                            self._adverbs = frozenset(x for x in lemmas if "_" not in x)

    def __bool__(self) -> bool:
        return bool(self._index)

    def _line(self, offset: int) -> str:
        """The line of data.noun that stores the synset at ``offset`` (its words, links, then "|" and gloss)."""
        with self._lock:
            self._data.seek(offset)
            return self._data.readline().decode("utf-8", "replace")

    def _synset(self, offset: int) -> tuple[str, tuple[int, ...]]:
        """(lexicographer file, hypernym offsets) of the synset stored at ``offset`` of data.noun."""
        if offset not in self._synsets:
            parts = self._line(offset).split("|")[0].split()
            words = int(parts[3], 16)
            at = 4 + 2 * words
            pointers = int(parts[at])
            ups = tuple(int(parts[at + 1 + 4 * i + 1]) for i in range(pointers)
                        if parts[at + 1 + 4 * i] in HYPERNYM)
            self._synsets[offset] = (parts[1], ups)
        return self._synsets[offset]

    def knows(self, word: str) -> bool:
        """Whether ``word`` is a word of the language (a noun, verb, adjective or adverb of the database,
        or a regular form of one): written as it is spelled, never a slip of another."""
        w = word.lower()
        stems = {w, self._irregular.get(w, w), singular(w)} | _stems(w, INFLECTIONS + ("er", "est", "ly"), 2)
        return any(f in self._index or f in self._other for f in stems)

    def adverb_phrases(self) -> frozenset:
        """The adverbs of several words ("a_lot", "right_away"), underscored as the database spells them."""
        return self._phrases.get("adv", frozenset())

    def adverb(self, word: str) -> bool:
        return word.lower() in self._adverbs

    def phrasal(self, verb: str, particle: str) -> bool:
        """Whether ``verb`` (any form) with ``particle`` is a verb of its own ("bring back", "put away")."""
        verbs = self._phrases.get("verb", ())
        w = verb.lower()
        stems = {w, self._verb_forms.get(w, w)} | _stems(w, INFLECTIONS, 1)
        return any(f"{x}_{particle.lower()}" in verbs for x in stems)

    def noun(self, word: str) -> bool:
        """Whether the word (or its singular) is a noun of the database."""
        w = word.lower()
        return any(f in self._index for f in (w, singular(w)))

    def of_time(self, word: str) -> bool:
        """Whether some sense of the noun is a span of time (the database's noun.time)."""
        w = word.lower()
        return any(self._synset(o)[0] == TIME for f in (w, singular(w)) for o in self._index.get(f, ()))

    def noun_only(self, word: str) -> bool:
        """A noun that is no adjective: before another noun, it makes a compound with it (a "plinth
        holder" is no kind of holder to judge by its head alone), where an adjective only qualifies."""
        return self.noun(word) and word.lower() not in self._adjectives

    def senses(self, phrase: str) -> tuple[int, ...]:
        """Synsets of physical things that the phrase (one or more words) names as a whole."""
        words = phrase.lower().replace("-", " ").split()
        if not words:
            return ()
        last = words[-1]
        for form in dict.fromkeys((last, self._irregular.get(last, last), singular(last))):
            key = "_".join(words[:-1] + [form])
            if key in self._index:
                return tuple(o for o in self._index[key] if self._synset(o)[0] in PHYSICAL)
        return ()

    def commonly_a_thing(self, word: str) -> bool:
        """Whether the commonest sense of the noun (the database lists senses by frequency) is a physical
        thing: a "pebble", not a word whose physical sense comes after another (a plant named like an act)."""
        w = word.lower()
        return any(self._synset(self._index[f][0])[0] in PHYSICAL for f in (w, singular(w)) if self._index.get(f))

    def definition(self, phrase: str) -> str:
        """What the dictionary says the phrase's commonest physical sense is (its gloss up to the first
        semicolon, without examples); "" where the database has no such sense of the whole phrase."""
        offsets = self.senses(phrase)
        if not offsets:
            return ""
        if offsets[0] not in self._glosses:
            line = self._line(offsets[0])
            self._glosses[offsets[0]] = line.split("|", 1)[1].split(";")[0].strip() if "|" in line else ""
        return self._glosses[offsets[0]]

    def ancestors(self, offsets: tuple[int, ...], hops: int) -> dict[int, int]:
        """Each synset up to ``hops`` is-a links above ``offsets``, with its distance."""
        out = {o: 0 for o in offsets}
        frontier = list(offsets)
        for d in range(1, hops + 1):
            nxt = []
            for o in frontier:
                for up in self._synset(o)[1]:
                    if up not in out:
                        out[up] = d
                        nxt.append(up)
            frontier = nxt
        return out

    def meaning(self, phrase: str) -> tuple[tuple[int, ...], int]:
        """The phrase's senses and 0; or, for a name of several words the database lacks, its head's
        (the last word: a "dax album" is an album) and 1, the link the name adds below its head."""
        whole = self.senses(phrase)
        words = phrase.lower().replace("-", " ").split()
        if whole or len(words) < 2 or not all(w.isalnum() for w in words) or set(words) & NOT_HEAD_FINAL:
            return whole, 0
        return self.senses(words[-1]), 1

    def kind_of(self, lower: str, upper: str, hops: int = 2) -> bool:
        """Whether what ``lower`` names is a kind of what ``upper`` names (or another name of it), within
        ``hops`` is-a links; never where ``upper`` is known by its head alone (a "dax gizmo" is one kind
        of gizmo, not every kind)."""
        (sl, xl), (su, xu) = self.meaning(lower), self.meaning(upper)
        if not sl or not su or xu:
            return False
        up = self.ancestors(sl, hops)
        return any(o in up and up[o] + xl <= hops for o in su)

    def beside(self, said: str, name: str, hops: int = 2) -> bool:
        """Whether the two are related only as a name the database knows by its head alone (a "dax
        holder") and a kind below that head (a gizmo, a kind of holder): two kinds of one thing, which may
        or may not be the same one, unlike a name whose thing is the head's or a kind above it."""
        (sa, xa), (sb, xb) = self.meaning(said), self.meaning(name)
        if not xa or xb or not sa or not sb:
            return False
        up, down = self.ancestors(sa, hops), self.ancestors(sb, hops)
        # (the name below the words' head within reach, and nowhere above it)
        return not any(o in up and up[o] + xa <= hops for o in sb) and \
            any(o in down and down[o] + xa <= hops for o in sa)

    def distance(self, a: str, b: str, hops: int = 2) -> Optional[int]:
        """Is-a links between what two phrases name (0: synonyms), up to ``hops``; None when
        unrelated or unknown. Only one direction counts per pair: one must be a kind of the other.
        At most one of the two may be known by its head alone (two kinds of one head are not alike).
        ``a`` is what was said and ``b`` the name it is matched against."""
        (sa, xa), (sb, xb) = self.meaning(a), self.meaning(b)
        if not sa or not sb or (xa and xb):
            return None
        best = None
        # a name ``b`` known by its head only lies somewhere below that head: ``a`` may name it by a word
        # above (a "dax gizmo" asked for as a holder), not by another kind of its head (a widget is no
        # "dax gizmo"); ``a``, the words said, may be the general one ("a dax holder" for a gizmo)
        for lower, upper in ((sa, sb), (sb, sa)) if not xb else ((sb, sa),):
            up = self.ancestors(lower, hops)
            for o in upper:
                if o in up and up[o] + xa + xb <= hops and (best is None or up[o] + xa + xb < best):
                    best = up[o] + xa + xb
        return best


def _stems(word: str, suffixes: tuple[str, ...], least: int) -> set[str]:
    """The stems a regular inflection of ``word`` may come from (a suffix off, an "e" restored, a doubled
    consonant undone), keeping more than ``least`` letters."""
    out: set[str] = set()
    for suffix in suffixes:
        if word.endswith(suffix) and len(word) > len(suffix) + least:
            stem = word[:-len(suffix)]
            out |= {stem, stem + "e"} | ({stem[:-1]} if len(stem) > 2 and stem[-1] == stem[-2] else set())
    return out


@lru_cache(maxsize=4)
def _load(root: str) -> Lexicon:
    return Lexicon(root)


def lexicon() -> Lexicon:
    """The process's lexicon, from ``$MNEMO_WORDNET`` or Debian's WordNet directory."""
    return _load(os.environ.get(ENV, DEFAULT_ROOT))
