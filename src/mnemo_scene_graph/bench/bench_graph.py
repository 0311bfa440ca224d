"""Scene-graph association quality and integration throughput on the simulator's patrols.

    python src/mnemo_scene_graph/bench/bench_graph.py [--scenario FILE ...] [--noise 0.015] [--miss 0.05]

For every scenario (the repo's scenarios, plus a `dense` variant of the first one with look-alike
objects side by side and objects moved during the patrol hours) the patrol's oracle observations
are generated once by mnemo_sim.patrol and integrated by:

- `oracle`: SceneGraph.integrate_observation on the sightings as the simulator gives them
  (exact positions, supports given), with the looked-at test for staleness;
- `perception`: SceneGraph.integrate_detections on detections made from the same sightings as a
  depth camera would give them: centroid noise (--noise, m, per axis), 3D boxes from the object
  sizes, missed detections (--miss), fixtures as boxed detections, no supports, no ids;
- `baseline (A.3 rule)`: the same detections, associated by label + proximity only (0.5 m gate,
  no colour, no staleness/move reasoning): MessyMem's appendix rule on its own.

Instance ids ride along for scoring only. Metrics: objects observed >= 3 times that own exactly
one node, duplicated objects (one object, several nodes), merged nodes (one node, several objects),
median centroid error of each node against its object's true position when last seen, and
integration throughput (frames/s and items/s, timing only the graph call).
"""
from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import yaml

from mnemo_common.types import Detection, Observation
from mnemo_scene_graph.geometry import frustum_visible_fn
from mnemo_scene_graph.graph import GraphConfig, SceneGraph

REPO = Path(__file__).resolve().parents[3]


def scenario_files() -> list[Path]:
    return sorted((REPO / "src" / "mnemo_sim" / "scenarios").glob("*.yaml"))


def dense_variant(path: Path) -> dict:
    """The scenario with look-alikes side by side (same label, some the same colour) and moves
    that happen while the robot patrols."""
    data = yaml.safe_load(path.read_text())
    data["name"] = data["name"] + "_dense"
    surfaces = [f for f in data["fixtures"] if f.get("kind") == "surface"]
    by_label = defaultdict(list)
    for obj in data["objects"]:
        by_label[obj["class"]].append(obj)
    extra = []
    for i, (label, objs) in enumerate(sorted(by_label.items())):
        proto = objs[0]
        for k in range(2):
            colour = proto.get("attributes", {}).get("color", "") if k == 0 else ["white", "purple"][i % 2]
            where = proto["at"] if proto["at"] and k == 0 else surfaces[(i + k) % len(surfaces)]["id"]
            if any(f["id"] == where and f.get("kind") == "container" for f in data["fixtures"]):
                where = surfaces[i % len(surfaces)]["id"]
            extra.append({"id": f"{label.replace(' ', '_')}_x{k}", "class": label, "size": proto["size"],
                          "attributes": {"color": colour} if colour else {}, "at": where})
    data["objects"] = data["objects"] + extra
    moves = []
    patrol_days = sorted({p["day"] for p in data.get("patrol", [])})
    for n, obj in enumerate(extra[: 2 * len(patrol_days)]):
        day = patrol_days[n % len(patrol_days)]
        to = surfaces[(n * 3 + 1) % len(surfaces)]["id"]
        moves.append({"day": day, "time": f"{11 + (n % 5):02d}:{(17 * n) % 60:02d}", "move": obj["id"], "to": to})
    data["timeline"] = sorted((data.get("timeline") or []) + moves,
                              key=lambda e: (e["day"], e["time"]))
    data["tasks"] = []
    return data


@dataclass
class Frames:
    name: str
    observations: list[Observation]
    object_sizes: dict[str, tuple[float, float, float]]
    fixture_boxes: dict[str, tuple[tuple[float, float, float], tuple[float, float, float]]]


