"""Object-level memory: a query about one object finds the record that saw it, and says which
sighting matched, even when the record's caption lists many other things (both backends)."""
from __future__ import annotations

from mnemo_common.types import MemoryFilter, MemoryRecord, Pose2D, Pose3D, Sighting

from mnemo_memory.service import MemoryService
from mnemo_memory.testing import WordEmbedder

CLUTTER = ["book", "sofa", "lamp", "plant", "pillow", "vase", "remote", "blanket"]


def _view(i: int, objects: list[Sighting], stamp: float) -> MemoryRecord:
    caption = "In the living room: " + ", ".join(f"a {s.label}" for s in objects) + "."
    return MemoryRecord(id="", stamp=stamp, robot_pose=Pose2D(float(i), 0.0, 0.0), camera_pose=Pose3D((float(i), 0.0, 1.2)),
                        caption=caption, room="living_room", labels=sorted({s.label for s in objects}), sightings=objects)


def _clutter(n: int) -> list[Sighting]:
    return [Sighting(label, (0.0, 0.0, 0.5), {"color": "brown"}, support="shelf") for label in CLUTTER[:n]]


def _service(backend) -> MemoryService:
    return MemoryService(backend(), WordEmbedder())


def test_one_object_in_a_crowded_view_is_found_by_its_sighting(backend):
    memory = _service(backend)
    keys = Sighting("keys", (1.0, 0.0, 0.8), {"color": "silver"}, object_id="keys_1", support="dining_table",
                    relation="on")
    crowded = _view(0, [*_clutter(8), keys], 0.0)
    memory.add([crowded, *[_view(i, _clutter(2), 10.0 * i) for i in range(1, 30)]])
    top = memory.search_text("where are my silver keys", k=1)[0]
    assert top.id == crowded.id
    assert top.sightings[top.matched_sighting].object_id == "keys_1"
    memory.close()


def test_exact_words_such_as_a_brand_rank_the_right_instance_first(backend):
    memory = _service(backend)
    phones = [Sighting("phone", (0.0, 0.0, 0.8), {"color": "black", "brand": brand}, object_id=f"phone_{brand}",
                       support="desk", relation="on") for brand in ("Nokara", "Applewood")]
    memory.add([_view(i, [phone, *_clutter(3)], 10.0 * i) for i, phone in enumerate(phones)])
    top = memory.search_text("the Applewood phone", k=2, filter=MemoryFilter(labels=["phone"]))
    assert top[0].sightings[top[0].matched_sighting].object_id == "phone_Applewood"
    memory.close()


def test_filters_apply_to_sightings_as_to_views(backend):
    memory = _service(backend)
    mug = Sighting("mug", (0.0, 0.0, 0.8), {"color": "red"}, object_id="mug_1", support="table", relation="on")
    memory.add([_view(i, [mug, *_clutter(2)], 100.0 * i) for i in range(10)])
    found = memory.search_text("red mug", k=10, filter=MemoryFilter(since=250.0, until=650.0))
    assert sorted(r.stamp for r in found) == [300.0, 400.0, 500.0, 600.0]
    assert all(r.matched_sighting == 0 for r in found)
    memory.close()
