"""Filters for perception keyframes: blank, blurry and near-duplicate frames are not saved.

Every measure runs on a small grey image (the frame strided down to about 160 px wide), so the
filters cost well under a millisecond per 640x480 frame.
"""
from __future__ import annotations

from collections import OrderedDict, deque
from dataclasses import dataclass
from typing import Iterable

import numpy as np

WORK_WIDTH = 160  # grey working image width: fast, and enough for blur and hashes


@dataclass(frozen=True)
class FilterConfig:
    blank_std: float = 4.0  # grey standard deviation below which a frame is blank (lens cap, black)
    # Variance of the Laplacian over the grey variance: edge energy relative to contrast, so a dim
    # but sharp frame is not called blurry. Below this a frame is blurry.
    blur_ratio: float = 0.02
    dup_hash_bits: int = 6  # dHash Hamming distance at or below which two frames look alike
    dup_thumb_diff: float = 6.0  # mean absolute grey difference of 16x12 thumbnails, 0..255
    history: int = 8  # kept frames remembered per linked node set
    max_node_sets: int = 512


@dataclass
class FrameSignature:
    grey: np.ndarray  # small float32 grey image
    dhash: int
    thumb: np.ndarray  # 12x16 float32


def small_grey(rgb: np.ndarray) -> np.ndarray:
    """A ~160 px wide float32 grey image by striding (no interpolation: fast, aliasing is harmless)."""
    rgb = np.asarray(rgb)
    step = max(1, rgb.shape[1] // WORK_WIDTH)
    small = rgb[::step, ::step, :3].astype(np.float32)
    return small[..., 0] * 0.299 + small[..., 1] * 0.587 + small[..., 2] * 0.114


def _block_mean(grey: np.ndarray, rows: int, cols: int) -> np.ndarray:
    h, w = grey.shape
    bh, bw = max(1, h // rows), max(1, w // cols)
    cropped = grey[: bh * rows, : bw * cols]
    if cropped.shape[0] < rows or cropped.shape[1] < cols:  # tiny images: repeat pixels
        cropped = np.kron(grey, np.ones((rows, cols), dtype=np.float32))[: rows * h, : cols * w]
        bh, bw = cropped.shape[0] // rows, cropped.shape[1] // cols
        cropped = cropped[: bh * rows, : bw * cols]
    return cropped.reshape(rows, bh, cols, bw).mean(axis=(1, 3))


def signature(rgb: np.ndarray) -> FrameSignature:
    grey = small_grey(rgb)
    cells = _block_mean(grey, 8, 9)
    bits = (cells[:, 1:] > cells[:, :-1]).flatten()
    dhash = int(np.packbits(bits).view(np.uint8).tobytes().hex(), 16)
    return FrameSignature(grey, dhash, _block_mean(grey, 12, 16))


def laplacian_variance(grey: np.ndarray) -> float:
    g = grey
    if g.shape[0] < 3 or g.shape[1] < 3:
        return 0.0
    lap = g[:-2, 1:-1] + g[2:, 1:-1] + g[1:-1, :-2] + g[1:-1, 2:] - 4.0 * g[1:-1, 1:-1]
    return float(lap.var())


def is_blank(sig: FrameSignature, config: FilterConfig) -> bool:
    return float(sig.grey.std()) < config.blank_std


def sharpness(grey: np.ndarray) -> float:
    contrast = float(grey.var())
    return laplacian_variance(grey) / contrast if contrast > 0 else 0.0


def is_blurry(sig: FrameSignature, config: FilterConfig) -> bool:
    return sharpness(sig.grey) < config.blur_ratio


def looks_alike(a: FrameSignature, b: FrameSignature, config: FilterConfig) -> bool:
    hamming = bin(a.dhash ^ b.dhash).count("1")
    return hamming <= config.dup_hash_bits and float(np.abs(a.thumb - b.thumb).mean()) <= config.dup_thumb_diff


class KeyframeFilter:
    """Decides whether a perception frame is worth keeping; remembers what was kept per node set."""

    def __init__(self, config: FilterConfig = FilterConfig()):
        self.config = config
        self._kept: OrderedDict[frozenset, deque[FrameSignature]] = OrderedDict()

    def check(self, rgb: np.ndarray, node_ids: Iterable[str] = ()) -> tuple[bool, str, FrameSignature]:
        """(keep, reason, signature); reason is '' when kept, else blank | blurry | duplicate."""
        sig = signature(rgb)
        if is_blank(sig, self.config):
            return False, "blank", sig
        if is_blurry(sig, self.config):
            return False, "blurry", sig
        recent = self._kept.get(frozenset(node_ids))
        if recent and any(looks_alike(sig, old, self.config) for old in recent):
            return False, "duplicate", sig
        return True, "", sig

    def remember(self, sig: FrameSignature, node_ids: Iterable[str] = ()) -> None:
        key = frozenset(node_ids)
        recent = self._kept.get(key)
        if recent is None:
            recent = self._kept[key] = deque(maxlen=self.config.history)
            while len(self._kept) > self.config.max_node_sets:
                self._kept.popitem(last=False)
        else:
            self._kept.move_to_end(key)
        recent.append(sig)

    def admit(self, rgb: np.ndarray, node_ids: Iterable[str] = ()) -> tuple[bool, str]:
        """check() and, when kept, remember(): the usual one-call use."""
        node_ids = list(node_ids)
        keep, reason, sig = self.check(rgb, node_ids)
        if keep:
            self.remember(sig, node_ids)
        return keep, reason

