"""The embedding model chosen by config: a locally installed sentence-transformers model other
than MiniLM embeds with its own dimension, memory stores and queries with it end to end, a store
remembers which model built it (and refuses another), and ``mnemo memory reembed`` copies a store
to a new model. The model is a small random BERT written by the test: no weights can be downloaded
here, so this checks the mechanism, not retrieval quality."""
from __future__ import annotations

import json

import numpy as np
import pytest

from mnemo_common.embedding import MINILM_DIM, MINILM_NAME, get_embedder
from mnemo_common.types import Status

from mnemo_memory.cli import main as memory_cli
from mnemo_memory.model_record import ModelMismatchError, check_meta
from mnemo_memory.service import MemoryService
from mnemo_memory.testing import WordEmbedder, make_record, save_tiny_sentence_model

CAPTIONS = ["a red mug on the dining table", "a book on the sofa", "keys on the shelf", "a plant by the window"]
WORDS = " ".join(CAPTIONS).split()


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    return save_tiny_sentence_model(tmp_path_factory.mktemp("models") / "tiny-multilingual", 32, WORDS)


def _records():
    records = [make_record(i, c, 1000.0 + 10 * i, float(i), 0.0, labels=[c.split()[1]]) for i, c in enumerate(CAPTIONS)]
    for i, r in enumerate(records):
        r.sightings[0].object_id = f"object-{i}"
    return records


def test_a_local_model_embeds_with_its_own_dimension(tiny):
    e = get_embedder("", tiny)
    assert (e.name, e.dim) == ("tiny-multilingual", 32)
    v = e.embed(["une tasse rouge", "a red mug", "une tasse rouge"])
    assert v.shape == (3, 32) and np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    assert np.allclose(v[0], v[2]) and not np.allclose(v[0], v[1])
    assert get_embedder("", tiny) is e  # one instance per setting in a process


@pytest.mark.parametrize("url", ["", "path"])
def test_memory_stores_and_queries_with_the_configured_model(tiny, tmp_path, url):
    e = get_embedder("", tiny)
    location = f"path:{tmp_path / 'qdrant-local'}" if url else ""
    memory = MemoryService.open(e, tmp_path / "data", url=location)
    try:
        ids = memory.add(_records())
        assert memory.store.dim == 32 and memory.get(ids[2]).embedding.shape == (32,)
        hits = memory.search_text(CAPTIONS[2], k=2)
        assert hits[0].id == ids[2]
        assert memory.search_objects("book", k=1)[0].id == ids[1]  # the object sightings' vectors too
    finally:
        memory.close()
    if not url:
        meta = json.loads((tmp_path / "data" / "memory" / "mnemo_memory" / "meta.json").read_text())
        assert (meta["model"], meta["dim"]) == ("tiny-multilingual", 32)
    with pytest.raises(ModelMismatchError) as err:  # MiniLM cannot read what the tiny model wrote
        MemoryService.open(get_embedder(), tmp_path / "data", url=location)
    assert err.value.code == Status.FAILED
    for said in ("'tiny-multilingual' (32-d)", f"{MINILM_NAME!r} ({MINILM_DIM}-d)", "embedding_model", "reembed"):
        assert said in err.value.message
    reopened = MemoryService.open(e, tmp_path / "data", url=location)  # its own model still opens it
    try:
        assert reopened.count() == len(CAPTIONS)
    finally:
        reopened.close()


def test_same_dimension_other_model_is_refused(tmp_path):
    MemoryService.open(WordEmbedder(MINILM_DIM, name="other-384"), tmp_path).close()
    with pytest.raises(ModelMismatchError, match="'other-384' .384-d.*'minilm-like' .384-d"):
        MemoryService.open(WordEmbedder(MINILM_DIM, name="minilm-like"), tmp_path)


def test_a_store_without_a_model_record_is_minilm(tmp_path):
    assert check_meta({}, "", 0, "old") == (MINILM_NAME, MINILM_DIM)
    assert check_meta({"dim": 384, "schema": 1}, MINILM_NAME, MINILM_DIM, "old") == (MINILM_NAME, MINILM_DIM)
    with pytest.raises(ModelMismatchError, match=f"{MINILM_NAME!r} .384-d"):
        check_meta({}, "tiny-multilingual", 32, "old")
    # an embedded store whose meta.json names no model (written before models were configurable)
    MemoryService.open(WordEmbedder(MINILM_DIM, name=MINILM_NAME), tmp_path).close()
    meta_path = tmp_path / "memory" / "mnemo_memory" / "meta.json"
    meta_path.write_text(json.dumps({k: v for k, v in json.loads(meta_path.read_text()).items() if k != "model"}))
    with pytest.raises(ModelMismatchError, match=MINILM_NAME):
        MemoryService.open(WordEmbedder(MINILM_DIM, name="test-words"), tmp_path)
    MemoryService.open(WordEmbedder(MINILM_DIM, name=MINILM_NAME), tmp_path).close()


def test_reembed_copies_a_store_to_another_model(tiny, tmp_path, capsys):
    other = save_tiny_sentence_model(tmp_path / "models" / "tiny-other", 16, WORDS)
    data = tmp_path / "data"
    records = _records()
    records[1].last_stamp, records[1].count = 1500.0, 5  # a compacted record keeps its span
    memory = MemoryService.open(get_embedder("", tiny), data)
    try:
        ids = memory.add(records)
    finally:
        memory.close()
    assert memory_cli(["reembed", "--data-dir", str(data), "--into", "other",
                       "--embedding-model", other]) == 0
    assert "copied 4 records" in capsys.readouterr().out
    copied = MemoryService.open(get_embedder("", other), data, collection="other")
    try:
        assert copied.count() == len(CAPTIONS) and copied.store.dim == 16
        hit = copied.search_text(CAPTIONS[1], k=1)[0]
        assert hit.id == ids[1] and hit.caption == CAPTIONS[1] and hit.sightings[0].object_id == "object-1"
        assert (hit.last_stamp, hit.count) == (1500.0, 5)
    finally:
        copied.close()
    assert memory_cli(["reembed", "--data-dir", str(data), "--into", "other",  # not over a filled one
                       "--embedding-model", other]) == 1
    assert "already holds 4 records" in capsys.readouterr().err


def test_a_missing_model_is_an_error_naming_setting_and_path(tmp_path, capsys):
    assert memory_cli(["reembed", "--data-dir", str(tmp_path), "--into", "x",
                       "--embedding-model", str(tmp_path / "no-such-model")]) == 1
    err = capsys.readouterr().err
    assert "embedding_model" in err and str(tmp_path / "no-such-model") in err
