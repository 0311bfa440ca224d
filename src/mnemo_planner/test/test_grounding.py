"""Grounding a request in what is known: every stated word weighs on which thing fits, judged with
everything seen so far; places are named by the best of the home's few fixtures and rooms; a one-word
name may be the first word of a compound label. Invented vocabulary throughout, so that only the
mechanism (not a word list) can pass."""
from __future__ import annotations

import numpy as np
import pytest

from mnemo_planner import request as rq
from mnemo_planner.beliefs import Beliefs
from mnemo_planner.grounding import ground, situation
from mnemo_planner.matching import Similarity, match_labels
from mnemo_planner.places import ground_place
from mnemo_planner.naming import HEAD, MODIFIER, lexical
from mnemo_planner.hypotheses import fit_of, match_fit, rank_entities, settle_for

NOW = 3 * 86400.0


@pytest.fixture(scope="module")
def sim():
    from mnemo_common.embedding import get_embedder

    return Similarity(get_embedder())


def _node(nid, label, parent, **props):
    return {"id": nid, "kind": "object", "label": label, "parent": parent, "room": "den", "last_seen": 10.0,
            "properties": {k: {"value": v} for k, v in props.items()},
            "trail": [{"since": 0.0, "until": 10.0, "parent": parent}]}


def _fixture(fid, label, room="den", **props):
    return {"id": fid, "kind": "fixture", "label": label, "room": room, "position": [0.0, 0.0, 0.0],
            "last_seen": 10.0, "observation_count": 3, "properties": {k: {"value": v} for k, v in props.items()}}


def test_compound_and_modifier_words_name_a_label():
    assert lexical("widget", "boxwidget") == HEAD  # the head of a compound word
    assert lexical("idget", "boxwidget") == 0.0  # ... of two words: what is left before it is no word
    assert lexical("gizmo", "gizmo crate") == MODIFIER  # what a crate of it is called
    assert lexical("crate", "gizmo crate") == HEAD
    assert lexical("gizmo", "widget") == 0.0


def test_a_stated_attribute_the_thing_lacks_rejects_it_even_without_a_sibling_in_view(sim):
    b = Beliefs()
    b.add_nodes([_fixture("shelf_1", "shelf"), _node("g1", "gizmo", "shelf_1", material="oak"),
                 _node("w1", "widget", "shelf_1", material="tin")])
    req = rq.parse("Bring me the tin gizmo.", NOW)
    g = ground(sim, b, req)
    assert g.labels == ["gizmo"]
    # "tin" is a word this home uses for materials, and the only gizmo known is oak
    assert fit_of(sim, b, req, g, b.entities["g1"]) < 0.6
    # once a tin gizmo is seen, it fits and the oak one still does not
    b.add_nodes([_node("g2", "gizmo", "shelf_1", material="tin")])
    assert fit_of(sim, b, req, g, b.entities["g2"]) > fit_of(sim, b, req, g, b.entities["g1"])
    # words that name no attribute here ("quickly", "over") weigh on nothing
    plain = rq.parse("Bring the gizmo over quickly.", NOW)
    assert fit_of(sim, b, plain, ground(sim, b, plain), b.entities["g1"]) >= 0.6


def test_places_are_named_by_the_best_known_fixture_or_room(sim):
    b = Beliefs()
    b.add_nodes([_fixture("boxwidget_1", "boxwidget", "atrium"), _fixture("piano_1", "piano", "gallery"),
                 _fixture("aquarium_1", "aquarium", "gallery")])
    assert ground_place(sim, b, "the widget")[0] == ["boxwidget_1"]  # a compound's head
    assert ground_place(sim, b, "the pianoforte")[0] == ["piano_1"]  # the best known fixture, below NAMED
    assert ground_place(sim, b, "the atrium")[1] == ["atrium"]
    # of two fixtures alike, the one whose own attributes the words name
    b.add_nodes([_fixture("piano_2", "piano", "gallery", color="mauve")])
    assert ground_place(sim, b, "the mauve piano")[0] == ["piano_2"]


def test_a_match_must_not_differ_in_any_attribute_both_show():
    b = Beliefs()
    b.add_nodes([_fixture("shelf_1", "shelf"), _node("a", "gizmo", "shelf_1", color="teal", pattern="dotted"),
                 _node("b", "gizmo", "shelf_1", color="teal", pattern="striped"),
                 _node("c", "gizmo", "shelf_1", color="teal")])
    ref = b.entities["a"]
    assert match_fit(ref, b.entities["b"]) == 0.0  # the pattern differs
    assert match_fit(ref, b.entities["c"]) > 0.0  # nothing seen differs
    assert match_fit(ref, ref) == 0.0


