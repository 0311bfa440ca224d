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


def save_tiny_sentence_model(path, dim: int = 32, words=()) -> str:
    """Write a small sentence-transformers model (a one-layer BERT with random weights, mean
    pooling; a vocabulary of ``words``, other words spelt by characters) to ``path``: a locally
    installed model other than MiniLM, for tests of the configurable embedding model. Texts that
    share vocabulary words are similar (as with WordEmbedder); nothing more is meant."""
    import shutil
    import string
    from pathlib import Path

    import torch
    from sentence_transformers import SentenceTransformer, models
    from transformers import BertConfig, BertModel, BertTokenizerFast

    path = Path(path)
    bert = path / "bert"
    bert.mkdir(parents=True, exist_ok=True)
    letters = string.ascii_lowercase + string.digits
    known = sorted({w.lower() for w in words} - set(letters))
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *known, *letters, *(f"##{c}" for c in letters)]
    torch.manual_seed(0)
    config = BertConfig(vocab_size=len(vocab), hidden_size=dim, num_hidden_layers=1, num_attention_heads=2,
                        intermediate_size=2 * dim, max_position_embeddings=128)
    model = BertModel(config)
    with torch.no_grad():  # words, not positions, decide what a text embeds to
        model.embeddings.word_embeddings.weight.normal_(0.0, 1.0)
        model.embeddings.position_embeddings.weight.zero_()
    model.save_pretrained(bert)
    BertTokenizerFast(vocab={token: i for i, token in enumerate(vocab)}).save_pretrained(bert)
    transformer = models.Transformer(str(bert), max_seq_length=128)
    SentenceTransformer(modules=[transformer, models.Pooling(dim, "mean")], device="cpu").save(str(path))
    shutil.rmtree(bert)  # the saved model holds its own copy
    return str(path)