def patrol_frames(scenario) -> Frames:
    from mnemo_sim.patrol import patrol_segment
    from mnemo_sim.world import World

    world = World(scenario)
    observations = [obs for segment in scenario.patrol for obs in patrol_segment(world, segment)]
    boxes = {}
    for f in scenario.fixtures:
        xy = np.array(f.footprint())
        boxes[f.id] = ((float(xy[:, 0].min()), float(xy[:, 1].min()), 0.0),
                       (float(xy[:, 0].max()), float(xy[:, 1].max()), float(f.size[2])))
    return Frames(scenario.name, observations, {o.id: tuple(o.size) for o in scenario.objects}, boxes)


def to_detections(obs: Observation, frames: Frames, rng: np.random.Generator, noise: float, miss: float
                  ) -> list[Detection]:
    out = []
    for s in obs.sightings:
        if s.kind == "fixture":
            lo, hi = frames.fixture_boxes[s.object_id]
            centre = tuple((a + b) / 2 for a, b in zip(lo, hi))
            out.append(Detection(s.label, 0.9, kind="fixture", centroid=centre, box_min=lo, box_max=hi,
                                 attributes={k: v for k, v in s.attributes.items() if k == "color"}))
            continue
        if rng.random() < miss:
            continue
        c = np.asarray(s.position) + rng.normal(0.0, noise, 3)
        half = np.asarray(frames.object_sizes[s.object_id]) / 2 + np.abs(rng.normal(0.0, noise / 2, 3))
        out.append(Detection(s.label, 0.9, centroid=tuple(c), box_min=tuple(c - half), box_max=tuple(c + half),
                             attributes={k: v for k, v in s.attributes.items() if k == "color"},
                             instance_id=s.object_id))
    return out


def camera_visible_fn(obs: Observation):
    from mnemo_sim.patrol import DEFAULT_CAMERA as cam

    return frustum_visible_fn(obs.camera_pose, cam.hfov, cam.vfov, cam.range, margin=0.85)