def test_a_name_is_the_label_clearly_nearest_or_the_one_its_head_names():
    from mnemo_planner.grounding import named
    from mnemo_planner.matching import LabelMatch

    # close matches: the label named by words ending at the phrase's head wins over a qualifier's
    both = [LabelMatch("gizmo", 1.0, "gizmo"), LabelMatch("widget stand", 0.82, "stand")]
    assert [m.label for m in named(both, head="stand")] == ["widget stand"]
    assert [m.label for m in named(both, head="")] == ["gizmo"]
    # no close match: the nearest label only when it is clearly nearer than the next (words the lexicon
    # lacks: for two things it knows and holds apart, see test_lexicon)
    assert [m.label for m in named([LabelMatch("zorp", 0.7, "blick"), LabelMatch("glim", 0.5, "blick")])] == ["zorp"]
    assert named([LabelMatch("zorp", 0.7, "blick"), LabelMatch("glim", 0.6, "blick")]) == []
    assert named([LabelMatch("zorp", 0.5, "blick"), LabelMatch("glim", 0.2, "blick")]) == []  # too far from anything
    assert [m.label for m in named([LabelMatch("zorp", 0.6, "blick")])] == ["zorp"]  # one label: nearer than noise
    assert named([]) == []


def test_a_word_before_a_name_that_only_qualifies_the_label_does_not_count_against_it(sim):
    """"A sticky gizmo" of a "gizmo crate": the word qualifies the gizmos the crate holds, not the crate."""
    b = Beliefs()
    b.add_nodes([_fixture("shelf_1", "shelf"), _node("c1", "gizmo crate", "shelf_1", color="teal")])
    req = rq.parse("I want a sticky gizmo.", NOW)
    g = ground(sim, b, req)
    assert g.labels == ["gizmo crate"] and g.adjacent == []
    assert fit_of(sim, b, req, g, b.entities["c1"]) >= 0.6


def test_a_noun_phrase_is_judged_by_words_that_end_at_its_head(sim):
    """"The gizmo stand" names a gizmo only as far as the whole phrase is near it (the embedding's
    judgement), never by the qualifier alone; a participle after the noun is no head."""
    m = {x.label: x for x in match_labels(sim, ["gizmo", "stand"], ["gizmo", "widget"], noun_phrase=True)}
    assert m["gizmo"].span == "gizmo stand" and m["gizmo"].score == pytest.approx(
        float(sim.matrix(["gizmo stand"], ["gizmo"])[0, 0]))
    assert match_labels(sim, ["gizmo", "stand"], ["gizmo"])[0].score == pytest.approx(1.0)  # any span, outside a noun phrase
    assert match_labels(sim, ["gizmo", "lying"], ["gizmo"], noun_phrase=True)[0].score == pytest.approx(1.0)


def test_words_inside_the_naming_span_still_tell_instances_apart(sim):
    """A label named by its head with other words before it ("the teal pocket gizmo crate" of a
    "gizmo crate"): those words are attribute words too, so the instance that bears them fits best."""
    b = Beliefs()
    b.add_nodes([_fixture("shelf_1", "shelf"), _node("c1", "gizmo crate", "shelf_1", color="mauve", size="huge"),
                 _node("c2", "gizmo crate", "shelf_1", color="teal", brand="Zorblax")])
    for text, want in (("Bring me the Zorblax wobble crate.", "c2"), ("Bring me the huge wobble crate.", "c1")):
        req = rq.parse(text, NOW)
        g = ground(sim, b, req)
        assert g.labels == ["gizmo crate"], text
        fits = {k: fit_of(sim, b, req, g, b.entities[k]) for k in ("c1", "c2")}
        assert max(fits, key=fits.get) == want, (text, fits)


def test_of_several_fixtures_named_alike_by_their_head_the_nearest_whole_name_comes_first(sim):
    b = Beliefs()
    b.add_nodes([_fixture("t1", "side table"), _fixture("t2", "dining table"), _fixture("t3", "coffee table"),
                 _fixture("t4", "bedside table")])
    for phrase, first in (("the supper table", "t2"), ("the espresso table", "t3"), ("the sleeping table", "t4")):
        fixtures, _ = ground_place(sim, b, phrase)
        assert set(fixtures) == {"t1", "t2", "t3", "t4"} and fixtures[0] == first, (phrase, fixtures)


def test_a_room_named_by_a_head_most_rooms_share_is_judged_by_the_words_before_it(sim):
    b = Beliefs()
    rooms = ["living_room", "bedroom", "bathroom", "dining_room", "utility_room", "playroom", "kitchen"]
    b.add_nodes([_fixture(f"shelf_{i}", "wall shelf", room=r) for i, r in enumerate(rooms)])
    fixtures, chosen = ground_place(sim, b, "the shelf in the family room")
    assert "living_room" in chosen and not {"bathroom", "utility_room", "playroom", "kitchen"} & set(chosen), chosen
    assert fixtures and all(b.fixtures[f].room in chosen for f in fixtures)


