"""Provider-neutral message, tool and output types. Providers translate to and from these."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

Role = Literal["agent", "router", "user", "judge"]
"""Model roles: the agent under test, its router (the same model in the reference scaffold), the user
simulator and the semantic judge. Usage is summed per role."""


class ToolSpec(BaseModel):
    name: str
    description: str = ""
    parameters: dict[str, Any] = Field(default_factory=lambda: {"type": "object", "properties": {}})


class ToolCall(BaseModel):
    id: str
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    parse_error: str | None = Field(default=None, description="Set when the model's arguments were not a JSON object.")


class ChatMessage(BaseModel):
    role: Literal["system", "user", "assistant", "tool"]
    content: str = ""
    tool_calls: list[ToolCall] = Field(default_factory=list)
    tool_call_id: str | None = None
    name: str | None = None


class Usage(BaseModel):
    prompt_tokens: int = 0
    completion_tokens: int = 0
    calls: int = 0
    failed_calls: int = Field(default=0, description="Attempts that failed (retried or not): no tokens, but real requests.")
    latency_s: float = 0.0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
            calls=self.calls + other.calls,
            failed_calls=self.failed_calls + other.failed_calls,
            latency_s=round(self.latency_s + other.latency_s, 6),
        )


class GenerateConfig(BaseModel):
    """Sampling settings. Recorded in the run manifest; `None` means the provider default."""

    temperature: float | None = None
    top_p: float | None = None
    max_tokens: int | None = None
    seed: int | None = None
    tool_choice: Literal["auto", "required", "none"] | str = "auto"
    """`auto`, `required`, `none`, or the name of one tool the model must call."""
    timeout_s: float = 120.0


class ModelOutput(BaseModel):
    text: str = ""
    tool_calls: list[ToolCall] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)
    stop_reason: str | None = None
    model: str = ""

    def as_message(self) -> ChatMessage:
        return ChatMessage(role="assistant", content=self.text, tool_calls=self.tool_calls)
