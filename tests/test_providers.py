"""The OpenAI and Anthropic adapters against HTTP-level fakes of their real APIs, through `get_model` (so the
`Model` retry loop is exercised too).

The SDKs (openai 3.x, anthropic 2.x) send requests with `httpx2`, not `httpx`, so `respx` (which patches
`httpx`/`httpcore`) cannot see them on its own. The `fake_api` fixture bridges the two: it patches the
`httpx2` async transport to hand each request to a `respx.Router` (as an `httpx.Request`) and to turn the
router's `httpx.Response` (or `httpx` transport error) back into its `httpx2` counterpart. Routes, side
effects and call records are plain respx; any request no route matches fails the test, and the sync
transport is disabled, so nothing reaches the network.
"""

from __future__ import annotations

import json
import logging
import os
import sys
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import Any

import anyio
import httpx
import httpx2
import pytest
import respx
from respx.models import AllMockedAssertionError

from models.base import ConfigurationError, ModelError
from models.model import Model, RetryPolicy
from models.registry import get_model
from models.types import ChatMessage, GenerateConfig, ToolCall, ToolSpec

OPENAI_URL = "https://api.openai.com/v1/chat/completions"
ANTHROPIC_URL = "https://api.anthropic.com/v1/messages"
OPENAI_KEY = "sk-test-openai-0000"
ANTHROPIC_KEY = "sk-ant-test-0000"

pytestmark = pytest.mark.anyio


# ---------------------------------------------------------------- the httpx2 -> respx bridge


async def _to_httpx_request(request: httpx2.Request) -> httpx.Request:
    body = await request.aread()
    return httpx.Request(request.method, str(request.url), headers=list(request.headers.raw), content=body)


async def _to_httpx2_response(response: httpx.Response, request: httpx2.Request) -> httpx2.Response:
    body = await response.aread()
    return httpx2.Response(response.status_code, headers=list(response.headers.raw), content=body, request=request)


def _to_httpx2_error(error: httpx.TransportError, request: httpx2.Request) -> httpx2.TransportError:
    """A respx side effect like `httpx.ReadTimeout` becomes `httpx2.ReadTimeout`, which the SDKs map to
    their own timeout/connection errors exactly as they would a real one."""
    cls = getattr(httpx2, type(error).__name__, httpx2.TransportError)
    return cls(str(error), request=request)


