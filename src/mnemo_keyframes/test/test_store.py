import os
import sqlite3

import numpy as np
import pytest
from PIL import Image

from mnemo_common.files import CorruptFileError
from mnemo_common.types import KeyframeMeta, MnemoError, Pose2D, Status
from mnemo_keyframes.store import KeyframeStore, check_id
from mnemo_keyframes.testing import textured


def meta(kf_id="", trigger="new_node", stamp=1.0, **kw):
    return KeyframeMeta(id=kf_id, stamp=stamp, trigger=trigger, **kw)


def test_add_writes_image_thumbnail_and_metadata(tmp_path):
    store = KeyframeStore(tmp_path, run_id="run1", image_format="png")
    m = store.add(meta("a1", node_ids=["cabinet_1", "mug_1"], labels=["mug"], robot_pose=Pose2D(1, 2, 0.5),
                       caption="a red mug"), textured(0))
    assert os.path.isfile(m.image_path) and os.path.isfile(m.thumbnail_path)
    assert Image.open(m.thumbnail_path).size == (160, 120)
    assert Image.open(m.image_path).size == (640, 480)
    got = store.get("a1")
    assert got.node_ids == ["cabinet_1", "mug_1"] and got.run_id == "run1" and got.robot_pose == Pose2D(1, 2, 0.5)
    assert np.array_equal(np.asarray(Image.open(got.image_path)), textured(0))  # PNG is lossless


def test_query_by_node_label_trigger_and_time(tmp_path):
    store = KeyframeStore(tmp_path)
    store.add(meta("a", stamp=1, node_ids=["n1"], labels=["Mug"]), textured(1))
    store.add(meta("b", stamp=2, node_ids=["n2"], trigger="updated_node"), textured(2))
    store.add(meta("c", stamp=3, node_ids=["n1", "n2"], trigger="interaction_before"), textured(3))
    assert [m.id for m in store.query(node_id="n1")] == ["c", "a"]
    assert [m.id for m in store.query(label="mug")] == ["a"]
    assert [m.id for m in store.query(trigger="updated_node")] == ["b"]
    assert [m.id for m in store.query(since=1.5, until=2.5)] == ["b"]
    assert [m.id for m in store.query(node_id="n2", limit=1)] == ["c"]
    with pytest.raises(MnemoError):
        store.query(trigger="bogus")


@pytest.mark.parametrize("bad", ["../x", "a/b", "..", "", "/etc/passwd", "a\\b", "x" * 200, "a..b"])
def test_ids_cannot_leave_the_store(tmp_path, bad):
    store = KeyframeStore(tmp_path)
    with pytest.raises(MnemoError) as err:
        if bad:
            store.add(meta(bad), textured(0))
        else:
            check_id(bad)
    assert err.value.code == Status.INVALID_ARGUMENT
    with pytest.raises(MnemoError):
        store.tag([bad or "../"], ["x"])
    with pytest.raises(MnemoError):
        store.path_in_store("../../etc/passwd")
    assert not (tmp_path / "x").exists()


def test_crash_leftovers_are_cleaned_on_open(tmp_path):
    store = KeyframeStore(tmp_path)
    kept = store.add(meta("keep"), textured(1))
    lost = store.add(meta("lost"), textured(2))
    store.close()
    os.remove(lost.image_path)  # metadata pointing at a missing image
    orphan = tmp_path / "keyframes" / "images" / "orphan.jpg"  # image written, row never committed
    orphan.write_bytes(b"x")
    tmp = tmp_path / "keyframes" / "thumbs" / ".half.jpg.1234.tmp"
    tmp.write_bytes(b"x")
    store = KeyframeStore(tmp_path)
    assert store.recovered == {"dropped_rows": 1, "orphan_files": 3}  # orphan, tmp, lost's thumbnail
    assert store.get("lost") is None and store.get("keep") is not None
    assert not orphan.exists() and not tmp.exists() and os.path.isfile(kept.image_path)


