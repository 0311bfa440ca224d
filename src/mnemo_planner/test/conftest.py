import pytest


@pytest.fixture(scope="session")
def embedder():
    from mnemo_common.embedding import get_embedder

    return get_embedder()
