"""The VLM attribute reader against a scripted OpenAI-compatible server: what it asks, what of the
answer it keeps, what it never keeps, and how often it asks (box size, per frame, per object, after
a failure)."""
import base64
import io
import json

import numpy as np
import pytest
from PIL import Image

from mnemo_common.fake_openai import FakeOpenAI
from mnemo_common.llm import ChatClient, LlmConfig
from mnemo_common.types import Detection
from mnemo_perception.attribute_reader import (
    AttributeReader, AttributeReaderConfig, ReadStatus, crop_object, validate_attributes,
)

HEIGHT, WIDTH = 240, 320


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


@pytest.fixture()
def fake():
    with FakeOpenAI() as server:
        yield server


def make_reader(fake, clock=None, **config):
    client = ChatClient(LlmConfig(fake.base_url, "fake-vlm", timeout=5.0))
    return AttributeReader(client, AttributeReaderConfig(**config), clock=clock or Clock())


def detection(label="tin", box=(100, 60, 180, 160), at=(2.0, 1.0, 0.8), kind="object", color="blue"):
    mask = np.zeros((HEIGHT, WIDTH), dtype=bool)
    x0, y0, x1, y1 = box
    mask[y0:y1, x0:x1] = True
    return Detection(label, 0.9, kind=kind, box_2d=tuple(float(v) for v in box), centroid=at,
                     attributes={"color": color}, mask=mask)


def image():
    return np.full((HEIGHT, WIDTH, 3), 200, dtype=np.uint8)


def read_all(reader, detections):
    detections, requests = reader.select(image(), detections)
    return detections, [reader.read(r) for r in requests]


def test_a_read_brand_rides_on_later_frames_of_the_object_without_asking_again(fake):
    fake.push('{"brand": "Zenthra", "text": "Quorvo"}')
    reader = make_reader(fake)
    first, results = read_all(reader, [detection()])
    assert first[0].attributes == {"color": "blue"}  # the frame that asked goes on without waiting
    assert [(r.status, r.attributes) for r in results] == [(ReadStatus.READ, {"brand": "Zenthra", "text": "Quorvo"})]
    # the object seen again, its centroid a few centimetres off, its colour measured anew
    later, requests = reader.select(image(), [detection(at=(2.04, 1.02, 0.8), color="purple")])
    assert requests == []
    assert later[0].attributes == {"brand": "Zenthra", "text": "Quorvo", "color": "purple"}
    assert len(fake.requests) == 1

    body = fake.requests[0]["body"]
    assert body["model"] == "fake-vlm" and body["response_format"] == {"type": "json_object"}
    text, picture = body["messages"][1]["content"]
    assert json.dumps("tin") in text["text"]  # the label goes in as quoted data
    url = picture["image_url"]["url"]
    assert url.startswith("data:image/jpeg;base64,")
    crop = Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1])))
    assert crop.format == "JPEG" and crop.size == (104, 130)  # the 80x100 box and 15% on each side


def test_keys_outside_the_allowed_set_colour_included_are_dropped(fake):
    fake.push('{"brand": "Zenthra", "color": "red", "price": "4", "instance_id": "tin_3", "Material": "tin"}')
    reader = make_reader(fake)
    _, (result,) = read_all(reader, [detection()])
    assert result.attributes == {"brand": "Zenthra", "material": "tin"}
    assert "'color'" in result.detail and "'price'" in result.detail and "'instance_id'" in result.detail
    later, _ = reader.select(image(), [detection()])
    assert later[0].attributes["color"] == "blue"  # pixels name the colour, never the model


def test_long_empty_and_non_string_values_are_dropped():
    answer = {"title": "Quorvo " * 20, "text": 5, "material": "unknown", "brand": None,
              "pattern": "  Blorp\n stripes ", "brand ": "line one\x07"}
    kept, dropped = validate_attributes(answer, AttributeReaderConfig())
    assert kept == {"pattern": "Blorp stripes"}
    assert len(dropped) == 3  # the title, the number, the control character


@pytest.mark.parametrize("reply", ["not json at all", '["Zenthra"]', '{"brand": "Zenthra"',
                                   '{"brand": "' + "x" * 3000 + '"}'])
def test_a_malformed_answer_gives_nothing_and_is_not_asked_again_soon(fake, reply):
    fake.push(reply)
    reader = make_reader(fake)
    _, (result,) = read_all(reader, [detection()])
    assert result.status == ReadStatus.REJECTED and result.attributes == {} and result.detail
    later, requests = reader.select(image(), [detection()])
    assert requests == [] and later[0].attributes == {"color": "blue"}


@pytest.mark.parametrize("failure", [500, b"<html>bad gateway</html>"])
def test_an_endpoint_failure_pauses_reading_then_the_object_is_asked_again(fake, failure):
    clock = Clock()
    fake.push(failure)
    reader = make_reader(fake, clock, retry_after=30.0)
    _, (result,) = read_all(reader, [detection()])
    assert result.status == ReadStatus.FAILED and result.attributes == {}
    clock.now += 29.0
    assert reader.select(image(), [detection()])[1] == []  # paused: a down endpoint is not asked every frame
    clock.now += 2.0
    fake.push('{"brand": "Zenthra"}')
    _, (result,) = read_all(reader, [detection()])
    assert result.attributes == {"brand": "Zenthra"}
    assert reader.select(image(), [detection()])[0][0].attributes["brand"] == "Zenthra"
    assert reader.counts["failed"] == 1 and reader.counts["read"] == 1


