import numpy as np
import pytest

from mnemo_common.types import Detection
from mnemo_perception.query import lexical_match, match_query, query_colors


def det(label, color):
    return Detection(label=label, score=1.0, attributes={"color": color})


DETS = [det("mug", "red"), det("mug", "blue"), det("coffee_table", "brown"), det("apple", "green"),
        det("book", "blue")]


class TableEmbedder:
    """A deterministic stand-in: texts in the same synonym group embed to the same unit vector."""

    GROUPS = [{"cup", "mug", "red mug", "blue mug", "red cup"}, {"fruit", "apple", "green apple"},
              {"novel", "book", "blue book"}]
    dim = 32

    def __init__(self):
        self.others: dict[str, int] = {}

    def embed(self, texts):
        out = np.zeros((len(texts), self.dim), np.float32)
        for i, t in enumerate(texts):
            g = next((k for k, grp in enumerate(self.GROUPS) if t in grp), None)
            out[i, g if g is not None else self.others.setdefault(t, len(self.GROUPS) + len(self.others))] = 1.0
        return out


def labels(matches):
    return [(d.label, d.attributes["color"]) for d, _ in matches]


def test_empty_query_returns_everything():
    assert len(match_query("", DETS)) == len(DETS)


def test_lexical_with_colour_constraint():
    assert labels(match_query("the red mug", DETS)) == [("mug", "red")]
    assert labels(match_query("mugs", DETS)) == [("mug", "red"), ("mug", "blue")]
    assert labels(match_query("coffee table", DETS)) == [("coffee_table", "brown")]
    assert labels(match_query("blue things", DETS)) == []
    assert labels(match_query("gray mug", DETS)) == []
    assert query_colors("a Gray and red cup") == {"grey", "red"}
    assert lexical_match("boxes", "box") and not lexical_match("table", "coffee_table")


def test_semantic_match_through_embedder_respects_colour():
    e = TableEmbedder()
    assert labels(match_query("cup", DETS, e)) == [("mug", "red"), ("mug", "blue")]
    assert labels(match_query("red cup", DETS, e)) == [("mug", "red")]
    assert labels(match_query("fruit", DETS, e)) == [("apple", "green")]
    assert match_query("cup", DETS, None) == []
    assert match_query("spaceship", DETS, e) == []


@pytest.mark.slow
def test_minilm_relates_cup_to_mug():
    from mnemo_common.embedding import get_embedder

    matches = match_query("cup", [det("mug", "red"), det("sofa", "grey")], get_embedder(), threshold=0.4)
    assert labels(matches) == [("mug", "red")]
