"""Running the suite: for each scenario and method, patrol builds memory, then every task runs
under its budget in time order (sequences back to back), and the simulator's scorer judges it.

Each (scenario, method) pair gets its own simulator, scene graph and memory (``BenchStack``:
``stack.InProcessStack`` plus the benchmark's bookkeeping), because what a method does in one
task is what it remembers in the next. Only the simulator's ``TaskRunner.score`` and the locked-
container check read the truth; the policy sees what the toolbox returns. Patrol observations
are cheap to regenerate (the simulator is deterministic for a seed); in realistic mode the
rendered and perceived patrol frames are cached per scenario and shared by the methods.
"""
from __future__ import annotations

import re
import time
import zlib
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Optional, Sequence

from mnemo_sim.tasks import ordered_tasks  # the one task order, shared with `mnemo run`

from mnemo_bench.memory import make_memory, make_memory_available
from mnemo_bench.methods import Method
from mnemo_bench.realistic import PERCEPTION_MODES
from mnemo_bench.stack import InProcessStack, integration, memory_record


_MEMORY_LISTING = re.compile(r"^(search_memory\w*\(.*?\) -> ok: \d+ records):.*$")
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


@dataclass
class TaskRow:
    """One task run by one method: what the report is made of."""

    scenario: str
    method: str
    task_id: str
    type: str
    family: str
    sequence: str
    instruction: str
    success: bool  # the simulator's scorer
    planner_success: bool  # what the planner believed
    detail: str
    steps: int
    budget: int
    physical_actions: int
    optimal_actions: int
    action_ratio: Optional[float]  # physical / optimal (None for recall tasks, optimal 0)
    wall_time: float
    locked_retries: int  # open attempts on a container this sequence already found locked
    answer: str = ""
    object_id: str = ""
    trace: list[str] = field(default_factory=list)
    picked_ids: list[str] = field(default_factory=list)  # instances picked during the task (the scorer's input)
    final_fixture: str = ""  # where the robot ended the task ("" at no fixture)
    failure: str = ""  # failures.FailureCause code ("" for a success)

    def to_dict(self) -> dict:
        return asdict(self)

    def outcome_key(self) -> tuple:
        """Everything but wall time and which records a memory search listed: equal for runs of the same
        seed. (Records are random UUIDs, and the engine's approximate index may return a different
        one of several records that score alike; the decisions taken must not differ.)"""
        d = self.to_dict()
        d.pop("wall_time")
        d["trace"] = [_MEMORY_LISTING.sub(r"\1", _UUID.sub("<record>", step)) for step in d["trace"]]
        return tuple((k, tuple(v) if isinstance(v, list) else v) for k, v in d.items())


def task_seed(seed: int, scenario: str, task_id: str, method: str) -> int:
    """A stable per-task seed (Python's hash() is salted per process)."""
    return zlib.crc32(f"{seed}/{scenario}/{task_id}/{method}".encode()) & 0x7FFFFFFF