@pytest.fixture
def offline_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fake keys, and no ambient configuration (base URLs, custom headers, tokens) leaking in."""
    for var in (
        "OPENAI_BASE_URL", "OPENAI_ORG_ID", "OPENAI_PROJECT_ID", "ANTHROPIC_BASE_URL", "ANTHROPIC_AUTH_TOKEN",
        "ANTHROPIC_CUSTOM_HEADERS", "ANTHROPIC_PROFILE", "VLLM_BASE_URL", "VLLM_API_KEY", "OLLAMA_BASE_URL",
    ):  # fmt: skip
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI_KEY)
    monkeypatch.setenv("ANTHROPIC_API_KEY", ANTHROPIC_KEY)


@pytest.fixture
def fake_api(monkeypatch: pytest.MonkeyPatch, offline_env: None) -> Iterator[respx.Router]:
    router = respx.Router(assert_all_mocked=True, assert_all_called=False)
    unmocked: list[str] = []

    async def handle_async_request(self: httpx2.AsyncHTTPTransport, request: httpx2.Request) -> httpx2.Response:
        httpx_request = await _to_httpx_request(request)
        try:
            response = await router.async_handler(httpx_request)
        except AllMockedAssertionError:
            unmocked.append(f"{request.method} {request.url}")  # the SDK would wrap this as a connection error
            raise
        except httpx.TransportError as exc:
            raise _to_httpx2_error(exc, request) from exc
        return await _to_httpx2_response(response, request)

    def no_sync_requests(self: httpx2.HTTPTransport, request: httpx2.Request) -> httpx2.Response:
        unmocked.append(f"sync {request.method} {request.url}")
        raise AssertionError(f"unexpected sync request {request.url}")

    monkeypatch.setattr(httpx2.AsyncHTTPTransport, "handle_async_request", handle_async_request)
    # the default `--http-transport aiohttp`: the SDKs' vendored aiohttp transport, bridged the same way
    from anthropic._vendor.httpx_aiohttp import AiohttpTransport as AnthropicAiohttp
    from openai._vendor.httpx_aiohttp import AiohttpTransport as OpenAIAiohttp

    for transport in (OpenAIAiohttp, AnthropicAiohttp):
        monkeypatch.setattr(transport, "handle_async_request", handle_async_request)
    monkeypatch.setattr(httpx2.HTTPTransport, "handle_request", no_sync_requests)
    yield router
    assert not unmocked, f"requests to unmocked URLs: {unmocked}"


class RecordingRetryPolicy(RetryPolicy):
    """Fast retries (every wait capped at 10 ms) that record the Retry-After each wait was computed from."""

    def __init__(self) -> None:
        super().__init__(max_retries=2, base_delay_s=0.01, max_delay_s=0.01)
        self.retry_afters: list[float | None] = []

    def delay(self, attempt: int, retry_after: float | None) -> float:
        self.retry_afters.append(retry_after)
        return super().delay(attempt, retry_after)


@pytest.fixture
async def closing() -> AsyncIterator[list[Model]]:
    """Models built in a test, closed after it (the SDK clients hold HTTP pools)."""
    models: list[Model] = []
    yield models
    for model in models:
        await model.api.aclose()


def build(name: str, closing: list[Model], *, retry: RetryPolicy | None = None, config: GenerateConfig | None = None) -> Model:
    model = get_model(name, role="agent", retry=retry or RecordingRetryPolicy(), config=config)
    closing.append(model)
    return model


def sent_json(route: respx.Route, index: int = -1) -> dict[str, Any]:
    return json.loads(route.calls[index].request.content)


# ---------------------------------------------------------------- realistic payloads


def openai_completion(
    content: str | None = "Hello!",
    *,
    tool_calls: list[dict[str, Any]] | None = None,
    finish_reason: str = "stop",
    prompt_tokens: int = 19,
    completion_tokens: int = 7,
) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": content, "refusal": None, "annotations": []}
    if tool_calls:
        message["tool_calls"] = tool_calls
    return {
        "id": "chatcmpl-CxQ8mJ2r7Yb4tV0eLz1uNhPq3wKd",
        "object": "chat.completion",
        "created": 1767225600,
        "model": "gpt-5-mini-2025-08-07",
        "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": finish_reason}],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
            "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
            "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 0, "accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0},
        },
        "service_tier": "default",
        "system_fingerprint": None,
    }


def openai_function_call(call_id: str, name: str, arguments: str) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def openai_error(status: int) -> dict[str, Any]:
    errors = {
        401: ("Incorrect API key provided: sk-test-*0000.", "invalid_request_error", "invalid_api_key"),
        429: ("Rate limit reached for gpt-5-mini on tokens per min (TPM).", "tokens", "rate_limit_exceeded"),
        500: ("The server had an error while processing your request. Sorry about that!", "server_error", None),
    }
    message, kind, code = errors[status]
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}


def anthropic_message(
    content: list[dict[str, Any]] | None = None,
    *,
    stop_reason: str = "end_turn",
    input_tokens: int = 23,
    output_tokens: int = 9,
    cache_read_input_tokens: int = 0,
) -> dict[str, Any]:
    return {
        "id": "msg_01XFDUDYJgAACzvnptvVoYEL",
        "type": "message",
        "role": "assistant",
        "model": "claude-haiku-4-5-20251001",
        "content": content if content is not None else [{"type": "text", "text": "Hello!"}],
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {
            "input_tokens": input_tokens,
            "output_tokens": output_tokens,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": cache_read_input_tokens,
            "service_tier": "standard",
        },
    }


def anthropic_error(status: int) -> dict[str, Any]:
    kinds = {401: "authentication_error", 429: "rate_limit_error", 500: "api_error", 529: "overloaded_error"}
    return {"type": "error", "error": {"type": kinds[status], "message": f"{kinds[status]} (test)"}, "request_id": "req_011CTestRequest"}


@dataclass(frozen=True)
class Provider:
    """What the provider-independent tests need to know about one provider."""

    model: str
    url: str
    key_env: str
    package: str

    def ok(self, text: str, prompt_tokens: int, completion_tokens: int) -> dict[str, Any]:
        if self.package == "openai":
            return openai_completion(text, prompt_tokens=prompt_tokens, completion_tokens=completion_tokens)
        return anthropic_message([{"type": "text", "text": text}], input_tokens=prompt_tokens, output_tokens=completion_tokens)

    def error(self, status: int) -> dict[str, Any]:
        return openai_error(status) if self.package == "openai" else anthropic_error(status)


OPENAI = Provider("openai:gpt-5-mini", OPENAI_URL, "OPENAI_API_KEY", "openai")
ANTHROPIC = Provider("anthropic:claude-haiku-4-5", ANTHROPIC_URL, "ANTHROPIC_API_KEY", "anthropic")
BOTH = pytest.mark.parametrize("provider", [OPENAI, ANTHROPIC], ids=["openai", "anthropic"])

HELLO = [ChatMessage(role="system", content="You are a CRM agent."), ChatMessage(role="user", content="Hi")]
LOOKUP = ToolSpec(
    name="lookup_customer",
    description="Find a customer by email.",
    parameters={"type": "object", "properties": {"email": {"type": "string"}}, "required": ["email"]},
)
REFUND = ToolSpec(
    name="refund_payment",
    description="Refund a payment.",
    parameters={"type": "object", "properties": {"transaction_id": {"type": "string"}, "amount": {"type": "number"}}, "required": ["transaction_id"]},
)
HISTORY = [
    ChatMessage(role="system", content="You are a CRM agent."),
    ChatMessage(role="user", content="Refund Ada's last payment."),
    ChatMessage(role="assistant", content="Looking her up.", tool_calls=[ToolCall(id="call_prev1", name="lookup_customer", arguments={"email": "ada@example.com"})]),
    ChatMessage(role="tool", tool_call_id="call_prev1", content='{"customer_id": "CUST-2001"}'),
]


# ---------------------------------------------------------------- both providers


@BOTH
async def test_text_answer_and_usage_summed_in_ledger(fake_api: respx.Router, closing: list[Model], provider: Provider) -> None:
    route = fake_api.post(provider.url).mock(
        side_effect=[
            httpx.Response(200, json=provider.ok("Hello, how can I help?", 31, 8)),
            httpx.Response(200, json=provider.ok("Anything else?", 40, 4)),
        ]
    )
    model = build(provider.model, closing)

    first = await model.generate(HELLO)
    second = await model.generate(HELLO)

    assert first.text == "Hello, how can I help?"
    assert first.tool_calls == []
    assert (first.usage.prompt_tokens, first.usage.completion_tokens, first.usage.calls) == (31, 8, 1)
    assert second.text == "Anything else?"
    totals = model.ledger.snapshot()["agent"]
    assert (totals.prompt_tokens, totals.completion_tokens, totals.calls) == (71, 12, 2)
    assert route.call_count == 2
    request = route.calls[0].request
    auth = {request.headers.get("authorization"), request.headers.get("x-api-key")}
    key = OPENAI_KEY if provider is OPENAI else ANTHROPIC_KEY
    assert f"Bearer {key}" in auth or key in auth


@BOTH
@pytest.mark.parametrize(
    ("headers", "expected"),
    [({"retry-after": "0"}, 0.0), ({"retry-after": "7"}, 7.0), ({"retry-after-ms": "1500"}, 1.5)],
    ids=["retry-after-0", "retry-after-7", "retry-after-ms"],
)
async def test_rate_limit_honours_retry_after(
    fake_api: respx.Router, closing: list[Model], provider: Provider, headers: dict[str, str], expected: float
) -> None:
    route = fake_api.post(provider.url).mock(
        side_effect=[httpx.Response(429, headers=headers, json=provider.error(429)), httpx.Response(200, json=provider.ok("ok", 5, 1))]
    )
    policy = RecordingRetryPolicy()  # waits are capped at 10 ms, so "7 s" stays fast
    model = build(provider.model, closing, retry=policy)

    output = await model.generate(HELLO)

    assert output.text == "ok"
    assert route.call_count == 2
    assert policy.retry_afters == [expected]
    assert model.ledger.snapshot()["agent"].calls == 1  # the failed attempt is not billed


@BOTH
async def test_server_error_gives_up_after_max_retries(fake_api: respx.Router, closing: list[Model], provider: Provider) -> None:
    route = fake_api.post(provider.url).mock(return_value=httpx.Response(500, json=provider.error(500)))
    policy = RecordingRetryPolicy()
    model = build(provider.model, closing, retry=policy)

    with pytest.raises(ModelError) as info:
        await model.generate(HELLO)

    assert info.value.infrastructure is True
    assert "gave up after retries" in str(info.value)
    assert route.call_count == policy.max_retries + 1 == 3
    assert policy.retry_afters == [None, None]  # plain backoff: a 500 carries no Retry-After


@BOTH
async def test_timeout_is_retried_then_recovers(fake_api: respx.Router, closing: list[Model], provider: Provider) -> None:
    route = fake_api.post(provider.url).mock(side_effect=[httpx.ReadTimeout, httpx.Response(200, json=provider.ok("back", 5, 2))])
    model = build(provider.model, closing)

    output = await model.generate(HELLO)

    assert output.text == "back"
    assert route.call_count == 2


@BOTH
async def test_persistent_timeout_becomes_infrastructure_error(fake_api: respx.Router, closing: list[Model], provider: Provider) -> None:
    route = fake_api.post(provider.url).mock(side_effect=httpx.ReadTimeout)
    model = build(provider.model, closing)

    with pytest.raises(ModelError) as info:
        await model.generate(HELLO)

    assert info.value.infrastructure is True
    assert type(info.value.__cause__).__name__ == "APITimeoutError"
    assert route.call_count == 3


@BOTH
async def test_overall_deadline_timeout_is_retried(fake_api: respx.Router, closing: list[Model], provider: Provider) -> None:
    """A server that hangs trips `Model`'s `fail_after(timeout_s)`: a plain `TimeoutError`, transient."""

    started: list[httpx.Request] = []  # respx records a call only once its side effect returns

    async def hang(request: httpx.Request) -> httpx.Response:
        started.append(request)
        await anyio.sleep(5)
        return httpx.Response(200, json=provider.ok("too late", 1, 1))

    fake_api.post(provider.url).mock(side_effect=hang)
    model = build(provider.model, closing, config=GenerateConfig(timeout_s=0.05))

    with anyio.fail_after(3):  # the test itself must not hang if the deadline were ignored
        with pytest.raises(ModelError) as info:
            await model.generate(HELLO)

    assert isinstance(info.value.__cause__, TimeoutError)
    assert len(started) == 3


