from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


@pytest.fixture
def tiny_path() -> Path:
    return HERE / "tiny_flat.yaml"


@pytest.fixture
def tiny(tiny_path):
    from mnemo_sim.scenario import load_scenario

    return load_scenario(tiny_path)


@pytest.fixture(scope="session")
def embedder():
    from mnemo_common.embedding import get_embedder

    return get_embedder()
