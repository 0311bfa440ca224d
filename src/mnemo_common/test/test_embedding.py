import numpy as np

from mnemo_common.embedding import OpenAIEmbedder, best_match, get_embedder
from mnemo_common.fake_openai import FakeOpenAI


def test_minilm_matches_paraphrases():
    e = get_embedder()
    assert e.dim == 384
    v = e.embed(["a red mug", "a red mug"])
    assert v.shape == (2, 384) and np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-4)
    labels = ["mug", "ketchup bottle", "sofa", "remote control"]
    assert labels[best_match("tomato sauce", labels)[0]] == "ketchup bottle"
    assert labels[best_match("the TV clicker", labels)[0]] == "remote control"


def test_openai_embedder_against_fake_server():
    with FakeOpenAI(embed_dim=16) as server:
        e = OpenAIEmbedder(server.base_url, "fake-embed")
        assert e.dim == 16
        rows = e.embed(["a", "b", "a"])
        assert rows.shape == (3, 16) and np.allclose(rows[0], rows[2])
