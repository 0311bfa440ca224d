"""Perception throughput at 640x480: ground-truth instances -> 3D detections (+ scene-graph association).

    python src/mnemo_perception/bench/bench_perception.py [--scenario FILE] [--frames 60] [--synthetic]

Frames are rendered with MuJoCo (mnemo_sim.render) along the scenario's first patrol, or, with
--synthetic or where no GL context can be made, ray-cast synthetic scenes of 15 boxes. Rendering
is not timed. Timed, per frame, excluding any neural model:

- `numpy+open3d (ours)`: masks from the segmentation, vectorised deprojection, open3d statistical
  outlier removal on <= 500 points per instance, box fitting, colour attributes;
- `numpy only (ours)`: the same with the numpy median/MAD outlier filter;
- `+ association`: the open3d path plus SceneGraph.integrate_detections (when mnemo_scene_graph exists);
- `open3d everything (baseline)`: a full-frame open3d RGBD point cloud, per-instance selection,
  statistical outlier removal on every point, open3d boxes;
- `python loop (baseline)`: per-pixel Python deprojection (2 frames only: it is slow).

Quality (rendered frames only): median distance from each detection's centroid to its object's
true centre (the camera sees a surface, so up to half an object's depth is expected), and with
the scene graph: objects seen >= 3 times with exactly one node, duplicated objects and merged nodes.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np

from mnemo_common.types import Detection
from mnemo_perception.backends import GroundTruthDetector
from mnemo_perception.colors import color_attributes
from mnemo_perception.deproject import DeprojectionConfig, deproject_instances, mask_box, quaternion_matrix
from mnemo_perception.frame import Frame, Intrinsics, Segmentation
from mnemo_perception.synthetic import default_intrinsics, look_at, random_scene, render

REPO = Path(__file__).resolve().parents[3]


def rendered_frames(scenario_path: Path, n: int) -> tuple[list[Frame], list[dict[str, tuple]]]:
    """Frames along the first patrol, and per frame the true centre of every object id."""
    from mnemo_sim.patrol import DEFAULT_CAMERA, patrol_segment
    from mnemo_sim.render import Renderer
    from mnemo_sim.scenario import load_scenario
    from mnemo_sim.world import World

    scenario = load_scenario(scenario_path)
    world = World(scenario)
    cam = DEFAULT_CAMERA
    renderer = Renderer(scenario, cam.width, cam.height_px, float(np.degrees(cam.vfov)))
    frames, truths = [], []
    for obs in patrol_segment(world, scenario.patrol[0]):
        renderer.sync(world)
        f = renderer.render(obs.camera_pose, stamp=obs.stamp)
        values = sorted(f.seg_ids)
        seg = Segmentation(f.seg, values, [f.seg_ids[v] for v in values], [f.labels[v] for v in values],
                           [f.kinds[v] for v in values])
        k = f.intrinsics
        frames.append(Frame(stamp=obs.stamp, rgb=f.rgb, depth=f.depth,
                            intrinsics=Intrinsics(k.fx, k.fy, k.cx, k.cy, k.width, k.height),
                            camera_pose=obs.camera_pose, segmentation=seg))
        truths.append({o.id: world.object_position(o.id) for o in scenario.objects
                       if world.truth_location(o.id) not in (None, "robot")})
        if len(frames) >= n:
            break
    return frames, truths


def synthetic_frames(n: int) -> list[Frame]:
    intr = default_intrinsics()
    return [render(random_scene(15, seed=i), look_at((0.0, 0.0, 1.2), (3.0, 0.0, 0.2)), intr, stamp=float(i))
            for i in range(n)]


def detect_ours(frame: Frame, config: DeprojectionConfig) -> list[Detection]:
    instances = GroundTruthDetector().detect(frame.rgb, frame.depth, {"segmentation": frame.segmentation})
    return deproject_instances(frame.rgb, frame.depth, frame.intrinsics, frame.camera_pose, instances, config)


def detect_open3d_everything(frame: Frame) -> list[Detection]:
    """Baseline: open3d builds the whole cloud; each instance is selected, cleaned and boxed in open3d."""
    import open3d as o3d

    k = frame.intrinsics
    depth = np.nan_to_num(frame.depth, nan=0.0).astype(np.float32)
    rgbd = o3d.geometry.RGBDImage.create_from_color_and_depth(
        o3d.geometry.Image(np.ascontiguousarray(frame.rgb)), o3d.geometry.Image(depth), depth_scale=1.0,
        depth_trunc=10.0, convert_rgb_to_intensity=False)
    pinhole = o3d.camera.PinholeCameraIntrinsic(k.width, k.height, k.fx, k.fy, k.cx, k.cy)
    extrinsic = np.eye(4)
    rot = quaternion_matrix(frame.camera_pose.orientation)
    extrinsic[:3, :3] = rot.T
    extrinsic[:3, 3] = -rot.T @ np.asarray(frame.camera_pose.position)
    cloud = o3d.geometry.PointCloud.create_from_rgbd_image(rgbd, pinhole, extrinsic, project_valid_depth_only=False)
    seg = frame.segmentation
    flat = seg.mask.reshape(-1)
    valid = (depth.reshape(-1) > 0)
    out = []
    for value, label, kind, iid in zip(seg.values, seg.labels, seg.kinds, seg.instance_ids):
        index = np.flatnonzero((flat == value) & valid)
        if len(index) < 10:
            continue
        part = cloud.select_by_index(index.tolist())
        part, _ = part.remove_statistical_outlier(nb_neighbors=16, std_ratio=2.0)
        box = part.get_axis_aligned_bounding_box()
        mask = seg.mask == value
        x0, y0, x1, y1 = mask_box(mask)
        out.append(Detection(label=label, score=1.0, kind=kind, box_2d=(x0, y0, x1, y1), mask_area=int(mask.sum()),
                             centroid=tuple(np.asarray(part.get_center())), box_min=tuple(box.min_bound),
                             box_max=tuple(box.max_bound), attributes=color_attributes(frame.rgb[mask]),
                             instance_id=iid))
    return out


def detect_python_loop(frame: Frame) -> list[Detection]:
    """Baseline: per-pixel Python deprojection, mean centroid, min/max box."""
    k, seg = frame.intrinsics, frame.segmentation
    rot = quaternion_matrix(frame.camera_pose.orientation)
    pos = np.asarray(frame.camera_pose.position)
    points: dict[int, list] = defaultdict(list)
    for v in range(k.height):
        for u in range(k.width):
            value = int(seg.mask[v, u])
            z = float(frame.depth[v, u])
            if value < 0 or not (z > 0.05):
                continue
            p = rot @ np.array([(u - k.cx) * z / k.fx, (v - k.cy) * z / k.fy, z]) + pos
            points[value].append(p)
    out = []
    for value, label, iid in zip(seg.values, seg.labels, seg.instance_ids):
        if len(points[value]) >= 10:
            p = np.array(points[value])
            out.append(Detection(label=label, score=1.0, centroid=tuple(p.mean(0)), box_min=tuple(p.min(0)),
                                 box_max=tuple(p.max(0)), instance_id=iid))
    return out


def time_frames(fn, frames) -> tuple[float, list]:
    fn(frames[0])  # warm-up (imports, open3d initialisation)
    t0 = time.perf_counter()
    results = [fn(f) for f in frames]
    return (time.perf_counter() - t0) / len(frames), results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scenario", default=str(REPO / "src/mnemo_sim/scenarios/example_apartment.yaml"))
    parser.add_argument("--frames", type=int, default=60)
    parser.add_argument("--synthetic", action="store_true", help="use ray-cast synthetic frames, not MuJoCo")
    args = parser.parse_args(argv)

    truths = None
    source = "synthetic (15 boxes per frame)"
    if not args.synthetic:
        try:
            t0 = time.perf_counter()
            frames, truths = rendered_frames(Path(args.scenario), args.frames)
            source = f"MuJoCo renders of {Path(args.scenario).name}, first patrol ({time.perf_counter() - t0:.1f} s to render)"
        except Exception as exc:  # noqa: BLE001 - no renderer or no GL: fall back to synthetic frames
            print(f"rendering unavailable ({type(exc).__name__}: {exc}); using synthetic frames", file=sys.stderr)
            frames = synthetic_frames(args.frames)
    else:
        frames = synthetic_frames(args.frames)
    h, w = frames[0].depth.shape
    instances = statistics.mean(len(np.unique(f.segmentation.mask[f.segmentation.mask >= 0])) for f in frames)
    print(f"frames: {len(frames)} x {w}x{h} from {source}; mean instances/frame {instances:.1f}")

    rows = []
    ours_s, ours = time_frames(lambda f: detect_ours(f, DeprojectionConfig()), frames)
    rows.append(("numpy+open3d (ours)", ours_s))
    np_s, _ = time_frames(lambda f: detect_ours(f, DeprojectionConfig(outlier_method="numpy")), frames)
    rows.append(("numpy only (ours)", np_s))

    graph = None
    try:
        from mnemo_scene_graph.graph import SceneGraph
    except ImportError:
        SceneGraph = None
    if SceneGraph is not None:
        graph = SceneGraph()
        results = []

        def with_graph(f):
            dets = detect_ours(f, DeprojectionConfig())
            graph.integrate_detections(dets, f.stamp, f.camera_pose)
            results.append(dets)
            return dets

        with_graph(frames[0])
        graph, results = SceneGraph(), []
        t0 = time.perf_counter()
        for f in frames:
            with_graph(f)
        rows.append(("numpy+open3d + association (ours)", (time.perf_counter() - t0) / len(frames)))
    o3d_s, _ = time_frames(detect_open3d_everything, frames)
    rows.append(("open3d everything (baseline)", o3d_s))
    loop_s, _ = time_frames(detect_python_loop, frames[:2])
    rows.append(("python loop (baseline, 2 frames)", loop_s))

    print(f"\n{'path':40s} {'ms/frame':>10s} {'frames/s':>10s} {'vs open3d-everything':>22s}")
    for name, s in rows:
        print(f"{name:40s} {s * 1000:10.1f} {1 / s:10.1f} {o3d_s / s:21.1f}x")

    if truths is not None:
        errors = [float(np.linalg.norm(np.array(d.centroid) - np.array(truth[d.instance_id])))
                  for dets, truth in zip(ours, truths) for d in dets if d.kind == "object" and d.instance_id in truth]
        if errors:
            print(f"\ndetection centroid vs true object centre: median {np.median(errors) * 100:.1f} cm, "
                  f"p90 {np.percentile(errors, 90) * 100:.1f} cm over {len(errors)} detections")
        if graph is not None:
            seen = Counter(d.instance_id for dets in results for d in dets if d.kind == "object")
            nodes_of: dict[str, set] = defaultdict(set)
            objects_of: dict[str, set] = defaultdict(set)
            for dets in results:
                for d in dets:
                    if d.kind == "object" and d.node_id:
                        nodes_of[d.instance_id].add(d.node_id)
                        objects_of[d.node_id].add(d.instance_id)
            often = [o for o, c in seen.items() if c >= 3]
            one = sum(1 for o in often if len(nodes_of[o]) == 1)
            dup = sum(1 for o in seen if len(nodes_of[o]) > 1)
            merged = sum(1 for n in objects_of.values() if len(n) > 1)
            print(f"scene graph: objects seen >= 3 times with exactly one node {one}/{len(often)}; "
                  f"duplicated objects {dup}; merged nodes {merged}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
