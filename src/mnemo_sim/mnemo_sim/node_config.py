"""The simulator node's parameters (``SimConfig``, read once) and what each one means."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SimConfig:
    scenario: str = ""
    seed: int = -1
    data_dir: str = "data"
    render: bool = False
    publish_rate: float = 10.0
    image_every: int = 1
    miss_grasp_probability: float = 0.1
    frame_id: str = "map"
    camera_frame_id: str = "camera_color_optical_frame"
    reliable_images: bool = True
    perception: str = "oracle"
    perception_timeout: float = 10.0
    perception_resend: float = 0.25
    graph_wait: float = 3.0
    patrol_awaits_perception: bool = True


DESCRIPTIONS = {
    "scenario": "household-scenario/1 YAML file; empty loads the shipped example_apartment",
    "seed": "randomness seed for skills (missed grasps); -1 uses the scenario's seed",
    "data_dir": "folder for interaction frames (data_dir/interactions/<id>/*.png)",
    "render": "render camera images (RGB, depth, segmentation) with MuJoCo",
    "publish_rate": "Hz of the /clock and pose heartbeat while idle (0 disables it)",
    "image_every": "during patrols, render and publish images for every Nth observation "
                   "(with a RunPatrol rate, frames are also skipped while behind schedule, unless the patrol "
                   "awaits perception)",
    "miss_grasp_probability": "share of open/close attempts that miss the handle",
    "frame_id": "map frame of poses and observations",
    "camera_frame_id": "optical frame id of the camera images",
    "reliable_images": "publish images RELIABLE (matches best-effort and reliable subscribers; "
                       "large frames sent best effort are often lost between processes) or BEST_EFFORT",
    "perception": "oracle: publish the simulator's observations (instance ids, supports, authored attributes; an "
                  "upper bound) | honest: raw sensor data only (always rendered), skills see through the stack's "
                  "perception and scene graph and take graph node ids",
    "perception_timeout": "honest mode: seconds a skill, or a patrol awaiting perception, waits for perception's "
                          "detections of a frame before it fails UNAVAILABLE",
    "perception_resend": "honest mode: seconds after which a frame perception has not answered is published again "
                         "(a large frame can be lost or delayed between processes)",
    "graph_wait": "honest mode: seconds a skill then waits for the scene graph to integrate that frame (new objects "
                  "get their node ids); after it, the latest graph names what it can",
    "patrol_awaits_perception": "honest mode: a patrol moves on from a rendered frame only once perception's "
                                "detections of it arrive (as for a skill's view; the RunPatrol rate becomes an upper "
                                "bound), so what memory gets does not depend on how fast the machine is; false: "
                                "frames follow the rate's schedule and perception keeps the ones it keeps up with",
}
