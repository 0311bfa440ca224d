"""The lexicon reads WordNet's database format (synonym sets addressed by byte offset, is-a links):
a miniature database of invented nouns is written here, so the test needs no installed WordNet and
only the mechanism can pass."""
from __future__ import annotations

import pytest

from mnemo_planner import grounding, lexicon as lx, naming, wording
from mnemo_planner.beliefs import Entity
from mnemo_planner.hypotheses import need_fit

# (key, lexicographer file, words, hypernym keys): 06 is WordNet's file of artifacts, 26 of states
SYNSETS = [
    ("holder", "06", ["holder"], []),
    ("gizmo", "06", ["gizmo", "widget"], ["holder"]),
    ("megagizmo", "06", ["megagizmo", "blue_gizmo"], ["gizmo"]),
    ("minigizmo", "06", ["minigizmo"], ["gizmo"]),  # another kind of gizmo
    ("plinth", "06", ["plinth"], []),
    ("mood", "26", ["widget"], []),  # a sense that is no physical thing: it relates nothing
    ("snorkpin", "06", ["snorkpin", "snorkums_pod"], []),  # a name whose first word ends in s
    ("stand", "06", ["stand"], []),
    ("daxstand", "06", ["dax_stand"], ["holder"]),  # a compound of its own, no kind of stand
    ("dax", "06", ["dax"], []),
    ("glim", "06", ["glim"], []),
    ("plinther", "06", ["plinther"], []),  # a noun the adjectives' exceptions also list as a comparative
    ("frob", "06", ["frob"], ["gizmo"]),  # a kind of gizmo by a name of its own
]
# what the database says of a sense (its gloss); the rest are "gloss of <key>"
GLOSSES = {"glim": "a flat blade for scraping frost and ice from a windscreen; kept by drivers in winter"}


def _line(key, offsets) -> str:
    _, lexfile, words, ups = next(s for s in SYNSETS if s[0] == key)
    ptrs = "".join(f" @ {offsets.get(u, 0):08d} n 0000" for u in ups)
    return (f"{offsets.get(key, 0):08d} {lexfile} n {len(words):02x} " + " ".join(f"{w} 0" for w in words)
            + f" {len(ups):03d}{ptrs} | {GLOSSES.get(key, f'gloss of {key}')}  \n")


def _write_db(root) -> None:
    """data.noun addresses each synset by its byte offset; offsets have a fixed width, so each
    line's length is known before the offsets are."""
    header = "  1 a miniature database in WordNet 3 format  \n"
    offsets, at = {}, len(header)
    for key, *_ in SYNSETS:
        offsets[key] = at
        at += len(_line(key, {}))
    (root / "data.noun").write_text(header + "".join(_line(k, offsets) for k, *_ in SYNSETS), encoding="utf-8")
    index: dict[str, list[int]] = {}
    for key, _, words, _ in SYNSETS:
        for w in words:
            index.setdefault(w, []).append(offsets[key])
    (root / "index.noun").write_text("  1 header line\n" + "".join(
        f"{w} n {len(o)} 1 @ {len(o)} 0 " + " ".join(f"{x:08d}" for x in o) + "  \n" for w, o in sorted(index.items())),
        encoding="utf-8")
    (root / "noun.exc").write_text("gizmata gizmo\n", encoding="utf-8")
    (root / "index.verb").write_text("  1 header line\nfrobnicate v 1 1 @ 1 0 00000000  \n", encoding="utf-8")
    (root / "verb.exc").write_text("frobbed frob\n", encoding="utf-8")
    (root / "index.adj").write_text("  1 header line\nmauve a 1 1 & 1 0 00000000  \n", encoding="utf-8")
    (root / "adj.exc").write_text("mauver mauve\nplinther plinth\n", encoding="utf-8")


@pytest.fixture
def mini(tmp_path, monkeypatch):
    _write_db(tmp_path)
    monkeypatch.setenv(lx.ENV, str(tmp_path))
    naming.related.cache_clear()
    yield lx.lexicon()
    naming.related.cache_clear()


