"""Scale benchmark: the embedded memory store at 100k and 1M synthetic records.

For each size: ingest through the real store code (``open_store`` -> ``EdgeStore.add`` in batches
of 2,000, the HNSW index built a segment at a time as it fills, as MemoryService does), then in a
fresh process (what a restarted robot sees): reopen time, the first query after it, query latency
of the four query types (semantic top-10, time range, space within 2 m, and text with combined
time + room + region filters), recall@10 of semantic and combined search against exact search
(numpy over the same vectors), the CPU time per query (of the whole process: what a query costs
however loaded the machine is), resident memory (RSS, split into anonymous and file-backed pages)
and disk per record; optionally the text query over DDS through the memory node.

    python src/mnemo_memory/bench/bench_scale.py [--sizes 100000 1000000] [--tuning default|before]
        [--queries 200] [--dds] [--keep DIR] [--sightings] [--patrol RATE HOURS]

Records are bench_memory.py's synthetic patrol records (5 days, 20 x 10 m, 6 rooms, structured
caption-like embeddings; precomputed: embedding 1M captions with MiniLM on 2 CPUs takes hours) with
deterministic ids. 1M records within 5 days are seven times as dense in time as a robot's month
(the scale issue's robot: one record a second, 8 hours a day, about 29k a day); ``--patrol 1 8``
gives them that robot's stamps instead (1M: 35 days), and asks the time queries about patrol hours.
They carry no object sightings' vectors, so only the view index is filled; with ``--sightings`` each
of a record's 2-4 sightings also gets a vector (its label, colour and room word vectors and noise,
made as the records' own embeddings are) and an instance id per (label, colour, room), so the object
index fills too, and object search is timed.
``--tuning before`` is the store's tuning before the scale work, for a baseline in the same run.
Prints the load average: the machine is shared, and every latency scales with it.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import replace
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
BATCH = 2000


def _bench_memory():
    spec = importlib.util.spec_from_file_location("bench_memory", HERE / "bench_memory.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


bm = _bench_memory()


def tuning(name: str):
    from mnemo_memory.edge_store import EdgeTuning

    if name == "default":
        return EdgeTuning()
    if name == "before":  # the settings before the scale work (commit 8a5585b)
        return replace(EdgeTuning(), hnsw_m=16, hnsw_ef_construct=64, hnsw_ef=48, full_scan_threshold_kb=4_000,
                       quantization=True, oversampling=1.5, indexing_threshold_kb=20_000, max_segment_size_kb=60_000,
                       segments=8, vectors_cold=True, quantized_in_ram=True, secondary_indexes_on_disk=True,
                       payload_cold=False)
    raise SystemExit(f"unknown tuning {name!r}")


def record_id(i: int) -> str:
    return str(uuid.UUID(int=i + 1))


def record_index(rid: str) -> int:
    return uuid.UUID(rid).int - 1


def load() -> str:
    return "load " + " ".join(f"{v:.1f}" for v in os.getloadavg())


# -- build -------------------------------------------------------------------------------------
def sighting_vectors(records: list, seed: int) -> list[np.ndarray]:
    """Object vectors of each record's sightings, and an instance id per (label, colour, room)."""
    words = bm._words()
    rng = np.random.default_rng(seed)
    out = []
    for r in records:
        for s in r.sightings:
            s.object_id = f"{s.label}_{s.attributes['color']}_{r.room}"
        e = np.stack([words[s.label] + words[s.attributes["color"]] + 0.5 * words[r.room] for s in r.sightings])
        e += rng.normal(size=e.shape).astype(np.float32) * (bm.NOISE / np.sqrt(bm.DIM))
        out.append(bm._unit(e))
    return out


