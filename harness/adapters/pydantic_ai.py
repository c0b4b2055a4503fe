"""pydantic-ai as an agent under test: a `pydantic_ai.Agent` with an `MCPToolset` pointed at the trial's
streamable-HTTP endpoint. It sees every domain tool (no per-turn routing: that is the reference agent's
design, not the benchmark's), and every call it makes is recorded by the gateway like any other agent's.

Install with `uv sync --extra frameworks`.
"""

from __future__ import annotations

from typing import Any

from contracts.evidence import RoutingDecision
from contracts.graph import GraphConfig
from models.base import ConfigurationError
from orchestrator.graph_agent import domain_policy
from orchestrator.protocol import AgentReply, TrialSession


def _import() -> Any:
    try:
        import pydantic_ai
        import pydantic_ai.mcp
    except ImportError:
        raise ConfigurationError("the pydantic-ai adapter needs pydantic-ai: install it with `uv sync --extra frameworks`") from None
    return pydantic_ai


class PydanticAIAgent:
    name = "pydantic-ai"

    def __init__(self, model: Any, instructions: str) -> None:
        """`model` is anything `pydantic_ai.Agent` accepts: a name like 'openai:gpt-5-mini' or a Model."""
        self.model = model
        self.instructions = instructions
        self._agent: Any = None
        self._toolset: Any = None
        self._history: list[Any] = []

    @classmethod
    def from_model_name(cls, model: Any, graph: GraphConfig) -> PydanticAIAgent:
        policy = domain_policy(graph.domain)
        return cls(model, f"{graph.system_prompt.strip()}\n\n<policy>\n{policy.strip()}\n</policy>")

    async def start(self, session: TrialSession) -> None:
        pydantic_ai = _import()
        if not session.mcp_url:
            raise ConfigurationError("the pydantic-ai adapter needs the run to serve HTTP (serve_http)")
        self._toolset = pydantic_ai.mcp.MCPToolset(session.mcp_url, headers=dict(session.mcp_headers))
        self._agent = pydantic_ai.Agent(self.model, toolsets=[self._toolset], instructions=self.instructions)
        await self._agent.__aenter__()

    async def respond(self, user_message: str, turn: int) -> AgentReply:
        result = await self._agent.run(user_message, message_history=self._history)
        self._history = list(result.all_messages())
        return AgentReply(text=str(result.output), routing=[RoutingDecision(turn=turn, node="pydantic-ai", reason="unrouted framework agent")])

    async def stop(self) -> None:
        if self._agent is not None:
            await self._agent.__aexit__(None, None, None)
        self._agent = self._toolset = None
