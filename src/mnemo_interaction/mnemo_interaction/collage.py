"""The analyzer's picture of one action: BEFORE and AFTER side by side at full resolution, and below
them a strip of the manipulation window (the during frames, left to right in time)."""
from __future__ import annotations

from pathlib import Path
from typing import Optional, Sequence

from PIL import Image, ImageDraw

LABEL_BAR = 18
BACKGROUND = (24, 24, 24)


def load_frames(refs: Sequence[str]) -> list[Optional[Image.Image]]:
    """Each readable PNG/JPEG reference as an RGB image, None where a reference is not one."""
    frames: list[Optional[Image.Image]] = []
    for ref in refs:
        path = Path(ref)
        if path.suffix.lower() not in (".png", ".jpg", ".jpeg") or not path.is_file():
            frames.append(None)
            continue
        try:
            with Image.open(path) as im:
                frames.append(im.convert("RGB"))
        except (OSError, ValueError):
            frames.append(None)
    return frames


def _labelled(image: Image.Image, label: str) -> Image.Image:
    out = Image.new("RGB", (image.width, image.height + LABEL_BAR), BACKGROUND)
    out.paste(image, (0, LABEL_BAR))
    ImageDraw.Draw(out).text((4, 3), label, fill=(255, 255, 255))
    return out


def build_collage(frames: Sequence[Optional[Image.Image]]) -> Optional[Image.Image]:
    """frames = before, during..., after (None entries skipped). None when no frame is usable."""
    indexed = [(i, f) for i, f in enumerate(frames) if f is not None]
    if not indexed:
        return None
    last = len(frames) - 1
    before = next((f for i, f in indexed if i == 0), None)
    after = next((f for i, f in indexed if i == last and last > 0), None)
    ends = [(_labelled(f, name)) for f, name in ((before, "BEFORE"), (after, "AFTER")) if f is not None]
    during = [(i, f) for i, f in indexed if 0 < i < last]
    width = sum(e.width for e in ends) if ends else 640
    height_top = max((e.height for e in ends), default=0)
    strip: Optional[Image.Image] = None
    if during:
        cell_w = max(1, width // len(during))
        cells = []
        for i, f in during:
            scale = cell_w / f.width
            cells.append(_labelled(f.resize((cell_w, max(1, int(f.height * scale)))), f"t{i}"))
        strip = Image.new("RGB", (width, max(c.height for c in cells)), BACKGROUND)
        for k, c in enumerate(cells):
            strip.paste(c, (k * cell_w, 0))
    canvas = Image.new("RGB", (width, height_top + (strip.height if strip else 0)), BACKGROUND)
    x = 0
    for e in ends:
        canvas.paste(e, (x, 0))
        x += e.width
    if strip is not None:
        canvas.paste(strip, (0, height_top))
    return canvas
