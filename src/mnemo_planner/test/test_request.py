"""Reading instructions into typed requests by function words (no object vocabulary)."""
from __future__ import annotations

from mnemo_planner import request as rq

NOW = 3 * 86400.0 + 18 * 3600.0


def test_fetch_with_place_time_habit_owner_and_quotes():
    r = rq.parse("Could you bring me the gadget that was on the big shelf yesterday morning, please?", NOW)
    assert r.intent == rq.FETCH and "gadget" in r.words and r.place == "big shelf" and r.relation == "on"
    assert r.window == (2 * 86400.0 + 5 * 3600.0, 2 * 86400.0 + 12 * 3600.0)
    r = rq.parse("Fetch the widget that usually sits by the bench.", NOW)
    assert r.habit and r.place == "bench"
    # the adjective says it as the adverb does, and is no word of the thing's
    r = rq.parse("I'd like my usual widget from the bench.", NOW)
    assert r.habit and r.place == "bench" and r.words == ("widget",)
    r = rq.parse("Get Zora's widget with 'Top Dog' printed on it.", NOW)
    assert r.owner == "zora" and r.quoted == ("Top Dog",)


def test_negation_and_options_and_matching():
    assert rq.parse("I want the gizmo, not the yellow one.", NOW).excluded == ("yellow",)
    r = rq.parse("Which of the gizmos was on the bench this morning, the yellow one or the teal one?", NOW)
    assert r.intent == rq.RECALL and r.kind == rq.WHICH and r.options == ("yellow", "teal")
    assert rq.parse("Find one exactly like the gizmo on the bench.", NOW).match


def test_question_kinds():
    assert rq.parse("Where did you last see the gizmo?", NOW).kind == rq.WHERE
    assert rq.parse("When did you last notice the gizmo?", NOW).kind == rq.WHEN
    assert rq.parse("What was next to the gizmo on the bench?", NOW).kind == rq.WITH
    assert rq.parse("How many gizmos did you see in the den?", NOW).kind == rq.COUNT
    r = rq.parse("What colour is the gizmo you saw in the den?", NOW)
    assert r.kind == rq.ATTRIBUTE and r.asks == "colour"
    assert rq.parse("Apart from the gizmo, what else did the bench have on it?", NOW).intent == rq.RECALL


def test_follow_ups_and_typos():
    assert rq.parse("Ok, brng it here.", NOW).pronoun  # one slip of the keyboard in a function word
    assert rq.parse("Now the ohter one.", NOW).other
    r = rq.parse("Where are my gizmos? Bring them over.", NOW)
    assert r.intent == rq.FETCH and "gizmos" in r.words
    r = rq.parse("Check the bins in the den and find the gizmo.", NOW)
    assert r.intent == rq.LOCATE and r.scope == "the bins in the den"
    # a bare demonstrative as the whole object of a fetching verb refers as "it" does; before a noun it
    # only picks the thing out
    assert rq.parse("Great, carry that over to me.", NOW).pronoun
    assert rq.parse("Fetch this for me when you can.", NOW).pronoun
    r = rq.parse("Fetch that mauve gizmo for me.", NOW)
    assert not r.pronoun and r.words == ("mauve", "gizmo")


def test_named_thing_or_a_need():
    assert rq.parse("I want to wash up, I need the sponge.", NOW).named == "sponge"
    assert rq.parse("I'm cold.", NOW).named == ""
    assert rq.parse("I'm after the mauve gizmo.", NOW).named == "mauve gizmo"  # (to be after: to want)
    assert rq.parse("We are after the dax.", NOW).named == "dax"
    # a verb with only its particle after it ("put away") names no thing
    assert rq.parse("Bring me the dax from where it's put away!", NOW).named == "dax"
    assert rq.parse("Fetch me something to write with.", NOW).named == ""


def test_a_pronoun_names_the_thing_of_the_other_sentence():
    r = rq.parse("Somebody put a blue gizmo in one of the den drawers; bring it to me.", NOW)
    assert r.intent == rq.FETCH and not r.pronoun and r.named == "blue gizmo"
    assert r.relation == "in" and r.place == "den drawers" and "somebody" not in r.words
    # a question before it stays the context: the request fetches what the question asked about
    r = rq.parse("Where did you see my gizmos? Bring them over.", NOW)
    assert r.intent == rq.FETCH and "gizmos" in r.words


