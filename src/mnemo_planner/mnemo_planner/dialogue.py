"""The conversation across consecutive requests: what the previous one asked, what it found, and
where it searched, so that "bring it to me", "now the other one" and "now find the jam" continue it;
and where the robot stood and whether it held what it fetched. The planner node and the in-process
stack keep one and hand it to each task's policy."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Optional

from mnemo_planner.lexicon import lexicon
from mnemo_planner.slips import one_edit


@dataclass
class DialogueContext:
    window: float = 1200.0  # s: a request this soon after the previous one may continue it
    last: Optional[dict] = None

    def remember(self, **state: Any) -> None:
        self.last = dict(state)

    def recent(self, now: float) -> Optional[dict]:
        if self.last is None:
            return None
        gap = now - float(self.last.get("start", -1e18))
        return self.last if 0.0 <= gap <= self.window else None


# a request that opens with a connective of sequence or addition continues the one before ("and then
# the dax", "after that, ..."), after an interjection or thanks if any: closed classes of English words,
# none of them about things or places
CONNECTIVES = ("and", "also", "then", "next", "now", "afterwards", "after that", "after this", "plus", "besides",
               "additionally", "one more thing", "another thing", "once that's done", "when that's done",
               "while you're at it", "as well")
OPENERS = {"oh", "ok", "okay", "right", "alright", "great", "good", "cool", "thanks", "thank", "you", "so", "well",
           "perfect", "lovely", "nice"}


# ... or holds an adverb of addition or sequence where it stands ("you might also grab the dax", "the dax
# too", "the dax next": "next" before no noun, and not "next to")
ADDING = re.compile(r"\balso\b|\b(?:too|as well)\s*(?:[,.;:!?]|$)|\bnext\b(?:\s+([a-z]+))?")


def continues(text: str) -> bool:
    """Whether ``text`` opens with a connective (a slip in one of its words of five letters or more
    forgiven: a word that is no word of the language, one edit from the connective's), or says that it adds
    to what was asked before."""
    words = re.findall(r"[a-z']+", text.lower())
    while words and words[0] in OPENERS:
        words = words[1:]
    return any(len(words) >= len(c.split()) and all(
        a == b or (len(b) >= 5 and one_edit(a, b) and not lexicon().knows(a)) for a, b in zip(words, c.split()))
        for c in CONNECTIVES) or any(
        not m.group(0).startswith("next") or not m.group(1) or (m.group(1) != "to" and not lexicon().noun(m.group(1)))
        for m in ADDING.finditer(text.lower()))
