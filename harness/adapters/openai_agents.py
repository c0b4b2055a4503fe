"""The OpenAI Agents SDK as an agent under test: an `agents.Agent` whose tools come from the trial's MCP
endpoint (`agents.mcp.MCPServerStreamableHttp`), with the domain policy read over MCP from the server's
`crmbench://policy` resource. Like every agent, its calls are recorded by the gateway.

`--agent openai-agents --agent-model openai:gpt-5-mini` (OpenAI models; for any other model, build the
adapter in Python with an `agents` Model object and pass it as `agent_factory`). Options
(`--agent-config`): `max_turns` (model calls per user turn, default 10).

Failure classes: `MaxTurnsExceeded`, `ModelBehaviorError` (e.g. a call to a tool that does not exist,
malformed arguments), refusals and guardrail trips score 0; connection errors, timeouts, 429 and 5xx
after the SDK's retries are ⊥ (`provider_timeout` for a model call that did not answer within the
per-call timeout, `ModelSettings.timeout` = the trial's share); authentication and unknown-model errors
stop the run; anything else it raises is `agent_error` (scores 0). Usage up to a failure is kept (the
SDK's `run_data`), and with a model name every request the SDK sends is counted on our HTTP client.

Install with `uv sync --extra frameworks` (or `pip install 'crm-agent-bench[frameworks]'`).
"""

from __future__ import annotations

from typing import Any

from contracts.evidence import RoutingDecision
from contracts.graph import GraphConfig
from harness.adapters.errors import classify
from harness.adapters.provider_http import RequestCounter
from models.base import ConfigurationError
from models.types import Usage
from orchestrator.protocol import AgentReply, TrialSession
from servers.tool_derivation import POLICY_URI

MODEL_FAILURES = {
    "MaxTurnsExceeded": "max_turns",
    "ModelBehaviorError": "invalid_tool_calls",
    "ModelRefusalError": "refusal",
    "InputGuardrailTripwireTriggered": "guardrail",
    "OutputGuardrailTripwireTriggered": "guardrail",
    "ToolInputGuardrailTripwireTriggered": "guardrail",
    "ToolOutputGuardrailTripwireTriggered": "guardrail",
    "ContentFilterFinishReasonError": "content_filter",
}
INFRASTRUCTURE = ("ModelTimeoutError", "APIConnectionError", "APITimeoutError", "RateLimitError", "InternalServerError")
CONFIGURATION = ("AuthenticationError", "PermissionDeniedError", "NotFoundError", "UserError")


def _import() -> Any:
    try:
        import agents
        import agents.mcp
    except ImportError:
        raise ConfigurationError("the openai-agents adapter needs openai-agents: install it with `uv sync --extra frameworks`") from None
    return agents


def map_error(exc: Exception) -> BaseException:
    return classify(exc, model=MODEL_FAILURES, infrastructure=INFRASTRUCTURE, configuration=CONFIGURATION)


def _usage(used: Any, sent: int | None) -> Usage:
    requests = getattr(used, "requests", 0) or 0
    failed = max((sent or 0) - requests, 0) if sent is not None else 0
    return Usage(prompt_tokens=getattr(used, "input_tokens", 0) or 0, completion_tokens=getattr(used, "output_tokens", 0) or 0, calls=requests, failed_calls=failed)


def _failure_usage(exc: BaseException) -> Any:
    """The SDK's usage up to the failure (`AgentsException.run_data`), if it kept one."""
    data = getattr(exc, "run_data", None)
    return getattr(getattr(data, "context_wrapper", None), "usage", None)