@BOTH
async def test_auth_error_is_fatal_after_one_request(fake_api: respx.Router, closing: list[Model], provider: Provider) -> None:
    route = fake_api.post(provider.url).mock(return_value=httpx.Response(401, json=provider.error(401)))
    policy = RecordingRetryPolicy()
    model = build(provider.model, closing, retry=policy)

    with pytest.raises(ModelError) as info:
        await model.generate(HELLO)

    assert route.call_count == 1
    assert policy.retry_afters == []
    assert type(info.value.__cause__).__name__ == "AuthenticationError"


@BOTH
@pytest.mark.parametrize("value", ["", "   "], ids=["missing", "blank"])
async def test_missing_key_names_the_variable(fake_api: respx.Router, monkeypatch: pytest.MonkeyPatch, provider: Provider, value: str) -> None:
    if value:
        monkeypatch.setenv(provider.key_env, value)
    else:
        monkeypatch.delenv(provider.key_env)

    with pytest.raises(ConfigurationError, match=provider.key_env) as info:
        get_model(provider.model, role="agent")

    assert info.value.infrastructure is False


@BOTH
async def test_missing_sdk_names_the_package(fake_api: respx.Router, monkeypatch: pytest.MonkeyPatch, provider: Provider) -> None:
    monkeypatch.setitem(sys.modules, provider.package, None)  # makes `import <package>` fail

    with pytest.raises(ConfigurationError, match=rf"uv add {provider.package}") as info:
        get_model(provider.model, role="agent")

    assert info.value.infrastructure is False


