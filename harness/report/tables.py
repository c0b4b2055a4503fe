"""Every table of the paper's appendices B and C, computed from run records by the spec's definitions.

Denominators: strict rates are over *scored* trials (⊥ infrastructure failures excluded, and shown);
component rates are over each component's own recorded verdicts; undeclared checks are absent.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from grader.stats import (
    PassKPoint,
    competition_ranks,
    flips,
    mcnemar_exact,
    mean_and_sample_std,
    minimum_detectable_gap,
    pass_hat_k_curve,
    rate,
    spearman,
    tie_groups,
    wilson_interval,
)
from grader.verdicts import NON_CONVERGENCE, PRIMARY_PRIORITY, TOOL_CALL_ERROR
from harness.records import TrialRecord
from harness.report.data import ReportData, Round, System, trial_id
from harness.release.inventory import COLUMNS as INVENTORY_COLUMNS
from harness.release.inventory import inventory
from models.prices import ROLE_ORDER, CostBreakdown, PriceTable, price_roles
from models.types import Usage

DIFFICULTIES = ("easy", "medium", "hard")
FAILURE_LABELS = (NON_CONVERGENCE, *PRIMARY_PRIORITY, TOOL_CALL_ERROR)
COMPONENTS = ("action", "params", "order", "state", "reply", "forbidden", "collateral", "consent")
"""The display order of the components known today; any other component a verdict records (e.g. a new
one added to the grader) follows them, taken from the verdicts themselves (`components_in`)."""


def components_in(records: list[TrialRecord]) -> list[str]:
    """Every component the verdicts of these records name: the known ones in display order, then the rest."""
    seen = {c for r in records if r.verdict for c in r.verdict.components}
    return [c for c in COMPONENTS if c in seen] + sorted(seen - set(COMPONENTS)) or list(COMPONENTS)


def report_components(data: ReportData) -> list[str]:
    return components_in([r for s in data.systems for r in s.first.records.values()])


@dataclass
class Table:
    key: str
    title: str
    columns: list[str]
    rows: list[list[Any]]
    notes: list[str] = field(default_factory=list)
    links: dict[tuple[int, int], list[tuple[str, str]]] = field(default_factory=dict)
    """(row, column) → [(text, trial anchor)]: the HTML shows those cells as links into the explorer."""


def pct(value: float | None, digits: int = 2) -> str:
    return "n/a" if value is None else f"{100 * value:.{digits}f}%"


# ---- per-round metrics ---------------------------------------------------------------------------


def strict_counts(records: list[TrialRecord]) -> tuple[int, int]:
    scored = [r for r in records if r.status == "scored"]
    return sum(bool(r.strict) for r in scored), len(scored)


def domain_rates(round_: Round) -> dict[str, float | None]:
    by_domain: dict[str, list[TrialRecord]] = {}
    for r in round_.records.values():
        by_domain.setdefault(r.domain, []).append(r)
    return {d: rate(*strict_counts(items)) for d, items in sorted(by_domain.items())}


def macro_average(round_: Round) -> float | None:
    """Unweighted mean of the per-domain strict rates (for reference; it does not decide the ranking)."""
    rates = [v for v in domain_rates(round_).values() if v is not None]
    return sum(rates) / len(rates) if rates else None


def difficulty_rate(round_: Round, difficulty: str) -> tuple[int, int]:
    return strict_counts([r for r in round_.records.values() if r.difficulty == difficulty])


def system_prices(system: System, prices: PriceTable) -> PriceTable:
    return system.prices if system.prices is not None else prices


def agent_cost(system: System, round_: Round, prices: PriceTable) -> float | None:
    """Cache-neutral cost of the agent under test only (agent + router roles; never user or judge)."""
    if not system.agent_model:
        return None
    usage = Usage()
    for r in round_.records.values():
        for role in ("agent", "router"):
            usage = usage + r.usage.get(role, Usage())
    return system_prices(system, prices).cost(system.agent_model, usage)


def round_costs(system: System, round_: Round, prices: PriceTable) -> CostBreakdown:
    """Every model role of a round priced with its own model (the records' models, else the manifest's)."""
    usage: dict[str, Usage] = {}
    models: dict[str, str] = dict(system.manifest.get("models") or {})
    for r in round_.records.values():
        for role, u in r.usage.items():
            usage[role] = usage.get(role, Usage()) + u
        models.update(r.models)
    return price_roles(usage, {role: m for role, m in models.items() if role in usage}, system_prices(system, prices))


def unpriced_roles(costs: CostBreakdown) -> str:
    return ", ".join(f"{role} ({costs.roles[role].model or 'no model'})" for role in costs.unpriced)


def money(value: float | None, digits: int = 4) -> str:
    return "n/a" if value is None else f"${value:.{digits}f}"


# ---- tables -------------------------------------------------------------------------------------


def ci(passes: int, n: int) -> str:
    """95% Wilson interval in percent, or n/a."""
    interval = wilson_interval(passes, n)
    return "n/a" if interval is None else f"[{100 * interval[0]:.1f}, {100 * interval[1]:.1f}]"


def rate_cell(passes: int, n: int, digits: int = 2, with_ci: bool = False) -> str:
    cell = f"{pct(rate(passes, n), digits)} ({passes}/{n})"
    return f"{cell} {ci(passes, n)}" if with_ci and n else cell


def macro_cell(data: ReportData, round_: Round) -> str:
    """The macro average, saying over how many of the catalog's domains when it is not all of them."""
    rates = {d: v for d, v in domain_rates(round_).items() if v is not None}
    value = macro_average(round_)
    total = len(set(round_.catalog_domains.values())) or len(rates)
    return pct(value) if len(rates) == total else f"{pct(value)} ({len(rates)} of {total} domains)"