def test_a_room_word_before_a_fixture_that_room_lacks_qualifies_the_fixture(sim):
    b = Beliefs()
    b.add_nodes([_fixture("t1", "dining table", room="dining_room"), _fixture("t2", "coffee table", room="lounge"),
                 _fixture("c1", "counter", room="kitchen")])
    fixtures, chosen = ground_place(sim, b, "the kitchen table")
    assert fixtures[0] == "t1" and set(fixtures) == {"t1", "t2"} and chosen == []
    assert ground_place(sim, b, "the counter in the kitchen") == (["c1"], ["kitchen"])


def test_a_compound_written_joined_and_a_slip_in_a_longer_name_s_head_name_the_label():
    assert lexical("gizmobox", "gizmo box") == 1.0
    assert lexical("teal gizmoo", "crate of gizmo") == HEAD - 0.05
    assert lexical("gizmos", "crate of gizmo") == HEAD
    assert lexical("gadget", "crate of gizmo") == 0.0


def test_a_word_only_one_kind_bears_in_an_attribute_names_that_kind(sim):
    b = Beliefs()  # (made-up names, so that neither the embedding model nor a lexicon relates them)
    b.add_nodes([_fixture("p1", "plinth"), _node("g1", "blicket", "p1", brand="Zenthra", color="teal"),
                 _node("w1", "dax", "p1", color="teal"), _node("w2", "dax", "p1", brand="Quorvo")])
    g = ground(sim, b, rq.parse("Where's the Zenthra snorkum?", NOW))
    assert g.labels == ["blicket"] and "zenthra" in g.modifiers
    assert ground(sim, b, rq.parse("Where's the teal snorkum?", NOW)).labels == []  # borne by two kinds
    assert ground(sim, b, rq.parse("Where's the Zenthra Quorvo snorkum?", NOW)).labels == []  # words disagree
    assert ground(sim, b, rq.parse("I need something to make a teal Zenthra.", NOW)).labels == []  # a need


def test_within_a_window_what_was_seen_then_outweighs_the_graph_s_stay(sim):
    """The graph holds a gizmo on the plinth from the first look to the last (another gizmo took its
    place in between, and the graph did not tell them apart); memory saw it in the crate then, and the
    other one on the plinth: "the gizmo that was on the plinth two days ago" is the other one."""
    b = Beliefs()
    b.add_nodes([_fixture("plinth_1", "plinth"), _fixture("crate_1", "crate"),
                 {**_node("n1", "gizmo", "plinth_1", color="teal"), "last_seen": NOW,
                  "trail": [{"since": 0.0, "until": NOW, "parent": "plinth_1"}]},
                 {**_node("n2", "gizmo", "crate_1", color="mauve"), "last_seen": NOW,
                  "trail": [{"since": 2.5 * 86400, "until": NOW, "parent": "crate_1"}]}])
    day1 = 86400.0 + 10 * 3600
    b.add_records([{"id": "r1", "stamp": day1, "room": "den", "sightings": [
        {"object_id": "n1", "label": "gizmo", "support": "crate_1", "attributes": {"color": "teal"}},
        {"object_id": "n2", "label": "gizmo", "support": "plinth_1", "attributes": {"color": "mauve"}}]}])
    req = rq.parse("Bring me the gizmo that was on the plinth two days ago.", NOW)
    g = ground(sim, b, req)
    fits = {k: fit_of(sim, b, req, g, b.entities[k]) for k in ("n1", "n2")}
    assert fits["n2"] > fits["n1"], fits
    assert set(b.entities["n1"].places()) == {"plinth_1", "crate_1"}  # (without a window: every stay counts)


def test_a_name_holding_a_function_word_is_named_when_the_request_spells_it_whole(sim):
    """The noun phrase stops at its first function word; a known name that runs on past it ("a dax up
    kit") is still the thing named, and the words before it qualify it."""
    b = Beliefs()
    b.add_nodes([_fixture("shelf_1", "shelf"), _node("k1", "dax up kit", "shelf_1", color="mauve"),
                 _node("d1", "dax", "shelf_1", color="teal")])
    req = rq.parse("Could you bring me the mauve dax up kit?", NOW)
    g = ground(sim, b, req)
    assert g.labels == ["dax up kit"], g
    assert "mauve" in g.modifiers + g.qualifiers


def test_a_need_stated_in_a_sentence_of_its_own_is_the_need(sim):
    b = Beliefs()
    b.add_nodes([_fixture("p1", "plinth"), _node("g1", "blicket", "p1")])
    g = ground(sim, b, rq.parse("The quorvo has gone flat again. Fetch whichever suits.", NOW))
    assert g.labels == [] and "quorvo" in g.need.split() and "flat" in g.need.split()
    assert "whatever" not in g.need.split()  # (a function word)
    # a thing named in the request is the thing; the other sentence is no need then
    g = ground(sim, b, rq.parse("The quorvo has gone flat again. Bring me the snorkum.", NOW))
    assert g.named == "snorkum" and "quorvo" not in g.need.split()


