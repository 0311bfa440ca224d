"""The scale benchmark's synthetic records at a robot's patrol rate (``--patrol RATE HOURS``): stamps
inside each day's patrol hours, as many days as the rate makes of them, and the queries asked about
patrol times; without a patrol the records are those of the 5-day set, unchanged."""
import importlib.util
from pathlib import Path

import numpy as np

BENCH = Path(__file__).resolve().parents[1] / "bench"


def _load(name):
    spec = importlib.util.spec_from_file_location(name, BENCH / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_patrol_stamps_fill_the_patrol_hours_of_as_many_days_as_the_rate_makes():
    bm = _load("bench_memory")
    n = 3 * 8 * 3600  # three days of one record a second during 8-hour patrols
    data = bm.synthetic_arrays(n, patrol=(1.0, 8.0))
    clock = data.stamps % 86400.0
    assert clock.min() >= 8 * 3600 and clock.max() < 16 * 3600
    assert np.all(np.diff(data.stamps) >= 0)
    assert sorted(set((data.stamps // 86400).astype(int))) == [0, 1, 2]
    # the same records but for their stamps
    plain = bm.synthetic_arrays(n)
    assert plain.stamps.max() <= 5 * 86400 and np.array_equal(plain.emb, data.emb) and np.array_equal(plain.xs, data.xs)
    # patrol time and clock time map onto each other inside a patrol
    for s in (0.0, 3600.0, 8 * 3600.0 + 5.0, 20 * 3600.0):
        assert bm.patrol_seconds(float(bm.patrol_stamps(np.array([s]), 8.0)[0]), 8.0) == s


def test_queries_ask_about_patrol_times():
    bs = _load("bench_scale")
    span = 3 * 86400.0 + 16 * 3600.0
    qs = bs.queries_of(50, span, patrol_hours=8.0)
    clock = np.array([q["since"] % 86400.0 for q in qs])
    assert clock.min() >= 8 * 3600 and clock.max() < 16 * 3600
    assert all(q["until"] == q["since"] + 3600.0 and q["since"] <= span for q in qs)
