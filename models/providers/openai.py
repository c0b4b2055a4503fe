"""OpenAI Chat Completions (and any OpenAI-compatible server: vLLM, Ollama, llama.cpp, OpenRouter).

The `openai` SDK is imported when an adapter is built, never at module import, so `import models` stays
cheap and a missing SDK is reported as a `ConfigurationError` naming the package at the moment a model is
requested. The SDK's own retries are disabled (`max_retries=0`): `models.model.Model` owns retries, so
every attempt is visible to its backoff and logging, and `classify_error` below tells it which failures
are worth retrying.

Helpers shared with the Anthropic adapter live in `models.providers.common`.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from models.base import FATAL, ConfigurationError, ModelAPI, ProviderProtocolError, RetryDecision
from models.providers.common import classify_stainless_error, import_sdk, read_api_key
from models.types import ChatMessage, GenerateConfig, ModelOutput, ToolCall, ToolSpec, Usage

if TYPE_CHECKING:  # type-only: keeps the SDK out of module import
    from openai import AsyncOpenAI
    from openai.types.chat import ChatCompletion

log = logging.getLogger(__name__)

LOCAL_PLACEHOLDER_KEY = "not-needed"
"""Sent to keyless local servers: the SDK insists on some key, the server ignores it."""

_ARGS_PREVIEW_CHARS = 200


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


def parse_arguments(raw: str | None) -> tuple[dict[str, Any], str | None]:
    """Decode a tool call's JSON arguments. Models do emit broken JSON: that is the agent's mistake to be
    graded, not a crash, so it becomes `arguments={}` plus a `parse_error` the harness can report."""
    if raw is None or not raw.strip():
        return {}, None  # some servers send "" for a tool without parameters
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as exc:
        return {}, f"arguments are not valid JSON ({exc.msg} at position {exc.pos}): {raw[:_ARGS_PREVIEW_CHARS]!r}"
    if not isinstance(value, dict):
        return {}, f"arguments must be a JSON object, got {type(value).__name__}: {raw[:_ARGS_PREVIEW_CHARS]!r}"
    return value, None


def _parse_tool_call(call: Any, index: int) -> ToolCall:
    call_id = getattr(call, "id", None) or f"call_{index}"  # some local servers omit ids
    function = getattr(call, "function", None)
    if function is None:  # e.g. a "custom" (free-text) tool call: not something this harness offers
        name = getattr(getattr(call, "custom", None), "name", "") or ""
        return ToolCall(id=call_id, name=name, parse_error=f"unsupported tool call type {getattr(call, 'type', None)!r}")
    arguments, error = parse_arguments(function.arguments)
    return ToolCall(id=call_id, name=function.name, arguments=arguments, parse_error=error)


def parse_completion(completion: ChatCompletion, model_name: str) -> ModelOutput:
    usage = completion.usage
    tokens = Usage(prompt_tokens=usage.prompt_tokens or 0, completion_tokens=usage.completion_tokens or 0, calls=1) if usage else Usage(calls=1)
    if not completion.choices:
        return ModelOutput(usage=tokens, model=model_name)
    choice = completion.choices[0]
    message = choice.message
    return ModelOutput(
        text=message.content or message.refusal or "",
        tool_calls=[_parse_tool_call(call, i) for i, call in enumerate(message.tool_calls or [])],
        usage=tokens,
        stop_reason=choice.finish_reason,
        model=model_name,
    )


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
    ) -> None:
        super().__init__(model)
        self.provider = provider
        self._sdk = import_sdk("openai")
        api_key = read_api_key(api_key_env) if api_key_env else LOCAL_PLACEHOLDER_KEY
        self._client: AsyncOpenAI = self._sdk.AsyncOpenAI(api_key=api_key, base_url=base_url, max_retries=0)
        # OpenAI's reasoning models reject `max_tokens`; many compatible servers only know `max_tokens`.
        self._max_tokens_key = "max_completion_tokens" if provider == "openai" else "max_tokens"

    def request_params(self, messages: Sequence[ChatMessage], tools: Sequence[ToolSpec], config: GenerateConfig) -> dict[str, Any]:
        """The keyword arguments for `chat.completions.create` (separate so it can be inspected)."""
        params: dict[str, Any] = {"model": self.model, "messages": to_openai_messages(messages)}
        params.update(sampling_params(config, max_tokens_key=self._max_tokens_key))
        if tools:
            params["tools"] = to_openai_tools(tools)
            params["tool_choice"] = to_openai_tool_choice(config.tool_choice, tools)
        return params

    async def generate(self, messages: Sequence[ChatMessage], tools: Sequence[ToolSpec], config: GenerateConfig) -> ModelOutput:
        completion = await self._client.chat.completions.create(**self.request_params(messages, tools, config))
        choices = getattr(completion, "choices", None)
        if not isinstance(choices, list) or not choices or getattr(choices[0], "message", None) is None:
            raise ProviderProtocolError(f"the response is not a chat completion (got {type(completion).__name__} without choices)")
        return parse_completion(completion, completion.model or self.name)

    def classify_error(self, error: BaseException) -> RetryDecision:
        sdk = self._sdk
        if isinstance(error, sdk.RateLimitError):
            if getattr(error, "code", None) == "insufficient_quota":  # out of credits: waiting will not help
                return RetryDecision("fatal", reason="insufficient_quota", category="auth")
        return classify_stainless_error(sdk, error) or FATAL

    async def aclose(self) -> None:
        await self._client.close()