@BOTH
async def test_unknown_forced_tool_is_a_configuration_error(fake_api: respx.Router, closing: list[Model], provider: Provider) -> None:
    route = fake_api.post(provider.url).mock(return_value=httpx.Response(200, json=provider.ok("unused", 1, 1)))
    model = build(provider.model, closing)

    with pytest.raises(ConfigurationError, match="delete_everything"):
        await model.generate(HELLO, [LOOKUP], GenerateConfig(tool_choice="delete_everything"))

    assert route.call_count == 0


@BOTH
async def test_aclose_closes_the_sdk_client(offline_env: None, provider: Provider) -> None:
    model = get_model(provider.model, role="agent")
    client = model.api._client  # type: ignore[attr-defined]
    assert not client.is_closed()

    await model.api.aclose()

    assert client.is_closed()


# ---------------------------------------------------------------- OpenAI request/response translation


async def test_openai_tool_call_and_translated_request(fake_api: respx.Router, closing: list[Model]) -> None:
    route = fake_api.post(OPENAI_URL).mock(
        return_value=httpx.Response(
            200,
            json=openai_completion(
                None,
                tool_calls=[openai_function_call("call_Ab12Cd34", "refund_payment", '{"transaction_id": "TXN-D4E5F6", "amount": 89.99}')],
                finish_reason="tool_calls",
            ),
        )
    )
    model = build(OPENAI.model, closing)
    config = GenerateConfig(temperature=0.2, top_p=0.9, seed=7, max_tokens=256, tool_choice="refund_payment")

    output = await model.generate(HISTORY, [LOOKUP, REFUND], config)

    assert output.text == ""
    assert output.stop_reason == "tool_calls"
    assert output.model == "gpt-5-mini-2025-08-07"
    assert output.tool_calls == [ToolCall(id="call_Ab12Cd34", name="refund_payment", arguments={"transaction_id": "TXN-D4E5F6", "amount": 89.99})]
    body = sent_json(route)
    assert body["model"] == "gpt-5-mini"
    assert body["messages"] == [
        {"role": "system", "content": "You are a CRM agent."},
        {"role": "user", "content": "Refund Ada's last payment."},
        {
            "role": "assistant",
            "content": "Looking her up.",
            "tool_calls": [{"id": "call_prev1", "type": "function", "function": {"name": "lookup_customer", "arguments": '{"email": "ada@example.com"}'}}],
        },
        {"role": "tool", "tool_call_id": "call_prev1", "content": '{"customer_id": "CUST-2001"}'},
    ]
    assert body["tools"] == [
        {"type": "function", "function": {"name": "lookup_customer", "description": LOOKUP.description, "parameters": LOOKUP.parameters}},
        {"type": "function", "function": {"name": "refund_payment", "description": REFUND.description, "parameters": REFUND.parameters}},
    ]
    assert body["tool_choice"] == {"type": "function", "function": {"name": "refund_payment"}}
    assert (body["temperature"], body["top_p"], body["seed"], body["max_completion_tokens"]) == (0.2, 0.9, 7, 256)
    assert "max_tokens" not in body


