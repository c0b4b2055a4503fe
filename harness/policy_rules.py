"""The structural check that every task's contract follows its domain policy's machine rule.

The rule itself (the block model, its parser and the cached loader) lives in `contracts/policy.py`, where
the grader reads it too; it is re-exported here for the release tooling.

Checks (`policy_findings`):
- the block exists, parses, and names only tools of the domain;
- `violation`: no contract rewards a refused attempt (`outcome: attempted`) of a tool outside
  `refusal_is_an_answer`, and the gold path (when its trace is given) makes no refused call of one;
- `allowed`: a forbidden check on a write the task also expects to succeed is reported - it usually
  forbids the refused variant of that write, which the rule allows (a report, as the tool cannot tell
  without replaying whether the forbidden call would be refused);
- every `consent` check names a tool in `consent_required`.
The findings fail the release gate for the domains in `GATED_DOMAINS` (all nine, once their sections were final)
and are a report for the others until their domain owners finalise their sections.
"""

from __future__ import annotations

from collections.abc import Iterable

from contracts.evidence import Evidence
from contracts.policy import POLICIES_DIR, SECTION, PolicyRules, PolicyRulesError, load_rules, parse_rules
from contracts.schema import Task

__all__ = ["GATED_DOMAINS", "POLICIES_DIR", "SECTION", "PolicyRules", "PolicyRulesError", "load_rules", "parse_rules", "policy_findings", "rules_problems", "task_findings"]

GATED_DOMAINS: frozenset[str] = frozenset(
    {"payments", "retail", "customer_support", "sales", "field_service", "travel", "itsm", "onboarding", "marketing"}
)
"""Every domain: each policy's section is final (issues 24-27), so a contract or gold path that disagrees
with its domain's rule fails the release gate."""


def rules_problems(domain: str, rules: PolicyRules, tools: Iterable[str]) -> list[str]:
    known = set(tools)
    out = []
    for field in ("refusal_is_an_answer", "consent_required"):
        for tool in getattr(rules, field):
            if tool not in known:
                out.append(f"{domain} policy: {field} names {tool!r}, which is not a tool of the domain")
    return out


def task_findings(task: Task, rules: PolicyRules, gold_evidence: Evidence | None = None) -> list[str]:
    """Where a task's contract (and, given its trace, its gold path) disagrees with its domain's rule."""
    from servers.registry import environment_class

    env = environment_class(task.domain)
    c = task.contract
    out: list[str] = []
    # Reads change nothing whatever their status: the rule is about writes (the tools' own kind).
    answers = set(rules.refusal_is_an_answer) | {t for t in env.tool_methods() if env.tool_kind(t) != "write"}
    if rules.refused_attempts == "violation":
        # `exact` caps the attempts (e.g. "the rejected PIN is tried once"): it does not reward a refusal.
        attempted = [a.tool for a in c.expected_actions or [] if a.outcome == "attempted" and not a.exact]
        attempted += [p.tool for p in c.expected_params or [] if p.outcome == "attempted"]
        for tool in sorted(set(attempted) - answers):
            out.append(f"{task.id}: expects a refused attempt of {tool} (outcome: attempted), but the {task.domain} policy makes refused attempts a violation")
        if gold_evidence is not None:
            for call in gold_evidence.tool_trace:
                if call.status == "refused" and call.tool not in answers:
                    out.append(f"{task.id}: the gold path attempts {call.tool} (turn {call.turn}) and is refused, but the {task.domain} policy makes that a violation")
    else:
        succeeded = {a.tool for a in c.expected_actions or [] if a.outcome == "succeeded"}
        for spec in c.forbidden_params or []:
            if spec.tool in succeeded:
                out.append(
                    f"{task.id}: forbids {spec.tool}{spec.params} while expecting {spec.tool} to succeed; the {task.domain} policy allows refused "
                    "attempts, so this holds only if that call would succeed"
                )
    for check in c.consent or []:
        if check.tool not in rules.consent_required:
            out.append(f"{task.id}: a consent check gates {check.tool}, which the {task.domain} policy does not list in consent_required")
    return out


def policy_findings(tasks: Iterable[Task], tools_of: dict[str, Iterable[str]] | None = None) -> tuple[list[str], list[str]]:
    """(gate problems, report notes) over `tasks`: the first fail the release for gated domains."""
    problems: list[str] = []
    notes: list[str] = []
    seen: set[str] = set()
    for task in tasks:
        target = problems if task.domain in GATED_DOMAINS else notes
        try:
            rules = load_rules(task.domain)
        except PolicyRulesError as exc:
            if task.domain not in seen:
                target.append(str(exc))
            seen.add(task.domain)
            continue
        if task.domain not in seen and tools_of is not None and task.domain in tools_of:
            target.extend(rules_problems(task.domain, rules, tools_of[task.domain]))
        seen.add(task.domain)
        target.extend(task_findings(task, rules))
    return problems, notes


def main() -> int:
    """`python -m harness.policy_rules`: the report over the whole catalog."""
    from contracts import catalog as cat
    from servers.registry import environment_class

    tasks = list(cat.load_catalog(cat.TASKS_DIR).values())
    tools = {d: environment_class(d).tool_methods() for d in {t.domain for t in tasks}}
    problems, notes = policy_findings(tasks, tools)
    for line in problems:
        print(f"GATE  {line}")
    for line in notes:
        print(f"note  {line}")
    print(f"{len(problems)} gate problem(s), {len(notes)} note(s) (gated domains: {', '.join(sorted(GATED_DOMAINS))})")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
