"""The one small protocol every agent under test implements.

An agent is started once per trial with a `TrialSession`, then asked to `respond` to each user message
with one visible reply. Where its tools come from is up to it: in-process agents use `session.tools`
(an MCP client bound to the trial), agents living elsewhere (any MCP-capable framework) connect to
`session.mcp_url`. Either way every tool call goes through the gateway, which records it: the grader
never trusts what an agent says it did.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from fastmcp import Client
from pydantic import BaseModel, Field

from contracts.evidence import RoutingDecision
from servers.gateway import TRIAL_META_KEY


class AgentReply(BaseModel):
    text: str
    routing: list[RoutingDecision] = Field(default_factory=list)
    hallucinated_tools: list[str] = Field(default_factory=list)
    """Tools the model called that were not exposed to it this turn (model-attributable diagnostics)."""
    notes: list[str] = Field(default_factory=list)


class TrialTools:
    """An MCP client bound to one trial: `list_tools` and `call_tool` as the agent's tool surface."""

    def __init__(self, client: Client, trial_id: str) -> None:
        self._client = client
        self.trial_id = trial_id

    async def list_tools(self) -> list[Any]:
        return list(await self._client.list_tools())

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> Any:
        """Returns the MCP CallToolResult; errors come back as results with `is_error`, never raise."""
        return await self._client.call_tool(name, arguments, raise_on_error=False, meta={TRIAL_META_KEY: self.trial_id})


@dataclass
class TrialSession:
    trial_id: str
    domain: str
    task_id: str
    seed: int
    tools: TrialTools
    expose: Callable[[Sequence[str] | None], None]
    """Set the tools the gateway exposes for the rest of the current turn (None = all)."""
    mcp_url: str | None = None
    """Streamable-HTTP endpoint of this trial, when the run serves HTTP (for external agents)."""
    mcp_headers: dict[str, str] = field(default_factory=dict)


@runtime_checkable
class Agent(Protocol):
    name: str

    async def start(self, session: TrialSession) -> None: ...

    async def respond(self, user_message: str, turn: int) -> AgentReply: ...

    async def stop(self) -> None: ...


AgentFactory = Callable[[Any], "Agent | Awaitable[Agent]"]
"""Builds a fresh agent for a task (agents hold per-trial state)."""
