import numpy as np
import pytest

from mnemo_perception.colors import COLOR_NAMES, color_attributes, color_name, rgb_to_hsv


@pytest.mark.parametrize("rgb,name", [
    ((220, 20, 20), "red"), ((240, 140, 20), "orange"), ((235, 220, 30), "yellow"), ((30, 170, 40), "green"),
    ((30, 60, 210), "blue"), ((120, 40, 180), "purple"), ((240, 120, 200), "pink"), ((250, 160, 160), "pink"),
    ((110, 65, 25), "brown"), ((10, 10, 12), "black"), ((245, 245, 245), "white"), ((110, 110, 110), "grey"),
    ((200, 200, 205), "silver"), ((20, 160, 200), "blue"),
])
def test_color_names(rgb, name):
    assert color_name(rgb) == name


def test_hsv_matches_colorsys():
    import colorsys

    rgb = np.random.default_rng(1).integers(0, 256, (200, 3), dtype=np.uint8)
    hsv = rgb_to_hsv(rgb)
    for (r, g, b), (h, s, v) in zip(rgb, hsv):
        eh, es, ev = colorsys.rgb_to_hsv(r / 255, g / 255, b / 255)
        assert v == pytest.approx(ev, abs=1e-5) and s == pytest.approx(es, abs=1e-5)
        assert min(abs(h - eh * 360), 360 - abs(h - eh * 360)) < 1e-2


def test_dominant_colour_ignores_shadow_and_minority():
    pixels = np.array([(200, 30, 30)] * 50 + [(15, 5, 5)] * 40 + [(30, 60, 210)] * 10, dtype=np.uint8)
    assert color_attributes(pixels)["color"] == "red"
    assert color_attributes(np.array([(10, 10, 10)] * 9 + [(200, 30, 30)], np.uint8))["color"] == "black"
    assert color_attributes(np.zeros((0, 3), np.uint8)) == {}
    assert set(COLOR_NAMES) >= {"red", "silver", "grey"}


def test_a_colourless_object_is_named_by_its_lit_part():
    """A white box with most of its faces in shade reads grey pixel by pixel; its lit face says white.
    A grey object's lit face is grey, and a black one stays black."""
    white = np.array([(235, 235, 232)] * 30 + [(150, 150, 146)] * 70, dtype=np.uint8)
    assert color_name(tuple(int(v) for v in white.mean(axis=0))) == "grey"
    assert color_attributes(white)["color"] == "white"
    assert color_attributes(np.array([(200, 200, 204)] * 30 + [(120, 120, 120)] * 70, np.uint8))["color"] == "silver"
    assert color_attributes(np.array([(130, 130, 130)] * 30 + [(70, 70, 70)] * 70, np.uint8))["color"] == "grey"
    assert color_attributes(np.array([(25, 25, 25)] * 30 + [(12, 12, 12)] * 70, np.uint8))["color"] == "black"


def test_twins_under_different_light_read_alike():
    """Attributes say what an object is: two identical objects, one in brighter light, get the same
    attributes (a measured mean colour differs in every frame and made twins look like two kinds)."""
    lit = np.array([(200, 30, 30)] * 80 + [(120, 18, 18)] * 20, np.uint8)
    shaded = np.array([(170, 26, 26)] * 60 + [(110, 16, 16)] * 40, np.uint8)
    assert color_attributes(lit) == color_attributes(shaded) == {"color": "red"}
