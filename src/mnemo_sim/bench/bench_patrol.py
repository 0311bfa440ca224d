"""Symbolic patrol throughput on the large home: vectorised patrol vs a naive per-object Python loop.

Run: python src/mnemo_sim/bench/bench_patrol.py [--days N]
Both produce the same visible sets (checked); the baseline evaluates the visibility rule object by
object with math.* for every observation and builds the Observation (object sightings and caption,
no fixture sightings), as a straightforward implementation would.
"""
from __future__ import annotations

import argparse
import math
import time

from mnemo_sim import scenarios_dir
from mnemo_common.types import Observation, Pose2D, Sighting
from mnemo_sim.patrol import DEFAULT_CAMERA, camera_pose, caption_for, patrol_poses, patrol_segment
from mnemo_sim.scenario import load_scenario
from mnemo_sim.world import World


def naive_visible(world: World, x: float, y: float, yaw: float, cam=DEFAULT_CAMERA) -> list[str]:
    sc = world.scenario
    room = sc.room_at(x, y)
    cx, cy = x + cam.forward * math.cos(yaw), y + cam.forward * math.sin(yaw)
    out = []
    for oid in world.truth_present_objects():
        fid = world.truth_location(oid)
        if fid == "robot":
            continue
        f = sc.fixture_by_id[fid]
        if f.room != room or (f.is_container and not world.is_open(fid)):
            continue
        ox, oy, oz = world.object_position(oid)
        dist = math.hypot(ox - cx, oy - cy)
        bearing = math.remainder(math.atan2(oy - cy, ox - cx) - yaw, 2 * math.pi)
        if dist > cam.range or abs(bearing) > cam.hfov / 2:
            continue
        elevation = math.atan2(oz - cam.height, max(dist * math.cos(bearing), 1e-6)) + cam.pitch
        if abs(elevation) <= cam.vfov / 2:
            out.append(oid)
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--days", type=int, default=6)
    args = parser.parse_args()
    scenario = load_scenario(scenarios_dir() / "large_home.yaml")
    segments = scenario.patrol[: args.days]

    world = World(scenario)
    t0 = time.perf_counter()
    fast_sets = []
    for seg in segments:
        for obs in patrol_segment(world, seg):
            fast_sets.append(sorted(s.object_id for s in obs.sightings if s.kind == "object"))
    fast_s = time.perf_counter() - t0

    world = World(scenario)
    t0 = time.perf_counter()
    naive_sets = []
    for seg in segments:
        times, xs, ys, yaws = patrol_poses(scenario, seg)
        for t, x, y, yaw in zip(times, xs, ys, yaws):
            world.advance_to(float(t))
            visible = naive_visible(world, float(x), float(y), float(yaw))
            sightings = [Sighting(scenario.object_by_id[o].label, world.object_position(o),
                                  dict(scenario.object_by_id[o].attributes), "object", o, world.truth_location(o),
                                  world.object_relation(o)) for o in visible]
            pose = Pose2D(float(x), float(y), float(yaw))
            Observation(float(t), pose, camera_pose(pose), scenario.room_at(pose.x, pose.y), sightings,
                        caption_for(scenario.room_at(pose.x, pose.y), sightings))
            naive_sets.append(sorted(visible))
    naive_s = time.perf_counter() - t0
    n = len(fast_sets)
    assert fast_sets == naive_sets, "vectorised and naive visibility disagree"
    sightings = sum(len(s) for s in fast_sets)
    print(f"large_home: {len(scenario.objects)} objects, {len(scenario.fixtures)} fixtures, {len(segments)} days, "
          f"{n} observations, {sightings / n:.2f} visible objects per observation")
    print(f"{'method':<46} {'seconds':>8} {'obs/s':>10}")
    print(f"{'patrol_segment (vectorised, full Observations)':<46} {fast_s:>8.3f} {n / fast_s:>10.0f}")
    print(f"{'naive per-object loop (objects only, no fixtures)':<46} {naive_s:>8.3f} {n / naive_s:>10.0f}")
    print(f"speed-up: {naive_s / fast_s:.1f}x   target >= 5,000 obs/s: {'met' if n / fast_s >= 5000 else 'NOT met'}")


if __name__ == "__main__":
    main()
