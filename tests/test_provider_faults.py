"""Provider faults, classified by what they are (issue 14): a 200 with garbage is a protocol error that is
retried and then ⊥, never a reason to stop the run; retries run outside the task's clock (a rate limit
that outlasts the task timeout is ⊥, not the model's non-convergence); usage of every attempt is kept."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
import respx
from rich.console import Console
import test_providers
from test_providers import BOTH, HELLO, build

from harness.runner.components import TrialComponents
from harness.runner.config import RunConfig
from harness.runner.plan import Plan
from harness.runner.run import execute_run
from models.base import ModelError, RetryDecision
from models.model import Model, RetryPolicy
from models.scripted import ScriptedModel, text, tool_call

pytestmark = pytest.mark.anyio
# The HTTP-level provider fakes of test_providers (fixtures are found by name in this module).
fake_api = test_providers.fake_api
offline_env = test_providers.offline_env
closing = test_providers.closing
QUIET = Console(file=open("/dev/null", "w"), force_terminal=False)  # noqa: SIM115

GARBAGE = [
    httpx.Response(200, text="<html>502 Bad Gateway</html>", headers={"content-type": "text/html"}),
    httpx.Response(200, text="{not json", headers={"content-type": "application/json"}),
    httpx.Response(200, json={"weird": 1}),
]


@BOTH
@pytest.mark.parametrize("garbage", range(len(GARBAGE)), ids=["html", "broken-json", "wrong-shape"])
async def test_200_with_garbage_is_retried_then_bottom(fake_api: respx.Router, closing: list[Model], provider: Any, garbage: int) -> None:
    route = fake_api.post(provider.url).mock(return_value=GARBAGE[garbage])
    model = build(provider.model, closing)
    with pytest.raises(ModelError) as info:
        await model.generate(HELLO)
    assert info.value.infrastructure is True and info.value.category == "protocol"
    assert route.call_count == 3
    usage = model.ledger.snapshot()["agent"]
    assert usage.failed_calls == 3 and usage.calls == 0


@BOTH
async def test_200_with_garbage_then_a_good_answer_recovers(fake_api: respx.Router, closing: list[Model], provider: Any) -> None:
    fake_api.post(provider.url).mock(side_effect=[GARBAGE[0], httpx.Response(200, json=provider.ok("fine", 5, 1))])
    model = build(provider.model, closing)
    output = await model.generate(HELLO)
    assert output.text == "fine"
    usage = model.ledger.snapshot()["agent"]
    assert (usage.calls, usage.failed_calls) == (1, 1)


@BOTH
@pytest.mark.parametrize(("status", "category"), [(401, "auth"), (403, "auth"), (400, "bad_request"), (404, "bad_request")])
async def test_auth_and_bad_request_are_fatal_and_named(fake_api: respx.Router, closing: list[Model], provider: Any, status: int, category: str) -> None:
    body = {"error": {"message": "no", "type": "invalid_request_error"}, "type": "error"}
    route = fake_api.post(provider.url).mock(return_value=httpx.Response(status, json=body))
    model = build(provider.model, closing)
    with pytest.raises(ModelError) as info:
        await model.generate(HELLO)
    assert info.value.infrastructure is False and info.value.category == category
    assert route.call_count == 1


@BOTH
async def test_500s_are_server_errors(fake_api: respx.Router, closing: list[Model], provider: Any) -> None:
    fake_api.post(provider.url).mock(return_value=httpx.Response(503, json=provider.error(500)))
    model = build(provider.model, closing)
    with pytest.raises(ModelError) as info:
        await model.generate(HELLO)
    assert info.value.infrastructure is True and info.value.category == "server"
    assert model.ledger.snapshot()["agent"].failed_calls == 3


@BOTH
async def test_connection_errors_are_transport(fake_api: respx.Router, closing: list[Model], provider: Any) -> None:
    fake_api.post(provider.url).mock(side_effect=httpx.ConnectError)
    model = build(provider.model, closing)
    with pytest.raises(ModelError) as info:
        await model.generate(HELLO)
    assert info.value.infrastructure is True and info.value.category == "transport"


# ---- the task clock ------------------------------------------------------------------------------


class RateLimited(ScriptedModel):
    """429 with Retry-After for the first `failures` calls, then plays its script."""

    def __init__(self, script: Any, failures: int, retry_after: float) -> None:
        super().__init__(script)
        self.failures = failures
        self.retry_after = retry_after

    async def generate(self, messages, tools, config):  # noqa: ANN001
        if self.failures > 0:
            self.failures -= 1
            raise ConnectionRefusedError("429 Too Many Requests")
        return await super().generate(messages, tools, config)

    def classify_error(self, error: BaseException) -> RetryDecision:
        return RetryDecision("rate_limit", retry_after=self.retry_after, reason="429", category="rate_limit")


def _plan() -> Plan:
    return Plan(agent="graph", agent_model="mock:agent", router_model="mock:router", user="scripted", judge="evidence", offline=False)


async def _run(tmp_path: Path, router: ScriptedModel, agent: ScriptedModel, *, timeout: float, max_retries: int):
    config = RunConfig(
        out=tmp_path / "run", task=["payments_balance_inquiry_01"], agent="graph", agent_model="mock:agent", task_timeout_s=timeout, infra_retries=0
    )
    components = TrialComponents(config, _plan(), apis={"agent": agent, "router": router})
    original = Model.__init__

    def policy(self, *a, **kw):  # noqa: ANN001, ANN002, ANN003
        kw["retry"] = RetryPolicy(max_retries=max_retries, base_delay_s=0.0, max_delay_s=10.0)
        original(self, *a, **kw)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(Model, "__init__", policy)
        result = await execute_run(config, console=QUIET, components=components)
    [record] = result.records
    return record


async def test_retries_run_outside_the_task_clock(tmp_path: Path) -> None:
    """Three rate-limited attempts (0.3 s each) outlast a 0.5 s task timeout, then the provider recovers:
    the trial is scored on its merits, not cut short as non-convergence."""
    router = RateLimited([tool_call("route", node="balance_inquiry")], failures=3, retry_after=0.3)
    agent = ScriptedModel([tool_call("get_account_balance", account_id="ACC-1002"), text("Your balance is $180.00.")])
    record = await _run(tmp_path, router, agent, timeout=0.5, max_retries=4)
    assert record.status == "scored", record.error
    assert record.failure_class is None or "non_convergence" not in record.failure_class
    assert record.usage["router"].failed_calls == 3 and record.usage["router"].calls >= 1


async def test_a_rate_limit_outlasting_the_timeout_is_bottom_not_non_convergence(tmp_path: Path) -> None:
    router = RateLimited([], failures=100, retry_after=0.2)
    agent = ScriptedModel([])
    record = await _run(tmp_path, router, agent, timeout=0.3, max_retries=3)
    assert record.status == "infra_error" and record.strict is None
    assert record.failure_class == "infra:provider", record.error
    assert "rate_limit" in (record.error or "")
    assert record.usage["router"].failed_calls == 4


class FailsThenHangs(ScriptedModel):
    """One fast 429, then the retry hangs past the task's deadline."""

    def __init__(self) -> None:
        super().__init__([])
        self.calls = 0

    async def generate(self, messages, tools, config):  # noqa: ANN001
        import anyio

        self.calls += 1
        if self.calls == 1:
            raise ConnectionRefusedError("429 Too Many Requests")
        await anyio.sleep(30)
        raise AssertionError("the deadline should have fired")

    def classify_error(self, error: BaseException) -> RetryDecision:
        return RetryDecision("rate_limit", retry_after=0.0, reason="429", category="rate_limit")


