"""An external framework as the agent under test: pydantic-ai's MCPToolset over streamable HTTP, driven
by a pydantic-ai FunctionModel (no key), graded from what the gateway recorded."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.console import Console

pytest.importorskip("pydantic_ai")

from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart, ToolReturnPart  # noqa: E402
from pydantic_ai.models.function import AgentInfo, FunctionModel  # noqa: E402

from contracts.graph import load_graph  # noqa: E402
from harness.adapters.pydantic_ai import PydanticAIAgent  # noqa: E402
from harness.runner.components import TrialComponents  # noqa: E402
from harness.runner.config import RunConfig  # noqa: E402
from harness.runner.plan import Plan  # noqa: E402
from harness.runner.run import execute_run  # noqa: E402

pytestmark = pytest.mark.anyio


def balance_then_answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    assert "PIN" in (info.instructions or ""), "the domain policy arrives with the MCP server instructions"
    returns = [p for m in messages for p in getattr(m, "parts", []) if isinstance(p, ToolReturnPart)]
    if not returns:
        assert "get_account_balance" in {t.name for t in info.function_tools}
        return ModelResponse(parts=[ToolCallPart(tool_name="get_account_balance", args={"account_id": "ACC-1005"})])
    content = returns[-1].content
    data = content if isinstance(content, dict) else {}
    return ModelResponse(parts=[TextPart(content=f"Your balance is ${data.get('balance', 0):.2f} and you have {data.get('loyalty_points')} loyalty points.")])


async def test_pydantic_ai_agent_completes_a_payments_task_over_http(tmp_path: Path) -> None:
    config = RunConfig(out=tmp_path / "run", task=["payments_balance_inquiry_01"], agent="pydantic-ai", agent_model="mock:function")
    plan = Plan(agent="pydantic-ai", agent_model="function", user="scripted", judge="evidence", offline=True)
    graph = load_graph("payments")
    components = TrialComponents(config, plan, apis={}, agent_factory=lambda task: PydanticAIAgent.from_model_name(FunctionModel(balance_then_answer), graph))
    result = await execute_run(config, console=Console(file=open("/dev/null", "w")), components=components)  # noqa: SIM115
    [record] = result.records
    assert record.status == "scored", record.error
    assert record.strict, record.verdict.summary()
    assert [(c.tool, c.status) for c in record.tool_trace] == [("get_account_balance", "executed")]
    assert record.conversation[-1].content == "Your balance is $640.20 and you have 310 loyalty points."
    assert record.agent == "pydantic-ai"


def always_invalid(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """A model that keeps calling a tool with arguments the schema rejects, until pydantic-ai gives up."""
    return ModelResponse(parts=[ToolCallPart(tool_name="get_account_balance", args={"acct": "ACC-1005"})])


async def _run(tmp_path: Path, function: object, tasks: list[str]) -> object:
    config = RunConfig(out=tmp_path / "run", task=tasks, agent="pydantic-ai", agent_model="mock:function", infra_retries=0)
    plan = Plan(agent="pydantic-ai", agent_model="function", user="scripted", judge="evidence", offline=True)
    graph = load_graph("payments")
    components = TrialComponents(config, plan, apis={}, agent_factory=lambda view: PydanticAIAgent.from_model_name(FunctionModel(function), graph, max_retries=1))
    return await execute_run(config, console=Console(file=open("/dev/null", "w")), components=components)  # noqa: SIM115


async def test_a_small_suite_scores_passes_and_failures_honestly(tmp_path: Path) -> None:
    result = await _run(tmp_path, balance_then_answer, ["payments_balance_inquiry_01", "payments_checkout_full_chain_02"])
    by_task = {r.key.task_id: r for r in result.records}
    assert by_task["payments_balance_inquiry_01"].strict
    assert by_task["payments_checkout_full_chain_02"].status == "scored" and not by_task["payments_checkout_full_chain_02"].strict
    assert "| **all** | 2 | 2 | 0 | 1 | 50.00% |" in result.summary_markdown
    assert by_task["payments_balance_inquiry_01"].usage["agent"].calls >= 2  # pydantic-ai's usage reached the ledger


async def test_framework_giving_up_on_bad_tool_calls_is_a_model_failure_not_bottom(tmp_path: Path) -> None:
    result = await _run(tmp_path, always_invalid, ["payments_balance_inquiry_01"])
    [record] = result.records
    assert record.status == "scored" and record.strict is False, record.error
    assert record.failure_class == "model:invalid_tool_calls", record.error
    assert "| **all** | 1 | 1 | 0 | 0 | 0.00% |" in result.summary_markdown


def test_provider_errors_map_to_bottom_or_configuration() -> None:
    from pydantic_ai.exceptions import ModelHTTPError, UsageLimitExceeded

    from harness.adapters.pydantic_ai import map_error
    from models.base import ConfigurationError, ModelError
    from orchestrator.protocol import AgentFailure

    outage = map_error(ModelHTTPError(503, "m"))
    assert isinstance(outage, ModelError) and outage.infrastructure
    assert isinstance(map_error(ModelHTTPError(401, "m")), ConfigurationError)
    limit = map_error(UsageLimitExceeded("request_limit of 5 exceeded"))
    assert isinstance(limit, AgentFailure) and limit.kind == "usage_limit"
    bug = KeyError("adapter bug")
    assert map_error(bug) is bug  # anything else is left to `attribute`: the agent's failure (agent_error)


# ---- issue 28: every request counted, stalls are ⊥ provider_timeout, agent errors stay in the denominator ----

from fake_openai import completion, fake_openai  # noqa: E402


def _balance_script(prefix: list[object]):  # noqa: ANN202
    """The answers after `prefix` (e.g. a 503): a balance check, then the reply."""

    def script(index: int, request: dict) -> object:
        if index < len(prefix):
            return prefix[index]
        if not any(m.get("role") == "tool" for m in request.get("messages", [])):
            return completion(tool=("get_account_balance", {"account_id": "ACC-1005"}))
        return completion("Your balance is $640.20 and you have 310 loyalty points.")

    return script


async def _served_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, script, *, timeout: float = 30.0):  # noqa: ANN001, ANN202
    async with fake_openai(script) as server:
        monkeypatch.setenv("VLLM_BASE_URL", server.base_url)
        monkeypatch.delenv("VLLM_API_KEY", raising=False)
        config = RunConfig(out=tmp_path / "run", task=["payments_balance_inquiry_01"], agent="pydantic-ai", agent_model="vllm:fake",
                           infra_retries=0, task_timeout_s=timeout)  # fmt: skip
        plan = Plan(agent="pydantic-ai", agent_model="vllm:fake", user="scripted", judge="evidence", offline=False)
        result = await execute_run(config, console=Console(file=open("/dev/null", "w")), components=TrialComponents(config, plan, apis={}))  # noqa: SIM115
        [record] = result.records
        return record, server


async def test_every_request_the_server_received_is_in_the_ledger(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A 503 the SDK retried, then two answers: the server saw 3 requests, the ledger holds 3."""
    record, server = await _served_run(tmp_path, monkeypatch, _balance_script([(503, {"error": {"message": "busy"}})]))
    assert record.status == "scored" and record.strict, record.error
    usage = record.usage["agent"]
    assert len(server.requests) == 3 and usage.calls + usage.failed_calls == 3 and usage.failed_calls == 1
    assert usage.prompt_tokens == 22


