"""The planner's one action space: memory tools (search in time), physical tools (search in
space) and terminal tools, each with typed arguments described by a JSON schema.

The schema serves both the LLM policy (OpenAI tool definitions) and argument validation for
every policy, so an action that does not fit its tool becomes an error outcome, never a crash.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Awaitable, Optional, Protocol, Union

MEMORY = "memory"
PHYSICAL = "physical"
TERMINAL = "terminal"


@dataclass(frozen=True)
class ToolSpec:
    name: str
    kind: str  # MEMORY | PHYSICAL | TERMINAL
    description: str
    parameters: dict  # JSON schema of the arguments object

    def openai(self) -> dict:
        return {"type": "function",
                "function": {"name": self.name, "description": self.description, "parameters": self.parameters}}


def _schema(properties: dict, required: tuple[str, ...] = ()) -> dict:
    return {"type": "object", "properties": properties, "required": list(required), "additionalProperties": False}


_TEXT = {"type": "string"}
_K = {"type": "integer", "minimum": 1, "maximum": 100, "description": "how many results (default 5)"}
_TIME = {"type": "number", "description": "robot clock, seconds"}
_NUM = {"type": "number"}
_TARGET = {"type": "string", "description": "fixture id (e.g. cabinet_1) or object id / label"}

TOOLS: dict[str, ToolSpec] = {t.name: t for t in [
    ToolSpec("search_memory", MEMORY,
             "Semantic search of long-term memory: observation records whose caption is nearest to the text, "
             "optionally only those taken in [since, until], in a room, or within radius of (x, y).",
             _schema({"text": _TEXT, "k": _K, "since": _TIME, "until": _TIME, "room": _TEXT,
                      "x": _NUM, "y": _NUM, "radius": _NUM, "labels": {"type": "array", "items": _TEXT}},
                     ("text",))),
    ToolSpec("search_memory_time", MEMORY,
             "Temporal search: records taken in [since, until], or the nearest in time to 'around'; "
             "optional text ranks the records in the window.",
             _schema({"since": _TIME, "until": _TIME, "around": _TIME, "text": _TEXT, "k": _K, "room": _TEXT})),
    ToolSpec("search_memory_position", MEMORY,
             "Spatial search: records taken within radius of (x, y) (the k nearest when radius is 0).",
             _schema({"x": _NUM, "y": _NUM, "radius": _NUM, "text": _TEXT, "k": _K}, ("x", "y"))),
    ToolSpec("look_again", MEMORY,
             "Look again at one memory record's raw observation: its full details and image path.",
             _schema({"record_id": _TEXT}, ("record_id",))),
    ToolSpec("query_scene_graph", MEMORY,
             "Objects and fixtures in the scene graph matching every given criterion; empty returns all.",
             _schema({"label": _TEXT, "attributes": {"type": "object", "additionalProperties": _TEXT},
                      "in_fixture": _TEXT, "room": _TEXT, "include_stale": {"type": "boolean"}, "k": _K})),
    ToolSpec("node_history", MEMORY, "A scene-graph node with its history of places, properties and actions.",
             _schema({"node_id": _TEXT}, ("node_id",))),
    ToolSpec("retrieve_keyframes", MEMORY, "Keyframes relevant to a task text (images attached when possible).",
             _schema({"task": _TEXT, "k": _K}, ("task",))),
    ToolSpec("navigate", PHYSICAL, "Drive to a fixture (target) or to a map position (x, y, optional yaw).",
             _schema({"target": _TARGET, "x": _NUM, "y": _NUM, "yaw": _NUM})),
    ToolSpec("detect", PHYSICAL, "Detect objects in the current camera view; empty query returns everything seen.",
             _schema({"query": _TEXT})),
    ToolSpec("open", PHYSICAL, "Open a container fixture (door or drawer).", _schema({"target": _TARGET}, ("target",))),
    ToolSpec("close", PHYSICAL, "Close a container fixture.", _schema({"target": _TARGET}, ("target",))),
    ToolSpec("peek", PHYSICAL, "Look inside an open container.", _schema({"target": _TARGET}, ("target",))),
    ToolSpec("pick", PHYSICAL, "Pick a visible object by id or label; ends the task when it succeeds.",
             _schema({"target": _TARGET}, ("target",))),
    ToolSpec("place", PHYSICAL, "Place the held object on or in a fixture.", _schema({"target": _TARGET}, ("target",))),
    ToolSpec("answer", TERMINAL, "Answer the user's question and end the task.", _schema({"text": _TEXT}, ("text",))),
    ToolSpec("done", TERMINAL, "End the task: the robot is where the instruction asked (or gives up).",
             _schema({"success": {"type": "boolean"}, "reason": _TEXT})),
]}


class ToolArgumentError(ValueError):
    """An action whose tool is unknown or whose arguments do not fit the tool's schema."""


