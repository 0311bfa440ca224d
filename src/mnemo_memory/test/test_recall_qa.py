"""The retrieval bench's memory QA: counting and co-location questions come from what the patrols
saw, and their evidence is scored as the records returned hold it."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from mnemo_common.types import MemoryRecord, Pose2D, Pose3D, Sighting

BENCH = Path(__file__).resolve().parents[1] / "bench"


def _bench_module():
    spec = importlib.util.spec_from_file_location("recall_qa", BENCH / "recall_qa.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


qa = _bench_module()


def _record(*seen: tuple[str, str]) -> MemoryRecord:
    return MemoryRecord(id="", stamp=0.0, robot_pose=Pose2D(0.0, 0.0, 0.0), camera_pose=Pose3D((0.0, 0.0, 1.0)),
                        caption="", sightings=[Sighting(oid.split("_")[0], (0.0, 0.0, 0.0), object_id=oid,
                                                        support=where) for oid, where in seen])


# frames: (stamp, [(object id, label, support)])
FRAMES = [
    (10.0, [("mug_1", "mug", "table"), ("spoon_1", "spoon", "table")]),
    (20.0, [("mug_2", "mug", "sink")]),
    (110.0, [("mug_3", "mug", "shelf"), ("spoon_1", "spoon", "shelf"), ("mug_1", "mug", "shelf")]),
    (120.0, [("mug_1", "mug", "sink"), ("spoon_1", "spoon", "counter")]),
    (210.0, [("mug_1", "mug", "table"), ("spoon_1", "spoon", "table"), ("plate_1", "plate", "table")]),
]


def test_counting_is_asked_when_a_class_count_grows_and_at_the_end():
    asked = qa.counting_questions(FRAMES, [100.0, 200.0, 300.0])
    assert [(q.at, q.answer) for q in asked] == [(100.0, "2"), (200.0, "3"), (300.0, "3")]
    assert all(q.kind == "counting" and q.args == ("a mug",) for q in asked)
    last = asked[-1]
    # R@5 needs every instance among the records together; R@1 needs them in the first
    assert last.hits([_record(("mug_1", "table"), ("mug_2", "sink")), _record(("mug_3", "shelf"))]) == (False, True)
    assert last.hits([_record(("mug_1", "table")), _record(("mug_3", "shelf"))]) == (False, False)


def test_colocation_pairs_each_object_with_its_most_frequent_neighbour_where_last_seen_together():
    phrases = {"mug_1": "red mug", "spoon_1": "silver spoon", "mug_3": "blue mug"}  # the plate is not describable
    asked = qa.colocation_questions(FRAMES, 300.0, phrases)
    assert [(q.args, q.answer) for q in asked] == [(("the red mug", "the silver spoon"), "table"),
                                                   (("the blue mug", "the silver spoon"), "shelf")]
    q = asked[0]
    assert q.hits([_record(("mug_1", "table")), _record(("mug_1", "shelf"), ("spoon_1", "shelf")),
                   _record(("mug_1", "table"), ("spoon_1", "table"))]) == (False, True)
    assert q.hits([_record(("mug_1", "shelf"), ("spoon_1", "shelf"))]) == (False, False)
    # asked before the last time they were together: the last place together then
    assert qa.colocation_questions(FRAMES, 150.0, phrases)[0].answer == "shelf"