def test_synonyms_kinds_and_unrelated_names(mini):
    assert mini
    assert mini.distance("widget", "gizmo") == 0  # one synonym set
    assert mini.distance("gizmos", "widget") == 0  # a plural
    assert mini.distance("gizmata", "widget") == 0  # an irregular plural
    assert mini.distance("blue gizmo", "gizmo") == 1  # a kind of it (a compound name)
    assert mini.distance("holder", "megagizmo") == 2  # two is-a links up
    assert mini.distance("holder", "megagizmo", hops=1) is None
    assert mini.distance("plinth", "gizmo") is None
    assert mini.distance("unknownword", "gizmo") is None


def test_a_name_the_database_lacks_is_known_by_its_head(mini):
    assert mini.distance("dax gizmo", "gizmo") == 1  # a dax gizmo is a gizmo
    assert mini.distance("dax gizmo", "holder") == 2  # ... and so a holder, one link further
    assert mini.distance("dax megagizmo", "holder") is None  # (three links: too far)
    assert mini.distance("dax gizmo", "zorp gizmo") is None  # two kinds of one head are not alike
    assert mini.distance("megagizmo", "dax gizmo") is None  # ... nor another kind of the head said for one
    assert mini.distance("dax holder", "gizmo") == 2  # (a general name said for a kind below its head)
    assert mini.distance("dax of gizmos", "gizmo") is None  # a phrase with a function word has no head here


def test_a_noun_before_a_name_makes_a_compound_an_adjective_only_qualifies(mini):
    """A "plinth holder" is judged whole (unknown, so by nothing the lexicon knows), never as a holder; a
    "mauve holder" is a holder."""
    assert mini.noun_only("plinth") and not mini.noun_only("mauve")
    assert wording.compound(["plinth", "holder"], "holder", "the plinth holder") == "plinth holder"
    assert wording.compound(["mauve", "holder"], "holder", "the mauve holder") == "holder"
    # words the function words between them kept apart make no compound ("a plinth with the holder")
    assert wording.compound(["plinth", "holder"], "holder", "a plinth with the holder") == "holder"
    # an inflected form of an adjective only qualifies, unless the database has it as a noun of its own
    assert not mini.noun_only("mauver") and mini.noun_only("plinther")
    assert wording.compound(["plinther", "holder"], "holder", "the plinther holder") == "plinther holder"
    assert wording.compound(["mauver", "holder"], "holder", "the mauver holder") == "holder"
    assert naming.related("holder", "dax gizmo") > 0.0  # a dax gizmo is a gizmo, a kind of holder
    assert naming.related(wording.compound(["plinth", "holder"], "holder", "plinth holder"), "dax gizmo") == 0.0


def test_words_of_the_language_are_never_taken_for_slips(mini):
    assert mini.knows("gizmos") and mini.knows("gizmata") and mini.knows("holder")
    assert mini.knows("frobnicating") and mini.knows("frobnicated") and mini.knows("frobbed")
    assert not mini.knows("gizmoo") and not mini.knows("hodler")


def test_senses_of_no_physical_thing_are_ignored(mini):
    assert len(mini.senses("widget")) == 1  # the artifact, not the state


def test_a_slip_that_spells_another_word_is_that_word(mini):
    # "holder" is a word: a request for the dax holder names no dax holden, a "dax hodler" does
    assert naming.lexical("dax holder", "dax holden") == 0.0
    assert naming.lexical("dax hodler", "dax holder") == 0.95
    assert naming.lexical("mauve hodler", "dax holder") == naming.HEAD - 0.05


def test_a_word_that_is_no_word_is_mended_to_a_known_name(mini):
    names = ["quorvo crate", "snorkum"]
    assert grounding.respell(["the", "qourvo", "crate"], names) == ["the", "quorvo", "crate"]  # two letters swapped
    assert grounding.respell(["snorkumm"], names) == ["snorkum"]
    assert grounding.respell(["holder", "gizmoo"], ["holden", "gizmo"]) == ["holder", "gizmo"]
    # four letters: a dropped letter or a swap, never another letter (which makes another word too often)
    assert grounding.respell(["daxe"], ["daxa pod"]) == ["daxe"]
    assert grounding.respell(["dxaa"], ["daxa pod"]) == ["daxa"]


