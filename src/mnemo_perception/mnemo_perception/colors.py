"""Colour attributes measured from a mask's pixels: each pixel gets a colour name from its HSV
value, and the object takes the name most of its (not too dark) pixels vote for.

Per-pixel votes rather than the mean colour, because shading and two-tone objects make the
mean a colour no pixel has. Shading alone cannot be voted away for a colourless (white, silver,
grey) object: its faces turned from the light read a darker grey than its lit ones, and most of an
object's pixels can be in shade, so such an object is named by its lit part instead.
"""
from __future__ import annotations

import numpy as np

COLOR_NAMES = ("red", "orange", "yellow", "green", "blue", "purple", "pink", "brown",
               "black", "white", "grey", "silver")
_INDEX = {name: i for i, name in enumerate(COLOR_NAMES)}

# Hue bands (degrees, upper bound exclusive) for saturated, not too dark pixels.
_HUE_BANDS = ((15.0, "red"), (40.0, "orange"), (70.0, "yellow"), (165.0, "green"), (255.0, "blue"),
              (290.0, "purple"), (345.0, "pink"), (360.0, "red"))
_COLOURLESS = ("white", "silver", "grey")
_LIT_SHARE = 0.2  # the brightest fifth of a colourless object's pixels is its lit part
_LIT_NAMES = ((0.85, "white"), (0.70, "silver"), (0.0, "grey"))  # lit part's value -> name


def rgb_to_hsv(rgb: np.ndarray) -> np.ndarray:
    """(..., 3) uint8 or [0, 1] floats -> (..., 3) float32 hue in degrees [0, 360), saturation and value in [0, 1]."""
    c = np.asarray(rgb, dtype=np.float32)
    if np.asarray(rgb).dtype == np.uint8:
        c = c / 255.0
    r, g, b = c[..., 0], c[..., 1], c[..., 2]
    v = c.max(axis=-1)
    delta = v - c.min(axis=-1)
    s = np.where(v > 0, delta / np.maximum(v, 1e-12), 0.0)
    safe = np.maximum(delta, 1e-12)
    h = np.where(v == r, ((g - b) / safe) % 6.0, np.where(v == g, (b - r) / safe + 2.0, (r - g) / safe + 4.0))
    h = np.where(delta > 0, h * 60.0, 0.0)
    return np.stack([h, s, v], axis=-1).astype(np.float32)


def name_indices(hsv: np.ndarray) -> np.ndarray:
    """Colour-name index (into COLOR_NAMES) of each HSV row: (N, 3) -> (N,) int."""
    h, s, v = hsv[:, 0], hsv[:, 1], hsv[:, 2]
    bounds = np.array([b for b, _ in _HUE_BANDS], dtype=np.float32)
    hue_names = np.array([_INDEX[n] for _, n in _HUE_BANDS])
    out = hue_names[np.minimum(np.searchsorted(bounds, h, side="right"), len(bounds) - 1)]
    # Dark oranges and reds are brown; pale reds are pink.
    out = np.where(((out == _INDEX["orange"]) | ((out == _INDEX["red"]) & (s < 0.75))) & (v < 0.6),
                   _INDEX["brown"], out)
    out = np.where((out == _INDEX["red"]) & (s < 0.5) & (v >= 0.7), _INDEX["pink"], out)
    grey = np.where(v >= 0.88, _INDEX["white"], np.where(v >= 0.72, _INDEX["silver"], _INDEX["grey"]))
    out = np.where(s < 0.18, grey, out)
    out = np.where(v < 0.2, _INDEX["black"], out)
    return out


def color_name(rgb: tuple[int, int, int]) -> str:
    """Name of one colour, e.g. ``color_name((200, 30, 30)) == "red"``."""
    return COLOR_NAMES[int(name_indices(rgb_to_hsv(np.array([rgb], dtype=np.uint8)))[0])]


def color_attributes(pixels: np.ndarray, max_pixels: int = 1500) -> dict[str, str]:
    """Colour attributes of a set of pixels ((N, 3) uint8): ``color``, the dominant name. Empty input
    gives no attributes. Only the name: an attribute is what the object is, and two identical objects
    (or one under two lights) must read alike; a measured mean colour differs in every frame."""
    pixels = np.asarray(pixels).reshape(-1, 3)
    if len(pixels) == 0:
        return {}
    if len(pixels) > max_pixels:  # a regular subsample is plenty for a vote and keeps large fixtures cheap
        pixels = pixels[:: int(np.ceil(len(pixels) / max_pixels))]
    hsv = rgb_to_hsv(pixels)
    names = name_indices(hsv)
    votes = np.bincount(names, minlength=len(COLOR_NAMES))
    black = _INDEX["black"]
    # Shadowed pixels read black; the object is black only when they are the clear majority.
    if votes[black] < 0.6 * len(names) and votes.sum() > votes[black]:
        votes[black] = 0
    name = COLOR_NAMES[int(np.argmax(votes))]
    if name in _COLOURLESS:
        lit = float(np.quantile(hsv[np.isin(names, [_INDEX[n] for n in _COLOURLESS]), 2], 1.0 - _LIT_SHARE))
        name = next(n for least, n in _LIT_NAMES if lit >= least)
    return {"color": name}
