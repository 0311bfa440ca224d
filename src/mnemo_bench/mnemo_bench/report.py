"""The benchmark's report: ``results.json`` (every row, every aggregate), ``report.md`` (tables,
targets, failure causes, failures), ``README_table.md`` (the table to paste into README.md) and two
PNG plots (success by family per method; physical actions per success against optimal).

When generated homes ran (``meta["generated"]``) alongside shipped scenarios, each kind also gets
its own tables, so a number tuned to the shipped homes shows next to one that cannot be."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Optional, Sequence

from mnemo_bench.failures import FailureCause, describe
from mnemo_bench.stats import aggregate_by, group

TYPES = ("visible", "interactive", "commonsense", "recall")
# The targets for the full method with oracle perception.
TARGETS = {"visible": 0.9, "interactive": 0.8, "commonsense": 0.6}
MAX_ACTION_RATIO = 1.25
UNCLASSIFIED = "unclassified"  # a failed row without a cause (the ROS runner does not record picks)


def _pct(x: Optional[float]) -> str:
    return "-" if x is None else f"{x:.2f}"


def _cell(a: Any) -> str:
    return f"{a.rate:.2f} [{a.ci_low:.2f}, {a.ci_high:.2f}] ({a.successes}/{a.n})"


def _rows(result: Any) -> list[Any]:
    return list(result.rows)


def origins(result: Any) -> list[tuple[str, str, list[Any]]]:
    """(key, title, rows) of the shipped scenarios and of the generated homes, when generated homes
    ran (else [])."""
    generated = result.meta.get("generated")
    if not generated:
        return []
    names = set(generated["scenarios"])
    seeds = generated["seeds"]
    span = f"seed {seeds[0]}" if len(seeds) == 1 else f"seeds {seeds[0]}-{seeds[-1]}"
    rows = _rows(result)
    split = [("shipped", "shipped scenarios", [r for r in rows if r.scenario not in names]),
             ("generated", f"generated homes ({span})", [r for r in rows if r.scenario in names])]
    return [(key, title, part) for key, title, part in split if part]


def cause_of(row: Any) -> str:
    return row.failure or UNCLASSIFIED


def failure_counts(rows: Sequence[Any]) -> dict:
    """{"by_method": {method: {cause: n}}, "by_family": {method: {family: {cause: n}}}} over failed rows."""
    failed = [r for r in rows if not r.success]
    by_method = {m: _count(mrows) for m, mrows in group(failed, lambda r: r.method).items()}
    by_family = {m: {f: _count(frows) for f, frows in sorted(group(mrows, lambda r: r.family).items())}
                 for m, mrows in group(failed, lambda r: r.method).items()}
    return {"by_method": by_method, "by_family": by_family}


def _count(rows: Sequence[Any]) -> dict[str, int]:
    return {cause: len(crows) for cause, crows in group(rows, cause_of).items()}


def _aggregates(rows: Sequence[Any]) -> dict:
    return {
        "all": {m: v["all"].to_dict() for m, v in aggregate_by(rows, "all").items()},
        "by_type": {m: {k: a.to_dict() for k, a in v.items()} for m, v in aggregate_by(rows, "type").items()},
        "by_family": {m: {k: a.to_dict() for k, a in v.items()} for m, v in aggregate_by(rows, "family").items()},
        "failure_causes": failure_counts(rows),
    }


def summarize(result: Any) -> dict:
    out = _aggregates(_rows(result))
    parts = origins(result)
    if len(parts) > 1:
        out["by_origin"] = {key: {"title": title, **_aggregates(rows)} for key, title, rows in parts}
    if getattr(result, "qa", None):
        from mnemo_bench.qa import summarize_qa

        out["qa"] = summarize_qa(result.qa)
    return out


def check_targets(summary: dict, method: str = "full") -> list[tuple[str, str, bool]]:
    """(what, measured, met) for the issue's targets on one method."""
    checks = []
    by_type = summary["by_type"].get(method, {})
    for typ, goal in TARGETS.items():
        a = by_type.get(typ)
        if a is not None:
            checks.append((f"{typ} success >= {goal}", f"{a['rate']:.2f}", a["rate"] >= goal))
    overall = summary["all"].get(method)
    if overall is not None:
        ratio = overall["action_ratio"]
        checks.append((f"physical actions per success <= {MAX_ACTION_RATIO}x optimal", _pct(ratio),
                       ratio is not None and ratio <= MAX_ACTION_RATIO))
        checks.append(("locked container retried in a sequence: 0", str(overall["locked_retries"]),
                       overall["locked_retries"] == 0))
    return checks


