"""The stamped buffer and the rate-limited drop counter (no ROS)."""
from mnemo_common.streams import DropCounter, StampedBuffer


def test_stamped_buffer_nearest_and_age():
    buf = StampedBuffer(capacity=3)
    assert buf.nearest(1.0, 1.0) is None and buf.latest() is None
    for t in (1.0, 3.0, 2.0, 4.0):
        buf.add(t, f"p{t}")
    assert buf.latest() == (4.0, "p4.0")
    assert buf.nearest(2.9, 0.2) == (3.0, "p3.0")
    assert buf.nearest(10.0, 0.5) is None
    assert buf.nearest(1.0, 0.5) is None  # evicted by capacity


def test_drop_counter_rate_limits_per_reason():
    now = [0.0]
    drops = DropCounter(period=5.0, clock=lambda: now[0])
    assert drops.drop("a") and not drops.drop("a") and drops.drop("b")
    now[0] = 6.0
    assert drops.drop("a")
    assert drops.counts == {"a": 3, "b": 1}


def test_a_clock_that_goes_back_starts_the_buffer_afresh_instead_of_evicting_every_new_value():
    buf = StampedBuffer(capacity=3, jump_back=1.0)
    for t in (100.0, 101.0, 102.0):
        buf.add(t, f"old {t}")
    buf.add(101.8, "late")  # (out of order by less than jump_back: kept in order)
    assert buf.nearest(101.8, 0.01) == (101.8, "late")
    for t in (1.0, 2.0, 3.0, 4.0):  # a recording that loops, a simulator that restarts
        buf.add(t, f"new {t}")
    assert buf.latest() == (4.0, "new 4.0") and buf.nearest(2.0, 0.01) == (2.0, "new 2.0")
    assert buf.nearest(101.0, 5.0) is None
