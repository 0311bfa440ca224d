"""Shared fixtures: the bag-of-words embedder and both store backends."""
from __future__ import annotations

import pytest

from mnemo_memory.testing import WordEmbedder


@pytest.fixture
def embedder():
    return WordEmbedder()


@pytest.fixture(params=["edge", "client"])
def backend(request, tmp_path):
    """A factory opening a store of the parametrised backend at a fixed place in tmp_path."""
    from mnemo_memory.store import open_store

    def factory(model="test-words", dim=64):
        if request.param == "edge":
            return open_store(tmp_path / "data", model, dim)
        return open_store(url=f"path:{tmp_path / 'qdrant-local'}", model_name=model, dim=dim)

    factory.kind = request.param
    return factory
