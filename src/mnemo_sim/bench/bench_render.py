"""Rendered frames per second for RGB + depth + segmentation at 640x480, against baselines
measured in the same run.

    python src/mnemo_sim/bench/bench_render.py [--scenario FILE] [--frames N]

Rows:
- ``reused renderer, RGB+depth+seg``: what the simulator node does (one GL context, one
  MjrContext; RGB+depth in one pass, segmentation in a second);
- ``reused renderer, RGB+depth``: segmentation off (the cost of the second pass);
- ``fresh renderer per frame``: a naive baseline that builds the model and GL context each frame;
- ``mujoco.Renderer, 3 passes``: MuJoCo's stock renderer, one render call each for RGB,
  depth and segmentation.
Camera poses walk the scenario's patrol so frames vary; the world is synced every frame.
"""
from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

from mnemo_sim import scenarios_dir
from mnemo_sim.camera import optical_pose_from_look
from mnemo_sim.render import Renderer
from mnemo_sim.scenario import load_scenario
from mnemo_sim.world import World


def camera_poses(scenario, n: int) -> list:
    """Poses spread over the rooms, turning, at a head camera's height and tilt."""
    poses = []
    for i in range(n):
        room = scenario.rooms[i % len(scenario.rooms)]
        x0, y0, x1, y1 = room.rect
        frac = (i * 0.618) % 1.0
        x, y = x0 + 0.3 + (x1 - x0 - 0.6) * frac, y0 + 0.3 + (y1 - y0 - 0.6) * (1 - frac)
        poses.append(optical_pose_from_look((x, y, 1.3), 2 * math.pi * ((i * 0.381) % 1.0), 0.35))
    return poses


def run(label: str, fn, poses) -> tuple[str, float]:
    fn(poses[0])  # warm up
    start = time.perf_counter()
    for pose in poses:
        fn(pose)
    return label, len(poses) / (time.perf_counter() - start)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scenario", type=Path, default=scenarios_dir() / "example_apartment.yaml")
    parser.add_argument("--frames", type=int, default=100)
    parser.add_argument("--width", type=int, default=640)
    parser.add_argument("--height", type=int, default=480)
    args = parser.parse_args(argv)
    scenario = load_scenario(args.scenario)
    world = World(scenario)
    poses = camera_poses(scenario, args.frames)
    w, h = args.width, args.height
    rows = []

    renderer = Renderer(scenario, w, h)

    def full(pose):
        renderer.sync(world)
        frame = renderer.render(pose)
        assert frame.seg.shape == (h, w)

    def no_seg(pose):
        renderer.sync(world)
        renderer.render(pose, segmentation=False)

    rows.append(run("reused renderer, RGB+depth+seg", full, poses))
    rows.append(run("reused renderer, RGB+depth", no_seg, poses))
    renderer.close()

    def fresh(pose):
        with Renderer(scenario, w, h) as r:
            r.sync(world)
            r.render(pose)

    rows.append(run("fresh renderer per frame", fresh, poses[: max(5, args.frames // 10)]))

    import mujoco

    stock = Renderer(scenario, w, h)  # for its model and camera placement only
    stock.sync(world)
    model, data = stock.model, stock.data
    mj = mujoco.Renderer(model, h, w)
    from mnemo_sim.camera import mujoco_camera_quat

    cam_mocap = int(model.body_mocapid[model.body("robot_camera").id])

    def three_pass(pose):
        data.mocap_pos[cam_mocap] = pose.position
        data.mocap_quat[cam_mocap] = mujoco_camera_quat(pose)
        mujoco.mj_kinematics(model, data)
        mujoco.mj_camlight(model, data)
        mj.update_scene(data, "robot_camera")
        mj.render()
        mj.enable_depth_rendering()
        mj.render()
        mj.disable_depth_rendering()
        mj.enable_segmentation_rendering()
        mj.render()
        mj.disable_segmentation_rendering()

    rows.append(run("mujoco.Renderer, 3 passes", three_pass, poses))
    mj.close()
    stock.close()

    base = rows[0][1]
    print(f"scenario {scenario.name}: {len(scenario.fixtures)} fixtures, {len(scenario.objects)} objects; "
          f"{w}x{h}, {args.frames} frames")
    print(f"{'configuration':<34} {'frames/s':>9} {'vs node path':>13}")
    for label, fps in rows:
        print(f"{label:<34} {fps:9.1f} {fps / base:12.2f}x")
    target = 20.0
    print(f"target >= {target:.0f} frames/s for RGB+depth+seg: {'met' if base >= target else 'NOT met'}")
    return 0 if np.isfinite(base) else 1


if __name__ == "__main__":
    sys.exit(main())
