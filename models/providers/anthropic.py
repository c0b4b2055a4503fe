"""Anthropic Messages API with tool use.

Like the OpenAI adapter, the `anthropic` SDK is imported when an adapter is built, its own retries are
disabled (`max_retries=0`) because `models.model.Model` owns retries, and its connections go through
`models.providers.transport.ShardedTransport` (a per-request cost flat in the number in flight).

SDK 2.x speaks API version 2026-10-21, which removed the sampling parameters: `temperature`, `top_p` and
`top_k` are rejected with a 400 even at their default values, and the SDK no longer accepts them. So
`GenerateConfig.temperature`/`top_p` are not sent (a warning says so once per adapter), and `seed` never
existed in this API.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from models.base import FATAL, ConfigurationError, ModelAPI, ProviderProtocolError, RetryDecision
from models.providers.common import classify_stainless_error, import_sdk, pooled_http_client, read_api_key, response_headers, retry_after_seconds
from models.providers.transport import DEFAULT_BACKEND, HttpBackend
from models.types import ChatMessage, GenerateConfig, ModelOutput, ToolCall, ToolSpec, Usage

if TYPE_CHECKING:  # type-only: keeps the SDK out of module import
    from anthropic import AsyncAnthropic
    from anthropic.types import Message

log = logging.getLogger(__name__)

DEFAULT_MAX_TOKENS = 4096
"""The Messages API requires `max_tokens`; used when `GenerateConfig.max_tokens` is None."""

OVERLOADED_STATUS = 529

_SPEND_LIMIT_ERRORS = ("ContractSpendLimitReachedError", "EnforcedSpendLimitReachedError", "LinkedOrganizationSpendLimitReachedError")
"""429/402 subclasses meaning "out of budget": waiting will not help, so they are fatal."""


# ---------------------------------------------------------------- request translation


def system_prompt(messages: Sequence[ChatMessage]) -> str:
    """All system messages, in order, as the one `system` parameter the API takes."""
    return "\n\n".join(m.content for m in messages if m.role == "system" and m.content)


def to_anthropic_messages(messages: Sequence[ChatMessage]) -> list[dict[str, Any]]:
    """Conversation turns in Anthropic's shape. Tool results travel as `tool_result` blocks in a user turn;
    consecutive results (one per parallel tool call) are merged into one user turn, because the API wants
    every result of an assistant turn in the single user turn that follows it."""
    out: list[dict[str, Any]] = []
    for message in messages:
        if message.role == "system":
            continue
        if message.role == "tool":
            _append_tool_result(out, message)
        elif message.role == "assistant":
            out.append({"role": "assistant", "content": _assistant_blocks(message)})
        else:
            out.append({"role": "user", "content": message.content})
    return out


def _append_tool_result(out: list[dict[str, Any]], message: ChatMessage) -> None:
    block = {"type": "tool_result", "tool_use_id": message.tool_call_id or "", "content": message.content}
    previous = out[-1] if out else None
    if previous is not None and previous["role"] == "user" and _is_tool_results(previous["content"]):
        previous["content"].append(block)
    else:
        out.append({"role": "user", "content": [block]})


def _is_tool_results(content: Any) -> bool:
    return isinstance(content, list) and all(block.get("type") == "tool_result" for block in content)


def _assistant_blocks(message: ChatMessage) -> list[dict[str, Any]]:
    """Text (only when non-empty: the API rejects empty text blocks) followed by `tool_use` blocks."""
    blocks: list[dict[str, Any]] = [{"type": "text", "text": message.content}] if message.content else []
    blocks.extend({"type": "tool_use", "id": call.id, "name": call.name, "input": call.arguments} for call in message.tool_calls)
    return blocks


def to_anthropic_tools(tools: Sequence[ToolSpec]) -> list[dict[str, Any]]:
    return [{"name": t.name, "description": t.description, "input_schema": t.parameters} for t in tools]


def to_anthropic_tool_choice(choice: str, tools: Sequence[ToolSpec]) -> dict[str, Any]:
    """`required` is Anthropic's `any`; any other non-keyword value names the one tool the model must call."""
    if choice == "auto":
        return {"type": "auto"}
    if choice == "required":
        return {"type": "any"}
    if choice == "none":
        return {"type": "none"}
    if choice not in {t.name for t in tools}:
        raise ConfigurationError(f"tool_choice names {choice!r}, which is not among the offered tools")
    return {"type": "tool", "name": choice}


# ---------------------------------------------------------------- response parsing


