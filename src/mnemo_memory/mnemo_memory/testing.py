"""Test helpers other packages may use too: a deterministic bag-of-words embedder (no model
load) and a record factory."""
from __future__ import annotations

import hashlib
import re

import numpy as np

from mnemo_common.types import MemoryRecord, Pose2D, Pose3D, Sighting


class WordEmbedder:
    """Hashes words into buckets: texts sharing words are similar. No model load in unit tests."""

    def __init__(self, dim: int = 64, name: str = "test-words"):
        self.dim, self.name = dim, name

    def embed(self, texts):
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, t in enumerate(texts):
            for w in re.findall(r"[a-z]+", t.lower()):
                out[i, int(hashlib.md5(w.encode()).hexdigest(), 16) % self.dim] += 1.0
            n = np.linalg.norm(out[i])
            out[i] = out[i] / n if n else out[i]
        return out


def make_record(i: int, caption: str, stamp: float, x: float, y: float, room: str = "kitchen",
                labels=(), embedder=None, raw_ref: str = "", color: str = "red") -> MemoryRecord:
    r = MemoryRecord(id="", stamp=stamp, robot_pose=Pose2D(x, y, 0.1 * i),
                     camera_pose=Pose3D((x, y, 1.2), (0.0, 0.0, 0.0, 1.0)), caption=caption, room=room,
                     labels=list(labels),
                     sightings=[Sighting(l, (x + 0.5, y, 0.8), {"color": color}) for l in labels], raw_ref=raw_ref)
    if embedder is not None:
        r.embedding = embedder.embed([caption])[0]
    return r
