"""pydantic-ai as an agent under test: a `pydantic_ai.Agent` with an `MCPToolset` pointed at the trial's
streamable-HTTP endpoint. It sees every domain tool (no per-turn routing: that is the reference agent's
design, not the benchmark's), gets the domain policy from the server's MCP instructions, and every call
it makes is recorded by the gateway like any other agent's.

Failure classes: pydantic-ai giving up on the model (tool retries exhausted, usage limits, context
window, unexpected model behaviour) scores 0; provider outages after retries are ⊥ (`provider_timeout`
when the provider did not answer within the per-call timeout); an unknown model stops the run; anything
else it raises is `agent_error` (scores 0); see `harness.adapters.errors` and docs/guarantees.md.

Models named `provider:model` that this project's registry serves over the OpenAI API (openai, vllm,
ollama, llamacpp, openrouter) are built here, on the same endpoints as the built-in agent, with an HTTP
client that counts every request and a per-call timeout of the trial's share (`TrialSession.call_timeout_s`).
Usage (input/output tokens, requests; failed requests as `failed_calls`) goes to the trial's `agent`
ledger on every outcome, failures included.

Install with `uv sync --extra frameworks` (or `pip install 'crm-agent-bench[frameworks]'`).
"""

from __future__ import annotations

from typing import Any

from contracts.evidence import RoutingDecision
from contracts.graph import GraphConfig
from harness.adapters.errors import classify
from harness.adapters.provider_http import RequestCounter, openai_compatible
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


def _usage(used: Any, sent: int | None) -> Usage:
    """pydantic-ai's `RunUsage` as ours; requests the HTTP client saw beyond those it reports are failed."""
    requests = getattr(used, "requests", 0) or 0
    failed = max((sent or 0) - requests, 0) if sent is not None else 0
    return Usage(prompt_tokens=getattr(used, "input_tokens", 0) or 0, completion_tokens=getattr(used, "output_tokens", 0) or 0, calls=requests, failed_calls=failed)


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
        self._counter: RequestCounter | None = None
        self._settings: dict[str, Any] = {}

    @classmethod
    def from_model_name(cls, model: Any, graph: GraphConfig, **options: Any) -> PydanticAIAgent:
        return cls(model, graph.system_prompt.strip(), **options)

    def _build_model(self, timeout_s: float | None) -> Any:
        """Our registry's OpenAI-compatible names become an `OpenAIChatModel` on a counting client; any
        other string is left to pydantic-ai (an unknown one is a configuration error: the run stops)."""
        if not isinstance(self.model, str):
            return self.model
        resolved = openai_compatible(self.model) if ":" in self.model else None
        if resolved is None:
            return self.model
        from pydantic_ai.models.openai import OpenAIChatModel
        from pydantic_ai.providers.openai import OpenAIProvider

        name, base_url, key = resolved
        self._counter = RequestCounter()
        provider = OpenAIProvider(base_url=base_url, api_key=key, http_client=self._counter.client(timeout_s))
        return OpenAIChatModel(name, provider=provider)

    async def start(self, session: TrialSession) -> None:
        pydantic_ai = _import()
        if not session.mcp_url:
            raise ConfigurationError("the pydantic-ai adapter needs the run to serve HTTP")
        extra = {} if self.max_retries is None else {"max_retries": self.max_retries}
        if session.call_timeout_s:
            self._settings = {"timeout": session.call_timeout_s}
        try:
            model = self._build_model(session.call_timeout_s)
            self._toolset = pydantic_ai.mcp.MCPToolset(session.mcp_url, headers=dict(session.mcp_headers), include_instructions=True, **extra)
            self._agent = pydantic_ai.Agent(model, toolsets=[self._toolset], instructions=self.instructions)
            await self._agent.__aenter__()
        except Exception as exc:  # noqa: BLE001 - e.g. `UserError: Unknown model` stops the run, as documented
            raise map_error(exc) from exc

    async def respond(self, user_message: str, turn: int) -> AgentReply:
        from pydantic_ai.usage import RunUsage

        used = RunUsage()  # updated in place by the run: what it spent is known even when it fails
        sent_before = self._counter.sent if self._counter else None
        try:
            result = await self._agent.run(user_message, message_history=self._history, usage=used, model_settings=self._settings or None)
        except Exception as exc:  # noqa: BLE001 - mapped to a failure class, or re-raised as is
            mapped = map_error(exc)
            spent = _usage(used, None if sent_before is None or self._counter is None else self._counter.sent - sent_before)
            mapped.usage = spent  # type: ignore[union-attr] - `AgentFailure.usage`, or charged to ⊥ alike (`harness.runner.trial._charge`)
            raise mapped from exc
        self._history = list(result.all_messages())
        usage = _usage(used, None if sent_before is None or self._counter is None else self._counter.sent - sent_before)
        return AgentReply(text=str(result.output), routing=[RoutingDecision(turn=turn, node="pydantic-ai", reason="unrouted framework agent")], usage=usage)

    async def stop(self) -> None:
        try:
            if self._agent is not None:
                await self._agent.__aexit__(None, None, None)
        finally:
            self._agent = self._toolset = None
            if self._counter is not None:
                await self._counter.aclose()
