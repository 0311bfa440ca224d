"""The embedded store's directory besides its shards: the lock that keeps one writer per store,
the store's record (``meta.json``, ``model_record``), and the removal of a store that a copy was
still filling when it stopped (``reembed``)."""
from __future__ import annotations

import fcntl
import json
import os
import shutil
from pathlib import Path
from typing import IO

from mnemo_common.files import CorruptFileError, fsync_dir
from mnemo_common.types import MnemoError, Status

from mnemo_memory.model_record import UNFINISHED

META = "meta.json"


def take_lock(root: Path) -> IO:
    """The store's writer lock, holding this process's id; UNAVAILABLE while another holds it."""
    lock = open(root / "lock", "a+")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        lock.seek(0)
        holder = lock.read().strip()
        lock.close()
        raise MnemoError(Status.UNAVAILABLE,
                         f"memory store {root} is already open for writing by another process"
                         f"{f' (pid {holder})' if holder else ''}; one writer per store") from None
    lock.seek(0)
    lock.truncate()
    lock.write(str(os.getpid()))
    lock.flush()
    return lock


def release_lock(lock: IO) -> None:
    if not lock.closed:
        fcntl.flock(lock, fcntl.LOCK_UN)
        lock.close()


def read_meta(root: Path) -> dict:
    """The store's record; {} when there is none (a store not created yet)."""
    path = root / META
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        return {}
    except ValueError as exc:
        raise CorruptFileError(path, f"{type(exc).__name__}: {exc}") from exc


def discard_unfinished(root: Path) -> str:
    """Remove the store at ``root`` if a copy was filling it when it stopped: the copy's name, or ""
    (nothing removed). The directory is renamed away first, so a crash leaves no half-removed store."""
    copy = read_meta(root).get(UNFINISHED) if root.is_dir() else ""
    if not copy:
        return ""
    lock = take_lock(root)
    trash = root.with_name(f".{root.name}.discarded")
    try:
        shutil.rmtree(trash, ignore_errors=True)
        os.rename(root, trash)
        fsync_dir(root.parent)
    finally:
        release_lock(lock)
    shutil.rmtree(trash)
    return copy
