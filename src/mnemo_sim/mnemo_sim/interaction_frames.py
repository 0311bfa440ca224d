"""The PNGs an interaction event refers to: the view before the action, two views during it (the
render state moving linearly from before to after) and the view after. Plain Python over a render
callback; the node hands in its renderer."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import numpy as np


def blend(before: Any, after: Any, frac: float) -> tuple[dict, dict, dict]:
    """Render state part-way from ``before`` to ``after``: objects and doors moving linearly."""
    pos0, open0, sup0 = before
    pos1, open1, sup1 = after
    positions = {}
    for oid, p1 in pos1.items():
        p0 = pos0.get(oid)
        positions[oid] = p1 if p0 is None or p1 is None else tuple(np.add(np.multiply(p0, 1 - frac), np.multiply(p1, frac)))
    doors = {fid: (1 - frac) * float(open0.get(fid, False)) + frac * float(is_open) for fid, is_open in open1.items()}
    return positions, doors, {**sup0, **sup1}


def save_interaction_frames(folder: Path, before_frame: Any, before: Any, after: Any, render: Callable[[Any], Any],
                            moving: bool = True) -> list[str]:
    """Write before / during_1 / during_2 / after PNGs (no during views when nothing ``moving``, as a
    drive) into ``folder``; ``render(state)`` renders a render state from the robot's pose now.
    Returns the absolute paths in that order."""
    from PIL import Image as PilImage

    folder.mkdir(parents=True, exist_ok=True)
    frames = [("before", before_frame)]
    if moving:
        frames += [(f"during_{i}", render(blend(before, after, frac))) for i, frac in enumerate((1 / 3, 2 / 3), start=1)]
    frames.append(("after", render(after)))
    refs = []
    for name, frame in frames:
        path = folder / f"{name}.png"
        PilImage.fromarray(frame.rgb).save(path, compress_level=1)
        refs.append(str(path.resolve()))
    return refs