def test_a_name_whose_first_word_ends_in_s_is_looked_up_as_written(mini):
    assert naming.related("snorkpins", "snorkums pods") == naming.KIND[0]


def test_a_synonym_names_a_label_the_embedding_model_places_far(mini, sim):
    words = ["widget"]
    assert float(sim.matrix(words, ["gizmo"])[0, 0]) < grounding.PROBABLE  # the model alone misses it
    best = grounding.named(grounding.match_labels(sim, words, ["gizmo", "plinth"], noun_phrase=True), "widget")
    assert [m.label for m in best] == ["gizmo"]


def test_a_name_only_fairly_near_a_label_names_it_unless_the_database_knows_both_as_unrelated_things(mini):
    def near(span, label):  # the one label fairly near the words, and clearly the nearest
        return grounding.named([grounding.LabelMatch(label, 0.7, span)], span.split()[-1])

    assert near("plinth", "stand") == []  # two things the database holds apart (used together, maybe)
    assert [m.label for m in near("minigizmo", "megagizmo")] == ["megagizmo"]  # two kinds of one thing
    assert [m.label for m in near("holder", "megagizmo")] == ["megagizmo"]  # one a kind of the other
    assert [m.label for m in near("zorp", "stand")] == ["stand"]  # a word the database lacks: the model decides


@pytest.mark.parametrize("where", ["absent", ""])
def test_a_missing_database_or_an_empty_setting_relates_nothing(tmp_path, monkeypatch, sim, where):
    _write_db(tmp_path)
    monkeypatch.chdir(tmp_path)  # (an empty setting never means the working directory)
    monkeypatch.setenv(lx.ENV, str(tmp_path / where) if where else "")
    naming.related.cache_clear()
    try:
        assert not lx.lexicon()
        assert lx.lexicon().distance("widget", "gizmo") is None
        assert naming.related("widget", "gizmo") == 0.0
    finally:
        naming.related.cache_clear()


@pytest.fixture(scope="module")
def sim():
    from mnemo_common.embedding import get_embedder

    return grounding.Similarity(get_embedder())


def test_a_compound_the_database_knows_is_no_sibling_of_another_with_its_head(mini, sim):
    # "dax stand" names a holder; "blick stand" is only known as some stand: two kinds of stand, where a
    # holder is known; with no label the lexicon relates, the shared head is the best evidence there is
    assert naming.related("dax stand", "holder") == naming.KIND[1]
    best = {m.label: m.score for m in grounding.match_labels(sim, ["dax", "stand"], ["blick stand", "holder"],
                                                              text="the dax stand")}
    assert best["blick stand"] == naming.SIBLING
    best = grounding.match_labels(sim, ["dax", "stand"], ["blick stand"], text="the dax stand")
    assert best[0].score == naming.HEAD
    assert naming.lexical("stand", "blick stand") == naming.HEAD  # the head alone names it
    assert naming.lexical("blick stand", "vorple blick stand") == naming.HEAD  # (its own words, and more)


def test_a_span_inside_a_compound_the_database_knows_names_nothing_alone(mini, sim):
    # "stand" alone would name the blick stand by its head; "dax stand" as a whole is a kind of holder
    best = grounding.match_labels(sim, ["dax", "stand"], ["blick stand", "holder"], text="the dax stand")
    assert best[0].label == "holder" and best[0].span == "dax stand"
    assert dict((m.label, m.score) for m in best)["blick stand"] <= naming.SIBLING


