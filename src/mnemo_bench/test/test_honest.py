"""Honest perception: nothing downstream of the camera sees a simulator instance id or an attribute
that only the scenario's author knows. The tiny flat is rewritten so that every object id and every
authored-only attribute value carries a marker; a whole honest run (patrols, every task) is then
searched for the marker in what perception output, what the scene graph holds, what memory stored
and what the planner was told."""
import json
from dataclasses import asdict

import pytest
import yaml

MARK = "zqx"


def marked_scenario(path, folder):
    """The tiny flat with object ids ``zqx_<id>`` and authored-only attributes valued ``zqx...``."""
    from mnemo_sim.scenario import load_scenario

    doc = yaml.safe_load(path.read_text())
    ids = {o["id"] for o in doc["objects"]}
    rename = lambda v: f"{MARK}_{v}" if v in ids else v  # noqa: E731
    for o in doc["objects"]:
        o["id"] = rename(o["id"])
        o.setdefault("attributes", {}).update(material=f"{MARK}material", text=f"{MARK}text")
    for f in doc["fixtures"]:
        f.setdefault("attributes", {})["finish"] = f"{MARK}finish"
    for e in doc["timeline"]:
        for key in ("move", "add", "remove"):
            if key in e:
                e[key] = rename(e[key])
    for t in doc["tasks"]:
        if "pick_any" in t["success"]:
            t["success"]["pick_any"] = [rename(v) for v in t["success"]["pick_any"]]
    target = folder / "tiny_marked.yaml"
    target.write_text(yaml.safe_dump(doc, sort_keys=False))
    return load_scenario(target)


class Spy:
    """Wraps an object, calling ``seen(name, args, result)`` after each call of the named methods."""

    def __init__(self, inner, names, seen):
        self._inner, self._names, self._seen = inner, names, seen

    def __getattr__(self, name):
        attr = getattr(self._inner, name)
        if name not in self._names:
            return attr

        def call(*args, **kwargs):
            result = attr(*args, **kwargs)
            self._seen(name, args, result)
            return result
        return call


def text_of(value) -> str:
    def default(o):
        if hasattr(o, "__dataclass_fields__"):
            return asdict(o)
        if hasattr(o, "to_dict"):
            return o.to_dict()
        return repr(o)
    return json.dumps(value, default=default)


def test_no_simulator_id_or_authored_attribute_reaches_perception_graph_memory_or_planner(tiny_path, tmp_path):
    pytest.importorskip("mujoco")
    from mnemo_common.embedding import get_embedder
    from mnemo_sim.render import RenderUnavailable
    from mnemo_sim.tasks import ordered_tasks

    from mnemo_bench.memory import make_memory
    from mnemo_bench.methods import resolve_methods
    from mnemo_bench.realistic import RealisticPerceiver
    from mnemo_bench.runner import BenchStack, task_seed

    get_embedder()  # load torch before any EGL context (see runner.run_suite)
    scenario = marked_scenario(tiny_path, tmp_path)
    assert all(o.id.startswith(MARK) for o in scenario.objects)
    captured: dict[str, list] = {"perception": [], "memory": [], "planner": []}

    def perceived(_name, _args, result):
        for view in result if isinstance(result, list) else [result]:  # views: a look's frames
            if view is not None:
                captured["perception"].append(text_of([d for d in view.detections]))

    perceiver = RealisticPerceiver(scenario, every=4, honest=True)
    perceiver_spy = Spy(perceiver, {"perceive", "views"}, perceived)
    perceiver_spy.honest = True
    memory = make_memory()
    method = resolve_methods(["full"])[0]
    rows = []
    try:
        stack = BenchStack(scenario, method, 0, memory=Spy(memory, {"add"},
                                                           lambda _n, args, _r: captured["memory"].append(
                                                               text_of(args[0]))),
                           perceiver=perceiver_spy)
        toolbox_execute = stack.toolbox.execute

        def execute(action):
            outcome = toolbox_execute(action)
            captured["planner"].append(text_of({"summary": outcome.summary, "data": outcome.data}))
            return outcome
        stack.toolbox.execute = execute
        for task in ordered_tasks(scenario):
            rows.append(stack.run_row(task, method.make_policy(task_seed(0, scenario.name, task.id, method.name))))
        g = stack.graph
        graph = text_of([g.to_dict(), [e.to_dict() for n in g.nodes() for e in g.history(n.id)]])
    except RenderUnavailable as exc:
        pytest.skip(f"no GL: {exc}")
    finally:
        perceiver.close()
        memory.close()
    assert captured["perception"] and captured["memory"] and captured["planner"]
    for where, texts in [*captured.items(), ("scene graph", [graph]),
                         ("planner trace", [text_of([r.trace, r.answer, r.object_id]) for r in rows])]:
        leaks = [t for t in texts if MARK in t]
        assert not leaks, f"{where} saw the simulator's ids or authored attributes: {leaks[0][:400]}"
    # the scorer alone maps what was picked back to the truth, and the honest robot still succeeds
    assert any(r.picked_ids and r.picked_ids[0].startswith(MARK) for r in rows)
    assert sum(r.success for r in rows) >= 3, [(r.task_id, r.detail) for r in rows]


def test_graph_keeps_one_node_per_object_over_rendered_patrols(tiny):
    """Association without ids over three days of patrols, the mug moved twice: one node per
    object, no node holding two objects, nodes within 5 cm of the truth (median)."""
    pytest.importorskip("mujoco")
    from mnemo_common.embedding import get_embedder
    from mnemo_sim.render import RenderUnavailable

    from mnemo_bench.graph_quality import measure

    get_embedder()
    try:
        q = measure(tiny, every=2)
    except RenderUnavailable as exc:
        pytest.skip(f"no GL: {exc}")
    assert q.objects == 3 and q.one_node == 3, q.duplicated  # the ketchup stays in a closed cabinet
    assert (q.duplicates, q.merges) == (0, 0), (q.duplicated, q.merged)
    assert q.median_error is not None and q.median_error <= 0.05
