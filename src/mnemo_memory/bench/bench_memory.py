"""Memory benchmark: ingest rate and query latency of the embedded Qdrant engine (qdrant-edge),
against a numpy brute-force baseline and qdrant-client's local mode, at 10k and 100k records;
reopen time; and query latency over DDS through the memory node.

    python src/mnemo_memory/bench/bench_memory.py [--sizes 10000 100000] [--queries 100] [--no-dds]

Records are synthetic but shaped like a patrol's: captions from templates, 384-d random unit
embeddings (precomputed, so the model's speed is not measured), 5 days of stamps, poses in a
20 x 10 m flat, 6 rooms, 2-4 sightings each.
"""
from __future__ import annotations

import argparse
import math
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from mnemo_common.types import MemoryFilter, MemoryRecord, Pose2D, Pose3D, Sighting

ROOMS = ["kitchen", "living_room", "study", "bedroom", "hallway", "bathroom"]
LABELS = ["mug", "book", "plate", "keys", "remote", "laptop", "plant", "bottle", "bowl", "phone", "glasses",
          "towel", "pillow", "lamp", "cup", "spoon", "box", "shoe", "bag", "vase"]
COLORS = ["red", "blue", "green", "white", "black", "yellow"]
MODEL, DIM = "all-MiniLM-L6-v2", 384
TARGETS = {"semantic": 10.0, "time": 5.0, "space": 5.0, "combined": 5.0}