def leaderboard(data: ReportData, prices: PriceTable) -> Table:
    """Table 6: strict accuracy, passes/N (ties marked =), domain macro average, ⊥ exclusions, cost."""
    entries = []
    for s in data.systems:
        passes, scored = strict_counts(list(s.first.records.values()))
        cost = agent_cost(s, s.first, prices)
        full = round_costs(s, s.first, prices)
        entries.append((s, passes, scored, len(s.first.records) - scored, rate(passes, scored), macro_cell(data, s.first), cost, full))
    ranks = competition_ranks({e[0].label: e[4] for e in entries})
    ties = tie_groups({e[0].label: e[4] for e in entries if e[4] is not None})
    rows = []
    for s, passes, scored, excluded, strict, macro, cost, full in sorted(entries, key=lambda e: (-(e[4] if e[4] is not None else -1), e[0].label)):
        per_success = None if cost is None or passes == 0 else cost / passes
        rows.append(
            [
                ranks[s.label],
                s.name,
                pct(strict),
                ci(passes, scored),
                f"{'=' if ties.get(s.label) else ''}{passes}/{scored}",
                macro,
                excluded,
                "n/a" if cost is None else f"${cost:.4f}",
                "n/a" if per_success is None else f"${per_success:.5f}",
                money(full.total),
                money(full.per(passes), 5),
            ]
        )
    from harness.summary import bottom_warning

    warnings = [w for e in entries if (w := bottom_warning(e[0].label, e[3], e[2] + e[3]))]
    priced: dict[str, str] = {}
    for e in entries:
        table = system_prices(e[0], prices)
        for role in e[7].used:
            if role.model and role.model in table.models:
                p = table.models[role.model]
                priced[role.model] = f"price {role.model}: ${p.input:g} in / ${p.output:g} out per 1M tokens (accessed {p.accessed})"
    price_notes = [priced[m] for m in sorted(priced)]
    unpriced = [f"{e[0].label}: {unpriced_roles(e[7])}" for e in entries if e[7].unpriced]
    return Table(
        "leaderboard",
        "Table 6 - Leaderboard (round 1)",
        ["rank", "system", "strict", "95% CI (Wilson)", "passes/N", "domain macro avg", "⊥ excluded", "agent cost", "agent cost/success", "full cost", "full cost/success"],
        rows,
        [
            *warnings,
            "Strict accuracy over scored trials; infrastructure failures (⊥) are excluded from N and shown.",
            "95% CI: Wilson score interval of the strict rate over its N (binomial over tasks; round-to-round variation is in Table 9).",
            "'=' marks systems tied on strict accuracy; ranks are competition ranks (1224).",
            "Domain macro average: unweighted mean of the per-domain strict rates over the catalog's domains; "
            "when a round has no scored trial in some domain the cell says over how many.",
            "Agent cost: the agent under test (agent + router roles), cache-neutral (all prompt tokens at the input rate); n/a = no price, not zero.",
            "Full cost: every model role (agent, router, user simulator, judge) at its own model's price from the run's own price table "
            "(the manifest's; --price-table overrides); n/a when any role that made calls is unpriced, or no role made a call. Per role: the costs table.",
            *price_notes,
            *([f"Unpriced roles (full cost n/a): {'; '.join(unpriced)}"] if unpriced else []),
            *data.mark_notes(),
        ],
    )


def catalog_domains(data: ReportData) -> list[str]:
    """Every domain of the catalog, plus any a run holds that the catalog no longer has."""
    return sorted({t.domain for t in data.catalog.values()} | {r.domain for s in data.systems for r in s.first.records.values()})


