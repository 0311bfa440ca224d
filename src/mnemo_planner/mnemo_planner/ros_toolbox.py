"""The planner's tools as asynchronous ROS service calls (memory, scene graph, keyframes, skills).

Clients live in their own callback group and are awaited (never spun on), each call bounded
by a timeout and abandoned early when the task is canceled, so a slow service never blocks the
action's feedback or cancel handling. As in process, ``horizon`` (the running task's start
clock, when set) bounds memory answers to records stamped no later.

A node that is down (or restarting) answers UNAVAILABLE within ``connect_timeout``; one that dies
or restarts while a call waits is noticed from the graph: a query is sent again, once, to its
successor; a skill ends UNAVAILABLE (it may have acted).
"""
from __future__ import annotations

import time
from typing import Any, Callable, Optional

from mnemo_common import names
from mnemo_common.ros import (
    ServerWatch, detection_from_msg, kv_to_msgs, memory_filter_to_msg, memory_record_from_msg,
    pose2d_from_msg, skill_result_from_response, time_to_msg,
)
from mnemo_common.types import MemoryFilter, MnemoError, Status
from mnemo_interfaces import srv
from rclpy.callback_groups import ReentrantCallbackGroup

from mnemo_planner.conversions import node_dict_from_msg
from mnemo_planner.memory_filters import check_horizon, memory_filter, within_horizon
from mnemo_planner.tool_results import describe_detections, describe_nodes, describe_records
from mnemo_planner.tools import Action, ToolOutcome, error_outcome

SERVICES = {
    "search_memory": (srv.SearchMemoryByText, names.MEMORY_SEARCH_TEXT),
    "search_memory_time": (srv.SearchMemoryByTime, names.MEMORY_SEARCH_TIME),
    "search_memory_position": (srv.SearchMemoryByPosition, names.MEMORY_SEARCH_POSITION),
    "look_again": (srv.GetMemoryRecord, names.MEMORY_GET_RECORD),
    "query_scene_graph": (srv.QueryObjects, names.GRAPH_QUERY),
    "node_history": (srv.GetNodeHistory, names.GRAPH_HISTORY),
    "retrieve_keyframes": (srv.RetrieveKeyframes, names.KEYFRAMES_RETRIEVE),
    "navigate": (srv.Navigate, names.SKILL_NAVIGATE),
    "detect": (srv.Detect, names.SKILL_DETECT),
    "open": (srv.Open, names.SKILL_OPEN),
    "close": (srv.Close, names.SKILL_CLOSE),
    "peek": (srv.Peek, names.SKILL_PEEK),
    "pick": (srv.Pick, names.SKILL_PICK),
    "place": (srv.Place, names.SKILL_PLACE),
}
SKILLS = ("navigate", "detect", "open", "close", "peek", "pick", "place")
SERVER_CHECK_PERIOD = 0.25  # s between looks at who serves a call still waiting for its answer