def markdown_table(summary: dict, methods: Sequence[str]) -> list[str]:
    types = [t for t in TYPES if any(t in summary["by_type"].get(m, {}) for m in methods)]
    lines = ["| method | " + " | ".join(types) + " | all | actions / optimal | locked retries |",
             "|---|" + "---|" * (len(types) + 3)]
    for m in methods:
        if m not in summary["all"]:
            continue
        by_type = summary["by_type"][m]
        cells = [(f"{by_type[t]['rate']:.2f} ({by_type[t]['successes']}/{by_type[t]['n']})" if t in by_type else "-")
                 for t in types]
        a = summary["all"][m]
        lines.append(f"| {m} | " + " | ".join(cells) +
                     f" | {a['rate']:.2f} [{a['ci_low']:.2f}, {a['ci_high']:.2f}] | {_pct(a['action_ratio'])} | "
                     f"{a['locked_retries']} |")
    return lines


def family_table(summary: dict, methods: Sequence[str]) -> list[str]:
    families = sorted({f for m in methods for f in summary["by_family"].get(m, {})})
    lines = ["| family | " + " | ".join(methods) + " |", "|---|" + "---|" * len(methods)]
    for fam in families:
        cells = []
        for m in methods:
            a = summary["by_family"].get(m, {}).get(fam)
            cells.append("-" if a is None else f"{a['rate']:.2f} [{a['ci_low']:.2f}, {a['ci_high']:.2f}] "
                                               f"({a['successes']}/{a['n']})")
        lines.append(f"| {fam} | " + " | ".join(cells) + " |")
    return lines


def _ordered_causes(counts: Sequence[dict[str, int]]) -> list[str]:
    present = {c for cell in counts for c in cell}
    return [c.value for c in FailureCause if c.value in present] + sorted(present - {c.value for c in FailureCause})


def failure_cause_tables(summary: dict, methods: Sequence[str], method: str = "full") -> list[str]:
    """Failed tasks per cause: one row per method, then one per family of ``method``, then what each cause means."""
    by_method = summary["failure_causes"]["by_method"]
    by_family = summary["failure_causes"]["by_family"].get(method, {})
    causes = _ordered_causes([*by_method.values(), *by_family.values()])
    if not causes:
        return ["No failed task."]

    def table(label: str, rows: dict[str, dict[str, int]]) -> list[str]:
        lines = [f"| {label} | " + " | ".join(causes) + " | failed |", "|---|" + "---|" * (len(causes) + 1)]
        for key, cell in rows.items():
            lines.append(f"| {key} | " + " | ".join(str(cell.get(c, 0)) for c in causes) + f" | {sum(cell.values())} |")
        return lines

    lines = table("method", {m: by_method.get(m, {}) for m in methods})
    if by_family:
        lines += ["", f"By family ({method}):", "", *table("family", by_family)]
    lines += ["", *[f"- `{c}`: {describe(c) or 'no cause recorded'}" for c in causes]]
    return lines


def success_tables(summary: dict, methods: Sequence[str], heading: str) -> list[str]:
    """By type and by family, under ``heading`` (a markdown heading prefix such as "##")."""
    return [f"{heading} Success by task type", "", *markdown_table(summary, methods), "",
            f"{heading} Success by family", "", *family_table(summary, methods), ""]


def origin_sections(summary: dict, methods: Sequence[str], heading: str = "##") -> list[str]:
    """The shipped scenarios' and the generated homes' tables, each under its own heading."""
    lines: list[str] = []
    for part in summary.get("by_origin", {}).values():
        title = part["title"][0].upper() + part["title"][1:]
        lines += [f"{heading} {title}", "", *success_tables(part, methods, heading + "#")]
    return lines