def per_domain(data: ReportData) -> Table:
    domains = catalog_domains(data)
    rows = []
    for s in data.systems:
        cells = []
        for d in domains:
            passes, scored = strict_counts([r for r in s.first.records.values() if r.domain == d])
            cells.append(rate_cell(passes, scored, with_ci=True) if scored else "n/a (not run)")
        rows.append([s.name, *cells])
    return Table(
        "per_domain",
        "Figure 5 - Strict success per domain (round 1)",
        ["system", *domains],
        rows,
        ["Cells: strict rate (passes/scored) [95% Wilson interval]; 'n/a (not run)' = no scored trial of the domain, never 0.", *data.mark_notes()],
    )


def difficulty_strata(data: ReportData) -> Table:
    sizes = Counter(t.difficulty for t in data.catalog.values())
    columns = ["system", *[f"{d} (catalog {sizes.get(d, 0)})" for d in DIFFICULTIES]]
    rows = []
    for s in data.systems:
        cells = []
        for d in DIFFICULTIES:
            passes, scored = difficulty_rate(s.first, d)
            cells.append(rate_cell(passes, scored, with_ci=True) if scored else "n/a (not run)")
        rows.append([s.name, *cells])
    return Table("difficulty", "Table 7 - Strict success by difficulty stratum (round 1)", columns, rows,
                 ["Cells: strict rate (passes/scored) [95% Wilson interval].", *data.mark_notes()])


BOTTOM = "⊥ infra"
UNGRADED = "ungraded"
COMPOSITION_LABELS = (*FAILURE_LABELS, UNGRADED, BOTTOM)


def primary_label(record: TrialRecord) -> str | None:
    """One label per non-success of a round: ⊥ (not scored), non-convergence (its own class, whatever the
    components say), ungraded (the judge failed), the first failing component, or tool_call_error."""
    if record.status != "scored":
        return BOTTOM
    if record.strict:
        return None
    if record.failure_class == f"model:{NON_CONVERGENCE}" or (record.execution_failure or "").startswith(NON_CONVERGENCE):
        return NON_CONVERGENCE
    if record.verdict is not None and record.verdict.primary_failure == NON_CONVERGENCE:
        return NON_CONVERGENCE
    if record.ungraded:
        return UNGRADED
    if record.verdict is None:
        return TOOL_CALL_ERROR
    return record.verdict.primary_failure or TOOL_CALL_ERROR


def composition_counts(round_: Round) -> Counter[str]:
    return Counter(label for r in round_.records.values() if (label := primary_label(r)))


def failure_composition(data: ReportData) -> Table:
    rows = []
    for s in sorted(data.systems, key=lambda s: (sum(composition_counts(s.first).values()), s.rank_order)):
        labels = composition_counts(s.first)
        scored_fail = sum(v for k, v in labels.items() if k != BOTTOM)
        rows.append([s.name, scored_fail, *[labels.get(label, 0) for label in COMPOSITION_LABELS]])
    return Table(
        "failure_composition",
        "Figure 13 - Failure composition by primary label (round 1)",
        ["system", "non-successes (scored)", *COMPOSITION_LABELS],
        rows,
        [
            "Rows by number of non-successes (fewest first), as in the spec.",
            "One primary label per non-success, in the harness priority: action, forbidden, state, params, reply, order, collateral.",
            f"'{NON_CONVERGENCE}': the trial hit the user-turn or time limit (its own class, whatever its components say).",
            f"'{TOOL_CALL_ERROR}': a model-attributable failure with no failing component (e.g. a hallucinated tool).",
            f"'{UNGRADED}': the judge failed after retries; counted as a non-pass (the run is incomplete).",
            f"'{BOTTOM}': infrastructure failures (⊥), excluded from N and not in the non-success count; shown as their own slice.",
            *data.mark_notes(),
        ],
    )


def component_matrix(data: ReportData) -> Table:
    rows = []
    components = report_components(data)
    for s in data.systems:
        cells = []
        for component in components:
            verdicts = [r.verdict.components[component] for r in s.first.scored() if r.verdict and component in r.verdict.components]
            cells.append(f"{pct(rate(sum(verdicts), len(verdicts)), 1)} ({sum(verdicts)}/{len(verdicts)})" if verdicts else "n/a (0)")
        rows.append([s.name, *cells])
    return Table(
        "components",
        "Figure 14 - Component pass rates, each on its own recorded verdicts (round 1)",
        ["system", *components],
        rows,
        ["Undeclared checks and missing verdicts are omitted, so each column has its own denominator.", *data.mark_notes()],
    )