def test_small_boxes_and_fixtures_are_not_read_and_big_ones_go_first(fake):
    reader = make_reader(fake, min_box_px=48, max_reads_per_frame=2)
    small = detection("cup", box=(10, 10, 50, 200), at=(1.0, 0.0, 0.8))  # 40 px wide: print unreadable
    fixture = detection("shelf", box=(0, 0, 300, 200), at=(3.0, 0.0, 1.0), kind="fixture")
    mid = detection("tin", box=(60, 60, 120, 120), at=(2.0, 0.0, 0.8))
    big = detection("box", box=(100, 50, 250, 200), at=(2.5, 0.0, 0.8))
    large = detection("book", box=(150, 100, 250, 200), at=(2.2, 0.5, 0.8))
    _, requests = reader.select(image(), [small, fixture, mid, big, large])
    assert [r.label for r in requests] == ["box", "book"]
    # while those two wait for the endpoint no more are asked for
    assert reader.select(image(), [small, fixture, mid, big, large])[1] == []
    fake.push('{}', '{}', '{"brand": "Zenthra"}')
    for r in requests:
        reader.read(r)
    _, requests = reader.select(image(), [small, fixture, mid, big, large])
    assert [r.label for r in requests] == ["tin"]
    reader.read(requests[0])
    assert reader.select(image(), [small, fixture, mid, big, large])[1] == []
    assert len(fake.requests) == 3


def test_look_alikes_side_by_side_are_read_apart_and_keep_their_own_attributes(fake):
    fake.push('{"brand": "Zenthra"}', '{"brand": "Quorvo"}')
    reader = make_reader(fake, same_object_radius=0.1)
    left = detection(box=(40, 60, 120, 160), at=(2.0, 1.00, 0.8))
    right = detection(box=(130, 60, 210, 160), at=(2.0, 1.07, 0.8))  # 7 cm apart: both within the radius
    _, results = read_all(reader, [left, right])
    assert [r.attributes["brand"] for r in results] == ["Zenthra", "Quorvo"]
    later, requests = reader.select(image(), [right, left])
    assert requests == [] and [d.attributes["brand"] for d in later] == ["Quorvo", "Zenthra"]
    # another class where the tin was read, and the tin carried off, are other objects
    book = detection("book", at=(2.0, 1.0, 0.8))
    moved = detection(at=(3.0, 1.0, 0.8))
    later, requests = reader.select(image(), [book, moved])
    assert "brand" not in later[0].attributes and "brand" not in later[1].attributes
    assert sorted(r.label for r in requests) == ["book", "tin"]


def test_an_object_is_read_again_when_seen_much_closer_or_long_after(fake):
    clock = Clock()
    fake.push('{}', '{"brand": "Zenthra"}', '{"brand": "Quorvo"}')
    reader = make_reader(fake, clock, reread_growth=2.0, reread_after=600.0)
    read_all(reader, [detection(box=(100, 60, 160, 120))])
    assert reader.select(image(), [detection(box=(100, 60, 180, 130))])[1] == []  # 1.6 times: not yet
    _, (closer,) = read_all(reader, [detection(box=(80, 40, 180, 140))])  # 2.8 times the area read
    assert closer.attributes == {"brand": "Zenthra"}
    clock.now += 599.0
    assert reader.select(image(), [detection(box=(80, 40, 180, 140))])[1] == []
    clock.now += 2.0
    _, (aged,) = read_all(reader, [detection(box=(80, 40, 180, 140))])
    assert aged.attributes == {"brand": "Quorvo"}  # the newest read replaces the older one


def test_a_malformed_answer_to_a_re_read_keeps_what_was_read_before(fake):
    clock = Clock()
    fake.push('{"brand": "Zenthra"}', 'not json at all')
    reader = make_reader(fake, clock, reread_after=600.0)
    read_all(reader, [detection()])
    clock.now += 601.0
    _, (again,) = read_all(reader, [detection()])
    assert again.status is ReadStatus.REJECTED
    later, requests = reader.select(image(), [detection()])
    assert requests == [] and later[0].attributes["brand"] == "Zenthra"


def test_the_crop_dims_what_is_not_the_object():
    rgb = np.zeros((HEIGHT, WIDTH, 3), dtype=np.uint8)
    rgb[:, :] = (250, 10, 10)
    d = detection(box=(100, 100, 140, 140))
    crop = crop_object(rgb, d.box_2d, d.mask, margin=0.25)
    assert crop.shape == (60, 60, 3)
    assert tuple(crop[30, 30]) == (250, 10, 10)  # the object's own pixels as seen
    assert tuple(crop[2, 2]) == (170, 86, 86)  # a neighbour's pixels towards grey
    edge = crop_object(rgb, (0.0, 0.0, 20.0, 20.0), None, margin=0.5)
    assert edge.shape == (30, 30, 3)  # clipped to the image