def test_a_word_of_the_language_before_another_noun_qualifies_that_noun_not_its_bearer(sim):
    b = Beliefs()  # the only burlap thing here is a blicket; an anvil was never seen
    b.add_nodes([_fixture("p1", "plinth"), _node("g1", "blicket", "p1", material="burlap", brand="Zenthra")])
    g = ground(sim, b, rq.parse("Bring me the burlap anvil.", NOW))
    assert g.labels == [] and g.named == "burlap anvil"
    assert ground(sim, b, rq.parse("Bring me the Zenthra anvil.", NOW)).labels == ["blicket"]  # a brand names it


def test_a_fixture_is_told_from_its_namesakes_by_its_own_attribute_said_inside_its_name(sim):
    b = Beliefs()
    b.add_nodes([_fixture("side_1", "side table", color="mauve"), _fixture("side_2", "side table", color="teal"),
                 _fixture("bench_1", "work table")])
    fixtures, _ = ground_place(sim, b, "the teal dax table")
    assert fixtures == ["side_2"], fixtures


def test_a_word_of_the_language_one_slip_from_what_one_instance_bears_points_at_it(sim):
    b = Beliefs()
    b.add_nodes([_fixture("shelf_1", "shelf"), _node("g1", "gizmo", "shelf_1", finish="bright"),
                 _node("g2", "gizmo", "shelf_1", finish="paisley")])
    req = rq.parse("Fetch the bight gizmo.", NOW)  # (a word of the language, so no slip to mend as such)
    g = ground(sim, b, req)
    assert fit_of(sim, b, req, g, b.entities["g1"]) > fit_of(sim, b, req, g, b.entities["g2"])
    # a word elsewhere in the sentence is no attribute said, whatever it is one slip from
    b.add_nodes([_node("g3", "gizmo", "shelf_1", finish="pink")])
    req = rq.parse("Pick the gizmo up, would you?", NOW)
    g = ground(sim, b, req)
    assert fit_of(sim, b, req, g, b.entities["g3"]) == fit_of(sim, b, req, g, b.entities["g2"])


def test_another_name_said_with_what_the_thing_bears_names_its_kind_and_instance(sim):
    # "urn" names no label here, and "percolator" is not near it as a name; as a whole, with what one
    # percolator bears, the words describe that percolator and no other kind
    b = Beliefs()
    b.add_nodes([_fixture("shelf_1", "shelf"), _node("p1", "percolator", "shelf_1", material="steel"),
                 _node("p2", "percolator", "shelf_1", material="copper"), _node("t1", "trumpet", "shelf_1", material="brass"),
                 _node("z1", "gazebo", "shelf_1", material="canvas")])
    req = rq.parse("Bring me the copper urn, please.", NOW)
    g = ground(sim, b, req)
    assert g.labels == ["percolator"]
    assert fit_of(sim, b, req, g, b.entities["p2"]) > fit_of(sim, b, req, g, b.entities["p1"])
    # words near no thing as a whole still name nothing (they are searched for by name)
    assert ground(sim, b, rq.parse("Bring me the rusty anvil.", NOW)).labels == []


def test_a_place_word_may_mean_a_fixture_of_a_kind_of_the_one_it_names(sim):
    # the stool the words name holds no dax; the footstool (a kind of stool) in that room holds one, and
    # it is the reference of "a dax like the dax on the stool", not a dax in another room
    b = Beliefs()
    b.add_nodes([_fixture("stool_1", "stool"), _fixture("footstool_1", "footstool"), _fixture("bed_1", "bed"),
                 _fixture("shelf_9", "shelf", room="attic"),
                 _node("d1", "dax", "footstool_1", material="felt"), _node("d2", "dax", "bed_1", material="felt"),
                 {**_node("d3", "dax", "shelf_9", material="wool"), "room": "attic", "last_seen": 20.0}])
    req = rq.parse("Fetch a dax just like the dax on the stool in the den.", NOW)
    g = ground(sim, b, req)
    assert g.fixtures == ["stool_1"] and g.kin == ["footstool_1"]
    ranked = rank_entities(sim, b, req, g, None)
    assert g.reference.key == "d1" and [e.key for _, e in ranked] == ["d2"]


def test_a_fixture_of_a_more_general_kind_than_the_one_named_is_not_what_the_words_mean(sim):
    # a footstool is a kind of stool: "the footstool" names the footstool alone, never the plain stool
    # (which would be searched next as though named, before places the thing is likelier to be)
    b = Beliefs()
    b.add_nodes([_fixture("stool_1", "stool"), _fixture("footstool_1", "footstool"), _fixture("bed_1", "bed"),
                 _node("d1", "dax", "footstool_1", material="felt")])
    g = ground(sim, b, rq.parse("Bring the dax that is usually on the footstool.", NOW))
    assert g.fixtures == ["footstool_1"] and g.kin == []


