"""Per-frame cost of integrating detections into a large scene graph (the pure core, no ROS).

    python src/mnemo_scene_graph/bench/bench_frame_cost.py [--nodes 1000 2000 4000] [--frames 100]

A synthetic home of N objects at fixed places (uniform over 20 x 10 m at table height, four rooms
of 10 x 5 m, labels and colours drawn from small vocabularies, as scripts/bench_load.py --objects
places them; with --fixtures, tables from the map as well, on which the objects over them stand) is
put into a SceneGraph without visibility. Then the same seeded frames are timed:
a camera at a random place and heading, 1.2 m up, tilted down; its detections are the three objects
in its frustum nearest to it, with 2 cm of noise. Each frame is integrated twice over, on two
graphs built alike:

- `pose`: integrate_detections(camera_pose=..., room=...): misses judged by the default frustum
  and the same-room rule (what the node does with DetectionArray frames);
- `view`: integrate_detections(view=CameraView(...)): misses judged by a depth image, here a flat
  surface 5 m ahead (what honest in-process perception does); skipped where coverage.py is absent.

Only the graph call is timed. The digest is a hash of every event the timed frames emitted, so two
versions of the code that behave alike print the same digest. To time another version, put its
package first on the path: PYTHONPATH=/tmp/old/src/mnemo_scene_graph python .../bench_frame_cost.py
"""
from __future__ import annotations

import argparse
import hashlib
import math
import statistics
import sys
import time
from collections import Counter

import numpy as np

from mnemo_common.types import Detection, Pose3D
import mnemo_scene_graph.graph as graph_module
from mnemo_scene_graph.geometry import frustum_visible_fn
from mnemo_scene_graph.graph import SceneGraph

LABELS = ("mug", "book", "bowl", "plate", "remote control", "bottle", "cup", "vase", "box", "lamp", "glass",
          "towel", "phone", "pen", "keys", "wallet", "candle", "spoon", "fork", "knife", "apple", "banana",
          "pillow", "shoe", "hat", "toy car", "scissors", "tape measure", "notebook", "jar")
COLORS = ("red", "green", "blue", "white", "black", "yellow", "purple", "orange")
SIZE = 0.1  # m: every object's extent
WIDTH, HEIGHT, FX = 640, 480, 525.0  # pinhole of the view's full image


def room_of(x: float, y: float) -> str:
    return f"room_{int(x >= 10.0)}{int(y >= 5.0)}"


def camera_pose(x: float, y: float, yaw: float, pitch: float = 0.3) -> Pose3D:
    """Optical frame (z forward, x right, y down) at (x, y, 1.2) looking along yaw, tilted down."""
    forward = np.array([math.cos(yaw) * math.cos(pitch), math.sin(yaw) * math.cos(pitch), -math.sin(pitch)])
    right = np.array([math.sin(yaw), -math.cos(yaw), 0.0])
    down = np.cross(forward, right)
    rot = np.column_stack([right, down, forward])
    w = math.sqrt(max(0.0, 1.0 + rot[0, 0] + rot[1, 1] + rot[2, 2])) / 2.0
    q = ((rot[2, 1] - rot[1, 2]) / (4 * w), (rot[0, 2] - rot[2, 0]) / (4 * w), (rot[1, 0] - rot[0, 1]) / (4 * w), w)
    return Pose3D((x, y, 1.2), tuple(float(v) for v in q))


def detection(label: str, color: str, at: np.ndarray) -> Detection:
    half = SIZE / 2
    return Detection(label, 0.9, centroid=tuple(float(v) for v in at), box_min=tuple(float(v - half) for v in at),
                     box_max=tuple(float(v + half) for v in at), attributes={"color": color})


def home(n: int, seed: int) -> list[tuple[str, str, np.ndarray]]:
    rng = np.random.default_rng(seed)
    return [(LABELS[int(rng.integers(len(LABELS)))], COLORS[int(rng.integers(len(COLORS)))],
             np.array([rng.uniform(0, 20), rng.uniform(0, 10), 0.8])) for _ in range(n)]


