"""Object-level memory: a query about one object finds the record that saw it, and says which
sighting matched, even when the record's caption lists many other things (both backends)."""
from __future__ import annotations

from mnemo_common.types import MemoryFilter, MemoryRecord, Pose2D, Pose3D, Sighting

from mnemo_memory.caption import describe_sighting
from mnemo_memory.service import MemoryService
from mnemo_memory.sightings import sighting_text
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


def test_the_best_sighting_outranks_views_whose_captions_mention_more_of_the_query(backend):
    # views of a hallway full of silver things rank above the crowded view in the caption ranking
    # and their sightings close behind the keys in the sighting ranking; the one sighting of silver
    # keys matches the query best, so its record comes first
    memory = _service(backend)
    keys = Sighting("keys", (1.0, 0.0, 0.8), {"color": "silver"}, object_id="keys_1", support="dining_table",
                    relation="on")
    crowded = _view(0, [*_clutter(8), keys], 0.0)
    silver = [Sighting(label, (0.0, 0.0, 0.9), {"color": "silver"}, object_id=f"{label}_1", support="shelf")
              for label in ("tray", "lamp", "vase")]
    hallway = [MemoryRecord(id="", stamp=10.0 * i, robot_pose=Pose2D(float(i), 5.0, 0.0),
                            camera_pose=Pose3D((float(i), 5.0, 1.2)), room="hallway", labels=["lamp", "tray", "vase"],
                            caption="In the hallway: a silver tray, a silver lamp, a silver vase.",
                            sightings=silver) for i in range(1, 6)]
    memory.add([crowded, *hallway])
    top = memory.search_text("where are my silver keys", k=3)
    assert top[0].id == crowded.id
    assert top[0].sightings[top[0].matched_sighting].object_id == "keys_1"
    memory.close()


def test_a_query_describing_a_whole_view_finds_that_view(backend):
    memory = _service(backend)
    views = [_view(i, _clutter(1 + i), 10.0 * i) for i in range(8)]  # each view holds one more thing
    memory.add(views)
    wanted = views[4]
    assert memory.search_text(wanted.caption, k=1)[0].id == wanted.id
    memory.close()


def test_object_search_answers_each_instance_once_with_its_best_sighting(backend):
    memory = _service(backend)
    mugs = [Sighting("mug", (0.0, 0.0, 0.8), {"color": color}, object_id=f"mug_{color}", support="table",
                     relation="on") for color in ("red", "blue")]
    memory.add([_view(i, [*_clutter(2), mugs[i % 2]], 10.0 * i) for i in range(10)])
    found = memory.search_objects("a red mug", k=5)
    instances = [r.sightings[r.matched_sighting].object_id for r in found]
    assert instances[0] == "mug_red"
    assert len(instances) == len(set(instances))  # one answer per instance
    assert "mug_blue" in instances
    late = memory.search_objects("a red mug", k=5, filter=MemoryFilter(since=55.0))
    assert all(r.stamp >= 55.0 for r in late) and late[0].sightings[late[0].matched_sighting].object_id == "mug_red"
    memory.close()


def test_object_search_of_a_store_without_object_sightings_is_empty(backend):
    memory = _service(backend)
    memory.store.objects = False  # as a store created before object-level memory
    memory.add([_view(0, _clutter(3), 0.0)])
    assert memory.search_objects("a lamp", k=3) == []
    memory.close()


def test_an_instance_seen_every_day_does_not_hide_another_one_the_query_names(backend):
    # a month of patrols: one widget seen at its place in every pass, another (the one the query
    # names by its brand) seen once; the daily one's identical sightings match the query's other
    # words more closely, and alone would fill the top k
    memory = _service(backend)
    daily = Sighting("widget", (0.0, 0.0, 0.8), object_id="widget_1", support="bench", relation="on")
    named = Sighting("widget", (0.0, 0.0, 0.8), {"color": "grey", "size": "small", "material": "plastic",
                                                 "state": "scratched", "brand": "Zentra", "owner": "Ola"},
                     object_id="widget_2", support="cabinet", relation="in")
    once = _view(0, [named, *_clutter(5)], 0.0)
    days = [_view(i, [daily, *_clutter(5)], 10.0 * i) for i in range(1, 31)]
    memory.add([once, *days])
    query = "a widget of brand Zentra"
    texts = [sighting_text(s, "living_room") for s in (daily, named, *_clutter(5))]
    e = memory.embedder.embed([query, texts[0], once.caption, days[0].caption, *texts[1:]])
    assert e[0] @ e[1] > max(e[2:] @ e[0])  # the daily widget's sightings are the nearest of all
    found = memory.search_text(query, k=3)
    assert {r.sightings[r.matched_sighting].object_id for r in found} == {"widget_1", "widget_2"}
    assert once.id in [r.id for r in found]
    memory.close()


def test_views_nearer_the_query_than_any_sighting_leave_room_for_the_best_sighting(backend):
    # empty views, whose caption is their room, match a question naming that room more closely
    # than any object's own text does (the view ranking leads); their repeats must not fill the top k
    memory = _service(backend)
    widget = Sighting("widget", (0.0, 0.0, 0.8), {"color": "green", "material": "plastic", "brand": "Zentra"},
                      object_id="widget_1", support="shelf", relation="on")
    empty = [MemoryRecord(id="", stamp=10.0 * i, robot_pose=Pose2D(float(i), 0.0, 0.0),
                          camera_pose=Pose3D((float(i), 0.0, 1.2)), caption="In the den: nothing recognisable.",
                          room="den") for i in range(1, 11)]
    seen = [widget, *_clutter(3)]
    crowded = MemoryRecord(id="", stamp=0.0, robot_pose=Pose2D(0.0, 0.0, 0.0), camera_pose=Pose3D((0.0, 0.0, 1.2)),
                           caption="In the den: " + ", ".join(describe_sighting(s) for s in seen) + ".",
                           room="den", labels=sorted(s.label for s in seen), sightings=seen)
    memory.add([crowded, *empty])
    query = "where is my widget in the den"
    e = memory.embedder.embed([query, empty[0].caption, crowded.caption, *(sighting_text(s, "den") for s in seen)])
    assert e[0] @ e[1] > max(e[2:] @ e[0])  # the empty views lead
    found = memory.search_text(query, k=3)
    assert found[0].caption == empty[0].caption
    assert crowded.id in [r.id for r in found]
    assert next(r for r in found if r.id == crowded.id).matched_sighting == 0
    memory.close()


def test_the_sighting_pool_of_a_text_query_is_ranked_only_and_the_best_sighting_scored(backend):
    """The pool merged with the views by rank is not rescored (its float vectors stay on disk); the
    one sighting whose score is compared with the best view's is."""
    memory = _service(backend)
    mug = Sighting("mug", (0.0, 0.0, 0.8), {"color": "red"}, object_id="mug_1", support="table", relation="on")
    memory.add([_view(i, [mug, *_clutter(2)], 100.0 * i) for i in range(5)])
    store, calls = memory.store, []
    original = store._nearest_sightings

    def spy(vector, words, cond, limit, ranked_only=False):
        calls.append((limit, ranked_only))
        return original(vector, words, cond, limit, ranked_only)

    store._nearest_sightings = spy
    assert memory.search_text("red mug", k=3)
    assert (24, True) in calls and (1, False) in calls, calls
    memory.close()