def build(root: Path, data: "bm.Synthetic", tuning_name: str, stop: int, sightings: bool = False) -> dict:
    """Ingest records [count, stop) into the store at root (a store left by an earlier or
    interrupted run is continued: ids are deterministic, and writes are durable when add returns)."""
    from mnemo_memory.edge_store import EdgeStore

    store = EdgeStore(root, bm.MODEL, bm.DIM, tuning=tuning(tuning_name))
    begin = store.count() // BATCH * BATCH
    t_add = t_index = 0.0
    passes, worst = 0, 0.0
    start = time.perf_counter()
    for lo in range(begin, stop, BATCH):
        records = data.records(lo, min(stop, lo + BATCH))
        for i, r in enumerate(records):
            r.id = record_id(lo + i)
        t = time.perf_counter()
        store.add(records, sighting_vectors(records, lo) if sightings else None)
        t_add += time.perf_counter() - t
        if store.optimize_due():
            t = time.perf_counter()
            store.optimize()
            dt = time.perf_counter() - t
            t_index, passes, worst = t_index + dt, passes + 1, max(worst, dt)
        if lo > begin and lo % 100_000 == 0:
            print(f"  ... {lo:,} records, {time.perf_counter() - start:.0f} s, {load()}", file=sys.stderr, flush=True)
    t = time.perf_counter()
    store.optimize()  # what is left: a store at rest is fully indexed
    t_final = time.perf_counter() - t
    info = store._shard.info()
    objects = store._objects.info() if store._objects is not None else None
    store.close()
    n = stop - begin
    return {"from": begin, "records_per_s_add": n / max(t_add, 1e-9), "index_s": t_index, "index_passes": passes,
            "worst_pass_s": worst, "final_optimize_s": t_final, "total_s": time.perf_counter() - start,
            "segments": info.segments_count, "load_build": load(),
            "sightings": objects.points_count if objects else 0, "sighting_segments": objects.segments_count if objects else 0}


def disk_bytes(root: Path) -> int:
    """Allocated bytes (the engine's files are sparse: their sizes overstate the disk used)."""
    return sum(f.stat().st_blocks * 512 for f in root.rglob("*") if f.is_file())


# -- serve: reopen and query in a fresh process ------------------------------------------------
def queries_of(count: int, span: float, patrol_hours: float = 0.0) -> list[dict]:
    """bench_memory's queries, their time windows moved into the stamps' span [0, span] (a growing
    store's first records cover less than the 5 days). ``patrol_hours``: the records are those of
    daily patrols (``bm.synthetic_arrays``), and so are the moments asked about."""
    qs = bm.make_queries(count)
    for q in qs:
        if patrol_hours:
            at = q["since"] / (5 * 86400) * bm.patrol_seconds(span, patrol_hours)
            q["since"] = float(bm.patrol_stamps(np.array([at]), patrol_hours)[0])
        else:
            q["since"] *= span / (5 * 86400)
        q["until"] = q["since"] + 3600.0
    return qs


def serve(root: Path, span: float, count: int, tuning_name: str, patrol_hours: float = 0.0) -> dict:
    """Run in a fresh process: reopen, query, report (JSON on stdout)."""
    from mnemo_common.types import MemoryFilter
    from mnemo_memory.edge_store import EdgeStore

    t, cpu = time.perf_counter(), time.process_time()
    store = EdgeStore(root, bm.MODEL, bm.DIM, tuning=tuning(tuning_name))
    store.count()
    reopen, reopen_cpu = time.perf_counter() - t, time.process_time() - cpu
    qs = queries_of(count, span, patrol_hours)
    t = time.perf_counter()
    store.search_text(qs[0]["vec"], 10)
    first = time.perf_counter() - t
    if store.positions_in_ram:
        store.positions_ready(timeout=600)
    kinds = {
        "semantic": lambda q: store.search_text(q["vec"], 10),
        "time": lambda q: store.search_time(q["since"], q["until"], None, 10),
        "space": lambda q: store.search_position(q["x"], q["y"], 2.0, 10),
        "combined": lambda q: store.search_text(q["vec"], 10, MemoryFilter(
            since=q["since"] - 6 * 3600, until=q["until"] + 6 * 3600, room=q["room"], near=(q["x"], q["y"]),
            radius=5.0)),
    }
    if store._objects is not None and store._objects.info().points_count:
        kinds["objects"] = lambda q: store.search_objects(q["vec"], 10)
    out = {"reopen_s": reopen, "reopen_cpu_s": reopen_cpu, "first_query_ms": first * 1000,
           "positions_load_s": store.positions_load_seconds if store.positions_in_ram else None,
           "latency": {}, "ids": {}}
    for name, fn in kinds.items():
        for q in qs[:10]:
            fn(q)  # warm
        ts, cpu, ids = [], [], []
        for q in qs:
            t, c = time.perf_counter(), time.process_time()
            got = fn(q)
            ts.append((time.perf_counter() - t) * 1000)
            cpu.append((time.process_time() - c) * 1000)
            ids.append([record_index(r.id) for r in got])
        # CPU time of the whole process (the engine's search threads included) per query: what the
        # query costs whatever else runs on the machine
        out["latency"][name] = [float(np.percentile(ts, p)) for p in (50, 95, 99)] + [float(np.percentile(cpu, 50))]
        out["ids"][name] = ids
    status = dict(line.split(":", 1) for line in Path("/proc/self/status").read_text().splitlines() if ":" in line)
    out["rss"] = {k: int(status[k].split()[0]) * 1024 for k in ("VmRSS", "RssAnon", "RssFile", "VmHWM")}
    out["load_serve"] = load()
    store.close()
    return out