@pytest.mark.parametrize("choice", ["auto", "required", "none"])
async def test_openai_keyword_tool_choice_passes_through(fake_api: respx.Router, closing: list[Model], choice: str) -> None:
    route = fake_api.post(OPENAI_URL).mock(return_value=httpx.Response(200, json=openai_completion("fine")))
    model = build(OPENAI.model, closing)

    await model.generate(HELLO, [LOOKUP], GenerateConfig(tool_choice=choice))

    assert sent_json(route)["tool_choice"] == choice


async def test_openai_without_tools_sends_no_tools_or_defaults(fake_api: respx.Router, closing: list[Model]) -> None:
    route = fake_api.post(OPENAI_URL).mock(return_value=httpx.Response(200, json=openai_completion("plain")))
    model = build(OPENAI.model, closing)

    await model.generate(HELLO, [], GenerateConfig(tool_choice="required"))

    body = sent_json(route)
    assert set(body) == {"model", "messages"}  # None settings mean "server default": nothing sent


@pytest.mark.parametrize(
    ("raw", "error_fragment"),
    [
        ('{"email": "ada@example.com"', "not valid JSON"),
        ('["ada@example.com"]', "must be a JSON object, got list"),
        ('"ada@example.com"', "must be a JSON object, got str"),
    ],
    ids=["truncated", "array", "string"],
)
async def test_openai_bad_tool_arguments_set_parse_error(fake_api: respx.Router, closing: list[Model], raw: str, error_fragment: str) -> None:
    fake_api.post(OPENAI_URL).mock(
        return_value=httpx.Response(
            200,
            json=openai_completion(
                None,
                tool_calls=[openai_function_call("call_bad", "lookup_customer", raw), openai_function_call("call_good", "lookup_customer", '{"email": "b@x.io"}')],
                finish_reason="tool_calls",
            ),
        )
    )
    model = build(OPENAI.model, closing)

    output = await model.generate(HELLO, [LOOKUP])

    bad, good = output.tool_calls
    assert (bad.id, bad.name, bad.arguments) == ("call_bad", "lookup_customer", {})
    assert bad.parse_error is not None and error_fragment in bad.parse_error
    assert (good.arguments, good.parse_error) == ({"email": "b@x.io"}, None)


async def test_openai_empty_arguments_mean_no_arguments(fake_api: respx.Router, closing: list[Model]) -> None:
    fake_api.post(OPENAI_URL).mock(
        return_value=httpx.Response(200, json=openai_completion(None, tool_calls=[openai_function_call("call_1", "list_all", "")], finish_reason="tool_calls"))
    )
    model = build(OPENAI.model, closing)

    (call,) = (await model.generate(HELLO, [ToolSpec(name="list_all")])).tool_calls

    assert (call.arguments, call.parse_error) == ({}, None)


async def test_openai_insufficient_quota_is_fatal(fake_api: respx.Router, closing: list[Model]) -> None:
    quota = {"error": {"message": "You exceeded your current quota.", "type": "insufficient_quota", "param": None, "code": "insufficient_quota"}}
    route = fake_api.post(OPENAI_URL).mock(return_value=httpx.Response(429, json=quota))
    model = build(OPENAI.model, closing)

    with pytest.raises(ModelError):
        await model.generate(HELLO)

    assert route.call_count == 1


