"""Object search: the best sighting of each of the k object instances that best match a query.

The engine ranks sightings (dense and sparse rankings fused). An object that never moves is seen
in every patrol: a month of them leaves hundreds of identical sightings, which fill any page of
that ranking, and widening the page until it holds k instances reads and re-reads all of them.
Pages here leave out the instances already answered instead (a filter on ``object``), as Qdrant's
grouping does on a server: each page is the fused ranking of the sightings of instances not
answered yet, and the first sighting of each instance on it answers that instance. The first page
is the ranking the store always searched; a repeated instance costs one more page, however many
its repeats. A page holds as many sightings per answer still wanted as the previous page took
(at least the first page's size, at most four times the previous one).

Answers come in the order found: a page's before the next page's, which the full ranking ranks
below them too (they were not on the page). A score is the engine's fused score on the page that
answered it. A region (a circle) is checked on each sighting before it can answer, so an instance
whose best sighting lies in a corner of the filter's box is answered by its best one inside the
circle; sightings that answer nothing (outside the circle, or of no instance) are left out of the
next page by their point ids.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable, Optional

from mnemo_memory.sightings import sighting_point_id


Hit = tuple[dict, float]  # (sighting payload, score)


def best_per_object(page_of: Callable[[Any, int], list[Hit]], cond: Any, region: Optional[Any], limit: int,
                    pool: int) -> list[Hit]:
    """Up to ``limit`` (best sighting, score) of distinct instances, best first. ``page_of(cond, n)``:
    the first n sightings of the ranking under the store's ``Conditions``; ``region``: an object
    with ``contains(payload)``, or None; ``pool``: sightings per page."""
    answers: dict[str, Hit] = {}
    passed: list[str] = []
    size = pool
    while len(answers) < limit:
        before = len(answers)
        page = page_of(replace(cond, except_objects=tuple(answers), except_ids=tuple(passed)), size)
        for p, score in page:
            if p.get("object") and (region is None or region.contains(p)):
                answers.setdefault(p["object"], (p, score))
        passed += [sighting_point_id(p["record"], p["i"]) for p, _ in page if p.get("object") not in answers]
        if len(page) < size:
            break
        # the next page holds as many sightings per answer still wanted as this one took
        size = max(pool, min(4 * size, size * (limit - len(answers)) // max(1, len(answers) - before)))
    return list(answers.values())[:limit]
