"""The OpenAI Agents SDK as the agent under test, driven offline by a tiny `agents` Model subclass: its MCP
client talks to the trial over streamable HTTP, the gateway records every call, the grader scores it."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

pytest.importorskip("agents")

from agents.items import ModelResponse  # noqa: E402
from agents.models.interface import Model  # noqa: E402
from agents.usage import Usage  # noqa: E402
from openai.types.responses import ResponseFunctionToolCall, ResponseOutputMessage, ResponseOutputText  # noqa: E402

from contracts.graph import load_graph  # noqa: E402
from harness.adapters.openai_agents import OpenAIAgentsAgent, map_error  # noqa: E402
from harness.runner.components import TrialComponents  # noqa: E402
from harness.runner.config import RunConfig  # noqa: E402
from harness.runner.plan import Plan  # noqa: E402
from harness.runner.run import execute_run  # noqa: E402
from orchestrator.protocol import AgentFailure  # noqa: E402

pytestmark = pytest.mark.anyio
Policy = Callable[[list[Any], str | None, list[str]], Any]


class Scripted(Model):
    """Each call: `policy(input items, system instructions, tool names)` returns a tool call or text."""

    def __init__(self, policy: Policy) -> None:
        self.policy = policy

    async def get_response(self, system_instructions, input, model_settings, tools, output_schema, handoffs, tracing, **_: Any) -> ModelResponse:  # noqa: ANN001, A002
        items = [input] if isinstance(input, str) else list(input)
        out = self.policy(items, system_instructions, [t.name for t in tools])
        if isinstance(out, tuple):
            name, args = out
            item: Any = ResponseFunctionToolCall(arguments=json.dumps(args), call_id=f"call-{len(items)}", name=name, type="function_call")
        else:
            item = ResponseOutputMessage(
                id="msg", content=[ResponseOutputText(text=out, type="output_text", annotations=[])], role="assistant", status="completed", type="message"
            )
        return ModelResponse(output=[item], usage=Usage(requests=1, input_tokens=100, output_tokens=10, total_tokens=110), response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any):  # noqa: ANN201
        raise NotImplementedError


def _outputs(items: list[Any]) -> list[Any]:
    return [i for i in items if isinstance(i, dict) and i.get("type") == "function_call_output"]


def balance_then_answer(items: list[Any], instructions: str | None, tools: list[str]) -> Any:
    assert "PIN" in (instructions or ""), "the policy was read over MCP"
    assert "get_account_balance" in tools
    outputs = _outputs(items)
    user = [i for i in items if isinstance(i, dict) and i.get("role") == "user"][-1]["content"]
    if "ACC-1005" in user and len(outputs) == 0:
        return ("get_account_balance", {"account_id": "ACC-1005"})
    data = json.loads(outputs[-1]["output"]) if outputs else {}
    if isinstance(data, dict) and "text" in data:  # some SDK versions wrap the content
        data = json.loads(data["text"])
    return f"Your balance is ${data.get('balance', 0):.2f} and you have {data.get('loyalty_points')} loyalty points."


def loops_forever(items: list[Any], instructions: str | None, tools: list[str]) -> Any:
    return ("get_account_balance", {"account_id": "ACC-1005"})


def hallucinates(items: list[Any], instructions: str | None, tools: list[str]) -> Any:
    return ("transfer_everything", {"to": "me"})


async def _run(tmp_path: Path, policy: Policy, tasks: list[str]) -> Any:
    config = RunConfig(out=tmp_path / "run", task=tasks, infra_retries=0)
    plan = Plan(agent="openai-agents", agent_model="openai:scripted", user="scripted", judge="evidence", offline=True)
    graph = load_graph("payments")
    components = TrialComponents(config, plan, apis={}, agent_factory=lambda view: OpenAIAgentsAgent(Scripted(policy), graph.system_prompt, max_turns=4))
    return await execute_run(config, console=Console(file=open("/dev/null", "w")), components=components)  # noqa: SIM115


async def test_openai_agents_passes_what_it_solves_and_fails_the_rest(tmp_path: Path) -> None:
    result = await _run(tmp_path, balance_then_answer, ["payments_balance_inquiry_01", "payments_checkout_full_chain_02"])
    by_task = {r.key.task_id: r for r in result.records}
    balance = by_task["payments_balance_inquiry_01"]
    assert balance.status == "scored" and balance.strict, balance.error or balance.verdict.summary()
    assert [(c.tool, c.status) for c in balance.tool_trace] == [("get_account_balance", "executed")]
    assert balance.agent == "openai-agents" and balance.usage["agent"].calls == 2 and balance.usage["agent"].prompt_tokens == 200
    assert by_task["payments_checkout_full_chain_02"].status == "scored" and not by_task["payments_checkout_full_chain_02"].strict
    assert "| **all** | 2 | 2 | 0 | 1 | 50.00% |" in result.summary_markdown


async def test_turn_limit_and_unknown_tools_are_model_failures(tmp_path: Path) -> None:
    [looped] = (await _run(tmp_path / "a", loops_forever, ["payments_balance_inquiry_01"])).records
    assert looped.status == "scored" and looped.strict is False and looped.failure_class == "model:max_turns", looped.error
    [hallucinated] = (await _run(tmp_path / "b", hallucinates, ["payments_balance_inquiry_01"])).records
    assert hallucinated.status == "scored" and hallucinated.failure_class == "model:invalid_tool_calls", hallucinated.error


def test_openai_errors_map_to_bottom_or_configuration() -> None:
    import httpx
    import openai

    from models.base import ConfigurationError, ModelError

    request = httpx.Request("POST", "https://api.openai.com/v1/responses")
    outage = map_error(openai.InternalServerError("down", response=httpx.Response(503, request=request), body=None))
    assert isinstance(outage, ModelError) and outage.infrastructure
    assert isinstance(map_error(openai.APIConnectionError(request=request)), ModelError)
    assert isinstance(map_error(openai.AuthenticationError("bad key", response=httpx.Response(401, request=request), body=None)), ConfigurationError)
    assert isinstance(map_error(openai.BadRequestError("too long", response=httpx.Response(400, request=request), body=None)), AgentFailure)


# ---- issue 28: the ⊥ rule, stalls and usage on every outcome ------------------------------------------


class Raising(Scripted):
    def __init__(self, exc: BaseException) -> None:
        super().__init__(loops_forever)
        self.exc = exc

    async def get_response(self, *args: Any, **kwargs: Any) -> ModelResponse:
        raise self.exc


async def _run_model(tmp_path: Path, model: Model) -> Any:
    config = RunConfig(out=tmp_path / "run", task=["payments_balance_inquiry_01"], infra_retries=0)
    plan = Plan(agent="openai-agents", agent_model="openai:scripted", user="scripted", judge="evidence", offline=True)
    graph = load_graph("payments")
    components = TrialComponents(config, plan, apis={}, agent_factory=lambda view: OpenAIAgentsAgent(model, graph.system_prompt, max_turns=4))
    return await execute_run(config, console=Console(file=open("/dev/null", "w")), components=components)  # noqa: SIM115


async def test_an_exception_inside_the_sdk_run_is_agent_error_in_the_denominator(tmp_path: Path) -> None:
    result = await _run_model(tmp_path, Raising(RuntimeError("my scaffold broke")))
    [record] = result.records
    assert record.status == "scored" and record.failure_class == "model:agent_error" and "my scaffold broke" in (record.error or "")
    assert "| **all** | 1 | 1 | 0 | 0 | 0.00% |" in result.summary_markdown


async def test_the_sdks_model_timeout_is_bottom_provider_timeout(tmp_path: Path) -> None:
    from agents.exceptions import ModelTimeoutError

    [record] = (await _run_model(tmp_path, Raising(ModelTimeoutError(0.1)))).records
    assert record.status == "infra_error" and record.failure_class == "infra:provider_timeout", (record.failure_class, record.error)


async def test_the_turn_limit_keeps_the_usage_it_spent(tmp_path: Path) -> None:
    [looped] = (await _run(tmp_path, loops_forever, ["payments_balance_inquiry_01"])).records
    assert looped.failure_class == "model:max_turns"
    assert looped.usage["agent"].calls >= 4 and looped.usage["agent"].prompt_tokens >= 400  # 4 model calls of 100 tokens


async def test_the_adapter_applies_the_trials_per_call_timeout(tmp_path: Path) -> None:
    seen: list[Any] = []

    class Records(Scripted):
        async def get_response(self, system_instructions, input, model_settings, *args: Any, **kwargs: Any) -> ModelResponse:  # noqa: ANN001, A002
            seen.append(model_settings.timeout)
            return await super().get_response(system_instructions, input, model_settings, *args, **kwargs)

    config = RunConfig(out=tmp_path / "run", task=["payments_balance_inquiry_01"], infra_retries=0, task_timeout_s=80)
    plan = Plan(agent="openai-agents", agent_model="openai:scripted", user="scripted", judge="evidence", offline=True)
    graph = load_graph("payments")
    components = TrialComponents(config, plan, apis={}, agent_factory=lambda view: OpenAIAgentsAgent(Records(balance_then_answer), graph.system_prompt))
    await execute_run(config, console=Console(file=open("/dev/null", "w")), components=components)  # noqa: SIM115
    assert seen and set(seen) == {10.0}  # 1/8 of the 80 s trial limit


# ---- issue 28: a provider answer that is no answer is ⊥ on both of the SDK's OpenAI APIs ---------------

from fake_openai import completion, fake_openai, response  # noqa: E402


def _served_script(api: str, first: Any) -> Callable[[int, dict], Any]:
    """`first` answers the first request; then (if the run gets that far) a balance check and a reply in
    the API's own shape."""
    answer = response if api == "responses" else completion

    def script(index: int, request: dict) -> Any:
        if index == 0 and first is not None:
            return first
        items = request.get("input") or request.get("messages") or []
        called = any(isinstance(i, dict) and i.get("type") == "function_call_output" or i.get("role") == "tool" for i in items if isinstance(i, dict))
        if not called:
            return answer(tool=("get_account_balance", {"account_id": "ACC-1005"}))
        return answer("Your balance is $640.20 and you have 310 loyalty points.")

    return script