async def test_ollama_preset_needs_no_key(fake_api: respx.Router, closing: list[Model], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY")
    route = fake_api.post("http://localhost:11434/v1/chat/completions").mock(
        return_value=httpx.Response(200, json=openai_completion("from llama") | {"model": "llama3.1"})
    )
    model = build("ollama:llama3.1", closing)

    output = await model.generate(HELLO, [], GenerateConfig(max_tokens=64))

    assert output.text == "from llama"
    assert model.name == "ollama:llama3.1"
    body = sent_json(route)
    assert body["model"] == "llama3.1"
    assert body["max_tokens"] == 64 and "max_completion_tokens" not in body  # what compatible servers understand
    assert OPENAI_KEY not in route.calls.last.request.headers.get("authorization", "")


async def test_vllm_base_url_and_key_from_environment(fake_api: respx.Router, closing: list[Model], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VLLM_BASE_URL", "http://gpu-box.internal:9000/v1")
    monkeypatch.setenv("VLLM_API_KEY", "vllm-secret")
    route = fake_api.post("http://gpu-box.internal:9000/v1/chat/completions").mock(return_value=httpx.Response(200, json=openai_completion("served")))
    model = build("vllm:Qwen/Qwen3-8B", closing)

    output = await model.generate(HELLO)

    assert output.text == "served"
    assert route.calls.last.request.headers["authorization"] == "Bearer vllm-secret"
    assert sent_json(route)["model"] == "Qwen/Qwen3-8B"


async def test_vllm_preset_requires_its_key(fake_api: respx.Router) -> None:
    with pytest.raises(ConfigurationError, match="VLLM_API_KEY"):
        get_model("vllm:Qwen/Qwen3-8B", role="agent")


# ---------------------------------------------------------------- Anthropic request/response translation


async def test_anthropic_tool_use_and_translated_request(fake_api: respx.Router, closing: list[Model]) -> None:
    route = fake_api.post(ANTHROPIC_URL).mock(
        return_value=httpx.Response(
            200,
            json=anthropic_message(
                [
                    {"type": "text", "text": "Found her; refunding."},
                    {"type": "tool_use", "id": "toolu_01A09q90qw90lq917835lq9", "name": "refund_payment", "input": {"transaction_id": "TXN-D4E5F6", "amount": 89.99}},
                ],
                stop_reason="tool_use",
                input_tokens=400,
                output_tokens=60,
                cache_read_input_tokens=100,
            ),
        )
    )
    model = build(ANTHROPIC.model, closing)
    messages = [*HISTORY[:1], ChatMessage(role="system", content="Be brief."), *HISTORY[1:]]

    output = await model.generate(messages, [LOOKUP, REFUND], GenerateConfig(tool_choice="refund_payment"))

    assert output.text == "Found her; refunding."
    assert output.stop_reason == "tool_use"
    assert output.model == "claude-haiku-4-5-20251001"
    assert output.tool_calls == [ToolCall(id="toolu_01A09q90qw90lq917835lq9", name="refund_payment", arguments={"transaction_id": "TXN-D4E5F6", "amount": 89.99})]
    assert (output.usage.prompt_tokens, output.usage.completion_tokens) == (500, 60)  # cache reads count as prompt
    body = sent_json(route)
    assert body["model"] == "claude-haiku-4-5"
    assert body["max_tokens"] == 4096
    assert body["system"] == "You are a CRM agent.\n\nBe brief."
    assert body["messages"] == [
        {"role": "user", "content": "Refund Ada's last payment."},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Looking her up."},
                {"type": "tool_use", "id": "call_prev1", "name": "lookup_customer", "input": {"email": "ada@example.com"}},
            ],
        },
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "call_prev1", "content": '{"customer_id": "CUST-2001"}'}]},
    ]
    assert body["tools"] == [
        {"name": "lookup_customer", "description": LOOKUP.description, "input_schema": LOOKUP.parameters},
        {"name": "refund_payment", "description": REFUND.description, "input_schema": REFUND.parameters},
    ]
    assert body["tool_choice"] == {"type": "tool", "name": "refund_payment"}


