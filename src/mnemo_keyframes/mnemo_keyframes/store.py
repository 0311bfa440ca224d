"""Crash-safe keyframe store: image files on disk, metadata in SQLite.

Layout under ``<data_dir>/keyframes/``: ``images/<id>.jpg`` (full resolution; ``.png`` when lossless
is asked for: about 50 times slower to write), ``thumbs/<id>.jpg`` and
``keyframes.db`` (WAL mode). Image files are written first (temporary file, fsync, atomic rename),
then the metadata row is committed, so a crash can leave an orphan file but never a row pointing at
a missing image; opening the store removes both kinds of leftovers. A database that fails SQLite's
check, or is gone while images remain, stops the open with CorruptFileError naming it.

Every path the store hands out or reads is resolved inside its root: ids are restricted to a safe
alphabet, so no request can make the store read or write outside ``<data_dir>/keyframes``.
"""
from __future__ import annotations

import json
import os
import re
import sqlite3
import threading
import uuid
from dataclasses import replace
from pathlib import Path
from typing import Iterable, Optional, Sequence

import numpy as np
from PIL import Image

from mnemo_common.files import CorruptFileError, fsync_dir
from mnemo_common.types import KeyframeMeta, Pose2D, invalid, not_found

ID_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]{0,127}$")
INTERACTION_TRIGGERS = ("interaction_before", "interaction_during", "interaction_after", "interaction_key")
PERCEPTION_TRIGGERS = ("new_node", "updated_node")
TRIGGERS = PERCEPTION_TRIGGERS + INTERACTION_TRIGGERS
MAX_PENDING_TAGS = 1000
MAX_TEXT = 512  # longest tag, label or caption stored

_SCHEMA = """
CREATE TABLE IF NOT EXISTS keyframes (
  id TEXT PRIMARY KEY, stamp REAL NOT NULL, run_id TEXT, camera TEXT, trigger TEXT NOT NULL, action TEXT,
  parent_id TEXT, node_ids TEXT, pose_x REAL, pose_y REAL, pose_yaw REAL, tags TEXT, labels TEXT,
  caption TEXT, image TEXT NOT NULL, thumbnail TEXT NOT NULL, score REAL DEFAULT 0);
CREATE INDEX IF NOT EXISTS keyframes_stamp ON keyframes(stamp);
CREATE INDEX IF NOT EXISTS keyframes_trigger ON keyframes(trigger, stamp);
CREATE TABLE IF NOT EXISTS keyframe_nodes (keyframe_id TEXT NOT NULL, node_id TEXT NOT NULL,
  PRIMARY KEY (keyframe_id, node_id));
CREATE INDEX IF NOT EXISTS keyframe_nodes_node ON keyframe_nodes(node_id);
CREATE TABLE IF NOT EXISTS keyframe_terms (keyframe_id TEXT NOT NULL, term TEXT NOT NULL,
  PRIMARY KEY (keyframe_id, term));
CREATE INDEX IF NOT EXISTS keyframe_terms_term ON keyframe_terms(term);
CREATE TABLE IF NOT EXISTS pending_tags (keyframe_id TEXT PRIMARY KEY, tags TEXT, caption TEXT,
  is_key INTEGER, created INTEGER);
"""

_COLUMNS = ("id, stamp, run_id, camera, trigger, action, parent_id, node_ids, pose_x, pose_y, pose_yaw, "
            "tags, labels, caption, image, thumbnail, score")


def check_id(keyframe_id: str) -> str:
    """A keyframe id safe to use as a file name; raises INVALID_ARGUMENT otherwise."""
    if not isinstance(keyframe_id, str) or not ID_PATTERN.match(keyframe_id) or ".." in keyframe_id:
        raise invalid(f"invalid keyframe id {keyframe_id!r}: use 1-128 characters of [A-Za-z0-9_.-], no '..'")
    return keyframe_id


def safe_id(text: str) -> str:
    """Turn any text (an interaction id, say) into a valid keyframe id component."""
    cleaned = re.sub(r"[^A-Za-z0-9_\-]", "_", str(text)).strip("_") or "x"
    return cleaned[:96]


def _clean_texts(values: Iterable[str]) -> list[str]:
    out: list[str] = []
    for v in values:
        s = str(v).strip()[:MAX_TEXT]
        if s and s not in out:
            out.append(s)
    return out


