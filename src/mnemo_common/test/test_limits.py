"""mnemo_common.limits on every service request and the RetrieveObject goal: each string, list
and count beyond its limit is refused with INVALID_ARGUMENT naming the field and the limit; the
same request within the limits passes; guarded() answers it before the handler runs."""
from __future__ import annotations

import importlib

import pytest

from mnemo_common import limits
from mnemo_common.types import MnemoError, Status
from mnemo_interfaces import action, srv

SERVICES = sorted(n for n in dir(srv) if n[0].isupper() and hasattr(getattr(srv, n), "Request"))


def message_class(ros_type: str):
    package, name = ros_type.split("/")
    return getattr(importlib.import_module(f"{package}.msg"), name)


def over_the_limit(msg_type, prefix=""):
    """(field path, a request of msg_type with that one field beyond its limit, limit name) for every
    bounded field, nested ones reached through a one-element list or the sub-message."""
    for field, ros_type in msg_type.get_fields_and_field_types().items():
        element = ros_type[len("sequence<"):-1] if ros_type.startswith("sequence<") else ros_type
        if ros_type.startswith("sequence<") and ("/" in element or element == "string"):
            msg = msg_type()
            setattr(msg, field, [message_class(element)() if "/" in element else "x"] * (limits.MAX_ITEMS + 1))
            yield prefix + field, msg, "MAX_ITEMS"
        if element == "string":
            limit, name = limits.char_limit(field)
            msg = msg_type()
            setattr(msg, field, ["x" * (limit + 1)] if ros_type.startswith("sequence<") else "x" * (limit + 1))
            yield prefix + field, msg, name
        elif field in limits.COUNT_FIELDS:
            msg = msg_type()
            setattr(msg, field, limits.MAX_K + 1)
            yield prefix + field, msg, "MAX_K"
        elif "/" in element and not element.startswith("builtin_interfaces/"):
            for path, inner, name in over_the_limit(message_class(element), ""):
                msg = msg_type()
                setattr(msg, field, [inner] if ros_type.startswith("sequence<") else inner)
                yield f"{prefix}{field}{'[0]' if ros_type.startswith('sequence<') else ''}.{path}", msg, name


CASES = [(name, path, msg, limit) for name in SERVICES for path, msg, limit in over_the_limit(getattr(srv, name).Request)]
CASES += [("RetrieveObject", path, msg, limit) for path, msg, limit in over_the_limit(action.RetrieveObject.Goal)]


def test_every_service_has_bounded_fields():
    bounded = {name for name, *_ in CASES}
    assert bounded == set(SERVICES) | {"RetrieveObject"}


@pytest.mark.parametrize("name,path,msg,limit", CASES, ids=[f"{c[0]}.{c[1]}" for c in CASES])
def test_a_field_beyond_its_limit_is_invalid_and_named(name, path, msg, limit):
    with pytest.raises(MnemoError) as err:
        limits.check_message(msg)
    assert err.value.code == Status.INVALID_ARGUMENT
    assert err.value.message.startswith(path) and f"mnemo_common.limits.{limit}" in err.value.message


@pytest.mark.parametrize("name", SERVICES)
def test_requests_within_the_limits_pass(name):
    request = getattr(srv, name).Request()
    for field, ros_type in request.get_fields_and_field_types().items():
        if ros_type == "string":
            setattr(request, field, "x" * limits.char_limit(field)[0])
    limits.check_message(request)


def test_non_finite_numbers_and_negative_counts_are_invalid():
    for request in (srv.SearchMemoryByPosition.Request(x=float("nan")), srv.SearchMemoryByText.Request(k=-1),
                    srv.SearchMemoryByText.Request(filter=srv.SearchMemoryByText.Request().filter.__class__(
                        radius=float("inf")))):
        with pytest.raises(MnemoError) as err:
            limits.check_message(request)
        assert err.value.code == Status.INVALID_ARGUMENT


def test_budget_limits_and_log_clipping():
    assert limits.check_budget(0) == "budget must be at least 1 step"
    assert "mnemo_common.limits.MAX_BUDGET" in limits.check_budget(limits.MAX_BUDGET + 1, 10_000)
    assert "max_budget" in limits.check_budget(51, 50) and limits.check_budget(50, 50) is None
    clipped = limits.clip("x" * 100_000)
    assert len(clipped) < limits.LOG_CHARS + 40 and clipped.endswith(f"[{100_000 - limits.LOG_CHARS} more characters]")


def test_guarded_answers_invalid_argument_before_the_handler():
    from mnemo_common.ros import guarded

    called = []
    handler = guarded(None, lambda req, res: called.append(req) or res)
    res = handler(srv.SearchMemoryByText.Request(text="x" * 100_000, k=5), srv.SearchMemoryByText.Response())
    assert res.error_code == Status.INVALID_ARGUMENT and "MAX_TEXT_CHARS" in res.error_msg and not called
    res = handler(srv.SearchMemoryByText.Request(text="a mug", k=5), srv.SearchMemoryByText.Response())
    assert res.error_code == Status.OK and called