def test_a_match_named_before_its_place_is_not_outbid_by_the_place_words(sim):
    # "blick" is the place's word and the first word of another label: the thing is the one named before
    b = Beliefs()
    b.add_nodes([_fixture("stool_1", "blick stool"), _fixture("shelf_1", "shelf"),
                 _node("l1", "coffee maker", "stool_1", material="tin"), _node("l2", "coffee maker", "shelf_1", material="tin"),
                 _node("w1", "blick widget", "shelf_1", material="tin"), _node("w2", "blick widget", "shelf_1", material="tin")])
    req = rq.parse("Fetch a percolator just like the percolator on the blick stool.", NOW)
    g = ground(sim, b, req)
    ranked = rank_entities(sim, b, req, g, None)
    assert g.labels == ["coffee maker"] and g.reference.key == "l1" and [e.key for _, e in ranked] == ["l2"]


def test_a_fixture_named_by_all_the_words_wins_over_one_named_by_a_part_of_them(sim):
    b = Beliefs()
    b.add_nodes([_fixture("p1", "plinth", room="den"), _fixture("pd1", "plinth drawer", room="den"),
                 _fixture("dp1", "den plinth", room="hall")])
    assert ground_place(sim, b, "the plinth drawer") == (["pd1"], [])  # not the plinth it is part of
    # a fixture so called outbids the room of that name and what stands in it
    assert ground_place(sim, b, "the den plinth") == (["dp1"], [])
    assert ground_place(sim, b, "the plinth in the den") == (["p1"], ["den"])


def test_words_that_name_no_fixture_and_no_room_name_the_room_clearly_nearest(sim):
    b = Beliefs()
    b.add_nodes([_fixture("s1", "plinth", room="chapel"), _fixture("s2", "plinth", room="cellar"),
                 _fixture("s3", "plinth", room="nursery")])
    assert ground_place(sim, b, "the prayer room") == ([], ["chapel"])
    assert ground_place(sim, b, "the quorvo") == ([], [])  # near no room: nothing


def test_in_a_window_the_thing_seen_at_the_nearest_of_fixtures_named_alike_comes_first(sim):
    b = Beliefs()
    b.add_nodes([_fixture("t1", "dax table"), _fixture("t2", "blick table"),
                 {**_node("g1", "gizmo", "t1"), "last_seen": NOW + 10 * 3600,
                  "trail": [{"since": NOW, "until": NOW + 10 * 3600, "parent": "t1"}]},
                 {**_node("g2", "gizmo", "t2"), "last_seen": NOW + 11 * 3600,  # (seen last: first on a tie)
                  "trail": [{"since": NOW, "until": NOW + 11 * 3600, "parent": "t2"}]}])
    req = rq.parse("Bring me the gizmo seen on the daxy table this morning.", NOW + 12 * 3600)
    g = ground(sim, b, req)
    assert g.fixtures[0] == "t1" and set(g.fixtures) == {"t1", "t2"}
    ranked = rank_entities(sim, b, req, g, None)
    assert [e.key for _, e in ranked] == ["g1", "g2"], ranked


def test_a_compound_the_lexicon_knows_is_judged_whole_inside_longer_words(sim):
    """"the mauve writing table": a writing table (another name of an escritoire) that is mauve, not
    any table by its head word."""
    b = Beliefs()
    b.add_nodes([_fixture("e1", "escritoire", color="mauve"), _fixture("t1", "dining table", color="mauve")])
    assert ground_place(sim, b, "the mauve writing table") == (["e1"], [])


def test_a_kind_whose_things_bear_none_of_the_options_offered_is_not_the_one_asked_about(sim):
    b = Beliefs()
    b.add_nodes([_fixture("p1", "plinth"), _node("b1", "blick spray", "p1", color="grey"),
                 _node("b2", "blick spray", "p1", color="brown"), _node("s1", "snorkum", "p1", color="mauve"),
                 _node("s2", "snorkum", "p1", color="teal")])
    req = rq.parse("Of the dax sprays, which one stood on the plinth, the mauve one or the teal one?", NOW)
    assert ground(sim, b, req).labels == ["snorkum"]
    # where things of the kind named bear an option, the kind named stands
    b.add_nodes([_node("b3", "blick spray", "p1", color="mauve")])
    assert ground(sim, b, req).labels == ["blick spray"]


def test_a_room_word_before_a_fixture_named_by_its_head_alone_stays_the_room_s(sim):
    b = Beliefs()
    b.add_nodes([_fixture("t1", "dax table", room="observatory"), _fixture("t2", "blick table", room="cellar")])
    assert ground_place(sim, b, "the telescope room table") == (["t1"], ["observatory"])


def test_a_name_only_one_kind_bears_outbids_a_kind_the_words_only_resemble(sim):
    # "cup" resembles the home's mugs, but only the gizmo says "Zenthra": the thing is that gizmo
    b = Beliefs()
    b.add_nodes([_fixture("shelf_1", "shelf"), _node("m1", "mug", "shelf_1", color="teal"),
                 _node("g1", "gizmo", "shelf_1", brand="Zenthra")])
    assert ground(sim, b, rq.parse("Bring me the cup.", NOW)).labels == ["mug"]
    assert ground(sim, b, rq.parse("Bring me the Zenthra cup.", NOW)).labels == ["gizmo"]
    # a name spelled by the label itself stands ("the Zenthra mug" is a mug never seen, not the gizmo)
    assert ground(sim, b, rq.parse("Bring me the Zenthra mug.", NOW)).labels == ["mug"]


