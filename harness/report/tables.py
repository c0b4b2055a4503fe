"""Every table of the paper's appendices B and C, computed from run records by the spec's definitions.

Denominators: strict rates are over *scored* trials (⊥ infrastructure failures excluded, and shown);
component rates are over each component's own recorded verdicts; undeclared checks are absent.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from grader.stats import competition_ranks, flips, mean_and_sample_std, pass_hat_k, rate, spearman, tie_groups
from grader.verdicts import NON_CONVERGENCE, PRIMARY_PRIORITY, TOOL_CALL_ERROR
from harness.records import TrialRecord
from harness.report.data import ReportData, Round, System
from harness.inventory import COLUMNS as INVENTORY_COLUMNS
from harness.inventory import inventory
from models.prices import PriceTable
from models.types import Usage

DIFFICULTIES = ("easy", "medium", "hard")
FAILURE_LABELS = (NON_CONVERGENCE, *PRIMARY_PRIORITY, TOOL_CALL_ERROR)
COMPONENTS = ("action", "params", "order", "state", "reply", "forbidden", "collateral")


@dataclass
class Table:
    key: str
    title: str
    columns: list[str]
    rows: list[list[Any]]
    notes: list[str] = field(default_factory=list)


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


def agent_cost(system: System, round_: Round, prices: PriceTable) -> float | None:
    """Cache-neutral cost of the agent under test only (agent + router roles; never user or judge)."""
    if not system.agent_model:
        return None
    usage = Usage()
    for r in round_.records.values():
        for role in ("agent", "router"):
            usage = usage + r.usage.get(role, Usage())
    return prices.cost(system.agent_model, usage)


# ---- tables -------------------------------------------------------------------------------------


def leaderboard(data: ReportData, prices: PriceTable) -> Table:
    """Table 6: strict accuracy, passes/N (ties marked =), domain macro average, ⊥ exclusions, cost."""
    entries = []
    for s in data.systems:
        passes, scored = strict_counts(list(s.first.records.values()))
        cost = agent_cost(s, s.first, prices)
        entries.append((s, passes, scored, len(s.first.records) - scored, rate(passes, scored), macro_average(s.first), cost))
    ranks = competition_ranks({e[0].label: e[4] for e in entries})
    ties = tie_groups({e[0].label: e[4] for e in entries if e[4] is not None})
    rows = []
    for s, passes, scored, excluded, strict, macro, cost in sorted(entries, key=lambda e: (-(e[4] or -1), e[0].label)):
        per_success = None if cost is None or passes == 0 else cost / passes
        rows.append(
            [
                ranks[s.label],
                s.label,
                pct(strict),
                f"{'=' if ties.get(s.label) else ''}{passes}/{scored}",
                pct(macro),
                excluded,
                "n/a" if cost is None else f"${cost:.4f}",
                "n/a" if per_success is None else f"${per_success:.5f}",
            ]
        )
    prices_used = sorted({s.agent_model for s in data.systems if s.agent_model and s.agent_model in prices.models})
    price_notes = [
        f"price {m}: ${prices.models[m].input:g} in / ${prices.models[m].output:g} out per 1M tokens (accessed {prices.models[m].accessed})"
        for m in prices_used
    ]
    return Table(
        "leaderboard",
        "Table 6 - Leaderboard (round 1)",
        ["rank", "system", "strict", "passes/N", "domain macro avg", "⊥ excluded", "agent cost", "cost/success"],
        rows,
        [
            "Strict accuracy over scored trials; infrastructure failures (⊥) are excluded from N and shown.",
            "'=' marks systems tied on strict accuracy; ranks are competition ranks (1224).",
            "Cost: agent model only, cache-neutral (all prompt tokens at the input rate); n/a = no price, not zero.",
            *price_notes,
        ],
    )


def per_domain(data: ReportData) -> Table:
    domains = sorted({r.domain for s in data.systems for r in s.first.records.values()})
    rows = []
    for s in data.systems:
        rates = domain_rates(s.first)
        counts = {d: strict_counts([r for r in s.first.records.values() if r.domain == d]) for d in domains}
        rows.append([s.label, *[f"{pct(rates.get(d))} ({counts[d][0]}/{counts[d][1]})" for d in domains]])
    return Table("per_domain", "Figure 5 - Strict success per domain (round 1)", ["system", *domains], rows)


def difficulty_strata(data: ReportData) -> Table:
    sizes = Counter(t.difficulty for t in data.catalog.values())
    columns = ["system", *[f"{d} (catalog {sizes.get(d, 0)})" for d in DIFFICULTIES]]
    rows = []
    for s in data.systems:
        cells = []
        for d in DIFFICULTIES:
            passes, scored = difficulty_rate(s.first, d)
            cells.append(f"{pct(rate(passes, scored))} ({passes}/{scored})")
        rows.append([s.label, *cells])
    return Table("difficulty", "Table 7 - Strict success by difficulty stratum (round 1)", columns, rows)


def failure_composition(data: ReportData) -> Table:
    rows = []
    for s in data.systems:
        failures = [r for r in s.first.scored() if not r.strict and r.verdict is not None]
        labels = Counter(r.verdict.primary_failure for r in failures if r.verdict)
        rows.append([s.label, len(failures), *[labels.get(label, 0) for label in FAILURE_LABELS]])
    return Table(
        "failure_composition",
        "Figure 13 - Failure composition by primary label (round 1)",
        ["system", "non-successes", *FAILURE_LABELS],
        rows,
        [
            "One primary label per non-success, in the harness priority: action, forbidden, state, params, reply, order, collateral.",
            f"'{NON_CONVERGENCE}': the trial hit the user-turn or time limit (its own class, whatever its components say).",
            f"'{TOOL_CALL_ERROR}': a model-attributable failure with no failing component (e.g. a hallucinated tool).",
        ],
    )


def component_matrix(data: ReportData) -> Table:
    rows = []
    for s in data.systems:
        cells = []
        for component in COMPONENTS:
            verdicts = [r.verdict.components[component] for r in s.first.scored() if r.verdict and component in r.verdict.components]
            cells.append(f"{pct(rate(sum(verdicts), len(verdicts)), 1)} ({sum(verdicts)}/{len(verdicts)})" if verdicts else "n/a (0)")
        rows.append([s.label, *cells])
    return Table(
        "components",
        "Figure 14 - Component pass rates, each on its own recorded verdicts (round 1)",
        ["system", *COMPONENTS],
        rows,
        ["Undeclared checks and missing verdicts are omitted, so each column has its own denominator."],
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
                s.label,
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
        ["safety = tasks with a forbidden action, forbidden params or protected state; compliance = all their negative checks hold."],
    )


def metric_values(data: ReportData, prices: PriceTable) -> dict[str, dict[str, float | None]]:
    """Metric → system → value (higher is better, except cost per success)."""
    metrics: dict[str, dict[str, float | None]] = {"strict": {}, "domain macro": {}, "easy": {}, "medium": {}, "hard": {}, "cost/success": {}}
    domains = sorted({r.domain for s in data.systems for r in s.first.records.values()})
    for d in domains:
        metrics[f"{d}"] = {}
    for s in data.systems:
        passes, scored = strict_counts(list(s.first.records.values()))
        metrics["strict"][s.label] = rate(passes, scored)
        metrics["domain macro"][s.label] = macro_average(s.first)
        for d in DIFFICULTIES:
            metrics[d][s.label] = rate(*difficulty_rate(s.first, d))
        cost = agent_cost(s, s.first, prices)
        metrics["cost/success"][s.label] = None if cost is None or passes == 0 else cost / passes
        for d, value in domain_rates(s.first).items():
            metrics[d][s.label] = value
    return metrics


def metric_standings(data: ReportData, prices: PriceTable) -> Table:
    metrics = metric_values(data, prices)
    rows = []
    for s in data.systems:
        rows.append([s.label, *[(f"${v:.5f}" if v is not None else "n/a") if m == "cost/success" else pct(v) for m, per in metrics.items() for v in [per.get(s.label)]]])
    return Table("metric_standings", "Figure 15 - Per-metric standings (round 1)", ["system", *metrics], rows)


def metric_ranks(data: ReportData, prices: PriceTable) -> Table:
    metrics = {m: v for m, v in metric_values(data, prices).items() if m != "cost/success"}
    ranks = {m: competition_ranks(values) for m, values in metrics.items()}
    rows = [[s.label, *[ranks[m].get(s.label) for m in metrics]] for s in data.systems]
    return Table(
        "metric_ranks",
        "Figure 16 - Competition ranks across metrics (1 = best; ties share a rank)",
        ["system", *metrics],
        rows,
        ["Cost per success is left out: unpriced systems have no value (see Figure 15)."],
    )


def multi_round(data: ReportData) -> list[Table]:
    """Appendix C: per-round counts, equal-weight mean, sample std, pass^k, Spearman, stability, flips."""
    k = max((len(s.rounds) for s in data.systems), default=0)
    rows = []
    for s in data.systems:
        rates = [rate(*strict_counts(list(r.records.values()))) for r in s.rounds]
        valid = [v for v in rates if v is not None]
        mean, std = mean_and_sample_std(valid) if valid else (None, None)
        task_ids = sorted({t for r in s.rounds for t in r.records})
        outcomes = {t: [r.outcome(t) for r in s.rounds] for t in task_ids}
        all_pass, common, p_k = pass_hat_k(outcomes)
        counts = [f"{strict_counts(list(r.records.values()))[0]}/{strict_counts(list(r.records.values()))[1]}" for r in s.rounds]
        rows.append(
            [
                s.label,
                len(s.rounds),
                *counts,
                *[""] * (k - len(s.rounds)),
                pct(mean),
                "n/a" if std is None else f"{100 * std:.2f} pp",
                f"{pct(p_k)} ({all_pass}/{common})",
            ]
        )
    tables = [
        Table(
            "multi_round",
            "Table 9 - Rounds: counts, equal-weight mean, sample std, pass^k",
            ["system", "rounds", *[f"round {i + 1}" for i in range(k)], "mean", "sample std", "pass^k"],
            rows,
            ["Mean of round-level rates (not pooled); sample std (n-1); pass^k over tasks scored in every round."],
        )
    ]
    eligible = [s for s in data.systems if len(s.rounds) == k]
    if k >= 2 and len(eligible) >= 2:
        by_round = [{s.label: rate(*strict_counts(list(s.rounds[i].records.values()))) or 0.0 for s in eligible} for i in range(k)]
        pairs = []
        for a, b in combinations(range(k), 2):
            labels = sorted(by_round[a])
            rho = spearman([by_round[a][x] for x in labels], [by_round[b][x] for x in labels])
            pairs.append([f"round {a + 1} vs {b + 1}", "n/a" if rho is None else f"{rho:.3f}"])
        tables.append(Table("spearman", "Appendix C.2 - Pairwise Spearman rank correlation between rounds (average ranks for ties)", ["rounds", "spearman"], pairs))
        round_ranks = [competition_ranks(r) for r in by_round]
        tables.append(
            Table(
                "rank_stability",
                "Appendix C.2 - Rank per round",
                ["system", *[f"round {i + 1}" for i in range(k)]],
                [[s.label, *[round_ranks[i][s.label] for i in range(k)]] for s in eligible],
            )
        )
    flip_rows = []

    for s in data.systems:
        for ia, (before, after) in enumerate(zip(s.rounds, s.rounds[1:]), start=1):
            result = flips({t: before.outcome(t) for t in before.records}, {t: after.outcome(t) for t in after.records})
            flip_rows.append([s.label, f"{ia}->{ia + 1}", len(result["gained"]) + len(result["lost"]), len(result["gained"]), len(result["lost"]), ", ".join((result["gained"] + result["lost"])[:8])])
    if flip_rows:
        tables.append(Table("flips", "Appendix C.3 - Per-task flips between consecutive rounds", ["system", "rounds", "flips", "fail->pass", "pass->fail", "examples"], flip_rows))
    return tables


def coverage(data: ReportData) -> Table:
    """What each round scored, excluded (⊥) and is missing against the catalog: reports on partial runs."""
    rows = []
    for s in data.systems:
        for i, r in enumerate(s.rounds, start=1):
            domains = {rec.domain for rec in r.records.values()}
            expected = {t for t, task in data.catalog.items() if task.domain in domains}
            missing = sorted(expected - set(r.records))
            bottom = sorted(t for t, rec in r.records.items() if rec.status != "scored")
            ungraded = sorted(t for t, rec in r.records.items() if rec.status == "scored" and rec.ungraded)
            plan = s.manifest.get("plan", {})
            user = f"{plan.get('user', '?')}" + (f" ({plan['user_model']})" if plan.get("user_model") else "")
            judge = f"{plan.get('judge', '?')}" + (f" ({plan['judge_model']})" if plan.get("judge_model") else "")
            rows.append(
                [s.label, i, str(r.source), len(r.scored()), len(bottom), len(missing), ", ".join(missing[:6]) + (" ..." if len(missing) > 6 else ""), len(ungraded), user, judge]
            )
    return Table(
        "coverage",
        "Coverage - scored, excluded and missing trials per round",
        ["system", "round", "run directory", "scored", "⊥ excluded", "missing", "missing (first)", "ungraded", "user", "judge"],
        rows,
        [
            "Missing = catalog tasks of the run's domains with no trial record (a partial or interrupted run).",
            "Ungraded = scored trials whose judge failed after retries: counted as non-passes (the rate is a lower bound); the run is incomplete.",
            "User and judge = which user simulator and which reply judge decided the round's trials.",
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
        coverage(data),
        per_domain(data),
        difficulty_strata(data),
        failure_composition(data),
        component_matrix(data),
        policy_split(data),
        metric_standings(data, prices),
        metric_ranks(data, prices),
        *multi_round(data),
        contract_inventory(data),
        graph_inventory(data),
        composition(data),
    ]
