"""Cost of the scene graph's whole-graph reads at home sizes (the pure core plus message building).

    python src/mnemo_scene_graph/bench/bench_reads.py [--nodes 300 1000 3500] [--fixtures 40] [--repeats 5]

For each size, the synthetic home of bench_frame_cost.py (N objects at fixed places, with
--fixtures map tables under them) is built, and each read is timed (median of --repeats calls):

- `relations`: SceneGraph.relations() (on/in, near, in_room);
- `publication`: what the node publishes every publish_period: the SceneGraph message (nodes and
  relations) and the markers (needs mnemo_interfaces);
- `snapshot`: to_dict() and its JSON text, what a snapshot writes.

The digest is a hash of the relations, so two versions of the code that answer alike print the same
one. To time another version, put its package first on the path:
PYTHONPATH=/tmp/old/src/mnemo_scene_graph:$PYTHONPATH python .../bench_reads.py
"""
from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_frame_cost  # noqa: E402  (the synthetic home, one home for both benches)

import mnemo_scene_graph.graph as graph_module  # noqa: E402


def median_ms(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000.0)
    return statistics.median(times)


def publication(graph) -> None:
    from mnemo_scene_graph.conversions import graph_to_msg, markers_to_msg

    nodes = graph.nodes()
    graph_to_msg(nodes, graph.relations(), 0.0, "map")
    markers_to_msg(nodes, 0.0, "map", 0.08, 0.08)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", type=int, nargs="+", default=[300, 1000, 3500])
    parser.add_argument("--fixtures", type=int, default=40)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seed", type=int, default=3)
    args = parser.parse_args(argv)
    print(f"graph module: {graph_module.__file__}")
    print("| nodes | relations | relations ms | publication ms | snapshot ms | digest |\n|---|---|---|---|---|---|")
    for n in args.nodes:
        graph = bench_frame_cost.build(bench_frame_cost.home(n, args.seed), args.fixtures)
        relations = graph.relations()
        digest = hashlib.sha256(repr(relations).encode()).hexdigest()[:12]
        rel_ms = median_ms(graph.relations, args.repeats)
        pub_ms = median_ms(lambda: publication(graph), args.repeats)
        snap_ms = median_ms(lambda: json.dumps(graph.to_dict(), separators=(",", ":")), args.repeats)
        print(f"| {len(graph)} | {len(relations)} | {rel_ms:.1f} | {pub_ms:.1f} | {snap_ms:.1f} | {digest} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
