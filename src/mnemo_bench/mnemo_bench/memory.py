"""The long-term memory of the in-process stack: a fresh store for each run of a scenario."""
from __future__ import annotations

from typing import Any


def make_memory() -> Any:
    """A fresh in-process long-term memory: mnemo_memory over Qdrant's embedded engine (the
    deployment default) in a temporary directory removed when it is closed (or at exit), or None
    when mnemo_memory is not importable. (qdrant-client's local mode evaluates filters in Python:
    every task's memory query is filtered by the task's start clock, and it made the memory the
    benchmark's largest cost.)"""
    try:
        from mnemo_common.embedding import get_embedder
        from mnemo_memory.service import MemoryService
    except ImportError:
        return None
    import atexit
    import shutil
    import tempfile

    folder = tempfile.mkdtemp(prefix="mnemo_bench_memory_")
    atexit.register(shutil.rmtree, folder, True)  # (for a memory never closed)
    memory = MemoryService.open(get_embedder(), data_dir=folder)
    close = memory.close

    def close_and_remove() -> None:  # a suite opens one store per scenario and method: none outlives its run
        close()
        shutil.rmtree(folder, True)

    memory.close = close_and_remove
    return memory


def make_memory_available() -> bool:
    try:
        import mnemo_memory.service  # noqa: F401
    except ImportError:
        return False
    return True
