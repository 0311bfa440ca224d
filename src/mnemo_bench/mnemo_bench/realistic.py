"""Realistic perception for the benchmark: each observation's camera view is rendered with MuJoCo
(``mnemo_sim.render``), the perception ground-truth backend reads the instance segmentation, and
deprojection places every instance in the map (centroid and box from depth, colour from pixels).
So positions carry depth noise, occluded or tiny objects go unseen, and colours are measured,
not given; the scene graph integrates the detections geometrically (supports from fixture boxes),
and memory records are captioned from what the graph made of them.

Two modes: ``realistic`` keeps the simulator's instance ids on object detections, as the
perception node does with the ground-truth backend; ``honest`` drops them, so an object's
identity is whatever the scene graph's association makes of it (node ids), and the robot's skills
perceive and resolve targets the same way (``StackPerception``, the simulator's honest skill
mode). Fixtures come from the map (id, class, footprint, height) in both, as on a robot with a
mapped home. Patrol frames are cached per scenario (the world is the same for every method), so
rendering is paid once.
"""
from __future__ import annotations

import copy
import math
from dataclasses import dataclass, replace
from typing import Any, Optional

from mnemo_common.types import Detection, Observation, with_node_color
from mnemo_scene_graph.coverage import CameraView
from mnemo_scene_graph.map_fixtures import declare_map_fixtures  # noqa: F401 (the bench's import)

PERCEPTION_MODES = ("oracle", "realistic", "honest")  # oracle: the simulator's own observations


@dataclass
class Perceived:
    """One frame's detections with the observation it replaces (pose, stamp, room), and the view
    (coarse depth) that lets the scene graph count the nodes the frame covered and did not see."""

    obs: Observation
    detections: list[Detection]
    view: Optional[CameraView] = None


class RealisticPerceiver:
    def __init__(self, scenario: Any, every: int = 1, honest: bool = False):
        self.scenario = scenario
        self.every = max(1, int(every))  # perceive every Nth patrol frame (the others are skipped)
        self.honest = honest  # object detections without the simulator's instance ids
        self._renderer: Any = None
        self._cache: dict[float, Perceived] = {}
        self._count = 0
        self.frames_rendered = 0

    def _render(self, world: Any, obs: Observation) -> Perceived:
        from mnemo_perception.backends import GroundTruthDetector
        from mnemo_perception.deproject import deproject_instances
        from mnemo_perception.frame import Intrinsics, Segmentation
        from mnemo_sim.patrol import DEFAULT_CAMERA
        from mnemo_sim.render import Renderer

        if self._renderer is None:
            cam = DEFAULT_CAMERA
            self._renderer = Renderer(self.scenario, cam.width, cam.height_px, math.degrees(cam.vfov))
        self._renderer.sync(world)
        f = self._renderer.render(obs.camera_pose, stamp=obs.stamp)
        self.frames_rendered += 1
        values = sorted(f.seg_ids)
        seg = Segmentation(f.seg, values, [f.seg_ids[v] for v in values], [f.labels[v] for v in values],
                           [f.kinds[v] for v in values])
        k = f.intrinsics
        instances = GroundTruthDetector().detect(f.rgb, f.depth, {"segmentation": seg})
        dets = deproject_instances(f.rgb, f.depth, Intrinsics(k.fx, k.fy, k.cx, k.cy, k.width, k.height),
                                   obs.camera_pose, instances)
        out = []
        for d in dets:
            fixture = d.kind == "fixture"
            out.append(replace(d, mask=None, instance_id="" if fixture or self.honest else d.instance_id,
                               node_id=d.instance_id if fixture else ""))  # fixture ids: the map's
        view = CameraView.from_depth(obs.camera_pose, k.fx, k.fy, k.cx, k.cy, f.depth)
        return Perceived(replace(obs, sightings=[], caption=""), out, view)

    def perceive(self, world: Any, obs: Observation, patrol: bool = False) -> Optional[Perceived]:
        """The perceived version of an oracle observation (its sightings are dropped)."""
        if patrol:
            self._count += 1
            if (self._count - 1) % self.every:
                return None
            cached = self._cache.get(obs.stamp)
            if cached is None:
                cached = self._cache[obs.stamp] = self._render(world, obs)
            # callers write node ids into detections; the view is read only
            return Perceived(copy.deepcopy(cached.obs), copy.deepcopy(cached.detections), cached.view)
        return self._render(world, obs)

    def views(self, world: Any, robot: Any) -> list[Perceived]:
        """What the robot sees now: at a fixture, every view of the head's look across it
        (``SimRobot.look_poses``: a long counter takes several), elsewhere the one view ahead."""
        obs = robot.observe()
        return [self.perceive(world, replace(obs, camera_pose=pose)) for pose in robot.look_poses()] or \
            [self.perceive(world, obs)]

    def close(self) -> None:
        if self._renderer is not None:
            self._renderer.close()
            self._renderer = None


class StackPerception:
    """The honest robot's perception in an in-process stack (``mnemo_sim.skills.RobotPerception``):
    the current camera view rendered and perceived, integrated like every frame into the running
    task's scene graph and memory (``stack.ingest``), so its detections carry node ids; a node id
    resolves to the node's label and position in that graph. A detection carries its node's colour,
    voted over every sighting, as the ROS skill server's do (``mnemo_common.types.with_node_color``)."""

    def __init__(self, stack: Any, perceiver: RealisticPerceiver):
        self.stack, self.perceiver = stack, perceiver

    def sense(self) -> list[Detection]:
        runner = self.stack.runner
        views = self.perceiver.views(runner.world, runner.robot)
        self.stack.ingest(views)
        graph = self.stack.toolbox.graph
        seen: set[str] = set()
        out = []
        for d in (d for view in views for d in view.detections):  # an object in two views once
            if not d.node_id or d.node_id not in seen:
                seen.add(d.node_id)
                node = graph.get(d.node_id) if graph is not None and d.node_id and d.node_id in graph else None
                # a copy: replays into other graphs rename the originals
                out.append(with_node_color(d, node.prop("color") if node is not None else ""))
        return out

    def locate(self, target: str) -> Optional[tuple[str, tuple[float, float, float]]]:
        graph = self.stack.toolbox.graph
        if graph is None or target not in graph:
            return None
        node = graph.get(target)
        return (node.label, tuple(node.position)) if node.kind == "object" else None


