"""The report's figures as PNG images (matplotlib, headless Agg backend).

Each function returns PNG bytes, so the HTML can embed them and the report directory can store them.
"""

from __future__ import annotations

import io
import math
from collections import Counter

from grader.stats import competition_ranks, rate
from harness.report.data import ReportData
from harness.report.tables import COMPONENTS, DIFFICULTIES, FAILURE_LABELS, difficulty_rate, domain_rates, metric_values, strict_counts
from models.prices import PriceTable


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


def _grouped_bars(title: str, categories: list[str], values: dict[str, list[float]]) -> bytes:
    """One bar group per category, one bar per system (strict success in percent)."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(max(6.0, 0.8 * len(categories) * max(1, len(values))), 4))
    width = 0.8 / max(1, len(values))
    for i, (label, row) in enumerate(values.items()):
        ax.bar([j + i * width for j in range(len(categories))], row, width, label=label)
    ax.set_xticks([j + width * (len(values) - 1) / 2 for j in range(len(categories))], categories)
    ax.set_ylabel("strict success (%)")
    ax.set_ylim(0, 105)
    ax.set_title(title)
    ax.legend(fontsize=7)
    return _png(fig)


def per_domain_bars(data: ReportData) -> bytes:
    domains = sorted({r.domain for s in data.systems for r in s.first.records.values()})
    values = {s.label: [100 * (domain_rates(s.first).get(d) or 0) for d in domains] for s in data.systems}
    return _grouped_bars("Figure 5 - Strict success per domain", domains, values)


def failure_pies(data: ReportData) -> bytes:
    plt = _plt()
    n = len(data.systems)
    cols = min(n, 4)
    rows = math.ceil(n / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(3.6 * cols, 3.4 * rows), squeeze=False)
    for ax, s in zip(axes.flat, data.systems, strict=False):
        failures = [r for r in s.first.scored() if not r.strict and r.verdict]
        labels = Counter(r.verdict.primary_failure for r in failures if r.verdict)
        values = [labels.get(label, 0) for label in FAILURE_LABELS]
        if sum(values):
            shown = [(label, v) for label, v in zip(FAILURE_LABELS, values, strict=True) if v]
            ax.pie([v for _, v in shown], labels=[f"{label} ({v})" for label, v in shown], textprops={"fontsize": 7})
        else:
            ax.text(0.5, 0.5, "no failures", ha="center", va="center")
            ax.axis("off")
        ax.set_title(f"{s.label}\n{len(failures)} non-successes", fontsize=9)
    for ax in list(axes.flat)[n:]:
        ax.axis("off")
    fig.suptitle("Figure 13 - Failure composition (primary label)", y=1.04)
    return _png(fig)


def component_heatmap(data: ReportData) -> bytes:
    plt = _plt()
    matrix = []
    for s in data.systems:
        row = []
        for component in COMPONENTS:
            verdicts = [r.verdict.components[component] for r in s.first.scored() if r.verdict and component in r.verdict.components]
            value = rate(sum(verdicts), len(verdicts))
            row.append(float("nan") if value is None else 100 * value)
        matrix.append(row)
    fig, ax = plt.subplots(figsize=(1.1 * len(COMPONENTS) + 2, 0.5 * len(data.systems) + 1.5))
    image = ax.imshow(matrix, cmap="viridis", vmin=0, vmax=100, aspect="auto")
    ax.set_xticks(range(len(COMPONENTS)), COMPONENTS, rotation=30)
    ax.set_yticks(range(len(data.systems)), [s.label for s in data.systems])
    for i, row in enumerate(matrix):
        for j, value in enumerate(row):
            ax.text(j, i, "n/a" if math.isnan(value) else f"{value:.0f}", ha="center", va="center", color="white", fontsize=8)
    fig.colorbar(image, ax=ax, label="pass rate (%)")
    ax.set_title("Figure 14 - Component pass rates")
    return _png(fig)


def metric_standings(data: ReportData, prices: PriceTable) -> bytes:
    plt = _plt()
    metrics = metric_values(data, prices)
    fig, axes = plt.subplots(len(metrics), 1, figsize=(7, 0.9 * len(metrics) + 1), squeeze=False)
    for ax, (metric, values) in zip(axes.flat, metrics.items(), strict=True):
        points = [(label, v) for label, v in values.items() if v is not None]
        for k, (label, value) in enumerate(points):
            x = value if metric == "cost/success" else 100 * value
            ax.plot([x], [0.1 * (k % 3)], "o", label=label)
            ax.annotate(str(k + 1), (x, 0.1 * (k % 3)), fontsize=7, xytext=(3, 3), textcoords="offset points")
        if metric == "cost/success" and points and all(v > 0 for _, v in points):
            ax.set_xscale("log")
        ax.set_yticks([])
        ax.set_ylabel(metric, rotation=0, ha="right", fontsize=8)
    if data.systems:
        axes.flat[0].legend(fontsize=7, ncol=4, loc="lower left", bbox_to_anchor=(0, 1.05))
    fig.suptitle("Figure 15 - Per-metric standings (each axis on its own scale)")
    return _png(fig)


def rank_bumps(data: ReportData, prices: PriceTable) -> bytes:
    plt = _plt()
    metrics = {m: v for m, v in metric_values(data, prices).items() if m != "cost/success"}
    ranks = {m: competition_ranks(values) for m, values in metrics.items()}
    fig, ax = plt.subplots(figsize=(1.2 * len(metrics) + 2, 0.4 * len(data.systems) + 2.5))
    names = list(metrics)
    for s in data.systems:
        ax.plot(range(len(names)), [ranks[m].get(s.label) or float("nan") for m in names], marker="o", label=s.label)
    ax.set_xticks(range(len(names)), names, rotation=30)
    ax.invert_yaxis()
    ax.set_ylabel("competition rank (1 = best)")
    ax.legend(fontsize=7)
    ax.set_title("Figure 16 - Ranks across metrics")
    return _png(fig)


def round_rates(data: ReportData) -> bytes:
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6, 3.5))
    for s in data.systems:
        values = [100 * (rate(*strict_counts(list(r.records.values()))) or 0) for r in s.rounds]
        ax.plot(range(1, len(values) + 1), values, marker="o", label=s.label)
    ax.set_xlabel("round")
    ax.set_ylabel("strict success (%)")
    ax.set_title("Appendix C - Strict success per round")
    ax.legend(fontsize=7)
    return _png(fig)


def difficulty_bars(data: ReportData) -> bytes:
    values = {s.label: [100 * (rate(*difficulty_rate(s.first, d)) or 0) for d in DIFFICULTIES] for s in data.systems}
    return _grouped_bars("Table 7 - Strict success by difficulty", list(DIFFICULTIES), values)


def composition_sunburst(data: ReportData) -> bytes:
    """Figure 11 as nested rings: domain (inner), first capability (middle), difficulty (outer)."""
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
        "fig11_composition": composition_sunburst(data),
    }
