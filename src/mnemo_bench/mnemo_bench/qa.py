"""Memory QA in the spirit of ObsMem (WorldLines): questions about the current state, an
overwritten earlier state and habits, answered from memory, scored for answer accuracy and R@5.

Questions are generated from the scenario's truth while the patrols run (where each object truly
is at every patrol frame, and which frames saw it there); the system answers from what it built
(scene-graph location trails and ``usual_location``, long-term memory search), never from the
truth:

- current ("Where is the red mug now?", asked at the end of a patrol): the object's location then;
  asked for every object that moved since the previous patrol's end, and for every object at the last.
- overwritten ("Where was the red mug before it moved to the sink?"): the location it left; asked
  once per move, at the end of the first patrol that saw it at the new place.
- habit ("Where is the red mug usually?"): the place it was at in most patrol frames (asked at
  the end when one place holds at least half of them and it was at two or more).

Objects are named by class plus the fewest attribute values that single them out (objects no
description singles out are not asked about). R@5: whether one of the top-5 records the memory
returns for the question (current: nearest in time before the question; overwritten: within
the stay the scene graph remembers; habit: by meaning) saw the object at the answer fixture during
a stay there (the decisive observation). Answer accuracy: the answered fixture is the true one.
"""
from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, field
from itertools import combinations
from typing import Any, Optional

from mnemo_common.types import MemoryFilter

from mnemo_bench.stats import wilson

KINDS = ("current", "overwritten", "habit")
HABIT_SHARE = 0.5


@dataclass
class Question:
    id: str
    kind: str  # current | overwritten | habit
    text: str
    at: float  # robot clock when asked
    object_id: str  # truth (the scorer's side)
    label: str
    attributes: dict[str, str]
    answer: str  # fixture id
    moved_to: str = ""  # overwritten: where it went
    stays: list[tuple[float, float]] = field(default_factory=list)  # when it was at the answer fixture


@dataclass
class QaRow:
    scenario: str
    question_id: str
    kind: str
    question: str
    truth: str
    answer: str
    correct: bool
    retrieved: int  # records retrieved (<= 5); 0 when there is no long-term memory
    hit_at_5: Optional[bool]  # None without memory

    def to_dict(self) -> dict:
        return asdict(self)


def describe(obj: Any, all_objects: list[Any]) -> Optional[dict[str, str]]:
    """The fewest attributes that tell the object apart from the others of its class (None: none do)."""
    others = [o for o in all_objects if o.label == obj.label and o.id != obj.id]
    if not others:
        return {}
    keys = sorted(obj.attributes, key=lambda k: (k not in ("color", "colour"), k))
    for size in range(1, len(keys) + 1):
        for chosen in combinations(keys, size):
            if all(any(o.attributes.get(k) != obj.attributes[k] for k in chosen) for o in others):
                return {k: obj.attributes[k] for k in chosen}
    return None


def _phrase(label: str, attributes: dict[str, str]) -> str:
    return " ".join([*attributes.values(), label])


def _runs(samples: list[tuple[float, Optional[str]]]) -> list[tuple[str, float, float]]:
    """Contiguous stays (fixture, first sample, last sample) from time-ordered samples."""
    runs: list[list] = []
    for t, where in samples:
        if runs and runs[-1][0] == where:
            runs[-1][2] = t
        else:
            runs.append([where, t, t])
    return [(w, a, b) for w, a, b in runs if w]


class _Truth:
    """Where each object truly was at every patrol frame, and where frames saw it."""

    def __init__(self) -> None:
        self.samples: dict[str, list[tuple[float, Optional[str]]]] = defaultdict(list)
        self.seen: dict[tuple[str, str], list[float]] = defaultdict(list)  # (object, fixture) -> stamps, in order

    def record(self, world: Any, obs: Any) -> None:
        for o in world.scenario.objects:
            where = world.truth_location(o.id)
            self.samples[o.id].append((obs.stamp, where if where not in (None, "robot") else None))
        for s in obs.sightings:
            if s.kind != "fixture" and s.object_id and s.support:
                self.seen[(s.object_id, s.support)].append(obs.stamp)

    def seen_at(self, oid: str, fixture: str, since: float, until: float) -> bool:
        stamps = self.seen.get((oid, fixture), [])
        i = bisect_left(stamps, since)
        return i < len(stamps) and stamps[i] <= until