async def test_a_deadline_that_fires_while_retrying_is_bottom(tmp_path: Path) -> None:
    record = await _run(tmp_path, FailsThenHangs(), ScriptedModel([]), timeout=0.5, max_retries=4)
    assert record.status == "infra_error" and record.failure_class == "infra:provider", record.error
    # the hang itself is cut by the per-call timeout (a share of the trial limit) and retried: never the model's
    assert "gave up after retries" in (record.error or "") or "while a provider call was being retried" in (record.error or "")


async def test_slow_answers_that_keep_coming_are_the_models_time(tmp_path: Path) -> None:
    """Every answer arrives within the per-call timeout, but the model keeps working past the trial's
    limit: that is the model's non-convergence, in the denominator."""
    from trial_fakes import busy_balance_checker

    router = ScriptedModel(lambda m, t: tool_call("route", node="balance_inquiry"))
    record = await _run(tmp_path, router, busy_balance_checker(latency_s=0.11), timeout=1.0, max_retries=4)
    assert record.status == "scored" and record.failure_class == "model:non_convergence", record.error


class Hangs(ScriptedModel):
    """A provider that accepts the request and never answers (a stall)."""

    def __init__(self) -> None:
        super().__init__([])
        self.calls = 0

    async def generate(self, messages, tools, config):  # noqa: ANN001
        import anyio

        self.calls += 1
        await anyio.sleep(3600)


