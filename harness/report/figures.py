"""The report's figures as PNG images (matplotlib, headless Agg backend).

Each function returns PNG bytes, so the HTML can embed them and the report directory can store them.
Built to stay readable at 16 systems: every system keeps one colour (by leaderboard rank) in every
figure; systems are listed in leaderboard order (Fig. 13: by number of non-successes, as the spec);
per-domain and per-stratum views are small multiples of horizontal bars with the value on each bar;
a value that was never measured is drawn as "n/a", never as 0.
"""

from __future__ import annotations

import io
import math
from typing import Any

from grader.stats import competition_ranks, rate
from harness.report.data import ReportData, System
from harness.report.tables import (
    BOTTOM,
    COMPOSITION_LABELS,
    DIFFICULTIES,
    UNGRADED,
    catalog_domains,
    composition_counts,
    difficulty_rate,
    metric_values,
    pass_k_curves,
    report_components,
    round_costs,
    strict_counts,
)
from grader.verdicts import NON_CONVERGENCE, TOOL_CALL_ERROR
from models.prices import PriceTable

LABEL_COLOURS = {
    "action": "#4e79a7", "forbidden": "#e15759", "state": "#f28e2b", "params": "#76b7b2", "reply": "#59a14f",
    "order": "#edc948", "collateral": "#b07aa1", "consent": "#86bcb6", TOOL_CALL_ERROR: "#9c755f", NON_CONVERGENCE: "#ff9da7",
    UNGRADED: "#bab0ac", BOTTOM: "#333333",
}
"""One colour per failure label, the same in every pie."""


def _plt():  # type: ignore[no-untyped-def]
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _png(fig) -> bytes:  # type: ignore[no-untyped-def]
    plt = _plt()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110, bbox_inches="tight")
    plt.close(fig)
    return buffer.getvalue()


def _short(label: str, limit: int = 28) -> str:
    return label if len(label) <= limit else label[: limit - 1] + "…"


def _tick(system: System) -> str:
    return f"{system.rank_order}. {_short(system.name)}"


def _hbar_panels(title: str, panels: list[tuple[str, dict[str, tuple[int, int]]]], systems: list[System]) -> bytes:
    """Small multiples: one panel per category, one horizontal bar per system (leaderboard order, its
    colour), strict success in percent with the value (and N) on the bar; n/a where nothing was scored."""
    plt = _plt()
    n = len(panels)
    cols = min(n, 3)
    rows = math.ceil(n / cols) if n else 1
    height = max(1.8, 0.28 * len(systems) + 0.9)
    fig, axes = plt.subplots(rows, cols, figsize=(4.6 * cols, height * rows), squeeze=False, sharey=True)
    labels = [_tick(s) for s in systems]
    y = list(range(len(systems)))
    for ax, (category, counts) in zip(axes.flat, panels, strict=False):
        for i, s in enumerate(systems):
            passes, scored = counts.get(s.label, (0, 0))
            value = rate(passes, scored)
            if value is None:
                ax.text(1, i, "n/a", va="center", ha="left", fontsize=7, color="#666", style="italic")
                continue
            ax.barh(i, 100 * value, color=s.colour, height=0.75)
            text = f"{100 * value:.1f}"
            inside = value > 0.28
            ax.text(100 * value - 1 if inside else 100 * value + 1, i, text, va="center", ha="right" if inside else "left", fontsize=7,
                    color="white" if inside and _dark(s.colour) else "black")
        ax.set_xlim(0, 100)
        ax.set_title(category, fontsize=9)
        ax.set_yticks(y, labels, fontsize=7)
        ax.tick_params(axis="x", labelsize=7)
        ax.grid(axis="x", alpha=0.3)
    axes.flat[0].invert_yaxis()  # shared y: leaderboard order top to bottom in every panel
    for ax in list(axes.flat)[n:]:
        ax.axis("off")
    for ax in axes[-1]:
        ax.set_xlabel("strict success (%)", fontsize=8)
    fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    return _png(fig)