def test_a_question_about_one_thing_may_hold_it_in_the_place_slot_though_its_words_could_name_a_room(sim):
    b = Beliefs()
    b.add_nodes([_fixture("plinth_1", "plinth", "atrium"), _node("g1", "atrium gizmo", "plinth_1")])
    g = ground(sim, b, rq.parse("When did you last set eyes on the atrium gizmo?", NOW))
    assert g.labels == ["atrium gizmo"], g
    # a question about what a place holds keeps its place
    g = ground(sim, b, rq.parse("What was on the plinth in the atrium?", NOW))
    assert g.fixtures == ["plinth_1"] and not g.labels, g


def test_a_room_named_by_another_name_picks_which_of_alike_fixtures_is_meant(sim):
    """Two plinths, one in the hallway and one in the den; "the plinth in the entryway" names no room of
    the home as a place phrase would (below PLACE), but of the plinths' rooms it is clearly the hallway's."""
    b = Beliefs()
    b.add_nodes([_fixture("plinth_1", "plinth", "hallway"), _fixture("plinth_2", "plinth", "den")])
    assert ground_place(sim, b, "the plinth in the entryway")[0] == ["plinth_1"]
    assert sorted(ground_place(sim, b, "the plinth")[0]) == ["plinth_1", "plinth_2"]


def test_in_a_window_a_fixture_the_place_word_may_mean_counts_as_the_place(sim):
    # the stool the words name held no dax yesterday; the footstool (a kind of stool) held one then, which
    # has been moved to the bed since: that is the dax that was on the stool yesterday, not the one on the
    # bed all along
    b = Beliefs()
    b.add_nodes([_fixture("stool_1", "stool"), _fixture("footstool_1", "footstool"), _fixture("bed_1", "bed"),
                 {**_node("d1", "dax", "bed_1", material="felt"), "last_seen": NOW,
                  "trail": [{"since": 0.0, "until": 2.5 * 86400, "parent": "footstool_1"},
                            {"since": 2.6 * 86400, "until": NOW, "parent": "bed_1"}]},
                 {**_node("d2", "dax", "bed_1", material="wool"), "last_seen": NOW,
                  "trail": [{"since": 0.0, "until": NOW, "parent": "bed_1"}]}])
    req = rq.parse("Bring me the dax that was on the stool yesterday.", NOW + 12 * 3600)
    g = ground(sim, b, req)
    assert g.fixtures == ["stool_1"] and g.kin == ["footstool_1"]
    ranked = rank_entities(sim, b, req, g, None)
    assert [e.key for _, e in ranked] == ["d1"], ranked


def test_a_refusal_refuses_the_thing_that_bears_most_of_its_words(sim):
    # "not the mauve felt one": the dax that is mauve and felt is refused, not the teal felt one, which
    # bears one of the words only
    b = Beliefs()
    b.add_nodes([_fixture("plinth_1", "plinth"), _node("d1", "dax", "plinth_1", color="mauve", material="felt"),
                 _node("d2", "dax", "plinth_1", color="teal", material="felt")])
    req = rq.parse("Bring me the dax, not the mauve felt one.", NOW)
    assert set(req.excluded) >= {"mauve", "felt"}
    g = ground(sim, b, req)
    fits = {k: fit_of(sim, b, req, g, b.entities[k]) for k in ("d1", "d2")}
    assert fits["d1"] < 0 < fits["d2"], fits
    one = Beliefs()  # (alone, a thing that bears a word refused is refused)
    one.add_nodes([_fixture("plinth_1", "plinth"), _node("d2", "dax", "plinth_1", color="teal", material="felt")])
    assert fit_of(sim, one, req, ground(sim, one, req), one.entities["d2"]) < 0


def test_one_like_a_thing_named_by_no_label_is_one_like_what_its_place_holds_nearest_the_name(sim):
    # no label of the home is a carafe; of the two things on the table, the embedding model puts the mug
    # nearer the word than the bowl: the reference is that mug, and the answer the mug like it
    b = Beliefs()
    b.add_nodes([_fixture("table_1", "table"), _fixture("vault_1", "cupboard"),
                 _node("m1", "mug", "table_1", color="red"), _node("b1", "bowl", "table_1", color="red"),
                 _node("m2", "mug", "vault_1", color="red"), _node("m3", "mug", "vault_1", color="blue")])
    req = rq.parse("Fetch one just like the carafe on the table.", NOW)
    g = ground(sim, b, req)
    assert g.labels == ["mug"]
    ranked = rank_entities(sim, b, req, g, None)
    assert g.reference.key == "m1" and [e.key for _, e in ranked] == ["m2"], ranked