class BenchStack(InProcessStack):
    """The in-process stack, with the benchmark's bookkeeping: open attempts on
    containers already found locked in the same sequence (the scorer's side: the truth says the
    container is locked and the attempt held the handle, so it was not a missed grasp), and, in realistic mode, observations made by perception from
    rendered frames instead of the simulator's oracle."""

    def __init__(self, scenario: Any, method: Method, seed: Optional[int], memory: Any = None,
                 perceiver: Any = None, graph_cache: Optional[dict] = None):
        super().__init__(scenario, method.ablation, seed, memory=memory)
        self.method = method
        self.graph_cache = graph_cache  # patrol segments -> scene graph after them (shared by methods)
        self.perceiver = perceiver
        self.found_locked: dict[str, set[str]] = {}
        self._scope = ""
        self._retries = 0
        self.runner.robot.listeners.append(self._on_interaction)
        if perceiver is not None:
            from mnemo_bench.realistic import declare_map_fixtures

            declare_map_fixtures(self.graph, self.scenario)
            self.toolbox.observe = lambda: perceiver.views(self.runner.world, self.runner.robot)
            if perceiver.honest:  # the robot's skills perceive and resolve targets as the robot does
                from mnemo_bench.realistic import StackPerception

                self.runner.robot.perception = StackPerception(self, perceiver)

    def _on_interaction(self, event: Any) -> None:
        if event.action != "open":
            return
        found = self.found_locked.setdefault(self._scope, set())
        if event.target in found:
            self._retries += 1
        elif not event.success and event.signals.contact and self.runner.world.truth_is_locked(event.target):
            # the gripper held the handle and nothing moved: found locked (a missed grasp is not)
            found.add(event.target)

    def ingest(self, obs: Any, batch: Optional[list] = None) -> None:
        from mnemo_bench.realistic import Perceived, integrate

        if isinstance(obs, list):  # the views of one look, each a frame of its own
            for view in obs:
                self.ingest(view, batch)
            return
        if not isinstance(obs, Perceived):
            return super().ingest(obs, batch)
        seen = self.history.record(obs.obs.stamp, lambda graph: integrate(graph, obs))
        if self.memory is not None:
            from mnemo_memory.caption import caption_from_sightings
            from mnemo_memory.ingest import record_from_observation

            record = record_from_observation(seen, caption_from_sightings(seen))
            if batch is None:
                self.memory.add([record])
            else:
                batch.append(record)
        self.observations += 1

    def patrol(self, until: Any) -> int:
        if self.perceiver is None and self.graph_cache is not None and self.observations == 0:
            return self._first_patrol(until)
        if self.perceiver is None:
            return super().patrol(until)
        self._join_patrols(until)
        n, batch = 0, []
        for obs in self.runner.run_patrols(until):
            perceived = self.perceiver.perceive(self.runner.world, obs, patrol=True)
            if perceived is not None:
                self.ingest(perceived, batch)
                n += 1
        if batch and self.memory is not None:
            self.memory.add(batch)
        return n

    def _first_patrol(self, until: Any) -> int:
        """Patrols before anything this method did: the scene graph they build is the same for every
        method, so it is built once per scenario and copied (their observations are still recorded
        as evidence, for the graphs as of earlier clocks); memory is filled as usual."""
        key = len(self.runner.patrols_until(until))
        cached = self.graph_cache.get(key)
        if cached is None:
            n = super().patrol(until)
            self.graph_cache[key] = self.graph.copy()
            return n
        n, batch = 0, []
        for obs in self.runner.run_patrols(until):
            self.history.record(obs.stamp, integration(obs), now=False)
            if self.memory is not None:
                batch.append(memory_record(obs))
            n += 1
        if batch:
            self.memory.add(batch)
        self.history.adopt(cached.copy())
        self.toolbox.graph = self.graph
        self.observations += n
        return n

    def run_row(self, task: Any, policy: Any) -> TaskRow:
        from mnemo_bench.failures import classify_failure

        self._scope = task.sequence or f"task:{task.id}"
        self._retries = 0
        run = self.run_task(task.id, policy)
        ratio = run.physical_actions / run.optimal_actions if run.optimal_actions else None
        row = TaskRow(self.scenario.name, self.method.name, task.id, task.type, task.family, task.sequence or "",
                      run.instruction, run.success, run.planner_success, run.detail, run.steps, run.budget,
                      run.physical_actions, run.optimal_actions, ratio, run.wall_time, self._retries,
                      run.answer, run.object_id,
                      [f"{s.tool}({', '.join(f'{k}={v}' for k, v in s.arguments.items())}) -> "
                       f"{'ok' if s.ok else 'failed'}: {s.outcome[:200]}" for s in (run.trace or [])],
                      list(self.runner.robot.picked), self.runner.world.at_fixture)
        row.failure = classify_failure(row, self.scenario)
        return row


