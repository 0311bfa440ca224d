"""The benchmark's memory lives in a temporary store that goes when it is closed: a suite opens one
per scenario and method, and none may outlive its run."""
import tempfile

import pytest

from mnemo_bench.memory import make_memory, make_memory_available

pytestmark = pytest.mark.skipif(not make_memory_available(), reason="mnemo_memory is not importable")


def test_closing_the_memory_removes_its_store(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    memory = make_memory()
    folders = list(tmp_path.glob("mnemo_bench_memory_*"))
    assert len(folders) == 1 and any(folders[0].iterdir())  # (the store's files are there while it is open)
    memory.close()
    assert not folders[0].exists()
