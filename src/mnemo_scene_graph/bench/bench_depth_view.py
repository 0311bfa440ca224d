"""Per-frame cost of the scene-graph node's depth view: what a DetectionArray with depth adds
before its integration (the node's ingest thread), and what each depth message costs the executor.

    python src/mnemo_scene_graph/bench/bench_depth_view.py [--frames 200] [--buffer 30]

For each image size and encoding: a buffer of `--buffer` depth messages (a floor, with holes),
then per frame the depth frame of a stamp is found in the buffer and turned into a CameraView
(``conversions.camera_view_from_msgs``: decode, coarse 8 x 8 minimum), as
``SceneGraphNode._depth_view`` does. `add` times the depth callback (one buffer insert). How the
view then judges the graph's nodes is bench_frame_cost.py's `view` mode. To time another version,
put its package first on the path, as for bench_frame_cost.py.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from types import SimpleNamespace

import numpy as np

from mnemo_common.ros import camera_info_to_msg, image_to_msg, time_from_msg
from mnemo_common.streams import StampedBuffer
from mnemo_common.types import Pose3D
from mnemo_scene_graph.conversions import camera_view_from_msgs

SIZES = ((640, 480), (1280, 720))
ENCODINGS = ("32FC1", "16UC1")
POSE = Pose3D((0.0, 0.0, 1.2), (-0.5, 0.5, -0.5, 0.5))


def depth_image(width: int, height: int, seed: int) -> np.ndarray:
    """Metres: a floor that nears the camera from 4 m at the top row to 0.8 m at the bottom, 1 cm of
    noise, 5 % holes (no reading)."""
    rng = np.random.default_rng(seed)
    metres = np.repeat(np.linspace(4.0, 0.8, height, dtype=np.float32)[:, None], width, axis=1)
    metres += rng.normal(0.0, 0.01, metres.shape).astype(np.float32)
    metres[rng.random(metres.shape) < 0.05] = np.nan
    return metres


def as_msg(metres: np.ndarray, encoding: str, stamp: float):
    if encoding == "16UC1":
        return image_to_msg(np.nan_to_num(metres * 1000.0, nan=0.0).astype(np.uint16), encoding, stamp)
    return image_to_msg(metres, encoding, stamp)


def timed(width: int, height: int, encoding: str, frames: int, buffer_frames: int) -> dict:
    info = camera_info_to_msg(SimpleNamespace(width=width, height=height, fx=0.8 * width, fy=0.8 * width,
                                              cx=width / 2, cy=height / 2))
    images = [depth_image(width, height, seed) for seed in range(4)]
    buffer: StampedBuffer = StampedBuffer(buffer_frames)
    add_ms, view_ms = [], []
    for i in range(frames + buffer_frames):
        msg = as_msg(images[i % len(images)], encoding, 100.0 + i / 30.0)
        t0 = time.perf_counter()
        buffer.add(time_from_msg(msg.header.stamp), msg)
        add_ms.append(1000.0 * (time.perf_counter() - t0))
        if i < buffer_frames:
            continue
        stamp = 100.0 + (i - buffer_frames // 2) / 30.0  # a frame perception answered half a buffer late
        t0 = time.perf_counter()
        found = buffer.nearest(stamp, 0.01)
        view = camera_view_from_msgs(POSE, found[1], info)
        view_ms.append(1000.0 * (time.perf_counter() - t0))
        assert view.depth.shape == (-(-height // view.cell), -(-width // view.cell))
    return {"view_mean": statistics.fmean(view_ms), "view_p50": statistics.median(view_ms),
            "view_max": max(view_ms), "add_mean": statistics.fmean(add_ms)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--frames", type=int, default=200, help="timed frames per size and encoding")
    parser.add_argument("--buffer", type=int, default=30, help="depth frames kept (the node's depth_buffer_frames)")
    args = parser.parse_args(argv)
    print(f"{'size':>9} {'encoding':>8} {'frames':>6} {'view_mean_ms':>12} {'view_p50_ms':>11} {'view_max_ms':>11} "
          f"{'add_mean_ms':>11}")
    for width, height in SIZES:
        for encoding in ENCODINGS:
            r = timed(width, height, encoding, args.frames, args.buffer)
            print(f"{width:>4}x{height:<4} {encoding:>8} {args.frames:>6} {r['view_mean']:>12.2f} "
                  f"{r['view_p50']:>11.2f} {r['view_max']:>11.2f} {r['add_mean']:>11.4f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