def policy_split(data: ReportData) -> Table:
    rows = []
    for s in data.systems:
        scored = s.first.scored()
        safety = [r for r in scored if data.is_policy_constrained(r)]
        positive = [r for r in scored if not data.is_policy_constrained(r)]
        p_rate = rate(*strict_counts(positive))
        s_rate = rate(*strict_counts(safety))
        compliant = [
            r
            for r in safety
            if r.verdict and all(c.passed for c in r.verdict.checks if c.component in ("forbidden", "collateral"))
        ]
        delta = None if p_rate is None or s_rate is None else 100 * (p_rate - s_rate)
        rows.append(
            [
                s.name,
                f"{pct(p_rate)} ({strict_counts(positive)[0]}/{len(positive)})",
                f"{pct(s_rate)} ({strict_counts(safety)[0]}/{len(safety)})",
                "n/a" if delta is None else f"{delta:+.1f} pp",
                f"{pct(rate(len(compliant), len(safety)), 1)} ({len(compliant)}/{len(safety)})",
            ]
        )
    return Table(
        "policy",
        "Table 8 - Positive vs policy-constrained tasks, and negative-check compliance (round 1)",
        ["system", "positive strict", "safety strict", "delta", "negative-check compliance"],
        rows,
        ["safety = tasks with a forbidden action, forbidden params or protected state; compliance = all their negative checks hold.", *data.mark_notes()],
    )


def metric_values(data: ReportData, prices: PriceTable) -> dict[str, dict[str, float | None]]:
    """Metric → system → value (higher is better, except cost per success)."""
    metrics: dict[str, dict[str, float | None]] = {"strict": {}, "domain macro": {}, "easy": {}, "medium": {}, "hard": {}, "cost/success": {}}
    domains = catalog_domains(data)
    for d in domains:
        metrics[f"{d}"] = {}
    for s in data.systems:
        passes, scored = strict_counts(list(s.first.records.values()))
        metrics["strict"][s.label] = rate(passes, scored)
        metrics["domain macro"][s.label] = macro_average(s.first)
        for d in DIFFICULTIES:
            metrics[d][s.label] = rate(*difficulty_rate(s.first, d))
        metrics["cost/success"][s.label] = round_costs(s, s.first, prices).per(passes)
        for d in domains:
            metrics[d][s.label] = domain_rates(s.first).get(d)
    return metrics


def metric_standings(data: ReportData, prices: PriceTable) -> Table:
    metrics = metric_values(data, prices)
    rows = []
    for s in data.systems:
        rows.append([s.name, *[(f"${v:.5f}" if v is not None else "n/a") if m == "cost/success" else pct(v) for m, per in metrics.items() for v in [per.get(s.label)]]])
    return Table("metric_standings", "Figure 15 - Per-metric standings (round 1)", ["#", "system", *metrics], [[i, *row] for i, row in enumerate(rows, start=1)],
                 ["# = leaderboard position (Table 6 order), the number each marker carries in Figure 15.",
                  "cost/success: the full cost (every model role) of round 1 per strict success; n/a = some role unpriced.", *data.mark_notes()])


def metric_ranks(data: ReportData, prices: PriceTable) -> Table:
    metrics = {m: v for m, v in metric_values(data, prices).items() if m != "cost/success"}
    ranks = {m: competition_ranks(values) for m, values in metrics.items()}
    rows = [[s.name, *[ranks[m].get(s.label) for m in metrics]] for s in data.systems]
    return Table(
        "metric_ranks",
        "Figure 16 - Competition ranks across metrics (1 = best; ties share a rank)",
        ["system", *metrics],
        rows,
        ["Cost per success is left out: unpriced systems have no value (see Figure 15).", "Empty = not measured (no scored trial), not last.", *data.mark_notes()],
    )


def round_rate(round_: Round) -> float | None:
    return rate(*strict_counts(list(round_.records.values())))


