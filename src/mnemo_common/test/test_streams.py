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