def test_short_words_are_not_taken_for_function_words():
    # one letter away from "same", but a word of its own
    assert "game" in rq.parse("Fetch the game console.", NOW).words
    assert rq.parse("whre is the gizmo?", NOW).intent == rq.RECALL  # a dropped letter is still fixed


def test_number_words_are_not_taken_for_typos():
    # "three" is one swap away from "there": a time phrase must survive the typo fixing
    r = rq.parse("Get me the gizmo that was on the bench three days back.", NOW)
    assert r.window == (0.0, 86400.0) and r.place == "bench"
    assert rq.parse("The gizmo that was on the bench earlier on, I need it.", NOW).window == (3 * 86400.0, NOW)


def test_a_phrase_with_of_and_a_match_described_in_another_sentence():
    assert rq.parse("Now bring me a box of gizmos, whichever is closest.", NOW).named == "box of gizmos"
    r = rq.parse("The dotted gizmo on the bench has lost its twin. Go to the shelf holding the matching gizmo.", NOW)
    assert r.match and "dotted" in r.words and r.place == "bench"


def test_a_wish_is_not_a_match_and_a_plea_is_not_a_question():
    assert not rq.parse("I'd like the teal gizmo carried in!", NOW).match
    assert rq.parse("Find a gizmo like the one on the bench.", NOW).match
    assert rq.parse("I want to polish the bench. Any ideas?", NOW).intent == rq.FETCH
    assert rq.parse("I want to polish the bench, can you help?", NOW).intent == rq.FETCH
    assert rq.parse("Would you fetch the striped hand gizmo?", NOW).named == "striped hand gizmo"
    r = rq.parse("Look through the crates in the shed for the gizmo.", NOW)
    assert r.intent == rq.LOCATE and r.scope == "the crates in the shed" and r.named == "gizmo"


def test_a_sentence_that_declines_something_constrains_the_request():
    r = rq.parse("Only the gizmo; I don't wannt the mauve one.", NOW)
    assert "gizmo" in r.words and r.excluded == ("mauve",) and r.intent == rq.FETCH
    r = rq.parse("I do not need the big crate. Get the small gizmo.", NOW)
    assert r.named == "small gizmo" and "big" in r.excluded


def test_search_a_place_for_a_thing_scopes_the_search():
    r = rq.parse("Search the crates in the den for the gizmo.", NOW)
    assert r.scope == "the crates in the den" and r.words == ("gizmo",)
    assert rq.parse("Check the bins for a widget please", NOW).scope == "the bins"
    assert rq.parse("Search for the gizmo in the den", NOW).scope == ""


def test_the_thing_after_a_place_and_there_is():
    r = rq.parse("Somewhere in the heap on the plinth there's the mauve gizmo, bring it!", NOW)
    assert r.words == ("mauve", "gizmo") and "plinth" in r.place and "gizmo" not in r.place


def test_going_somewhere_and_taking_a_thing_puts_the_thing_there():
    r = rq.parse("Go to the mauve plinth and get the gizmo.", NOW)
    assert (r.relation, r.place, r.words) == ("at", "mauve plinth", ("gizmo",))
    r = rq.parse("Head over to the plinth in the atrium and grab the ring.", NOW)
    assert r.place == "plinth in the atrium" and r.words == ("ring",)  # a noun, not a misspelt verb
    assert rq.parse("Please go to the crate, bring the widget", NOW).place == "crate"
    assert rq.parse("Go and get the gizmo.", NOW).place == ""


def test_a_word_after_a_determiner_is_a_noun_however_near_a_function_word():
    assert rq.fix_words("brimg the ring, the ohter one") == "bring the ring, the other one"
    r = rq.parse("Grab the gizmo (the mauve one is wromg), thanks", NOW)
    assert r.excluded == ("mauve",)


