"""Run report of the main job: a markdown summary and a top-down map (robot path, scene graph,
each task's target)."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence


def _task_targets(task) -> tuple[str, list[str]]:
    success = task.success
    for kind in ("pick_any", "reach_any", "answer_any"):
        values = getattr(success, kind, None) if not isinstance(success, dict) else success.get(kind)
        if values:
            return kind, list(values)
    return "", []


def draw_map(path_png: Path, scenario, path: Sequence[tuple[float, float]], graph: Sequence[dict],
             outcomes: Sequence[Any]) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Rectangle

    fig, ax = plt.subplots(figsize=(10, 8), dpi=100)
    for room in scenario.rooms:
        x0, y0, x1, y1 = room.rect
        ax.add_patch(Rectangle((x0, y0), x1 - x0, y1 - y0, fill=False, lw=2, ec="black"))
        ax.text(x0 + 0.1, y1 - 0.3, room.id, fontsize=9, color="dimgray")
    for door in scenario.doors:
        ax.plot(*door.at, marker="s", color="white", mec="black", ms=7)
    for fx in scenario.fixtures:
        ax.plot(fx.pose[0], fx.pose[1], marker="s", color="tan", mec="saddlebrown", ms=9)
        ax.annotate(fx.id, (fx.pose[0], fx.pose[1]), xytext=(0, -11), textcoords="offset points", fontsize=6,
                    ha="center", color="saddlebrown")
    if path:
        # poses as sampled (patrol observations, skill end points): dots, since straight lines between
        # samples would cut through walls the robot actually went around
        xs, ys = zip(*path)
        ax.scatter(xs, ys, s=3, color="tab:blue", alpha=0.25, label="robot poses")
    objects = [n for n in graph if n.get("kind") == "object"]
    if objects:
        ax.scatter([n["x"] for n in objects], [n["y"] for n in objects], s=14, c=[
            "tab:gray" if n.get("state") != "current" else "tab:green" for n in objects], label="scene-graph objects")
        for n in objects:
            ax.annotate(n["id"], (n["x"], n["y"]), fontsize=6, alpha=0.7)
    fixtures = {f.id: f for f in scenario.fixtures}
    for o in outcomes:
        end = fixtures.get(o.fixture_id)
        if end is not None:
            ax.plot(end.pose[0], end.pose[1], marker="*", ms=16, color="tab:green" if o.success else "tab:red",
                    mec="black")
            ax.annotate(o.task_id, (end.pose[0], end.pose[1]), xytext=(6, 6), textcoords="offset points",
                        fontsize=7, color="tab:green" if o.success else "tab:red")
    ax.set_aspect("equal")
    ax.set_title(f"{scenario.name}: robot path, scene graph and where each task ended (green = success)")
    ax.legend(loc="upper right", fontsize=8)
    fig.tight_layout()
    fig.savefig(path_png)
    plt.close(fig)
    return path_png


def write_report(out: Path, scenario, outcomes: Sequence[Any], path, graph) -> Path:
    out = Path(out)
    map_png = draw_map(out / "map.png", scenario, path, graph, outcomes)
    tasks = {t.id: t for t in scenario.tasks}
    n = len(outcomes)
    ok = sum(o.success for o in outcomes)
    lines = [f"# mnemo run: {scenario.name}", "",
             f"{ok}/{n} tasks succeeded.", "",
             f"![map]({map_png.name})", "",
             "| task | type/family | instruction | result | steps/budget | physical (optimal) | target | ended at / answer |",
             "|---|---|---|---|---|---|---|---|"]
    for o in outcomes:
        kind, targets = _task_targets(tasks[o.task_id]) if o.task_id in tasks else ("", [])
        end = o.answer or o.object_id or o.fixture_id
        lines.append(f"| {o.task_id} | {o.type}/{o.family} | {o.instruction} | "
                     f"{'success' if o.success else 'failed'} | {o.steps}/{o.budget} | "
                     f"{o.physical_actions} ({o.optimal_actions}) | {kind}: {', '.join(targets)} | {end} |")
    lines += ["", "## Traces", ""]
    for o in outcomes:
        lines.append(f"### {o.task_id}: {o.instruction}")
        lines.append(f"Scorer: {o.detail}")
        lines += [f"{i + 1}. `{step}`" for i, step in enumerate(o.trace)]
        lines.append("")
    report = out / "report.md"
    report.write_text("\n".join(lines))
    return report
