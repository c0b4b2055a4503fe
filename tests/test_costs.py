"""Full cost of a run: every model role priced at its own model's rates; unpriced is n/a, never 0."""

from __future__ import annotations

import pytest

from harness.records import TrialKey, TrialRecord
from harness.runner.plan import Plan
from harness.summary import summarise
from models.prices import PriceTable, price_roles
from models.types import Usage

PRICES = PriceTable.model_validate({"models": {
    "p:agent": {"input": 2.0, "output": 10.0, "accessed": "2026-11-30"},
    "p:small": {"input": 0.5, "output": 1.0, "accessed": "2026-11-30"},
}})
USAGE = {
    "agent": Usage(prompt_tokens=1_000_000, completion_tokens=100_000, calls=3),  # 2.00 + 1.00 = $3.00
    "router": Usage(prompt_tokens=200_000, calls=2),  # $0.40
    "user": Usage(prompt_tokens=400_000, completion_tokens=200_000, calls=2),  # 0.20 + 0.20 = $0.40
    "judge": Usage(prompt_tokens=200_000, calls=1),  # $0.10
}


def test_every_role_is_priced_at_its_own_model() -> None:
    costs = price_roles(USAGE, {"agent": "p:agent", "router": "p:agent", "user": "p:small", "judge": "p:small"}, PRICES)
    assert [r.role for r in costs.used] == ["agent", "router", "user", "judge"]
    assert [round(r.cost or 0, 6) for r in costs.used] == [3.0, 0.4, 0.4, 0.1]
    assert costs.total == pytest.approx(3.9) and costs.per(3) == pytest.approx(1.3)
    assert costs.per(0) is None


def test_an_unpriced_role_makes_the_total_n_a_and_no_call_is_not_zero() -> None:
    costs = price_roles(USAGE, {"agent": "p:agent", "router": "p:agent", "user": "p:small", "judge": "vllm:self-hosted"}, PRICES)
    assert costs.unpriced == ["judge"] and costs.total is None and costs.per(5) is None
    assert price_roles(USAGE, {"agent": "p:agent"}, PRICES).unpriced == ["router", "user", "judge"]  # a role without a model is unpriced
    idle = price_roles({"agent": Usage()}, {"agent": "p:agent"}, PRICES)
    assert idle.used == [] and idle.total is None  # nothing was called: not measured, not $0


def _record(strict: bool) -> TrialRecord:
    return TrialRecord(key=TrialKey(task_id="t", round=0, seed=0), domain="payments", difficulty="easy", capabilities=["x"], agent="graph",
                       status="scored", strict=strict, usage=USAGE)


def test_the_run_summary_prices_every_role() -> None:
    plan = Plan(agent="graph", agent_model="p:agent", router_model="p:agent", user="llm", user_model="p:small", judge="llm", judge_model="p:small",
                offline=False)
    text = summarise([_record(True), _record(False)], plan, PRICES)
    assert "| judge | p:small | 2 | 0 | 400000 | 0 | $0.2000 |" in text  # two trials
    assert "estimated agent cost (cache-neutral): $6.8000; per success: $6.8000" in text  # two trials of agent + router
    assert "estimated full cost, every role (cache-neutral, the run's price table): $7.8000; per success: $7.8000" in text
    unpriced = plan.model_copy(update={"judge_model": "vllm:self-hosted"})
    text = summarise([_record(True)], unpriced, PRICES)
    assert "full cost, every role (cache-neutral, the run's price table): n/a" in text and "unpriced role(s): judge (vllm:self-hosted)" in text