def integrate(graph: Any, perceived: Perceived) -> Observation:
    """Detections into the scene graph; returns the observation for memory, its sightings named
    and supported as the graph resolved them."""
    from mnemo_scene_graph.sightings import integrate_frame

    return integrate_frame(graph, perceived.obs, perceived.detections, view=perceived.view)


def needs_authored_attribute(scenario: Any, task: Any) -> bool:
    """Whether a task hinges on an attribute pixels cannot give (brand, printed text, title, pattern,
    size, material, scent: anything but colour). Honest perception offline cannot read those (an
    attribute-reading VLM could), so the benchmark counts these tasks apart.

    A task hinges on one when its accepted answer is such an attribute (and no object's class), or
    when its instruction says such a value of an object and the value is what picks the object out:
    - the object has same-class look-alikes and the instruction says a word of its class and every
      word of the value that is not one of its class;
    - the object has look-alikes and its class is called by another name ('the Zenthra gizmo' for a
      dax), the whole value said and one of its words no object's class (a 'blick' pattern on a dax
      is not what 'the blick' asks for): for the object a fetch asks for whatever else is said, for
      any other object (a question's, the one a fetch declines) only when no object's class is said;
    - no object's class is said and the value, said as written (a capital is part of a name: 'Chin
      Up' printed on a wug is not 'chin up'), is borne by this object alone (a title, a brand,
      printed text): it names the object, look-alikes or not (for a fetch, what it asks for).
    A follow-up of a sequence (``task.sequence``: 'it', 'the other one') is about what an earlier task
    of it named, so it needs an authored attribute when an earlier task does, unless it picks its own
    object out by class and colour (``_picked_out_by_pixels``)."""
    if _hinges_on_authored(scenario, task):
        return True
    earlier = [t for t in scenario.tasks[:scenario.tasks.index(task)] if task.sequence and t.sequence == task.sequence]
    return any(needs_authored_attribute(scenario, t) for t in earlier) and not _picked_out_by_pixels(scenario, task)


def _content(text: str) -> set[str]:
    """The words of a text that can name something: no stop words, no letters left over from
    possessives and hyphens ("Ann's", "x-ray")."""
    from mnemo_sim.skills import STOP_WORDS, words

    return {w for w in words(text) if len(w) > 1} - STOP_WORDS


def _authored(obj: Any) -> list[str]:
    """An object's attribute values that pixels cannot give (every key but colour)."""
    from mnemo_scene_graph.graph import COLOR_KEYS

    return [str(v) for k, v in obj.attributes.items() if k not in COLOR_KEYS]


def _hinges_on_authored(scenario: Any, task: Any) -> bool:
    """The task's own words or answer need an authored attribute (``needs_authored_attribute``)."""
    import re

    from mnemo_sim.skills import words

    said = _content(task.instruction)
    class_words = {w for o in scenario.objects for w in _content(o.label)}
    no_class_said = not said & class_words
    wanted = set(task.success.values) if task.success.kind == "pick_any" else set()
    labels = {" ".join(words(o.label)) for o in scenario.objects}
    answers = {" ".join(words(a)) for a in task.success.values} - labels if task.success.kind == "answer_any" \
        else set()
    classes: dict[str, int] = {}
    bearers: dict[str, int] = {}  # objects bearing each authored value
    for o in scenario.objects:
        classes[o.label] = classes.get(o.label, 0) + 1
        for value in {" ".join(words(v)) for v in _authored(o)}:
            bearers[value] = bearers.get(value, 0) + 1
    for o in scenario.objects:
        label = _content(o.label)
        look_alikes = classes[o.label] > 1
        for value in _authored(o):
            if " ".join(words(value)) in answers:
                return True
            own = _content(value) - label  # 'big dax' of a dax: 'big'
            if label & said:
                if look_alikes and own and own <= said:
                    return True
            elif _content(value) <= said and _content(value) - class_words:  # called by another name or none
                if look_alikes and (o.id in wanted or no_class_said):
                    return True
                said_as_written = re.search(rf"(?<!\w){re.escape(value)}(?!\w)", task.instruction)
                if no_class_said and (o.id in wanted or not wanted) and bearers[" ".join(words(value))] == 1 \
                        and said_as_written:
                    return True
    return False


def _picked_out_by_pixels(scenario: Any, task: Any) -> bool:
    """Whether a task names its own object by class and colour alone: a fetch says a word of a
    wanted object's class and every object of that class whose colour the words do not rule out is
    wanted; another task says a word of some object's class."""
    from mnemo_scene_graph.graph import COLOR_KEYS

    said = _content(task.instruction)
    if task.success.kind != "pick_any":
        return any(_content(o.label) & said for o in scenario.objects)
    wanted = set(task.success.values)
    for label in {o.label for o in scenario.objects if o.id in wanted}:
        if not _content(label) & said:
            continue
        same = [o for o in scenario.objects if o.label == label]
        colours = [{str(v) for k, v in o.attributes.items() if k in COLOR_KEYS} for o in same]
        told = {c for cs in colours for c in cs if _content(c) <= said}
        if all(o.id in wanted for o, cs in zip(same, colours) if not told or cs & told):
            return True
    return False
