"""OpenAI Chat Completions (and any OpenAI-compatible server: vLLM, Ollama, llama.cpp, OpenRouter).

The `openai` SDK is imported when an adapter is built, never at module import, so `import models` stays
cheap and a missing SDK is reported as a `ConfigurationError` naming the package at the moment a model is
requested. The SDK's own retries are disabled (`max_retries=0`): `models.model.Model` owns retries, so
every attempt is visible to its backoff and logging, and `classify_error` below tells it which failures
are worth retrying.

The call goes through the SDK's lower-level path, `AsyncOpenAI.post` (the same request pipeline as
`chat.completions.create`: auth and default headers, timeouts, the SDK's status-error classes, which
`classify_error` maps), with a body serialised here and `cast_to=object`, so the answer comes back as
the decoded JSON. Why: `create` walks every request's messages and tool schemas in Python against its
typed-dict annotations (`maybe_transform`), and builds a pydantic `ChatCompletion` of every answer —
about a fifth of the client's CPU per call, for a request whose shape this module already knows and an
answer of which it reads four fields. Each tool list's JSON is serialised once and reused while the same
`ToolSpec` objects are offered (a node's tools do not change within a trial). Connections go through
`models.providers.transport.ShardedTransport`, whose cost per call does not grow with the number in
flight.

Helpers shared with the Anthropic adapter live in `models.providers.common`.
"""

from __future__ import annotations

import json
import logging
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from models.base import FATAL, ConfigurationError, ModelAPI, ProviderProtocolError, RetryDecision
from models.providers.common import classify_stainless_error, import_sdk, pooled_http_client, read_api_key
from models.providers.transport import DEFAULT_BACKEND, HttpBackend
from models.types import ChatMessage, GenerateConfig, ModelOutput, ToolCall, ToolSpec, Usage

if TYPE_CHECKING:  # type-only: keeps the SDK out of module import
    from openai import AsyncOpenAI

log = logging.getLogger(__name__)

LOCAL_PLACEHOLDER_KEY = "not-needed"
"""Sent to keyless local servers: the SDK insists on some key, the server ignores it."""

_ARGS_PREVIEW_CHARS = 200

TOOLS_JSON_CACHE_SIZE = 4096
"""Tool lists whose JSON is kept per adapter (a few per trial in flight)."""

CHAT_COMPLETIONS_PATH = "/chat/completions"
_JSON_REQUEST = {"headers": {"Content-Type": "application/json"}, "security": {"bearer_auth": True}}
"""The request options `chat.completions.create` itself passes (bearer auth), with the body's type."""


# ---------------------------------------------------------------- request translation


def to_openai_messages(messages: Sequence[ChatMessage]) -> list[dict[str, Any]]:
    return [_to_openai_message(message) for message in messages]


def _to_openai_message(message: ChatMessage) -> dict[str, Any]:
    if message.role == "tool":
        return {"role": "tool", "tool_call_id": message.tool_call_id or "", "content": message.content}
    if message.role == "assistant":
        return _to_openai_assistant(message)
    out: dict[str, Any] = {"role": message.role, "content": message.content}
    if message.name:
        out["name"] = message.name
    return out


def _to_openai_assistant(message: ChatMessage) -> dict[str, Any]:
    """Assistant turns replay their tool calls with JSON-string arguments, as the API returned them.
    Content is null (not "") when the turn was only tool calls, matching what the API itself sends."""
    out: dict[str, Any] = {"role": "assistant", "content": message.content or None}
    if message.tool_calls:
        out["tool_calls"] = [
            {"id": call.id, "type": "function", "function": {"name": call.name, "arguments": json.dumps(call.arguments)}}
            for call in message.tool_calls
        ]
    return out