def test_a_word_of_the_language_is_a_verb_of_fetching_only_before_what_may_begin_its_object():
    # "brink" is one letter from "bring", but after a qualifier and before no object it names a thing
    assert rq.parse("Hand over the mauve dax brink, cheers.", NOW).named == "mauve dax brink"
    assert rq.fix_words("a dax brink on the plinth") == "a dax brink on the plinth"
    assert rq.fix_words("the dax brink it was beside") == "the dax brink it was beside"
    assert rq.fix_words("then brring it here") == "then bring it here"  # (no word: a slip wherever it stands)
    assert rq.fix_words("will you brink me the gizmo") == "will you bring me the gizmo"
    assert rq.fix_words("blick, brink me the gizmo") == "blick, bring me the gizmo"  # (a new clause)
    assert rq.fix_words("the blick wants a gizmo") == "the blick want a gizmo"  # (a form of the verb, as before)


def test_a_request_that_is_only_its_thing_names_it():
    assert rq.parse("Right, the snorkum next.", NOW).named == "snorkum"
    assert rq.parse("And the dax blick?", NOW).named == "dax blick"
    assert rq.parse("Thanks, now the mauve gizmo, when you can.", NOW).named == "mauve gizmo"
    # a sentence about the situation names no thing to fetch, nor does one that goes on to ask for another
    assert rq.parse("The blick is wobbly; what might help?", NOW).named == ""
    assert rq.parse("The dax snapped; hand over anything that mends it.", NOW).named == ""


def test_a_slip_in_the_words_a_question_turns_on_is_mended_where_the_slip_is_no_word():
    assert rq.parse("Tel me which gizmo stood on the plinth, the mauve one or the teal one?", NOW).kind == rq.WHICH
    assert rq.fix_words("which tmie suits the dax") == "which time suits the dax"
    assert rq.fix_words("naame one thing beside the plinth") == "name one thing beside the plinth"
    assert rq.fix_words("bring the dax timer and the telly") == "bring the dax timer and the telly"  # (words)


def test_a_function_word_ending_a_two_word_name_of_a_thing_is_part_of_that_name():
    r = rq.parse("Hand over the mauve trash can you left by the plinth.", NOW)
    assert r.named == "mauve trash can" and "can" in r.words
    assert rq.parse("Where is the band saw?", NOW).words == ("band", "saw")
    assert rq.parse("Where is the trash can liner?", NOW).words[:2] == ("trash", "can")
    assert rq.parse("Can you find the time capsule?", NOW).words == ("time", "capsule")  # (the first word of a name)
    assert "can" not in rq.parse("The gizmo can be on the plinth; find it.", NOW).words  # (a verb there)


def test_a_clause_of_time_before_the_question_does_not_make_it_a_when_question():
    r = rq.parse("When you saw the gizmo on the plinth, what was beside it?", NOW)
    assert r.kind == rq.WITH and r.intent == rq.RECALL
    assert rq.parse("When did you see the gizmo, roughly?", NOW).kind == rq.WHEN


def test_options_in_a_sentence_of_their_own_ask_about_the_other_sentence():
    r = rq.parse("One of the gizmos sat on the plinth yesterday; the mauve one or the teal one?", NOW)
    assert r.intent == rq.RECALL and r.kind == rq.WHICH and r.options == ("mauve", "teal")
    assert "gizmos" in r.words and r.place == "plinth" and r.window is not None


def test_a_request_to_count_is_a_question_of_how_many():
    r = rq.parse("Can you count the gizmos in the atrium for me?", NOW)
    assert r.intent == rq.RECALL and r.kind == rq.COUNT and r.place == "atrium"


def test_what_the_auxiliary_of_a_question_of_how_many_asks_about_is_where_to_count():
    r = rq.parse("How many gizmos does the blick room hold?", NOW)
    assert r.kind == rq.COUNT and r.words == ("gizmos",) and r.place == "blick room"
    r = rq.parse("How many daxes did the atrium have, thanks?", NOW)
    assert r.words == ("daxes",) and r.place == "atrium"
    assert rq.parse("How many gizmos did you spot?", NOW).place == ""  # (the robot is no place)


def test_a_participle_after_the_thing_and_a_courtesy_clause_are_not_part_of_it():
    r = rq.parse("I'd like the teal gizmo carried in whenever it suits you.", NOW)
    assert r.named == "teal gizmo"
    r = rq.parse("Get one the same as the gizmo on the plinth in the atrium whenever it suits you.", NOW)
    assert r.match and r.place == "plinth in the atrium"


def test_two_swapped_letters_of_a_short_function_word_are_a_slip():
    assert rq.parse("Find one exactly lkie the gizmo on the plinth.", NOW).match


