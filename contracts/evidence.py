"""The frozen evidence of one trial: what the gateway recorded and what the user saw.

These models are the boundary between the runtime (gateway, agents) and the grader: the grader reads
nothing else. They live in `contracts` so both sides import them without depending on each other.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field, field_validator

from contracts.text import ERROR_MAX_CHARS, REPLY_MAX_CHARS, safe_text, safe_value

CallStatus = Literal["executed", "refused", "tool_error", "blocked", "unknown_tool"]
"""How a tool call ended at the gateway.

- executed: reached the tool and succeeded;
- refused: reached the tool and returned a structured business refusal (still an executed attempt);
- tool_error: reached the gateway but was invalid (malformed arguments, unknown id, or arguments no client can
  send, refused before the wire and recorded all the same): never counts;
- blocked: the tool exists but was not exposed this turn, so the call was not forwarded;
- unknown_tool: no such tool (a hallucinated name).
"""

EXECUTED_STATUSES: frozenset[str] = frozenset({"executed", "refused"})


class ToolCallRecord(BaseModel):
    seq: int = Field(description="Order of arrival within the trial, from 0.")
    turn: int = Field(description="User-turn index the call happened in, from 0.")
    tool: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    status: CallStatus
    result: Any = None
    error: str | None = None
    latency_ms: float = 0.0

    @field_validator("arguments", "result", mode="after")
    @classmethod
    def _safe_payload(cls, value: Any) -> Any:
        """Tool arguments and results are untrusted: made safe (text, size) before they are stored."""
        return safe_value(value)

    @field_validator("tool", mode="after")
    @classmethod
    def _safe_name(cls, value: str) -> str:
        return safe_text(value, 200)

    @field_validator("error", mode="after")
    @classmethod
    def _safe_error(cls, value: str | None) -> str | None:
        return None if value is None else safe_text(value, ERROR_MAX_CHARS)

    @property
    def executed(self) -> bool:
        """Reached the tool as a well-formed call (a refusal counts as an attempt, not as a done action)."""
        return self.status in EXECUTED_STATUSES

    @property
    def succeeded(self) -> bool:
        return self.status == "executed"


class Message(BaseModel):
    role: Literal["user", "assistant"]
    content: str
    turn: int

    @field_validator("content", mode="after")
    @classmethod
    def _safe_content(cls, value: str) -> str:
        """Replies come from models: made safe (no lone surrogates or control characters, capped with a
        visible marker) before they are stored, shown to the user simulator, judged or reported."""
        return safe_text(value, REPLY_MAX_CHARS)


class RoutingDecision(BaseModel):
    turn: int
    node: str
    reason: str = ""

    @field_validator("node", "reason", mode="after")
    @classmethod
    def _safe(cls, value: str) -> str:
        return safe_text(value, 2_000)


class Evidence(BaseModel):
    """The four evidence channels the grader is allowed to read, plus the initial state for diffs."""

    conversation: list[Message] = Field(default_factory=list)
    routing: list[RoutingDecision] = Field(default_factory=list)
    tool_trace: list[ToolCallRecord] = Field(default_factory=list)
    initial_state: dict[str, Any] = Field(default_factory=dict)
    final_state: dict[str, Any] = Field(default_factory=dict)

    def executed_calls(self) -> list[ToolCallRecord]:
        """Well-formed calls that reached the tool: successes and business refusals (attempts)."""
        return [c for c in self.tool_trace if c.executed]

    def successful_calls(self) -> list[ToolCallRecord]:
        """Calls that reached the tool and succeeded: what spec A.2 counts as a done action."""
        return [c for c in self.tool_trace if c.status == "executed"]

    def hallucinated_calls(self) -> list[ToolCallRecord]:
        """Calls to a tool that does not exist or was not exposed that turn (model-attributable)."""
        return [c for c in self.tool_trace if c.status in ("unknown_tool", "blocked")]

    def assistant_messages(self) -> list[str]:
        return [m.content for m in self.conversation if m.role == "assistant"]
