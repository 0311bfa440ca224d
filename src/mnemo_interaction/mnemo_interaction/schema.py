"""Strict validation of the VLM analyzer's JSON answer.

The answer is untrusted: it may be malformed, or steered by text the camera saw. Anything outside
the schema is rejected as a whole (no partial writes): unknown or extra keys, wrong types, property
names outside the vocabulary, updates naming any node but the action's target, unknown node ids,
non-finite or out-of-range confidences, over-long strings or lists.

Answer schema::

    {"task_success": bool,
     "failure_reason": null | "locked" | "missed_grasp" | "stuck" | "blocked" | "not_reachable" | "other",
     "property_updates": [{"object_id": str, "property": <vocabulary name>, "new_value": <typed>,
                           "confidence": 0..1, "reasoning": str}],
     "new_properties": [{"name": snake_case, "value": str | bool | number, "confidence": 0..1, "reasoning": str}],
     "contents_updates": [{"fixture_id": str, "contents": [{"name": str, "description": str}],
                           "is_empty": bool, "reasoning": str}],
     "key_frame": null | int, "tags": [str], "caption": str, "confidence": 0..1}
"""
from __future__ import annotations

import math
import re
from typing import Any, Collection, Optional, Sequence

from mnemo_common.types import PropertyValue

from mnemo_interaction.signals import Analysis, contents_change

BOOL_PROPERTIES = ("accessible", "pickable", "pushable", "openable", "is_opened", "locked")
ENUM_PROPERTIES = {"fullness": ("empty", "partially_full", "full", "unknown")}
VOCABULARY = BOOL_PROPERTIES + tuple(ENUM_PROPERTIES)
FAILURE_REASONS = ("locked", "missed_grasp", "stuck", "blocked", "not_reachable", "other")
TOP_KEYS = {"task_success", "failure_reason", "property_updates", "new_properties", "contents_updates",
            "key_frame", "tags", "caption", "confidence"}
REQUIRED_KEYS = {"task_success", "failure_reason", "property_updates", "confidence"}
MAX_ANSWER_CHARS = 20000  # longer answers are rejected unread
MAX_REASONING = 300
MAX_CAPTION = 300
MAX_NAME = 64
MAX_ITEMS = 12
NAME_RE = re.compile(r"^[a-z][a-z0-9_]{0,31}$")
LABEL_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 _\-'.]{0,63}$")


class SchemaError(ValueError):
    """The answer breaks the schema; the message says where (it is sent back on the retry)."""


def _require(cond: bool, message: str) -> None:
    if not cond:
        raise SchemaError(message)


def _keys(obj: Any, where: str, allowed: set[str], required: set[str]) -> dict:
    _require(isinstance(obj, dict), f"{where} must be an object")
    extra = set(obj) - allowed
    _require(not extra, f"{where} has keys outside the schema: {sorted(extra)[:5]}")
    missing = required - set(obj)
    _require(not missing, f"{where} lacks required keys: {sorted(missing)}")
    return obj


def _bool(v: Any, where: str) -> bool:
    _require(isinstance(v, bool), f"{where} must be true or false")
    return v


def _confidence(v: Any, where: str) -> float:
    _require(isinstance(v, (int, float)) and not isinstance(v, bool), f"{where} must be a number")
    _require(math.isfinite(v) and 0.0 <= v <= 1.0, f"{where} must be within [0, 1], got {v!r}")
    return float(v)


def _text(v: Any, where: str, limit: int, allow_empty: bool = True) -> str:
    _require(isinstance(v, str), f"{where} must be a string")
    _require(len(v) <= limit, f"{where} is longer than {limit} characters")
    _require(allow_empty or v.strip() != "", f"{where} must not be empty")
    _require(all(c.isprintable() for c in v), f"{where} contains control characters")
    return v


def _list(v: Any, where: str) -> list:
    _require(isinstance(v, list), f"{where} must be a list")
    _require(len(v) <= MAX_ITEMS, f"{where} has more than {MAX_ITEMS} entries")
    return v


def _node_id(v: Any, where: str, target: str, known_ids: Collection[str]) -> str:
    _require(isinstance(v, str), f"{where} must be a string")
    _require(v == target or v in known_ids, f"{where} {v[:40]!r} is not a known scene-graph node")
    _require(v == target, f"{where} {v!r}: only the action's target {target!r} may be updated")
    return v


def _label(v: Any, where: str) -> str:
    _require(isinstance(v, str) and LABEL_RE.match(v) is not None,
             f"{where} must be a short object label (letters, digits, spaces; at most {MAX_NAME} characters)")
    return v.strip()


