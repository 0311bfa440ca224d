import json

import pytest

from mnemo_common.fake_openai import FakeOpenAI
from mnemo_common.llm import ChatClient, LlmConfig
from mnemo_common.types import KeyframeMeta, MnemoError
from mnemo_keyframes.retrieve import KeyframeRetriever, RetrievalConfig, parse_selection, SelectionError
from mnemo_keyframes.store import KeyframeStore
from mnemo_keyframes.testing import WordEmbedder, textured


@pytest.fixture
def store(tmp_path):
    s = KeyframeStore(tmp_path)
    s.add(KeyframeMeta("kf-cab1-int", 10, "interaction_after", action="open", node_ids=["cabinet_1"],
                       tags=["locked"], caption="cabinet door did not move"), textured(1))
    s.add(KeyframeMeta("kf-cup-john", 5, "new_node", node_ids=["cup_1", "drawer_2"], labels=["cup"],
                       caption="orange cup with the name John"), textured(2))
    s.add(KeyframeMeta("kf-cup-green", 6, "new_node", node_ids=["cup_2"], labels=["cup"],
                       caption="green cup on the right drawer"), textured(3))
    s.add(KeyframeMeta("kf-sofa", 7, "new_node", node_ids=["sofa_1"], labels=["sofa"], caption="living room sofa"),
          textured(4))
    for i in range(20):
        s.add(KeyframeMeta(f"kf-plant-{i}", 1 + i * 0.01, "updated_node", node_ids=["plant_1"], labels=["plant"]),
              textured(100 + i))
    return s


def test_candidate_pool_sources_and_caps(store):
    r = KeyframeRetriever(store, WordEmbedder(), config=RetrievalConfig(cap_linked=3, cap_labels=5, cap_recent=1))
    pool = {c.meta.id: c.sources for c in r.candidates("go to John's cup", ["plant_1"])}
    assert sum("linked" in s for s in pool.values()) == 3  # capped: plant frames cannot crowd the pool
    assert "label" in pool["kf-cup-john"] and "label" in pool["kf-cup-green"]
    assert pool["kf-cab1-int"] == ["recent"]
    assert "kf-sofa" not in pool


def test_text_ranking_without_vlm(store):
    r = KeyframeRetriever(store, WordEmbedder())
    got = r.retrieve("find the orange cup named John", ["cup_1", "cup_2"], k=2)
    assert r.last_path == "text"
    assert [c.meta.id for c in got][0] == "kf-cup-john"
    assert got[0].meta.score >= got[1].meta.score
    with pytest.raises(MnemoError):
        r.retrieve("x", k=0)


def test_two_stage_vlm_selection(store):
    with FakeOpenAI() as fake:
        chat = ChatClient(LlmConfig(fake.base_url, "fake"))
        r = KeyframeRetriever(store, WordEmbedder(), chat)
        ranked = r.rank_by_text("John's cup", r.candidates("John's cup", ["cup_1", "cup_2"]))
        ids = [c.meta.id for c in ranked]
        fake.push(json.dumps({"chosen": [{"idx": ids.index("kf-cup-green"), "frame_id": "kf-cup-green",
                                          "reason": "green cup"},
                                         {"idx": ids.index("kf-cup-john"), "frame_id": "kf-cup-john"}]}),
                  json.dumps({"chosen": [{"idx": 1, "reason": "name John printed on the cup"}]}))
        got = r.retrieve("John's cup", ["cup_1", "cup_2"], k=1)
        assert r.last_path == "vlm" and [c.meta.id for c in got] == ["kf-cup-john"]
        assert got[0].reason == "name John printed on the cup"
        stage1 = fake.requests[0]["body"]["messages"][0]["content"]
        assert '"John\'s cup"' in stage1 and "kf-cup-john"[:12] in stage1
        stage2 = fake.requests[1]["body"]["messages"][0]["content"]
        assert sum(p["type"] == "image_url" for p in stage2) == 2


@pytest.mark.parametrize("first,second,path,expect_first", [
    ("not json", None, "text", "kf-cup-john"),
    (json.dumps({"chosen": [{"idx": 999}]}), None, "text", "kf-cup-john"),
    (json.dumps({"chosen": [{"idx": 0, "frame_id": "../../etc"}]}), None, "text", "kf-cup-john"),
    (json.dumps({"chosen": [{"idx": 0}, {"idx": 1}]}), "garbage", "vlm-text", None),
    (500, None, "text", "kf-cup-john"),
])
def test_invalid_vlm_answers_fall_back(store, first, second, path, expect_first):
    with FakeOpenAI() as fake:
        r = KeyframeRetriever(store, WordEmbedder(), ChatClient(LlmConfig(fake.base_url, "fake")))
        fake.push(first, *([second] if second is not None else []))
        got = r.retrieve("orange cup named John", ["cup_1", "cup_2"], k=2)
        assert r.last_path == path and len(got) == 2
        if expect_first:
            assert got[0].meta.id == expect_first


def test_parse_selection_rejects_bad_shapes():
    metas = [KeyframeMeta("a", 0, "new_node"), KeyframeMeta("b", 0, "new_node")]
    for bad in ([], {"chosen": "x"}, {"chosen": [1]}, {"chosen": [{"idx": True}]}, {"chosen": [{"idx": "0"}]},
                {"chosen": [{"idx": 1, "frame_id": "a"}]}):
        with pytest.raises(SelectionError):
            parse_selection(bad, metas, 5)
    assert parse_selection({"chosen": [{"idx": 1}, {"idx": 1}, {"idx": 0}]}, metas, 5) == [(1, ""), (0, "")]
    assert parse_selection({"chosen": []}, metas, 5) == []