def frames(things, count: int, seed: int) -> list[tuple[float, Pose3D, str, list[Detection]]]:
    """(stamp, camera pose, room, detections) of `count` frames."""
    rng = np.random.default_rng(seed)
    where = np.array([at for _, _, at in things])
    out = []
    for i in range(count):
        x, y, yaw = rng.uniform(0, 20), rng.uniform(0, 10), rng.uniform(-math.pi, math.pi)
        pose = camera_pose(x, y, yaw)
        visible = frustum_visible_fn(pose)
        order = np.argsort(np.linalg.norm(where[:, :2] - (x, y), axis=1))
        in_view = [k for k in order[:400] if visible(tuple(where[k]))][:3]
        dets = [detection(things[k][0], things[k][1], things[k][2] + rng.normal(0.0, 0.02, 3)) for k in in_view]
        out.append((1000.0 + i, pose, room_of(x, y), dets))
    return out


def build(things, fixtures: int = 0) -> SceneGraph:
    graph = SceneGraph()
    columns = max(1, math.ceil(math.sqrt(2 * fixtures)))
    for k in range(fixtures):  # tables of 1 x 0.6 m, 0.75 m high, on a grid over the home
        x, y = (k % columns + 0.5) * 20.0 / columns, (k // columns + 0.5) * 10.0 / math.ceil(fixtures / columns)
        graph.add_fixture(f"table_{k}", "table", (x, y, 0.375), (x - 0.5, y - 0.3, 0.0), (x + 0.5, y + 0.3, 0.75),
                          room=room_of(x, y))
    for start in range(0, len(things), 50):
        batch = things[start:start + 50]
        for room in sorted({room_of(at[0], at[1]) for _, _, at in batch}):
            dets = [detection(label, color, at) for label, color, at in batch if room_of(at[0], at[1]) == room]
            graph.integrate_detections(dets, float(start) / 50, room=room)
    return graph


def digest_of(events) -> str:
    h = hashlib.sha256()
    for e in events:
        h.update(repr((e.seq, e.node_id, e.kind, e.field, repr(e.old), repr(e.new))).encode())
    return h.hexdigest()[:12]


def timed(things, frame_list, mode: str, fixtures: int = 0) -> dict:
    graph = build(things, fixtures)
    nodes = len(graph.nodes(kind="object"))
    events = []
    graph.add_listener(events.append)
    view_cls = None
    if mode == "view":
        from mnemo_scene_graph.coverage import CameraView

        view_cls = CameraView
    ms = []
    for stamp, pose, room, dets in frame_list:
        if view_cls is not None:
            view = view_cls.from_depth(pose, FX, FX, WIDTH / 2, HEIGHT / 2, np.full((HEIGHT, WIDTH), 5.0, np.float32))
            kwargs = {"view": view}
        else:
            kwargs = {"camera_pose": pose, "room": room}
        t0 = time.perf_counter()
        graph.integrate_detections(dets, stamp, **kwargs)
        ms.append(1000.0 * (time.perf_counter() - t0))
    kinds = Counter(e.kind for e in events)
    return {"nodes": nodes, "mean": statistics.fmean(ms), "p50": statistics.median(ms), "max": max(ms),
            "kinds": kinds, "digest": digest_of(events)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nodes", type=int, nargs="+", default=[1000, 2000, 4000], help="objects in the home")
    parser.add_argument("--frames", type=int, default=100, help="timed frames per size and mode")
    parser.add_argument("--modes", nargs="+", default=["pose", "view"], choices=["pose", "view"])
    parser.add_argument("--fixtures", type=int, default=0, help="tables the objects may stand on (map fixtures)")
    parser.add_argument("--seed", type=int, default=3)
    args = parser.parse_args(argv)
    print(f"mnemo_scene_graph from {graph_module.__file__}")
    print(f"{'mode':<5} {'objects':>7} {'nodes':>6} {'frames':>6} {'mean_ms':>8} {'p50_ms':>7} {'max_ms':>7} "
          f"{'missed':>6} {'state':>5} {'digest':>12}")
    for n in args.nodes:
        things = home(n, args.seed)
        frame_list = frames(things, args.frames, args.seed + 1)
        for mode in args.modes:
            if mode == "view":
                try:
                    import mnemo_scene_graph.coverage  # noqa: F401
                except ImportError:
                    print(f"{mode:<5} {n:>7} (no coverage.py in this version)")
                    continue
            r = timed(things, frame_list, mode, args.fixtures)
            print(f"{mode:<5} {n:>7} {r['nodes']:>6} {len(frame_list):>6} {r['mean']:>8.2f} {r['p50']:>7.2f} "
                  f"{r['max']:>7.2f} {r['kinds']['missed']:>6} {r['kinds']['state']:>5} {r['digest']:>12}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
