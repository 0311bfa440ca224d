"""Retrieval quality on generated homes: object queries and memory QA, object-level memory against
the view-level baseline in the same run; compaction's share of records and its effect on QA.

    python src/mnemo_memory/bench/bench_retrieval.py [--seeds 0 1 2] [--days D] [--size medium] [--no-qa]

For every object a patrol saw, the queries people ask, each asked through ``search_text`` (k=5):

- class       "a games console"                    (objects alone in their class)
- attributes  "the black Playtron games console"   (the fewest attributes singling it out)
- owner       "Carmen's magazine"                   (objects with an owner)
- where       "where is my black Playtron games console"
- left on     "the black Playtron games console I left on the tv stand"  (where it was seen most)

R@1 / R@5: a top-1 / top-5 record saw that object (left on: at that fixture). Memory QA of five
kinds (``recall_qa``: current, overwritten, habit, counting, co-location) asked patrol by patrol
and answered from memory alone (``mnemo_memory.recall``): R@1 / R@5 of the evidence returned and
answer accuracy. Baseline: the same engine, the same queries and plans with the object index
switched off (as a store created before object-level memory): records ranked by their caption
alone, and no sighting to resolve a question's object, so a plan returns its text search.
Compaction: the share of records left after online compaction of the same patrol, and QA with it.
"""
from __future__ import annotations

import argparse
import json
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from mnemo_common.embedding import get_embedder

from mnemo_memory.compaction import CompactionConfig
from mnemo_memory.ingest import record_from_observation
from mnemo_memory.service import MemoryService
from recall_qa import KINDS as QA_KINDS
from recall_qa import Answered, ask, questions

KINDS = ("class", "attributes", "owner", "where", "left on")
VARIANTS = ("views (baseline)", "objects", "objects + compaction")
K = 5


@dataclass(frozen=True)
class ObjectQuery:
    kind: str
    text: str
    object_id: str
    support: str = ""  # left on: the fixture it must be seen at


def object_queries(scenario: Any, seen_at: dict[str, Counter]) -> list[ObjectQuery]:
    from mnemo_bench.qa import describe

    objects = list(scenario.objects)
    fixture_label = {f.id: f.label for f in scenario.fixtures}
    class_size = Counter(o.label for o in objects)
    out = []
    for o in objects:
        if o.id not in seen_at:
            continue
        desc = describe(o, objects)
        if class_size[o.label] == 1:
            out.append(ObjectQuery("class", f"a {o.label}", o.id))
        if desc is None:
            continue
        phrase = " ".join([*desc.values(), o.label])
        if desc:
            out.append(ObjectQuery("attributes", f"the {phrase}", o.id))
        if o.attributes.get("owner"):
            out.append(ObjectQuery("owner", f"{o.attributes['owner']}'s {o.label}", o.id))
        out.append(ObjectQuery("where", f"where is my {phrase}", o.id))
        support = seen_at[o.id].most_common(1)[0][0]
        out.append(ObjectQuery("left on", f"the {phrase} I left on the {fixture_label.get(support, support)}", o.id,
                               support))
    return out


def hit(record: Any, q: ObjectQuery) -> bool:
    return any(s.object_id == q.object_id and (not q.support or s.support == q.support) for s in record.sightings)


def views_only(memory: MemoryService) -> MemoryService:
    """The baseline: the object index switched off before anything is written."""
    memory.store.objects = False
    return memory


def score_queries(memory: MemoryService, queries: list[ObjectQuery]) -> dict[str, list[tuple[bool, bool]]]:
    out: dict[str, list[tuple[bool, bool]]] = defaultdict(list)
    for q in queries:
        found = memory.search_text(q.text, k=K)
        out[q.kind].append((bool(found) and hit(found[0], q), any(hit(r, q) for r in found)))
    return out


def run_seed(seed: int, size: str, days: Any, qa: bool, tmp: str, embedder: Any = None,
             only: Any = None) -> dict:
    from mnemo_sim.generator import generate_scenario
    from mnemo_sim.tasks import TaskRunner

    embedder = embedder or get_embedder()
    scenario = generate_scenario(seed, size=size, days=days)
    observations, asks = questions(scenario, TaskRunner(scenario, 0))
    if not qa:
        asks = []
    seen_at: dict[str, Counter] = defaultdict(Counter)
    for obs in observations:
        for s in obs.sightings:
            if s.kind == "object" and s.object_id and s.support:
                seen_at[s.object_id][s.support] += 1
    queries = object_queries(scenario, seen_at)
    ends = [segment.end_t for segment in scenario.patrol]

    def store(name: str, compaction: Any = None) -> MemoryService:
        return MemoryService.open(embedder, f"{tmp}/{seed}-{name}", compaction=compaction)

    out: dict[str, Any] = {"seed": seed, "observations": len(observations), "queries": len(queries)}
    variants: dict[str, Callable[[], MemoryService]] = dict(zip(VARIANTS, (
        lambda: views_only(store("views")), lambda: store("objects"),
        lambda: store("compacted", CompactionConfig()))))
    for name, make in variants.items():
        if only and name not in only:
            continue
        memory = make()
        answered, i = [], 0
        for end in ends:  # patrol by patrol, each question asked when its patrol ends
            batch = []
            while i < len(observations) and observations[i].stamp <= end:
                batch.append(record_from_observation(observations[i], observations[i].caption))
                i += 1
            for j in range(0, len(batch), 256):
                memory.add(batch[j:j + 256])
            answered += [ask(memory, q) for q in asks if q.at == end]
        memory.add([record_from_observation(o, o.caption) for o in observations[i:]])
        out[name] = {"records": memory.count(), "objects": score_queries(memory, queries), "qa": answered}
        memory.close()
    return out


