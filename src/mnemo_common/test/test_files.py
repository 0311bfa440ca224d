import os

from mnemo_common.files import fsync_dir


def test_fsync_dir_syncs_a_directory_and_skips_what_it_cannot_open(tmp_path, monkeypatch):
    synced = []
    real_fsync = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (synced.append(fd), real_fsync(fd)))
    fsync_dir(tmp_path)
    assert len(synced) == 1
    fsync_dir(tmp_path / "missing")  # no error: best effort
    assert len(synced) == 1
    before = len(os.listdir(f"/proc/{os.getpid()}/fd")) if os.path.isdir("/proc") else None
    fsync_dir(str(tmp_path))
    if before is not None:
        assert len(os.listdir(f"/proc/{os.getpid()}/fd")) == before  # the descriptor is closed again