class Progress:
    """A one-line progress bar on stderr (no dependencies); silent when disabled."""

    def __init__(self, total: int, enabled: bool = True, width: int = 30, stream: Any = None):
        import sys

        self.total, self.enabled, self.width = max(total, 1), enabled, width
        self.stream = stream or sys.stderr
        self.done = 0
        self.t0 = time.perf_counter()

    def step(self, label: str = "") -> None:
        self.done += 1
        if not self.enabled:
            return
        frac = min(1.0, self.done / self.total)
        bar = "#" * int(round(frac * self.width))
        elapsed = time.perf_counter() - self.t0
        self.stream.write(f"\r[{bar:<{self.width}}] {self.done}/{self.total} {elapsed:6.1f}s {label[:50]:<50}")
        if self.done >= self.total:
            self.stream.write("\n")
        self.stream.flush()


@dataclass
class SuiteResult:
    rows: list[TaskRow]
    qa: list[Any]  # qa.QaRow
    meta: dict


def load_scenarios(paths: Sequence[Any]) -> list[Any]:
    from mnemo_sim.scenario import load_scenario

    return [p if hasattr(p, "tasks") else load_scenario(p) for p in paths]


def run_suite(scenarios: Sequence[Any], methods: Sequence[Method], seed: int = 0, perception: str = "oracle",
              qa: bool = False, progress: bool = True, task_filter: Optional[Callable[[Any, Any], bool]] = None,
              perceiver_factory: Optional[Callable[[Any], Any]] = None) -> SuiteResult:
    """Every method on every task of every scenario (``task_filter(scenario, task)`` to restrict).

    ``perception``: "oracle" (the simulator's observations: an upper bound), "realistic" (rendered
    frames through the perception ground-truth backend and deprojection, the simulator's instance
    ids kept) or "honest" (the same without instance ids: identity from the scene graph's
    association, skills resolve node ids by label and position); ``perceiver_factory(scenario)``
    overrides how the perceiver is made."""
    scenarios = load_scenarios(scenarios)
    plan = [(sc, [t for t in ordered_tasks(sc) if task_filter is None or task_filter(sc, t)]) for sc in scenarios]
    total = sum(len(tasks) for _, tasks in plan) * len(methods)
    bar = Progress(total + (len(scenarios) if qa else 0), progress)
    rows: list[TaskRow] = []
    qa_rows: list[Any] = []
    t0 = time.perf_counter()
    if perception not in PERCEPTION_MODES:
        raise ValueError(f"perception must be one of {PERCEPTION_MODES}, got {perception!r}")
    if perception != "oracle":
        # The embedding model must load before the renderer's EGL context exists: importing
        # torch's compiler stack (triton) after it segfaults.
        from mnemo_common.embedding import get_embedder

        get_embedder().embed(["warm up"])
    for sc, tasks in plan:
        perceiver = None
        if perception != "oracle":
            if perceiver_factory is not None:
                perceiver = perceiver_factory(sc)
            else:
                from mnemo_bench.realistic import RealisticPerceiver

                perceiver = RealisticPerceiver(sc, honest=perception == "honest")
        try:
            if any(m.needs_memory for m in methods):
                warm_embeddings(sc, seed, perceiver)
            graph_cache: dict = {}
            for method in methods:
                memory = make_memory() if method.needs_memory else None
                stack = BenchStack(sc, method, seed, memory=memory, perceiver=perceiver, graph_cache=graph_cache)
                try:
                    for task in tasks:
                        policy = method.make_policy(task_seed(seed, sc.name, task.id, method.name))
                        rows.append(stack.run_row(task, policy))
                        bar.step(f"{sc.name} {method.name} {task.id}")
                finally:
                    if memory is not None:
                        memory.close()
            if qa:
                from mnemo_bench.qa import run_qa

                qa_rows.extend(run_qa(sc, seed, perceiver=perceiver))
                bar.step(f"{sc.name} memory QA")
        finally:
            if perceiver is not None:
                perceiver.close()
    from mnemo_bench.realistic import needs_authored_attribute

    meta = {"seed": seed, "perception": perception, "methods": [m.name for m in methods],
            "scenarios": [sc.name for sc in scenarios], "tasks": sum(len(t) for _, t in plan),
            "authored_only": [f"{sc.name}/{t.id}" for sc, tasks in plan for t in tasks
                              if needs_authored_attribute(sc, t)],
            "seconds": round(time.perf_counter() - t0, 2),
            "memory": "mnemo_memory (Qdrant embedded engine)" if make_memory_available() else "none (mnemo_memory missing)"}
    return SuiteResult(rows, qa_rows, meta)


