#!/usr/bin/env python3
"""Load benchmark: the memory and scene-graph nodes under a robot's steady load, over DDS.

A memory store is pre-filled with synthetic patrol records (src/mnemo_memory/bench/bench_memory.py's
generator, precomputed embeddings); the memory and scene-graph nodes start on it; then, for
--duration seconds, this process publishes --obs-rate observations/s (captioned and embedded by
the memory node, so its index grows and is rebuilt while queries run) and sends --query-rate
queries/s, an even mix of text, time, position and scene-graph queries, on a fixed schedule
(open loop: a query that waits behind another counts from when it was due, so a stall shows in
full). It prints p50/p95/p99/max per query type, the stalls (answers later than --stall-ms)
grouped into episodes, how many of the published sightings the scene graph integrated (a node
that falls behind loses frames from its subscription's queue), and beforehand the p50 of text
queries one at a time with no ingest.

    source scripts/env.sh
    python scripts/bench_load.py                    # 100k records, 5 minutes
    python scripts/bench_load.py --quick            # 20k records, 30 s
    python scripts/bench_load.py --quick --duration 60 --build-during   # an index build inside the window
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
TYPES = ("text", "time", "position", "scene_graph")


def bench_memory_module():
    spec = importlib.util.spec_from_file_location("bench_memory", ROOT / "src/mnemo_memory/bench/bench_memory.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def prefill(data_dir: Path, n: int, build_due: bool = False) -> None:
    """n records, indexed; with build_due, then as many unindexed ones as make an index build due,
    so the node's first write starts one while the load runs."""
    from mnemo_memory.store import open_store

    bm = bench_memory_module()
    t = time.perf_counter()
    store = open_store(data_dir, bm.MODEL, bm.DIM)
    bm.ingest(store, bm.fresh(bm.synthetic(n)), index=True)
    extra = max(0, store.tuning.index_points(store.dim) - store.unindexed()) if build_due else 0
    if extra:
        bm.ingest(store, bm.fresh(bm.synthetic(extra, seed=1)), index=False)
    print(f"prefilled {n + extra:,} records ({store.unindexed():,} of them unindexed) "
          f"in {time.perf_counter() - t:.0f} s", flush=True)
    store.close()


def percentiles(values: list[float]) -> str:
    if not values:
        return "| - | - | - | - | 0 |"
    a = np.asarray(values)
    return (f"| {np.percentile(a, 50):.1f} | {np.percentile(a, 95):.1f} | {np.percentile(a, 99):.1f} "
            f"| {a.max():.1f} | {len(a)} |")