def generate_questions(scenario: Any, truth: _Truth, segment_ends: list[float], fixture_labels: dict[str, str]
                       ) -> list[Question]:
    questions: list[Question] = []
    asked_moves: set[tuple[str, float]] = set()
    previous: dict[str, Optional[str]] = {}
    descriptions = {obj.id: describe(obj, list(scenario.objects)) for obj in scenario.objects}
    times = {oid: [t for t, _ in samples] for oid, samples in truth.samples.items()}
    for k, t_q in enumerate(segment_ends):
        last = k == len(segment_ends) - 1
        for obj in scenario.objects:
            attrs = descriptions[obj.id]
            samples = truth.samples.get(obj.id, [])[:bisect_right(times.get(obj.id, []), t_q)]
            if attrs is None or not samples:
                continue
            runs = _runs(samples)
            where_now = samples[-1][1]
            phrase = _phrase(obj.label, attrs)
            if where_now and runs and runs[-1][0] == where_now:
                _, since, until = runs[-1]
                seen_now = truth.seen_at(obj.id, where_now, since, until)
                if seen_now and (last or previous.get(obj.id, where_now) != where_now):
                    questions.append(Question(f"{scenario.name}/current/{obj.id}/{k}", "current",
                                              f"Where is the {phrase} now?", t_q, obj.id, obj.label, attrs, where_now,
                                              stays=[(since, until)]))
                if len(runs) >= 2 and seen_now:
                    before, b_since, b_until = runs[-2]
                    if before != where_now and (obj.id, b_until) not in asked_moves and \
                            truth.seen_at(obj.id, before, b_since, b_until):
                        asked_moves.add((obj.id, b_until))
                        to = fixture_labels.get(where_now, where_now)
                        questions.append(Question(f"{scenario.name}/overwritten/{obj.id}/{k}", "overwritten",
                                                  f"Where was the {phrase} before it moved to the {to}?", t_q, obj.id,
                                                  obj.label, attrs, before, moved_to=where_now,
                                                  stays=[(b_since, b_until)]))
            previous[obj.id] = where_now
            if last:
                places = Counter(w for _, w in samples if w)
                if len(places) >= 2:
                    top, count = places.most_common(1)[0]
                    stays = [(a, b) for w, a, b in runs if w == top]
                    if count >= HABIT_SHARE * sum(places.values()) and \
                            any(truth.seen_at(obj.id, top, a, b) for a, b in stays):
                        questions.append(Question(f"{scenario.name}/habit/{obj.id}", "habit",
                                                  f"Where is the {phrase} usually?", t_q, obj.id, obj.label, attrs,
                                                  top, stays=stays))
    return questions


# -- answering from memory (the system's side: no truth here) ---------------------------------
def _matching_nodes(graph: Any, q: Question) -> list[Any]:
    nodes = graph.query(label=q.label, attributes=q.attributes or None, include_stale=True, kind="object")
    return nodes or graph.query(label=q.label, include_stale=True, kind="object")


def _stays(nodes: list[Any]) -> list[Any]:
    locs = [loc for n in nodes for loc in [*n.location_trail, n.location()] if loc.parent]
    return sorted(locs, key=lambda loc: (loc.since, loc.until))


def answer_question(q: Question, graph: Any, memory: Any) -> tuple[str, list[Any]]:
    """(answered fixture id, the top-5 memory records retrieved for it)."""
    nodes = _matching_nodes(graph, q)
    phrase = _phrase(q.label, q.attributes)
    labels = MemoryFilter(labels=[q.label])
    answer, records = "", []
    if q.kind == "current":
        current = [n for n in nodes if n.state == "current"] or nodes
        answer = current[0].parent if current else ""
        if memory is not None:
            since = current[0].location().since if current else None
            if since is not None and since <= q.at:  # the newest evidence from the stay the graph believes in
                records = _newest_of_object(memory.search_time(since=since, until=q.at, k=50, text=phrase,
                                                               filter=labels))
            if not records:
                records = memory.search_time(around=q.at, k=5, text=phrase, filter=labels)
    elif q.kind == "overwritten":
        stays = _stays(nodes)
        now = stays[-1].parent if stays else ""
        before = [loc for loc in stays if loc.parent != now]
        if before:
            answer = before[-1].parent
        if memory is not None:
            if before:
                since, until = before[-1].since, max(before[-1].until, before[-1].since)
                records = memory.search_time(since=since, until=until, k=5, text=phrase, filter=labels)
            else:
                records = memory.search_text(phrase, k=5, filter=MemoryFilter(until=q.at, labels=[q.label]))
    else:
        best = max(nodes, key=lambda n: n.observation_count, default=None)
        answer = graph.usual_location(best.id) if best is not None else ""
        if memory is not None:
            records = _usual_place_records(memory, phrase, MemoryFilter(until=q.at, labels=[q.label]))
    if not answer and memory is not None:  # no scene-graph node: the newest sighting memory holds
        newest = memory.search_time(around=q.at, k=5, text=phrase, filter=labels)
        for r in newest:
            s = next((s for s in r.sightings if s.label == q.label and s.support), None)
            if s is not None:
                answer = s.support
                break
    return answer, list(records)[:5]