def test_a_brand_said_inside_another_name_of_the_thing_still_tells_its_instances_apart(sim):
    # the words that name the truck run from the brand to "lorry" (no word of the label); the brand,
    # a name of no kind, is what tells the two trucks apart
    b = Beliefs()
    b.add_nodes([_fixture("plinth_1", "plinth"), _node("d1", "truck", "plinth_1", color="red", brand="Zenthra"),
                 _node("d2", "truck", "plinth_1", color="red", brand="Quorvo")])
    req = rq.parse("Fetch the Zenthra goods lorry.", NOW)
    g = ground(sim, b, req)
    assert g.labels == ["truck"] and "zenthra" in g.span.split()
    fits = {k: fit_of(sim, b, req, g, b.entities[k]) for k in ("d1", "d2")}
    assert fits["d1"] > 0 > fits["d2"], fits


def test_a_search_in_vain_settles_for_a_thing_found_where_the_request_said_to_search(sim):
    # no label is a carafe; the embedding model puts the teapot on the table a little nearer the word than
    # the bowl in a crate, but the request said to search the crates
    b = Beliefs()
    b.add_nodes([_fixture("table_1", "table"), _fixture("crate_1", "crate"), _fixture("crate_2", "crate"),
                 _node("t1", "teapot", "table_1"), _node("b1", "bowl", "crate_1")])
    req = rq.parse("Check the crates for the carafe.", NOW)
    g = ground(sim, b, req)
    assert not g.labels and set(g.scope) == {"crate_1", "crate_2"}
    best = settle_for(sim, b, req, g, set(), set(), frozenset({"crate_1", "crate_2"}))
    assert best is not None and best[1].key == "b1", best


def test_a_colour_said_inside_another_name_of_the_thing_still_tells_its_instances_apart(sim):
    b = Beliefs()
    b.add_nodes([_fixture("plinth_1", "plinth"), _node("d1", "truck", "plinth_1", color="mauve"),
                 _node("d2", "truck", "plinth_1", color="teal")])
    req = rq.parse("Fetch the teal goods lorry.", NOW)
    g = ground(sim, b, req)
    assert g.labels == ["truck"]
    fits = {k: fit_of(sim, b, req, g, b.entities[k]) for k in ("d1", "d2")}
    assert fits["d2"] > fits["d1"], (g.span, fits)


def test_a_word_that_makes_one_known_name_with_the_name_said_is_no_attribute(sim):
    # "lemon curd" is a name the lexicon knows: "lemon" there is no colour said, and the mauve jar fits
    b = Beliefs()
    b.add_nodes([_fixture("plinth_1", "plinth"), _node("d1", "curd jar", "plinth_1", color="mauve"),
                 _node("d2", "curd jar", "plinth_1", color="lemon")])
    req = rq.parse("Bring me the mauve lemon curd.", NOW)
    g = ground(sim, b, req)
    assert g.labels == ["curd jar"] and g.compound == ["lemon"]
    fits = {k: fit_of(sim, b, req, g, b.entities[k]) for k in ("d1", "d2")}
    assert fits["d1"] > 0 > fits["d2"], fits
    # ... though it tells for the thing that bears it, where it is all that was said
    req = rq.parse("Bring me the lemon curd.", NOW)
    g = ground(sim, b, req)
    fits = {k: fit_of(sim, b, req, g, b.entities[k]) for k in ("d1", "d2")}
    assert fits["d2"] > fits["d1"] > 0, fits


def test_a_value_word_inside_a_known_name_names_no_kind_by_what_it_bears(sim):
    # only the glim is cream-coloured, but "cold cream" is a name of its own, not the cream one
    b = Beliefs()
    b.add_nodes([_fixture("plinth_1", "plinth"), _node("g1", "glim", "plinth_1", color="cream"),
                 _node("l1", "lather tube", "plinth_1", color="white")])
    g = ground(sim, b, rq.parse("Where did you last see the cold cream?", NOW))
    assert "glim" not in g.labels, g.labels


def test_a_room_word_that_makes_a_known_name_with_the_fixture_yields_to_the_room_named_outright(sim):
    # "garden chair" is a kind of chair the lexicon knows: the chair meant is the one in the den
    b = Beliefs()
    b.add_nodes([_fixture("chair_1", "chair", room="garden"), _fixture("chair_2", "chair", room="den")])
    assert ground_place(sim, b, "garden chair in the den") == (["chair_2"], ["den"])
    assert ground_place(sim, b, "chair in the garden") == (["chair_1"], ["garden"])


def test_of_the_places_the_words_name_alike_the_thing_at_the_one_they_come_nearest_ranks_first(sim):
    """Two plinths in two rooms that the place words name by no name of the home's ("up in the bell
    tower", "in the vault"): the gizmo on the plinth whose room the words come nearest ranks first, either
    way round."""
    b = Beliefs()
    b.add_nodes([_fixture("plinth_1", "plinth", "crypt"), _fixture("plinth_2", "plinth", "belfry"),
                 _node("g1", "gizmo", "plinth_1"), _node("g2", "gizmo", "plinth_2")])
    for words, wanted in (("up in the bell tower", "g2"), ("in the vault", "g1")):
        req = rq.parse(f"Bring me the gizmo from the plinth {words}.", NOW)
        g = ground(sim, b, req)
        assert set(g.fixtures) == {"plinth_1", "plinth_2"}, g
        assert rank_entities(sim, b, req, g, None)[0][1].key == wanted


