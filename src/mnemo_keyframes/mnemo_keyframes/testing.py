"""Deterministic helpers for tests and benchmarks: a bag-of-words embedder (no model load) and
synthetic camera frames."""
from __future__ import annotations

import hashlib
import re
from typing import Sequence

import numpy as np


class WordEmbedder:
    """Texts sharing words are similar; unit rows like every mnemo embedder."""

    name = "words"
    dim = 256

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, t in enumerate(texts):
            for w in re.findall(r"[a-z0-9]+", str(t).lower()):
                out[i, int(hashlib.md5(w.encode()).hexdigest(), 16) % self.dim] += 1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        return out / norms


def textured(seed: int, h: int = 480, w: int = 640) -> np.ndarray:
    """A sharp, varied HxWx3 frame: random 40 px blocks plus fine noise."""
    rng = np.random.default_rng(seed)
    blocks = rng.integers(0, 255, size=(h // 40 + 1, w // 40 + 1, 3), dtype=np.uint8)
    img = blocks.repeat(40, 0).repeat(40, 1)[:h, :w]
    noise = rng.integers(0, 24, size=img.shape, dtype=np.uint8)
    return np.maximum(img, 12) - 12 + noise
