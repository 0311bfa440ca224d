import numpy as np
from PIL import Image

from mnemo_interaction.collage import build_collage, load_frames


def test_collage_keeps_endpoints_at_full_resolution(tmp_path):
    refs = []
    for i, color in enumerate([(255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 0)]):
        p = tmp_path / f"f{i}.png"
        Image.fromarray(np.full((120, 160, 3), color, np.uint8)).save(p)
        refs.append(str(p))
    frames = load_frames(refs + [str(tmp_path / "missing.png"), "/etc/passwd"])
    assert frames[-1] is None and frames[-2] is None
    collage = build_collage(frames[:4])
    assert collage.width == 320 and collage.height > 120 + 18
    px = np.asarray(collage)
    assert tuple(px[18 + 60, 80]) == (255, 0, 0)  # BEFORE at full size, left
    assert tuple(px[18 + 60, 240]) == (255, 255, 0)  # AFTER at full size, right
    strip_row = px[-10]
    assert tuple(strip_row[40]) == (0, 255, 0) and tuple(strip_row[200]) == (0, 0, 255)
    assert build_collage([None, None]) is None