def _dark(colour: str) -> bool:
    r, g, b = (int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b < 0.5


def per_domain_bars(data: ReportData) -> bytes:
    panels = []
    for d in catalog_domains(data):
        panels.append((d, {s.label: strict_counts([r for r in s.first.records.values() if r.domain == d]) for s in data.systems}))
    return _hbar_panels("Figure 5 - Strict success per domain (round 1; n/a = no scored trial)", panels, data.systems)


def difficulty_bars(data: ReportData) -> bytes:
    panels = [(d, {s.label: difficulty_rate(s.first, d) for s in data.systems}) for d in DIFFICULTIES]
    return _hbar_panels("Table 7 - Strict success by difficulty (round 1)", panels, data.systems)


def failure_pies(data: ReportData) -> bytes:
    """Fig. 13: one pie per system, ordered by non-successes (fewest first); each non-success under one
    primary label; non-convergence, ungraded and ⊥ are their own slices; counts only where they fit."""
    plt = _plt()
    systems = sorted(data.systems, key=lambda s: (sum(composition_counts(s.first).values()), s.rank_order))
    n = len(systems)
    cols = min(n, 4)
    rows = math.ceil(n / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(3.2 * cols, 3.1 * rows + 0.8), squeeze=False)
    used: set[str] = set()
    for ax, s in zip(axes.flat, systems, strict=False):
        counts = composition_counts(s.first)
        scored_fail = sum(v for k, v in counts.items() if k != BOTTOM)
        shown = [(label, counts[label]) for label in COMPOSITION_LABELS if counts.get(label)]
        total = sum(v for _, v in shown)
        if total:
            used |= {label for label, _ in shown}
            wedges, _ = ax.pie([v for _, v in shown], colors=[LABEL_COLOURS[label] for label, _ in shown],
                               wedgeprops={"edgecolor": "white", "linewidth": 0.8}, hatch=None)
            for wedge, (label, v) in zip(wedges, shown, strict=True):
                if v / total >= 0.06:
                    angle = math.radians((wedge.theta1 + wedge.theta2) / 2)
                    ax.text(0.65 * math.cos(angle), 0.65 * math.sin(angle), str(v), ha="center", va="center", fontsize=7,
                            color="white" if _dark(LABEL_COLOURS[label]) else "black")
        else:
            ax.text(0.5, 0.5, "no non-success", ha="center", va="center", transform=ax.transAxes, fontsize=8)
            ax.axis("off")
        bottom = counts.get(BOTTOM, 0)
        ax.set_title(f"{_tick(s)}\n{scored_fail} non-successes" + (f" + {bottom} ⊥" if bottom else ""), fontsize=8)
    for ax in list(axes.flat)[n:]:
        ax.axis("off")
    from matplotlib.patches import Patch

    handles = [Patch(color=LABEL_COLOURS[label], label=label) for label in COMPOSITION_LABELS if label in used]
    if handles:
        fig.legend(handles=handles, loc="lower center", ncol=min(6, len(handles)), fontsize=8, frameon=False, bbox_to_anchor=(0.5, -0.02))
    fig.suptitle("Figure 13 - Failure composition (one primary label per non-success; fewest non-successes first)", fontsize=10)
    fig.tight_layout(rect=(0, 0.05, 1, 0.97))
    return _png(fig)


def component_matrix_values(data: ReportData) -> list[list[float | None]]:
    matrix = []
    for s in data.systems:
        row: list[float | None] = []
        for component in report_components(data):
            verdicts = [r.verdict.components[component] for r in s.first.scored() if r.verdict and component in r.verdict.components]
            value = rate(sum(verdicts), len(verdicts))
            row.append(None if value is None else 100 * value)
        matrix.append(row)
    return matrix


def component_heatmap(data: ReportData) -> bytes:
    plt = _plt()
    import matplotlib

    matrix = component_matrix_values(data)
    components = report_components(data)
    cmap = matplotlib.colormaps["viridis"].with_extremes(bad="#dddddd")
    masked = [[float("nan") if v is None else v for v in row] for row in matrix]
    fig, ax = plt.subplots(figsize=(1.0 * len(components) + 3, 0.32 * len(data.systems) + 1.6))
    image = ax.imshow(masked, cmap=cmap, vmin=0, vmax=100, aspect="auto")
    ax.set_xticks(range(len(components)), components, rotation=30, fontsize=8)
    ax.set_yticks(range(len(data.systems)), [_tick(s) for s in data.systems], fontsize=7)
    for i, row in enumerate(matrix):
        for j, value in enumerate(row):
            if value is None:
                ax.text(j, i, "n/a", ha="center", va="center", color="#444", fontsize=7, style="italic")
            else:
                r, g, b, _ = cmap(value / 100)
                dark = 0.2126 * r + 0.7152 * g + 0.0722 * b < 0.5
                ax.text(j, i, f"{value:.0f}", ha="center", va="center", color="white" if dark else "black", fontsize=7)
    fig.colorbar(image, ax=ax, label="pass rate (%)")
    ax.set_title("Figure 14 - Component pass rates (each on its own verdicts; grey n/a = not declared)", fontsize=10)
    return _png(fig)


def standings_points(data: ReportData, prices: PriceTable) -> dict[str, list[tuple[int, str, float]]]:
    """Metric → [(leaderboard number, system label, x value)] for every measured system, and the
    unmeasured ones listed apart (x = nan). What Figure 15 draws, and what its test checks."""
    metrics = metric_values(data, prices)
    out: dict[str, list[tuple[int, str, float]]] = {}
    for metric, values in metrics.items():
        points = []
        for s in data.systems:
            v = values.get(s.label)
            points.append((s.rank_order, s.label, float("nan") if v is None else (v if metric == "cost/success" else 100 * v)))
        out[metric] = points
    return out


def standings_figure(data: ReportData, prices: PriceTable) -> Any:
    """Figure 15: one axis per metric, each system at its value, numbered by its leaderboard position
    (Table 6 order), in its colour; vertical offsets only separate colliding markers; n/a listed."""
    plt = _plt()
    points = standings_points(data, prices)
    by_number = {s.rank_order: s for s in data.systems}
    fig, axes = plt.subplots(len(points), 1, figsize=(9, 0.95 * len(points) + 1.5), squeeze=False)
    for ax, (metric, entries) in zip(axes.flat, points.items(), strict=True):
        measured = [(k, label, x) for k, label, x in entries if not math.isnan(x)]
        missing = [k for k, _, x in entries if math.isnan(x)]
        log = metric == "cost/success" and measured and all(x > 0 for _, _, x in measured)
        positions = [math.log10(x) if log else x for *_, x in measured]
        span = (max(positions) - min(positions)) if positions else 0.0
        near = max(span, 1e-9) * 0.035
        placed: list[tuple[float, int]] = []
        for (k, label, x), pos in zip(measured, positions, strict=True):
            level = 0
            while any(abs(pos - p) < near and lv == level for p, lv in placed):
                level += 1
            placed.append((pos, level))
            yy = 0.4 * (level % 4)
            ax.plot([x], [yy], "o", color=by_number[k].colour, markersize=9, markeredgecolor="black", markeredgewidth=0.4, gid=label)
            ax.annotate(str(k), (x, yy), ha="center", va="center", fontsize=6, color="white" if _dark(by_number[k].colour) else "black", gid=label)
        if log:
            ax.set_xscale("log")
        elif metric != "cost/success" and measured:
            lo, hi = min(positions), max(positions)
            pad = max(2.0, 0.06 * (hi - lo))
            ax.set_xlim(max(-1.0, lo - pad), min(101.0, hi + pad))
        ax.set_ylim(-0.35, 1.55)
        ax.set_yticks([])
        ax.tick_params(axis="x", labelsize=7)
        ax.set_ylabel(metric + (" ($)" if metric == "cost/success" else " (%)"), rotation=0, ha="right", va="center", fontsize=8)
        if missing:
            ax.text(1.01, 0.5, "n/a: " + ", ".join(f"#{k}" for k in missing), transform=ax.transAxes, fontsize=7, va="center", color="#666")
    from matplotlib.lines import Line2D

    handles = [Line2D([], [], marker="o", linestyle="", color=s.colour, markeredgecolor="black", markeredgewidth=0.4, label=f"{s.rank_order}. {_short(s.name, 32)}")
               for s in data.systems]
    fig.legend(handles=handles, loc="lower center", ncol=min(4, len(handles)), fontsize=7, frameon=False, bbox_to_anchor=(0.5, -0.01))
    fig.suptitle("Figure 15 - Per-metric standings (each axis on its own scale; numbers = leaderboard rank order)", fontsize=10)
    fig.tight_layout(rect=(0, 0.012 * math.ceil(len(handles) / 4) + 0.01, 1, 0.98))
    return fig


def metric_standings(data: ReportData, prices: PriceTable) -> bytes:
    return _png(standings_figure(data, prices))


def rank_bumps(data: ReportData, prices: PriceTable) -> bytes:
    """Figure 16 as in the spec: six higher-is-better metrics (strict, domain macro, easy, medium, hard and
    the domain with the lowest mean rate), so the crossings stay readable at 16 systems; the full rank
    table over every metric is Figure 16's table."""
    plt = _plt()
    values = metric_values(data, prices)
    domains = [d for d in catalog_domains(data) if d in values]
    means = {d: [v for v in values[d].values() if v is not None] for d in domains}
    hardest = min((d for d in domains if means[d]), key=lambda d: sum(means[d]) / len(means[d]), default=None)
    names = ["strict", "domain macro", *DIFFICULTIES, *([hardest] if hardest else [])]
    ranks = {m: competition_ranks(values[m]) for m in names}
    fig, ax = plt.subplots(figsize=(1.3 * len(names) + 5, 0.34 * len(data.systems) + 2.5))
    ends: dict[int, int] = {}
    for s in data.systems:
        ys = [ranks[m].get(s.label) for m in names]
        ax.plot(range(len(names)), [float("nan") if v is None else v for v in ys], marker="o", color=s.colour, linewidth=1.8, markersize=5)
        first = next(((i, v) for i, v in enumerate(ys) if v is not None), None)
        last = next(((i, v) for i, v in reversed(list(enumerate(ys))) if v is not None), None)
        if first:
            ax.annotate(f"{s.rank_order}", (first[0], first[1]), xytext=(-8, 0), textcoords="offset points", va="center", ha="right", fontsize=7, color=s.colour)
        if last:
            shift = ends.get(last[1], 0)
            ends[last[1]] = shift + 1
            ax.annotate(_tick(s), (last[0], last[1]), xytext=(8, -8 * shift), textcoords="offset points", va="center", fontsize=7, color=s.colour)
    ax.set_xticks(range(len(names)), names, rotation=30, ha="right", fontsize=8)
    ax.set_yticks(range(1, len(data.systems) + 1))
    ax.tick_params(axis="y", labelsize=7)
    ax.invert_yaxis()
    ax.set_xlim(-0.5, len(names) - 0.3 + 1.6)
    ax.set_ylabel("competition rank (1 = best)")
    ax.grid(axis="y", alpha=0.25)
    title = "Figure 16 - Ranks across metrics (ties share a rank; gaps = not measured)"
    ax.set_title(title + (f"; '{hardest}' = the domain with the lowest mean" if hardest else ""), fontsize=10)
    return _png(fig)


def round_rates(data: ReportData) -> bytes:
    plt = _plt()
    k = max(len(s.rounds) for s in data.systems)
    fig, ax = plt.subplots(figsize=(7.5, 0.22 * len(data.systems) + 3))
    for s in data.systems:
        values = [rate(*strict_counts(list(r.records.values()))) for r in s.rounds]
        ax.plot(range(1, len(values) + 1), [float("nan") if v is None else 100 * v for v in values], marker="o", color=s.colour, label=_tick(s), linewidth=1.3)
    ax.set_xticks(range(1, k + 1))
    ax.set_xlabel("round")
    ax.set_ylabel("strict success (%)")
    ax.set_title("Appendix C - Strict success per round", fontsize=10)
    ax.grid(alpha=0.25)
    ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5), frameon=False)
    return _png(fig)