def to_openai_tools(tools: Sequence[ToolSpec]) -> list[dict[str, Any]]:
    return [{"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.parameters}} for t in tools]


def to_openai_tool_choice(choice: str, tools: Sequence[ToolSpec]) -> str | dict[str, Any]:
    """`auto`/`required`/`none` pass through; any other value names the one tool the model must call."""
    if choice in ("auto", "required", "none"):
        return choice
    if choice not in {t.name for t in tools}:
        raise ConfigurationError(f"tool_choice names {choice!r}, which is not among the offered tools")
    return {"type": "function", "function": {"name": choice}}


def sampling_params(config: GenerateConfig, *, max_tokens_key: str) -> dict[str, Any]:
    """Only settings that were set: `None` means the server's default, so it is not sent at all."""
    params: dict[str, Any] = {}
    if config.temperature is not None:
        params["temperature"] = config.temperature
    if config.top_p is not None:
        params["top_p"] = config.top_p
    if config.seed is not None:
        params["seed"] = config.seed
    if config.max_tokens is not None:
        params[max_tokens_key] = config.max_tokens
    return params


# ---------------------------------------------------------------- response parsing


def parse_arguments(raw: object) -> tuple[dict[str, Any], str | None]:
    """Decode a tool call's JSON arguments. Models do emit broken JSON: that is the agent's mistake to be
    graded, not a crash, so it becomes `arguments={}` plus a `parse_error` the harness can report. (Some
    compatible servers send the arguments as an object rather than a JSON string: taken as they are.)"""
    if isinstance(raw, Mapping):
        return dict(raw), None
    if raw is not None and not isinstance(raw, str):
        return {}, f"arguments must be a JSON object, got {type(raw).__name__}: {str(raw)[:_ARGS_PREVIEW_CHARS]!r}"
    if raw is None or not raw.strip():
        return {}, None  # some servers send "" for a tool without parameters
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as exc:
        return {}, f"arguments are not valid JSON ({exc.msg} at position {exc.pos}): {raw[:_ARGS_PREVIEW_CHARS]!r}"
    if not isinstance(value, dict):
        return {}, f"arguments must be a JSON object, got {type(value).__name__}: {raw[:_ARGS_PREVIEW_CHARS]!r}"
    return value, None


def parse_completion_data(data: object, model_name: str) -> ModelOutput:
    """A chat completion's decoded JSON as a `ModelOutput`: the first choice's text (or refusal) and tool
    calls, its finish reason, and usage. Anything that is not a completion with a message — an HTML
    page, an error object with status 200, a choice without a message — is a `ProviderProtocolError`
    (retried like an outage), never a silent empty answer."""
    if not isinstance(data, Mapping):
        raise ProviderProtocolError(f"the response is not a chat completion (got {type(data).__name__}: {str(data)[:200]!r})")
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], Mapping) or not isinstance(choices[0].get("message"), Mapping):
        raise ProviderProtocolError(f"the response is not a chat completion (no choice with a message): {json.dumps(data)[:200]}")
    usage = data.get("usage")
    if isinstance(usage, Mapping):
        tokens = Usage(prompt_tokens=usage.get("prompt_tokens") or 0, completion_tokens=usage.get("completion_tokens") or 0, calls=1)
    else:
        tokens = Usage(calls=1)
    choice = choices[0]
    message = choice["message"]
    raw_calls = message.get("tool_calls") or []
    if not isinstance(raw_calls, list):
        raise ProviderProtocolError(f"tool_calls is not a list: {raw_calls!r:.200}")
    return ModelOutput(
        text=message.get("content") or message.get("refusal") or "",
        tool_calls=[_parse_tool_call_data(call, i) for i, call in enumerate(raw_calls)],
        usage=tokens,
        stop_reason=choice.get("finish_reason"),
        model=data.get("model") or model_name,
    )


def _parse_tool_call_data(call: object, index: int) -> ToolCall:
    if not isinstance(call, Mapping):
        raise ProviderProtocolError(f"a tool call is not an object: {call!r:.200}")
    call_id = call.get("id") or f"call_{index}"  # some local servers omit ids
    function = call.get("function")
    if not isinstance(function, Mapping):  # e.g. a "custom" (free-text) tool call: not something this harness offers
        custom = call.get("custom")
        name = (custom.get("name") if isinstance(custom, Mapping) else "") or ""
        return ToolCall(id=call_id, name=name, parse_error=f"unsupported tool call type {call.get('type')!r}")
    arguments, error = parse_arguments(function.get("arguments"))
    return ToolCall(id=call_id, name=function.get("name") or "", arguments=arguments, parse_error=error)