async def test_an_outage_is_bottom_and_its_requests_are_still_counted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    record, server = await _served_run(tmp_path, monkeypatch, lambda i, r: (503, {"error": {"message": "down"}}))
    assert record.status == "infra_error" and record.failure_class == "infra:provider", record.error
    assert record.usage["agent"].failed_calls == len(server.requests) >= 1


async def test_a_stalled_provider_is_bottom_provider_timeout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 28: the SDK's own timeout (600 s, 2 retries) outlasted the trial; now each attempt gets 1/8."""
    record, server = await _served_run(tmp_path, monkeypatch, lambda i, r: "hang", timeout=4.0)
    assert record.status == "infra_error" and record.failure_class == "infra:provider_timeout", (record.failure_class, record.error)
    assert record.usage["agent"].failed_calls == len(server.requests) >= 1
    assert record.wall_s < 4.0


async def test_an_answer_without_choices_is_a_provider_fault_as_in_our_provider_layer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    empty = (200, {"id": "x", "object": "chat.completion", "created": 0, "model": "fake", "choices": []})
    record, server = await _served_run(tmp_path, monkeypatch, lambda i, r: empty)
    assert record.status == "infra_error" and record.failure_class.startswith("infra:provider"), (record.failure_class, record.error)


async def test_an_unknown_model_stops_the_run_and_our_provider_names_resolve(tmp_path: Path) -> None:
    from models.base import ConfigurationError

    config = RunConfig(out=tmp_path / "run", task=["payments_balance_inquiry_01"], agent="pydantic-ai", agent_model="nosuch:model", infra_retries=0)
    plan = Plan(agent="pydantic-ai", agent_model="nosuch:model", user="scripted", judge="evidence", offline=False)
    with pytest.raises(ConfigurationError, match="Unknown model"):
        await execute_run(config, console=Console(file=open("/dev/null", "w")), components=TrialComponents(config, plan, apis={}))  # noqa: SIM115
    for name in ("llamacpp:qwen", "ollama:llama3", "vllm:m"):  # built on the registry's endpoints, no UserError
        model = PydanticAIAgent(name, "x")._build_model(1.0)
        assert type(model).__name__ == "OpenAIChatModel"


def raises_in_the_agent(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    raise RuntimeError("my scaffold broke")


async def test_an_exception_inside_the_framework_run_is_agent_error_in_the_denominator(tmp_path: Path) -> None:
    result = await _run(tmp_path, raises_in_the_agent, ["payments_balance_inquiry_01"])
    [record] = result.records
    assert record.status == "scored" and record.failure_class == "model:agent_error" and "my scaffold broke" in (record.error or "")
    assert "| **all** | 1 | 1 | 0 | 0 | 0.00% |" in result.summary_markdown


async def test_a_give_up_keeps_the_usage_it_spent(tmp_path: Path) -> None:
    [record] = (await _run(tmp_path, always_invalid, ["payments_balance_inquiry_01"])).records
    assert record.failure_class == "model:invalid_tool_calls" and record.usage["agent"].calls >= 2