def pass_k_figure(data: ReportData) -> bytes:
    """pass^k against k, one curve per system (its colour), each to its own number of rounds; the common k
    (the most rounds every system has) is marked, since only there are all systems on one footing."""
    plt = _plt()
    curves = pass_k_curves(data)
    top = max(len(s.rounds) for s in data.systems)
    common = min(len(s.rounds) for s in data.systems)
    fig, ax = plt.subplots(figsize=(8.5, 0.2 * len(data.systems) + 3.6))
    for s in data.systems:
        points = curves[s.label]
        ax.plot([p.k for p in points], [float("nan") if p.value is None else 100 * p.value for p in points], marker="o", color=s.colour,
                label=_tick(s), linewidth=1.4, markersize=4)
    ax.axvline(common, color="#999", linestyle="--", linewidth=0.9)
    ax.text(common, 1.0, f" common k = {common}", transform=ax.get_xaxis_transform(), fontsize=7, color="#555", va="bottom")
    ax.set_xticks(range(1, top + 1))
    ax.set_xlim(0.8, top + 0.2)
    ax.set_xlabel("k (rounds that must all succeed)")
    ax.set_ylabel("pass^k (%)")
    ax.set_title("pass^k for every k (unbiased C(c,k)/C(n,k) over each task's scored rounds)", fontsize=10, pad=14)
    ax.grid(alpha=0.25)
    ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5), frameon=False)
    return _png(fig)