def parse_message(message: Message, model_name: str) -> ModelOutput:
    """Text blocks joined; `tool_use` blocks become tool calls. Thinking and server-tool blocks are not
    part of the provider-neutral output and are dropped."""
    texts: list[str] = []
    calls: list[ToolCall] = []
    for block in message.content:
        if block.type == "text":
            texts.append(block.text)
        elif block.type == "tool_use":
            calls.append(_parse_tool_use(block))
    usage = Usage(prompt_tokens=_prompt_tokens(message.usage), completion_tokens=message.usage.output_tokens, calls=1)
    return ModelOutput(text="".join(texts), tool_calls=calls, usage=usage, stop_reason=message.stop_reason, model=model_name)


def _prompt_tokens(usage: Any) -> int:
    """All input tokens, cached or not: `input_tokens` excludes cache reads and writes, unlike OpenAI's
    `prompt_tokens`, so they are added back to keep the per-role ledgers comparable across providers."""
    cached = (usage.cache_creation_input_tokens or 0) + (usage.cache_read_input_tokens or 0)
    return usage.input_tokens + cached


def _parse_tool_use(block: Any) -> ToolCall:
    if isinstance(block.input, dict):
        return ToolCall(id=block.id, name=block.name, arguments=dict(block.input))
    return ToolCall(id=block.id, name=block.name, parse_error=f"tool input must be an object, got {type(block.input).__name__}")


# ---------------------------------------------------------------- the adapter


class AnthropicAPI(ModelAPI):
    """Claude through the Messages API."""

    provider = "anthropic"

    def __init__(
        self, model: str, *, api_key_env: str = "ANTHROPIC_API_KEY", base_url: str | None = None, http_backend: HttpBackend = DEFAULT_BACKEND
    ) -> None:
        super().__init__(model)
        self._sdk = import_sdk("anthropic")
        http_client = pooled_http_client(self._sdk, http_backend)  # per-request cost flat in the number in flight
        self._client: AsyncAnthropic = self._sdk.AsyncAnthropic(api_key=read_api_key(api_key_env), base_url=base_url, max_retries=0, http_client=http_client)
        self._warned_sampling = False

    def request_params(self, messages: Sequence[ChatMessage], tools: Sequence[ToolSpec], config: GenerateConfig) -> dict[str, Any]:
        """The keyword arguments for `messages.create` (separate so it can be inspected)."""
        self._warn_unsupported_sampling(config)
        params: dict[str, Any] = {
            "model": self.model,
            "max_tokens": config.max_tokens if config.max_tokens is not None else DEFAULT_MAX_TOKENS,
            "messages": to_anthropic_messages(messages),
        }
        system = system_prompt(messages)
        if system:
            params["system"] = system
        if tools:
            params["tools"] = to_anthropic_tools(tools)
            params["tool_choice"] = to_anthropic_tool_choice(config.tool_choice, tools)
        return params

    def _warn_unsupported_sampling(self, config: GenerateConfig) -> None:
        ignored = [name for name in ("temperature", "top_p", "seed") if getattr(config, name) is not None]
        if ignored and not self._warned_sampling:
            self._warned_sampling = True
            log.warning("%s: the Anthropic API (2026-10-21) has no %s; not sent", self.name, "/".join(ignored))

    async def generate(self, messages: Sequence[ChatMessage], tools: Sequence[ToolSpec], config: GenerateConfig) -> ModelOutput:
        message = await self._client.messages.create(**self.request_params(messages, tools, config))
        if not isinstance(getattr(message, "content", None), list) or getattr(message, "usage", None) is None:
            raise ProviderProtocolError(f"the response is not a message (got {type(message).__name__} without content)")
        return parse_message(message, message.model or self.name)

    def classify_error(self, error: BaseException) -> RetryDecision:
        sdk = self._sdk
        if any(isinstance(error, cls) for cls in self._sdk_classes(_SPEND_LIMIT_ERRORS)):
            return RetryDecision("fatal", reason="spend limit reached", category="auth")
        if self._is_overloaded(error):
            return RetryDecision("transient", retry_after=retry_after_seconds(response_headers(error)), reason="overloaded (529)", category="rate_limit")
        return classify_stainless_error(sdk, error) or FATAL

    def _is_overloaded(self, error: BaseException) -> bool:
        """529: `OverloadedError` in SDKs that have it, else any status error carrying 529."""
        if any(isinstance(error, cls) for cls in self._sdk_classes(("OverloadedError",))):
            return True
        return isinstance(error, self._sdk.APIStatusError) and error.status_code == OVERLOADED_STATUS

    def _sdk_classes(self, names: Sequence[str]) -> list[type]:
        """The named exception classes this SDK version defines (older versions lack some)."""
        return [cls for name in names if isinstance(cls := getattr(self._sdk, name, None), type)]

    async def aclose(self) -> None:
        await self._client.close()