def test_a_question_names_its_thing_by_the_noun_phrase_not_by_the_verb_before_it():
    assert rq.parse("Where have you glimpsed the teal gizmo crate?", NOW).words == ("teal", "gizmo", "crate")
    assert rq.parse("When was the mauve widget last around, at your leisure?", NOW).words == ("mauve", "widget")
    assert "gizmos" in rq.parse("How many gizmos does the atrium have?", NOW).words


def test_a_search_scope_of_its_own_and_a_fetch_verb_keep_the_request_a_fetch():
    r = rq.parse("I need the gizmo, check the crates in the atrium please!", NOW)
    assert r.scope == "the crates in the atrium" and r.words == ("gizmo",)
    r = rq.parse("Look in the atrium for the teal gizmo and bring it to me.", NOW)
    assert r.scope == "the atrium" and r.intent == rq.FETCH and r.words == ("teal", "gizmo")
    assert rq.parse("Open the crates in the atrium and find the gizmo.", NOW).scope == "the crates in the atrium"


def test_a_question_put_as_a_request_to_tell_after_an_opening_clause():
    r = rq.parse("Okay then, tell me what sat in the crate beside the gizmo!", NOW)
    assert r.intent == rq.RECALL and r.kind == rq.WITH
    r = rq.parse("Be a dear and tell me what was beside the mauve gizmo on the plinth.", NOW)
    assert r.intent == rq.RECALL and r.kind == rq.WITH and r.place == "mauve gizmo on the plinth"
    assert rq.parse("Tell me where the gizmo is and then bring it here.", NOW).intent == rq.FETCH


def test_slips_in_a_question_word_contraction_and_in_short_prepositions():
    r = rq.parse("Wehre's the teal gizmo?", NOW)
    assert r.intent == rq.RECALL and r.kind == rq.WHERE and r.owner == "" and r.words == ("teal", "gizmo")
    assert rq.parse("Here's a thought, bring me the gizmo.", NOW).intent == rq.FETCH  # a contraction of English
    r = rq.parse("Which things were kept in the crate along wtih the gizmo?", NOW)
    assert r.kind == rq.WITH and r.place == "crate"
    assert rq.parse("What stood neext to the gizmo on the plinth?", NOW).relation in ("next to", "")


def test_a_pronoun_that_a_verb_of_fetching_takes_among_courtesies_refers_to_the_previous_thing():
    for text in ("Okay, pick it up and bring it here, much obliged!", "Splendid, grab it for me, ta muchly!"):
        assert rq.parse(text, NOW).pronoun, text
    assert not rq.parse("The gizmo on the plinth, fetch it over.", NOW).pronoun  # it: the gizmo named before
    assert rq.parse("Then the remaining one, if you please.", NOW).other


def test_a_clause_of_courtesy_names_no_thing_and_a_slipped_preposition_needs_a_determiner_after_it():
    r = rq.parse("It must be the teal gizmo when you find a spare moment.", NOW)
    assert r.named == "" and r.words == ("teal", "gizmo")
    r = rq.parse("If you cuold, bring me the gizmo from the plinth.", NOW)
    assert r.words == ("gizmo",) and r.place == "plinth"
    r = rq.parse("Get me the gizmo, the one form the plinth two days ago.", NOW)
    assert r.words == ("gizmo",) and r.place == "plinth"
    assert rq.parse("Bring me the tax form.", NOW).words == ("tax", "form")


def test_a_match_named_by_a_noun_and_the_other_of_a_pair():
    r = rq.parse("Can you find a match for the gizmo on the plinth?", NOW)
    assert r.match and r.words == ("gizmo",) and r.place == "plinth"
    r = rq.parse("And its match?", NOW)
    assert r.match and r.pronoun
    assert rq.parse("Now its twin, please.", NOW).other
    assert not rq.parse("Bring me a box of matches.", NOW).match
    assert rq.parse("Be a dear and pick up the teal gizmo and bring it here.", NOW).named == "teal gizmo"


def test_a_possessive_before_the_thing_of_a_question_keeps_the_thing():
    r = rq.parse("Which of the vorples' daxes was on the crate, the mauve one or the teal one?", NOW)
    assert r.kind == rq.WHICH and "daxes" in r.words
    r = rq.parse("Which of the vorple's daxes did you see on the crate: the mauve one or the teal one?", NOW)
    assert r.words == ("vorple", "daxes") and r.options == ("mauve", "teal")