async def _served(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, api: str, first: Any) -> tuple[Any, Any]:
    """The adapter with a model *name*, as `--agent openai-agents --agent-model openai:fake` builds it: the
    SDK's own OpenAI provider on our counting HTTP client, against a local fake server."""
    import agents

    if api == "chat":
        monkeypatch.setattr("agents.models._openai_shared._use_responses_by_default", False)
    else:
        assert agents.models._openai_shared.get_use_responses_by_default(), "the SDK's default API is Responses"
    async with fake_openai(_served_script(api, first)) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test-openai-0000")
        config = RunConfig(out=tmp_path / "run", task=["payments_balance_inquiry_01"], infra_retries=0, task_timeout_s=60)
        plan = Plan(agent="openai-agents", agent_model="openai:fake", user="scripted", judge="evidence", offline=True)
        graph = load_graph("payments")
        components = TrialComponents(config, plan, apis={}, agent_factory=lambda view: OpenAIAgentsAgent("fake", graph.system_prompt, max_turns=4))
        result = await execute_run(config, console=Console(file=open("/dev/null", "w")), components=components)  # noqa: SIM115
        [record] = result.records
        return record, server


@pytest.mark.parametrize("api", ["responses", "chat"])
async def test_a_real_answer_on_either_api_is_scored_and_counted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, api: str) -> None:
    record, server = await _served(tmp_path, monkeypatch, api, None)
    assert set(server.paths) == {"/v1/responses" if api == "responses" else "/v1/chat/completions"}
    assert record.status == "scored" and record.strict, (record.error, record.verdict.summary() if record.verdict else None)
    usage = record.usage["agent"]
    assert usage.calls + usage.failed_calls == len(server.requests) == 2 and usage.failed_calls == 0