def frontier_points(data: ReportData, prices: PriceTable) -> tuple[list[tuple[System, float, float]], list[System], list[System]]:
    """(system, full cost per scored trial in $, strict %) for priced systems; the Pareto frontier (no other
    system is at most as expensive and at least as accurate, and strictly better in one); the unpriced."""
    points, unpriced = [], []
    for s in data.systems:
        passes, scored = strict_counts(list(s.first.records.values()))
        per_trial = round_costs(s, s.first, prices).per(scored)
        strict = rate(passes, scored)
        if per_trial is None or strict is None:
            unpriced.append(s)
        else:
            points.append((s, per_trial, 100 * strict))
    on = set(pareto_frontier({s.label: (x, y) for s, x, y in points}))
    frontier = sorted((p for p in points if p[0].label in on), key=lambda p: p[1])
    return points, [p[0] for p in frontier], unpriced


def pareto_frontier(points: dict[str, tuple[float, float]]) -> list[str]:
    """Keys of the (cost, accuracy) points no other point dominates (at most as costly and at least as
    accurate, strictly better in one), cheapest first."""
    def dominated(c: float, a: float) -> bool:
        return any(oc <= c and oa >= a and (oc < c or oa > a) for oc, oa in points.values())

    return sorted((k for k, (c, a) in points.items() if not dominated(c, a)), key=lambda k: points[k])


