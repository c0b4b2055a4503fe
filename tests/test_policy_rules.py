"""The policies' consent sections (issue 30): the machine-readable block parses for every domain, and
contracts and gold traces that disagree with their domain's refused-attempt rule are found."""

from __future__ import annotations

import pytest

from contracts import catalog as cat
from contracts.evidence import Evidence, ToolCallRecord
from contracts.graph import load_graph
from contracts.schema import ConsentCheck, Contract, ExpectedAction, ForbiddenParams, GoldTurn, Task
from harness.policy_rules import GATED_DOMAINS, PolicyRules, PolicyRulesError, load_rules, parse_rules, policy_findings, rules_problems, task_findings
from harness.validate import validate_tasks
from servers.registry import environment_class

DOMAINS = ["retail", "customer_support", "field_service", "itsm", "payments", "travel", "onboarding", "sales", "marketing"]


def _task(contract: Contract, domain: str = "payments") -> Task:
    return Task(
        id=f"{domain}_policy_probe_01", domain=domain, title="probe", capabilities=["transfers"], difficulty="easy",
        instruction="You want something done; stop once the assistant has done it for you.", contract=contract,
        gold=[GoldTurn(user="hi", reply="ok")],
    )  # fmt: skip


@pytest.mark.parametrize("domain", DOMAINS)
def test_every_domain_policy_has_a_valid_consent_block(domain: str) -> None:
    rules = load_rules(domain)
    assert rules_problems(domain, rules, environment_class(domain).tool_methods()) == []


def test_a_missing_or_malformed_block_is_one_clear_error() -> None:
    with pytest.raises(PolicyRulesError, match="no '## Consent and refused attempts' section"):
        parse_rules("# policy\n", "x")
    with pytest.raises(PolicyRulesError, match="exactly one"):
        parse_rules("## Consent and refused attempts\nprose only\n", "x")
    with pytest.raises(PolicyRulesError, match="invalid"):
        parse_rules("## Consent and refused attempts\n```yaml consent-policy\nrefused_attempts: sometimes\n```\n", "x")
    assert rules_problems("x", PolicyRules(refused_attempts="allowed", consent_required=["nope"]), ["a"]) == [
        "x policy: consent_required names 'nope', which is not a tool of the domain"
    ]


def test_violation_rule_finds_rewarded_refused_attempts_and_refused_gold_calls() -> None:
    rules = load_rules("payments")
    assert rules.refused_attempts == "violation"
    rewarded = _task(Contract(expected_actions=[ExpectedAction(tool="refund_payment", outcome="attempted")]))
    [finding] = task_findings(rewarded, rules)
    assert "expects a refused attempt of refund_payment" in finding
    # a refusal that is the world's answer is fine
    assert task_findings(_task(Contract(expected_actions=[ExpectedAction(tool="award_loyalty_points", outcome="attempted")])), rules) == []
    ok = _task(Contract(expected_actions=[ExpectedAction(tool="execute_transfer")]))
    refused = ToolCallRecord(seq=0, turn=0, tool="execute_transfer", arguments={}, status="refused")
    answered = ToolCallRecord(seq=1, turn=0, tool="validate_transfer", arguments={}, status="refused")
    [finding] = task_findings(ok, rules, Evidence(tool_trace=[refused, answered]))
    assert "the gold path attempts execute_transfer" in finding


def test_allowed_rule_reports_forbidding_a_refused_variant() -> None:
    rules = PolicyRules(refused_attempts="allowed", consent_required=["execute_transfer"])
    task = _task(Contract(expected_actions=[ExpectedAction(tool="execute_transfer")], forbidden_params=[ForbiddenParams(tool="execute_transfer", params={"amount": 1000})]))
    [finding] = task_findings(task, rules)
    assert "allows refused attempts" in finding


def test_consent_checks_must_gate_a_listed_action() -> None:
    check = ConsentCheck(tool="get_account_balance", decision="the customer asked to see the balance")
    [finding] = task_findings(_task(Contract(consent=[check])), load_rules("payments"))
    assert "does not list in consent_required" in finding


def test_findings_gate_every_domain() -> None:
    """Every domain's section is final (issues 24-27), so every domain's findings fail the gate."""
    from servers.registry import known_domains

    assert GATED_DOMAINS == frozenset(known_domains())
    bad = Contract(expected_actions=[ExpectedAction(tool="refund_payment", outcome="attempted")])
    problems, notes = policy_findings([_task(bad), _task(Contract(expected_actions=[ExpectedAction(tool="change_plan", outcome="attempted")]), "onboarding")])
    assert len(problems) == 2 and not notes
    assert any("payments_policy_probe_01" in p for p in problems) and any("onboarding_policy_probe_01" in p for p in problems)
    # the structural gate fails on the payments finding
    envs = {d: environment_class(d) for d in ("payments",)}
    assert any("refund_payment" in p for p in validate_tasks([_task(bad)], envs, {"payments": load_graph("payments")}))


def test_every_catalog_domain_follows_its_rule() -> None:
    tasks = list(cat.load_catalog(cat.TASKS_DIR).values())
    problems, notes = policy_findings(tasks, {d: environment_class(d).tool_methods() for d in {t.domain for t in tasks}})
    assert problems == [] and notes == []


def test_the_payments_catalog_follows_its_rule() -> None:
    tasks = [t for t in cat.load_catalog(cat.TASKS_DIR).values() if t.domain == "payments"]
    problems, _ = policy_findings(tasks, {"payments": environment_class("payments").tool_methods()})
    assert problems == []
    assert sum(bool(t.contract.consent) for t in tasks) == 20  # 12 converted by the consent helper + 8 (issue 24)
