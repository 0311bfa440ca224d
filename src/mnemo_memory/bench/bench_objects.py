"""Object search latency when a few objects have hundreds of identical sightings.

    python src/mnemo_memory/bench/bench_objects.py [--records 40000] [--repeats 600] [--queries 40]
        [--baseline /tmp/wt18] [--rounds 2] [--keep DIR]

A month of patrols sees an object that never moves in every pass: hundreds of sightings with the
same text, hence the same dense and sparse vectors. ``search_objects`` answers one sighting per
object instance, so a query naming such an object must get past all of its repeats to find the
next k - 1 instances. The store built here (through ``EdgeStore.add``, indexed as it fills, 384-d)
holds ~2.5 object sightings per record over 30 days: a few thousand instances seen a few dozen
times each, in 1-2 places, and ``--heavy`` pairs of look-alike instances (a red mug and a red cup on
the same kitchen table) seen ``--repeats`` times each. Dense vectors are the normalised sum of fixed
random word vectors of the sighting text (equal texts, equal vectors, as with a real model); the
sparse vectors are the store's own.

Queries name a heavy instance (its own text, or a shorter phrase), alone or with the filters
callers use: labels + until (recall.identify), a time window, a room, a region; and, as control,
queries naming ordinary instances. Each case is timed with k=5 and k=10.

Baseline in the same run: ``--baseline DIR`` is a checkout of the code before the change (e.g.
``git worktree add -f /tmp/wt18 HEAD``); its ``src/mnemo_memory`` goes first on PYTHONPATH of the
serving processes, which alternate baseline / current ``--rounds`` times on the same store. The
report gives per case and implementation the wall p50 / p95 and CPU p50 (the process's CPU time),
the sightings asked of the engine per query (page sizes summed: the work, whatever the load), the
p50 ratios to the baseline, and how many queries the two answered alike. Prints the load average:
the machine is shared, and wall times scale with it.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path

import numpy as np

from mnemo_common.types import MemoryFilter, MemoryRecord, Pose2D, Pose3D, Sighting

DIM, MODEL = 384, "bench-words"
DAY = 86400.0
ROOMS = ["kitchen", "living_room", "study", "bedroom", "hallway", "bathroom"]
SUPPORTS = ["table", "shelf", "counter", "desk", "cabinet", "sofa"]
LABELS = ["mug", "cup", "book", "plate", "keys", "remote", "laptop", "plant", "bottle", "bowl", "phone",
          "glasses", "towel", "pillow", "lamp", "spoon", "box", "shoe", "bag", "vase"]
COLORS = ["red", "blue", "green", "white", "black", "yellow"]
BRANDS = ["Zentra", "Nokara", "Playtron", "Applewood", "Fjordy", "Kettle", "Orbis", "Lumo"]
BATCH = 2000


class HashWords:
    """A fixed random unit vector per word; a text is the normalised sum of its words' vectors."""

    name, dim = MODEL, DIM

    def __init__(self):
        self._cache: dict[str, np.ndarray] = {}

    def _word(self, w: str) -> np.ndarray:
        if w not in self._cache:
            v = np.random.default_rng(zlib.crc32(w.encode())).normal(size=DIM).astype(np.float32)
            self._cache[w] = v / np.linalg.norm(v)
        return self._cache[w]

    def embed(self, texts) -> np.ndarray:
        from mnemo_memory.sightings import words

        out = np.zeros((len(texts), DIM), np.float32)
        for i, t in enumerate(texts):
            for w in sorted(words(t)):
                out[i] += self._word(w)
            out[i] /= max(float(np.linalg.norm(out[i])), 1e-9)
        return out


def _instance(i: int, rng) -> dict:
    room = ROOMS[i % len(ROOMS)]
    places = list(rng.choice(SUPPORTS, size=int(rng.integers(1, 3)), replace=False))
    return {"id": f"obj_{i}", "label": LABELS[int(rng.integers(len(LABELS)))], "room": room, "places": places,
            "attributes": {"color": COLORS[int(rng.integers(len(COLORS)))],
                           **({"brand": BRANDS[int(rng.integers(len(BRANDS)))]} if rng.random() < 0.3 else {})}}


def population(instances: int, heavy: int) -> tuple[list[dict], list[dict]]:
    """Ordinary instances, and heavy ones: pairs of look-alikes (a mug and a cup of one colour) on one
    kitchen support."""
    rng = np.random.default_rng(3)
    ordinary = [_instance(i, rng) for i in range(instances)]
    heavies = []
    for p in range(heavy):
        color, support = COLORS[p % len(COLORS)], SUPPORTS[p % len(SUPPORTS)]
        for label in ("mug", "cup"):
            heavies.append({"id": f"heavy_{p}_{label}", "label": label, "room": "kitchen", "places": [support],
                            "attributes": {"color": color}})
    return ordinary, heavies