def test_place_words_that_name_no_place_of_the_home_still_point_at_the_thing_whose_place_they_come_nearest(sim):
    """"The gizmo from the shipping box" where the home has a stone plinth and a cargo crate: the words
    name neither, but come clearly nearer the crate, so the gizmo there ranks first (the other one was seen
    later)."""
    b = Beliefs()
    b.add_nodes([_fixture("plinth_1", "stone plinth"), _fixture("crate_1", "cargo crate"),
                 dict(_node("g1", "gizmo", "plinth_1"), last_seen=20.0), _node("g2", "gizmo", "crate_1")])
    req = rq.parse("Bring me the gizmo from the shipping box.", NOW)
    g = ground(sim, b, req)
    assert not g.fixtures and not g.rooms, g
    assert rank_entities(sim, b, req, g, None)[0][1].key == "g2"


def test_an_owner_named_with_a_slip_is_the_owner_one_slip_away_unless_another_is_so_spelt(sim):
    b = Beliefs()
    b.add_nodes([_fixture("plinth_1", "plinth"), _node("g1", "gizmo", "plinth_1", color="teal"),
                 _node("g2", "gizmo", "plinth_1", color="mauve", owner="Zenthra")])
    req = rq.parse("Bring me Zentra's gizmo.", NOW)
    assert rank_entities(sim, b, req, ground(sim, b, req), None)[0][1].key == "g2"
    b.add_nodes([_node("g3", "gizmo", "plinth_1", color="ochre", owner="Zentra")])
    assert rank_entities(sim, b, req, ground(sim, b, req), None)[0][1].key == "g3"


def test_quoted_text_is_matched_by_the_words_of_a_value_not_by_its_letters(sim):
    """The teal gizmo is titled 'Zorp Blick Mauves', the mauve one 'Quorvo Dax': the quoted title names the
    teal one only, though the mauve one's colour is inside the quote's letters."""
    b = Beliefs()
    b.add_nodes([_fixture("plinth_1", "plinth"), _node("g1", "gizmo", "plinth_1", color="teal", title="Zorp Blick Mauves"),
                 _node("g2", "gizmo", "plinth_1", color="mauve", title="Quorvo Dax")])
    req = rq.parse("I want the 'Zorp Blick Mauves' gizmo.", NOW)
    ranked = rank_entities(sim, b, req, ground(sim, b, req), None)
    assert ranked[0][1].key == "g1" and all(f < ranked[0][0] for f, _ in ranked[1:])


def test_a_need_is_weighed_without_the_clauses_that_only_ask_the_robot(sim):
    """What is said to the robot ("might you locate whichever gadget suits", "grab a remedy") tells
    nothing of the need; the clauses that state it are what the embedding model weighs."""
    assert situation("The plinth wobbles, might you locate whichever gadget suits?") == "the plinth wobbles"
    assert situation("My dax is all frobbed, so grab a remedy.") == "my dax is all frobbed"
    assert situation("Frobbing the dax is overdue; help with that.") == "frobbing the dax is overdue"
    # nothing but the request itself: the need is all of it
    text = "Might you locate an item to frob the dax with?"
    assert situation(text) == text
    b = Beliefs()
    b.add_nodes([_fixture("p1", "plinth"), _node("g1", "blicket", "p1")])
    g = ground(sim, b, rq.parse("The quorvo has gone flat again. Fetch whichever suits.", NOW))
    assert g.situation and g.need == "the quorvo has gone flat again", g.need


class _LastBits:
    """The embedding model as a batch may leave it: each vector's length off 1 in its last bits."""

    def __init__(self, inner, scale):
        self.inner, self.scale = inner, scale

    def embed(self, texts):
        return [np.asarray(v, dtype=np.float32) * np.float32(self.scale(t)) for t, v in zip(texts, self.inner.embed(texts))]


def test_a_name_against_itself_ties_whatever_the_last_bits_of_its_vector(sim):
    """A text's vector differs in its last bits with the texts it was embedded beside; a fixture named
    by all the words still wins over a room named by one of them, however those bits fall."""
    b = Beliefs()
    b.add_nodes([_fixture("p1", "plinth", room="den"), _fixture("dp1", "den plinth", room="hall")])
    for one_word in (1.0 + 2e-7, 1.0 - 2e-7):
        noisy = Similarity(_LastBits(sim.embedder, lambda t: one_word if len(t.split()) == 1 else 1.0))
        assert float(noisy.matrix(["den"], ["den"])[0, 0]) <= 1.0
        assert ground_place(noisy, b, "the den plinth") == (["dp1"], [])