def _rate(pairs: list[tuple[bool, bool]], which: int) -> str:
    return f"{sum(p[which] for p in pairs) / len(pairs):.2f}" if pairs else "-"


def _accuracy(answers: list) -> str:
    given = [a.correct for a in answers if a.correct is not None]
    return f"{sum(given) / len(given):.3f}" if given and len(given) == len(answers) else "-"


def report(results: list[dict], qa: bool) -> None:
    variants = [k for k in results[0] if isinstance(results[0][k], dict)]
    n_obs = sum(r["observations"] for r in results)
    print(f"\n{len(results)} homes, {n_obs} observations, {sum(r['queries'] for r in results)} object queries")
    print("\n| memory | records (share of observations) | " +
          " | ".join(f"{k} R@1 / R@5" for k in KINDS) + " | all R@1 / R@5 |")
    print("|---" * (3 + len(KINDS)) + "|")
    for v in variants:
        pairs: dict[str, list] = defaultdict(list)
        for r in results:
            for kind, ps in r[v]["objects"].items():
                pairs[kind] += ps
        everything = [p for ps in pairs.values() for p in ps]
        records = sum(r[v]["records"] for r in results)
        cells = [f"{_rate(pairs[k], 0)} / {_rate(pairs[k], 1)} (n={len(pairs[k])})" for k in KINDS]
        print(f"| {v} | {records} ({records / n_obs:.1%}) | "
              + " | ".join(cells) + f" | {_rate(everything, 0)} / {_rate(everything, 1)} |")
    if not qa:
        return
    print("\nMemory QA, answered from memory alone (accuracy: the answer memory gives; '-': none given)")
    print("\n| memory | " + " | ".join(f"{k} R@1 / R@5" for k in QA_KINDS) + " | all R@1 / R@5 | " +
          " | ".join(f"{k} accuracy" for k in QA_KINDS) + " | all accuracy |")
    print("|---" * (3 + 2 * len(QA_KINDS)) + "|")
    for v in variants:
        by_kind: dict[str, list] = defaultdict(list)
        for r in results:
            for a in r[v]["qa"]:
                by_kind[a.kind].append(a)
        everything = [a for answers in by_kind.values() for a in answers]
        cells = []
        for k in QA_KINDS:
            pairs_k = [(a.r1, a.r5) for a in by_kind[k]]
            cells.append(f"{_rate(pairs_k, 0)} / {_rate(pairs_k, 1)} (n={len(pairs_k)})")
        pairs_all = [(a.r1, a.r5) for a in everything]
        accuracy = [_accuracy(by_kind[k]) for k in QA_KINDS] + [_accuracy(everything)]
        print(f"| {v} | " + " | ".join(cells) + f" | {_rate(pairs_all, 0)} / {_rate(pairs_all, 1)} | " +
              " | ".join(accuracy) + " |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--size", default="medium", choices=("small", "medium", "large"))
    parser.add_argument("--days", type=int, default=None, help="days of patrol (generator default when unset; up to 30)")
    parser.add_argument("--no-qa", action="store_true", help="object queries only")
    parser.add_argument("--variants", nargs="+", choices=VARIANTS, help="memories to compare (default: all)")
    parser.add_argument("--save", help="write each home's scores to this JSON file")
    parser.add_argument("--merge", nargs="+", help="report the homes of these saved files together (no run)")
    args = parser.parse_args()
    if args.merge:
        homes = {r["seed"]: r for path in args.merge for r in json.loads(Path(path).read_text())}  # once each
        results = list(homes.values())
        for r in results:
            for v in (v for v in r.values() if isinstance(v, dict)):
                v["qa"] = [Answered(**a) for a in v["qa"]]
        report(results, any(r[v]["qa"] for r in results for v in r if isinstance(r[v], dict)))
        return
    results = []
    with tempfile.TemporaryDirectory(prefix="mnemo_bench_retrieval_") as tmp:
        for seed in args.seeds:
            start = time.perf_counter()
            results.append(run_seed(seed, args.size, args.days, not args.no_qa, tmp, only=args.variants))
            print(f"seed {seed}: {time.perf_counter() - start:.0f} s", flush=True)
            if args.save:
                Path(args.save).write_text(json.dumps(results, default=vars))
    report(results, not args.no_qa)


if __name__ == "__main__":
    main()
