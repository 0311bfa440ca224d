import numpy as np
import pytest

from mnemo_common.embedding import EmbeddingModelError, OpenAIEmbedder, best_match, get_embedder
from mnemo_common.fake_openai import FakeOpenAI
from mnemo_common.types import Status


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


def test_a_missing_local_model_is_a_clear_error(tmp_path):
    """A configured model that is not installed: an error naming the setting and where it looked,
    never a download and never MiniLM in its place."""
    (tmp_path / "empty").mkdir()
    (tmp_path / "file").write_text("not a model")
    for model, where in ((str(tmp_path / "absent"), str(tmp_path / "absent")),
                         (str(tmp_path / "file"), str(tmp_path / "file")),
                         (str(tmp_path / "empty"), str(tmp_path / "empty")),
                         ("nobody/not-a-cached-model", "local Hugging Face cache (nothing is downloaded)")):
        with pytest.raises(EmbeddingModelError) as err:
            get_embedder("", model)
        assert err.value.code == Status.NOT_FOUND
        assert err.value.message.startswith(f"embedding_model {model!r}") and where in err.value.message