def exact(data: "bm.Synthetic", n: int, qs: list[dict]) -> dict:
    """Exact top-10 of semantic and combined search (numpy) over the first n records."""
    emb, stamps, xs, ys, rooms = data.emb[:n], data.stamps[:n], data.xs[:n], data.ys[:n], data.rooms[:n]
    sem, comb = [], []
    for q in qs:
        scores = emb @ q["vec"]
        top = np.argpartition(-scores, 10)[:10]
        sem.append(set(top.tolist()))
        mask = ((stamps >= q["since"] - 6 * 3600) & (stamps <= q["until"] + 6 * 3600) & (rooms == q["room"])
                & (np.hypot(xs - q["x"], ys - q["y"]) <= 5.0))
        idx = np.flatnonzero(mask)
        comb.append(set(idx[np.argsort(-scores[idx])[:10]].tolist()))
    return {"semantic": sem, "combined": comb}


def recall(got: list[list[int]], want: list[set]) -> float:
    values = [len(set(g) & w) / len(w) for g, w in zip(got, want) if w]
    return float(np.mean(values)) if values else float("nan")


def dds_notes(root: Path, count: int) -> list[str]:
    """p50/p99 over DDS through the memory node serving this store: the error-reply floor, position
    queries and text queries (bench_memory's lines)."""
    notes: list[str] = []
    bm.bench_dds(root.parents[1], count, notes, 0)
    return notes


