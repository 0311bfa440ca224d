"""Recall: questions about objects answered from object-level memory alone, with the records that
show the answer (both backends)."""
from __future__ import annotations

from mnemo_common.types import MemoryRecord, Pose2D, Pose3D, Sighting

from mnemo_memory import recall
from mnemo_memory.compaction import CompactionConfig
from mnemo_memory.service import MemoryService
from mnemo_memory.testing import WordEmbedder

FIXTURES = {"table_1": ("table", 0.0), "counter_1": ("counter", 4.0), "sink_1": ("sink", 8.0),
            "shelf_1": ("shelf", 12.0)}


def _obj(oid: str, label: str, color: str, where: str, **attributes: str) -> Sighting:
    return Sighting(label, (FIXTURES[where][1], 0.5, 0.9), {"color": color, **attributes}, object_id=oid,
                    support=where, relation="on")


def _view(stamp: float, where: str, objects: list[Sighting]) -> MemoryRecord:
    """A view of one fixture with the objects on it (the fixture itself is a sighting too)."""
    label, x = FIXTURES[where]
    fixture = Sighting(label, (x, 0.5, 0.5), kind="fixture", object_id=where)
    seen = ", ".join(f"a {s.attributes['color']} {s.label}" for s in objects)
    caption = f"In the kitchen: {seen}, a {label}."
    return MemoryRecord(id="", stamp=stamp, robot_pose=Pose2D(x, 0.0, 0.0), camera_pose=Pose3D((x, 0.0, 1.2)),
                        caption=caption, room="kitchen", labels=sorted({s.label for s in objects} | {label}),
                        sightings=[*objects, fixture])


def _memory(backend, records, compaction=None) -> MemoryService:
    memory = MemoryService(backend(), WordEmbedder(), compaction=compaction)
    memory.add(records)
    return memory


def _mug_life() -> list[MemoryRecord]:
    """A red mug: on the table at 0-90 (seen every 10 s), on the counter at 200-220, in the sink
    at 300-320; a blue mug stays on the shelf (seen at 0 and 300)."""
    out = [_view(10.0 * i, "table_1", [_obj("mug_red", "mug", "red", "table_1")]) for i in range(10)]
    out += [_view(200.0 + 10.0 * i, "counter_1", [_obj("mug_red", "mug", "red", "counter_1")]) for i in range(3)]
    out += [_view(300.0 + 10.0 * i, "sink_1", [_obj("mug_red", "mug", "red", "sink_1")]) for i in range(3)]
    out += [_view(t, "shelf_1", [_obj("mug_blue", "mug", "blue", "shelf_1")]) for t in (5.0, 305.0)]
    return sorted(out, key=lambda r: r.stamp)


def test_where_now_answers_the_newest_sighting_with_the_newest_records_as_evidence(backend):
    memory = _memory(backend, _mug_life())
    now = recall.where_now(memory, "the red mug", at=400.0)
    assert now.answer == "sink_1" and now.instances == ("mug_red",)
    assert [r.stamp for r in now.records] == [320.0, 310.0, 300.0]
    earlier = recall.where_now(memory, "the red mug", at=250.0)  # nothing after the question counts
    assert earlier.answer == "counter_1" and earlier.records[0].stamp == 220.0
    memory.close()


def test_where_before_goes_back_from_the_named_destination(backend):
    memory = _memory(backend, _mug_life())
    before_sink = recall.where_before(memory, "the red mug", "sink", at=400.0)
    assert before_sink.answer == "counter_1"
    assert {r.stamp for r in before_sink.records} == {200.0, 210.0, 220.0}
    assert recall.where_before(memory, "the red mug", "counter", at=400.0).answer == "table_1"
    memory.close()


def test_where_usually_is_where_it_spent_its_time_not_where_it_was_seen_most(backend):
    # the blue mug is seen twice on the shelf over a long stay, then six times in the sink briefly
    records = [_view(t, "shelf_1", [_obj("mug_blue", "mug", "blue", "shelf_1")]) for t in (0.0, 1000.0)]
    records += [_view(1100.0 + 5.0 * i, "sink_1", [_obj("mug_blue", "mug", "blue", "sink_1")]) for i in range(6)]
    memory = _memory(backend, records)
    usual = recall.where_usually(memory, "the blue mug", at=1130.0)
    assert usual.answer == "shelf_1"
    assert {r.stamp for r in usual.records} == {0.0, 1000.0}
    memory.close()


def test_how_many_counts_instances_and_returns_records_that_show_them_all(backend):
    records = _mug_life() + [_view(400.0, "table_1", [_obj("mug_green", "mug", "green", "table_1"),
                                                      _obj("mug_white", "mug", "white", "table_1")])]
    memory = _memory(backend, records)
    count = recall.how_many(memory, "a mug", at=500.0)
    assert count.answer == "4"
    assert len(count.records) == 3  # the table view holds two of them
    assert {s.object_id for r in count.records for s in r.sightings if s.label == "mug"} == \
        {"mug_red", "mug_blue", "mug_green", "mug_white"}
    assert recall.how_many(memory, "a mug", at=350.0).answer == "2"
    memory.close()


