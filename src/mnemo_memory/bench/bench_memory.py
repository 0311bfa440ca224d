"""Memory benchmark: ingest rate and query latency of the embedded Qdrant engine (qdrant-edge),
against a numpy brute-force baseline and qdrant-client's local mode, at 10k and 100k records;
recall@10 of the approximate (HNSW + int8) search against exact search; index build and reopen
time; and query latency over DDS through the memory node. Prints the load average: this machine
is shared, and every latency scales with it.

    python src/mnemo_memory/bench/bench_memory.py [--sizes 10000 100000] [--queries 100] [--no-dds]

Records are synthetic but shaped like a patrol's: captions from templates, 5 days of stamps, poses
in a 20 x 10 m flat, 6 rooms, 2-4 sightings each. Embeddings are precomputed (the model's speed is
not measured) and structured like caption embeddings: the normalised sum of fixed random word
vectors for the caption's room, colours and labels, plus noise, so records sharing words are
near each other and a query such as "red mug" has thousands of close, near-tied neighbours (a
harder case for an approximate index than well separated clusters, easier than pure noise).
Records are written in batches of 2,000 through the store, which builds its HNSW index one
segment at a time as it fills (as MemoryService does); ingest is reported with and without that
indexing time.
"""
from __future__ import annotations

import argparse
import math
import os
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from mnemo_common.types import MemoryFilter, MemoryRecord, Pose2D, Pose3D, Sighting

ROOMS = ["kitchen", "living_room", "study", "bedroom", "hallway", "bathroom"]
LABELS = ["mug", "book", "plate", "keys", "remote", "laptop", "plant", "bottle", "bowl", "phone", "glasses",
          "towel", "pillow", "lamp", "cup", "spoon", "box", "shoe", "bag", "vase"]
COLORS = ["red", "blue", "green", "white", "black", "yellow"]
MODEL, DIM = "all-MiniLM-L6-v2", 384
TARGETS = {"semantic": 10.0, "time": 5.0, "space": 5.0, "combined": 5.0}
BATCH = 2000
NOISE = 0.5  # norm of the per-record noise, relative to one word vector


def _words() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(7)
    vocab = ROOMS + LABELS + COLORS
    w = rng.normal(size=(len(vocab), DIM)).astype(np.float32)
    w /= np.linalg.norm(w, axis=1, keepdims=True)
    return dict(zip(vocab, w))


def _unit(v: np.ndarray) -> np.ndarray:
    return (v / np.linalg.norm(v, axis=-1, keepdims=True)).astype(np.float32)


@dataclass(frozen=True)
class Synthetic:
    """n synthetic records as arrays (cheap to hold at 1M); ``records(lo, hi)`` builds a slice."""

    stamps: np.ndarray
    xs: np.ndarray
    ys: np.ndarray
    yaws: np.ndarray
    n_labels: np.ndarray
    label_idx: np.ndarray
    color_idx: np.ndarray
    room_idx: np.ndarray
    emb: np.ndarray

    @property
    def rooms(self) -> np.ndarray:
        return np.array(ROOMS)[self.room_idx]

    def records(self, lo: int = 0, hi: int | None = None) -> list[MemoryRecord]:
        out = []
        for i in range(lo, len(self.stamps) if hi is None else hi):
            room = ROOMS[self.room_idx[i]]
            x, y = float(self.xs[i]), float(self.ys[i])
            sightings = [Sighting(LABELS[self.label_idx[i, j]], (x + 1.0, y, 0.8),
                                  {"color": COLORS[self.color_idx[i, j]]}) for j in range(self.n_labels[i])]
            caption = f"In the {room}: " + ", ".join(f"a {s.attributes['color']} {s.label}" for s in sightings) + "."
            out.append(MemoryRecord(id="", stamp=float(self.stamps[i]), robot_pose=Pose2D(x, y, float(self.yaws[i])),
                                    camera_pose=Pose3D((x, y, 1.2)), caption=caption, room=room,
                                    labels=[s.label for s in sightings], sightings=sightings,
                                    raw_ref=f"frames/{i}.png", embedding=self.emb[i]))
        return out


