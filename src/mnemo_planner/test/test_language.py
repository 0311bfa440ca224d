"""Instruction parsing and grounding, on paraphrases of every task family in the scenario spec."""
import pytest

from mnemo_planner.language import (
    INTENT_FETCH, INTENT_LOCATE, INTENT_RECALL, match_phrase, parse_instruction, parse_time,
)

DAY, HOUR = 86400.0, 3600.0
NOW = 2 * DAY + 18 * HOUR  # day 2, 18:00

# family -> (instruction, expected parse fields)
PARAPHRASES = [
    ("class", "Could you get me any book?", dict(intent=INTENT_FETCH, target="book")),
    ("class", "Find me a book.", dict(intent=INTENT_FETCH, target="book")),
    ("attribute", "Please grab the green file folder.", dict(target="green file folder")),
    ("attribute", "Bring me the red mug", dict(target="red mug")),
    ("spatial", "Grab the book lying on the coffee table", dict(relation="on", anchor="coffee table")),
    ("spatial", "Fetch the mug by the sink", dict(target="mug", relation="by", anchor="sink")),
    ("spatial_temporal", "Fetch the book I saw on the desk the day before yesterday",
     dict(target="book", anchor="desk", window=(0.0, DAY))),
    ("spatial_temporal", "Bring me the mug that was on the dining table yesterday morning",
     dict(target="mug", anchor="dining table", window=(DAY + 5 * HOUR, DAY + 12 * HOUR))),
    ("spatial_frequentist", "Get me the mug that normally sits next to the sink",
     dict(target="mug", habit=True, relation="by", anchor="sink")),
    ("spatial_frequentist", "Bring the scissors that are typically in the drawer",
     dict(target="scissors", habit=True, relation="in", anchor="drawer")),
    ("commonsense", "Could you bring me some milk?", dict(target="milk", need="")),
    ("commonsense", "I'm thirsty.", dict(target="")),
    ("locked", "Search the cabinets in the kitchen for the banana.",
     dict(intent=INTENT_LOCATE, target="banana", scope="cabinets in kitchen")),
    ("locked", "Look inside the kitchen cabinets and find the ketchup", dict(intent=INTENT_LOCATE, target="ketchup")),
    ("clutter", "Pick up the red mug from the cluttered counter", dict(target="red mug", anchor="cluttered counter")),
    ("matching", "Get John's mug", dict(target="mug", possessor="john")),
    ("memory_query", "Where have you last seen the TV remote?", dict(intent=INTENT_RECALL, target="tv remote")),
    ("memory_query", "Where was the mug last night?",
     dict(intent=INTENT_RECALL, target="mug", window=(DAY + 18 * HOUR, 2 * DAY + 6 * HOUR))),
]


@pytest.mark.parametrize("family,text,expected", PARAPHRASES, ids=[f"{f}:{t}" for f, t, _ in PARAPHRASES])
def test_parse_paraphrases(family, text, expected):
    parsed = parse_instruction(text, NOW)
    for key, value in expected.items():
        assert getattr(parsed, key) == value, (key, parsed)


def test_every_spec_family_has_paraphrases():
    families = {"class", "attribute", "spatial", "spatial_temporal", "spatial_frequentist", "commonsense", "locked",
                "clutter", "matching", "memory_query"}
    assert families <= {f for f, _, _ in PARAPHRASES}


def test_time_references_are_relative_to_now():
    assert parse_time("two days ago", NOW)[0] == (0.0, DAY)
    assert parse_time("this morning", NOW)[0] == (2 * DAY + 5 * HOUR, 2 * DAY + 12 * HOUR)
    lo, hi = parse_time("3 hours ago", NOW)[0]
    assert lo < NOW - 3 * HOUR < hi
    assert parse_time("earlier today", NOW)[0] == (2 * DAY, NOW)
    # day 0 is a Monday: on day 2 (Wednesday) "on monday" is day 0
    assert parse_time("on monday", NOW)[0] == (0.0, DAY)
    assert parse_time("the mug", NOW)[0] is None