EMPTY_ANSWERS = {
    "responses": response(output=[]),
    "chat": (200, {"id": "x", "object": "chat.completion", "created": 0, "model": "fake", "choices": []}),
}


@pytest.mark.parametrize("api", ["responses", "chat"])
async def test_an_answer_without_output_or_choices_is_bottom_on_either_api(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, api: str) -> None:
    """Issue 28: `choices: []` was an empty reply under openai-agents (charged to the model), and the SDK's
    default API (Responses) had the same hole with `output: []`. Both are the provider's malformed answer,
    observed by our HTTP client: ⊥, with the request counted."""
    record, server = await _served(tmp_path, monkeypatch, api, EMPTY_ANSWERS[api])
    assert server.paths[0] == ("/v1/responses" if api == "responses" else "/v1/chat/completions")
    assert record.status == "infra_error" and record.failure_class == "infra:provider", (record.status, record.failure_class, record.error)
    assert "malformed provider answer" in (record.error or "")
    usage = record.usage["agent"]
    assert usage.calls + usage.failed_calls == len(server.requests) >= 1


def test_only_a_missing_answer_is_malformed_not_an_empty_text() -> None:
    from harness.adapters.provider_http import malformed_answer

    assert malformed_answer("responses", response(output=[])[1])
    assert malformed_answer("responses", {"id": "r", "object": "response", "status": "completed"})  # no output at all
    assert malformed_answer("responses", response("")[1]) is None  # a message with empty text is the model's reply
    assert malformed_answer("chat", completion("")[1]) is None
    assert malformed_answer("chat", {"choices": []})
