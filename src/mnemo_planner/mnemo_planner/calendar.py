"""Time words to clock windows, for the simulator's clock and for a robot's wall clock.

A ``Calendar`` knows how the deployment's clock maps to days: the simulator counts seconds from
day 0 00:00 (day 0 a Monday, no time zone); a robot runs on ROS time (seconds since the Unix epoch,
UTC) and lives in a local time zone. ``windows(phrase, now)`` turns "yesterday evening", "this
morning", "on Monday", "two days ago", "the other day" into (since, until) clock windows; a phrase
with no time word gives None.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone, tzinfo
from typing import Optional

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_GONE = r"(?:\s+(?:just\s+)?(?:gone|past)\b)?"  # after a weekday: the one before today
NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7}
PARTS = {"morning": (5, 12), "afternoon": (12, 17), "evening": (17, 24), "night": (17, 24)}
_NUM = r"(\d+|a|an|one|two|three|four|five|six|seven)"
# meals people date things by, as the hours they usually span; "before"/"after" one reach to the next
MEALS = {"breakfast": (6, 10), "lunch": (11.5, 14.5), "dinner": (17.5, 21), "supper": (17.5, 21)}
# ... and the start of a day ("first thing", not "the first thing"), read as the hours around a meal are
MEAL = re.compile(r"\b(before|after|at|over|during|around|by)\s+(breakfast|lunch|dinner|supper)(?:\s?time)?\b|"
                  r"(?<!the )(?<!a )\b(?:at\s+)?(first thing)(?:\s+in the morning)?\b")
EARLY = (5.0, 10.0)  # "first thing"
# a vague point within the time named ("at one point on monday", "sometime two days ago"): part of the phrase
VAGUE = r"(?:\b(?:(?:at|during)\s+(?:some|one|any)\s+(?:point|time|stage)|some\s?time)\s+(?:(?:on|during|in)\s+)?)?"


@dataclass(frozen=True)
class Calendar:
    """``epoch_day0``: True for the simulator's clock (seconds since day 0 00:00, day 0 = ``day0_weekday``);
    False for wall clocks (seconds since 1970 UTC) read in ``tz``."""

    epoch_day0: bool = True
    day0_weekday: int = 0
    tz: Optional[tzinfo] = None

    @classmethod
    def simulator(cls) -> "Calendar":
        return cls(True, 0, None)

    @classmethod
    def wall(cls, tz_name: str = "") -> "Calendar":
        """ROS wall time in a time zone (IANA name; "" = the machine's local zone)."""
        if tz_name:
            from zoneinfo import ZoneInfo

            return cls(False, 0, ZoneInfo(tz_name))
        return cls(False, 0, datetime.now().astimezone().tzinfo)

    # -- days ------------------------------------------------------------------------------
    def day_start(self, t: float, days_back: int = 0) -> float:
        """Clock of 00:00 of the day ``t`` falls in, ``days_back`` days earlier."""
        if self.epoch_day0:
            return (int(t // 86400) - days_back) * 86400.0
        local = datetime.fromtimestamp(t, timezone.utc).astimezone(self.tz)
        midnight = (local - timedelta(days=days_back)).replace(hour=0, minute=0, second=0, microsecond=0)
        return midnight.astimezone(timezone.utc).timestamp() if midnight.tzinfo else midnight.timestamp()

    def hour_of(self, day_start: float, hour: float) -> float:
        if self.epoch_day0:
            return day_start + hour * 3600.0
        local = datetime.fromtimestamp(day_start, timezone.utc).astimezone(self.tz)
        return (local.replace(hour=0, minute=0) + timedelta(hours=hour)).timestamp()

    def weekday(self, t: float) -> int:
        if self.epoch_day0:
            return (int(t // 86400) + self.day0_weekday) % 7
        return datetime.fromtimestamp(t, timezone.utc).astimezone(self.tz).weekday()

    def describe(self, t: float, now: float) -> str:
        """"today at 09:14", "yesterday at 17:40", "on Tuesday (day 2) at 08:05"."""
        if self.epoch_day0:
            day, rest = divmod(int(t), 86400)
            hhmm = f"{rest // 3600:02d}:{rest % 3600 // 60:02d}"
            label = f"day {day}"
        else:
            local = datetime.fromtimestamp(t, timezone.utc).astimezone(self.tz)
            hhmm, label = local.strftime("%H:%M"), local.strftime("%Y-%m-%d")
        back = round((self.day_start(now) - self.day_start(t)) / 86400.0)
        name = WEEKDAYS[self.weekday(t)].capitalize()
        if back == 0:
            return f"today ({name}, {label}) at {hhmm}"
        if back == 1:
            return f"yesterday ({name}, {label}) at {hhmm}"
        return f"on {name} ({label}) at {hhmm}"

    # -- phrases -----------------------------------------------------------------------------
    def window(self, text: str, now: float) -> tuple[Optional[tuple[float, float]], str]:
        """The first time reference in ``text``: ((since, until), the words) or (None, "")."""
        t = text.lower()
        meal = MEAL.search(t)
        if meal:  # "before dinner on monday": the hours around a meal on the day named (today if none)
            return self._meal(t, meal, now)
        today = self.day_start(now)

        def part(day: float, name: str) -> tuple[float, float]:
            lo, hi = PARTS[name]
            return self.hour_of(day, lo), self.hour_of(day, hi)

        rules = [
            (r"\b(?:the\s+)?day before yesterday\b", lambda m: self._day(now, 2)),
            (r"\byesterday\s+(morning|afternoon|evening|night)\b", lambda m: part(self.day_start(now, 1), m.group(1))),
            (r"\blast (night|evening)\b", lambda m: part(self.day_start(now, 1), m.group(1))),
            (r"\byesterday\b", lambda m: self._day(now, 1)),
            (r"\b(?:this|earlier this)\s+(morning|afternoon|evening)\b",
             lambda m: (part(today, m.group(1))[0], min(now, part(today, m.group(1))[1]))),
            (r"\btonight\b", lambda m: (self.hour_of(today, 17), now)),
            (rf"\b{_NUM}\s+days?\s+(?:ago|back|before)\b", lambda m: self._day(now, _n(m.group(1)))),
            (rf"\b{_NUM}\s+hours?\s+ago\b", lambda m: (now - (_n(m.group(1)) + 0.5) * 3600, now - max(0, _n(m.group(1)) - 0.5) * 3600)),
            (r"\b(?:earlier\s+)?today\b|\bearlier(?:\s+on)?\b", lambda m: (today, now)),
            # (a day of the week said to be gone or past: the last one, as the day alone means)
            (rf"\b(?:on|last|this past)\s+({'|'.join(WEEKDAYS)})\b{_GONE}", lambda m: self._weekday(now, m.group(1))),
            (rf"\b({'|'.join(WEEKDAYS)})\b{_GONE}", lambda m: self._weekday(now, m.group(1))),
            (r"\blast week\b", lambda m: (self.day_start(now, 7), today)),
            (r"\b(?:the other day|a few days ago|a couple of days ago|recently|the last few days)\b",
             lambda m: (self.day_start(now, 6), today)),
        ]
        for pattern, make in rules:
            m = re.search(VAGUE + pattern, t)
            if m:
                return make(m), m.group(0)
        return None, ""

    def _meal(self, t: str, meal: re.Match, now: float) -> tuple[tuple[float, float], str]:
        rest = t[:meal.start()] + " " * (meal.end() - meal.start()) + t[meal.end():]
        day_window, day_words = self.window(rest, now)
        if day_window and day_window[1] - day_window[0] > 86400.0:
            return day_window, day_words  # ("at lunch last week": the days named, any hour)
        day = self.day_start(now)
        words = meal.group(0)
        if day_window:
            day = self.day_start(day_window[0])
            at = rest.find(day_words)
            lo, hi = min(at, meal.start()), max(at + len(day_words), meal.end())
            if not t[lo:hi].replace(day_words, "").replace(meal.group(0), "").strip(" ,"):
                words = t[lo:hi]  # (adjacent: taken out of the request together)
        start, end = MEALS[meal.group(2)] if meal.group(2) else EARLY
        later = [lo for lo, _ in MEALS.values() if lo > end]
        lo, hi = {"before": (PARTS["morning"][0], start), "after": (end - 0.5, min(later, default=24.0))}.get(
            meal.group(1), (start - 1.0, end + 1.0) if meal.group(2) else EARLY)
        since, until = self.hour_of(day, lo), self.hour_of(day, hi)
        if since > now and not day_window:  # (no day named, and today's is still to come: the last one)
            day = self.day_start(now, 1)
            since, until = self.hour_of(day, lo), self.hour_of(day, hi)
        return (since, min(until, now) if until > now >= since else until), words

    def _day(self, now: float, back: int) -> tuple[float, float]:
        return self.day_start(now, back), self.day_start(now, back - 1) if back > 0 else now

    def _weekday(self, now: float, name: str) -> tuple[float, float]:
        """The most recent such day before today (today when it is today and nothing else fits)."""
        back = (self.weekday(now) - WEEKDAYS.index(name)) % 7 or 7
        return self._day(now, back)


def _n(word: str) -> int:
    return int(word) if word.isdigit() else NUMBERS.get(word, 1)