def _atomic_save(image: Image.Image, dest: Path, fmt: str, durable: bool = True, **save_kwargs) -> None:
    tmp = dest.with_name(f".{dest.name}.{uuid.uuid4().hex[:8]}.tmp")
    try:
        with open(tmp, "wb") as f:
            image.save(f, format=fmt, **save_kwargs)
            f.flush()
            if durable:
                os.fsync(f.fileno())
        os.replace(tmp, dest)
    finally:
        if tmp.exists():
            tmp.unlink()


class KeyframeStore:
    """Keyframe images plus searchable metadata. Thread-safe (one lock around SQLite)."""

    def __init__(self, data_dir: str | Path, thumbnail_size: tuple[int, int] = (160, 120),
                 image_format: str = "jpg", run_id: str = "", durable: bool = True):
        if image_format not in ("png", "jpg"):
            raise ValueError(f"image_format must be png or jpg, got {image_format!r}")
        self.root = (Path(data_dir) / "keyframes").resolve()
        self._root_str = str(self.root)
        self.images_dir = self.root / "images"
        self.thumbs_dir = self.root / "thumbs"
        self.images_dir.mkdir(parents=True, exist_ok=True)
        self.thumbs_dir.mkdir(parents=True, exist_ok=True)
        self.thumbnail_size = (int(thumbnail_size[0]), int(thumbnail_size[1]))
        self.image_format = image_format
        self.run_id = run_id
        self.durable = durable  # fsync files and directories (off only for benchmarks and bulk imports)
        self._lock = threading.RLock()
        self._db = self._open_db(self.root / "keyframes.db")
        self.recovered = self._recover()

    def _open_db(self, path: Path) -> sqlite3.Connection:
        """The metadata database, checked: a damaged or lost one raises CorruptFileError (opening
        anyway would start an empty store and drop every image as an orphan)."""
        if not path.exists() and any(self.images_dir.iterdir()):
            raise CorruptFileError(path, "missing, while images are stored")
        db = sqlite3.connect(str(path), check_same_thread=False)
        try:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            check = db.execute("PRAGMA quick_check").fetchone()[0]
            if check != "ok":
                raise CorruptFileError(path, f"integrity check: {check}")
            db.executescript(_SCHEMA)
            db.commit()
        except (sqlite3.DatabaseError, CorruptFileError) as exc:
            db.close()
            raise exc if isinstance(exc, CorruptFileError) else CorruptFileError(path, f"SQLite: {exc}") from exc
        return db

    # -- paths ---------------------------------------------------------------------
    def path_in_store(self, relative: str | Path) -> Path:
        """Resolve a stored path; raises INVALID_ARGUMENT when it would leave the store."""
        path = (self.root / relative).resolve()
        if path != self.root and self.root not in path.parents:
            raise invalid(f"path {str(relative)!r} is outside the keyframe store")
        return path

    def _stored_path(self, relative: str) -> str:
        """Absolute path of a stored relative path, checked without touching the disk (rows are read
        often); ``path_in_store`` resolves links too, before a file is opened."""
        if relative.startswith(("/", "\\")) or ".." in relative.replace("\\", "/").split("/"):
            raise invalid(f"path {relative!r} is outside the keyframe store")
        return f"{self._root_str}/{relative}"

    def _relative(self, directory: Path, keyframe_id: str, ext: str) -> str:
        return str((directory / f"{keyframe_id}.{ext}").relative_to(self.root))

    # -- recovery ------------------------------------------------------------------
    def _recover(self) -> dict[str, int]:
        """Drop rows whose image is missing and files no row refers to (leftovers of a crash)."""
        with self._lock:
            rows = self._db.execute("SELECT id, image, thumbnail FROM keyframes").fetchall()
            referenced: set[Path] = set()
            dropped = 0
            for kf_id, image, thumb in rows:
                try:
                    image_path, thumb_path = self.path_in_store(image), self.path_in_store(thumb)
                    ok = image_path.is_file() and thumb_path.is_file()
                except Exception:  # noqa: BLE001 - a corrupt row is dropped like a missing image
                    ok = False
                if ok:
                    referenced.update((image_path, thumb_path))
                else:
                    self._delete_row(kf_id)
                    dropped += 1
            self._db.commit()
            orphans = 0
            for directory in (self.images_dir, self.thumbs_dir):
                for f in directory.iterdir():
                    if f.is_file() and f.resolve() not in referenced:
                        f.unlink()
                        orphans += 1
            return {"dropped_rows": dropped, "orphan_files": orphans}

    def _delete_row(self, keyframe_id: str) -> None:
        self._db.execute("DELETE FROM keyframes WHERE id=?", (keyframe_id,))
        self._db.execute("DELETE FROM keyframe_nodes WHERE keyframe_id=?", (keyframe_id,))
        self._db.execute("DELETE FROM keyframe_terms WHERE keyframe_id=?", (keyframe_id,))

    # -- writing -------------------------------------------------------------------
    def add(self, meta: KeyframeMeta, rgb: np.ndarray) -> KeyframeMeta:
        """Save an HxWx3 uint8 image with its metadata; returns the stored metadata (paths filled)."""
        rgb = np.asarray(rgb)
        if rgb.ndim != 3 or rgb.shape[2] != 3 or rgb.size == 0:
            raise invalid(f"keyframe image must be HxWx3, got shape {rgb.shape}")
        image = Image.fromarray(rgb.astype(np.uint8, copy=False), "RGB")
        return self._add_image(meta, image)

    def add_from_file(self, meta: KeyframeMeta, source: str | Path) -> KeyframeMeta:
        """Save a keyframe from an image file (a simulator or camera frame on disk)."""
        src = Path(source)
        if src.suffix.lower() not in (".png", ".jpg", ".jpeg"):
            raise invalid(f"frame {str(source)!r} is not a PNG or JPEG file")
        try:
            # Check the signature first: a library may patch Image.open to react to unidentified
            # files (ultralytics tries to install a HEIF plugin), which must never happen here.
            with open(src, "rb") as fh:
                head = fh.read(8)
            if not (head.startswith(b"\x89PNG\r\n\x1a\n") or head.startswith(b"\xff\xd8\xff")):
                raise ValueError("not a PNG or JPEG image")
            with Image.open(src, formats=["PNG", "JPEG"]) as im:
                image = im.convert("RGB")
        except (OSError, ValueError) as exc:
            raise not_found(f"cannot read frame {str(source)!r}: {exc}") from exc
        return self._add_image(meta, image)

    def _add_image(self, meta: KeyframeMeta, image: Image.Image) -> KeyframeMeta:
        kf_id = check_id(meta.id) if meta.id else f"kf-{uuid.uuid4().hex[:16]}"
        if meta.trigger not in TRIGGERS:
            raise invalid(f"unknown keyframe trigger {meta.trigger!r}; expected one of {', '.join(TRIGGERS)}")
        ext = "png" if self.image_format == "png" else "jpg"
        image_rel = self._relative(self.images_dir, kf_id, ext)
        thumb_rel = self._relative(self.thumbs_dir, kf_id, "jpg")
        thumb = image.copy()
        thumb.thumbnail(self.thumbnail_size)
        with self._lock:
            if self._db.execute("SELECT 1 FROM keyframes WHERE id=?", (kf_id,)).fetchone():
                raise invalid(f"keyframe {kf_id!r} already exists")
        # Files first, then the row: a crash between the two leaves only an orphan file.
        if self.image_format == "png":
            _atomic_save(image, self.root / image_rel, "PNG", self.durable, compress_level=1)
        else:
            _atomic_save(image, self.root / image_rel, "JPEG", self.durable, quality=92)
        _atomic_save(thumb, self.root / thumb_rel, "JPEG", self.durable, quality=85)
        if self.durable:
            fsync_dir(self.images_dir)
            fsync_dir(self.thumbs_dir)
        stored = replace(meta, id=kf_id, run_id=meta.run_id or self.run_id,
                         node_ids=_clean_texts(meta.node_ids), tags=_clean_texts(meta.tags),
                         labels=_clean_texts(meta.labels), caption=str(meta.caption)[:MAX_TEXT * 4],
                         image_path=image_rel, thumbnail_path=thumb_rel)
        with self._lock:
            pending = self._db.execute("SELECT tags, caption, is_key FROM pending_tags WHERE keyframe_id=?",
                                       (kf_id,)).fetchone()
            if pending is not None:
                stored.tags = _clean_texts(stored.tags + json.loads(pending[0]))
                stored.caption = pending[1] or stored.caption
                if pending[2] and stored.trigger in INTERACTION_TRIGGERS:
                    stored.trigger = "interaction_key"
                self._db.execute("DELETE FROM pending_tags WHERE keyframe_id=?", (kf_id,))
            pose = stored.robot_pose
            self._db.execute(
                f"INSERT INTO keyframes ({_COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (kf_id, float(stored.stamp), stored.run_id, stored.camera, stored.trigger, stored.action,
                 stored.parent_id, json.dumps(stored.node_ids),
                 None if pose is None else pose.x, None if pose is None else pose.y,
                 None if pose is None else pose.yaw, json.dumps(stored.tags), json.dumps(stored.labels),
                 stored.caption, image_rel, thumb_rel, float(stored.score)))
            self._write_index(kf_id, stored.node_ids, stored.labels + stored.tags)
            self._db.commit()
        return self._absolute(stored)

    def _write_index(self, kf_id: str, node_ids: Sequence[str], terms: Sequence[str]) -> None:
        self._db.executemany("INSERT OR IGNORE INTO keyframe_nodes VALUES (?,?)", [(kf_id, n) for n in node_ids])
        self._db.executemany("INSERT OR IGNORE INTO keyframe_terms VALUES (?,?)",
                             [(kf_id, t.lower()) for t in terms])

    def link(self, keyframe_id: str, node_ids: Sequence[str] = (), labels: Sequence[str] = ()) -> KeyframeMeta:
        """Add scene-graph nodes and labels to an existing keyframe."""
        with self._lock:
            meta = self.get(keyframe_id)
            if meta is None:
                raise not_found(f"no keyframe {keyframe_id!r}")
            meta.node_ids = _clean_texts(meta.node_ids + list(node_ids))
            meta.labels = _clean_texts(meta.labels + list(labels))
            self._db.execute("UPDATE keyframes SET node_ids=?, labels=? WHERE id=?",
                             (json.dumps(meta.node_ids), json.dumps(meta.labels), keyframe_id))
            self._write_index(keyframe_id, meta.node_ids, meta.labels)
            self._db.commit()
            return meta

    def tag(self, keyframe_ids: Sequence[str], tags: Sequence[str] = (), caption: str = "",
            key_frame_id: str = "") -> int:
        """Attach analyzer labels (and a caption) to keyframes; mark the most informative frame.

        Ids not stored yet are remembered and applied when that keyframe arrives (the analyzer can
        be faster than the keyframe saver). Returns how many stored keyframes were updated."""
        ids = [check_id(i) for i in keyframe_ids]
        if key_frame_id:
            check_id(key_frame_id)
            if key_frame_id not in ids:
                ids.append(key_frame_id)
        tags = _clean_texts(tags)
        caption = str(caption)[:MAX_TEXT * 4]
        updated = 0
        with self._lock:
            for kf_id in ids:
                is_key = kf_id == key_frame_id
                row = self._db.execute("SELECT tags, caption, trigger FROM keyframes WHERE id=?", (kf_id,)).fetchone()
                if row is None:
                    self._remember_pending(kf_id, tags, caption, is_key)
                    continue
                merged = _clean_texts(json.loads(row[0]) + tags)
                trigger = "interaction_key" if is_key and row[2] in INTERACTION_TRIGGERS else row[2]
                self._db.execute("UPDATE keyframes SET tags=?, caption=?, trigger=? WHERE id=?",
                                 (json.dumps(merged), caption or row[1], trigger, kf_id))
                self._write_index(kf_id, (), tags)
                updated += 1
            self._db.commit()
        return updated

    def _remember_pending(self, kf_id: str, tags: list[str], caption: str, is_key: bool) -> None:
        row = self._db.execute("SELECT tags, caption, is_key FROM pending_tags WHERE keyframe_id=?", (kf_id,)).fetchone()
        if row is not None:
            tags = _clean_texts(json.loads(row[0]) + tags)
            caption = caption or row[1]
            is_key = is_key or bool(row[2])
        self._db.execute("INSERT OR REPLACE INTO pending_tags VALUES (?,?,?,?,?)",
                         (kf_id, json.dumps(tags), caption, int(is_key), int(uuid.uuid1().time)))
        self._db.execute("DELETE FROM pending_tags WHERE keyframe_id NOT IN "
                         "(SELECT keyframe_id FROM pending_tags ORDER BY created DESC LIMIT ?)", (MAX_PENDING_TAGS,))

    # -- reading -------------------------------------------------------------------
    def _absolute(self, meta: KeyframeMeta) -> KeyframeMeta:
        meta.image_path = self._stored_path(meta.image_path)
        meta.thumbnail_path = self._stored_path(meta.thumbnail_path)
        return meta

    def _from_row(self, row: tuple) -> KeyframeMeta:
        (kf_id, stamp, run_id, camera, trigger, action, parent_id, node_ids, px, py, pyaw, tags, labels,
         caption, image, thumb, score) = row
        return self._absolute(KeyframeMeta(
            id=kf_id, stamp=stamp, trigger=trigger, image_path=image, thumbnail_path=thumb, run_id=run_id or "",
            camera=camera or "", action=action or "", parent_id=parent_id or "", node_ids=json.loads(node_ids),
            robot_pose=None if px is None else Pose2D(px, py, pyaw), tags=json.loads(tags),
            labels=json.loads(labels), caption=caption or "", score=score or 0.0))

    def _select(self, where: str = "", params: Sequence = (), limit: int = 0, order: str = "stamp DESC") -> list[KeyframeMeta]:
        sql = f"SELECT {_COLUMNS} FROM keyframes k {('WHERE ' + where) if where else ''} ORDER BY {order}"
        if limit > 0:
            sql += f" LIMIT {int(limit)}"
        with self._lock:
            return [self._from_row(r) for r in self._db.execute(sql, tuple(params)).fetchall()]

    def get(self, keyframe_id: str) -> Optional[KeyframeMeta]:
        check_id(keyframe_id)
        rows = self._select("id=?", (keyframe_id,))
        return rows[0] if rows else None

    def get_many(self, keyframe_ids: Sequence[str]) -> list[KeyframeMeta]:
        """Stored keyframes among the ids, in the given order (unknown ids skipped)."""
        ids = [check_id(i) for i in keyframe_ids]
        if not ids:
            return []
        by_id = {m.id: m for m in self._select(f"id IN ({','.join('?' * len(ids))})", ids)}
        return [by_id[i] for i in ids if i in by_id]

    def count(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM keyframes").fetchone()[0])

    def query(self, node_id: str = "", label: str = "", trigger: str = "", since: Optional[float] = None,
              until: Optional[float] = None, limit: int = 0) -> list[KeyframeMeta]:
        """Keyframes matching every given criterion, newest first. A label matches labels and tags
        case-insensitively."""
        where, params = [], []
        if node_id:
            where.append("k.id IN (SELECT keyframe_id FROM keyframe_nodes WHERE node_id=?)")
            params.append(node_id)
        if label:
            where.append("k.id IN (SELECT keyframe_id FROM keyframe_terms WHERE term=?)")
            params.append(label.strip().lower())
        if trigger:
            if trigger not in TRIGGERS:
                raise invalid(f"unknown trigger {trigger!r}; expected one of {', '.join(TRIGGERS)}")
            where.append("k.trigger=?")
            params.append(trigger)
        if since is not None:
            where.append("k.stamp>=?")
            params.append(float(since))
        if until is not None:
            where.append("k.stamp<=?")
            params.append(float(until))
        if limit < 0:
            raise invalid(f"limit must be >= 0, got {limit}")
        return self._select(" AND ".join(where), params, limit)

    def by_nodes(self, node_ids: Sequence[str], limit: int) -> list[KeyframeMeta]:
        """Newest keyframes linked to any of the nodes."""
        ids = [n for n in node_ids if n]
        if not ids:
            return []
        return self._select(f"k.id IN (SELECT keyframe_id FROM keyframe_nodes WHERE node_id IN "
                            f"({','.join('?' * len(ids))}))", ids, limit)

    def by_terms(self, terms: Sequence[str], limit: int) -> list[KeyframeMeta]:
        """Newest keyframes carrying any of the labels or tags (lower-case terms)."""
        terms = [t for t in terms if t]
        if not terms:
            return []
        return self._select(f"k.id IN (SELECT keyframe_id FROM keyframe_terms WHERE term IN "
                            f"({','.join('?' * len(terms))}))", terms, limit)

    def recent(self, triggers: Sequence[str], limit: int) -> list[KeyframeMeta]:
        triggers = list(triggers)
        if not triggers:
            return []
        return self._select(f"k.trigger IN ({','.join('?' * len(triggers))})", triggers, limit)

    def terms(self) -> list[str]:
        """Every distinct label and tag stored (lower case)."""
        with self._lock:
            return [r[0] for r in self._db.execute("SELECT DISTINCT term FROM keyframe_terms").fetchall()]

    def close(self) -> None:
        with self._lock:
            self._db.close()
