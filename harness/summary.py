"""The end-of-run summary table (Markdown), following the spec's reporting rules (A.3): strict accuracy
over scored trials, infrastructure failures (⊥) excluded from the denominator but shown, domain macro
average, and the cache-neutral cost of every model role (agent, router, user simulator, judge) priced from the
run's price table, per role, in total and per success (an unpriced role makes the total n/a, never 0)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from harness.records import TrialRecord
from harness.runner.plan import Plan
from models.prices import PriceTable, format_cost, price_roles
from models.types import Usage


BOTTOM_WARN_SHARE = 0.05
"""Above this share of ⊥ trials a run's strict rate is shown with a loud warning: it covers fewer tasks
than were asked for, and an agent whose failures are misclassified as ⊥ would look better than it is."""


def bottom_warning(label: str, bottom: int, total: int) -> str | None:
    if not total or bottom / total <= BOTTOM_WARN_SHARE:
        return None
    return (
        f"WARNING: {label}: {bottom} of {total} trials ({100 * bottom / total:.0f}%) are ⊥ (infrastructure failures, excluded): "
        "the strict rate covers only the scored trials. Rerun the same command to retry them; check the records' errors."
    )


def _rate(passes: int, scored: int) -> str:
    return f"{100.0 * passes / scored:.2f}%" if scored else "n/a"


def simulator_fault_lines(records: list[TrialRecord]) -> list[str]:
    """The simulator conformance line (simulator/conformance.py): how many trials were flagged, by kind,
    and whether they were counted or excluded as ⊥ (`--exclude-simulator-faults`)."""
    flagged = [r for r in records if r.simulator_faults]
    if not records:
        return []
    kinds = Counter(f.split("@", 1)[0] for r in flagged for f in r.simulator_faults)
    excluded = sum(r.failure_class == "infra:simulator" for r in flagged)
    line = f"simulator faults: {len(flagged)} of {len(records)} trial(s) flagged ({100.0 * len(flagged) / len(records):.1f}%)"
    if kinds:
        line += " - " + ", ".join(f"{k} {v}" for k, v in kinds.most_common())
        line += f"; {excluded} excluded as ⊥" if excluded else "; counted (exclude with --exclude-simulator-faults)"
    return [line]


def summarise(records: list[TrialRecord], plan: Plan, prices: PriceTable) -> str:
    by_domain: dict[str, list[TrialRecord]] = {}
    for r in records:
        by_domain.setdefault(r.domain, []).append(r)
    lines = [
        f"# Run summary - agent: {plan.agent}" + (f" ({plan.agent_model})" if plan.agent_model else "") + (f" [{plan.agent_ref}]" if plan.agent_ref else ""),
        "",
        f"user: {plan.user}" + (f" ({plan.user_model})" if plan.user_model else "") + f"; judge: {plan.judge}" + (f" ({plan.judge_model})" if plan.judge_model else ""),
        *[f"note: {n}" for n in plan.notes],
        "",
        "| domain | trials | scored | ⊥ infra | passes | strict |",
        "|---|---|---|---|---|---|",
    ]
    domain_rates = []
    for domain, items in sorted(by_domain.items()):
        scored = [r for r in items if r.status == "scored"]
        passes = sum(bool(r.strict) for r in scored)
        if scored:
            domain_rates.append(passes / len(scored))
        lines.append(f"| {domain} | {len(items)} | {len(scored)} | {len(items) - len(scored)} | {passes} | {_rate(passes, len(scored))} |")
    scored_all = [r for r in records if r.status == "scored"]
    passes_all = sum(bool(r.strict) for r in scored_all)
    lines.append(f"| **all** | {len(records)} | {len(scored_all)} | {len(records) - len(scored_all)} | {passes_all} | {_rate(passes_all, len(scored_all))} |")
    macro = f"{100.0 * sum(domain_rates) / len(domain_rates):.2f}%" if domain_rates else "n/a"
    lines += ["", f"domain macro average: {macro}"]

    ungraded = [r for r in scored_all if r.ungraded]
    bottom = len(records) - len(scored_all)
    if ungraded or bottom:
        parts = []
        if ungraded:
            parts.append(f"{len(ungraded)} trial(s) ungraded (the judge failed after retries; counted as non-passes, so the strict rate is a lower bound)")
        if bottom:
            parts.append(f"{bottom} trial(s) ⊥ (infrastructure; excluded)")
        lines += ["", "**run incomplete**: " + "; ".join(parts) + ". Rerun the same command to retry them."]
    deciders = Counter(r.verdict.judge for r in scored_all if r.verdict and r.verdict.judge)
    if deciders:
        lines.append("reply criteria decided by: " + ", ".join(f"{k} ({v} trial(s))" for k, v in deciders.most_common()))

    lines.extend(simulator_fault_lines(records))

    labels = Counter(r.verdict.primary_failure for r in scored_all if r.verdict and not r.strict)
    model_failures = Counter(r.failure_class for r in scored_all if r.failure_class and r.failure_class.startswith("model:"))
    if labels:
        lines.append("failure composition (primary label): " + ", ".join(f"{k} {v}" for k, v in labels.most_common()))
    if model_failures:
        lines.append("model-attributable failures: " + ", ".join(f"{k} {v}" for k, v in model_failures.most_common()))
    infra = Counter(r.failure_class for r in records if r.status != "scored")
    if infra:
        lines.append("infrastructure failures (excluded, re-runnable): " + ", ".join(f"{k} {v}" for k, v in infra.most_common()))
    warning = bottom_warning(plan.label, len(records) - len(scored_all), len(records))
    if warning:
        lines += ["", f"**{warning}**"]

    usage: dict[str, Usage] = {}
    for r in records:
        for role, u in r.usage.items():
            usage[role] = usage.get(role, Usage()) + u
    models = {**plan.models(), **{role: m for r in records for role, m in r.models.items()}}
    costs = price_roles(usage, {role: m for role, m in models.items() if role in usage}, prices)
    if usage:
        lines += ["", "| role | model | calls | failed attempts | prompt tokens | completion tokens | cost |", "|---|---|---|---|---|---|---|"]
        for role, c in costs.roles.items():
            u = c.usage
            lines.append(f"| {role} | {c.model or '-'} | {u.calls} | {u.failed_calls} | {u.prompt_tokens} | {u.completion_tokens} | {format_cost(c.cost)} |")
    agent_roles = [c for c in costs.used if c.role in ("agent", "router")]
    agent_cost = None if not agent_roles or any(c.cost is None for c in agent_roles) else sum(c.cost or 0.0 for c in agent_roles)
    per_success = None if agent_cost is None or not passes_all else agent_cost / passes_all
    lines += [
        "",
        f"estimated agent cost (cache-neutral): {format_cost(agent_cost)}; per success: {format_cost(per_success)}",
        f"estimated full cost, every role (cache-neutral, the run's price table): {format_cost(costs.total)}; per success: {format_cost(costs.per(passes_all))}"
        + ("; by role: " + ", ".join(f"{c.role} {format_cost(c.cost)}" for c in costs.used) if costs.used else ""),
    ]
    if costs.unpriced:
        unpriced = ", ".join(f"{r} ({costs.roles[r].model or 'no model'})" for r in costs.unpriced)
        lines.append(f"unpriced role(s): {unpriced}: the full cost is n/a, not a partial sum")
    return "\n".join(lines) + "\n"


def summarise_regrade(records: list[TrialRecord], manifest: dict[str, Any]) -> str:
    """The summary of a re-graded run: the run's own summary (plan and prices from its manifest) plus
    what the re-grade changed."""
    plan = Plan.model_validate(manifest["plan"])
    prices = PriceTable.model_validate(manifest["price_table"])
    regrade = manifest.get("regrade", {})
    changed = regrade.get("changed", [])
    lines = [
        summarise(records, plan, prices).rstrip("\n"),
        "",
        f"re-graded from {regrade.get('source_run')} against catalog {str(regrade.get('catalog_lock'))[:12]} "
        f"(judge: {regrade.get('judge')}; re-judged {regrade.get('rejudged', 0)}, judgements reused {regrade.get('judgements_reused', 0)})",
        f"verdicts changed: {len(changed)}",
    ]
    for item in changed[:50]:
        parts = ", ".join(f"{k} {v[0]}->{v[1]}" for k, v in item["components"].items())
        lines.append(f"- {item['trial']}: strict {item['strict'][0]} -> {item['strict'][1]}" + (f" ({parts})" if parts else "") + (f" [{item['note']}]" if item["note"] else ""))
    return "\n".join(lines) + "\n"
