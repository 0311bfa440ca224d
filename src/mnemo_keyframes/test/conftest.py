import pytest

from mnemo_keyframes.testing import WordEmbedder


@pytest.fixture
def embedder():
    return WordEmbedder()
