"""Room-hour keywords (schema 3): a room and a time range are also matched as a few exact keywords,
which changes how fast the engine finds records, never which records it finds (both backends); a
store created before them answers the same queries without them."""
from __future__ import annotations

import json
import random

import pytest

from mnemo_common.types import MemoryFilter, MemoryRecord, MnemoError, Pose2D, Pose3D, Sighting

from mnemo_memory.conditions import MAX_ROOM_HOURS, Conditions
from mnemo_memory.records import hour_of, room_hour
from mnemo_memory.service import MemoryService
from mnemo_memory.testing import WordEmbedder

ROOMS = ["den", "loft", "porch"]


def test_keywords_cover_every_hour_of_a_closed_range_in_the_room():
    c = Conditions(room="den", stamp_gte=3599.0, stamp_lte=7200.0)
    assert c.room_hours() == ["den@0", "den@1", "den@2"]
    assert Conditions(room="den", stamp_gte=-1.0, stamp_lt=10.0).room_hours() == ["den@-1", "den@0"]
    assert Conditions(stamp_gte=0.0, stamp_lte=10.0).room_hours() == []  # no room
    assert Conditions(room="den", stamp_gte=0.0).room_hours() == []  # open range
    assert Conditions(room="den", stamp_lte=10.0).room_hours() == []
    longest = Conditions(room="den", stamp_gte=0.0, stamp_lte=3600.0 * MAX_ROOM_HOURS - 1.0)
    assert len(longest.room_hours()) == MAX_ROOM_HOURS
    assert Conditions(room="den", stamp_gte=0.0, stamp_lte=3600.0 * MAX_ROOM_HOURS).room_hours() == []
    for stamp in (9.5e15 + 10.0, 1.7e9 + 3599.999, -0.5):  # a record's keyword is among its range's
        keys = Conditions(room="den", stamp_gte=stamp - 1.0, stamp_lte=stamp + 1.0).room_hours()
        assert room_hour("den", hour_of(stamp)) in keys


def test_a_store_of_a_newer_schema_is_refused_with_a_clear_error(tmp_path):
    from mnemo_memory.store import open_store

    path = tmp_path / "data"
    open_store(path, "test-words", 64).close()
    meta = path / "memory" / "mnemo_memory" / "meta.json"
    meta.write_text(json.dumps({**json.loads(meta.read_text()), "schema": 99}))
    with pytest.raises(MnemoError, match="schema 99, newer"):
        open_store(path, "test-words", 64)


def _records(n: int, seed: int) -> list[MemoryRecord]:
    """A record every 7 minutes over ~30 hours, rooms at random, one thing seen in each."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        room, x = rng.choice(ROOMS), rng.uniform(0.0, 12.0)
        thing = Sighting("dax", (x, 0.0, 0.5), {"color": rng.choice(["mauve", "teal"])}, object_id=f"dax_{i % 5}",
                         support="plinth")
        out.append(MemoryRecord(id="", stamp=420.0 * i + 30.0 if i % 60 else 3600.0 * (i // 60 + 2), robot_pose=Pose2D(x, 1.0, 0.0),
                                camera_pose=Pose3D((x, 1.0, 1.2)), caption=f"In the {room}: a dax.", room=room,
                                labels=["dax"], sightings=[thing]))
    return out


def _windows(seed: int) -> list[tuple[float, float, str]]:
    rng = random.Random(seed)
    out = [(3600.0 * h, 3600.0 * (h + 1), room) for h in (2, 3) for room in ROOMS]  # on hour boundaries
    for _ in range(25):
        since = rng.uniform(-3600.0, 30 * 3600.0)
        out.append((since, since + rng.choice([60.0, 600.0, 3599.0, 3600.0, 5 * 3600.0, 60 * 3600.0]), rng.choice(ROOMS)))
    return out


def _want(records: list[MemoryRecord], since: float, until: float, room: str) -> set[str]:
    return {r.id for r in records if r.room == room and since <= r.stamp <= until}


def test_room_and_time_filters_find_exactly_the_records_in_both(backend):
    memory = MemoryService(backend(), WordEmbedder())
    assert memory.store.room_hours  # a new store is of schema 3
    records = _records(260, 1)
    memory.add(records)
    for since, until, room in _windows(2):
        f = MemoryFilter(since=since, until=until, room=room)
        want = _want(records, since, until, room)
        assert {r.id for r in memory.search_text("a dax", k=300, filter=f)} == want, (since, until, room)
        assert {r.id for r in memory.search_time(since=since, until=until, k=300, filter=f)} == want
        objects = memory.store.search_objects(memory.embedder.embed(["a dax"])[0], k=300, filter=f)
        assert {r.id for r in objects} <= want and (bool(objects) == bool(want))
    memory.close()


def test_a_store_created_before_room_hours_answers_without_them(tmp_path):
    from mnemo_memory.store import open_store

    path = tmp_path / "data"
    open_store(path, "test-words", 64).close()
    meta = path / "memory" / "mnemo_memory" / "meta.json"
    old = {**json.loads(meta.read_text()), "schema": 2}
    meta.write_text(json.dumps(old))
    store = open_store(path, "test-words", 64)
    assert store.objects and not store.room_hours
    memory = MemoryService(store, WordEmbedder())
    records = _records(120, 3)
    memory.add(records)
    payload = store._shard.retrieve([records[0].id], with_payload=True, with_vector=False)[0].payload
    assert "rh" not in payload and payload["room"] == records[0].room  # written as schema 2 writes it
    for since, until, room in _windows(4):
        want = _want(records, since, until, room)
        found = memory.search_text("a dax", k=200, filter=MemoryFilter(since=since, until=until, room=room))
        assert {r.id for r in found} == want
    memory.close()


def _compacted_lasting_into_the_range(memory: MemoryService) -> None:
    """A compacted record that started before the range and lasts into it matches, though its start
    hour is none of the range's keywords; one of another room does not."""
    long_ago, elsewhere = _records(2, 5)
    elsewhere.room = next(room for room in ROOMS if room != long_ago.room)
    memory.add([long_ago, elsewhere])
    for r in (long_ago, elsewhere):
        r.last_stamp, r.count = 20 * 3600.0, 40
    memory.store.extend([long_ago, elsewhere])
    f = MemoryFilter(since=10 * 3600.0, until=11 * 3600.0, room=long_ago.room)
    assert [r.id for r in memory.search_text("a dax", k=5, filter=f)] == [long_ago.id]  # (not the other room's)
    memory.close()


def test_compacted_records_lasting_into_the_range_are_found(backend):
    _compacted_lasting_into_the_range(MemoryService(backend(), WordEmbedder()))


def test_compacted_records_lasting_into_the_range_are_found_without_room_hours(tmp_path):
    """The same in a store of schema 2 (its meta.json rewritten: it keeps the rh index, which
    nothing writes or queries then)."""
    from mnemo_memory.store import open_store

    path = tmp_path / "data"
    open_store(path, "test-words", 64).close()
    meta = path / "memory" / "mnemo_memory" / "meta.json"
    meta.write_text(json.dumps({**json.loads(meta.read_text()), "schema": 2}))
    store = open_store(path, "test-words", 64)
    assert not store.room_hours
    _compacted_lasting_into_the_range(MemoryService(store, WordEmbedder()))
