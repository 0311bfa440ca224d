"""Reading a tool's outcome: typed codes, learned properties and data only (the outcome text is for
people and language models)."""
from __future__ import annotations

from mnemo_common.skill_codes import SkillCode

from mnemo_planner.beliefs import Beliefs
from mnemo_planner.hypotheses import Place
from mnemo_planner.loop import WorkingEntry
from mnemo_planner.task_state import TaskState


def absorb(beliefs: Beliefs, t: TaskState, entry: WorkingEntry) -> None:
    """What one tool outcome tells: into the beliefs (nodes, records, detections, learned properties)
    and into the task's state (where the robot is, what is open, locked, held, failed)."""
    tool, args, out = entry.action.tool, entry.action.arguments, entry.outcome
    data = out.data or {}
    code = int(data.get("outcome", 0) or 0)
    target = str(args.get("target", ""))
    if code == SkillCode.GRIPPER_OCCUPIED:
        t.holding = True
    if code == SkillCode.NOT_AT_FIXTURE:  # wherever the robot stands, it is not where the policy thought
        t.at = ""
    if tool == "query_scene_graph":
        t.surveyed = True
        if out.ok:
            beliefs.add_nodes(data.get("nodes", []))
            t.grounded = False
            for fid, f in beliefs.fixtures.items():
                if f.locked:
                    t.locked.add(fid)
            if t.glance is not None and t.at:
                glanced(beliefs, t)
    elif tool.startswith("search_memory"):
        t.memory_asked += 1
        if out.ok:
            beliefs.add_records(data.get("records", []))
            t.grounded = False
    elif tool == "navigate":
        t.at = str(data.get("at_fixture", "")) if out.ok else ""
        pose = data.get("robot_pose") if out.ok else None
        t.here = tuple(pose) if pose else None
        t.looked, t.visible, t.glance = False, [], None
    elif tool == "open":
        learned = data.get("learned", {}) or {}
        if out.ok:
            t.opened.add(target)
        elif str(learned.get("locked", "")).lower() == "true" or data.get("locked"):
            t.locked.add(target)
        elif code == SkillCode.NOT_OPENABLE and target in beliefs.fixtures:
            beliefs.fixtures[target].container = False
        elif code != SkillCode.NOT_AT_FIXTURE:
            t.open_tries[target] += 1
    elif tool in ("detect", "peek"):
        if out.ok:
            dets, known = data.get("detections" if tool == "detect" else "contents", []) or [], beliefs.labels()
            t.visible = beliefs.add_detections(dets, t.at, t.now, inside=tool == "peek")
            t.grounded = t.grounded and not {e.label for e in t.visible} - set(known)  # a name first seen: named?
            t.looked, t.inside = True, tool == "peek"
            t.failed -= {(e.key, t.at) for e in t.visible}  # in view now: a grasp may work
        elif code == SkillCode.CONTAINER_CLOSED:
            t.opened.discard(target)
            t.closed.add(target)
    elif tool == "pick" and not out.ok:
        if code != SkillCode.GRIPPER_OCCUPIED:  # (a full gripper says nothing about the thing)
            t.failed.add((target, t.at))
        if code == SkillCode.OUT_OF_REACH and data.get("reachable_from"):
            t.current = Place(str(data["reachable_from"]), target, "the arm saw it there")
            t.looked, t.visible = False, []
    elif tool == "pick":
        t.target, t.carrying = str(data.get("picked_id", "")) or target, True
    elif tool == "place":
        if out.ok:  # (what it put down is where it put it)
            beliefs.put(t.target if t.carrying else t.held, target, t.now)
        if out.ok or code == SkillCode.GRIPPER_EMPTY:
            t.holding = t.carrying = False
            t.held = ""
        if code == SkillCode.GRIPPER_EMPTY:  # only a continuation presumes a full gripper: the world changed
            t.at, t.here = "", None  # since, and where the robot stands is not known either
        elif code != SkillCode.NOT_AT_FIXTURE:
            t.no_place.add(target)

def glanced(beliefs: Beliefs, t: TaskState) -> None:
    """The graph read on arrival: what the camera saw here since the glance began is the look; a
    thing memory put here that the camera now misses (stale, or placed elsewhere) is not here."""
    before = t.glance or {}
    fresh = [e for e in beliefs.entities.values() if e.support == t.at and e.current
             and e.last_seen > before.get(e.key, float("-inf"))]
    expected = beliefs.entities.get(t.current.entity) if t.current and t.current.entity else None
    gone = expected is not None and (not expected.current or expected.support != t.at)
    if fresh or gone:
        t.looked, t.visible = True, fresh
    if gone:
        t.failed.add((expected.key, t.at))
    if fresh:  # the camera saw this place anew: what it holds per the graph but was not seen again is gone
        for e in beliefs.entities.values():
            if e.support == t.at and e not in fresh and e.key in before and e.label in t.g.labels:
                t.failed.add((e.key, t.at))