def _newest_of_object(found: list[Any]) -> list[Any]:
    """The 5 newest of the records whose matched sighting is the best match's instance."""
    target = next((r.sightings[r.matched_sighting].object_id for r in found if r.matched_sighting >= 0), "")
    same = [r for r in found if r.matched_sighting >= 0 and r.sightings[r.matched_sighting].object_id == target]
    return sorted(same or found, key=lambda r: -r.span[1])[:5]


def _usual_place_records(memory: Any, phrase: str, f: MemoryFilter, pool: int = 200) -> list[Any]:
    """The top-5 of the records that saw the object, from the place most of its sightings among
    the best-matching ``pool`` show it at: evidence of a habit is frequency, not similarity."""
    found = memory.search_text(phrase, k=pool, filter=f)
    matched = {id(r): r.sightings[r.matched_sighting] for r in found if r.matched_sighting >= 0}
    target = next((s.object_id for s in matched.values() if s.object_id), "")  # the best match's instance
    support = {key: s.support for key, s in matched.items() if s.object_id == target}
    counts = {id(r): r.count for r in found}  # a compacted record stands for that many observations
    votes: Counter = Counter()
    for key, where in support.items():
        if where:
            votes[where] += counts[key]
    if not votes:
        return found[:5]
    usual = votes.most_common(1)[0][0]
    return [r for r in found if support.get(id(r)) == usual][:5]


def is_decisive(record: Any, q: Question) -> bool:
    """The record saw the object at the answer fixture while it truly stayed there."""
    return any(s.object_id == q.object_id and s.support == q.answer for s in record.sightings) and \
        any(a <= record.stamp <= b for a, b in q.stays)


def run_qa(scenario: Any, seed: Optional[int] = 0, perceiver: Any = None, memory: Any = None) -> list[QaRow]:
    """Patrol the whole scenario into a fresh memory (``memory``, or the bench's default) and scene
    graph, asking the questions at the end of each patrol; no tasks run, so memory holds only what
    the patrols saw."""
    from mnemo_bench.methods import METHODS
    from mnemo_bench.memory import make_memory
    from mnemo_bench.runner import BenchStack

    from mnemo_sim.tasks import TaskRunner

    # the truth, from a replay of the patrols (the scorer's side), and every question once
    truth = _Truth()
    replay = TaskRunner(scenario, seed)
    for obs in replay.run_patrols(float("inf")):
        truth.record(replay.world, obs)
    ends = [segment.end_t for segment in scenario.patrol]
    questions = generate_questions(scenario, truth, ends, {f.id: f.label for f in scenario.fixtures})
    # the system: patrol by patrol into memory and the scene graph, answering what is due
    own = memory is None
    stack = BenchStack(scenario, METHODS["full"], seed, memory=memory or make_memory(), perceiver=perceiver)
    try:
        return _ask(stack, questions, ends, scenario)
    finally:
        if own and stack.memory is not None:
            stack.memory.close()


def _ask(stack: Any, questions: list, ends: list[float], scenario: Any) -> list[QaRow]:
    rows: list[QaRow] = []
    for end in ends:
        stack.patrol(end)
        for q in (q for q in questions if q.at == end):
            answer, records = answer_question(q, stack.graph, stack.memory)
            hit = any(is_decisive(r, q) for r in records) if stack.memory is not None else None
            rows.append(QaRow(scenario.name, q.id, q.kind, q.text, q.answer, answer, answer == q.answer,
                              len(records), hit))
    return rows


def summarize_qa(rows: list[Any]) -> dict:
    out = {}
    by_kind = defaultdict(list)
    for r in rows:
        by_kind[r.kind].append(r)
    for kind in [*KINDS, "all"]:
        rs = rows if kind == "all" else by_kind.get(kind, [])
        if not rs:
            continue
        correct = sum(r.correct for r in rs)
        lo, hi = wilson(correct, len(rs))
        hits = [r.hit_at_5 for r in rs if r.hit_at_5 is not None]
        out[kind] = {"n": len(rs), "correct": correct, "accuracy": correct / len(rs), "ci_low": lo, "ci_high": hi,
                     "r_at_5": (sum(hits) / len(hits)) if hits else None}
    return out


def qa_table(summary: dict) -> list[str]:
    lines = ["| question | n | answer accuracy [95% CI] | R@5 |", "|---|---|---|---|"]
    for kind, s in summary.items():
        r5 = "-" if s["r_at_5"] is None else f"{s['r_at_5']:.2f}"
        lines.append(f"| {kind} | {s['n']} | {s['accuracy']:.2f} [{s['ci_low']:.2f}, {s['ci_high']:.2f}] | {r5} |")
    return lines