async def test_anthropic_parallel_tool_results_share_one_user_turn(fake_api: respx.Router, closing: list[Model]) -> None:
    route = fake_api.post(ANTHROPIC_URL).mock(return_value=httpx.Response(200, json=anthropic_message()))
    model = build(ANTHROPIC.model, closing)
    calls = [ToolCall(id="toolu_a", name="lookup_customer", arguments={"email": "a@x.io"}), ToolCall(id="toolu_b", name="lookup_customer", arguments={"email": "b@x.io"})]
    messages = [
        ChatMessage(role="user", content="Look up both."),
        ChatMessage(role="assistant", tool_calls=calls),
        ChatMessage(role="tool", tool_call_id="toolu_a", content="A"),
        ChatMessage(role="tool", tool_call_id="toolu_b", content="B"),
        ChatMessage(role="user", content="Thanks, now summarise."),
    ]

    await model.generate(messages, [LOOKUP])

    sent = sent_json(route)
    assert "system" not in sent
    assert sent["messages"] == [
        {"role": "user", "content": "Look up both."},
        {
            "role": "assistant",
            "content": [  # no empty text block: the API rejects those
                {"type": "tool_use", "id": "toolu_a", "name": "lookup_customer", "input": {"email": "a@x.io"}},
                {"type": "tool_use", "id": "toolu_b", "name": "lookup_customer", "input": {"email": "b@x.io"}},
            ],
        },
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_a", "content": "A"}, {"type": "tool_result", "tool_use_id": "toolu_b", "content": "B"}]},
        {"role": "user", "content": "Thanks, now summarise."},
    ]


@pytest.mark.parametrize(("choice", "expected"), [("auto", {"type": "auto"}), ("required", {"type": "any"}), ("none", {"type": "none"})])
async def test_anthropic_tool_choice_mapping(fake_api: respx.Router, closing: list[Model], choice: str, expected: dict[str, str]) -> None:
    route = fake_api.post(ANTHROPIC_URL).mock(return_value=httpx.Response(200, json=anthropic_message()))
    model = build(ANTHROPIC.model, closing)

    await model.generate(HELLO, [LOOKUP], GenerateConfig(tool_choice=choice, max_tokens=300))

    body = sent_json(route)
    assert body["tool_choice"] == expected
    assert body["max_tokens"] == 300


async def test_anthropic_does_not_send_removed_sampling_params(
    fake_api: respx.Router, closing: list[Model], caplog: pytest.LogCaptureFixture
) -> None:
    route = fake_api.post(ANTHROPIC_URL).mock(return_value=httpx.Response(200, json=anthropic_message()))
    model = build(ANTHROPIC.model, closing)
    config = GenerateConfig(temperature=0.0, top_p=0.5, seed=3)

    with caplog.at_level(logging.WARNING, logger="models.providers.anthropic"):
        await model.generate(HELLO, [], config)
        await model.generate(HELLO, [], config)

    for call in route.calls:
        body = json.loads(call.request.content)
        assert not {"temperature", "top_p", "top_k", "seed", "tools", "tool_choice"} & set(body)
    warnings = [r for r in caplog.records if "temperature/top_p/seed" in r.getMessage()]
    assert len(warnings) == 1  # once per adapter, not per call


async def test_anthropic_overloaded_is_retried(fake_api: respx.Router, closing: list[Model]) -> None:
    route = fake_api.post(ANTHROPIC_URL).mock(
        side_effect=[httpx.Response(529, json=anthropic_error(529)), httpx.Response(200, json=anthropic_message([{"type": "text", "text": "recovered"}]))]
    )
    model = build(ANTHROPIC.model, closing)

    output = await model.generate(HELLO)

    assert output.text == "recovered"
    assert route.call_count == 2


async def test_anthropic_spend_limit_is_fatal(fake_api: respx.Router, closing: list[Model]) -> None:
    body = {
        "type": "error",
        "error": {"type": "rate_limit_error", "message": "Spend limit reached.", "details": {"error_code": "enforced_spend_limit_reached"}},
        "request_id": "req_011CTestRequest",
    }
    route = fake_api.post(ANTHROPIC_URL).mock(return_value=httpx.Response(429, headers={"retry-after": "0"}, json=body))
    model = build(ANTHROPIC.model, closing)

    with pytest.raises(ModelError) as info:
        await model.generate(HELLO)

    assert route.call_count == 1
    assert type(info.value.__cause__).__name__ == "EnforcedSpendLimitReachedError"


# ---------------------------------------------------------------- opt-in live calls (cost: one tiny request each)

LIVE = os.environ.get("CRMBENCH_LIVE_PROVIDERS") == "1"


