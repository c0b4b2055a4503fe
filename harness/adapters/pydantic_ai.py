"""pydantic-ai as an agent under test: a `pydantic_ai.Agent` with an `MCPToolset` pointed at the trial's
streamable-HTTP endpoint. It sees every domain tool (no per-turn routing: that is the reference agent's
design, not the benchmark's), gets the domain policy from the server's MCP instructions, and every call
it makes is recorded by the gateway like any other agent's.

Failure classes: pydantic-ai giving up on the model (tool retries exhausted, usage limits, context
window, unexpected model behaviour) scores 0; provider outages after retries are ⊥; see
`harness.adapters.errors`. Usage (input/output tokens, requests) goes to the trial's `agent` ledger.

Install with `uv sync --extra frameworks` (or `pip install 'crm-agent-bench[frameworks]'`).
"""

from __future__ import annotations

from typing import Any

from contracts.evidence import RoutingDecision
from contracts.graph import GraphConfig
from harness.adapters.errors import classify
from models.base import ConfigurationError
from models.types import Usage
from orchestrator.protocol import AgentReply, TrialSession

MODEL_FAILURES = {
    "UsageLimitExceeded": "usage_limit",
    "ModelContextWindowExceededError": "context_window",
    "OutputTokenLimitExceeded": "output_token_limit",
    "ToolRetryError": "invalid_tool_calls",
    "IncompleteToolCall": "invalid_tool_calls",
    "ContentFilterError": "content_filter",
    "UnexpectedModelBehavior": "unexpected_model_behavior",
}
INFRASTRUCTURE = (
    "ModelConnectionError",
    "ModelTimeoutError",
    "ModelRequestTimeout",
    "ModelServerError",
    "ModelOverloadedError",
    "ModelUnavailableError",
    "ModelRateLimitError",
    "FallbackExceptionGroup",
)
CONFIGURATION = ("ModelAuthenticationError", "ModelNotFoundError", "ModelQuotaExceededError", "UserError")


def _import() -> Any:
    try:
        import pydantic_ai
        import pydantic_ai.mcp
    except ImportError:
        raise ConfigurationError("the pydantic-ai adapter needs pydantic-ai: install it with `uv sync --extra frameworks`") from None
    return pydantic_ai


def map_error(exc: Exception) -> BaseException:
    mapped = classify(exc, model=MODEL_FAILURES, infrastructure=INFRASTRUCTURE, configuration=CONFIGURATION)
    if type(exc).__name__ == "UnexpectedModelBehavior" and "retries" in str(exc).lower():
        mapped = classify(exc, model={"UnexpectedModelBehavior": "invalid_tool_calls"})
    return mapped


class PydanticAIAgent:
    name = "pydantic-ai"
    needs_mcp_url = True

    def __init__(self, model: Any, instructions: str, *, max_retries: int | None = None) -> None:
        """`model` is anything `pydantic_ai.Agent` accepts: a name like 'openai:gpt-5-mini' or a Model.
        The domain policy arrives with the MCP server's instructions."""
        self.model = model
        self.instructions = instructions
        self.max_retries = max_retries
        self._agent: Any = None
        self._toolset: Any = None
        self._history: list[Any] = []

    @classmethod
    def from_model_name(cls, model: Any, graph: GraphConfig, **options: Any) -> PydanticAIAgent:
        return cls(model, graph.system_prompt.strip(), **options)

    async def start(self, session: TrialSession) -> None:
        pydantic_ai = _import()
        if not session.mcp_url:
            raise ConfigurationError("the pydantic-ai adapter needs the run to serve HTTP")
        extra = {} if self.max_retries is None else {"max_retries": self.max_retries}
        self._toolset = pydantic_ai.mcp.MCPToolset(session.mcp_url, headers=dict(session.mcp_headers), include_instructions=True, **extra)
        self._agent = pydantic_ai.Agent(self.model, toolsets=[self._toolset], instructions=self.instructions)
        await self._agent.__aenter__()

    async def respond(self, user_message: str, turn: int) -> AgentReply:
        try:
            result = await self._agent.run(user_message, message_history=self._history)
        except Exception as exc:  # noqa: BLE001 - mapped to a failure class, or re-raised as is
            raise map_error(exc) from exc
        self._history = list(result.all_messages())
        used = result.usage  # a property in pydantic-ai ≥ 2.6x, a method before
        if not hasattr(used, "input_tokens"):
            used = used()
        usage = Usage(prompt_tokens=used.input_tokens or 0, completion_tokens=used.output_tokens or 0, calls=used.requests or 0)
        return AgentReply(text=str(result.output), routing=[RoutingDecision(turn=turn, node="pydantic-ai", reason="unrouted framework agent")], usage=usage)

    async def stop(self) -> None:
        if self._agent is not None:
            await self._agent.__aexit__(None, None, None)
        self._agent = self._toolset = None
