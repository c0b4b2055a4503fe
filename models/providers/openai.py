"""OpenAI Chat Completions (and any OpenAI-compatible server: vLLM, Ollama, llama.cpp, OpenRouter).

The `openai` SDK is imported when an adapter is built, never at module import, so `import models` stays
cheap and a missing SDK is reported as a `ConfigurationError` naming the package at the moment a model is
requested. The SDK's own retries are disabled (`max_retries=0`): `models.model.Model` owns retries, so
every attempt is visible to its backoff and logging, and `classify_error` below tells it which failures
are worth retrying.

The small helpers at the top (`import_sdk`, `read_api_key`, `retry_after_seconds`) are shared with the
Anthropic adapter; they import nothing heavy.
"""

from __future__ import annotations

import email.utils
import importlib
import json
import logging
import os
import time
from collections.abc import Mapping, Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any

from models.base import FATAL, ConfigurationError, ModelAPI, RetryDecision
from models.types import ChatMessage, GenerateConfig, ModelOutput, ToolCall, ToolSpec, Usage

if TYPE_CHECKING:  # type-only: keeps the SDK out of module import
    from openai import AsyncOpenAI
    from openai.types.chat import ChatCompletion

log = logging.getLogger(__name__)

LOCAL_PLACEHOLDER_KEY = "not-needed"
"""Sent to keyless local servers: the SDK insists on some key, the server ignores it."""

_ARGS_PREVIEW_CHARS = 200


# ---------------------------------------------------------------- shared provider helpers


def import_sdk(package: str) -> ModuleType:
    """Import a provider SDK on first use, turning its absence into an actionable configuration error."""
    try:
        return importlib.import_module(package)
    except ImportError as exc:
        raise ConfigurationError(f"the {package!r} package is required for {package} models; install it with: uv add {package}") from exc


def read_api_key(env_var: str) -> str:
    """The key from `env_var`. Checked up front so a missing key fails at model construction, naming the
    variable, instead of as an opaque 401 in the middle of a run."""
    key = os.environ.get(env_var, "").strip()
    if not key:
        raise ConfigurationError(f"no API key: set {env_var}")
    return key


def retry_after_seconds(headers: Mapping[str, str] | None) -> float | None:
    """The server's requested wait, from `retry-after-ms` (more precise, non-standard), then `retry-after`
    as seconds or as an HTTP date. None when absent or unparseable, so `Model` falls back to backoff."""
    if not headers:
        return None
    millis = headers.get("retry-after-ms")
    if millis is not None:
        try:
            return max(float(millis) / 1000.0, 0.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    parsed = email.utils.parsedate_tz(value)
    if parsed is None:
        return None
    return max(float(email.utils.mktime_tz(parsed)) - time.time(), 0.0)


def response_headers(error: BaseException) -> Mapping[str, str] | None:
    """Headers of the HTTP response behind an SDK status error, if any."""
    response = getattr(error, "response", None)
    return getattr(response, "headers", None)


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
        return parse_completion(completion, completion.model or self.name)

    def classify_error(self, error: BaseException) -> RetryDecision:
        sdk = self._sdk
        if isinstance(error, sdk.RateLimitError):
            if getattr(error, "code", None) == "insufficient_quota":  # out of credits: waiting will not help
                return RetryDecision("fatal", reason="insufficient_quota")
            return RetryDecision("rate_limit", retry_after=retry_after_seconds(response_headers(error)), reason="rate limited (429)")
        if isinstance(error, sdk.InternalServerError):
            return RetryDecision("transient", reason=f"server error ({error.status_code})")
        if isinstance(error, sdk.APIStatusError) and error.status_code == 408:
            return RetryDecision("transient", reason="request timeout (408)")
        if isinstance(error, sdk.APITimeoutError | TimeoutError):  # APITimeoutError before its base class
            return RetryDecision("transient", reason="timeout")
        if isinstance(error, sdk.APIConnectionError):
            return RetryDecision("transient", reason="connection error")
        return FATAL

    async def aclose(self) -> None:
        await self._client.close()