def test_crash_between_file_and_row_never_leaves_a_dangling_row(tmp_path, monkeypatch):
    store = KeyframeStore(tmp_path)

    def boom(*a, **k):
        raise sqlite3.OperationalError("disk died")

    real_execute = store._db.execute
    monkeypatch.setattr(store, "_db", type("DB", (), {
        "execute": lambda self, sql, *a: boom() if sql.startswith("INSERT INTO keyframes") else real_execute(sql, *a),
        "executemany": store._db.executemany, "commit": store._db.commit, "close": store._db.close})())
    with pytest.raises(sqlite3.OperationalError):
        store.add(meta("x"), textured(1))
    monkeypatch.undo()
    store.close()
    reopened = KeyframeStore(tmp_path)
    assert reopened.get("x") is None and reopened.count() == 0
    assert list((tmp_path / "keyframes" / "images").iterdir()) == []


def test_tags_apply_now_or_when_the_keyframe_arrives(tmp_path):
    store = KeyframeStore(tmp_path)
    store.add(meta("i1-before", trigger="interaction_before"), textured(1))
    updated = store.tag(["i1-before", "i1-after"], ["locked", "cabinet door"], "handle held, door still",
                        key_frame_id="i1-after")
    assert updated == 1
    assert store.get("i1-before").tags == ["locked", "cabinet door"]
    assert store.get("i1-before").trigger == "interaction_before"
    after = store.add(meta("i1-after", trigger="interaction_after"), textured(2))
    assert after.tags == ["locked", "cabinet door"] and after.trigger == "interaction_key"
    assert after.caption == "handle held, door still"
    assert [m.id for m in store.query(label="locked")] == ["i1-after", "i1-before"]


def test_link_adds_nodes_and_labels(tmp_path):
    store = KeyframeStore(tmp_path)
    store.add(meta("a", node_ids=["n1"]), textured(1))
    store.link("a", ["n2", "n1"], ["bowl"])
    assert store.get("a").node_ids == ["n1", "n2"]
    assert [m.id for m in store.by_nodes(["n2"], 5)] == ["a"]
    assert [m.id for m in store.by_terms(["bowl"], 5)] == ["a"]


def test_add_from_file_rejects_non_images(tmp_path):
    store = KeyframeStore(tmp_path / "s")
    (tmp_path / "secret.txt").write_text("password")
    with pytest.raises(MnemoError):
        store.add_from_file(meta("a", trigger="interaction_before"), tmp_path / "secret.txt")
    fake_png = tmp_path / "fake.png"
    fake_png.write_text("not an image")
    with pytest.raises(MnemoError):
        store.add_from_file(meta("a", trigger="interaction_before"), fake_png)
    Image.fromarray(textured(4)).save(tmp_path / "f.png")
    m = store.add_from_file(meta("a", trigger="interaction_before"), tmp_path / "f.png")
    assert os.path.isfile(m.image_path)


@pytest.mark.parametrize("damage", ["truncated", "garbage", "missing"])
def test_a_damaged_database_refuses_to_open_naming_the_file(tmp_path, damage):
    """Never an empty store that then deletes every image as an orphan."""
    store = KeyframeStore(tmp_path)
    for i in range(40):
        store.add(meta(f"k{i}", caption=f"frame {i} " * 20), textured(i % 3))
    store.close()
    db = tmp_path / "keyframes" / "keyframes.db"
    if damage == "missing":
        db.unlink()
    else:
        data = db.read_bytes()
        db.write_bytes(data[: len(data) // 2] if damage == "truncated" else data[:100] + os.urandom(len(data) - 100))
    with pytest.raises(CorruptFileError) as caught:
        KeyframeStore(tmp_path)
    assert caught.value.path == db and str(db) in caught.value.message
    assert len(list((tmp_path / "keyframes" / "images").iterdir())) == 40  # nothing deleted