def cost_frontier(data: ReportData, prices: PriceTable) -> bytes:
    """Cost against accuracy: full cost (every role) per scored trial on a log axis against strict success,
    each system numbered by its leaderboard position; the cost-accuracy frontier joined; unpriced listed."""
    plt = _plt()
    points, frontier, unpriced = frontier_points(data, prices)
    fig, ax = plt.subplots(figsize=(8.5, 5.6))
    for s, x, y in points:
        on = s in frontier
        ax.plot([x], [y], "o", color=s.colour, markersize=11 if on else 8, markeredgecolor="black", markeredgewidth=1.0 if on else 0.4, gid=s.label)
        ax.annotate(str(s.rank_order), (x, y), ha="center", va="center", fontsize=6, color="white" if _dark(s.colour) else "black")
    if len(frontier) > 1:
        xs = {s.label: (x, y) for s, x, y in points}
        ax.plot([xs[s.label][0] for s in frontier], [xs[s.label][1] for s in frontier], color="#444", linewidth=1, linestyle="--", zorder=0)
    if points and all(x > 0 for _, x, _ in points):
        ax.set_xscale("log")
    ax.set_xlabel("full cost per scored trial ($, every model role, round 1)")
    ax.set_ylabel("strict success (%)")
    ax.grid(alpha=0.25, which="both")
    if not points:
        ax.text(0.5, 0.5, "no system is fully priced", ha="center", va="center", transform=ax.transAxes)
    from matplotlib.lines import Line2D

    handles = [Line2D([], [], marker="o", linestyle="", color=s.colour, markeredgecolor="black", markeredgewidth=0.4,
                      label=f"{s.rank_order}. {_short(s.name, 30)}" + (" *" if s in frontier else "")) for s, _, _ in sorted(points, key=lambda p: p[0].rank_order)]
    if handles:
        ax.legend(handles=handles, fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5), frameon=False, title="* on the frontier", title_fontsize=7)
    note = ("n/a (unpriced, not drawn): " + ", ".join(f"#{s.rank_order}" for s in unpriced)) if unpriced else ""
    ax.set_title("Cost vs accuracy (dashed: the frontier, where no system is cheaper and at least as accurate)", fontsize=10)
    if note:
        ax.text(0.0, -0.14, note, transform=ax.transAxes, fontsize=7, color="#666")
    return _png(fig)


