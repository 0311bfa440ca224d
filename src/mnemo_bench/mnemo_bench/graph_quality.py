"""How well the scene graph keeps identity under honest perception, over a scenario's rendered patrols.

Every patrol frame is rendered and perceived; the simulator's instance ids are read here, for
scoring only, and blanked before the detections reach the graph (what the honest mode does). Each
detection's node is then compared with the object it really was:

- an object seen at least ``min_sightings`` times should end in exactly one node (after merges);
  ``duplicates`` counts those spread over several nodes;
- ``merges`` counts nodes that took detections of more than one object;
- ``median_error`` is the distance between a current node's position and its object's true centre,
  at the end of each patrol (the graph a task starts from), median over nodes and patrols;
- ``colour_agreement``: share of those objects whose node's measured colour is the authored one
  (objects authored with a colour name perception uses).

``python -m mnemo_bench.graph_quality [SCENARIO...] [--every N]`` prints one row per scenario.
"""
from __future__ import annotations

import argparse
import math
import sys
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field, replace
from typing import Any, Optional

import numpy as np


@dataclass
class GraphQuality:
    scenario: str
    frames: int
    objects: int  # objects seen at least min_sightings times
    one_node: int  # of those, how many ended in exactly one node
    duplicates: int
    merges: int
    median_error: Optional[float]  # m
    p90_error: Optional[float]
    colour_agreement: Optional[float]
    seconds: float
    duplicated: dict[str, list[str]] = field(default_factory=dict)  # object -> its nodes
    merged: dict[str, dict[str, int]] = field(default_factory=dict)  # node -> {object: detections}

    def row(self) -> str:
        err = lambda v: "-" if v is None else f"{100 * v:.1f} cm"  # noqa: E731
        return (f"| {self.scenario} | {self.frames} | {self.objects} | {self.one_node} | {self.duplicates} | "
                f"{self.merges} | {err(self.median_error)} | {err(self.p90_error)} | "
                f"{'-' if self.colour_agreement is None else f'{self.colour_agreement:.2f}'} | {self.seconds:.0f} s |")


HEADER = ["| scenario | frames | objects seen >= 3x | exactly one node | duplicates | merges | median centroid error "
          "| p90 | colour as authored | time |", "|---|---|---|---|---|---|---|---|---|---|"]


def measure(scenario: Any, every: int = 1, min_sightings: int = 3, seed: Optional[int] = None) -> GraphQuality:
    from mnemo_perception.colors import COLOR_NAMES
    from mnemo_scene_graph.graph import SceneGraph
    from mnemo_sim.tasks import TaskRunner

    from mnemo_bench.realistic import RealisticPerceiver, declare_map_fixtures, integrate

    t0 = time.perf_counter()
    runner = TaskRunner(scenario, seed)
    perceiver = RealisticPerceiver(scenario, every=every, honest=False)  # ids for scoring, blanked below
    graph = SceneGraph()
    declare_map_fixtures(graph, scenario)
    sightings: Counter = Counter()
    node_objects: dict[str, Counter] = defaultdict(Counter)
    errors: list[float] = []
    frames = 0
    try:
        for end in sorted({p.end_t for p in scenario.patrol}):
            for obs in runner.run_patrols(end):
                perceived = perceiver.perceive(runner.world, obs, patrol=True)
                if perceived is None:
                    continue
                frames += 1
                truth = [d.instance_id for d in perceived.detections]
                # The frame's view goes with it: the graph counts what the frame showed empty.
                blind = replace(perceived, detections=[replace(d, instance_id="") for d in perceived.detections])
                integrate(graph, blind)
                for oid, d in zip(truth, blind.detections):
                    if oid and d.node_id:
                        sightings[oid] += 1
                        node_objects[d.node_id][oid] += 1
            errors += _errors(graph, node_objects, runner.world)
    finally:
        perceiver.close()
    final: dict[str, Counter] = defaultdict(Counter)  # node after merges -> object -> detections
    for nid, objs in node_objects.items():
        final[graph.resolve(nid)].update(objs)
    nodes_of: dict[str, set[str]] = defaultdict(set)
    for nid, objs in final.items():
        for oid in objs:
            nodes_of[oid].add(nid)
    counted = [o for o, n in sightings.items() if n >= min_sightings]
    duplicated = {o: sorted(nodes_of[o]) for o in counted if len(nodes_of[o]) > 1}
    merged = {nid: dict(objs) for nid, objs in final.items() if len(objs) > 1}
    colours = [(scenario.object_by_id[o].attributes["color"], graph.get(n).prop("color"))
               for o in counted if scenario.object_by_id[o].attributes.get("color") in COLOR_NAMES
               for n in nodes_of[o] if n in graph]
    agreement = sum(a == b for a, b in colours) / len(colours) if colours else None
    return GraphQuality(scenario.name, frames, len(counted), sum(len(nodes_of[o]) == 1 for o in counted),
                        len(duplicated), len(merged), _quantile(errors, 0.5), _quantile(errors, 0.9), agreement,
                        time.perf_counter() - t0, duplicated, merged)


def _errors(graph: Any, node_objects: dict[str, Counter], world: Any) -> list[float]:
    """Distance from each current object node to the true centre of the object most of its detections were."""
    out = []
    for node in graph.nodes(kind="object", include_stale=False):
        objs = Counter()
        for nid, counts in node_objects.items():
            if graph.resolve(nid) == node.id:
                objs.update(counts)
        if not objs:
            continue
        try:
            truth = world.object_position(objs.most_common(1)[0][0])
        except KeyError:  # no longer in the world
            continue
        out.append(math.dist(node.position, truth))
    return out


def _quantile(values: list[float], q: float) -> Optional[float]:
    return float(np.quantile(values, q)) if values else None


def main(argv: Optional[list[str]] = None) -> int:
    p = argparse.ArgumentParser(prog="python -m mnemo_bench.graph_quality", description=__doc__.split("\n\n")[0])
    p.add_argument("scenarios", nargs="*", help="scenario files or shipped names (default: every shipped one)")
    p.add_argument("--every", type=int, default=1, help="perceive every Nth patrol frame (default: every one)")
    p.add_argument("--min-sightings", type=int, default=3)
    args = p.parse_args(argv)
    from mnemo_common.embedding import get_embedder
    from mnemo_sim.scenario import load_scenario

    from mnemo_bench.cli import resolve_scenario
    from mnemo_bench.runner import default_scenarios

    get_embedder()  # torch before the renderer's GL context (see runner.run_suite)
    paths = [resolve_scenario(s) for s in args.scenarios] or default_scenarios()
    print("\n".join(HEADER))
    for path in paths:
        q = measure(load_scenario(path), every=args.every, min_sightings=args.min_sightings)
        print(q.row(), flush=True)
        for oid, nodes in q.duplicated.items():
            print(f"  duplicate: {oid} -> {', '.join(nodes)}", file=sys.stderr)
        for nid, objs in q.merged.items():
            print(f"  merge: {nid} <- {objs}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
