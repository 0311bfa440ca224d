"""Keyframe benchmarks: filter throughput, candidate-pool latency at 10,000 keyframes, and the share of
frames kept over a one-day patrol with every observed object in at least one keyframe.

1. Dedup throughput: 640x480 frames through the blank/blurry/near-duplicate filters, against an
   exact-hash dedup baseline and a full-resolution dHash (PIL resize of the whole frame) in the same run.
2. Candidate pool: a store of 10,000 keyframes (synthetic metadata, tiny images, no fsync); pool
   latency for varied tasks with the offline MiniLM embedder, against a full scan that reads every
   row and matches in Python.
3. Patrol: day 0 of ``large_home`` (mnemo_sim world + patrol + MuJoCo renderer), frames into the ring,
   the real scene-graph core's events into the recorder. Reports the share kept and object coverage,
   against keep-everything, keep-on-every-event without filters, and uniform sampling at our count.

    python src/mnemo_keyframes/bench/bench_keyframes.py [--quick]
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from PIL import Image

from mnemo_common.types import KeyframeMeta, Pose2D
from mnemo_keyframes.filters import KeyframeFilter
from mnemo_keyframes.policy import KeyframeRecorder
from mnemo_keyframes.retrieve import KeyframeRetriever
from mnemo_keyframes.ring import FrameRing
from mnemo_keyframes.store import INTERACTION_TRIGGERS, KeyframeStore
from mnemo_keyframes.testing import textured


def pct95(values: list[float]) -> float:
    return sorted(values)[max(0, int(0.95 * len(values)) - 1)]


def timed(fn, *args) -> float:
    t = time.perf_counter()
    fn(*args)
    return time.perf_counter() - t


# -- 1. throughput ---------------------------------------------------------------------------
def bench_throughput(n: int) -> None:
    rng = np.random.default_rng(0)
    bases = [textured(i) for i in range(20)]
    frames = []
    for i in range(n):
        f = bases[int(rng.integers(len(bases)))].copy()
        f[rng.integers(0, 470):, :, :] ^= np.uint8(rng.integers(0, 2))  # tiny sensor-like changes
        frames.append(f)
    node_sets = [[f"node_{i % 7}"] for i in range(n)]

    filt = KeyframeFilter()
    t = time.perf_counter()
    kept = sum(filt.admit(f, s)[0] for f, s in zip(frames, node_sets))
    ours = n / (time.perf_counter() - t)

    seen: set[int] = set()
    t = time.perf_counter()
    exact_kept = 0
    for f in frames:
        h = hash(f.tobytes())
        exact_kept += h not in seen
        seen.add(h)
    exact = n / (time.perf_counter() - t)

    t = time.perf_counter()
    for f in frames[: n // 4]:
        g = np.asarray(Image.fromarray(f).convert("L").resize((9, 8), Image.BILINEAR), dtype=np.int16)
        int(np.packbits(g[:, 1:] > g[:, :-1]).tobytes().hex(), 16)
    full_dhash = (n // 4) / (time.perf_counter() - t)

    print("\n1. Filter throughput, 640x480 frames (20 distinct views + small changes)")
    print(f"{'method':<44}{'frames/s':>10}{'kept':>8}")
    print(f"{'blank+blurry+near-duplicate (ours)':<44}{ours:>10.0f}{kept:>8d}")
    print(f"{'baseline: exact-hash dedup':<44}{exact:>10.0f}{exact_kept:>8d}")
    print(f"{'baseline: dHash of the full-resolution frame':<44}{full_dhash:>10.0f}{'-':>8}")
    print(f"ours: {ours:.0f} frames/s (target >= 200); {ours / full_dhash:.1f}x the full-resolution dHash")


# -- 2. candidate pool ---------------------------------------------------------------------
WORDS = ["mug", "bowl", "book", "plate", "cabinet", "drawer", "fridge", "banana", "ketchup", "mustard", "scissors",
         "remote", "laptop", "keys", "wallet", "glasses", "plant", "lamp", "pillow", "towel", "bottle", "can",
         "apple", "orange", "spoon", "fork", "knife", "cup", "pan", "pot"]
TASKS = ["where is the {} I left yesterday", "bring me the {}", "is there a {} in the kitchen",
         "find the {} near the sofa", "look for the red {}"]


def bench_pool(count: int, embedder) -> None:
    rng = np.random.default_rng(1)
    tiny = np.asarray(textured(3, 24, 32))
    with tempfile.TemporaryDirectory() as d:
        store = KeyframeStore(d, (16, 12), durable=False)
        t = time.perf_counter()
        for i in range(count):
            label = WORDS[int(rng.integers(len(WORDS)))]
            trigger = INTERACTION_TRIGGERS[i % 4] if i % 10 == 0 else ("new_node" if i % 3 else "updated_node")
            nodes = [f"{label}_{int(rng.integers(40))}", f"fixture_{int(rng.integers(60))}"]
            store.add(KeyframeMeta(f"kf-{i:06d}", float(i), trigger, node_ids=nodes, labels=[label],
                                   tags=[f"{label} interior"] if i % 10 == 0 else [], caption=f"a {label}",
                                   robot_pose=Pose2D(0.0, 0.0)), tiny)
        build = time.perf_counter() - t
        retriever = KeyframeRetriever(store, embedder)
        retriever.candidates("warm up the label cache", [])
        tasks = [TASKS[i % len(TASKS)].format(WORDS[(i * 7) % len(WORDS)]) for i in range(60)]
        node_sets = [[f"{WORDS[i % len(WORDS)]}_{i % 40}", f"fixture_{i % 60}"] for i in range(60)]
        ours = [timed(retriever.candidates, t_, n) * 1000 for t_, n in zip(tasks, node_sets)]
        # The same pools with a free embedder: what the index and SQL cost without the model.
        from mnemo_keyframes.testing import WordEmbedder

        sql_only = KeyframeRetriever(store, WordEmbedder())
        sql_only.candidates("warm up the label cache", [])
        sql = [timed(sql_only.candidates, t_, n) * 1000 for t_, n in zip(tasks, node_sets)]
        model = [timed(embedder.embed, [t_ + " again"]) * 1000 for t_ in tasks]
        sizes = [len(retriever.candidates(t_, n)) for t_, n in zip(tasks[:5], node_sets[:5])]

        def full_scan(task: str, nodes: list[str]) -> list:
            words = set(task.lower().split())
            rows = store.query()
            return [m for m in rows if set(m.node_ids) & set(nodes) or set(m.labels) & words][:48]

        scan = [timed(full_scan, t_, n) * 1000 for t_, n in zip(tasks[:10], node_sets[:10])]
        store.close()
    p95 = pct95(ours)
    print(f"\n2. Candidate pool at {count:,} keyframes (store built in {build:.0f} s; pool sizes {sizes})")
    print(f"{'method':<44}{'p50 ms':>10}{'p95 ms':>10}")
    print(f"{'indexed pool + embedding label match (ours)':<44}{statistics.median(ours):>10.1f}{p95:>10.1f}")
    print(f"{'  of which index + SQL (free embedder)':<44}{statistics.median(sql):>10.1f}{pct95(sql):>10.1f}")
    print(f"{'  of which one new task embedding':<44}{statistics.median(model):>10.1f}{pct95(model):>10.1f}")
    print(f"{'baseline: full scan, word match':<44}{statistics.median(scan):>10.1f}{max(scan):>10.1f}")
    print(f"ours: p95 {p95:.1f} ms (target <= 50 ms); embedder {getattr(embedder, 'name', type(embedder).__name__)}")


# -- 3. patrol -------------------------------------------------------------------------------
def bench_patrol(scenario_name: str, limit: int) -> None:
    from mnemo_scene_graph.graph import SceneGraph
    from mnemo_sim import scenarios_dir
    from mnemo_sim.patrol import patrol_segment
    from mnemo_sim.render import Renderer
    from mnemo_sim.scenario import load_scenario
    from mnemo_sim.world import World

    scenario = load_scenario(scenarios_dir() / f"{scenario_name}.yaml")
    world = World(scenario)
    segment = scenario.patrol[0]
    renderer = Renderer(scenario)
    graph = SceneGraph()
    events: list = []
    graph.add_listener(events.append)
    observed_objects: set[str] = set()
    all_events_with_frames = 0
    frames_seen = 0
    sample_frames: list[tuple[float, set[str]]] = []  # stamp, instance ids in view (for uniform sampling)
    with tempfile.TemporaryDirectory() as d:
        store = KeyframeStore(d, durable=False)
        recorder = KeyframeRecorder(store, FrameRing(30), KeyframeFilter())
        version = -1
        t0 = time.perf_counter()
        for obs in patrol_segment(world, segment):
            if frames_seen >= limit:
                break
            if world.version != version:
                renderer.sync(world)
                version = world.version
            rgb = renderer.render(obs.camera_pose, obs.stamp, segmentation=False).rgb
            frames_seen += 1
            recorder.ring.set_pose(obs.robot_pose)
            recorder.ring.push(obs.stamp, rgb)
            recorder.on_observation(obs)
            in_view = {s.object_id for s in obs.sightings if s.kind == "object" and s.object_id}
            observed_objects |= in_view
            sample_frames.append((obs.stamp, in_view))
            events.clear()
            graph.integrate_observation(obs)
            if any(e.kind in ("created", "location", "property") for e in events):
                all_events_with_frames += 1
            for e in events:
                recorder.on_graph_event(e.kind, e.node_id, obs.stamp)
        elapsed = time.perf_counter() - t0

        def instance_of(node_id: str) -> str:
            try:
                return graph.get(graph.resolve(node_id)).prop("instance_id")
            except Exception:  # noqa: BLE001 - a node merged away
                return ""

        keyframes = store.query()
        covered = {instance_of(n) for m in keyframes for n in m.node_ids} - {""}
        kept = len(keyframes)
        store.close()
    # Uniform sampling at our keyframe count: which objects would it have caught?
    step = max(1, frames_seen // max(1, kept))
    uniform_cover = set().union(*[v for _, v in sample_frames[::step]]) if sample_frames else set()
    missing = observed_objects - covered

    def row(name: str, kept_n: int, cover: set) -> None:
        print(f"{name:<44}{kept_n:>7d}{kept_n / frames_seen:>9.1%}"
              f"{len(cover & observed_objects):>6d}/{len(observed_objects):<4d}")

    print(f"\n3. One-day patrol: {scenario_name} day {segment.day}, {frames_seen} rendered frames "
          f"({elapsed:.0f} s), {len(observed_objects)} objects observed")
    print(f"{'method':<44}{'kept':>7}{'share':>9}{'objects covered':>16}")
    row("graph events + filters (ours)", kept, covered)
    row("baseline: keep every frame", frames_seen, observed_objects)
    row("baseline: every frame with an event, unfiltered", all_events_with_frames, observed_objects)
    row("baseline: uniform sampling at our count", len(sample_frames[::step]), uniform_cover)
    print(f"rejected by the filters: {recorder.rejected}")
    print(f"ours: {kept / frames_seen:.1%} of frames kept (target <= 15%); objects without a keyframe: "
          f"{sorted(missing) or 'none'}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="smaller sizes, word embedder (a smoke run)")
    p.add_argument("--scenario", default="large_home")
    p.add_argument("--only", choices=("throughput", "pool", "patrol"), help="run one part")
    args = p.parse_args(argv)
    if args.only in (None, "throughput"):
        bench_throughput(200 if args.quick else 1000)
    if args.only not in (None, "pool"):
        if args.only == "patrol":
            bench_patrol(args.scenario, 100 if args.quick else 100_000)
        return 0
    if args.quick:
        from mnemo_keyframes.testing import WordEmbedder

        embedder = WordEmbedder()
    else:
        from mnemo_common.embedding import get_embedder

        embedder = get_embedder()
    bench_pool(1000 if args.quick else 10_000, embedder)
    if args.only is None:
        bench_patrol(args.scenario, 100 if args.quick else 100_000)
    return 0


if __name__ == "__main__":
    sys.exit(main())
