import numpy as np
from PIL import Image, ImageFilter

from mnemo_keyframes.filters import FilterConfig, KeyframeFilter
from mnemo_keyframes.testing import textured


def blurred(img, radius=8):
    return np.asarray(Image.fromarray(img).filter(ImageFilter.GaussianBlur(radius)))


def test_blank_blurry_and_duplicate_are_rejected():
    f = KeyframeFilter(FilterConfig())
    assert f.admit(np.zeros((480, 640, 3), np.uint8), ["n1"]) == (False, "blank")
    assert f.admit(np.full((480, 640, 3), 200, np.uint8), ["n1"]) == (False, "blank")
    assert f.admit(blurred(textured(1)), ["n1"]) == (False, "blurry")
    assert f.admit(textured(1), ["n1"]) == (True, "")
    noisy = np.clip(textured(1).astype(int) + np.random.default_rng(9).integers(-3, 3, (480, 640, 3)), 0, 255)
    assert f.admit(noisy.astype(np.uint8), ["n1"]) == (False, "duplicate")
    assert f.admit(textured(2), ["n1"]) == (True, "")  # different view of the same node


def test_duplicates_are_judged_per_linked_node_set():
    f = KeyframeFilter()
    assert f.admit(textured(1), ["n1"])[0]
    assert f.admit(textured(1), ["n1", "n2"])[0]  # a new node in view: keep
    assert not f.admit(textured(1), ["n2", "n1"])[0]


def test_shifted_view_is_not_a_duplicate():
    f = KeyframeFilter()
    img = textured(5)
    assert f.admit(img, ["n"])[0]
    assert f.admit(np.roll(img, 200, axis=1), ["n"])[0]
