"""Compaction: repeated views of an unchanged place merge; every observed state stays recoverable
(both backends, offline and online), and an interrupted compaction loses nothing."""
from __future__ import annotations

import random

import pytest

from mnemo_common.types import MemoryFilter, MemoryRecord, Pose2D, Pose3D, Sighting

from mnemo_memory.compaction import CompactionConfig, compact_records
from mnemo_memory.service import MemoryService
from mnemo_memory.testing import WordEmbedder

PLACES = [(0.0, 0.0, "kitchen", "table"), (3.0, 0.0, "kitchen", "counter"), (6.0, 2.0, "living_room", "sofa")]
OBJECTS = ["mug", "keys", "book", "phone"]


def patrol(visits: int, seed: int = 0) -> list[MemoryRecord]:
    """Visits of three places, one record each; now and then an object moves to another place."""
    rng = random.Random(seed)
    where = {o: rng.randrange(len(PLACES)) for o in OBJECTS}
    out = []
    for v in range(visits):
        if rng.random() < 0.15:
            where[rng.choice(OBJECTS)] = rng.randrange(len(PLACES))
        for p, (x, y, room, fixture) in enumerate(PLACES):
            seen = [Sighting(o, (x, y, 0.8), {"color": "red"}, object_id=f"{o}_1", support=fixture, relation="on")
                    for o in OBJECTS if where[o] == p]
            caption = f"In the {room}: " + ", ".join(f"a {s.label} on the {fixture}" for s in seen)
            out.append(MemoryRecord(id="", stamp=600.0 * v + 10.0 * p, robot_pose=Pose2D(x, y, 0.0),
                                    camera_pose=Pose3D((x, y, 1.2)), caption=caption, room=room,
                                    labels=[s.label for s in seen], sightings=seen, raw_ref=f"frames/{v}_{p}.png"))
    return out


def _states(records) -> dict[float, set]:
    """Each observation time -> the (object, support) it showed."""
    return {r.stamp: {(s.object_id, s.support) for s in r.sightings} for r in records}


def assert_recoverable(raw: list[MemoryRecord], kept: list[MemoryRecord]) -> None:
    """At every observed moment, the kept records holding it show exactly what was observed then."""
    for r in raw:
        holding = [k for k in kept if k.span[0] <= r.stamp <= k.span[1] and k.robot_pose == r.robot_pose]
        assert holding, f"nothing holds the observation at {r.stamp}"
        for k in holding:
            assert {(s.object_id, s.support) for s in k.sightings} == {(s.object_id, s.support) for s in r.sightings}
        for s in r.sightings:  # and no kept record claims the object elsewhere then
            for k in kept:
                if k.span[0] <= r.stamp <= k.span[1]:
                    assert all(t.support == s.support for t in k.sightings if t.object_id == s.object_id)


def test_pure_compaction_merges_unchanged_visits_and_keeps_every_state():
    raw = patrol(60)
    for i, r in enumerate(raw):
        r.id = f"r{i}"
    extended, absorbed = compact_records([MemoryRecord(**vars(r)) for r in raw], CompactionConfig())
    kept = [extended.get(r.id, r) for r in raw if r.id not in set(absorbed)]
    assert len(kept) <= 0.5 * len(raw)
    assert sum(k.count for k in kept) == len(raw)
    assert_recoverable(raw, kept)
    merged = next(k for k in kept if k.count > 1)
    assert merged.raw_ref != merged.raw_ref_last  # first and last raw observations kept


@pytest.mark.parametrize("online", [False, True])
def test_store_compaction_keeps_the_past_answerable(backend, online):
    raw = patrol(40)
    config = CompactionConfig()
    memory = MemoryService(backend(), WordEmbedder(), compaction=config if online else None)
    for i in range(0, len(raw), 7):  # batches, as the node writes them
        memory.add([MemoryRecord(**vars(r)) for r in raw[i:i + 7]])
    if not online:
        report = memory.compact(config)
        assert report.before == len(raw) and report.after < len(raw)
    kept = list(memory.store.scan())
    assert len(kept) < 0.6 * len(raw) and sum(k.count for k in kept) == len(raw)
    assert_recoverable(raw, kept)
    # time queries see a merged record wherever its span overlaps them
    for r in raw[::5]:
        hits = memory.search_time(since=r.stamp, until=r.stamp, k=10)
        assert any(h.robot_pose == r.robot_pose for h in hits)
        near = memory.search_time(around=r.stamp, k=3)
        assert any(h.robot_pose == r.robot_pose and h.span[0] <= r.stamp <= h.span[1] for h in near)
    mug = raw[-1].sightings[0] if raw[-1].sightings else None
    if mug is not None:
        found = memory.search_text(f"red {mug.label}", k=3, filter=MemoryFilter(since=raw[-1].stamp))
        assert found and found[0].span[1] >= raw[-1].stamp
    memory.close()


def test_an_interrupted_compaction_loses_nothing_and_a_rerun_finishes_it(backend):
    raw = patrol(30)
    memory = MemoryService(backend(), WordEmbedder())
    memory.add([MemoryRecord(**vars(r)) for r in raw])
    stored = list(memory.store.scan())
    extended, absorbed = compact_records(stored, CompactionConfig())
    memory.store.extend(list(extended.values()))  # killed after the rewrites, before any deletion
    leftover = list(memory.store.scan())
    assert len(leftover) == len(raw)
    assert_recoverable(raw, leftover)
    memory.compact()
    kept = list(memory.store.scan())
    assert len(kept) == len(raw) - len(absorbed)
    assert sum(k.count for k in kept) == len(raw)  # leftovers are not counted twice
    assert_recoverable(raw, kept)
    memory.close()


def test_cli_compacts_a_stopped_store(tmp_path, capsys):
    from mnemo_memory.cli import main

    raw = patrol(20)
    memory = MemoryService.open(WordEmbedder(), tmp_path)
    memory.add(raw)
    memory.close()
    assert main(["compact", "--data-dir", str(tmp_path)]) == 0
    assert f"compacted {len(raw)} records" in capsys.readouterr().out
    memory = MemoryService.open(WordEmbedder(), tmp_path)
    assert memory.count() < len(raw) and sum(r.count for r in memory.store.scan()) == len(raw)
    # a running node holds the store: the CLI says so and changes nothing
    assert main(["compact", "--data-dir", str(tmp_path)]) == 1
    memory.close()
