"""Words of an instruction that belong to an idiom, not to the thing asked for: the particle of a
verb of several words ("bring the gizmo back", "put the dax away"), a verb made of a verb and a noun
("frob blick"), and an adverb of several words in a clause that holds nothing but function words
besides; and a last clause of thanks after a comma. All are read from the lexical database's verbs,
adverbs and nouns, so no idiom is listed here; without the database the text is left as it is."""
from __future__ import annotations

import re

from mnemo_planner.lexicon import lexicon

# words after which a word is a noun or its qualifier, not a particle ("at the back", "my back")
NOUN_BEFORE = {"a", "an", "the", "my", "our", "your", "his", "their", "its", "some", "any", "at", "on", "in",
               "from", "by", "to", "of", "into", "onto", "near", "under", "inside", "beside", "with", "for"}
# words after which two words are a noun and what qualifies it ("the dax stand"), never a verb and its object
DETERMINERS = {"a", "an", "the", "my", "our", "your", "his", "her", "their", "its", "some", "any", "this", "that",
               "these", "those"}
# prepositions (a closed class): before a noun phrase they open a place phrase, not a verb's particle
PREPOSITIONS = {"after", "before", "behind", "about", "across", "along", "around", "round", "through", "past", "by",
                "over", "under", "up", "down", "off", "out", "in", "on", "into", "onto", "to", "for", "with", "near",
                "beside", "between", "below", "above", "beneath", "within", "inside", "outside", "towards", "toward"}
CLAUSE = re.compile(r"[^,;.!?]+")
# words that open or stand for a noun phrase, or ask: a last clause with one of them is part of the request
REFERRING = DETERMINERS | {"it", "them", "me", "us", "one", "ones", "something", "anything", "what", "where",
                           "which", "when", "who", "how", "not"}
LAST_CLAUSE = re.compile(r",\s*([a-z' \-]+?)\s*([.!?]*)\s*$")
TOKEN = re.compile(r"[a-z][a-z'\-]*")


def plain(s: str, function_words: frozenset | set) -> str:
    """``s`` (lower case) with the particles of its verbs blanked, and the adverbs of several words of
    clauses that hold nothing else but function words."""
    lex = lexicon()
    if not lex:
        return s
    return CLAUSE.sub(lambda m: _clause(m.group(0), lex, function_words), s)


def _clause(text: str, lex, function_words) -> str:
    tokens = list(TOKEN.finditer(text))
    words = [t.group(0) for t in tokens]
    idiom = _adverbs(words, lex.adverb_phrases())
    # (an adverb in a clause that describes nothing else: courtesy)
    drop = idiom if idiom and all(i in idiom or w in function_words for i, w in enumerate(words)) else set()
    def particle(i: int) -> bool:  # an adverb that makes a verb of several words with a verb before it
        return lex.adverb(words[i]) and any(lex.phrasal(v, words[i]) for v in words[:i])

    drop |= _verb_and_noun(words, lex, function_words)
    for i in range(len(words) - 1, 0, -1):  # (from the end: "back down" is a run of two particles)
        w, before, after = words[i], words[i - 1], words[i + 1] if i + 1 < len(words) else ""
        if (w in function_words and w not in PREPOSITIONS) or before in NOUN_BEFORE:
            continue  # "at the back": a noun after a determiner or a preposition
        if after and i + 1 not in drop and (after not in function_words or (w in PREPOSITIONS and after in NOUN_BEFORE)):
            continue  # "the back cushion": a word that qualifies the next one; "down the stairs": a place
        if particle(i):
            drop.add(i)
    if not drop:
        return text
    out = list(text)
    for i in drop:
        out[tokens[i].start():tokens[i].end()] = " " * (tokens[i].end() - tokens[i].start())
    return "".join(out)


def _adverbs(words: list[str], phrases: frozenset) -> set[int]:
    """Positions of the words that make up adverbs of several words."""
    out: set[int] = set()
    for n in (4, 3, 2):
        for i in range(len(words) - n + 1):
            if "_".join(words[i:i + n]) in phrases:
                out |= set(range(i, i + n))
    return out


def _verb_and_noun(words: list[str], lex, function_words) -> set[int]:
    """Positions of a verb and the noun after it that together are a verb of the database ("I need to
    frob blick": no blick is wanted); not after a determiner, where the two are a thing and what
    qualifies it ("the frob blick")."""
    out: set[int] = set()
    for i in range(1, len(words)):
        w = words[i]
        if lex.noun(w) and w not in function_words and w not in PREPOSITIONS and not lex.adverb(w) and \
                (i < 2 or words[i - 2] not in DETERMINERS) and lex.phrasal(words[i - 1], w):
            out |= {i - 1, i}
    return out


def without_closing(s: str) -> str:
    """``s`` without a last clause of at most three words after a comma that neither names nor asks for
    anything (no determiner, pronoun or question word, no word whose commonest sense is a physical thing): a
    closing word of thanks or a name ("..., many thanks", "..., Sam"), no part of what is asked."""
    m = LAST_CLAUSE.search(s)
    words = set(TOKEN.findall(m.group(1))) if m else set()
    lex = lexicon()
    if not m or not lex or len(words) > 3 or words & REFERRING or any(lex.commonly_a_thing(w) for w in words):
        return s
    return s[:m.start()] + m.group(2) + " "