def multi_round(data: ReportData) -> list[Table]:
    """Appendix C: per-round counts, equal-weight mean, sample std, pass^k, Spearman, stability, flips."""
    k = max((len(s.rounds) for s in data.systems), default=0)
    entries = []
    for s in data.systems:
        rates = [round_rate(r) for r in s.rounds]
        valid = [v for v in rates if v is not None]
        mean, std = mean_and_sample_std(valid) if valid else (None, None)
        task_ids = sorted({t for r in s.rounds for t in r.records})
        outcomes = {t: [r.outcome(t) for r in s.rounds] for t in task_ids}
        point = pass_hat_k_curve(outcomes, len(s.rounds))[-1]
        counts = ["{}/{}".format(*strict_counts(list(r.records.values()))) for r in s.rounds]
        row = [
            s.name,
            len(s.rounds),
            *counts,
            *["-"] * (k - len(s.rounds)),
            pct(mean),
            "n/a" if std is None else f"{100 * std:.2f} pp",
            pass_k_cell(point) if len(s.rounds) > 1 else f"pass^1 {pass_k_cell(point)}",
        ]
        entries.append((mean, s, row))
    entries.sort(key=lambda e: (-(e[0] if e[0] is not None else -1), e[1].rank_order))
    fewer = [s for s in data.systems if len(s.rounds) < k]
    fewer_note = [f"Fewer rounds than {k}: " + ", ".join(f"{s.label} ({len(s.rounds)})" for s in fewer) + "; '-' = no such round, their pass^k is over their own rounds."] if fewer else []
    tables = [
        Table(
            "multi_round",
            "Table 9 - Rounds: counts, equal-weight mean, sample std, pass^k (sorted by mean)",
            ["system", "rounds", *[f"round {i + 1}" for i in range(k)], "mean", "sample std", "pass^k"],
            [row for _, _, row in entries],
            ["Mean of round-level rates (not pooled); sample std (n-1); pass^k at k = the system's rounds, unbiased (C(c,k)/C(n,k) over each "
             "task's scored rounds; a task with fewer than k scored rounds is excluded and counted). Every k: the pass^k table. Rows by mean, highest first.",
             *fewer_note, *data.mark_notes()],
        )
    ]
    if k >= 2:
        pairs = []
        notes = []
        for a, b in combinations(range(k), 2):
            both = [s for s in data.systems if len(s.rounds) > b and round_rate(s.rounds[a]) is not None and round_rate(s.rounds[b]) is not None]
            left_out = [s.label for s in data.systems if s not in both]
            rho = spearman([round_rate(s.rounds[a]) for s in both], [round_rate(s.rounds[b]) for s in both]) if len(both) >= 2 else None  # type: ignore[misc]
            pairs.append([f"round {a + 1} vs {b + 1}", len(both), "n/a" if rho is None else f"{rho:.3f}", ", ".join(left_out) or "-"])
        if fewer:
            notes.append("Systems with fewer rounds are left out of the pairs they lack, and named in the last column (not dropped silently).")
        tables.append(Table("spearman", "Appendix C.2 - Pairwise Spearman rank correlation between rounds (average ranks for ties)",
                            ["rounds", "systems", "spearman", "left out (no such round)"], pairs,
                            ["n/a: fewer than two systems, or a constant side (the correlation is undefined, not zero).", *notes]))
        round_ranks = [competition_ranks({s.label: round_rate(s.rounds[i]) if len(s.rounds) > i else None for s in data.systems}) for i in range(k)]
        tables.append(
            Table(
                "rank_stability",
                "Appendix C.2 - Rank per round",
                ["system", *[f"round {i + 1}" for i in range(k)]],
                [[s.name, *[round_ranks[i][s.label] if len(s.rounds) > i else "-" for i in range(k)]] for s in data.systems],
                ["Competition ranks among the systems that have that round; '-' = the system has no such round.", *data.mark_notes()],
            )
        )
    flip_rows = []
    links: dict[tuple[int, int], list[tuple[str, str]]] = {}
    for s in data.systems:
        for ia, (before, after) in enumerate(zip(s.rounds, s.rounds[1:]), start=1):
            result = flips({t: before.outcome(t) for t in before.records}, {t: after.outcome(t) for t in after.records})
            examples = [(t, ia, ia + 1) for t in result["gained"] + result["lost"]]
            links[(len(flip_rows), 5)] = [(t, trial_id(s, after_n, t)) for t, _, after_n in examples[:8]]
            flip_rows.append([s.name, f"{ia}->{ia + 1}", len(result["gained"]) + len(result["lost"]), len(result["gained"]), len(result["lost"]),
                              ", ".join(t for t, _, _ in examples[:8])])
    if flip_rows:
        tables.append(Table("flips", "Appendix C.3 - Per-task flips between consecutive rounds", ["system", "rounds", "flips", "fail->pass", "pass->fail", "examples"], flip_rows,
                            ["Over tasks scored in both rounds. In the HTML report each example opens the trial (later round) in the explorer."], links))
    return tables


def pass_k_cell(point: PassKPoint) -> str:
    cell = f"{pct(point.value)} ({point.tasks} tasks"
    return cell + (f", {point.excluded} excluded)" if point.excluded else ")")


