"""A full disk (a small tmpfs, filled): every store gives its caller a clear error, the process
keeps running, and nothing acknowledged before is lost or damaged once space is back. Needs
root to mount the tmpfs (skipped otherwise)."""
from __future__ import annotations

import os
import sqlite3
import subprocess
from pathlib import Path

import numpy as np
import pytest

from mnemo_common.files import require_free_space
from mnemo_common.types import KeyframeMeta, MnemoError, PropertyValue, Status

MB = 2**20


@pytest.fixture()
def disk(tmp_path):
    """A 256 MB tmpfs, and a way to fill it up (and free it again)."""
    root = tmp_path / "disk"
    root.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256m", "tmpfs", str(root)],
                      capture_output=True).returncode != 0:
        pytest.skip("cannot mount a tmpfs here (needs root)")

    class Disk:
        path = root
        filler = root / "filler"

        def fill(self, leave: int = 0) -> None:
            """Fill the disk up to ``leave`` bytes free."""
            with open(self.filler, "ab") as f:
                while True:
                    st = os.statvfs(root)
                    room = st.f_bavail * st.f_frsize - leave
                    if room <= 0:
                        return
                    try:
                        f.write(b"\0" * min(room, 4 * MB))
                        f.flush()
                    except OSError:
                        return

        def free(self) -> None:
            self.filler.unlink()

    try:
        yield Disk()
    finally:
        subprocess.run(["umount", "-l", str(root)], check=False)


def test_scene_graph_on_a_full_disk(disk):
    from mnemo_common.types import Observation, Pose2D, Pose3D, Sighting
    from mnemo_scene_graph.persistence import GraphStore

    store = GraphStore(disk.path)
    graph = store.load()
    store.attach(graph)
    graph.integrate_observation(Observation(stamp=1.0, robot_pose=Pose2D(0, 0), camera_pose=Pose3D(), room="kitchen",
                                            sightings=[Sighting("mug", (1.0, 2.0, 0.8), object_id="m1")]))
    store.flush()
    acknowledged = graph.to_dict()
    disk.fill()
    graph.update("mug_1", {"fullness": PropertyValue("empty" * 10000)})
    with pytest.raises(OSError):
        store.flush()
    assert GraphStore(disk.path).load().to_dict() == acknowledged  # the log is whole
    disk.free()
    assert store.flush() == 1
    assert GraphStore(disk.path).load().to_dict() == graph.to_dict()


def test_keyframes_on_a_full_disk(disk):
    from mnemo_keyframes.store import KeyframeStore
    from mnemo_keyframes.testing import textured

    store = KeyframeStore(disk.path)
    kept = [store.add(KeyframeMeta(id=f"k{i}", stamp=float(i), trigger="new_node"), textured(i % 3)) for i in range(5)]
    disk.fill()
    noise = np.random.default_rng(0).integers(0, 255, (480, 640, 3), dtype=np.uint8)  # does not compress
    with pytest.raises((OSError, sqlite3.OperationalError)) as caught:
        for i in range(50):
            store.add(KeyframeMeta(id=f"full{i}", stamp=10.0 + i, trigger="new_node"), noise)
    assert "space" in str(caught.value) or "full" in str(caught.value), caught.value
    assert [store.get(m.id).image_path for m in kept] == [m.image_path for m in kept]  # still serving
    disk.free()
    store.close()
    reopened = KeyframeStore(disk.path)
    for m in kept:
        got = reopened.get(m.id)
        assert got is not None and Path(got.image_path).is_file()


def test_memory_refuses_writes_before_the_disk_is_full(disk):
    """The embedded engine maps its files: a write into a full disk kills the process (SIGBUS).
    The memory node checks the free space first (min_free_mb) and answers UNAVAILABLE."""
    from mnemo_memory.store import open_store
    from mnemo_memory.testing import WordEmbedder, make_record

    embedder = WordEmbedder()
    store = open_store(disk.path / "data", "test-words", 64)
    ids = store.add([make_record(i, f"object {i} on a shelf", float(i), 0.1 * i, 0.0, embedder=embedder)
                     for i in range(20)])
    disk.fill(leave=32 * MB)
    with pytest.raises(MnemoError) as caught:
        require_free_space(disk.path / "data", 64 * MB, "the memory store")
    assert caught.value.code == Status.UNAVAILABLE and "disk full" in caught.value.message
    assert store.count() == 20  # still serving
    disk.free()
    store.close()
    reopened = open_store(disk.path / "data", "test-words", 64)
    assert reopened.count() == 20 and all(reopened.get(i) is not None for i in ids[:3])
    reopened.close()