LABELS = ["mug", "book", "folder", "remote control", "banana", "apple", "ketchup bottle", "milk carton", "scissors"]
FIXTURES = ["dining table", "counter", "sink", "cabinet", "fridge", "coffee table", "sofa", "desk", "bookshelf", "drawer"]


@pytest.mark.parametrize("phrase,label", [("tv remote", "remote control"), ("cup", "mug"), ("novel", "book"),
                                          ("ketchup", "ketchup bottle"), ("milk", "milk carton"),
                                          ("remote controls", "remote control")])
def test_words_ground_to_seen_labels_through_the_embedding(embedder, phrase, label):
    assert match_phrase(phrase, LABELS, embedder)[0].candidate == label


@pytest.mark.parametrize("phrase,label", [("couch", "sofa"), ("table where we eat", "dining table"),
                                          ("refrigerator", "fridge")])
def test_places_ground_to_fixture_classes(embedder, phrase, label):
    assert match_phrase(phrase, FIXTURES, embedder)[0].candidate == label


# -- multi-clause instructions: the asking clause, appositives, pronouns, follow-ups ------------------
@pytest.mark.parametrize("text,expected", [
    ("Where are my headphones? Bring them over.", dict(intent=INTENT_FETCH, target="headphones")),
    ("I can't find my wallet, please bring it to me.", dict(target="wallet")),
    ("Someone put a game controller in one of the office drawers; bring it to me.",
     dict(target="game controller", relation="in", anchor="office drawers")),
    ("I want to brush my teeth, I need toothpaste.", dict(target="toothpaste")),
    ("I'm making a sandwich, can you get me the butter?", dict(target="butter")),
    ("I need my reading glasses, the ones that usually live on the nightstand.",
     dict(target="reading glasses", habit=True, relation="on", anchor="nightstand")),
    ("Now bring me a pair of scissors, the one that is easiest to grab.",
     dict(target="pair of scissors", description="is easiest to grab", followup=True)),
    ("Bring me the steel water bottle, not the plastic one.", dict(target="steel water bottle")),
    ("I'm freezing, get me something to keep warm.", dict(target="")),
    ("Now find the ketchup.", dict(followup=True, target="ketchup")),
    ("Bring me the ketchup.", dict(followup=False)),
    ("And the mustard too.", dict(followup=True, target="mustard")),
    ("Find the tape in the office drawers.", dict(intent=INTENT_LOCATE, scope="office drawers", target="tape")),
    ("Get the book on the desk.", dict(intent=INTENT_FETCH, scope="")),
])
def test_multi_clause_instructions(text, expected):
    parsed = parse_instruction(text, NOW)
    for key, value in expected.items():
        assert getattr(parsed, key) == value, (key, parsed)


def test_matching_refers_to_the_context_object():
    p = parse_instruction("The striped sock on the bed has lost its pair. Go to the drawer or wardrobe that "
                          "holds the matching sock.", NOW)
    assert p.intent == INTENT_LOCATE and p.scope == "drawer or wardrobe" and p.target == "striped sock"
    assert p.match_of is not None and p.match_of.anchor == "bed"
    p = parse_instruction("The wool hat on the chair is missing its twin. Take me to the cupboard that has the other one.",
                          NOW)
    assert p.match_of is not None and p.target == "wool hat" and p.scope == "cupboard"


@pytest.mark.parametrize("text,asks,target", [
    ("What is the title of the green book you saw on the coffee table yesterday?", "title", "green book"),
    ("What's the brand of the coffee on the counter?", "brand", "coffee"),
    ("What colour is the umbrella in the hallway?", "color", "umbrella"),
    ("Which mug was on the desk this morning?", "which", "mug"),
])
def test_attribute_questions(text, asks, target):
    p = parse_instruction(text, NOW)
    assert p.intent == INTENT_RECALL and p.asks == asks and p.target == target, p