def plot_success_by_family(summary: dict, methods: Sequence[str], path: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    families = sorted({f for m in methods for f in summary["by_family"].get(m, {})})
    fig, ax = plt.subplots(figsize=(max(8, 1.2 * len(families) + 2), 4.5), dpi=100)
    width = 0.8 / max(len(methods), 1)
    x = np.arange(len(families))
    for i, m in enumerate(methods):
        fam = summary["by_family"].get(m, {})
        rates = [fam[f]["rate"] if f in fam else np.nan for f in families]
        low = [max(0.0, fam[f]["rate"] - fam[f]["ci_low"]) if f in fam else 0 for f in families]
        high = [max(0.0, fam[f]["ci_high"] - fam[f]["rate"]) if f in fam else 0 for f in families]
        ax.bar(x + (i - (len(methods) - 1) / 2) * width, rates, width, yerr=[low, high], capsize=2, label=m,
               error_kw={"elinewidth": 0.6, "alpha": 0.6})
    ax.set_xticks(x)
    ax.set_xticklabels(families, rotation=30, ha="right")
    ax.set_ylim(0, 1.25)
    ax.set_yticks([0, 0.2, 0.4, 0.6, 0.8, 1.0])
    ax.set_ylabel("success rate (95% Wilson CI)")
    ax.set_title("Success by task family")
    ax.legend(fontsize=8, ncol=len(methods), loc="upper center", frameon=False)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path


def plot_actions(summary: dict, methods: Sequence[str], path: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5), dpi=100)
    for m in methods:
        a = summary["all"].get(m)
        if a is None or a["physical_per_success"] is None:
            continue
        ax.scatter(a["optimal_per_success"], a["physical_per_success"], s=40 + 200 * a["rate"], label=m, alpha=0.8)
        ax.annotate(m, (a["optimal_per_success"], a["physical_per_success"]), fontsize=8, xytext=(4, 4),
                    textcoords="offset points")
    lo, hi = ax.get_xlim()
    top = max(ax.get_ylim()[1], hi * 1.3)
    xs = [0, top]
    ax.plot(xs, xs, "k--", lw=0.8, label="optimal")
    ax.plot(xs, [MAX_ACTION_RATIO * v for v in xs], "g:", lw=0.8, label=f"{MAX_ACTION_RATIO}x optimal")
    ax.set_xlim(0, top)
    ax.set_ylim(0, top * MAX_ACTION_RATIO)
    ax.set_xlabel("optimal physical actions per success")
    ax.set_ylabel("physical actions per success")
    ax.set_title("Effort of successful tasks (marker size: success rate)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path


def failures(rows: Sequence[Any], method: str) -> list[str]:
    lines = []
    for r in rows:
        if r.method == method and not r.success:
            lines.append(f"- `{cause_of(r)}` **{r.scenario}/{r.task_id}** ({r.type}/{r.family}) \"{r.instruction}\": "
                         f"{r.detail}; {r.steps}/{r.budget} steps, {r.physical_actions} physical "
                         f"(optimal {r.optimal_actions})")
            lines += [f"  {i + 1}. `{s}`" for i, s in enumerate(r.trace)]
    return lines


def pixel_solvable_section(result: Any, methods: Sequence[str], heading: str) -> list[str]:
    """Success without the tasks that name an attribute only the scenario's author knows (``authored_only``):
    what honest perception offline can be asked; empty when there are none."""
    authored = set(result.meta.get("authored_only") or ())
    if not authored:
        return []
    kept = [r for r in _rows(result) if f"{r.scenario}/{r.task_id}" not in authored]
    summary = _aggregates(kept)
    return [f"{heading} Tasks pixels can solve", "",
            f"Without the {len(authored)} task(s) that name an attribute pixels cannot give (brand, printed text, "
            "size) of an object with same-class look-alikes: offline, honest perception cannot read it (an "
            f"attribute-reading VLM could). Left out: {', '.join(sorted(authored))}.", "",
            *markdown_table(summary, methods), "", *family_table(summary, methods), ""]


def write_report(result: Any, out: Path, plots: bool = True) -> dict[str, Path]:
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    rows = _rows(result)
    methods = list(result.meta.get("methods") or sorted({r.method for r in rows}))
    summary = summarize(result)
    files: dict[str, Path] = {}
    payload = {"meta": result.meta, "summary": summary, "rows": [r.to_dict() for r in rows],
               "qa": [q.to_dict() for q in getattr(result, "qa", []) or []]}
    files["json"] = out / "results.json"
    files["json"].write_text(json.dumps(payload, indent=1, default=str))
    if plots:
        files["families_png"] = plot_success_by_family(summary, methods, out / "success_by_family.png")
        files["actions_png"] = plot_actions(summary, methods, out / "actions_vs_optimal.png")
    meta = result.meta
    perception = str(meta.get("perception", ""))
    if "oracle" in perception.split(" and "):
        perception += (" perception (oracle: the simulator's own observations, ids and authored attributes, an upper "
                       "bound no robot reaches)")
    else:
        perception += " perception"
    head = (f"Seed {meta.get('seed')}, {perception}, {len(meta.get('scenarios', []))} scenarios "
            f"({', '.join(meta.get('scenarios', []))}), {meta.get('tasks')} tasks per method, "
            f"{meta.get('seconds')} s on this machine. Success rates with 95% Wilson intervals; "
            "actions / optimal = physical actions of successful tasks over their optimal_actions.")
    generated = meta.get("generated")
    if generated:
        head += (f" Generated homes: {len(generated['seeds'])} of size {generated['size']} (generator seeds "
                 f"{', '.join(map(str, generated['seeds']))}, {generated.get('days') or 'default'} days).")
    table = markdown_table(summary, methods)
    readme = ["## Benchmark (latest `mnemo bench`)", "", head, "", *table, ""]
    side_by_side = " and " in str(meta.get("perception", ""))
    if generated or side_by_side:
        readme += ["By family:", "", *family_table(summary, methods), ""]
    if generated:
        readme += origin_sections(summary, methods, "###")
    if side_by_side:
        readme += pixel_solvable_section(result, methods, "###")
    if plots:
        readme += [f"![success by family]({files['families_png'].name}) "
                   f"![actions vs optimal]({files['actions_png'].name})", ""]
    if "qa" in summary:
        from mnemo_bench.qa import qa_table

        readme += ["Memory QA (answered from memory and the scene graph):", "", *qa_table(summary["qa"]), ""]
    files["readme_table"] = out / "README_table.md"
    files["readme_table"].write_text("\n".join(readme))
    lines = ["# mnemo bench report", "", head, "", *success_tables(summary, methods, "##"),
             *origin_sections(summary, methods), *pixel_solvable_section(result, methods, "##")]
    if "full" in summary["all"]:
        lines += ["## Targets (full method)", "", "| target | measured | met |", "|---|---|---|"]
        lines += [f"| {w} | {v} | {'yes' if ok else 'NO'} |" for w, v, ok in check_targets(summary)]
        lines.append("")
    if "qa" in summary:
        from mnemo_bench.qa import qa_table

        lines += ["## Memory QA", "", *qa_table(summary["qa"]), ""]
    if plots:
        lines += ["## Plots", "", f"![success by family]({files['families_png'].name})", "",
                  f"![actions vs optimal]({files['actions_png'].name})", ""]
    lines += ["## Failure causes", "", *failure_cause_tables(summary, methods), ""]
    lines += ["## Per task", "", "| scenario | task | type/family | " + " | ".join(methods) + " |",
              "|---|---|---|" + "---|" * len(methods)]
    by_task = group(rows, lambda r: (r.scenario, r.task_id))
    for (sc, tid), trs in by_task.items():
        cell = {r.method: f"{'ok' if r.success else 'fail'} {r.steps}st {r.physical_actions}/{r.optimal_actions}"
                f" {r.wall_time:.2f}s" for r in trs}
        lines.append(f"| {sc} | {tid} | {trs[0].type}/{trs[0].family} | " +
                     " | ".join(cell.get(m, "-") for m in methods) + " |")
    lines += ["", "Cells: outcome, steps, physical/optimal actions, wall time.", ""]
    for m in methods:
        fails = failures(rows, m)
        if fails and m in ("full",):
            lines += [f"## Failures of {m}", "", *fails, ""]
    files["markdown"] = out / "report.md"
    files["markdown"].write_text("\n".join(lines))
    return files