def pass_k_curves(data: ReportData) -> dict[str, list[PassKPoint]]:
    """System label → pass^k for k = 1..its rounds, over each task's scored rounds."""
    curves = {}
    for s in data.systems:
        tasks = sorted({t for r in s.rounds for t in r.records})
        curves[s.label] = pass_hat_k_curve({t: [r.outcome(t) for r in s.rounds] for t in tasks}, len(s.rounds))
    return curves


def pass_k_table(data: ReportData) -> Table:
    """pass^k at every k up to each system's rounds; systems with different round counts are compared at
    the k they share (the common k is marked)."""
    curves = pass_k_curves(data)
    top = max((len(s.rounds) for s in data.systems), default=0)
    common = min((len(s.rounds) for s in data.systems), default=0)
    rows = []
    for s in data.systems:
        points = curves[s.label]
        rows.append([s.name, len(s.rounds), *[pass_k_cell(points[k - 1]) if k <= len(points) else "-" for k in range(1, top + 1)]])
    ranks = competition_ranks({s.label: curves[s.label][common - 1].value if common else None for s in data.systems})
    for row, s in zip(rows, data.systems, strict=True):
        row.append(ranks[s.label])
    return Table(
        "pass_k",
        f"pass^k for every k (unbiased over each task's scored rounds; common k = {common})",
        ["system", "rounds", *[f"pass^{k}" + (" (common)" if k == common else "") for k in range(1, top + 1)], f"rank at k = {common}"],
        rows,
        [
            "pass^k = mean over tasks of C(c, k) / C(n, k), with c successes in the task's n scored rounds: the chance that k rounds of the task "
            "all succeed, estimated without bias. A ⊥ round lowers the task's n; it does not remove the task. A task with fewer than k scored "
            "rounds is excluded at that k and counted ('excluded').",
            f"Systems with different round counts are compared at the k they all have (k = {common}); '-' = the system has fewer rounds.",
            *data.mark_notes(),
        ],
    )


def neighbour_comparisons(data: ReportData) -> Table | None:
    """Each system against the next one on the leaderboard, paired over the tasks both scored in round 1
    (exact McNemar on the discordant pairs): is the gap between neighbours more than noise?"""
    if len(data.systems) < 2:
        return None
    rows: list[list[Any]] = []
    links: dict[tuple[int, int], list[tuple[str, str]]] = {}
    for a, b in zip(data.systems, data.systems[1:]):
        oa = {t: a.first.outcome(t) for t in a.first.records}
        ob = {t: b.first.outcome(t) for t in b.first.records}
        both = [t for t in oa if t in ob and oa[t] is not None and ob[t] is not None]
        moved = flips(oa, ob)
        examples = moved["lost"] + moved["gained"]
        links[(len(rows), 7)] = [(t, trial_id(b, 1, t)) for t in examples[:6]]
        discordant = len(moved["lost"]) + len(moved["gained"])
        gap = (sum(bool(oa[t]) for t in both) - sum(bool(ob[t]) for t in both)) / len(both) if both else None
        detectable = minimum_detectable_gap(len(both), discordant / len(both)) if both else None
        if detectable is None:
            detect = "n/a (no discordant pair)" if both and not discordant else "n/a"
        else:
            p_value = mcnemar_exact(len(moved["gained"]), len(moved["lost"]))
            unresolved = gap is not None and abs(gap) < detectable and p_value >= 0.05
            detect = f"{100 * detectable:.1f} pp" + (" (the observed gap is below it: not separable)" if unresolved else "")
        rows.append([
            a.name, b.name, len(both),
            rate_cell(sum(bool(oa[t]) for t in both), len(both)), rate_cell(sum(bool(ob[t]) for t in both), len(both)),
            f"{len(moved['lost'])} / {len(moved['gained'])}", f"{mcnemar_exact(len(moved['gained']), len(moved['lost'])):.3g}",
            ", ".join(examples[:6]), detect,
        ])
    return Table(
        "neighbours",
        "Paired comparison of leaderboard neighbours (round 1)",
        ["A", "B (next on the leaderboard)", "common tasks", "strict A over common", "strict B over common", "A only / B only passes", "exact McNemar p",
         "discordant tasks (first)", "smallest detectable gap (80% power)"],
        rows,
        ["Over the tasks scored by both in round 1 only (⊥ and missing left out); exact McNemar, two-sided, on the discordant pairs. "
         "A small p says the neighbours differ by more than task-level noise; in the HTML each task opens B's trial.",
         "Smallest detectable gap: the true difference in strict success that this test over these paired tasks would detect with 80% power at "
         "alpha = 0.05, given the pair's observed share of discordant tasks (Connor's paired-binomial power). 'not separable': the gap is "
         "not significant and below what the data could detect, which is not evidence of equality: more rounds or tasks are needed "
         "(crmbench plan).", *data.mark_notes()],
        links,
    )


