"""File-system durability helpers shared by the stores, and their error for a damaged file (pure
Python, no rclpy)."""
from __future__ import annotations

import json
import os
from pathlib import Path

from mnemo_common.types import MnemoError, Status


def fsync_dir(path: str | Path) -> None:
    """Flush a directory's entries (a rename or new file in it) to disk; best effort: a
    directory that cannot be opened or synced (some file systems, Windows) is skipped."""
    try:
        fd = os.open(str(path), os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


class CorruptFileError(MnemoError):
    """A store file that exists but cannot be read back. The store refuses to open rather than
    start empty or partial (which would look like a robot that forgot), and names the file."""

    def __init__(self, path: str | Path, why: str):
        super().__init__(Status.FAILED, f"{path} is corrupted or truncated ({why}); the store was not opened: "
                                        f"restore the file from a backup, or move the store away to start empty")
        self.path = Path(path)


def require_free_space(path: str | Path, min_free_bytes: int, what: str) -> None:
    """Raise UNAVAILABLE when the file system holding ``path`` has less than ``min_free_bytes``
    left: for a store that must not start a write it cannot finish (one that maps its files is
    killed by SIGBUS when a write lands on a full disk)."""
    st = os.statvfs(path)
    free = st.f_bavail * st.f_frsize
    if free < min_free_bytes:
        raise MnemoError(Status.UNAVAILABLE, f"disk full: {free / 2**20:.0f} MB free under {path}; {what} keeps "
                                             f"{min_free_bytes / 2**20:.0f} MB free and stores nothing until there is room")


def write_json_atomic(path: str | Path, data: dict) -> None:
    """Write JSON so that a reader sees either the old file or the complete new one: a synced temporary
    file renamed over it, the directory entry synced; a failed write (a full disk) leaves no half file."""
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(data, f, separators=(",", ":"))
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    fsync_dir(path.parent)