def composition_sunburst(data: ReportData) -> bytes:
    """Figure 11 as nested rings: domain (inner), first capability (middle), difficulty (outer)."""
    from collections import Counter

    plt = _plt()
    tree: dict[str, dict[str, Counter[str]]] = {}
    for task in sorted(data.catalog.values(), key=lambda t: (t.domain, t.capabilities[0])):
        tree.setdefault(task.domain, {}).setdefault(task.capabilities[0], Counter())[task.difficulty] += 1
    inner: list[int] = []
    middle: list[int] = []
    outer: list[int] = []
    inner_labels: list[str] = []
    middle_labels: list[str] = []
    for domain, caps in tree.items():
        inner.append(sum(sum(c.values()) for c in caps.values()))
        inner_labels.append(f"{domain}\n{inner[-1]}")
        for cap, counts in caps.items():
            middle.append(sum(counts.values()))
            middle_labels.append(cap)
            outer.extend(counts.get(d, 0) for d in DIFFICULTIES)
    fig, ax = plt.subplots(figsize=(7, 7))
    if inner:
        ax.pie(inner, radius=0.5, labels=inner_labels, labeldistance=0.35, wedgeprops={"width": 0.5, "edgecolor": "w"}, textprops={"fontsize": 8})
        ax.pie(middle, radius=0.8, labels=middle_labels, labeldistance=0.75, wedgeprops={"width": 0.3, "edgecolor": "w"}, textprops={"fontsize": 7})
        colours = {"easy": "#8fd694", "medium": "#f6c85f", "hard": "#e8767b"}
        ax.pie(outer, radius=1.0, colors=[colours[d] for _ in middle for d in DIFFICULTIES], wedgeprops={"width": 0.2, "edgecolor": "w"})
    ax.set_title("Figure 11 - Composition: domain / first capability / difficulty (green easy, yellow medium, red hard)")
    return _png(fig)


def all_figures(data: ReportData, prices: PriceTable) -> dict[str, bytes]:
    return {
        "fig05_per_domain": per_domain_bars(data),
        "tab07_difficulty": difficulty_bars(data),
        "fig13_failure_composition": failure_pies(data),
        "fig14_components": component_heatmap(data),
        "fig15_metric_standings": metric_standings(data, prices),
        "fig16_ranks": rank_bumps(data, prices),
        "figC_rounds": round_rates(data),
        "figC_pass_k": pass_k_figure(data),
        "fig_cost_frontier": cost_frontier(data, prices),
        "fig11_composition": composition_sunburst(data),
    }