@pytest.mark.parametrize("role", ["router", "agent"])
async def test_a_stalled_provider_is_bottom_provider_timeout_not_non_convergence(tmp_path: Path, role: str) -> None:
    """Issue 28: with a hanging endpoint the graph agent used to get `model:non_convergence`. Every call
    has a per-call timeout well inside the trial limit: after retries the trial is ⊥ `provider_timeout`."""
    hanging = Hangs()
    router = hanging if role == "router" else ScriptedModel(lambda m, t: tool_call("route", node="balance_inquiry"))
    agent = hanging if role == "agent" else ScriptedModel([])
    record = await _run(tmp_path, router, agent, timeout=0.8, max_retries=2)
    assert record.status == "infra_error" and record.failure_class == "infra:provider_timeout", (record.failure_class, record.error)
    assert hanging.calls == 3 and record.usage[role].failed_calls == 3  # every attempt is in the ledger
    assert record.wall_s < 3.0  # 3 x 0.1 s attempts (1/8 of the limit), not the provider's 120 s default


async def test_usage_of_every_attempt_is_kept_across_infra_retries_and_reruns(tmp_path: Path) -> None:
    config = RunConfig(out=tmp_path / "run", task=["payments_balance_inquiry_01"], agent="graph", agent_model="mock:agent", infra_retries=1)
    down = RateLimited([], failures=1_000, retry_after=0.0)
    original = Model.__init__

    def policy(self, *a, **kw):  # noqa: ANN001, ANN002, ANN003
        kw["retry"] = RetryPolicy(max_retries=1, base_delay_s=0.0)
        original(self, *a, **kw)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(Model, "__init__", policy)
        first = await execute_run(config, console=QUIET, components=TrialComponents(config, _plan(), apis={"agent": down, "router": down}))
        [record] = first.records
        assert record.status == "infra_error" and record.attempts == 2
        assert record.usage["router"].failed_calls == 4  # 2 attempts x (1 try + 1 retry)
        # the rerun replaces the ⊥ record and keeps its usage
        router = ScriptedModel([tool_call("route", node="balance_inquiry")])
        agent = ScriptedModel([tool_call("get_account_balance", account_id="ACC-1002"), text("Your balance is $180.00.")])
        second = await execute_run(config, console=QUIET, components=TrialComponents(config, _plan(), apis={"agent": agent, "router": router}))
    [record] = second.records
    assert record.status == "scored" and record.attempts == 3
    assert record.usage["router"].failed_calls == 4 and record.usage["router"].calls == 1
