"""Time words to windows, on the simulator's clock and on ROS wall time in a non-UTC zone."""
from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from mnemo_planner.calendar import Calendar

H = 3600.0
D = 86400.0


def test_simulator_clock_day0_is_a_monday():
    cal = Calendar.simulator()
    now = 3 * D + 18 * H  # Thursday 18:00
    assert cal.window("on Monday", now)[0] == (0.0, D)
    assert cal.window("yesterday evening", now)[0] == (2 * D + 17 * H, 3 * D)
    assert cal.window("last evening", now) == ((2 * D + 17 * H, 3 * D), "last evening")  # (as "last night" is)
    assert cal.window("this morning", now)[0] == (3 * D + 5 * H, 3 * D + 12 * H)
    assert cal.window("two days ago", now)[0] == (D, 2 * D)
    assert cal.window("the thing I want", now) == (None, "")
    # a day of the week said to be gone or past is the last one, and those words belong to the time phrase
    assert cal.window("on Tuesday just gone", now) == ((D, 2 * D), "on tuesday just gone")
    assert cal.window("it was there Monday past", now) == ((0.0, D), "monday past")
    assert "yesterday" in cal.describe(2 * D + 9 * H, now) and "day 2" in cal.describe(2 * D + 9 * H, now)


@pytest.mark.parametrize("zone", ["America/New_York", "Asia/Tokyo"])
def test_wall_clock_in_a_local_time_zone(zone):
    tz = ZoneInfo(zone)
    cal = Calendar.wall(zone)
    now = datetime(2026, 12, 3, 9, 30, tzinfo=tz).timestamp()  # a Thursday morning, local time

    def local(t: float) -> datetime:
        return datetime.fromtimestamp(t, tz)

    lo, hi = cal.window("on Monday", now)[0]
    assert (local(lo).date().isoformat(), local(lo).hour) == ("2026-11-30", 0)
    assert local(hi).date().isoformat() == "2026-12-01" and local(hi).hour == 0
    lo, hi = cal.window("yesterday evening", now)[0]
    assert (local(lo).day, local(lo).hour, local(hi).day, local(hi).hour) == (2, 17, 3, 0)
    lo, hi = cal.window("this morning", now)[0]
    assert (local(lo).day, local(lo).hour) == (3, 5) and hi == now  # up to now, not a UTC window
    lo, hi = cal.window("two days ago", now)[0]
    assert (local(lo).day, local(lo).hour, local(hi).day) == (1, 0, 2)
    assert "Thursday" in cal.describe(now - 60, now) or "today" in cal.describe(now - 60, now)


def test_meals_a_vague_point_and_first_thing_date_within_a_day():
    cal = Calendar.simulator()
    now = 3 * D + 18 * H  # Thursday 18:00
    assert cal.window("the dax at one point on monday", now) == ((0.0, D), "at one point on monday")
    (lo, hi), words = cal.window("on the crate after supper two days ago, please", now)
    assert words == "after supper two days ago" and D + 20 * H <= lo <= D + 21 * H and hi == 2 * D
    (lo, hi), words = cal.window("on the crate yesterday after lunchtime", now)
    assert words == "yesterday after lunchtime" and 2 * D + 13 * H <= lo <= 2 * D + 15 * H and 2 * D + 17 * H <= hi < 3 * D
    (lo, hi), words = cal.window("yesterday before breakfast", now)
    assert words == "yesterday before breakfast" and lo >= 2 * D and hi <= 2 * D + 7 * H
    (lo, hi), _ = cal.window("at dinner", now)
    assert 3 * D + 16 * H <= lo and hi == now  # today's, up to now
    assert cal.window("first thing in the morning", now) == ((3 * D + 5 * H, 3 * D + 10 * H), "first thing in the morning")
    assert cal.window("yesterday first thing", now)[0] == (2 * D + 5 * H, 2 * D + 10 * H)
    assert cal.window("the first thing on the crate", now) == (None, "")  # a noun phrase, no time
    # a meal of no day named that is still to come today is the last one; a span of days stays whole
    (lo, hi), _ = cal.window("after supper", 3 * D + 1 * H)
    assert 2 * D + 20 * H <= lo and hi == 3 * D
    assert cal.window("at lunch last week", now)[0] == (cal.day_start(now, 7), 3 * D)