class OpenAIAgentsAgent:
    name = "openai-agents"
    needs_mcp_url = True

    def __init__(self, model: Any, instructions: str, *, max_turns: int = 10) -> None:
        """`model`: a model name the SDK accepts (e.g. 'gpt-5-mini') or an `agents.models.interface.Model`."""
        self.model = model
        self.instructions = instructions
        self.max_turns = max_turns
        self._server: Any = None
        self._agent: Any = None
        self._history: list[Any] = []
        self._counter: RequestCounter | None = None
        self._run_config: Any = None

    @classmethod
    def from_model_name(cls, model: Any, graph: GraphConfig, **options: Any) -> OpenAIAgentsAgent:
        if isinstance(model, str):
            provider, _, name = model.partition(":")
            if provider != "openai" or not name:
                raise ConfigurationError(f"--agent openai-agents takes openai:<model>, not {model!r} (pass an agents Model via agent_factory for others)")
            model = name
        return cls(model, graph.system_prompt.strip(), **options)

    async def start(self, session: TrialSession) -> None:
        try:
            await self._start(session)
        except Exception as exc:  # noqa: BLE001 - a bad key or model stops the run; a mapped outage is ⊥
            raise map_error(exc) from exc

    def _provider(self, timeout_s: float | None) -> Any:
        """For a model *name*: the SDK's OpenAI provider on our counting HTTP client (every request,
        retries included, reaches the ledger)."""
        if not isinstance(self.model, str):
            return None
        import os

        import openai
        from agents.models.openai_provider import OpenAIProvider

        self._counter = RequestCounter()
        client = openai.AsyncOpenAI(
            api_key=os.environ.get("OPENAI_API_KEY") or None, base_url=os.environ.get("OPENAI_BASE_URL") or None, http_client=self._counter.client(timeout_s)
        )
        return OpenAIProvider(openai_client=client)

    async def _start(self, session: TrialSession) -> None:
        agents = _import()
        if not session.mcp_url:
            raise ConfigurationError("the openai-agents adapter needs the run to serve HTTP")
        agents.set_tracing_disabled(True)  # no network export of traces
        provider = self._provider(session.call_timeout_s)
        self._run_config = agents.RunConfig(model_provider=provider) if provider is not None else None
        self._server = agents.mcp.MCPServerStreamableHttp(
            {"url": session.mcp_url, "headers": dict(session.mcp_headers)},
            name=f"crmbench-{session.domain}",
            cache_tools_list=True,
            client_session_timeout_seconds=60,
            use_structured_content=True,
        )
        await self._server.connect()
        policy = await self._read_policy(session)
        instructions = self.instructions + (f"\n\n<policy>\n{policy}\n</policy>" if policy else "")
        settings = agents.ModelSettings(timeout=session.call_timeout_s) if session.call_timeout_s else agents.ModelSettings()
        self._agent = agents.Agent(name=self.name, instructions=instructions, model=self.model, mcp_servers=[self._server], model_settings=settings)

    async def _read_policy(self, session: TrialSession) -> str:
        """The domain policy, read over MCP (the server's resource); the task view's copy if that fails."""
        try:
            result = await self._server.read_resource(POLICY_URI)
            return "\n".join(getattr(c, "text", "") for c in result.contents).strip()
        except Exception:  # noqa: BLE001 - an older server without the resource
            return session.task.policy if session.task else ""

    async def respond(self, user_message: str, turn: int) -> AgentReply:
        agents = _import()
        conversation = [*self._history, {"role": "user", "content": user_message}]
        sent_before = self._counter.sent if self._counter else None
        extra = {"run_config": self._run_config} if self._run_config is not None else {}
        try:
            result = await agents.Runner.run(self._agent, conversation, max_turns=self.max_turns, **extra)
        except Exception as exc:  # noqa: BLE001 - mapped to a failure class, or re-raised as is
            mapped = map_error(exc)
            sent = None if sent_before is None or self._counter is None else self._counter.sent - sent_before
            spent = _usage(_failure_usage(exc), sent)
            mapped.usage = spent  # type: ignore[union-attr] - `AgentFailure.usage`, or charged to ⊥ alike (`harness.runner.trial._charge`)
            raise mapped from exc
        self._history = result.to_input_list()
        sent = None if sent_before is None or self._counter is None else self._counter.sent - sent_before
        usage = _usage(result.context_wrapper.usage, sent)
        return AgentReply(
            text=str(result.final_output), routing=[RoutingDecision(turn=turn, node="openai-agents", reason="unrouted framework agent")], usage=usage
        )

    async def stop(self) -> None:
        try:
            if self._server is not None:
                await self._server.cleanup()
        finally:
            self._server = self._agent = None
            if self._counter is not None:
                await self._counter.aclose()
