"""Memory QA of five kinds on a generated home, answered from memory alone (``mnemo_memory.recall``).

Questions come from the truth of the patrols (the scorer's side); memory is filled patrol by
patrol and each question is asked at the end of its patrol, so nothing later is in memory then:

- current, overwritten, habit: ``mnemo_bench.qa``'s questions (where now, where before it moved
  to a named fixture, where usually).
- counting ("How many sewing kits have you seen?"): for every class of which memory could have
  seen 2..k instances, asked at the end of each patrol where that number grew, and at the last.
  Decisive evidence: records that together show every instance seen so far.
- co-location ("Where did you last see the red mug together with the blue plate?"): at the last
  patrol, each describable object with the describable object it was seen most often beside (on
  the same support, in one frame). Decisive: a record that shows both on the answer support.

R@1 / R@5: the top / top-5 records returned hold decisive evidence (current, overwritten, habit:
a record that saw the object on the answer fixture during a stay there, ``mnemo_bench.qa``).
Accuracy: the answer memory gives is the true one (a view-level store gives none).
"""
from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Optional, Sequence

from mnemo_memory.recall import K, PLANS

KINDS = ("current", "overwritten", "habit", "counting", "co-location")

# One frame of the truth: its stamp and (object id, label, support) of every object it saw on a support.
Frame = tuple[float, list[tuple[str, str, str]]]


@dataclass
class Ask:
    kind: str
    text: str
    at: float
    args: tuple[str, ...]  # what the recall plan is given: descriptions (and a destination's name)
    answer: str
    decisive: Callable[[Any], bool] = field(repr=False, default=lambda r: False)  # one record holds the evidence
    enough: Optional[Callable[[Sequence[Any]], bool]] = field(repr=False, default=None)  # records together do

    def hits(self, records: Sequence[Any]) -> tuple[bool, bool]:
        """(R@1, R@5) of the records returned, best first."""
        if self.enough is not None:
            return bool(records) and self.enough(records[:1]), self.enough(records[:K])
        return bool(records) and self.decisive(records[0]), any(self.decisive(r) for r in records[:K])


def frames_of(observations: Iterable[Any]) -> list[Frame]:
    return [(o.stamp, [(s.object_id, s.label, s.support) for s in o.sightings
                       if s.kind == "object" and s.object_id and s.support]) for o in observations]


def plural(label: str) -> str:
    return label if label.endswith("s") else f"{label}s"


def counting_questions(frames: Sequence[Frame], ends: Sequence[float]) -> list[Ask]:
    seen: dict[str, set[str]] = defaultdict(set)
    asked: dict[str, int] = {}
    out: list[Ask] = []
    i = 0
    for n, end in enumerate(ends):
        while i < len(frames) and frames[i][0] <= end:
            for oid, label, _ in frames[i][1]:
                seen[label].add(oid)
            i += 1
        for label, ids in sorted(seen.items()):
            if 2 <= len(ids) <= K and (asked.get(label) != len(ids) or n == len(ends) - 1):
                asked[label] = len(ids)
                out.append(_count_ask(label, frozenset(ids), end))
    return out


def _count_ask(label: str, ids: frozenset, at: float) -> Ask:
    def enough(records: Sequence[Any]) -> bool:
        return ids <= {s.object_id for r in records for s in r.sightings}
    return Ask("counting", f"How many {plural(label)} have you seen?", at, (f"a {label}",), str(len(ids)),
               enough=enough)


def colocation_questions(frames: Sequence[Frame], at: float, phrases: dict[str, str]) -> list[Ask]:
    """``phrases``: object id -> the words that single it out ("red mug"), for describable objects."""
    beside: dict[str, Counter] = defaultdict(Counter)
    last_on: dict[frozenset, tuple[float, str]] = {}
    for stamp, seen in frames:
        if stamp > at:
            break
        for a, _, where in seen:
            for b, _, other in seen:
                if a != b and where == other:
                    beside[a][b] += 1
                    last_on[frozenset((a, b))] = (stamp, where)
    out, asked = [], set()
    for a in sorted(beside):
        partners = [b for b, _ in beside[a].most_common() if b in phrases]
        if a not in phrases or not partners or frozenset((a, partners[0])) in asked:
            continue
        b = partners[0]
        pair = frozenset((a, b))
        asked.add(pair)
        where = last_on[pair][1]

        def decisive(r: Any, pair: frozenset = pair, where: str = where) -> bool:
            return pair <= {s.object_id for s in r.sightings if s.support == where}
        out.append(Ask("co-location", f"Where did you last see the {phrases[a]} together with the {phrases[b]}?",
                       at, (f"the {phrases[a]}", f"the {phrases[b]}"), where, decisive=decisive))
    return out


def from_bench_question(q: Any, fixture_labels: dict[str, str]) -> Ask:
    """An ``mnemo_bench.qa.Question`` (current, overwritten, habit) as an Ask."""
    from mnemo_bench.qa import is_decisive

    phrase = "the " + " ".join([*q.attributes.values(), q.label])
    args = (phrase, fixture_labels.get(q.moved_to, q.moved_to)) if q.kind == "overwritten" else (phrase,)
    return Ask(q.kind, q.text, q.at, args, q.answer, decisive=lambda r, q=q: is_decisive(r, q))


def questions(scenario: Any, replay: Any) -> tuple[list[Any], list[Ask]]:
    """Replay every patrol of the scenario: (its observations, the questions of the five kinds)."""
    from mnemo_bench.qa import _Truth, describe, generate_questions

    truth = _Truth()
    observations = []
    for obs in replay.run_patrols(float("inf")):
        truth.record(replay.world, obs)
        observations.append(obs)
    ends = [segment.end_t for segment in scenario.patrol]
    fixture_labels = {f.id: f.label for f in scenario.fixtures}
    asks = [from_bench_question(q, fixture_labels) for q in generate_questions(scenario, truth, ends, fixture_labels)]
    frames = frames_of(observations)
    asks += counting_questions(frames, ends)
    objects = list(scenario.objects)
    phrases = {}
    for o in objects:
        desc = describe(o, objects)
        if desc is not None:
            phrases[o.id] = " ".join([*desc.values(), o.label])
    asks += colocation_questions(frames, ends[-1], phrases)
    return observations, sorted(asks, key=lambda a: a.at)


@dataclass
class Answered:
    kind: str
    r1: bool
    r5: bool
    correct: Optional[bool]  # None: memory gave no answer it could stand behind (view-level memory)


def ask(memory: Any, q: Ask) -> Answered:
    recall = PLANS[q.kind](memory, *q.args, at=q.at)
    r1, r5 = q.hits(recall.records)
    return Answered(q.kind, r1, r5, (recall.answer == q.answer) if recall.instances else None)