def test_a_definition_is_the_gloss_of_the_commonest_sense_of_a_physical_thing(mini):
    assert mini.definition("widget") == "gloss of gizmo"  # (its sense of a mood is no thing)
    assert mini.definition("gizmata") == "gloss of gizmo"  # an irregular plural
    assert mini.definition("glim") == "a flat blade for scraping frost and ice from a windscreen"  # (one clause)
    assert mini.definition("dax gizmo") == ""  # a name the database lacks: its head's sense is not its own
    assert mini.definition("unknownword") == ""


def test_a_situation_stated_is_weighed_against_what_the_dictionary_says_a_thing_is(mini, sim):
    """The invented name means nothing to the embedding model; its definition says what it is for."""
    things = [Entity("g1", "glim", {}), Entity("p1", "plinth", {})]
    situation = "The car is white with frost and I cannot see out of it, what would help?"
    by_name = need_fit(sim, situation, things)
    by_meaning = need_fit(sim, situation, things, defined=True)
    assert by_meaning[0] > by_name[0] and by_meaning[0] > by_meaning[1]
    assert by_meaning[1] >= by_name[1]  # (the nearer of name and definition counts)


def test_a_compound_the_database_knows_is_no_other_compound_of_its_head_named_by_a_noun(mini, sim):
    """The "dax stand" (a compound the database knows) and a "plinth stand" (whose first word is a noun
    too) are two kinds of stand, whatever else the home holds: the shared head counts no more than a
    sibling's, and the embedding model weighs the whole names. Where the label's first word is no noun
    the database knows ("blick"), the shared head is the best evidence there is."""
    assert naming.noun_siblings(["dax", "stand"], ["plinth", "stand"])
    assert not naming.noun_siblings(["mauve", "stand"], ["plinth", "stand"])  # an adjective may describe it
    assert not naming.noun_siblings(["stand"], ["plinth", "stand"])
    assert not naming.noun_siblings(["dax", "stand"], ["blick", "stand"])
    score = {m.label: m.score for m in grounding.match_labels(sim, ["dax", "stand"], ["plinth stand"], text="the dax stand")}
    assert score["plinth stand"] < naming.HEAD
    score = {m.label: m.score for m in grounding.match_labels(sim, ["mauve", "stand"], ["plinth stand"], text="the mauve stand")}
    assert score["plinth stand"] == naming.HEAD


def test_another_kind_of_the_head_is_never_named_by_the_head_alone(mini, sim):
    """"The dax stand" where the home holds only a plinth stand: two kinds of stand. The shared head names
    no label (below what names a label that is only clearly the nearest); the thing the words name may be
    known by another name, which a search in vain settles for."""
    matches = grounding.match_labels(sim, ["dax", "stand"], ["plinth stand"], text="the dax stand")
    assert matches[0].score < grounding.PROBABLE
    assert grounding.named(matches, "stand") == []
    # (an adjective before the head still describes the label's thing: it is named)
    matches = grounding.match_labels(sim, ["mauve", "stand"], ["plinth stand"], text="the mauve stand")
    assert [m.label for m in grounding.named(matches, "stand")] == ["plinth stand"]


def test_two_kinds_of_one_head_need_the_embedding_models_word_to_be_one_thing(mini, sim):
    """"The plinth gizmo", a name the database knows by its head alone, where the home holds a frob (a kind
    of gizmo): the link says only that both are gizmos. Unless the embedding model finds the whole names
    alike, the words do not name the frob (the plinth gizmo may be a thing the robot has not seen yet)."""
    assert mini.beside("plinth gizmo", "frob") and naming.related("plinth gizmo", "frob") > 0.0
    assert float(sim.matrix(["plinth gizmo"], ["frob"])[0, 0]) < naming.ALIKE
    score = {m.label: m.score for m in grounding.match_labels(sim, ["plinth", "gizmo"], ["frob", "holder"],
                                                              noun_phrase=True, text="the plinth gizmo")}
    assert score["frob"] < naming.ALIKE
    # a name above the head is the head's kind all the same: a plinth gizmo is a holder
    assert not mini.beside("plinth gizmo", "holder") and score["holder"] == naming.related("plinth gizmo", "holder") > 0