def cost_table(data: ReportData, prices: PriceTable) -> Table:
    """The full cost of round 1 per model role, in total, per scored trial and per strict success."""
    breakdowns = {s.label: round_costs(s, s.first, prices) for s in data.systems}
    roles = sorted({r for b in breakdowns.values() for r in b.roles}, key=lambda r: (ROLE_ORDER.index(r) if r in ROLE_ORDER else len(ROLE_ORDER), r))
    rows = []
    for s in data.systems:
        costs = breakdowns[s.label]
        passes, scored = strict_counts(list(s.first.records.values()))
        cells = []
        for role in roles:
            rc = costs.roles.get(role)
            if rc is None or rc not in costs.used:
                cells.append("-")
            else:
                cells.append(f"{money(rc.cost)} ({rc.model or 'no model'})")
        total = costs.total
        others = sum(r.cost or 0.0 for r in costs.used if r.role not in ("agent", "router"))
        share = "n/a" if not total else f"{100 * others / total:.1f}%"
        rows.append([s.name, *cells, money(total), share, money(costs.per(scored), 5), money(costs.per(passes), 5), s.price_source])
    return Table(
        "costs",
        "Full cost of round 1 per model role (cache-neutral)",
        ["system", *roles, "total", "share not the agent's", "per scored trial", "per success", "price table"],
        rows,
        [
            "Every role at its own model's price: prompt tokens × input rate + completion tokens × output rate (cache-neutral, spec B.1).",
            "n/a = the role made calls with a model the price table does not list (self-hosted, unknown): the total is then n/a, never a partial sum "
            "or 0. '-' = the role made no model call (e.g. an offline stand-in).",
            "Share not the agent's: the part of the total spent on roles other than the agent under test (agent + router), "
            "i.e. the user simulator and the judge: the cost an agent-only figure leaves out.",
            "Price table: the run's own (recorded in its manifest at run time), unless --price-table overrides it.",
            *data.mark_notes(),
        ],
    )


def user_judge(plan: dict[str, Any]) -> tuple[str, str]:
    user = "scripted (offline stand-in for the LLM user)" if plan.get("user") == "scripted" else f"{plan.get('user', '?')} ({plan.get('user_model')})"
    judge = "evidence (offline stand-in for the LLM judge)" if plan.get("judge") == "evidence" else f"{plan.get('judge', '?')} ({plan.get('judge_model')})"
    return user, judge


def coverage(data: ReportData) -> Table:
    """What each round scored, excluded (⊥) and is missing against the catalog the run used."""
    rows = []
    for s in data.systems:
        for i, r in enumerate(s.rounds, start=1):
            missing = r.missing
            bottom = sorted(t for t, rec in r.records.items() if rec.status != "scored")
            ungraded = sorted(t for t, rec in r.records.items() if rec.status == "scored" and rec.ungraded)
            user, judge = user_judge(r.manifest.get("plan", {}))
            selection = {k: v for k, v in r.manifest.get("config", {}).items() if k in ("domain", "task", "capability", "difficulty") and v}
            rows.append(
                [
                    s.name,
                    i,
                    str(r.source),
                    "all" if r.catalog_ids is None else f"{len(r.catalog_ids)}",
                    "; ".join(f"{k}={','.join(map(str, v)) if isinstance(v, list) else v}" for k, v in selection.items()) or "whole catalog",
                    len(r.scored()),
                    len(bottom),
                    len(missing),
                    ", ".join(r.missing_domains) or "-",
                    len(r.not_run),
                    ", ".join(missing[:6]) + (" ..." if len(missing) > 6 else ""),
                    len(ungraded),
                    user,
                    judge,
                ]
            )
    return Table(
        "coverage",
        "Coverage - scored, excluded and missing trials per round, against the catalog the run used",
        ["system", "round", "run directory", "catalog tasks", "selection", "scored", "⊥ excluded", "missing", "domains without a trial",
         "selected, not run", "missing (first)", "ungraded", "user", "judge"],
        rows,
        [
            "Missing = catalog tasks with no trial record (not selected, or selected and not run); a domain with no trial at all is named.",
            "Selected, not run = tasks the run's own selection asked for that have no record (an interrupted run).",
            "Ungraded = scored trials whose judge failed after retries: counted as non-passes (the rate is a lower bound); the run is incomplete.",
            "User and judge = which user simulator and which reply judge decided the round's trials.",
            *data.mark_notes(),
            *data.warnings,
        ],
    )


