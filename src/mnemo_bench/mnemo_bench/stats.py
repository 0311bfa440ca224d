"""Rates with 95% Wilson score intervals, and aggregation of per-task rows by method, type and family."""
from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import asdict, dataclass
from typing import Any, Callable, Iterable, Optional

Z95 = 1.959963984540054


def wilson(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a binomial proportion ((0, 1) when n is 0)."""
    if n <= 0:
        return 0.0, 1.0
    if not 0 <= successes <= n:
        raise ValueError(f"successes must be in [0, {n}], got {successes}")
    p = successes / n
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass
class Aggregate:
    """Success and effort of a group of task rows."""

    n: int
    successes: int
    rate: float
    ci_low: float
    ci_high: float
    # over successful tasks with optimal_actions > 0 (recall tasks need no physical action)
    physical_per_success: Optional[float]
    optimal_per_success: Optional[float]
    action_ratio: Optional[float]  # sum of physical actions / sum of optimal actions
    mean_steps: float
    mean_wall_time: float
    locked_retries: int

    def to_dict(self) -> dict:
        return asdict(self)


def _field(row: Any, name: str) -> Any:
    return row[name] if isinstance(row, dict) else getattr(row, name)


def aggregate(rows: Iterable[Any]) -> Aggregate:
    rows = list(rows)
    n = len(rows)
    ok = [r for r in rows if _field(r, "success")]
    low, high = wilson(len(ok), n)
    acting = [r for r in ok if _field(r, "optimal_actions") > 0]
    phys = sum(_field(r, "physical_actions") for r in acting)
    opt = sum(_field(r, "optimal_actions") for r in acting)
    return Aggregate(
        n=n, successes=len(ok), rate=len(ok) / n if n else 0.0, ci_low=low, ci_high=high,
        physical_per_success=phys / len(acting) if acting else None,
        optimal_per_success=opt / len(acting) if acting else None,
        action_ratio=phys / opt if opt else None,
        mean_steps=sum(_field(r, "steps") for r in rows) / n if n else 0.0,
        mean_wall_time=sum(_field(r, "wall_time") for r in rows) / n if n else 0.0,
        locked_retries=sum(_field(r, "locked_retries") for r in rows))


def group(rows: Iterable[Any], key: Callable[[Any], Any]) -> dict[Any, list[Any]]:
    out: dict[Any, list[Any]] = defaultdict(list)
    for r in rows:
        out[key(r)].append(r)
    return dict(out)


def aggregate_by(rows: Iterable[Any], dimension: str) -> dict[str, dict[str, Aggregate]]:
    """{method: {value of the dimension ('type', 'family' or 'all'): Aggregate}}."""
    out: dict[str, dict[str, Aggregate]] = {}
    for method, mrows in group(rows, lambda r: _field(r, "method")).items():
        if dimension == "all":
            out[method] = {"all": aggregate(mrows)}
        else:
            out[method] = {k: aggregate(v) for k, v in sorted(group(mrows, lambda r: _field(r, dimension)).items())}
    return out