@dataclass
class Action:
    tool: str
    arguments: dict[str, Any] = field(default_factory=dict)
    note: str = ""  # for people: why the policy chose it, when the action alone would mislead (never sent to a skill)

    def text_arguments(self) -> dict[str, str]:
        """Arguments as strings, for the PlannerStep trace."""
        return {k: (v if isinstance(v, str) else _compact(v)) for k, v in self.arguments.items()}


def _compact(value: Any) -> str:
    import json

    try:
        return json.dumps(value, sort_keys=True)
    except TypeError:
        return str(value)


@dataclass
class ToolOutcome:
    ok: bool
    summary: str  # short, for the working memory and the LLM
    data: dict[str, Any] = field(default_factory=dict)


def error_outcome(message: str) -> ToolOutcome:
    return ToolOutcome(False, f"error: {message}", {"error": message})


class Toolbox(Protocol):
    """Executes a validated action. In-process toolboxes return a ToolOutcome; the ROS toolbox
    returns an awaitable of one (async service calls)."""

    def execute(self, action: Action) -> Union[ToolOutcome, Awaitable[ToolOutcome]]: ...


def is_physical(tool: str) -> bool:
    spec = TOOLS.get(tool)
    return spec is not None and spec.kind == PHYSICAL


def openai_tools(names: Optional[list[str]] = None) -> list[dict]:
    return [TOOLS[n].openai() for n in (names or list(TOOLS))]


def _check(value: Any, schema: dict, where: str) -> Any:
    kind = schema.get("type")
    if kind == "string":
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            value = str(value)
        if not isinstance(value, str):
            raise ToolArgumentError(f"{where} must be a string, got {type(value).__name__}")
        return value
    if kind in ("number", "integer"):
        if isinstance(value, str):
            try:
                value = float(value)
            except ValueError:
                raise ToolArgumentError(f"{where} must be a number, got {value!r}") from None
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise ToolArgumentError(f"{where} must be a finite number, got {value!r}")
        if kind == "integer":
            if float(value) != int(value):
                raise ToolArgumentError(f"{where} must be an integer, got {value!r}")
            value = int(value)
            lo, hi = schema.get("minimum"), schema.get("maximum")
            if (lo is not None and value < lo) or (hi is not None and value > hi):
                raise ToolArgumentError(f"{where} must be in [{lo}, {hi}], got {value}")
        return value
    if kind == "boolean":
        if isinstance(value, str) and value.lower() in ("true", "false"):
            return value.lower() == "true"
        if not isinstance(value, bool):
            raise ToolArgumentError(f"{where} must be true or false, got {value!r}")
        return value
    if kind == "array":
        if not isinstance(value, list):
            raise ToolArgumentError(f"{where} must be a list")
        return [_check(v, schema.get("items", {}), f"{where}[{i}]") for i, v in enumerate(value)]
    if kind == "object":
        if not isinstance(value, dict):
            raise ToolArgumentError(f"{where} must be an object")
        props = schema.get("properties")
        if props is None:  # free-form mapping, e.g. attributes
            extra = schema.get("additionalProperties", {})
            return {str(k): _check(v, extra, f"{where}.{k}") for k, v in value.items()}
        unknown = sorted(set(value) - set(props))
        if unknown:
            raise ToolArgumentError(f"{where} has unknown argument(s) {unknown}; allowed: {sorted(props)}")
        missing = [r for r in schema.get("required", []) if r not in value]
        if missing:
            raise ToolArgumentError(f"{where} is missing required argument(s) {missing}")
        return {k: _check(v, props[k], f"{where}.{k}") for k, v in value.items()}
    return value


def validate(action: Action) -> Action:
    """The action with arguments checked and coerced to their schema types; raises ToolArgumentError."""
    spec = TOOLS.get(action.tool)
    if spec is None:
        raise ToolArgumentError(f"unknown tool {action.tool!r}; tools: {', '.join(TOOLS)}")
    args = _check(action.arguments if action.arguments is not None else {}, spec.parameters, action.tool)
    if action.tool == "navigate" and not args.get("target") and not ("x" in args and "y" in args):
        raise ToolArgumentError("navigate needs a target fixture or both x and y")
    if action.tool == "search_memory_time" and "around" not in args and "since" not in args and "until" not in args:
        raise ToolArgumentError("search_memory_time needs since/until or around")
    if action.tool == "answer" and not args["text"].strip():
        raise ToolArgumentError("answer text is empty")
    return Action(action.tool, args, action.note)