class RosToolbox:
    def __init__(self, node: Any, service_timeout: float = 30.0, skill_timeout: float = 300.0,
                 use_keyframes: bool = True):
        self.node = node
        self.group = ReentrantCallbackGroup()
        self.service_timeout, self.skill_timeout, self.use_keyframes = service_timeout, skill_timeout, use_keyframes
        self.clients = {tool: node.create_client(t, name, callback_group=self.group)
                        for tool, (t, name) in SERVICES.items()}
        self.should_cancel: Callable[[], bool] = lambda: False
        self.horizon: Optional[float] = None  # the running task's start clock: no memory record stamped later
        self.call_seconds = 0.0
        self.connect_timeout = 5.0  # s to wait for a service that is down (restarting) before UNAVAILABLE
        self.analysis_wait = 3.0  # s to wait for the interaction analyzer's verdict on a failed open
        self.view_wait = 1.0  # s to wait for the scene graph to take in the view after arriving or opening
        self._fixture_seen: dict[str, float] = {}  # fixture -> last_seen in the newest scene-graph answer
        self._arrived = ""  # fixture the robot reached (or opened) since the last scene-graph query

    def destroy(self) -> None:
        for client in self.clients.values():
            self.node.destroy_client(client)

    async def call(self, tool: str, request: Any, timeout: Optional[float] = None, check: bool = True) -> Any:
        """Await one service call, bounded by a timeout and abandoned on cancel. The wait is a
        future completed by the response or by a watchdog timer, so the executor wakes for it
        (rclpy resumes a coroutine only when the executor wakes)."""
        from rclpy.task import Future

        client = self.clients[tool]
        limit = timeout if timeout is not None else (self.skill_timeout if tool in SKILLS else self.service_timeout)
        deadline = time.monotonic() + limit
        t0 = time.perf_counter()
        waiter: Future = Future(executor=self.node.executor)
        pending: dict[str, Any] = {"future": None, "why": None, "resent": False}

        def finish(why: Optional[MnemoError]) -> None:
            if not waiter.done():
                pending["why"] = why
                waiter.set_result(None)

        def start() -> None:  # (only while no request is pending: a lost one was dropped first)
            pending["watch"] = ServerWatch(self.node, client.srv_name, SERVER_CHECK_PERIOD)
            pending["future"] = client.call_async(request)
            pending["future"].add_done_callback(lambda f: f is pending["future"] and finish(None))

        def tick() -> None:
            if waiter.done():
                return
            if self.should_cancel():
                finish(MnemoError(Status.CANCELED, "canceled"))
            elif time.monotonic() > deadline:
                finish(MnemoError(Status.TIMEOUT if pending["future"] is not None else Status.UNAVAILABLE,
                                  f"{client.srv_name} did not answer within {limit:.1f} s"
                                  if pending["future"] is not None else f"service {client.srv_name} is not available"))
            elif pending["future"] is None and client.service_is_ready():
                start()
            elif pending["future"] is None and time.monotonic() > connect_deadline and not pending["resent"]:
                finish(MnemoError(Status.UNAVAILABLE, f"service {client.srv_name} is not available "
                                                      f"(none within {self.connect_timeout:.1f} s)"))
            elif pending["future"] is not None and (why := pending["watch"].lost()) is not None:
                if tool in SKILLS or pending["resent"]:  # a skill may have acted: never twice
                    finish(MnemoError(Status.UNAVAILABLE, f"{client.srv_name} {why} while the call was pending"))
                else:  # a query: ask again, once, when a server is there (a request sent while none is
                    # goes nowhere), within the call's own time (its server is restarting)
                    pending["resent"] = True
                    client.remove_pending_request(pending["future"])
                    pending["future"] = None

        connect_deadline = time.monotonic() + min(limit, self.connect_timeout)
        if client.service_is_ready():
            start()
        timer = self.node.create_timer(0.02, tick, callback_group=self.group)
        try:
            await waiter
        finally:
            timer.cancel()
            self.node.destroy_timer(timer)
            self.call_seconds += time.perf_counter() - t0
        if pending["why"] is not None:
            if pending["future"] is not None and not pending["future"].done():
                client.remove_pending_request(pending["future"])
            raise pending["why"]
        response = pending["future"].result()
        if check and getattr(response, "error_code", 0) != 0:
            raise MnemoError(Status(response.error_code) if response.error_code <= 8 else Status.INTERNAL,
                             response.error_msg or "failed")
        return response

    async def execute(self, action: Action) -> ToolOutcome:
        handler = getattr(self, "_" + action.tool, None)
        if handler is None or action.tool not in SERVICES:
            return error_outcome(f"tool {action.tool!r} is not available here")
        try:
            return await handler(**action.arguments)
        except MnemoError as exc:
            return ToolOutcome(False, f"{action.tool}: {exc.code.name.lower()}: {exc.message}",
                               {"error": exc.message, "code": int(exc.code)})

    # -- memory ------------------------------------------------------------------------------
    async def _records(self, tool: str, request: Any) -> ToolOutcome:
        response = await self.call(tool, request)
        records = [memory_record_from_msg(m) for m in response.records]
        return ToolOutcome(True, describe_records(records), {"records": records})

    async def _search_memory(self, text: str, k: int = 5, **kw: Any) -> ToolOutcome:
        return await self._records("search_memory", srv.SearchMemoryByText.Request(
            text=text, k=int(k), filter=memory_filter_to_msg(within_horizon(memory_filter(kw), self.horizon))))

    async def _search_memory_time(self, since: Optional[float] = None, until: Optional[float] = None,
                                  around: Optional[float] = None, text: str = "", k: int = 5,
                                  room: str = "") -> ToolOutcome:
        req = srv.SearchMemoryByTime.Request(k=int(k), text=text, filter=memory_filter_to_msg(
            within_horizon(memory_filter({"room": room}), self.horizon)))
        if since is not None or until is not None:
            req.use_range = True
            req.since, req.until = time_to_msg(since or 0.0), time_to_msg(until if until is not None else 4e9)
        else:
            req.around = time_to_msg(float(around))
        return await self._records("search_memory_time", req)

    async def _search_memory_position(self, x: float, y: float, radius: float = 0.0, text: str = "",
                                      k: int = 5) -> ToolOutcome:
        return await self._records("search_memory_position", srv.SearchMemoryByPosition.Request(
            x=float(x), y=float(y), radius=float(radius), k=int(k), text=text,
            filter=memory_filter_to_msg(within_horizon(MemoryFilter(), self.horizon))))

    async def _look_again(self, record_id: str) -> ToolOutcome:
        response = await self.call("look_again", srv.GetMemoryRecord.Request(id=record_id))
        record = check_horizon(memory_record_from_msg(response.record), self.horizon)
        sightings = ", ".join(f"{s.label}@{s.support or '?'}" for s in record.sightings)
        return ToolOutcome(True, f"{record.caption} | sightings: {sightings} | raw: {response.raw_path or 'none'}",
                           {"record": record, "raw_path": response.raw_path})

    # -- scene graph and keyframes --------------------------------------------------------------
    async def _query_scene_graph(self, label: str = "", attributes: Optional[dict] = None, in_fixture: str = "",
                                 room: str = "", include_stale: bool = False, k: int = 0) -> ToolOutcome:
        request = srv.QueryObjects.Request(label=label, attributes=kv_to_msgs(attributes or {}), in_fixture=in_fixture,
                                           room=room, include_stale=include_stale, k=int(k))
        # The sim or robot publishes what the camera saw on arriving before the skill answers, but
        # the scene-graph node takes it in on its own schedule: when the fixture just reached is in
        # the answer and not seen anew yet, ask again for a moment (as in process, the view is there).
        arrived, self._arrived = self._arrived, ""
        before = self._fixture_seen.get(arrived)
        deadline = time.monotonic() + self.view_wait
        while True:
            nodes = [node_dict_from_msg(m) for m in (await self.call("query_scene_graph", request)).nodes]
            seen = {n["id"]: n["last_seen"] for n in nodes if n.get("kind") == "fixture"}
            if before is None or arrived not in seen or seen[arrived] > before \
                    or time.monotonic() > deadline or self.should_cancel():
                break
            await self._sleep(0.05)
        self._fixture_seen.update(seen)
        return ToolOutcome(True, describe_nodes(nodes), {"nodes": nodes})

    async def _node_history(self, node_id: str) -> ToolOutcome:
        response = await self.call("node_history", srv.GetNodeHistory.Request(node_id=node_id))
        node = node_dict_from_msg(response.node)
        events = [{"kind": e.kind, "field": e.field, "old": e.old_value, "new": e.new_value, "source": e.source}
                  for e in response.events]
        lines = [f"{e['kind']}:{e['field']}={e['new']}" for e in events[-8:]]
        return ToolOutcome(True, f"{describe_nodes([node])}; history: {'; '.join(lines) or 'none'}",
                           {"node": node, "events": events})

    async def _retrieve_keyframes(self, task: str, k: int = 4) -> ToolOutcome:
        if not self.use_keyframes:
            return error_outcome("keyframes are not available")
        response = await self.call("retrieve_keyframes", srv.RetrieveKeyframes.Request(task=task, k=int(k)))
        frames = [{"id": f.id, "trigger": f.trigger, "action": f.action, "labels": list(f.labels),
                   "caption": f.caption, "image_path": f.image_path, "thumbnail_path": f.thumbnail_path}
                  for f in response.keyframes]
        text = "; ".join(f"{f['id']} ({f['trigger']} {f['action']} {','.join(f['labels'])}) {f['caption'][:80]}"
                         for f in frames)
        return ToolOutcome(True, f"{len(frames)} keyframes: {text or 'none'}", {"keyframes": frames})

    # -- skills ---------------------------------------------------------------------------------
    async def _skill(self, tool: str, target: str, request: Any) -> tuple[bool, str, Any, dict[str, Any]]:
        """(ok, summary, response, data with the typed outcome the policy branches on). A stop
        that carries no outcome (canceled, timeout, a service down) raises."""
        response = await self.call(tool, request, check=False)
        result = skill_result_from_response(tool, target, response)
        if result.code in (Status.CANCELED, Status.TIMEOUT, Status.UNAVAILABLE) and not result.outcome:
            raise MnemoError(result.code, result.message or "failed")
        data: dict[str, Any] = {"outcome": result.outcome}
        if tool == "pick":
            data["reachable_from"] = result.reachable_from
        text = "ok" if result.success else result.message or "failed"
        return result.success, f"{tool} {target}: {text}", response, data

    async def _navigate(self, target: str = "", x: Optional[float] = None, y: Optional[float] = None,
                        yaw: float = 0.0) -> ToolOutcome:
        req = srv.Navigate.Request(target=target)
        if not target:
            req.pose.x, req.pose.y, req.pose.theta = float(x), float(y), float(yaw)
        ok, text, r, data = await self._skill("navigate", target or f"({x}, {y})", req)
        if not ok:
            return ToolOutcome(False, text, data)
        p = pose2d_from_msg(r.robot_pose)
        self._arrived = r.at_fixture
        return ToolOutcome(True, f"at {r.at_fixture or (round(p.x, 2), round(p.y, 2))} in {r.room}",
                           {**data, "at_fixture": r.at_fixture, "room": r.room, "robot_pose": (p.x, p.y, p.yaw)})

    async def _detect(self, query: str = "") -> ToolOutcome:
        ok, text, r, data = await self._skill("detect", query, srv.Detect.Request(query=query))
        if not ok:
            return ToolOutcome(False, text, data)
        detections = [detection_from_msg(d) for d in r.detections]
        return ToolOutcome(True, f"detect: {describe_detections(detections)}", {**data, "detections": detections})

    async def _open_history(self, target: str) -> Optional[tuple[dict, int]]:
        """The fixture's properties and how many open attempts its task history holds (None when
        the scene graph cannot tell)."""
        try:
            history = await self.call("node_history", srv.GetNodeHistory.Request(node_id=target),
                                      timeout=min(2.0, self.service_timeout))
        except MnemoError:
            return None
        props = {p.name: p.value for p in history.node.properties}
        return props, sum(1 for h in history.node.task_history if str(h).startswith("open:"))

    async def _sleep(self, seconds: float) -> None:
        from rclpy.task import Future

        done: Future = Future(executor=self.node.executor)
        timer = self.node.create_timer(seconds, lambda: done.done() or done.set_result(None), callback_group=self.group)
        try:
            await done
        finally:
            timer.cancel()
            self.node.destroy_timer(timer)

    async def _open(self, target: str) -> ToolOutcome:
        before = await self._open_history(target)
        ok, text, r, data = await self._skill("open", target, srv.Open.Request(target=target))
        if ok:
            data["interaction_id"] = r.interaction_id
            self._arrived = target
        if not ok and before is not None:
            # The interaction analyzer judges the attempt from its signals and writes the verdict
            # (locked, or a missed grasp) into the scene graph asynchronously: wait for this
            # attempt's verdict, so a lock is known at once, as in process.
            deadline = time.monotonic() + self.analysis_wait
            while True:
                now = await self._open_history(target)
                if now is not None and now[0].get("locked", "").lower() == "true" and now[1] > before[1]:
                    data["locked"] = True
                    text += " (learned locked=true)"
                    break
                if (now is not None and now[1] > before[1]) or time.monotonic() > deadline or self.should_cancel():
                    break
                await self._sleep(0.1)
        return ToolOutcome(ok, text, data)

    async def _close(self, target: str) -> ToolOutcome:
        ok, text, _, data = await self._skill("close", target, srv.Close.Request(target=target))
        return ToolOutcome(ok, text, data)

    async def _peek(self, target: str) -> ToolOutcome:
        ok, text, r, data = await self._skill("peek", target, srv.Peek.Request(target=target))
        if not ok:
            return ToolOutcome(False, text, data)
        contents = [detection_from_msg(d) for d in r.contents]
        return ToolOutcome(True, f"peek {target}: {describe_detections(contents)}", {**data, "contents": contents})

    async def _pick(self, target: str) -> ToolOutcome:
        ok, text, r, data = await self._skill("pick", target, srv.Pick.Request(target=target))
        if not ok:
            return ToolOutcome(False, text, data)
        return ToolOutcome(True, f"picked {r.picked_label} [{r.picked_id}]",
                           {**data, "picked_id": r.picked_id, "picked_label": r.picked_label})

    async def _place(self, target: str) -> ToolOutcome:
        ok, text, _, data = await self._skill("place", target, srv.Place.Request(target=target))
        return ToolOutcome(ok, text, data)