def records(n: int, repeats: int, ordinary: list[dict], heavies: list[dict]) -> list[MemoryRecord]:
    rng = np.random.default_rng(5)
    stamps = np.sort(rng.uniform(0, 30 * DAY, n))
    period = max(1, n // repeats)  # a heavy pair (look-alikes side by side) is in every period-th record
    by_room: dict[str, list[dict]] = {}
    for o in ordinary:
        by_room.setdefault(o["room"], []).append(o)
    out = []
    for i in range(n):
        pair = heavies[2 * (i % period):2 * (i % period) + 2]
        room = "kitchen" if pair else ROOMS[int(rng.integers(len(ROOMS)))]
        others = rng.choice(len(by_room[room]), size=int(rng.integers(2, 4)) - len(pair) // 2, replace=False)
        seen = pair + [by_room[room][int(j)] for j in others]
        x, y = ROOMS.index(room) * 3.0 + rng.uniform(0, 3), rng.uniform(0, 10)
        sightings = [Sighting(o["label"], (x + 1.0, y, 0.8), dict(o["attributes"]), object_id=o["id"], relation="on",
                              support=o["places"][int(stamps[i] // (10 * DAY)) % len(o["places"])]) for o in seen]
        caption = f"In the {room}: " + ", ".join(f"a {s.attributes['color']} {s.label}" for s in sightings) + "."
        out.append(MemoryRecord(id="", stamp=float(stamps[i]), robot_pose=Pose2D(x, y, 0.0),
                                camera_pose=Pose3D((x, y, 1.2)), caption=caption, room=room,
                                labels=sorted({s.label for s in sightings}), sightings=sightings))
    return out


def build(root: Path, n: int, repeats: int, instances: int, heavy: int) -> dict:
    from mnemo_memory.edge_store import EdgeStore
    from mnemo_memory.sightings import object_sightings, sighting_text

    emb = HashWords()
    ordinary, heavies = population(instances, heavy)
    data = records(n, repeats, ordinary, heavies)
    store = EdgeStore(root, MODEL, DIM)
    start = time.perf_counter()
    for lo in range(0, n, BATCH):
        batch = data[lo:lo + BATCH]
        for r in batch:
            r.embedding = emb.embed([r.caption])[0]
        vectors = [emb.embed([sighting_text(s, r.room) for _, s in object_sightings(r)]) for r in batch]
        store.add(batch, vectors)
        if store.optimize_due():
            store.optimize()
    store.optimize()
    sightings = store._objects.info().points_count
    store.close()
    counts: dict[str, int] = {}
    for r in data:
        for s in r.sightings:
            counts[s.object_id] = counts.get(s.object_id, 0) + 1
    return {"records": n, "sightings": sightings, "build_s": time.perf_counter() - start,
            "heavy_sightings": sorted(counts[h["id"]] for h in heavies)}


def cases(count: int, heavy: int) -> list[tuple[str, str, MemoryFilter | None]]:
    """(case, query text, filter), ``count`` queries per case."""
    rng = np.random.default_rng(11)
    ordinary, heavies = population(1, heavy)
    out = []
    for q in range(count):
        h = heavies[q % len(heavies)]
        color, label, support = h["attributes"]["color"], h["label"], h["places"][0]
        named = [f"a {color} {label} on the {support} in the kitchen", f"where is my {color} {label}",
                 f"the {label} I left on the {support}"][q % 3]
        t = float(rng.uniform(5, 25)) * DAY
        out += [("heavy", named, None),
                ("heavy, labels + until", named, MemoryFilter(until=t, labels=[label])),
                ("heavy, 10-day window", named, MemoryFilter(since=t - 5 * DAY, until=t + 5 * DAY)),
                ("heavy, room", named, MemoryFilter(room="kitchen")),
                ("heavy, region 3 m", named, MemoryFilter(near=(4.5, 5.0), radius=3.0)),
                ("ordinary", f"a {COLORS[q % 6]} {LABELS[(q * 7) % len(LABELS)]} in the {ROOMS[q % 6]}", None)]
    return out


def serve(root: Path, count: int, heavy: int) -> dict:
    """Run in a fresh process with the implementation on PYTHONPATH: time every case (JSON)."""
    from mnemo_memory.edge_store import EdgeStore
    from mnemo_memory.sightings import sighting_text

    store = EdgeStore(root, MODEL, DIM)
    emb = HashWords()
    out: dict = {}
    asked: list[int] = []  # sightings asked of the engine per call (the work, whatever the load)
    nearest = store._nearest_sightings
    store._nearest_sightings = lambda v, w, c, n, *a, **kw: asked.append(n) or nearest(v, w, c, n, *a, **kw)
    for k in (5, 10):
        for case, text, f in cases(count, heavy):
            vec = emb.embed([text])[0]
            asked.clear()
            t, cpu = time.perf_counter(), time.process_time()
            found = store.search_objects(vec, k, f, text=text)
            entry = out.setdefault(f"{case}, k={k}", {"ms": [], "cpu_ms": [], "asked": [], "answers": []})
            entry["asked"].append(sum(asked))
            entry["ms"].append((time.perf_counter() - t) * 1000.0)
            entry["cpu_ms"].append((time.process_time() - cpu) * 1000.0)
            entry["answers"].append([sighting_text(r.sightings[r.matched_sighting], r.room) for r in found])
    store.close()
    return out


def load() -> str:
    return "load " + " ".join(f"{v:.1f}" for v in os.getloadavg())


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--records", type=int, default=40_000)
    ap.add_argument("--repeats", type=int, default=600, help="sightings of each heavy instance")
    ap.add_argument("--instances", type=int, default=3000, help="ordinary object instances")
    ap.add_argument("--heavy", type=int, default=3, help="pairs of heavy look-alike instances")
    ap.add_argument("--queries", type=int, default=30, help="queries per case")
    ap.add_argument("--baseline", default="", help="checkout of the code before the change")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--keep", default="", help="build (or reuse) the store here")
    ap.add_argument("--serve", default="", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.serve:
        print(json.dumps(serve(Path(args.serve), args.queries, args.heavy)))
        return 0
    tmp = Path(args.keep or tempfile.mkdtemp(prefix="bench_objects_"))
    root = tmp / "store"
    if not (root / "meta.json").exists():
        print(f"building {args.records:,} records ({load()})", file=sys.stderr, flush=True)
        print(json.dumps(build(root, args.records, args.repeats, args.instances, args.heavy)))
    impls = {"current": Path(__file__).resolve().parents[1]}
    if args.baseline:
        impls = {"baseline": Path(args.baseline) / "src" / "mnemo_memory", **impls}
    runs: dict[str, dict] = {name: {} for name in impls}
    for _ in range(args.rounds):
        for name, src in impls.items():
            env = dict(os.environ, PYTHONPATH=f"{src}:{os.environ.get('PYTHONPATH', '')}")
            print(f"serving {name} ({load()})", file=sys.stderr, flush=True)
            out = subprocess.run([sys.executable, __file__, "--serve", str(root), "--queries", str(args.queries),
                                  "--heavy", str(args.heavy)], env=env, check=True, capture_output=True, text=True)
            for case, entry in json.loads(out.stdout).items():
                mine = runs[name].setdefault(case, {"ms": [], "cpu_ms": [], "asked": [], "answers": []})
                for key in ("ms", "cpu_ms", "asked"):
                    mine[key] += entry[key]
                mine["answers"].append(entry["answers"])
    report(runs, args.baseline != "")
    print(load())
    if not args.keep:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


def _agreement(a: list, b: list) -> str:
    """Queries answered alike: the answers' sighting texts in the same order / as the same multiset
    (instances of equal text are interchangeable: they tie in both rankings)."""
    pairs = list(zip(a, b))
    return f"{sum(x == y for x, y in pairs)} / {sum(sorted(x) == sorted(y) for x, y in pairs)} of {len(pairs)}"


def report(runs: dict, with_baseline: bool) -> None:
    """Wall p50 / p95 and CPU p50 per case (the process's CPU time: what a query costs however loaded
    the machine is); with a baseline, the ratios of the p50s, and how many queries the two answered
    alike (first rounds); "itself": the baseline's first round against its last."""
    def cell(entry: dict) -> str:
        wall, asked = np.percentile(entry["ms"], [50, 95]), np.percentile(entry["asked"], [50, 95])
        return (f"{wall[0]:.1f} / {wall[1]:.1f} / {np.percentile(entry['cpu_ms'], 50):.1f} | "
                f"{asked[0]:.0f} / {asked[1]:.0f}")

    print("| case | " + ("baseline " if with_baseline else "") + "p50 / p95 / CPU p50 ms | sightings asked p50 / p95 |"
          + (" after | after | p50, CPU p50 ratio | same order / set as baseline | baseline vs itself |"
             if with_baseline else ""))
    for case, cur in runs["current"].items():
        if not with_baseline:
            print(f"| {case} | {cell(cur)} |")
            continue
        base = runs["baseline"][case]
        ratio = [np.percentile(cur[key], 50) / max(np.percentile(base[key], 50), 1e-9) for key in ("ms", "cpu_ms")]
        itself = _agreement(base["answers"][0], base["answers"][-1]) if len(base["answers"]) > 1 else "-"
        print(f"| {case} | {cell(base)} | {cell(cur)} | {ratio[0]:.2f}, {ratio[1]:.2f} | "
              f"{_agreement(base['answers'][0], cur['answers'][0])} | {itself} |")


if __name__ == "__main__":
    sys.exit(main())
