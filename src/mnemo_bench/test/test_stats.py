import math

import pytest

from mnemo_bench.stats import aggregate, aggregate_by, wilson


def test_wilson_known_values():
    # reference values of the Wilson score interval (z = 1.96)
    lo, hi = wilson(8, 10)
    assert lo == pytest.approx(0.4902, abs=1e-3) and hi == pytest.approx(0.9433, abs=1e-3)
    lo, hi = wilson(0, 10)
    assert lo == 0.0 and hi == pytest.approx(0.2775, abs=1e-3)
    lo, hi = wilson(10, 10)
    assert hi == pytest.approx(1.0) and lo == pytest.approx(0.7225, abs=1e-3)
    assert wilson(0, 0) == (0.0, 1.0)


def test_wilson_rejects_impossible_counts():
    with pytest.raises(ValueError):
        wilson(11, 10)


def _row(method, success, typ="visible", family="class", phys=3, opt=2, steps=4, retries=0):
    return {"method": method, "type": typ, "family": family, "success": success, "physical_actions": phys,
            "optimal_actions": opt, "steps": steps, "wall_time": 0.5, "locked_retries": retries}


def test_aggregate_counts_effort_over_successes_only():
    rows = [_row("full", True, phys=3, opt=2), _row("full", True, phys=5, opt=4), _row("full", False, phys=20, opt=2),
            _row("full", True, typ="recall", phys=0, opt=0, retries=1)]
    a = aggregate(rows)
    assert (a.n, a.successes) == (4, 3)
    assert a.rate == 0.75
    assert a.action_ratio == pytest.approx(8 / 6)  # failures and recall (optimal 0) excluded
    assert a.physical_per_success == 4.0 and a.optimal_per_success == 3.0
    assert a.locked_retries == 1
    assert a.ci_low < 0.75 < a.ci_high


def test_aggregate_by_type_and_family():
    rows = [_row("a", True, typ="visible"), _row("a", False, typ="interactive", family="locked"),
            _row("b", True, typ="visible")]
    by_type = aggregate_by(rows, "type")
    assert set(by_type) == {"a", "b"}
    assert by_type["a"]["visible"].successes == 1 and by_type["a"]["interactive"].successes == 0
    by_family = aggregate_by(rows, "family")
    assert by_family["a"]["locked"].n == 1
    assert aggregate_by(rows, "all")["a"]["all"].n == 2
    assert math.isclose(aggregate([]).rate, 0.0)
