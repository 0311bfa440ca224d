"""Query latency while the memory store builds an HNSW index, in process (``MemoryService``, no DDS).

One store is pre-filled (bench_memory.py's synthetic records, indexed) with one segment more of
unindexed records, so a build is due. Then, on a copy of it for each mode, one thread sends
--query-rate queries/s (text, time and position in turn; open loop: latency counts from when a
query was due) and another writes --write-rate records/s, while the index is built:

- ``blocking``: ``optimize()`` in the writer thread, as ``MemoryService.add`` ran it before the
  index was built off the serving process (qdrant-edge holds the GIL throughout);
- ``background``: the service's ``BackgroundIndexer`` (a child process on a copy, ``index_build``).

It prints, per mode, the build's wall time and the latency of the queries due while it ran, the
longest write, and the load average (this machine is shared); for ``background``, the build's
log line says how long writers waited for the copy.

    python src/mnemo_memory/bench/bench_index_build.py [--records 20000] [--modes blocking background]
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import sys
import tempfile
import threading
import time
import zlib
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent


def bench_memory_module():
    spec = importlib.util.spec_from_file_location("bench_memory", HERE / "bench_memory.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class WordVectors:
    """Embeds like bench_memory's records: the sum of its fixed word vectors (others hashed)."""

    def __init__(self, bm):
        self.name, self.dim, self._words = bm.MODEL, bm.DIM, bm._words()

    def embed(self, texts):
        out = np.empty((len(texts), self.dim), np.float32)
        for i, text in enumerate(texts):
            words = [w.strip(".,:") for w in text.lower().split()]
            v = sum((self._words[w] for w in words if w in self._words), np.zeros(self.dim, np.float32))
            if not np.any(v):
                v = np.random.default_rng(zlib.crc32(text.encode())).normal(size=self.dim).astype(np.float32)
            out[i] = v / np.linalg.norm(v)
        return out


def prefill(path: Path, bm, n: int) -> int:
    from mnemo_memory.store import open_store

    store = open_store(path, bm.MODEL, bm.DIM)
    bm.ingest(store, bm.fresh(bm.synthetic(n)), index=True)
    extra = max(0, store.tuning.index_points(store.dim) - store.unindexed())
    bm.ingest(store, bm.fresh(bm.synthetic(extra, seed=1)), index=False)
    total, unindexed = store.count(), store.unindexed()
    store.close()
    print(f"pre-filled {total:,} records, {unindexed:,} of them unindexed", flush=True)
    return total


def run_mode(mode: str, path: Path, bm, args) -> dict:
    from mnemo_memory.service import MemoryService
    from mnemo_memory.store import open_store

    events: list[str] = []
    memory = MemoryService(open_store(path, bm.MODEL, bm.DIM), WordVectors(bm), auto_optimize=mode == "background",
                           on_event=events.append)
    queries = bm.make_queries(200, seed=3)
    kinds = [lambda q: memory.search_text(q["text"], k=5),
             lambda q: memory.search_time(around=q["since"], k=5),
             lambda q: memory.search_position(q["x"], q["y"], radius=2.0, k=5)]
    for i in range(30):  # warm
        kinds[i % 3](queries[i])
    new = bm.fresh(bm.synthetic(int(args.write_rate * 600), seed=2))
    latencies: list[tuple[float, float]] = []  # (due, ms)
    writes: list[tuple[float, float]] = []  # (start, ms)
    window = [0.0, 0.0]
    stop = threading.Event()

    def query_loop() -> None:
        due, i = time.monotonic(), 0
        while not stop.is_set():
            time.sleep(max(0.0, due - time.monotonic()))
            kinds[i % 3](queries[i % len(queries)])
            latencies.append((due, (time.monotonic() - due) * 1000.0))
            due += 1.0 / args.query_rate
            i += 1

    def write_loop() -> None:
        due, i, batch = time.monotonic(), 0, max(1, int(args.write_rate / 10))
        while not stop.is_set() and i + batch <= len(new):
            time.sleep(max(0.0, due - time.monotonic()))
            t = time.monotonic()
            memory.add(new[i:i + batch])
            writes.append((t, (time.monotonic() - t) * 1000.0))
            if i == 0:  # the first write makes the build due (background) or is followed by it (blocking)
                window[0] = t
                if mode == "blocking":
                    memory.optimize()
                    window[1] = time.monotonic()
            i += batch
            due += batch / args.write_rate

    threads = [threading.Thread(target=query_loop), threading.Thread(target=write_loop)]
    for th in threads:
        th.start()
    time.sleep(1.0)
    if mode == "background":
        while memory.index_builds == 0 and not memory._indexer.last_error:
            time.sleep(0.01)
        window[1] = time.monotonic()
    else:
        while not window[1]:
            time.sleep(0.01)
    time.sleep(2.0)
    stop.set()
    for th in threads:
        th.join()
    written = sum(1 for _ in writes) * max(1, int(args.write_rate / 10))
    memory.wait_indexed()
    count, unindexed = memory.count(), memory.store.unindexed()
    memory.close()
    during = [ms for due, ms in latencies if window[0] <= due <= window[1]]
    return {"mode": mode, "build_s": window[1] - window[0], "during": during, "all": [ms for _, ms in latencies],
            "write_max_ms": max(ms for _, ms in writes), "written": written, "count": count,
            "unindexed": unindexed, "events": events, "load": os.getloadavg()[0]}


def row(r: dict) -> str:
    a = np.asarray(r["during"]) if r["during"] else np.asarray([np.nan])
    return (f"| {r['mode']} | {r['build_s']:.1f} | {len(r['during'])} | {np.percentile(a, 50):.1f} "
            f"| {np.percentile(a, 99):.1f} | {a.max():.1f} | {r['write_max_ms']:.0f} | {r['load']:.1f} |")


def main(argv=None) -> int:
    from mnemo_memory.shard_copy import copy_sparse

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=20_000, help="indexed records before the unindexed segment")
    parser.add_argument("--query-rate", type=float, default=20.0)
    parser.add_argument("--write-rate", type=float, default=30.0)
    parser.add_argument("--modes", nargs="+", default=["blocking", "background"], choices=["blocking", "background"])
    args = parser.parse_args(argv)
    bm = bench_memory_module()
    tmp = Path(tempfile.mkdtemp(prefix="mnemo_index_build_"))
    try:
        base = tmp / "base"
        before = prefill(base, bm, args.records)
        results = []
        for mode in args.modes:
            # sparse, as the engine wrote it: a plain copy would write out its preallocated holes
            shutil.copytree(base, tmp / mode, copy_function=lambda src, dst: copy_sparse(Path(src), Path(dst)))
            print(f"{mode}: load average {os.getloadavg()[0]:.1f} at the start", flush=True)
            r = run_mode(mode, tmp / mode, bm, args)
            results.append(r)
            lost = before + r["written"] - r["count"]
            print(f"{mode}: {r['written']} written during the run, {r['count']:,} records after it "
                  f"({'none' if lost == 0 else lost} lost), {r['unindexed']:,} unindexed; "
                  + "; ".join(r["events"]), flush=True)
        print(f"\n{args.query_rate:g} queries/s (text, time, position) and {args.write_rate:g} records/s "
              f"while the index of {before:,} records is built; {os.cpu_count()} CPUs\n")
        print("| build | seconds | queries due during it | p50 ms | p99 ms | max ms | longest write ms | load |")
        print("|---|---|---|---|---|---|---|---|")
        for r in results:
            print(row(r))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