def mode_label(method: str, perception: str) -> str:
    """A method's name under a perception mode, for reports that show modes side by side."""
    return f"{method} ({'oracle: upper bound' if perception == 'oracle' else perception})"


def run_modes(scenarios: Sequence[Any], methods: Sequence[Method], modes: Sequence[str], qa: bool = False,
              **kwargs: Any) -> SuiteResult:
    """The suite under each perception mode. With several modes every row's method is labelled with
    its mode (``mode_label``), so every table of the report shows them side by side; the memory QA
    runs under the first mode only."""
    if len(modes) == 1:
        return run_suite(scenarios, methods, perception=modes[0], qa=qa, **kwargs)
    scenarios = load_scenarios(scenarios)
    results = [run_suite(scenarios, methods, perception=mode, qa=qa and i == 0, **kwargs)
               for i, mode in enumerate(modes)]
    rows = [replace(row, method=mode_label(row.method, mode)) for mode, result in zip(modes, results)
            for row in result.rows]
    meta = {**results[0].meta, "perception": " and ".join(modes),
            "methods": [mode_label(m.name, mode) for m in methods for mode in modes],
            "seconds": round(sum(r.meta["seconds"] for r in results), 2),
            "seconds_by_perception": {mode: r.meta["seconds"] for mode, r in zip(modes, results)}}
    return SuiteResult(rows, results[0].qa, meta)


def warm_embeddings(scenario: Any, seed: Optional[int], perceiver: Any = None, batch: int = 64) -> int:
    """Embed the distinct captions of the scenario's patrols (and the texts of their object sightings,
    which memory indexes one by one) in batches once, so the methods that build memory find them in
    the embedder's cache (one by one, the model is ~50x slower)."""
    try:
        from mnemo_common.embedding import get_embedder
        from mnemo_memory.caption import caption_from_sightings
    except ImportError:
        return 0
    from mnemo_sim.tasks import TaskRunner

    runner = TaskRunner(scenario, seed)
    captions = set()
    graph = None
    if perceiver is not None:  # captions name what a scene graph made of the detections
        from mnemo_scene_graph.graph import SceneGraph

        from mnemo_bench.realistic import declare_map_fixtures, integrate

        graph = SceneGraph()
        declare_map_fixtures(graph, scenario)
    try:
        from mnemo_memory.sightings import sighting_text
    except ImportError:  # a memory without object-level entries
        sighting_text = None
    for obs in runner.run_patrols(float("inf")):
        seen = obs
        if perceiver is None:
            captions.add(obs.caption)
        else:
            perceived = perceiver.perceive(runner.world, obs, patrol=True)
            if perceived is None:
                continue
            seen = integrate(graph, perceived)
            captions.add(caption_from_sightings(seen))
        if sighting_text is not None:
            captions.update(sighting_text(x, obs.room) for x in seen.sightings if x.kind == "object")
    texts = sorted(captions)
    embedder = get_embedder()
    for i in range(0, len(texts), batch):
        embedder.embed(texts[i:i + batch])
    return len(texts)


def default_scenarios() -> list[Path]:
    from mnemo_sim import list_scenarios

    return list_scenarios()