PATROL_START_H = 8.0  # with a patrol (synthetic_arrays), each day's patrol starts at 08:00


def patrol_stamps(seconds: np.ndarray, hours: float) -> np.ndarray:
    """Clock stamps of moments given in seconds of patrol time, for patrols of ``hours`` a day."""
    per_day = hours * 3600.0
    return np.floor(seconds / per_day) * 86400.0 + PATROL_START_H * 3600.0 + np.mod(seconds, per_day)


def patrol_seconds(stamp: float, hours: float) -> float:
    """Seconds of patrol time up to a clock stamp (the inverse of patrol_stamps inside a patrol)."""
    day, clock = divmod(stamp, 86400.0)
    return day * hours * 3600.0 + min(max(clock - PATROL_START_H * 3600.0, 0.0), hours * 3600.0)


def synthetic_arrays(n: int, seed: int = 0, patrol: tuple[float, float] | None = None) -> Synthetic:
    """``patrol`` (records per second, hours a day): the stamps of a robot that records at that rate
    while it patrols that many hours a day (n / rate seconds of patrol); without it, n records
    spread over 5 days."""
    rng = np.random.default_rng(seed)
    words = _words()
    if patrol is None:
        stamps = np.sort(rng.uniform(0, 5 * 86400, n))
    else:
        stamps = patrol_stamps(np.sort(rng.uniform(0, n / patrol[0], n)), patrol[1])
    xs, ys, yaws = rng.uniform(0, 20, n), rng.uniform(0, 10, n), rng.uniform(-math.pi, math.pi, n)
    n_labels = rng.integers(2, 5, n)
    label_idx = np.argsort(rng.random((n, len(LABELS))), axis=1)[:, :4]
    color_idx = rng.integers(0, len(COLORS), (n, 4))
    room_idx = (xs // 3.4).astype(int) % len(ROOMS)
    lw = np.stack([words[l] for l in LABELS])
    cw = np.stack([words[c] for c in COLORS])
    rw = np.stack([words[r] for r in ROOMS])
    emb = np.empty((n, DIM), np.float32)
    for lo in range(0, n, 100_000):  # in slices: the temporaries of 1M rows at once take several GB
        hi = min(n, lo + 100_000)
        mask = (np.arange(4)[None, :] < n_labels[lo:hi, None]).astype(np.float32)[:, :, None]
        e = rw[room_idx[lo:hi]] + ((lw[label_idx[lo:hi]] + cw[color_idx[lo:hi]]) * mask).sum(axis=1)
        e += rng.normal(size=(hi - lo, DIM)).astype(np.float32) * (NOISE / math.sqrt(DIM))
        emb[lo:hi] = _unit(e)
    return Synthetic(stamps, xs, ys, yaws, n_labels, label_idx, color_idx, room_idx, emb)


def synthetic(n: int, seed: int = 0) -> list[MemoryRecord]:
    return synthetic_arrays(n, seed).records()


def make_queries(n: int, seed: int = 1) -> list[dict]:
    """Texts like "red mug" or "mug kitchen" embedded like the captions (word vectors, small noise)."""
    rng = np.random.default_rng(seed)
    words = _words()
    out = []
    for i in range(n):
        label = LABELS[int(rng.integers(len(LABELS)))]
        other = COLORS[int(rng.integers(len(COLORS)))] if i % 2 == 0 else ROOMS[int(rng.integers(len(ROOMS)))]
        vec = _unit(words[label] + words[other] + rng.normal(size=DIM).astype(np.float32) * (0.1 / math.sqrt(DIM)))
        t0 = float(rng.uniform(0, 5 * 86400 - 3600))
        out.append({"vec": vec, "text": f"{other} {label}", "since": t0, "until": t0 + 3600.0,
                    "x": float(rng.uniform(0, 20)), "y": float(rng.uniform(0, 10)), "room": ROOMS[i % len(ROOMS)]})
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


def latencies(fn, queries) -> tuple[float, float, list]:
    """p50, p99 in ms, and each query's result."""
    fn(queries[0])  # warm-up
    ts, results = [], []
    for q in queries:
        t = time.perf_counter()
        results.append(fn(q))
        ts.append((time.perf_counter() - t) * 1000)
    return float(np.percentile(ts, 50)), float(np.percentile(ts, 99)), results


def recall_at_10(store_results: list, exact: list, index_of: dict) -> float:
    """Mean |store top-10 & exact top-10| / |exact top-10| (queries with an empty exact answer skipped)."""
    values = []
    for got, want in zip(store_results, exact):
        if len(want):
            values.append(len({index_of[r.id] for r in got} & set(int(i) for i in want)) / len(want))
    return float(np.mean(values)) if values else float("nan")


def ingest(store, records, index: bool) -> tuple[float, float, float]:
    """(seconds in add + flush, seconds building the index, CPU seconds of this process in add +
    flush), writing in batches of BATCH and optimizing whenever the store says a segment is due
    (as MemoryService does). CPU time is what the writes cost when the machine is not shared."""
    t_add = t_index = cpu_add = 0.0
    for i in range(0, len(records), BATCH):
        t, c = time.perf_counter(), time.process_time()
        store.add(records[i:i + BATCH])
        t_add += time.perf_counter() - t
        cpu_add += time.process_time() - c
        if index and store.optimize_due():
            t = time.perf_counter()
            store.optimize()
            t_index += time.perf_counter() - t
    t, c = time.perf_counter(), time.process_time()
    store.flush()
    t_add += time.perf_counter() - t
    cpu_add += time.process_time() - c
    return t_add, t_index, cpu_add


def fresh(records):
    for r in records:
        r.id = ""
    return records


def load() -> str:
    return "load average " + " ".join(f"{v:.2f}" for v in os.getloadavg()) + f" on {os.cpu_count()} CPUs"


def bench_size(n: int, n_queries: int, client_queries: int, tmp: Path, rows: list, notes: list) -> Path:
    from mnemo_memory.store import open_store

    t = time.perf_counter()
    records = synthetic(n)
    queries = make_queries(n_queries)
    print(f"... {n} synthetic records in {time.perf_counter() - t:.0f} s; {load()}", file=sys.stderr)
    brute = Brute(records)
    exact = {name: [fn(q) for q in queries] for name, fn in brute.queries().items()}
    data_dir = tmp / f"edge{n}"
    # qdrant-edge
    store = open_store(data_dir, MODEL, DIM)
    t_add, t_index, cpu_add = ingest(store, fresh(records), index=True)
    index_of = {r.id: i for i, r in enumerate(records)}
    lat, recall = {}, {}
    for name, fn in store_queries(store).items():
        p50, p99, results = latencies(fn, queries)
        lat[name] = (p50, p99)
        if name in ("semantic", "combined"):
            recall[name] = recall_at_10(results, exact[name], index_of)
    rows.append((n, "qdrant-edge", n / t_add, lat, recall))
    segments = store._shard.info().segments_count
    notes.append(f"{n}: qdrant-edge ingest {n / t_add:,.0f} rec/s writing (add + flush, {BATCH}-record batches; "
                 f"{n / cpu_add:,.0f} rec per CPU-second); "
                 f"HNSW + int8 index built as it filled: {t_index:.1f} s in all ({n / (t_add + t_index):,.0f} rec/s "
                 f"including indexing), {store.unindexed()} records left unindexed, {segments} segments")
    store.close()
    t, cpu = time.perf_counter(), time.process_time()
    store = open_store(data_dir, MODEL, DIM)
    count = store.count()
    reopen, reopen_cpu = time.perf_counter() - t, time.process_time() - cpu
    t = time.perf_counter()
    store.search_text(queries[0]["vec"], 10)
    first = time.perf_counter() - t
    store.close()
    # baseline: the same records in a store holding its float vectors in RAM (the engine's default)
    from dataclasses import replace as _replace

    from mnemo_memory.edge_store import EdgeStore, EdgeTuning

    ram_dir = tmp / f"edge{n}_ram"
    ram = EdgeStore(ram_dir / "memory" / "mnemo_memory", MODEL, DIM, tuning=_replace(EdgeTuning(), vectors_cold=False))
    ingest(ram, fresh(records), index=True)
    ram.close()
    t = time.perf_counter()
    ram = EdgeStore(ram_dir / "memory" / "mnemo_memory", MODEL, DIM)
    ram.count()
    reopen_ram = time.perf_counter() - t
    ram.close()
    shutil.rmtree(ram_dir, ignore_errors=True)
    notes.append(f"{n}: reopen qdrant-edge store with {count} records: {reopen * 1000:.0f} ms wall, "
                 f"{reopen_cpu * 1000:.0f} ms CPU (target <= 1000 ms); "
                 f"first query after it {first * 1000:.1f} ms; "
                 f"baseline, float vectors held in RAM: {reopen_ram * 1000:.0f} ms wall")
    # numpy baseline
    t = time.perf_counter()
    brute = Brute(records)
    rate_b = n / (time.perf_counter() - t)
    lat_b = {}
    for k, fn in brute.queries().items():
        p50, p99, _ = latencies(fn, queries)
        lat_b[k] = (p50, p99)
    rows.append((n, "numpy brute force (exact)", rate_b, lat_b, {"semantic": 1.0, "combined": 1.0}))
    # qdrant-client local mode (in memory): same store code, python filtering
    client = open_store(url=":memory:", model_name=MODEL, dim=DIM, collection=f"bench{n}")
    t_add, _, _ = ingest(client, fresh(records), index=False)
    index_of = {r.id: i for i, r in enumerate(records)}
    lat_c, recall_c = {}, {}
    for name, fn in store_queries(client).items():
        p50, p99, results = latencies(fn, queries[:client_queries])
        lat_c[name] = (p50, p99)
        if name in ("semantic", "combined"):
            recall_c[name] = recall_at_10(results, exact[name][:client_queries], index_of)
    rows.append((n, f"qdrant-client local ({client_queries} q)", n / t_add, lat_c, recall_c))
    client.close()
    return data_dir


def bench_dds(data_dir: Path, n_queries: int, notes: list, n_records: int) -> None:
    """Start the memory node on the pre-filled store and time queries over DDS from this process."""
    import rclpy

    from mnemo_common import names
    from mnemo_common.processes import NodeProcess, ros_env, unique_domain_id
    from mnemo_common.types import Status
    from mnemo_interfaces.srv import GetMemoryRecord, SearchMemoryByPosition, SearchMemoryByText

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
        # steady state: after a reopen the node reads the records' positions back in the background
        # (a store past the grid's limit reads none: "positions not held in RAM")
        deadline = time.monotonic() + 120
        while "positions in RAM" not in node.log() and "positions not held in RAM" not in node.log():
            if not node.alive() or time.monotonic() > deadline:
                raise RuntimeError(f"memory node did not come up:\n{node.log()[-2000:]}")
            time.sleep(0.1)

        def timed_calls(srv_type, name, make_request, expect_error=0):
            cli = client_node.create_client(srv_type, name)
            deadline = time.monotonic() + 120
            while not cli.wait_for_service(timeout_sec=0.5):
                if not node.alive() or time.monotonic() > deadline:
                    raise RuntimeError(f"memory node did not come up:\n{node.log()[-2000:]}")
            ts = []
            warm = 10  # discovery traffic and first-call allocations settle
            for i in range(n_queries + warm):
                t = time.perf_counter()
                fut = cli.call_async(make_request(i))
                while not fut.done():
                    executor.spin_once(timeout_sec=0.01)
                assert fut.result().error_code == expect_error, fut.result().error_msg
                ts.append((time.perf_counter() - t) * 1000)
            return float(np.percentile(ts[warm:], 50)), float(np.percentile(ts[warm:], 99))

        p50, p99 = timed_calls(GetMemoryRecord, names.MEMORY_GET_RECORD, lambda i: GetMemoryRecord.Request(id=""),
                               expect_error=int(Status.INVALID_ARGUMENT))
        notes.append(f"DDS floor (get_record with an empty id: an error reply, no store access): "
                     f"p50 {p50:.2f} ms, p99 {p99:.2f} ms")
        rng = np.random.default_rng(3)
        p50, p99 = timed_calls(SearchMemoryByPosition, names.MEMORY_SEARCH_POSITION, lambda i: SearchMemoryByPosition.Request(
            x=float(rng.uniform(0, 20)), y=float(rng.uniform(0, 10)), radius=2.0, k=10))
        notes.append(f"DDS ({n_records} records) search_position (r=2 m, k=10): p50 {p50:.2f} ms, p99 {p99:.2f} ms (target p50 <= 5 ms)")
        p50, p99 = timed_calls(SearchMemoryByPosition, names.MEMORY_SEARCH_POSITION, lambda i: SearchMemoryByPosition.Request(
            x=float(rng.uniform(0, 20)), y=float(rng.uniform(0, 10)), radius=2.0, k=5))
        notes.append(f"DDS ({n_records} records) search_position (r=2 m, k=5, the planner's default): "
                     f"p50 {p50:.2f} ms, p99 {p99:.2f} ms")
        texts = [f"a {c} {l}" for c in COLORS[:4] for l in LABELS[:5]]
        p50, p99 = timed_calls(SearchMemoryByText, names.MEMORY_SEARCH_TEXT, lambda i: SearchMemoryByText.Request(
            text=texts[i % len(texts)], k=10))
        notes.append(f"DDS ({n_records} records) search_text (k=10, {len(texts)} distinct texts, MiniLM embeddings cached after first use): "
                     f"p50 {p50:.2f} ms, p99 {p99:.2f} ms")
    finally:
        client_node.destroy_node()
        rclpy.try_shutdown(context=ctx)
        node.stop()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--client-queries", type=int, default=12, help="queries per type for qdrant-client local mode")
    parser.add_argument("--dds-size", type=int, default=0, help="store size the node serves (default: the largest)")
    parser.add_argument("--no-dds", action="store_true")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    load_start = load()
    print(load_start, file=sys.stderr)
    rows, notes = [], []
    tmp = Path(tempfile.mkdtemp(prefix="bench_memory_"))
    try:
        dirs = {}
        for n in args.sizes:
            # local mode filters in Python (seconds per query at 100k): fewer queries keep the run short
            client_queries = args.client_queries if n < 50_000 else max(3, args.client_queries // 4)
            dirs[n] = bench_size(n, args.queries, client_queries, tmp, rows, notes)
            print(f"... {n} records done ({time.perf_counter() - start:.0f} s)", file=sys.stderr)
        dds_size = args.dds_size or max(args.sizes)
        if not args.no_dds and dds_size in dirs:
            bench_dds(dirs[dds_size], args.queries, notes, dds_size)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    header = (f"{'records':>8}  {'backend':<28} {'ingest rec/s':>12}  "
              + "  ".join(f"{k + ' p50/p99 ms':>22}" for k in TARGETS) + f"  {'recall@10 sem/comb':>19}")
    print(header)
    print("-" * len(header))
    for n, name, rate, lat, recall in rows:
        print(f"{n:>8}  {name:<28} {rate:>12,.0f}  " + "  ".join(f"{lat[k][0]:>10.2f} / {lat[k][1]:>9.2f}" for k in TARGETS)
              + f"  {recall.get('semantic', float('nan')):>9.3f} / {recall.get('combined', float('nan')):.3f}")
    print()
    for n in args.sizes:
        edge = next(r for r in rows if r[0] == n and r[1] == "qdrant-edge")
        base = next(r for r in rows if r[0] == n and r[1].startswith("numpy"))
        ratios = ", ".join(f"{k} {base[3][k][0] / edge[3][k][0]:.2f}x" for k in TARGETS)
        met = ", ".join(f"{k} {'met' if edge[3][k][0] <= TARGETS[k] else 'MISSED'}" for k in TARGETS)
        print(f"{n}: numpy-p50 / edge-p50 = {ratios}; targets: {met}; "
              f"ingest {'met' if edge[2] >= 5000 else 'MISSED'} ({edge[2]:,.0f} rec/s vs 5,000)")
    for note in notes:
        print(note)
    print(f"{load_start} at the start; {load()} at the end")
    print(f"total benchmark time {time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