def test_a_place_phrase_ends_where_a_clause_with_a_subject_begins():
    r = rq.parse("On the plinth we put the dax; get it.", NOW)
    assert r.place == "plinth" and r.words == ("dax",)
    assert rq.parse("In the crate you left the dax, get it", NOW).place == "crate"
    # ... but a preposition of position or time followed by a noun phrase stays in it
    assert rq.parse("Bring the dax from the crate at the end of the den", NOW).place == "crate at the end of the den"


def test_a_polite_question_that_asks_for_a_fetch_is_a_fetch_however_it_opens():
    r = rq.parse("Apologies for interrupting, but would you fetch Ada's dax?", NOW)
    assert r.intent == rq.FETCH and r.owner == "ada" and "dax" in r.words
    # a question that ends asking to find the answer out is still a question
    assert rq.parse("Where did I leave the dax, can you find out?", NOW).intent == rq.RECALL
    assert rq.parse("Can you tell me if you've seen the dax?", NOW).words == ("dax",)


def test_a_pair_or_a_twin_of_a_thing_and_a_slip_in_kind_ask_for_a_match():
    assert rq.parse("Get the pair to the dax that sits on the plinth.", NOW).match
    assert rq.parse("I'd like a twin for the dax on the plinth", NOW).match
    assert not rq.parse("Bring me a pair of my daxes", NOW).match  # (a measure, no match)
    assert rq.parse("Fetch another of the same kinnd as the dax on the crate.", NOW).match


def test_a_personal_pronoun_is_never_the_thing_named():
    # the question names the thing; the request after it names it by a pronoun only
    r = rq.parse("Where are the vorples? Fetch them here.", NOW)
    assert r.named == "" and r.words == ("vorples",)
    r = rq.parse("The blick is with him in the den; grab it off him.", NOW)
    assert "him" not in r.words and "blick" in r.words


def test_a_question_by_inversion_with_you_and_a_slip_where_a_question_word_is_due():
    r = rq.parse("Yesterday, did you move the vorple blick?", NOW)
    assert r.intent == rq.RECALL and r.words[-2:] == ("vorple", "blick")
    r = rq.parse("Please remind us were the dax went.", NOW)  # right after "remind us": a question word
    assert r.intent == rq.RECALL and r.kind == rq.WHERE and "dax" in r.words
    assert rq.parse("Splendid, might we borrow it now?", NOW).intent == rq.FETCH
    # asking whether the robot has or minds something is a request, wherever it stands in the sentence
    for text in ("My snorkum aches, do you stock a remedy?", "Excuse me, have you got a blick?",
                 "Sorry, do you mind fetching the dax?", "The dax is on the plinth, did you wipe it? Carry it across."):
        assert rq.parse(text, NOW).intent == rq.FETCH, text
    # "let me know that ...": a clause, no question word slipped
    assert rq.parse("I want the dax, let me know that you have it.", NOW).intent == rq.FETCH
    # the same slip opening a question, before the auxiliary a question word takes; "were you" stays
    r = rq.parse("Were did the vorple blick end up?", NOW)
    assert r.intent == rq.RECALL and r.kind == rq.WHERE and "blick" in r.words
    assert rq.parse("Were you near the dax? Fetch it.", NOW).intent == rq.FETCH


def test_a_place_before_a_colon_and_a_day_named_as_gone_leave_the_place_phrase_whole():
    r = rq.parse("Two days ago, which of the daxes was on the plinth: the mauve one or the teal one?", NOW)
    assert r.kind == rq.WHICH and r.place == "plinth" and r.options == ("mauve", "teal"), r
    r = rq.parse("Which of the daxes was on the plinth on tuesday just gone, the mauve one or the teal one?", NOW)
    assert r.place == "plinth" and r.time_words == "on tuesday just gone", r


def test_a_question_closing_the_sentence_may_be_followed_by_a_few_words_that_ask_nothing():
    r = rq.parse("I have mislaid the vorple blick, where is it, Zog?", NOW)
    assert r.intent == rq.RECALL and r.kind == rq.WHERE and r.words[-2:] == ("vorple", "blick")
    # words after it that ask the robot to act keep the request a fetch
    assert rq.parse("I have mislaid the blick, where is it, would you carry it over here?", NOW).intent == rq.FETCH