def report(root: Path, data: "bm.Synthetic", n: int, args, built: dict) -> None:
    span = float(data.stamps[n - 1])
    hours = args.patrol[1] if args.patrol else 0.0
    qs = queries_of(args.queries, span, hours)
    # exact search over the views' vectors; with sightings the text query ranks records by their
    # sightings as well (query_plans._ranked), which that search does not: no recall then
    want = {} if built.get("sightings") else exact(data, n, qs)
    proc = subprocess.run([sys.executable, __file__, "--serve", str(root), "--serve-span", repr(span), "--tuning",
                           args.tuning, "--queries", str(args.queries), "--serve-patrol-hours", repr(hours)],
                          capture_output=True, text=True)
    if proc.returncode:
        raise RuntimeError(proc.stderr[-3000:])
    served = json.loads(proc.stdout.strip().splitlines()[-1])
    disk = disk_bytes(root)
    print(f"\n## {n:,} records over {span / 86400:.1f} days, tuning {args.tuning}"
          + (f", patrols of {args.patrol[1]:g} h a day at {args.patrol[0]:g} records/s" if args.patrol else ""))
    if built["from"] < n:
        print(f"ingest of records {built['from']:,}-{n:,}: {built['records_per_s_add']:,.0f} rec/s in add; index "
              f"{built['index_s']:.0f} s in {built['index_passes']} passes (longest {built['worst_pass_s']:.1f} s) + "
              f"final {built['final_optimize_s']:.0f} s; {built['total_s']:.0f} s in all, "
              f"{(n - built['from']) / built['total_s']:,.0f} rec/s with indexing; {built['load_build']}")
    print(f"{built['segments']} segments" + (f"; {built['sightings']:,} object sightings in "
                                             f"{built['sighting_segments']} segments" if built.get("sightings") else ""))
    rss = served["rss"]
    print(f"reopen {served['reopen_s']:.2f} s ({served['reopen_cpu_s']:.2f} s CPU), first query "
          f"{served['first_query_ms']:.1f} ms, " + (f"positions read back in {served['positions_load_s']:.1f} s"
                                                   if served["positions_load_s"] is not None else "no positions in RAM"))
    print(f"RSS {rss['VmRSS'] / 2**30:.2f} GiB ({rss['RssAnon'] / 2**30:.2f} anonymous, "
          f"{rss['RssFile'] / 2**30:.2f} file-backed; peak {rss['VmHWM'] / 2**30:.2f}), "
          f"{rss['VmRSS'] / n:,.0f} B per record; disk {disk / 2**30:.2f} GiB, {disk / n:,.0f} B per record")
    print("| query | p50 ms | p95 ms | p99 ms | CPU ms p50 | recall@10 |\n|---|---|---|---|---|---|")
    for name, (p50, p95, p99, cpu) in served["latency"].items():
        r = f"{recall(served['ids'][name], want[name]):.3f}" if name in want else "-"
        print(f"| {name} | {p50:.2f} | {p95:.2f} | {p99:.2f} | {cpu:.2f} | {r} |")
    print(f"({served['load_serve']} while querying)", flush=True)
    if args.dds:
        for line in dds_notes(root, args.queries):
            print(line.replace("(0 records) ", ""), flush=True)
        print(f"({load()} after the DDS queries)", flush=True)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000],
                        help="store sizes; with --grow, checkpoints of one store growing to the largest")
    parser.add_argument("--grow", action="store_true",
                        help="one store, measured at each size as it grows (and continued if it exists)")
    parser.add_argument("--tuning", default="default", choices=["default", "before"])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--dds", action="store_true", help="also time queries over DDS through the node (error floor, position, text)")
    parser.add_argument("--sightings", action="store_true", help="also index every record's object sightings")
    parser.add_argument("--keep", type=Path, default=None, help="build the stores here and keep them (reused if present)")
    parser.add_argument("--serve", type=Path, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--patrol", type=float, nargs=2, default=None, metavar=("RATE", "HOURS"),
                        help="records made at RATE per second during patrols of HOURS a day (e.g. 1 8: a robot's "
                             "month is about 1M records), and queries asked about patrol times; default: all "
                             "records within 5 days")
    parser.add_argument("--serve-span", type=float, default=0.0, help=argparse.SUPPRESS)
    parser.add_argument("--serve-patrol-hours", type=float, default=0.0, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve is not None:
        if not (Path(args.serve) / "meta.json").is_file():  # (opening a path without a store creates one)
            parser.error(f"--serve {args.serve}: no memory store there (no meta.json)")
        print(json.dumps(serve(args.serve, args.serve_span, args.queries, args.tuning, args.serve_patrol_hours)))
        return 0
    base = args.keep or Path(tempfile.mkdtemp(prefix="bench_scale_"))
    print(f"tuning {args.tuning}; {load()} on {os.cpu_count()} CPUs", flush=True)
    try:
        data = None
        for n in args.sizes:
            if data is None or not args.grow:
                t = time.perf_counter()
                data = bm.synthetic_arrays(max(args.sizes) if args.grow else n,
                                           patrol=tuple(args.patrol) if args.patrol else None)
                print(f"{len(data.stamps):,}: synthetic arrays in {time.perf_counter() - t:.0f} s", file=sys.stderr,
                      flush=True)
            name = f"{args.tuning}_{max(args.sizes) if args.grow else n}" + ("_sightings" if args.sightings else "") \
                + (f"_patrol_{args.patrol[0]:g}_{args.patrol[1]:g}" if args.patrol else "")
            root = base / name / "memory" / "mnemo_memory"
            built = build(root, data, args.tuning, n, args.sightings)
            report(root, data, n, args, built)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
    finally:
        if args.keep is None:
            shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
