"""How words meet the attribute values a thing shows: spelled the same, named alike by the embedding
model, or one slip of the keyboard away."""
from __future__ import annotations

from typing import Any, Sequence

from mnemo_planner.slips import one_edit
from mnemo_planner.wording import norm
from mnemo_planner.words import singular

VALUE = 0.82  # similarity at which a word names an attribute value it does not spell


def values_of(e: Any) -> list[str]:
    """The entity's attribute values (its owner aside), normalised."""
    return [norm(str(v)) for k, v in e.attributes.items() if k != "owner"]


def word_in_values(sim: Any, word: str, values: Sequence[str]) -> bool:
    w = singular(word)
    if any(w == v or w in v.split() for v in values):
        return True
    if not values or len(w) < 3:
        return False
    return float(sim.matrix([w], list(values)).max()) >= VALUE


def slip_of(word: str, values: Sequence[str]) -> bool:
    """Whether the word is one slip of the keyboard from a word of the values (four letters or more)."""
    return len(word) >= 4 and any(one_edit(word, x) for v in values for x in v.split())