def validate_answer(answer: Any, target: str, known_ids: Collection[str], frame_count: int,
                    stamp: float = 0.0, action: str = "",
                    prior_contents: Optional[Sequence[str]] = None) -> Analysis:
    """Turn a schema-valid answer into an Analysis; raise SchemaError otherwise."""
    a = _keys(answer, "the answer", TOP_KEYS, REQUIRED_KEYS)
    success = _bool(a["task_success"], "task_success")
    reason = a["failure_reason"]
    _require(reason is None or reason in FAILURE_REASONS,
             f"failure_reason must be null or one of {list(FAILURE_REASONS)}")
    _require(not (success and reason), "failure_reason must be null when task_success is true")
    confidence = _confidence(a["confidence"], "confidence")
    out = Analysis(action, target, success, reason or "", confidence=confidence, source="vlm",
                   retryable=reason in ("missed_grasp", "not_reachable", "other"))

    for i, item in enumerate(_list(a["property_updates"], "property_updates")):
        where = f"property_updates[{i}]"
        _keys(item, where, {"object_id", "property", "new_value", "old_value", "confidence", "reasoning", "is_opened"},
              {"object_id", "property", "new_value", "confidence"})
        _node_id(item["object_id"], f"{where}.object_id", target, known_ids)
        name = item["property"]
        _require(isinstance(name, str) and name in VOCABULARY,
                 f"{where}.property must be one of {list(VOCABULARY)} (use new_properties for others)")
        _require(name not in out.property_updates, f"{where}.property {name!r} is updated twice")
        value = item["new_value"]
        if name in ENUM_PROPERTIES:
            _require(value in ENUM_PROPERTIES[name], f"{where}.new_value must be one of {list(ENUM_PROPERTIES[name])}")
            text = value
        else:
            text = "true" if _bool(value, f"{where}.new_value") else "false"
        if "is_opened" in item:
            _bool(item["is_opened"], f"{where}.is_opened")
        if "old_value" in item:
            _require(isinstance(item["old_value"], (str, bool, type(None))) and len(str(item["old_value"])) <= MAX_NAME,
                     f"{where}.old_value must be a short string, boolean or null")
        _text(item.get("reasoning", ""), f"{where}.reasoning", MAX_REASONING)
        out.property_updates[name] = PropertyValue(text, _confidence(item["confidence"], f"{where}.confidence"),
                                                   "vlm", stamp)

    for i, item in enumerate(_list(a.get("new_properties", []), "new_properties")):
        where = f"new_properties[{i}]"
        _keys(item, where, {"name", "value", "confidence", "reasoning"}, {"name", "value"})
        name = item["name"]
        _require(isinstance(name, str) and NAME_RE.match(name) is not None,
                 f"{where}.name must be snake_case (a-z, 0-9, _; at most 32 characters)")
        _require(name not in VOCABULARY and name not in ("contents", "state", "label", "id"),
                 f"{where}.name {name!r} is reserved")
        _require(name not in out.new_properties, f"{where}.name {name!r} appears twice")
        value = item["value"]
        if isinstance(value, bool):
            text = "true" if value else "false"
        elif isinstance(value, (int, float)):
            _require(math.isfinite(value), f"{where}.value must be finite")
            text = repr(value)
        else:
            text = _label(value, f"{where}.value")
        _text(item.get("reasoning", ""), f"{where}.reasoning", MAX_REASONING)
        out.new_properties[name] = PropertyValue(text, _confidence(item.get("confidence", confidence),
                                                                   f"{where}.confidence"), "vlm", stamp)

    updates = _list(a.get("contents_updates", []), "contents_updates")
    _require(len(updates) <= 1, "contents_updates may hold one entry, for the target")
    for i, item in enumerate(updates):
        where = f"contents_updates[{i}]"
        _keys(item, where, {"fixture_id", "contents", "is_empty", "reasoning"}, {"fixture_id", "contents"})
        _node_id(item["fixture_id"], f"{where}.fixture_id", target, known_ids)
        names = []
        for j, c in enumerate(_list(item["contents"], f"{where}.contents")):
            _keys(c, f"{where}.contents[{j}]", {"name", "description"}, {"name"})
            names.append(_label(c["name"], f"{where}.contents[{j}].name"))
            _text(c.get("description", ""), f"{where}.contents[{j}].description", MAX_REASONING)
        is_empty = _bool(item.get("is_empty", not names), f"{where}.is_empty")
        _require(not (is_empty and names), f"{where}: is_empty is true but contents are listed")
        _text(item.get("reasoning", ""), f"{where}.reasoning", MAX_REASONING)
        # The interior was seen: what it lists is there, what it does not list is gone.
        out.contents_add, out.contents_remove = contents_change(names, prior_contents)

    key = a.get("key_frame")
    if key is not None:
        _require(isinstance(key, int) and not isinstance(key, bool) and 0 <= key < max(frame_count, 1),
                 f"key_frame must be null or an index 0..{max(frame_count - 1, 0)}")
        out.key_frame = key if frame_count else -1
    out.tags = [_label(t, f"tags[{i}]") for i, t in enumerate(_list(a.get("tags", []), "tags"))]
    out.caption = _text(a.get("caption", ""), "caption", MAX_CAPTION)
    return out


def schema_prompt() -> str:
    """The schema as shown to the model."""
    return (
        '{"task_success": true|false,\n'
        f' "failure_reason": null|{"|".join(FAILURE_REASONS)},\n'
        ' "property_updates": [{"object_id": "<the target id>", "property": '
        f'"{"|".join(VOCABULARY)}", "new_value": true|false (fullness: '
        f'{"|".join(ENUM_PROPERTIES["fullness"])}), "confidence": 0.0-1.0, "reasoning": "<one line>"}}],\n'
        ' "new_properties": [{"name": "<snake_case>", "value": "<short>", "confidence": 0.0-1.0, '
        '"reasoning": "<one line>"}],\n'
        ' "contents_updates": [{"fixture_id": "<the target id>", "contents": [{"name": "<object label>", '
        '"description": "<short>"}], "is_empty": true|false, "reasoning": "<one line>"}],\n'
        ' "key_frame": <index of the most informative frame>|null,\n'
        ' "tags": ["<short label for the keyframes>"], "caption": "<one sentence>", "confidence": 0.0-1.0}')