def run(frames: Frames, method: str, noise: float, miss: float, seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    if method == "baseline (A.3 rule)":
        graph = SceneGraph(GraphConfig(min_match_radius=0.5, size_match_factor=0.0, color_veto=False,
                                       merge_on_stale=False))
    elif method == "perception":
        graph = SceneGraph(GraphConfig(stale_after_misses=2))
    else:
        graph = SceneGraph(GraphConfig())
    assigned: list[tuple[str, str]] = []  # (instance id, node id) of every object item
    sightings_of: Counter = Counter()
    truth_last: dict[str, tuple[float, tuple]] = {}
    elapsed, items = 0.0, 0
    for obs in frames.observations:
        visible = None if method.startswith("baseline") else camera_visible_fn(obs)
        for s in obs.sightings:
            if s.kind == "object":
                sightings_of[s.object_id] += 1
        if method == "oracle":
            t0 = time.perf_counter()
            result = graph.integrate_observation(obs, visible_fn=visible)
            elapsed += time.perf_counter() - t0
            iids = [s.object_id if s.kind == "object" else "" for s in obs.sightings]
            positions = [s.position for s in obs.sightings]
        else:
            dets = to_detections(obs, frames, rng, noise, miss)
            t0 = time.perf_counter()
            result = graph.integrate_detections(dets, obs.stamp, room=obs.room, visible_fn=visible)
            elapsed += time.perf_counter() - t0
            iids = [d.instance_id for d in dets]
            truth = {s.object_id: s.position for s in obs.sightings}
            positions = [truth.get(i, (0, 0, 0)) for i in iids]
        items += len(iids)
        for iid, node_id, pos in zip(iids, result.node_ids, positions):
            if iid and node_id:
                assigned.append((iid, node_id))
                truth_last[iid] = (obs.stamp, pos)
    nodes_of, objects_of = defaultdict(set), defaultdict(set)
    for iid, node_id in assigned:
        node_id = graph.resolve(node_id)
        nodes_of[iid].add(node_id)
        objects_of[node_id].add(iid)
    eligible = [i for i, n in sightings_of.items() if n >= 3]
    exactly_one = sum(1 for i in eligible if len(nodes_of[i]) == 1)
    duplicated = sum(1 for i in nodes_of if len(nodes_of[i]) > 1)
    merged = sum(1 for n in objects_of if len(objects_of[n]) > 1)
    errors = []
    for node_id, iids in objects_of.items():
        if len(iids) != 1 or node_id not in graph:
            continue
        node, (stamp, true_pos) = graph.get(node_id), truth_last[next(iter(iids))]
        if abs(node.last_seen - stamp) < 1e-6:
            errors.append(float(np.linalg.norm(np.asarray(node.position) - np.asarray(true_pos))))
    return {
        "frames": len(frames.observations), "items": items, "objects": len(eligible),
        "exactly_one": exactly_one / len(eligible) if eligible else float("nan"),
        "duplicated": duplicated, "merged": merged,
        "err_median": statistics.median(errors) if errors else float("nan"),
        "fps": len(frames.observations) / elapsed if elapsed else float("inf"),
        "items_per_s": items / elapsed if elapsed else float("inf"),
        "nodes": len(graph.nodes(kind="object")), "stale": sum(1 for n in graph.nodes() if n.state != "current"),
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scenario", action="append", type=Path, help="scenario YAML (default: the repo's)")
    parser.add_argument("--noise", type=float, default=0.015, help="centroid noise per axis (m) for perception")
    parser.add_argument("--miss", type=float, default=0.05, help="probability of a missed object detection")
    parser.add_argument("--no-dense", action="store_true", help="skip the dense variant")
    args = parser.parse_args(argv)

    from mnemo_sim.scenario import load_scenario, parse_scenario

    paths = args.scenario or scenario_files()
    scenarios = [load_scenario(p) for p in paths]
    if not args.no_dense and paths:
        scenarios.append(parse_scenario(dense_variant(Path(paths[0])), source="dense variant"))
    methods = ("oracle", "perception", "baseline (A.3 rule)")
    header = (f"{'scenario':<26} {'method':<20} {'frames':>6} {'objs>=3':>7} {'exactly1':>8} {'dup':>4} "
              f"{'merged':>6} {'err_med_cm':>10} {'frames/s':>9} {'items/s':>9} {'nodes':>5} {'stale':>5}")
    print(header)
    print("-" * len(header))
    ok = True
    for scenario in scenarios:
        frames = patrol_frames(scenario)
        rows = {}
        for method in methods:
            r = rows[method] = run(frames, method, args.noise, args.miss)
            print(f"{scenario.name:<26} {method:<20} {r['frames']:>6} {r['objects']:>7} {r['exactly_one']:>8.1%} "
                  f"{r['duplicated']:>4} {r['merged']:>6} {100 * r['err_median']:>10.2f} {r['fps']:>9.0f} "
                  f"{r['items_per_s']:>9.0f} {r['nodes']:>5} {r['stale']:>5}")
            if method != methods[-1]:
                ok &= r["exactly_one"] == 1.0 and r["duplicated"] == 0 and r["merged"] == 0 and r["err_median"] <= 0.05
        base, ours = rows[methods[-1]], rows["perception"]
        print(f"{'':<26} perception vs baseline: exactly-one {ours['exactly_one']:.1%} vs {base['exactly_one']:.1%}, "
              f"dup {ours['duplicated']} vs {base['duplicated']}, merged {ours['merged']} vs {base['merged']}, "
              f"speed x{ours['fps'] / base['fps']:.2f}")
    print("targets (oracle, perception): exactly-one 100%, dup 0, merged 0, median error <= 5 cm:",
          "MET" if ok else "NOT MET")
    return 0


if __name__ == "__main__":
    sys.exit(main())
