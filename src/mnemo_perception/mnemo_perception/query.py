"""Open-vocabulary matching of a Detect query ("the red mug") against detections.

A detection matches when its label appears in the query (lexical), or when the query is close
in meaning to the detection's "<colour> <label>" text (embedding cosine >= threshold). A colour
word in the query must agree with the detection's measured colour either way: embeddings put
"red mug" and "blue mug" close together.
"""
from __future__ import annotations

import re
from typing import Sequence

from mnemo_common.types import Detection
from mnemo_perception.colors import COLOR_NAMES

_STOP = {"the", "a", "an", "some", "my", "any", "of", "please", "find", "detect", "look", "for"}
_COLOR_SYNONYMS = {"gray": "grey", "violet": "purple", "magenta": "pink", "beige": "brown", "tan": "brown",
                   "gold": "yellow", "golden": "yellow", "navy": "blue", "cyan": "blue", "teal": "blue"}


def tokens(text: str) -> list[str]:
    return [t for t in re.findall(r"[a-z0-9]+", text.lower().replace("_", " ")) if t not in _STOP]


def _singular(word: str) -> str:
    if len(word) > 3 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith(("ches", "shes", "xes", "sses")):
        return word[:-2]
    if len(word) > 2 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def query_colors(query: str) -> set[str]:
    names = set(COLOR_NAMES)
    return {_COLOR_SYNONYMS.get(t, t) for t in tokens(query) if _COLOR_SYNONYMS.get(t, t) in names}


def describe(detection: Detection) -> str:
    color = detection.attributes.get("color", "")
    return f"{color} {detection.label.replace('_', ' ')}".strip()


def lexical_match(query: str, label: str) -> bool:
    """Every word of the label appears (singular or plural) among the query's words."""
    words = {_singular(t) for t in tokens(query)}
    label_words = [_singular(t) for t in tokens(label)]
    return bool(label_words) and all(w in words for w in label_words)


def match_query(query: str, detections: Sequence[Detection], embedder=None,
                threshold: float = 0.55) -> list[tuple[Detection, float]]:
    """Detections matching the query with a score in [0, 1], best first. An empty query matches
    everything (score 1). ``embedder`` (mnemo_common.embedding) is used only when no detection
    matches lexically; None means lexical matching only."""
    if not query.strip():
        return [(d, 1.0) for d in detections]
    colors = query_colors(query)
    candidates = [d for d in detections if not colors or d.attributes.get("color") in colors]
    # Strip colour words before the label test so "red" never matches a label named "red ...".
    noun_query = " ".join(t for t in tokens(query) if _COLOR_SYNONYMS.get(t, t) not in COLOR_NAMES) or query
    matches = [(d, 1.0) for d in candidates if lexical_match(noun_query, d.label)]
    if matches or embedder is None or not candidates:
        return matches
    from mnemo_common.embedding import cosine

    sims = cosine(embedder.embed([query]), embedder.embed([describe(d) for d in candidates]))[0]
    scored = [(d, float(s)) for d, s in zip(candidates, sims) if s >= threshold]
    return sorted(scored, key=lambda pair: -pair[1])