def test_a_function_word_used_as_a_measure_of_a_thing_is_part_of_its_name():
    r = rq.parse("Fetch the mauve can of dax, please.", 0.0)
    assert "can" in r.words and r.named == "mauve can of dax", r
    # as an auxiliary it stays a function word
    assert "can" not in rq.parse("Can you carry the dax over?", 0.0).words
    assert rq.parse("Bring me one of the daxes.", 0.0).words == ("daxes",)


def test_a_clause_that_offers_leisure_is_no_time_of_the_question():
    r = rq.parse("Where was the dax last, when you find the leisure?", 0.0)
    assert r.kind == rq.WHERE and r.window is None and r.words == ("dax",), r
    # a clause of time with a thing in it still dates the question
    assert rq.parse("Where was the dax when you got the blick?", 0.0).kind == rq.WHEN
    assert rq.parse("Where was the dax when you have seen the blick?", 0.0).kind == rq.WHEN  # (a verb)
    assert rq.parse("Where was the dax, once you have a second?", 0.0).kind == rq.WHERE  # (a span of time)


def test_things_named_before_a_pronoun_are_what_it_refers_to():
    assert not rq.parse("Could you find some daxes and carry it here?", 0.0).pronoun
    assert rq.parse("Carry it over here.", 0.0).pronoun
    # a quantity or a span of time after "some"/"any" names nothing: the pronoun is the thing before
    assert rq.parse("Get some more and carry it over.", 0.0).pronoun
    assert rq.parse("Take some time and carry it over.", 0.0).pronoun


def test_the_thing_declined_before_one_like_it_is_the_reference_of_the_match():
    r = rq.parse("Not the teal dax on the plinth, but another identical to that.", 0.0)
    assert r.match and not r.excluded and "dax" in r.words and r.place == "plinth", r
    # "that" opening another noun phrase points at another reference: the dax stays declined
    r = rq.parse("Not the dax, but one identical to that blick.", 0.0)
    assert r.excluded == ("dax",) and "blick" in r.words and "dax" not in r.words, r


def test_a_slip_in_a_word_of_reference_to_another_thing_is_mended_only_where_it_is_no_word():
    from mnemo_planner.slips import fix_words

    assert fix_words("now fetch its twwin") == "now fetch its twin"
    assert fix_words("a dax idnetical to this") == "a dax identical to this"
    assert fix_words("bring the twine") == "bring the twine"  # a word of its own
    assert rq.parse("Now fetch its twwin.", NOW).other


def test_the_thing_said_before_a_pronoun_that_is_sought_is_the_thing_named():
    r = rq.parse("The snorkum is inside a crate in the den, go get it.", NOW)
    assert r.named == "snorkum" and not r.pronoun and r.place == "crate in the den"
    assert rq.parse("The mauve dax was on the plinth earlier, could you locate it?", NOW).named == "mauve dax"
    # the sentence's subject, not the situation said after it
    assert rq.parse("The crate of gizmos is lost in the heap on the plinth, bring it.", NOW).named == "crate of gizmos"
    # else the noun phrase said last before it (not a noun of courtesy said first)
    assert rq.parse("Do me a kindness and lift the mauve dax and bring it here.", NOW).named == "mauve dax"
    # a need that refers back to a thing names the need's thing, not the one referred to
    assert rq.parse("The gizmo on the plinth is broken, I want a tool to mend it.", NOW).named == "tool"


def test_a_question_about_company_names_the_thing_after_with_and_the_place_opened_before():
    r = rq.parse("After you unlocked the crate in the den, what else lay there with the gizmo?", NOW)
    assert r.kind == rq.WITH and r.words == ("gizmo",) and r.place == "crate in the den"
    assert rq.parse("What was on the plinth with the gizmo?", NOW).place == "plinth"


def test_a_slip_in_a_verb_that_names_where_to_search_is_mended_where_it_is_no_word():
    assert rq.parse("Chheck the crates in the den and find the gizmo.", NOW).scope == "the crates in the den"
    assert rq.parse("Serach the crates for the gizmo.", NOW).scope == "the crates"
    assert rq.parse("Wipe the cheek of the dax.", NOW).scope == ""  # a word of its own, no slip