# ---------------------------------------------------------------- the adapter


class OpenAIChatAPI(ModelAPI):
    """Chat Completions with function calling, against api.openai.com or an OpenAI-compatible server."""

    def __init__(
        self,
        model: str,
        *,
        provider: str = "openai",
        base_url: str | None = None,
        api_key_env: str | None = "OPENAI_API_KEY",
        http_backend: HttpBackend = DEFAULT_BACKEND,
    ) -> None:
        super().__init__(model)
        self.provider = provider
        self._sdk = import_sdk("openai")
        api_key = read_api_key(api_key_env) if api_key_env else LOCAL_PLACEHOLDER_KEY
        http_client = pooled_http_client(self._sdk, http_backend)
        self._client: AsyncOpenAI = self._sdk.AsyncOpenAI(api_key=api_key, base_url=base_url, max_retries=0, http_client=http_client)
        # OpenAI's reasoning models reject `max_tokens`; many compatible servers only know `max_tokens`.
        self._max_tokens_key = "max_completion_tokens" if provider == "openai" else "max_tokens"
        self._tools_json: OrderedDict[tuple[int, ...], tuple[tuple[ToolSpec, ...], str]] = OrderedDict()

    def request_params(self, messages: Sequence[ChatMessage], tools: Sequence[ToolSpec], config: GenerateConfig) -> dict[str, Any]:
        """The keyword arguments for `chat.completions.create` (separate so it can be inspected)."""
        params: dict[str, Any] = {"model": self.model, "messages": to_openai_messages(messages)}
        params.update(sampling_params(config, max_tokens_key=self._max_tokens_key))
        if tools:
            params["tools"] = to_openai_tools(tools)
            params["tool_choice"] = to_openai_tool_choice(config.tool_choice, tools)
        return params

    def request_body(self, messages: Sequence[ChatMessage], tools: Sequence[ToolSpec], config: GenerateConfig) -> bytes:
        """`request_params` as the JSON body sent: the same object, with the tool list's JSON reused."""
        params: dict[str, Any] = {"model": self.model, "messages": to_openai_messages(messages)}
        params.update(sampling_params(config, max_tokens_key=self._max_tokens_key))
        if not tools:
            return json.dumps(params).encode()
        params["tool_choice"] = to_openai_tool_choice(config.tool_choice, tools)
        return (json.dumps(params)[:-1] + ', "tools": ' + self._tools_json_of(tools) + "}").encode()

    def _tools_json_of(self, tools: Sequence[ToolSpec]) -> str:
        """The tools' JSON, kept per list of `ToolSpec` objects: the key is their identities, and the entry
        holds the objects themselves, so an identity cannot be reused by another object while kept."""
        key = tuple(map(id, tools))
        hit = self._tools_json.get(key)
        if hit is not None:
            self._tools_json.move_to_end(key)
            return hit[1]
        encoded = json.dumps(to_openai_tools(tools))
        self._tools_json[key] = (tuple(tools), encoded)
        if len(self._tools_json) > TOOLS_JSON_CACHE_SIZE:
            self._tools_json.popitem(last=False)
        return encoded

    async def generate(self, messages: Sequence[ChatMessage], tools: Sequence[ToolSpec], config: GenerateConfig) -> ModelOutput:
        body = self.request_body(messages, tools, config)
        data = await self._client.post(CHAT_COMPLETIONS_PATH, cast_to=object, content=body, options=_JSON_REQUEST)  # type: ignore[arg-type]
        return parse_completion_data(data, self.name)

    def classify_error(self, error: BaseException) -> RetryDecision:
        sdk = self._sdk
        if isinstance(error, sdk.RateLimitError):
            if getattr(error, "code", None) == "insufficient_quota":  # out of credits: waiting will not help
                return RetryDecision("fatal", reason="insufficient_quota", category="auth")
        return classify_stainless_error(sdk, error) or FATAL

    async def aclose(self) -> None:
        await self._client.close()
