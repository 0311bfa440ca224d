"""File-system durability helpers shared by the stores, and their error for a damaged file (pure
Python, no rclpy)."""
from __future__ import annotations

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