def test_a_slip_in_any_function_word_is_mended_where_the_slip_is_no_word():
    assert rq.fix_words("locate the dax wherevr it sits") == "locate the dax wherever it sits"
    r = rq.parse("Locate the dax wherevr it sits, then carry it here.", NOW)
    assert r.named == "dax"
    r = rq.parse("The blick squeaks, it must be put aawy; fetch the dax.", NOW)
    assert r.named == "dax"


def test_words_before_a_placeholder_name_no_thing():
    # "the proper thing": whatever answers what was said, not a thing called "proper"
    r = rq.parse("The blick wobbles. retrieve the proper thing, robot.", NOW)
    assert r.intent == rq.FETCH and r.named == ""
    assert rq.parse("Retrieve the blue dax, robot.", NOW).named == "blue dax"


def test_a_question_that_asks_for_nothing_after_a_statement_asks_for_what_answers_it():
    for text in ("The blick is loose and I must mend the dax. what might serve?",
                 "The blick is loose and I must mend the dax. what might serve, ta?",
                 "The blick is loose. could you assist when you are free?"):
        r = rq.parse(text, NOW)
        assert r.intent == rq.FETCH and "blick" in r.words, text
    # a question about a thing, by name or by pronoun, or about what was seen, stays a question
    for text in ("The dax was on the plinth. where does it sit now?", "We had guests over. what did the camera catch?",
                 "I lost a dax. where might the blick be?"):
        assert rq.parse(text, NOW).intent == rq.RECALL, text


def test_an_opening_clause_telling_the_robot_what_to_be_and_a_clause_of_no_fuss_name_no_thing():
    assert rq.parse("Be a gem and fetch the dax, no fuss.", 0.0).words == ("dax",)
    assert rq.parse("Please be an angel and bring the blick over here.", 0.0).words == ("blick",)
    # "no" before a physical thing is no courtesy
    assert "pebble" in rq.parse("Fetch the dax, no pebble.", 0.0).words


def test_a_connective_of_contrast_declines_what_follows_it_as_not_does():
    r = rq.parse("I'd like the striped blick rather than the mauve one.", 0.0)
    assert r.words == ("striped", "blick") and r.excluded == ("mauve",), r
    r = rq.parse("Bring the dax instead of the blick.", 0.0)
    assert r.words == ("dax",) and r.excluded == ("blick",), r


def test_a_request_whose_subject_is_one_of_the_places_scopes_the_search_to_them():
    r = rq.parse("One of the crates in the den holds the gizmo, fetch it for me.", NOW)
    assert r.scope == "the crates in the den" and r.words == ("gizmo",) and r.intent == rq.FETCH
    r = rq.parse("One of the bins has the blick in it; could you find it?", NOW)
    assert r.scope == "the bins" and r.words == ("blick",)
    assert rq.parse("One of the crates is stuck, bring me the gizmo.", NOW).scope == ""


def test_the_word_whose_object_the_pronoun_is_is_a_verb_not_the_thing():
    # (a verb of fetching the lexicon holds as a noun too, said by a slip that spells that noun)
    r = rq.parse("Great, zorp it.", NOW)
    assert r.pronoun and "zorp" not in r.words
    assert rq.parse("Take the gizmo and twiddle them.", NOW).words == ("gizmo",)
    assert rq.parse("Put the blick in it.", NOW).words == ("blick",)  # a noun after a determiner stays


def test_a_closing_clause_of_thanks_or_a_name_is_no_part_of_the_request():
    """A last clause after a comma that neither names nor asks for anything is courtesy: "one more,
    much obliged" still asks for one more, and no word of thanks qualifies the thing."""
    assert rq.parse("Pass us one more, much obliged.", NOW).other
    assert rq.parse("Pass me the blick, many thanks!", NOW).words == ("blick",)
    assert rq.parse("Whereabouts was the gizmo, roughly?", NOW).words == ("gizmo",)
    # a clause that names a thing or asks for one stays
    assert "pebble" in rq.parse("Fetch the dax, no pebble.", NOW).words
    assert rq.parse("The dax is wobbly, pass us anything.", NOW).intent == rq.FETCH