def synthetic(n: int, seed: int = 0) -> list[MemoryRecord]:
    rng = np.random.default_rng(seed)
    emb = rng.normal(size=(n, DIM)).astype(np.float32)
    emb /= np.linalg.norm(emb, axis=1, keepdims=True)
    stamps = np.sort(rng.uniform(0, 5 * 86400, n))
    xs, ys, yaws = rng.uniform(0, 20, n), rng.uniform(0, 10, n), rng.uniform(-math.pi, math.pi, n)
    out = []
    for i in range(n):
        room = ROOMS[int(xs[i] // 3.4) % len(ROOMS)]
        labels = list(rng.choice(LABELS, size=int(rng.integers(2, 5)), replace=False))
        sightings = [Sighting(str(l), (float(xs[i] + 1), float(ys[i]), 0.8), {"color": str(rng.choice(COLORS))})
                     for l in labels]
        caption = f"In the {room}: " + ", ".join(f"a {s.attributes['color']} {s.label}" for s in sightings) + "."
        out.append(MemoryRecord(id="", stamp=float(stamps[i]), robot_pose=Pose2D(float(xs[i]), float(ys[i]), float(yaws[i])),
                                camera_pose=Pose3D((float(xs[i]), float(ys[i]), 1.2)), caption=caption, room=room,
                                labels=[str(l) for l in labels], sightings=sightings, raw_ref=f"frames/{i}.png",
                                embedding=emb[i]))
    return out


def make_queries(n: int, seed: int = 1) -> list[dict]:
    rng = np.random.default_rng(seed)
    q = rng.normal(size=(n, DIM)).astype(np.float32)
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    out = []
    for i in range(n):
        t0 = float(rng.uniform(0, 5 * 86400 - 3600))
        out.append({"vec": q[i], "since": t0, "until": t0 + 3600.0, "x": float(rng.uniform(0, 20)),
                    "y": float(rng.uniform(0, 10)), "room": ROOMS[i % len(ROOMS)]})
    return out


# -- the four query types, on a store and on the numpy baseline ------------------------------
def store_queries(store):
    return {
        "semantic": lambda q: store.search_text(q["vec"], 10),
        "time": lambda q: store.search_time(q["since"], q["until"], None, 10),
        "space": lambda q: store.search_position(q["x"], q["y"], 2.0, 10),
        "combined": lambda q: store.search_text(q["vec"], 10, MemoryFilter(
            since=q["since"] - 6 * 3600, until=q["until"] + 6 * 3600, room=q["room"], near=(q["x"], q["y"]), radius=5.0)),
    }


class Brute:
    """numpy brute force over the same data: the baseline."""

    def __init__(self, records: list[MemoryRecord]):
        self.emb = np.stack([r.embedding for r in records])
        self.stamp = np.array([r.stamp for r in records])
        self.x = np.array([r.robot_pose.x for r in records])
        self.y = np.array([r.robot_pose.y for r in records])
        self.room = np.array([r.room for r in records])

    def _top(self, scores, k=10):
        idx = np.argpartition(-scores, min(k, len(scores) - 1))[:k]
        return idx[np.argsort(-scores[idx])]

    def queries(self):
        def semantic(q):
            return self._top(self.emb @ q["vec"])

        def time_(q):
            idx = np.nonzero((self.stamp >= q["since"]) & (self.stamp <= q["until"]))[0]
            return idx[:10]

        def space(q):
            d = np.hypot(self.x - q["x"], self.y - q["y"])
            idx = np.nonzero(d <= 2.0)[0]
            return idx[np.argsort(d[idx])][:10]

        def combined(q):
            mask = ((self.stamp >= q["since"] - 6 * 3600) & (self.stamp <= q["until"] + 6 * 3600) & (self.room == q["room"])
                    & (np.hypot(self.x - q["x"], self.y - q["y"]) <= 5.0))
            idx = np.nonzero(mask)[0]
            return idx[self._top(self.emb[idx] @ q["vec"])] if len(idx) else idx

        return {"semantic": semantic, "time": time_, "space": space, "combined": combined}


def latencies(fn, queries) -> tuple[float, float]:
    fn(queries[0])  # warm-up
    ts = []
    for q in queries:
        t = time.perf_counter()
        fn(q)
        ts.append((time.perf_counter() - t) * 1000)
    return float(np.percentile(ts, 50)), float(np.percentile(ts, 99))


def ingest(store, records, batch=1000) -> float:
    t = time.perf_counter()
    for i in range(0, len(records), batch):
        store.add(records[i:i + batch])
    store.flush()
    return len(records) / (time.perf_counter() - t)


def fresh(records):
    for r in records:
        r.id = ""
    return records


def bench_size(n: int, n_queries: int, client_queries: int, tmp: Path, rows: list, notes: list) -> Path:
    from mnemo_memory.store import open_store

    records = synthetic(n)
    queries = make_queries(n_queries)
    data_dir = tmp / f"edge{n}"
    # qdrant-edge
    store = open_store(data_dir, MODEL, DIM)
    rate = ingest(store, fresh(records))
    lat = {name: latencies(fn, queries) for name, fn in store_queries(store).items()}
    rows.append((n, "qdrant-edge", rate, lat))
    store.close()
    t = time.perf_counter()
    store = open_store(data_dir, MODEL, DIM)
    count = store.count()
    reopen = time.perf_counter() - t
    store.close()
    notes.append(f"reopen qdrant-edge store with {count} records: {reopen * 1000:.0f} ms (target <= 1000 ms)")
    # numpy baseline
    t = time.perf_counter()
    brute = Brute(records)
    rate_b = n / (time.perf_counter() - t)
    rows.append((n, "numpy brute force", rate_b, {k: latencies(fn, queries) for k, fn in brute.queries().items()}))
    # qdrant-client local mode (in memory): same store code, python filtering
    client = open_store(url=":memory:", model_name=MODEL, dim=DIM, collection=f"bench{n}")
    rate_c = ingest(client, fresh(records))
    lat_c = {name: latencies(fn, queries[:client_queries]) for name, fn in store_queries(client).items()}
    rows.append((n, f"qdrant-client local ({client_queries} q)", rate_c, lat_c))
    client.close()
    return data_dir


def bench_dds(data_dir: Path, n_queries: int, notes: list) -> None:
    """Start the memory node on the pre-filled store and time queries over DDS from this process."""
    import rclpy

    from mnemo_common import names
    from mnemo_common.processes import NodeProcess, ros_env, unique_domain_id
    from mnemo_interfaces.srv import SearchMemoryByPosition, SearchMemoryByText

    domain = unique_domain_id()
    node = NodeProcess("mnemo_memory.node", names.MEMORY_NODE, env=ros_env(domain), log_dir=data_dir / "log",
                       params={"data_dir": str(data_dir)})
    import os

    os.environ["ROS_AUTOMATIC_DISCOVERY_RANGE"] = "LOCALHOST"
    ctx = rclpy.Context()
    rclpy.init(context=ctx, domain_id=domain)
    client_node = rclpy.create_node("bench_memory_client", context=ctx)
    executor = rclpy.executors.SingleThreadedExecutor(context=ctx)
    executor.add_node(client_node)
    try:
        def timed_calls(srv_type, name, make_request):
            cli = client_node.create_client(srv_type, name)
            deadline = time.monotonic() + 120
            while not cli.wait_for_service(timeout_sec=0.5):
                if not node.alive() or time.monotonic() > deadline:
                    raise RuntimeError(f"memory node did not come up:\n{node.log()[-2000:]}")
            ts = []
            for i in range(n_queries + 1):
                t = time.perf_counter()
                fut = cli.call_async(make_request(i))
                while not fut.done():
                    executor.spin_once(timeout_sec=0.01)
                assert fut.result().error_code == 0, fut.result().error_msg
                ts.append((time.perf_counter() - t) * 1000)
            return float(np.percentile(ts[1:], 50)), float(np.percentile(ts[1:], 99))

        rng = np.random.default_rng(3)
        p50, p99 = timed_calls(SearchMemoryByPosition, names.MEMORY_SEARCH_POSITION, lambda i: SearchMemoryByPosition.Request(
            x=float(rng.uniform(0, 20)), y=float(rng.uniform(0, 10)), radius=2.0, k=10))
        notes.append(f"DDS search_position (r=2 m, k=10): p50 {p50:.2f} ms, p99 {p99:.2f} ms (target p50 <= 5 ms)")
        texts = [f"a {c} {l}" for c in COLORS[:4] for l in LABELS[:5]]
        p50, p99 = timed_calls(SearchMemoryByText, names.MEMORY_SEARCH_TEXT, lambda i: SearchMemoryByText.Request(
            text=texts[i % len(texts)], k=10))
        notes.append(f"DDS search_text (k=10, {len(texts)} distinct texts, MiniLM embeddings cached after first use): "
                     f"p50 {p50:.2f} ms, p99 {p99:.2f} ms")
    finally:
        client_node.destroy_node()
        rclpy.try_shutdown(context=ctx)
        node.stop()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--client-queries", type=int, default=20, help="queries per type for qdrant-client local mode")
    parser.add_argument("--dds-size", type=int, default=10_000)
    parser.add_argument("--no-dds", action="store_true")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    rows, notes = [], []
    tmp = Path(tempfile.mkdtemp(prefix="bench_memory_"))
    try:
        dirs = {}
        for n in args.sizes:
            # local mode filters in Python (seconds per query at 100k): fewer queries keep the run short
            client_queries = args.client_queries if n < 50_000 else max(3, args.client_queries // 4)
            dirs[n] = bench_size(n, args.queries, client_queries, tmp, rows, notes)
            print(f"... {n} records done ({time.perf_counter() - start:.0f} s)", file=sys.stderr)
        if not args.no_dds and args.dds_size in dirs:
            bench_dds(dirs[args.dds_size], args.queries, notes)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    header = f"{'records':>8}  {'backend':<28} {'ingest rec/s':>12}  " + "  ".join(
        f"{k + ' p50/p99 ms':>22}" for k in TARGETS)
    print(header)
    print("-" * len(header))
    for n, name, rate, lat in rows:
        print(f"{n:>8}  {name:<28} {rate:>12,.0f}  " + "  ".join(f"{lat[k][0]:>10.2f} / {lat[k][1]:>9.2f}" for k in TARGETS))
    print()
    for n in args.sizes:
        edge = next(r for r in rows if r[0] == n and r[1] == "qdrant-edge")
        base = next(r for r in rows if r[0] == n and r[1] == "numpy brute force")
        ratios = ", ".join(f"{k} {base[3][k][0] / edge[3][k][0]:.2f}x" for k in TARGETS)
        met = ", ".join(f"{k} {'met' if edge[3][k][0] <= TARGETS[k] else 'MISSED'}" for k in TARGETS)
        print(f"{n}: numpy-p50 / edge-p50 = {ratios}; targets: {met}; "
              f"ingest {'met' if edge[2] >= 5000 else 'MISSED'} ({edge[2]:,.0f} rec/s vs 5,000)")
    for note in notes:
        print(note)
    print(f"total benchmark time {time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