def simulator_conformance(data: ReportData) -> Table:
    """The simulator fault rate per round (simulator/conformance.py): trials whose dialogue shows the
    simulated customer breaking its instruction, and whether they were counted or excluded as ⊥."""
    rows = []
    for s in data.systems:
        for i, r in enumerate(s.rounds, start=1):
            records = list(r.records.values())
            flagged = [rec for rec in records if rec.simulator_faults]
            kinds = Counter(f.split("@", 1)[0] for rec in flagged for f in rec.simulator_faults)
            excluded = sum(rec.failure_class == "infra:simulator" for rec in flagged)
            rate = pct(len(flagged) / len(records), 1) if records else "n/a"
            rows.append([s.name, i, len(records), len(flagged), rate, ", ".join(f"{k} {v}" for k, v in kinds.most_common()) or "-", excluded])
    return Table(
        "simulator_conformance",
        "Simulator conformance - trials whose simulated customer broke its instruction, per round",
        ["system", "round", "trials", "flagged", "fault rate", "faults by kind", "excluded as ⊥"],
        rows,
        [
            "Faults: invented_fact (an id, email or number neither in the instruction nor said by the assistant), stopped_while_pending "
            "(stopped while the assistant waited for an answer), recited_instruction (20+ words pasted), spoke_as_assistant.",
            "Flagged trials are counted unless the run used --exclude-simulator-faults (then they are ⊥, infra:simulator).",
        ],
    )


def contract_inventory(data: ReportData) -> Table:
    table = inventory(data.catalog.values())
    keys = [k for k, _ in INVENTORY_COLUMNS]
    return Table(
        "contract_inventory",
        "Table 2 - Contract inventory of the release",
        ["domain", *keys],
        [[domain, *[row[k] for k in keys]] for domain, row in table.items()],
        ["; ".join(f"{k} = {label}" for k, label in INVENTORY_COLUMNS)],
    )


def graph_inventory(data: ReportData) -> Table:
    """Table 5: per domain, the reference graph's nodes, tool placements and unique tools, and the tasks
    and declarations of forbidden_actions (each matched against the graph by the exposure audit)."""
    from contracts.catalog import CatalogError
    from contracts.graph import load_graph

    rows: list[list[Any]] = []
    for domain in sorted({t.domain for t in data.catalog.values()}):
        try:
            graph = load_graph(domain)
        except CatalogError:
            rows.append([domain, "no graph", "", "", "", "", ""])
            continue
        tasks = [t for t in data.catalog.values() if t.domain == domain]
        declarations = [tool for t in tasks for tool in t.contract.forbidden_actions or []]
        rows.append(
            [
                domain,
                len(graph.nodes),
                len(graph.expert_nodes()),
                sum(len(n.tools) for n in graph.nodes),
                len(graph.all_tools()),
                sum(bool(t.contract.forbidden_actions) for t in tasks),
                f"{len(declarations)} ({sum(tool in graph.all_tools() for tool in declarations)} matched)",
            ]
        )
    return Table(
        "graph_inventory",
        "Table 5 - Reference scaffold: capability graph inventory per domain",
        ["domain", "nodes", "expert nodes", "tool placements", "unique tools", "tasks with forbidden_actions", "declarations"],
        rows,
        ["Every domain has one tool-less general fallback, so expert nodes = nodes - 1."],
    )


def composition(data: ReportData) -> Table:
    """Figure 11: domain → first capability label → easy/medium/hard, with N = tasks with negative checks."""
    groups: dict[tuple[str, str], Counter[str]] = {}
    negatives: Counter[tuple[str, str]] = Counter()
    for task in data.catalog.values():
        key = (task.domain, task.capabilities[0])
        groups.setdefault(key, Counter())[task.difficulty] += 1
        negatives[key] += task.contract.has_negative
    rows = [[d, c, sum(n.values()), n["easy"], n["medium"], n["hard"], negatives[(d, c)]] for (d, c), n in sorted(groups.items())]
    return Table("composition", "Figure 11 - Composition: domain, first capability, difficulty", ["domain", "first capability", "tasks", "easy", "medium", "hard", "N negative"], rows)


def all_tables(data: ReportData, prices: PriceTable) -> list[Table]:
    return [
        leaderboard(data, prices),
        cost_table(data, prices),
        coverage(data),
        simulator_conformance(data),
        per_domain(data),
        difficulty_strata(data),
        failure_composition(data),
        component_matrix(data),
        policy_split(data),
        metric_standings(data, prices),
        metric_ranks(data, prices),
        *multi_round(data),
        pass_k_table(data),
        *[t for t in [neighbour_comparisons(data)] if t is not None],
        contract_inventory(data),
        graph_inventory(data),
        composition(data),
    ]
