"""MemoryService: embedding, validation of every input, errors with codes and messages."""
from __future__ import annotations

import math

import pytest

from mnemo_common.types import MemoryFilter, MnemoError, Pose2D, Status
from mnemo_memory.service import MemoryService
from mnemo_memory.testing import WordEmbedder, make_record


@pytest.fixture
def memory(tmp_path):
    m = MemoryService.open(WordEmbedder(), tmp_path)
    m.add([make_record(i, c, 100.0 * i, float(i), 0.0, labels=[c.split()[-1]], color=c.split()[1])
           for i, c in enumerate(["a red mug", "a green plant", "a red book", "a blue mug"])])
    yield m
    m.close()


def test_add_embeds_captions_and_queries_by_text(memory):
    assert memory.count() == 4
    hits = memory.search_text("red mug", k=2)
    assert hits[0].caption == "a red mug"
    assert memory.get(hits[0].id).embedding is not None


@pytest.mark.parametrize("call", [
    lambda m: m.search_text("", k=3),
    lambda m: m.search_text("   ", k=3),
    lambda m: m.search_text("mug", k=0),
    lambda m: m.search_text("mug", k=-5),
    lambda m: m.search_text("mug", k=10_001),
    lambda m: m.search_text("mug", k=3, filter=MemoryFilter(since=10.0, until=5.0)),
    lambda m: m.search_text("mug", k=3, filter=MemoryFilter(since=math.nan)),
    lambda m: m.search_text("mug", k=3, filter=MemoryFilter(near=(0.0, 0.0), radius=0.0)),
    lambda m: m.search_text("mug", k=3, filter=MemoryFilter(near=(math.inf, 0.0), radius=1.0)),
    lambda m: m.search_time(since=10.0, until=5.0),
    lambda m: m.search_time(since=1.0, around=3.0),
    lambda m: m.search_time(around=math.inf),
    lambda m: m.search_position(math.nan, 0.0, 1.0),
    lambda m: m.search_position(0.0, 0.0, math.inf),
    lambda m: m.add([make_record(0, "x", 0.0, math.nan, 0.0)]),
    lambda m: m.add([make_record(0, "x", math.inf, 0.0, 0.0)]),
    lambda m: m.get(""),
])
def test_bad_inputs_are_invalid_argument(memory, call):
    with pytest.raises(MnemoError) as err:
        call(memory)
    assert err.value.code == Status.INVALID_ARGUMENT and err.value.message
    assert memory.count() == 4  # nothing half-written


def test_unknown_id_is_not_found(memory):
    with pytest.raises(MnemoError) as err:
        memory.get("no-such-record")
    assert err.value.code == Status.NOT_FOUND and "no-such-record" in err.value.message


def test_service_refuses_embedder_of_other_dimension(tmp_path):
    MemoryService.open(WordEmbedder(), tmp_path).close()
    with pytest.raises(MnemoError):
        MemoryService.open(WordEmbedder(dim=32), tmp_path)
    with pytest.raises(MnemoError) as err:
        MemoryService.open(WordEmbedder(name="other-model"), tmp_path)
    assert "test-words" in err.value.message


def test_time_and_position_queries_with_text(memory):
    hits = memory.search_time(since=0.0, until=250.0, k=5, text="red")
    assert {h.caption for h in hits[:2]} == {"a red mug", "a red book"}
    assert memory.search_position(3.0, 0.0, radius=0.0, k=1)[0].caption == "a blue mug"
    assert memory.search_position(0.0, 0.0, radius=10.0, k=1, text="plant")[0].caption == "a green plant"
