"""What one request to a mnemo service or action may carry: the one place the limits live.

Every node checks each request against them before its handler runs (``mnemo_common.ros.guarded``
for services, the planner for its RetrieveObject goals); a request beyond a limit is answered
INVALID_ARGUMENT with the field and the limit named, and never reaches a core. ``clip`` bounds
what a log line repeats of a caller's text. The README's "Limits" table lists them.
"""
from __future__ import annotations

import math
from typing import Any, Optional

from mnemo_common.types import MnemoError, Status

MAX_INSTRUCTION_CHARS = 2000  # a RetrieveObject instruction
MAX_TEXT_CHARS = 1000  # query texts, task descriptions, captions, answers, property values, paths
MAX_NAME_CHARS = 256  # ids, labels, targets, rooms, tags and every other string
MAX_ITEMS = 256  # label, kind, id and tag lists; attributes, properties and sightings
MAX_K = 1000  # results asked of one query (k, limit); 0 lets the service choose where it allows
MAX_BUDGET = 200  # steps of one RetrieveObject goal (the planner's max_budget may only lower it)
LOG_CHARS = 160  # longest piece of a caller's text written into a log line

# Fields holding free text (the rest are names): by field name, in every interface.
TEXT_FIELDS = {"text", "query", "task", "caption", "answer", "value", "image_ref", "instruction"}
COUNT_FIELDS = {"k", "limit"}


def char_limit(field: str) -> tuple[int, str]:
    """The longest string a field may hold, and the name of that limit."""
    if field == "instruction":
        return MAX_INSTRUCTION_CHARS, "MAX_INSTRUCTION_CHARS"
    return (MAX_TEXT_CHARS, "MAX_TEXT_CHARS") if field in TEXT_FIELDS else (MAX_NAME_CHARS, "MAX_NAME_CHARS")


def check_string(path: str, field: str, value: str) -> None:
    limit, name = char_limit(field)
    if len(value) > limit:
        raise MnemoError(Status.INVALID_ARGUMENT,
                         f"{path} is {len(value)} characters long; the limit is {limit} (mnemo_common.limits.{name})")


def _check_scalar(path: str, field: str, ros_type: str, value: Any) -> None:
    if ros_type.startswith("string"):
        check_string(path, field, value)
    elif ros_type in ("float", "double") and not math.isfinite(value):
        raise MnemoError(Status.INVALID_ARGUMENT, f"{path} must be finite, got {value}")
    elif field in COUNT_FIELDS and not 0 <= value <= MAX_K:
        raise MnemoError(Status.INVALID_ARGUMENT,
                         f"{path} must be in 0..{MAX_K} (mnemo_common.limits.MAX_K), got {value}")


def check_message(msg: Any, prefix: str = "") -> None:
    """Raise INVALID_ARGUMENT when a field of a request (nested messages and lists included) is
    beyond its limit: a string longer than its field's limit, a list longer than MAX_ITEMS, a k or
    limit outside 0..MAX_K, a float that is not finite. Works on any generated ROS message
    (through its field table), so it needs no rclpy."""
    for field, ros_type in msg.get_fields_and_field_types().items():
        value, path = getattr(msg, field), prefix + field
        if ros_type.startswith("sequence<") or ros_type.endswith("]"):
            element = ros_type[len("sequence<"):-1].split(",")[0] if ros_type.startswith("sequence<") \
                else ros_type[:ros_type.index("[")]
            if "/" not in element and not element.startswith("string"):
                continue  # numbers and bytes (images, vectors): their size is the message's business
            if len(value) > MAX_ITEMS:
                raise MnemoError(Status.INVALID_ARGUMENT, f"{path} has {len(value)} items; the limit is "
                                                          f"{MAX_ITEMS} (mnemo_common.limits.MAX_ITEMS)")
            for i, item in enumerate(value):
                if "/" in element:
                    check_message(item, f"{path}[{i}].")
                else:
                    check_string(f"{path}[{i}]", field, item)
        elif "/" in ros_type:
            if not ros_type.startswith("builtin_interfaces/"):
                check_message(value, path + ".")
        else:
            _check_scalar(path, field, ros_type, value)


def check_budget(budget: int, max_budget: int = MAX_BUDGET) -> Optional[str]:
    """Why a step budget is refused (None when it is fine)."""
    ceiling = min(max_budget, MAX_BUDGET)
    if budget <= 0:
        return "budget must be at least 1 step"
    if budget > ceiling:
        which = "max_budget" if ceiling == max_budget else "mnemo_common.limits.MAX_BUDGET"
        return f"budget {budget} exceeds the limit {ceiling} ({which})"
    return None


def clip(text: str, limit: int = LOG_CHARS) -> str:
    """``text`` cut for a log line, saying how much was left out."""
    return text if len(text) <= limit else f"{text[:limit]}... [{len(text) - limit} more characters]"