@pytest.mark.parametrize("provider", [OPENAI, ANTHROPIC], ids=["openai", "anthropic"])
async def test_live_provider_round_trip(provider: Provider) -> None:
    if not LIVE:
        pytest.skip("set CRMBENCH_LIVE_PROVIDERS=1 (and the provider's key) to call the real API")
    if not os.environ.get(provider.key_env):
        pytest.skip(f"{provider.key_env} is not set")
    model = get_model(provider.model, role="agent", retry=RetryPolicy(max_retries=2, base_delay_s=1.0))
    try:
        output = await model.generate(
            [ChatMessage(role="user", content="Reply with exactly the word: pong")], [], GenerateConfig(max_tokens=1024, timeout_s=60)
        )
    finally:
        await model.api.aclose()

    assert "pong" in output.text.lower()
    assert output.usage.prompt_tokens > 0 and output.usage.completion_tokens > 0 and output.usage.calls == 1


# ---------------------------------------------------------------- a whole trial through the real adapter


async def test_graph_agent_and_llm_judge_through_the_openai_adapter(fake_api: respx.Router, tmp_path: Any) -> None:
    """`crmbench run --agent-model openai:gpt-5-mini` end to end against an HTTP-level fake of the API:
    router (forced `route` tool), node ReAct loop, LLM judge, usage per role and the priced agent cost."""
    from rich.console import Console

    from harness.runner.config import RunConfig
    from harness.runner.run import execute_run

    answer = "Your balance on ACC-1005 is $640.20 and you have 310 loyalty points."

    def reply(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        messages = body["messages"]
        if body.get("tool_choice") == {"type": "function", "function": {"name": "route"}}:
            call = openai_function_call("call_route", "route", json.dumps({"node": "balance_inquiry", "reason": "balance question"}))
            return httpx.Response(200, json=openai_completion(None, tool_calls=[call], finish_reason="tool_calls"))
        if messages[0]["content"].startswith("You grade"):
            transcript = messages[1]["content"].split('<transcript_json untrusted="true">\n', 1)[1].split("\n</transcript_json>", 1)[0]
            quote = json.loads(transcript)[0]
            verdict = {"criteria": [{"index": 1, "verdict": True, "evidence": quote, "explanation": "states both"}], "contradiction_found": False}
            return httpx.Response(200, json=openai_completion(json.dumps(verdict)))
        if messages[-1]["role"] == "tool":
            return httpx.Response(200, json=openai_completion(answer))
        assert [t["function"]["name"] for t in body["tools"]] == ["get_account_balance", "get_transaction_history"]
        call = openai_function_call("call_1", "get_account_balance", json.dumps({"account_id": "ACC-1005"}))
        return httpx.Response(200, json=openai_completion(None, tool_calls=[call], finish_reason="tool_calls"))

    route = fake_api.post(OPENAI_URL).mock(side_effect=reply)
    config = RunConfig(out=tmp_path / "run", task=["payments_balance_inquiry_01"], agent_model="openai:gpt-5-mini", user="scripted")
    result = await execute_run(config, console=Console(file=open(os.devnull, "w")))  # noqa: SIM115
    [record] = result.records
    assert result.plan.agent == "graph" and result.plan.judge == "llm"
    assert record.strict, record.verdict.summary() if record.verdict else record.error
    assert record.verdict.judge == "llm:openai:gpt-5-mini"
    assert [(c.tool, c.status) for c in record.tool_trace] == [("get_account_balance", "executed")]
    assert record.conversation[-1].content == answer
    assert {role: u.calls for role, u in record.usage.items()} == {"router": 1, "agent": 2, "judge": 1}
    assert route.call_count == 4
    assert "estimated agent cost (cache-neutral): $0." in result.summary_markdown


async def test_provider_500s_until_exhaustion_make_the_trial_bottom(fake_api: respx.Router, tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """A provider outage that outlasts the retries is an infrastructure failure: the trial is ⊥
    (excluded from the strict denominator, shown, re-runnable), not a model failure."""
    from rich.console import Console

    import models.model as model_module
    from harness.runner.config import RunConfig
    from harness.runner.run import execute_run

    monkeypatch.setattr(model_module, "RetryPolicy", lambda: RetryPolicy(max_retries=1, base_delay_s=0.0, max_delay_s=0.0))
    route = fake_api.post(OPENAI_URL).mock(return_value=httpx.Response(500, json=openai_error(500)))
    config = RunConfig(out=tmp_path / "run", task=["payments_balance_inquiry_01"], agent_model="openai:gpt-5-mini", user="scripted", judge="evidence", infra_retries=0)
    result = await execute_run(config, console=Console(file=open(os.devnull, "w")))  # noqa: SIM115
    [record] = result.records
    assert record.status == "infra_error" and record.strict is None and record.failure_class == "infra:provider"
    assert "gave up after retries" in record.error
    assert route.call_count == 2  # the router's call and its one retry
    assert "| **all** | 1 | 0 | 1 | 0 | n/a |" in result.summary_markdown