def test_where_together_is_the_last_support_both_were_seen_on(backend):
    spoon = [_obj("spoon_1", "spoon", "silver", "table_1")]
    records = [_view(0.0, "table_1", [_obj("mug_red", "mug", "red", "table_1"), *spoon]),
               _view(100.0, "counter_1", [_obj("mug_red", "mug", "red", "counter_1"),
                                          _obj("spoon_1", "spoon", "silver", "counter_1")]),
               _view(200.0, "sink_1", [_obj("mug_red", "mug", "red", "sink_1")]),
               _view(210.0, "table_1", spoon)]
    memory = _memory(backend, records)
    together = recall.where_together(memory, "the red mug", "the silver spoon", at=300.0)
    assert together.answer == "counter_1"
    assert [r.stamp for r in together.records] == [100.0]
    memory.close()


def test_a_description_resolves_to_the_instance_its_own_words_name(backend):
    # thirty short views show a red mug beside a blue bowl (their captions rank first for "the blue
    # mug"); one crowded view shows a blue mug: the description must resolve to the blue mug
    records = [_view(10.0 * i, "table_1", [_obj("mug_red", "mug", "red", "table_1"),
                                           _obj("bowl_1", "bowl", "blue", "table_1")]) for i in range(30)]
    clutter = [_obj(f"{label}_1", label, "brown", "shelf_1") for label in ("book", "vase", "lamp", "box", "jar")]
    records.append(_view(500.0, "shelf_1", [_obj("mug_blue", "mug", "blue", "shelf_1"), *clutter]))
    memory = _memory(backend, records)
    assert recall.identify(memory, "the blue mug").object_id == "mug_blue"
    assert recall.identify(memory, "the red mug").object_id == "mug_red"
    assert recall.identify(memory, "the blue mug", at=400.0).object_id != "mug_blue"  # not seen yet then
    memory.close()


def test_a_crowded_view_of_the_instance_meant_wins_over_many_views_of_its_neighbours(backend):
    # more views of blue things than a text search returns crowd out the one view of a blue mug
    records = [_view(float(i), "counter_1", [_obj(f"{label}_{i}", label, "blue", "counter_1")])
               for i in range(recall.IDENTIFY_POOL) for label in ("bowl", "plate")]
    records.append(_view(1000.0, "table_1", [_obj("mug_red", "mug", "red", "table_1")]))
    clutter = [_obj(f"{label}_1", label, "brown", "shelf_1") for label in ("book", "vase", "lamp", "box", "jar")]
    records.append(_view(1001.0, "shelf_1", [_obj("mug_blue", "mug", "blue", "shelf_1"), *clutter]))
    memory = _memory(backend, records)
    assert recall.identify(memory, "the blue mug").object_id == "mug_blue"
    assert recall.identify(memory, "the blue bowl").label == "bowl"
    memory.close()


def test_without_object_level_memory_nothing_is_resolved_and_the_text_search_is_returned(backend):
    store = backend()
    store.objects = False  # a store created before object-level memory
    memory = MemoryService(store, WordEmbedder())
    memory.add(_mug_life())
    for plan, args in (("current", ("the red mug",)), ("habit", ("the red mug",)), ("counting", ("a mug",)),
                       ("overwritten", ("the red mug", "sink")), ("co-location", ("the red mug", "the blue mug"))):
        found = recall.PLANS[plan](memory, *args, at=400.0)
        assert found.answer == "" and found.instances == () and len(found.records) == 5
    memory.close()


def test_compaction_leaves_every_answer_as_it_was(backend):
    memory = _memory(backend, _mug_life(), compaction=CompactionConfig())
    assert memory.count() == 4  # one record per place and state
    asked = {"current": ("the red mug",), "overwritten": ("the red mug", "sink"), "habit": ("the red mug",),
             "counting": ("a mug",)}
    answers = {plan: recall.PLANS[plan](memory, *args, at=400.0).answer for plan, args in asked.items()}
    assert answers == {"current": "sink_1", "overwritten": "counter_1", "habit": "table_1", "counting": "2"}
    memory.close()


def test_held_spans_put_a_move_halfway_between_the_sightings_around_it():
    def stay(where, *stamps):
        return recall.Stay(where, tuple(recall.Seen(_view(t, where, []), Sighting("x", (0, 0, 0)))
                                        for t in stamps))
    runs = [stay("table_1", 0.0, 10.0), stay("sink_1", 30.0, 40.0), stay("table_1", 100.0)]
    assert recall.held_spans(runs, at=150.0) == [20.0, 50.0, 80.0]
    assert recall.held_spans(runs, at=150.0, start=-30.0) == [50.0, 50.0, 80.0]


class _RepeatsFillRecordSearch:
    """A memory in which one mug's daily records fill every record search (as a month of
    identical sightings does), while object search answers each instance of a class once."""

    def __init__(self):
        self.embedder = WordEmbedder()
        self.red = [_view(10.0 * i, "table_1", [_obj("mug_red", "mug", "red", "table_1")]) for i in range(5)]
        self.blue = _view(3.0, "shelf_1", [_obj("mug_blue", "mug", "blue", "shelf_1")])
        for r in [*self.red, self.blue]:
            r.matched_sighting = 0

    def search_text(self, text, k=10, filter=None):
        return self.red[:k]

    def search_objects(self, text, k=10, filter=None):
        return [self.red[0], self.blue][:k] if filter is not None and filter.labels == ["mug"] else self.red[:1]


def test_identify_weighs_every_instance_of_the_class_however_its_records_rank():
    assert recall.identify(_RepeatsFillRecordSearch(), "the blue mug", at=100.0).object_id == "mug_blue"
