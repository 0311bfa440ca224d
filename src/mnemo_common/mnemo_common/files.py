"""File-system durability helpers shared by the stores (pure Python, no rclpy)."""
from __future__ import annotations

import os
from pathlib import Path


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
