"""Object search against an exhaustive reference on a store where two instances have hundreds of
identical sightings (a month of patrols), both backends: each instance answered once, by its best
sighting among those every filter admits, in the order of that sighting's match.

The texts are built so that the order is unambiguous under any fusion of the dense and sparse
rankings: every sighting's text holds a prefix of the query's words, and a longer prefix ranks
higher in both rankings (checked below), so an instance ranks by the longest prefix among its
admitted sightings however many repeats come before it."""
from __future__ import annotations

import math

import pytest

from mnemo_common.types import MemoryFilter, MemoryRecord, Pose2D, Pose3D, Sighting

from mnemo_memory.service import MemoryService
from mnemo_memory.sightings import object_sightings, sighting_text, words
from mnemo_memory.testing import WordEmbedder

DIM = 256
QUERY = ["zorbic", "plumed", "vantor", "glimmer", "quaxen", "frell", "dovit", "kessor", "yarrow", "mibble",
         "tandle", "oskin", "pravo", "wimsey", "cortle", "bexan", "lurid", "nashy", "fobble", "gristan",
         "hovel", "ivrel", "jaspin", "klemp"]


def _record(stamp: float, level: int, object_id: str, x: float = 0.0, y: float = 0.0, room: str = "hall",
            label: str = "widget", last: float | None = None) -> MemoryRecord:
    s = Sighting(label, (x, y, 0.8), {"mark": " ".join(QUERY[:level])}, object_id=object_id, support="shelf",
                 relation="on")
    return MemoryRecord(id="", stamp=stamp, robot_pose=Pose2D(x, y, 0.0), camera_pose=Pose3D((x, y, 1.2)),
                        caption=f"In the {room}: a {label}.", room=room, labels=[label], sightings=[s],
                        last_stamp=last)


def _patrols() -> list[MemoryRecord]:
    # two instances seen in every pass: 300 and 200 identical sightings
    out = [_record(1000.0 + i, 24, "daily", 0.2, 0.3) for i in range(300)]
    out += [_record(2000.0 + i, 22, "nightly", 0.4, -0.2, room="den") for i in range(200)]
    # sightings of no instance (a detector without tracking), between them: they answer nothing
    out += [_record(3000.0 + i, 23, "") for i in range(50)]
    # instances seen a few times each, levels 20, 18, ... 6 (instance j at 20 - 2j), spread out
    for j in range(8):
        for n in range(1 + j % 3):
            out.append(_record(200.0 + 10 * j + n, 20 - 2 * j, f"thing_{j}", x=-1.5 + 0.4 * j, y=0.1 * n,
                               label="gadget" if j % 2 else "widget"))
    # thing_1 was seen better before t=100 (level 21); after it, only at level 18
    out.append(_record(10.0, 21, "thing_1", x=-1.1))
    # thing_3: its best sightings lie in a corner of the region's box, outside its circle (level 15)
    out += [_record(300.0 + i, 15, "thing_3", x=1.9, y=1.9) for i in range(3)]
    # thing_5: one record merged by compaction, held from t=50 to t=500, seen at level 11
    out.append(_record(50.0, 11, "thing_5", x=0.5, last=500.0))
    # far away, in another room
    out.append(_record(400.0, 9, "far", x=8.0, y=8.0, room="den"))
    return out


def _admitted(r: MemoryRecord, f: MemoryFilter | None) -> bool:
    if f is None:
        return True
    first, last = r.span
    if (f.since is not None and last < f.since) or (f.until is not None and first > f.until):
        return False
    if f.room and r.room != f.room:
        return False
    if f.labels and not set(r.labels) & set(f.labels):
        return False
    return f.near is None or math.hypot(r.robot_pose.x - f.near[0], r.robot_pose.y - f.near[1]) <= f.radius


def _level(s: Sighting, room: str) -> int:
    return len(words(sighting_text(s, room)) & set(QUERY))


def _reference(records: list[MemoryRecord], f: MemoryFilter | None, k: int) -> list[tuple[str, int]]:
    """(instance, level of its best admitted sighting), best first: every sighting examined."""
    best: dict[str, int] = {}
    for r in records:
        for _, s in object_sightings(r):
            if s.object_id and _admitted(r, f):
                best[s.object_id] = max(best.get(s.object_id, 0), _level(s, r.room))
    return sorted(best.items(), key=lambda kv: -kv[1])[:k]


@pytest.fixture(scope="module", params=["edge", "client"])
def patrolled(request, tmp_path_factory):
    """One store per backend for every case (searches do not change it)."""
    from mnemo_memory.store import open_store

    where = tmp_path_factory.mktemp(request.param)
    store = (open_store(where, "test-words", DIM) if request.param == "edge"
             else open_store(url=f"path:{where}", model_name="test-words", dim=DIM))
    memory = MemoryService(store, WordEmbedder(DIM))
    records = _patrols()
    memory.add(records)
    yield memory, records
    memory.close()


def test_a_longer_prefix_of_the_query_ranks_higher_in_both_rankings():
    # the premise of the reference: each level's text is nearer the query (dense) and shares more
    # of its words (sparse) than every lower level's, whatever the room and label
    embed = WordEmbedder(DIM).embed
    query = embed([" ".join(QUERY)])[0]
    texts = {(lvl, room, label): sighting_text(_record(0.0, lvl, "x", room=room, label=label).sightings[0], room)
             for lvl in range(6, 25) for room in ("hall", "den") for label in ("widget", "gadget")}
    similarity = {key: float(embed([t])[0] @ query) for key, t in texts.items()}
    for (lvl, room, label), sim in similarity.items():
        assert all(sim > other for (lower, _, _), other in similarity.items() if lower < lvl)


@pytest.mark.parametrize("k", [1, 5, 8, 20])
@pytest.mark.parametrize("name, f", [
    ("none", None),
    ("since", MemoryFilter(since=100.0)),
    ("window", MemoryFilter(since=100.0, until=1500.0)),
    ("room", MemoryFilter(room="hall")),
    ("labels", MemoryFilter(labels=["gadget"])),
    ("region", MemoryFilter(near=(0.0, 0.0), radius=2.0)),
    ("labels + until", MemoryFilter(until=250.0, labels=["gadget"])),
])
def test_object_search_equals_the_exhaustive_reference(patrolled, name, f, k):
    memory, records = patrolled
    found = memory.search_objects(" ".join(QUERY), k=k, filter=f)
    got = []
    for r in found:
        s = r.sightings[r.matched_sighting]
        assert _admitted(r, f), f"{s.object_id} answered by a sighting the filter excludes"
        got.append((s.object_id, _level(s, r.room)))
    assert got == _reference(records, f, k)


def test_the_reference_is_not_trivial():
    # the cases above reach past the repeats, and their filters change the answer
    records = _patrols()
    plain = [o for o, _ in _reference(records, None, 8)]
    assert plain[:2] == ["daily", "nightly"] and len(plain) == 8
    assert ("thing_1", 18) in _reference(records, MemoryFilter(since=100.0), 20)
    assert ("thing_1", 21) in _reference(records, None, 20)
    region = dict(_reference(records, MemoryFilter(near=(0.0, 0.0), radius=2.0), 20))
    assert "thing_3" in region and region["thing_3"] < 15 and "far" not in region
    assert ("thing_5", 11) in _reference(records, MemoryFilter(since=100.0), 20)
