"""The one small protocol every agent under test implements.

An agent is started once per trial with a `TrialSession`, then asked to `respond` to each user message
with one visible reply. Where its tools come from is up to it: in-process agents use `session.tools`
(the trial's tools: the gateway's lean path in `crmbench run`, or an MCP client bound to the trial), agents living elsewhere (any MCP-capable framework) connect to
`session.mcp_url`. Either way every tool call goes through the gateway, which records it: the grader
never trusts what an agent says it did.

The runtime calls `start`, every `respond` and `stop` from one and the same task, so an agent may open an
async context (an MCP client, a task group) in `start` and close it in `stop`.

Failure classes: an agent raises `AgentFailure` when its *model* made it give up (invalid tool calls until
the framework stopped retrying, a usage or turn limit, unparseable output): the trial scores 0 and stays in
the denominator. Only the harness's own observations make a trial ⊥ (a provider outage seen by
`models.Model` or mapped by a framework adapter, a judge failure, a crash of this project's code): any
other exception an agent raises is the agent's failure (`model:agent_error`, scores 0, in the denominator).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from pydantic import BaseModel, Field

from contracts.evidence import RoutingDecision
from models.types import Usage
from servers.calls import RecordUnsent, unsendable, unsendable_result
from servers.recorder import TRIAL_META_KEY, bind_trial

if TYPE_CHECKING:  # the MCP client stack is imported only where a client is made
    from fastmcp import Client

if TYPE_CHECKING:  # only an annotation here: the MCP client stack (~0.5-1 s of imports) is not needed to serve
    from fastmcp import Client


class AgentFailure(RuntimeError):
    """The agent gave up because of what its model did: model-attributable, scores 0 (never ⊥).

    `kind` is a short label recorded as the trial's failure class `model:<kind>` (e.g.
    `invalid_tool_calls`, `usage_limit`, `invalid_output`)."""

    def __init__(self, kind: str, message: str, *, usage: Usage | None = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.usage = usage
        """Model usage of the failed turn that did not go through `models.Model` (a framework's own
        token counts up to the failure): added to the trial's ledger, so giving up costs what it cost."""


@dataclass(frozen=True)
class ToolInfo:
    name: str
    description: str
    kind: str
    """`read`, `write` or `compute`."""
    input_schema: dict[str, Any]


@dataclass(frozen=True)
class TaskView:
    """What an agent under test may know about its task before the user speaks: the domain, its tools
    and its policy. Never the user's instruction, the contract, the gold path or the task id (which names
    the scenario)."""

    domain: str
    tools: tuple[ToolInfo, ...]
    policy: str
    instructions: str
    """The domain server's own instructions (also served over MCP as the server instructions)."""

    def tool_names(self) -> list[str]:
        return [t.name for t in self.tools]


class AgentReply(BaseModel):
    text: str
    routing: list[RoutingDecision] = Field(default_factory=list)
    hallucinated_tools: list[str] = Field(default_factory=list)
    """Tools the model called that were not exposed to it this turn (model-attributable diagnostics)."""
    notes: list[str] = Field(default_factory=list)
    usage: Usage | None = None
    """Model usage this turn that did not go through `models.Model` (framework adapters report their
    framework's token counts here); added to the trial's ledger under the `agent` role."""


@runtime_checkable
class ToolSurface(Protocol):
    """An in-process agent's tools (`session.tools`): the trial's exposed tools as `mcp_types.Tool`s, and
    calls that return a `fastmcp.client.CallToolResult` (errors come back with `is_error`, never raised).
    Two implementations give the same answers: `TrialTools` over an MCP client, and the gateway's lean
    `servers.gateway.GatewayTools` that `crmbench run` uses (no JSON-RPC round trip per call)."""

    trial_id: str

    async def list_tools(self) -> list[Any]: ...

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> Any: ...


class TrialTools:
    """An MCP client bound to one trial: `list_tools` and `call_tool` as the agent's tool surface."""

    def __init__(self, client: Client, trial_id: str, record_unsent: RecordUnsent) -> None:
        self._client = client
        self.trial_id = trial_id
        self._record_unsent = record_unsent

    async def list_tools(self) -> list[Any]:
        """The tools exposed to this trial now (the gateway filters `tools/list` by the turn's exposure)."""
        with bind_trial(self.trial_id):  # `tools/list` carries no `_meta`: name the trial in-process
            return list(await self._client.list_tools())

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> Any:
        """Returns the MCP CallToolResult; errors come back as results with `is_error`, never raise.
        Arguments no client can send (non-finite numbers, absurd nesting) come back as an error result,
        as the HTTP parser refuses them, instead of an encoder exception inside the agent; they are
        recorded in the trial's trace through `record_unsent` (`Gateway.record_unsent`): the server
        never sees them, the trace holds them all the same."""
        problem = unsendable(arguments)
        if problem:
            await self._record_unsent(self.trial_id, name, arguments, problem)
            return unsendable_result(problem)
        return await self._client.call_tool(name, arguments, raise_on_error=False, meta={TRIAL_META_KEY: self.trial_id})


@dataclass
class TrialSession:
    trial_id: str
    domain: str
    seed: int
    tools: ToolSurface
    expose: Callable[[Sequence[str] | None], None]
    """Set the tools the gateway exposes for the rest of the current turn (None = all)."""
    mcp_url: str | None = None
    """Streamable-HTTP endpoint of this trial, when the run serves HTTP (for external agents)."""
    mcp_headers: dict[str, str] = field(default_factory=dict)
    task: TaskView | None = None
    """The redacted task (domain, tools, policy)."""
    call_timeout_s: float | None = None
    """The per-call timeout of provider calls in this trial (a share of its time limit): an agent that
    calls a model itself should not wait longer for one answer. The built-in adapters apply it."""


@runtime_checkable
class Agent(Protocol):
    """`name` labels the agent in records and reports. An agent class may also set `needs_mcp_url =
    False` when it only uses `session.tools` (the run then does not serve HTTP for it)."""

    name: str

    async def start(self, session: TrialSession) -> None: ...

    async def respond(self, user_message: str, turn: int) -> AgentReply: ...

    async def stop(self) -> None: ...


AgentFactory = Callable[[Any], "Agent | Awaitable[Agent]"]
"""Builds a fresh agent for a task (agents hold per-trial state)."""
