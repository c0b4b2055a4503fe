"""Offline scripted models: outputs given as a list, a generator or a callable; text or tool calls, with
usage. They drive the agent, router, simulator and judge in tests without any network."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

import anyio

from models.base import ModelAPI
from models.types import ChatMessage, GenerateConfig, ModelOutput, ToolCall, ToolSpec, Usage

Script = Sequence["ModelOutput | str"] | Iterator["ModelOutput | str"] | Callable[[Sequence[ChatMessage], Sequence[ToolSpec]], "ModelOutput | str"]

_ids = itertools.count()


def text(content: str, *, prompt_tokens: int = 10, completion_tokens: int = 5) -> ModelOutput:
    return ModelOutput(text=content, usage=Usage(prompt_tokens=prompt_tokens, completion_tokens=completion_tokens, calls=1), stop_reason="stop")


def tool_call(name: str, /, _text: str = "", **arguments: Any) -> ModelOutput:
    """An output that calls one tool (use `calls()` for several in one step)."""
    return calls((name, arguments), text=_text)


def calls(*pairs: tuple[str, dict[str, Any]], text: str = "", prompt_tokens: int = 10, completion_tokens: int = 5) -> ModelOutput:
    return ModelOutput(
        text=text,
        tool_calls=[ToolCall(id=f"call_{next(_ids)}", name=name, arguments=args) for name, args in pairs],
        usage=Usage(prompt_tokens=prompt_tokens, completion_tokens=completion_tokens, calls=1),
        stop_reason="tool_calls",
    )


class ScriptExhausted(RuntimeError):
    pass


class ScriptedModel(ModelAPI):
    """Plays a script. `latency_s` sleeps per call (for overhead benchmarks). Records what it was asked."""

    provider = "mock"

    def __init__(
        self, script: Script, *, model: str = "scripted", latency_s: float = 0.0, keep_requests: bool = True, draw_latency: Callable[[], float] | None = None
    ) -> None:
        """`keep_requests=False` keeps no history of requests (long benchmark runs). `draw_latency`, when
        given, is each call's latency instead of the constant `latency_s` (`models.latency.Latency.sampler`)."""
        super().__init__(model)
        self.draw_latency = draw_latency
        self.keep_requests = keep_requests
        self._callable = script if callable(script) else None
        self._iter: Iterator[ModelOutput | str] | None = None if callable(script) else iter(script)  # type: ignore[arg-type]
        self.latency_s = latency_s
        self.requests: list[tuple[list[ChatMessage], list[ToolSpec], GenerateConfig]] = []

    async def generate(self, messages: Sequence[ChatMessage], tools: Sequence[ToolSpec], config: GenerateConfig) -> ModelOutput:
        if self.keep_requests:
            self.requests.append((list(messages), list(tools), config))
        delay = self.draw_latency() if self.draw_latency is not None else self.latency_s
        if delay:
            await anyio.sleep(delay)
        if self._callable is not None:
            out = self._callable(messages, tools)
        else:
            assert self._iter is not None
            try:
                out = next(self._iter)
            except StopIteration:
                raise ScriptExhausted(f"scripted model {self.model!r} ran out of outputs after {len(self.requests) - 1} call(s)") from None
        return text(out) if isinstance(out, str) else out


def scripted(outputs: Iterable[ModelOutput | str] | Callable[..., ModelOutput | str], **kwargs: Any) -> ScriptedModel:
    return ScriptedModel(outputs if callable(outputs) else list(outputs), **kwargs)  # type: ignore[arg-type]
