"""Words that belong to an idiom or are slips, not to the thing asked for: read against a miniature
lexical database of invented words written here (so only the mechanism can pass), and against none."""
from __future__ import annotations

import pytest

from mnemo_planner import grounding, idioms, lexicon as lx, request as rq
from mnemo_planner.beliefs import Beliefs
from mnemo_planner.matching import Similarity
from mnemo_planner.places import ground_place

NOW = 5 * 86400.0 + 20 * 3600.0


def _write_db(root) -> None:
    header = "  1 a miniature database in WordNet 3 format  \n"
    line = f"{len(header):08d} 06 n 01 blick 0 000 | a thing  \n"
    (root / "data.noun").write_text(header + line, encoding="utf-8")
    (root / "index.noun").write_text(f"  1 header\nblick n 1 0 1 0 {len(header):08d}  \nthn n 1 0 1 0 {len(header):08d}  \n",
                                     encoding="utf-8")
    (root / "index.verb").write_text("  1 header\nbring v 1 0 1 0 00000000  \nbring_back v 1 0 1 0 00000000  \n"
                                     "frob_blick v 1 0 1 0 00000000  \ntake_after v 1 0 1 0 00000000  \n", encoding="utf-8")
    (root / "verb.exc").write_text("brought bring\n", encoding="utf-8")
    (root / "index.adv").write_text("  1 header\na_blick r 1 0 1 0 00000000  \nback r 1 0 1 0 00000000  \n",
                                    encoding="utf-8")


@pytest.fixture
def mini(tmp_path, monkeypatch):
    _write_db(tmp_path)
    monkeypatch.setenv(lx.ENV, str(tmp_path))
    yield lx.lexicon()


def test_a_verb_s_particle_and_an_adverb_of_a_courtesy_clause_describe_nothing(mini):
    assert mini.phrasal("brought", "back") and mini.phrasal("bringing", "back") and not mini.phrasal("bring", "away")
    assert rq.parse("Bring the dax back, thank you a blick.", NOW).words == ("dax",)
    assert rq.parse("Bring that back please, the dax.", NOW).words == ("dax",)
    assert rq.parse("Bring back the dax.", NOW).words == ("dax",)
    # ... but a word after a determiner, or before the word it qualifies, is no particle
    assert rq.parse("Bring the dax at the back.", NOW).place == "back"
    assert rq.parse("Take the dax to the den", NOW).words == ("dax", "den")  # (no adverb, no particle)
    assert rq.parse("Bring the back dax.", NOW).words == ("back", "dax")
    # a preposition before a noun phrase opens a phrase of its own, whatever verb it could make
    assert "after" in rq.parse("Take after the dax", NOW).phrase
    # an adverb in a clause that describes something else is left to it
    assert idioms.plain(" a blick dax ", rq.STOPWORDS) == " a blick dax "


def test_a_noun_that_makes_a_verb_of_several_words_with_the_verb_before_it_is_no_thing(mini):
    # the database's verb "frob blick" (its noun named nothing the speaker wants); the same words after a
    # determiner are a thing and what qualifies it
    assert rq.parse("I have to frob blick, so fetch the dax.", NOW).words == ("dax",)
    assert rq.parse("Hey, I keep frobbing blick. Could you fetch something?", NOW).words == ()
    assert rq.parse("Fetch the frob blick.", NOW).words == ("frob", "blick")


def test_without_a_database_nothing_is_taken_for_an_idiom(monkeypatch):
    monkeypatch.setenv(lx.ENV, "")
    assert rq.parse("Bring the dax back, thank you a blick.", NOW).words == ("dax", "back", "blick")


def test_a_function_word_that_lost_a_letter_is_mended_unless_it_is_a_word(mini):
    # "whn you ..." is a condition of courtesy; a three-letter word the language has stays as written
    assert rq.parse("The dax whn you are free.", NOW).words == ("dax",)
    assert rq.fix_words("thn dax") == "thn dax"
    assert rq.fix_words("frm's dax") == "frm's dax"  # (a possessive is a name, never a function word)


def test_a_slip_in_a_place_s_name_is_mended_against_the_places_known(mini, embedder):
    b = Beliefs()
    b.add_nodes([_fixture("c1", "quorvo crate", "snorkum_room"), _fixture("c2", "quorvo crate", "parlour"),
                 _fixture("d1", "dax stand", "parlour")])
    sim = Similarity(embedder)
    assert ground_place(sim, b, "the qourvo crate in the snrokum room") == (["c1"], ["snorkum_room"])
    assert grounding.respell(["dxa"], ["daxa pod"]) == ["daxa"]  # three letters: a dropped letter only
    assert grounding.respell(["dxe"], ["dax pod"]) == ["dxe"]


def _fixture(key: str, label: str, room: str) -> dict:
    return {"id": key, "kind": "fixture", "label": label, "room": room, "position": [0.0, 0.0, 0.0],
            "last_seen": 10.0, "observation_count": 3, "properties": {}}