class Load:
    def __init__(self, client_node, executor, bm, objects: int = 0):
        from mnemo_common import names
        from mnemo_interfaces.msg import Observation
        from mnemo_interfaces.srv import QueryObjects, SearchMemoryByPosition, SearchMemoryByText, SearchMemoryByTime

        self.node, self.executor, self.bm = client_node, executor, bm
        self.rng = np.random.default_rng(7)
        # A home of `objects` things at fixed places (label, colour, position), or none: every sighting new.
        home = np.random.default_rng(11)
        self.home = [(bm.LABELS[int(home.integers(len(bm.LABELS)))], bm.COLORS[int(home.integers(len(bm.COLORS)))],
                      (float(home.uniform(0, 20)), float(home.uniform(0, 10)), 0.8)) for _ in range(objects)]
        self.clients = {
            "text": (client_node.create_client(SearchMemoryByText, names.MEMORY_SEARCH_TEXT), SearchMemoryByText),
            "time": (client_node.create_client(SearchMemoryByTime, names.MEMORY_SEARCH_TIME), SearchMemoryByTime),
            "position": (client_node.create_client(SearchMemoryByPosition, names.MEMORY_SEARCH_POSITION),
                         SearchMemoryByPosition),
            "scene_graph": (client_node.create_client(QueryObjects, names.GRAPH_QUERY), QueryObjects),
        }
        from rclpy.qos import QoSProfile, ReliabilityPolicy

        self.publisher = client_node.create_publisher(Observation, names.OBSERVATIONS,
                                                      QoSProfile(depth=1000, reliability=ReliabilityPolicy.RELIABLE))
        self.latencies: dict[str, list[tuple[float, float]]] = {t: [] for t in TYPES}  # (due, ms)
        self.sent: dict[str, int] = {t: 0 for t in TYPES}
        self.errors: dict[str, int] = {t: 0 for t in TYPES}
        self.published = 0
        self.sightings = 0
        self.send_late: list[float] = []  # ms from due to sent: this process's own share of a latency
        self._lock = threading.Lock()

    def wait_ready(self, timeout: float = 180.0) -> None:
        deadline = time.monotonic() + timeout
        for client, _ in self.clients.values():
            while not client.wait_for_service(timeout_sec=0.5):
                if time.monotonic() > deadline:
                    raise RuntimeError(f"{client.srv_name} never came up")

    def request(self, kind: str):
        bm, rng = self.bm, self.rng
        _, srv_type = self.clients[kind]
        label = bm.LABELS[int(rng.integers(len(bm.LABELS)))]
        if kind == "text":
            return srv_type.Request(text=f"a {bm.COLORS[int(rng.integers(len(bm.COLORS)))]} {label}", k=5)
        if kind == "time":
            from mnemo_common.ros import time_to_msg

            return srv_type.Request(use_range=False, around=time_to_msg(float(rng.uniform(0, 5 * 86400))), k=5)
        if kind == "position":
            return srv_type.Request(x=float(rng.uniform(0, 20)), y=float(rng.uniform(0, 10)), radius=2.0, k=5)
        return srv_type.Request(label=label, k=5)

    def send(self, kind: str, due: float) -> None:
        client, _ = self.clients[kind]
        self.send_late.append((time.monotonic() - due) * 1000.0)
        future = client.call_async(self.request(kind))
        self.sent[kind] += 1

        def done(f) -> None:
            ms = (time.monotonic() - due) * 1000.0
            with self._lock:
                if f.result() is None or f.result().error_code != 0:
                    self.errors[kind] += 1
                self.latencies[kind].append((due, ms))

        future.add_done_callback(done)

    def observation(self, i: int):
        from mnemo_common.ros import observation_to_msg
        from mnemo_common.types import Observation, Pose2D, Pose3D, Sighting

        bm, rng = self.bm, self.rng
        x, y = float(rng.uniform(0, 20)), float(rng.uniform(0, 10))
        if self.home:  # the three things nearest the robot, where they are (2 cm of noise)
            nearest = sorted(self.home, key=lambda o: (o[2][0] - x) ** 2 + (o[2][1] - y) ** 2)[:3]
            sightings = [Sighting(label, tuple(float(v) for v in np.asarray(at) + rng.normal(0.0, 0.02, 3)),
                                  {"color": color}) for label, color, at in nearest]
        else:
            labels = rng.choice(bm.LABELS, size=3, replace=False)
            sightings = [Sighting(str(label), (x + 1.0, y + 0.3 * j, 0.8), {"color": bm.COLORS[j]})
                         for j, label in enumerate(labels)]
        now = time.time()
        return observation_to_msg(Observation(now, Pose2D(x, y, 0.0), Pose3D((x, y, 1.2)),
                                              room=bm.ROOMS[int(x // 3.4) % len(bm.ROOMS)], sightings=sightings,
                                              seq=i))

    def run(self, duration: float, obs_rate: float, query_rate: float) -> float:
        """Publish and query on one schedule for ``duration`` s; returns the start time."""
        t0 = time.monotonic()
        next_obs, next_query, n_query = t0, t0, 0
        end = t0 + duration
        while True:
            now = time.monotonic()
            if now >= end:
                break
            if now >= next_obs:
                msg = self.observation(self.published)
                self.publisher.publish(msg)
                self.published += 1
                self.sightings += len(msg.sightings)
                next_obs += 1.0 / obs_rate
            if now >= next_query:
                self.send(TYPES[n_query % len(TYPES)], next_query)
                n_query += 1
                next_query += 1.0 / query_rate
            time.sleep(max(0.0, min(next_obs, next_query) - time.monotonic()))
        return t0

    def scene_graph_ingest(self, timeout: float = 60.0) -> tuple[int, int]:
        """(nodes, sightings integrated) of the scene graph: each integrated sighting counts once
        in the observation_count of the node it created or observed."""
        from mnemo_common import names
        from mnemo_interfaces.srv import GetSceneGraph

        deadline = time.monotonic() + timeout
        client = self.node.create_client(GetSceneGraph, names.GRAPH_GET)
        client.wait_for_service(timeout_sec=timeout)
        future = client.call_async(GetSceneGraph.Request(include_stale=True))
        while not future.done() and time.monotonic() < deadline:
            time.sleep(0.01)
        if not future.done() or future.result().error_code != 0:
            raise RuntimeError("the scene graph did not answer GetSceneGraph")
        nodes = future.result().graph.nodes
        return len(nodes), sum(n.observation_count for n in nodes)

    def sequential(self, kind: str, n: int) -> list[float]:
        """Latencies (ms) of n queries one after another (no other load from this process)."""
        out = []
        for _ in range(n):
            client, _ = self.clients[kind]
            t = time.monotonic()
            future = client.call_async(self.request(kind))
            while not future.done():
                time.sleep(0.0005)
            out.append((time.monotonic() - t) * 1000.0)
        return out


def stall_episodes(latencies: dict[str, list[tuple[float, float]]], t0: float, stall_ms: float) -> list[str]:
    """Answers later than stall_ms, grouped by overlapping waits, with the query types late in each
    (every type at once, from two server processes, points at this process or the machine)."""
    late = sorted((due - t0, ms, kind) for kind, values in latencies.items() for due, ms in values if ms > stall_ms)
    episodes: list[list] = []  # [start s, end s, worst ms, Counter of types]
    for start, ms, kind in late:
        end = start + ms / 1000.0
        if episodes and start <= episodes[-1][1] + 0.5:
            e = episodes[-1]
            e[1], e[2] = max(e[1], end), max(e[2], ms)
        else:
            e = [start, end, ms, Counter()]
            episodes.append(e)
        e[3][kind] += 1
    return [f"t={s:6.1f}-{e:6.1f} s: {sum(n.values())} answers late, worst {w:.0f} ms "
            f"({', '.join(f'{k} {c}' for k, c in sorted(n.items()))})" for s, e, w, n in episodes]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=100_000, help="records pre-filled in the store")
    parser.add_argument("--duration", type=float, default=None, help="seconds of load (default 300; --quick: 30)")
    parser.add_argument("--obs-rate", type=float, default=30.0, help="observations published per second")
    parser.add_argument("--query-rate", type=float, default=20.0, help="queries sent per second (mixed types)")
    parser.add_argument("--stall-ms", type=float, default=250.0, help="an answer later than this is a stall")
    parser.add_argument("--quick", action="store_true", help="20k records, 30 s (unless --duration says otherwise)")
    parser.add_argument("--drain", type=float, default=60.0,
                        help="seconds to wait after the load for the answers still due (those left count as unanswered)")
    parser.add_argument("--objects", type=int, default=0,
                        help="sightings of a home of this many things at fixed places (default 0: every sighting a "
                             "new thing at a new place, so the scene graph grows by up to 3 nodes a frame)")
    parser.add_argument("--data-dir", type=Path, default=None, help="reuse a pre-filled store here")
    parser.add_argument("--scene-graph-path", default="",
                        help="directories put ahead of the scene-graph node's PYTHONPATH (e.g. another checkout's "
                             "src/mnemo_scene_graph, to measure its node against this one)")
    parser.add_argument("--latencies-out", type=Path, default=None,
                        help="write every answer's (type, due on the monotonic clock, ms) here as JSON")
    parser.add_argument("--build-during", action="store_true",
                        help="pre-fill a segment of unindexed records too: the node builds an index while the load runs")
    args = parser.parse_args(argv)
    if args.quick:
        args.records = 20_000
    if args.duration is None:
        args.duration = 30.0 if args.quick else 300.0

    import rclpy

    from mnemo_common import names
    from mnemo_common.processes import NodeProcess, ros_env, stop_all, unique_domain_id

    tmp = Path(tempfile.mkdtemp(prefix="mnemo_load_"))
    data_dir = args.data_dir or tmp / "data"
    if not (data_dir / "memory").exists():
        prefill(data_dir, args.records, args.build_during)
    domain = unique_domain_id()
    env = ros_env(domain)
    graph_env = {**env, "PYTHONPATH": os.pathsep.join(filter(None, (args.scene_graph_path, env["PYTHONPATH"])))}
    procs = [NodeProcess("mnemo_memory.node", names.MEMORY_NODE, env=env, log_dir=tmp / "log",
                         params={"data_dir": str(data_dir), "min_interval": 0.0}),
             NodeProcess("mnemo_scene_graph.node", names.SCENE_GRAPH_NODE, env=graph_env, log_dir=tmp / "log",
                         params={"data_dir": str(tmp / "graph"), "input_mode": "observations"})]
    os.environ.update({"ROS_DOMAIN_ID": str(domain), "ROS_AUTOMATIC_DISCOVERY_RANGE": "LOCALHOST"})
    context = rclpy.Context()
    rclpy.init(context=context, domain_id=domain)
    node = rclpy.create_node("bench_load", context=context)
    executor = rclpy.executors.MultiThreadedExecutor(num_threads=2, context=context)
    executor.add_node(node)
    spin = threading.Thread(target=executor.spin, daemon=True)
    spin.start()
    try:
        load = Load(node, executor, bench_memory_module(), args.objects)
        load.wait_ready()
        deadline = time.monotonic() + 180.0
        while "positions in RAM" not in procs[0].log() and time.monotonic() < deadline:
            time.sleep(0.2)
        load.sequential("text", 20)  # warm: the embedding model's first calls, discovery
        idle = load.sequential("text", 200)
        print(f"idle: text query over DDS one at a time, {args.records:,} records: p50 {np.percentile(idle, 50):.2f} ms, "
              f"p99 {np.percentile(idle, 99):.2f} ms; load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs",
              flush=True)
        t0 = load.run(args.duration, args.obs_rate, args.query_rate)
        drain_end = time.monotonic() + args.drain  # a query stuck behind a stall is answered late, not dropped
        while time.monotonic() < drain_end and sum(map(len, load.latencies.values())) < sum(load.sent.values()):
            time.sleep(0.1)
        print(f"\n{args.duration:.0f} s at {args.obs_rate:g} observations/s in and {args.query_rate:g} queries/s, "
              f"{args.records:,} records at the start, {load.published} published; "
              f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs\n")
        print("| query | p50 ms | p95 ms | p99 ms | max ms | n | errors | unanswered |\n|---|---|---|---|---|---|---|---|")
        for kind in TYPES:
            print(f"| {kind} {percentiles([ms for _, ms in load.latencies[kind]])} {load.errors[kind]} "
                  f"| {load.sent[kind] - len(load.latencies[kind])} |")
        print(f"\nthis process sent the queries late by p50 {np.percentile(load.send_late, 50):.1f} ms, "
              f"p99 {np.percentile(load.send_late, 99):.1f} ms, max {max(load.send_late):.1f} ms (within the latencies)")
        if args.latencies_out:
            args.latencies_out.write_text(json.dumps({"t0": t0, "latencies": load.latencies}))
        nodes, integrated = load.scene_graph_ingest()
        print(f"\nscene graph: {integrated} of the {load.sightings} sightings published integrated, {nodes} nodes")
        episodes = stall_episodes(load.latencies, t0, args.stall_ms)
        print(f"\nstalls (answers later than {args.stall_ms:.0f} ms): {len(episodes)}")
        for line in episodes:
            print("  " + line)
        log = procs[0].log()
        print(f"memory node log: {sum('optimiz' in l.lower() or 'index' in l.lower() for l in log.splitlines())} "
              f"index lines; logs in {tmp / 'log'}")
    finally:
        executor.shutdown(timeout_sec=2.0)
        node.destroy_node()
        rclpy.try_shutdown(context=context)
        stop_all(procs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
