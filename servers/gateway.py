"""The gateway: every domain's MCP server over one trial store, the combined namespaced server, the control
plane's in-process API, and the lean in-process tool path.

Layout of the HTTP app (`servers.http.gateway_app`):
- `/<domain>/mcp`   one domain's tools under their own names (what an agent under test connects to);
- `/mcp`            every domain mounted with a namespace (`payments_get_account_balance`), for poking;
- `/control/...`    plain HTTP routes (never in `tools/list`): open a trial, set the turn and the tools
                    exposed in it, read the trace and the state, close it.

What it assembles lives below it, one job a module: `servers.calls` (a call in flight, its argument and
state checks), `servers.tool_derivation` (tools from world methods), `servers.recorder` (which trial a
request belongs to, and the record of every call).
"""

from __future__ import annotations

import contextlib
import functools
import logging
import typing
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any

import anyio
import mcp_types as mt
from fastmcp import FastMCP
from fastmcp.exceptions import FastMCPError, NotFoundError, ToolError
from fastmcp.tools.base import Tool, ToolResult
from pydantic import ValidationError as PydanticValidationError

from servers.calls import CallRejected, unsendable, unsendable_result
from servers.recorder import CombinedRecorder, TrialRecorder
from servers.registry import environment_class, known_domains
from servers.tool_derivation import POLICY_PROMPT, POLICY_URI, domain_policy_text, domain_tools, server_instructions
from servers.trials import Trial, TrialStore

if typing.TYPE_CHECKING:  # the MCP client stack costs ~0.5 s to import; `serve` never needs it
    from fastmcp import Client

def wire_arguments(name: str, arguments: dict[str, Any] | None) -> dict[str, Any]:
    """Arguments exactly as an MCP client puts them on the wire (`CallToolRequestParams` dumped to JSON
    mode: dates become strings, NaN becomes null, tuples become lists), so the lean path hands the
    recorder and the tool the same values the MCP path does."""
    params = mt.CallToolRequestParams(name=name, arguments=arguments or {})
    return dict(params.model_dump(by_alias=True, mode="json", exclude_none=True).get("arguments") or {})


async def run_tool(tool: Tool | None, name: str, arguments: dict[str, Any]) -> ToolResult:
    """The core of fastmcp's `FastMCP.call_tool` below the middleware chain, for the lean path: an
    unknown tool is `NotFoundError("Unknown tool: …")`, the tool's own `_run` validates the arguments
    against its signature exactly as over MCP (fastmcp `ValidationError` from pydantic), tool and
    validation errors pass through, and anything else is masked as the domain servers mask it
    (`mask_error_details=True`)."""
    if tool is None:
        raise NotFoundError(f"Unknown tool: {name!r}")
    try:
        return await tool._run(arguments)
    except (FastMCPError, PydanticValidationError):
        raise
    except Exception as exc:  # noqa: BLE001 - masked like the server masks it
        raise ToolError(f"Error calling tool {name!r}") from exc


TOOL_LOG = logging.getLogger("crmbench.tools")
"""Per-call tool failures (an agent's invalid arguments, a refused call): the agent's business, recorded in
the trace; logged here at debug level only."""

_PER_CALL = ("Error calling tool", "Invalid arguments for tool")


class _PerCallToDebug(logging.Filter):
    """fastmcp logs every failed tool call (`Error calling tool 'x'` at error level, `Invalid arguments`
    at warning): in a benchmark run those are the agents' mistakes, already in the trace, and dozens of
    timestamped lines look like harness failures. They go to `crmbench.tools` at debug level instead."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if message.startswith(_PER_CALL):
            TOOL_LOG.debug("%s", message)
            return False
        return True


def route_fastmcp_tool_errors() -> None:
    """Install the filter once on fastmcp's server logger (idempotent)."""
    target = logging.getLogger("fastmcp.server.server")
    if not any(isinstance(f, _PerCallToDebug) for f in target.filters):
        target.addFilter(_PerCallToDebug())


def build_domain_server(domain: str, store: TrialStore) -> FastMCP:
    """One domain as a standalone MCP server (servable alone over stdio or HTTP, or mounted): its tools
    (annotated from their kinds), its instructions, and its policy as a resource and a prompt."""
    route_fastmcp_tool_errors()
    env_cls = environment_class(domain)
    server = FastMCP(
        name=f"crmbench-{domain}",
        instructions=server_instructions(domain),
        mask_error_details=True,
    )
    for domain_tool in domain_tools(env_cls).values():
        server.add_tool(domain_tool)
    policy = domain_policy_text(domain)
    if policy:

        def read_policy() -> str:
            return policy

        def policy_prompt() -> str:
            return f"Follow the {domain} domain policy below in every reply and tool call.\n\n{policy}"

        server.resource(POLICY_URI, name=f"{domain}-policy", description=f"The {domain} domain policy.", mime_type="text/markdown")(read_policy)
        server.prompt(name=POLICY_PROMPT, description=f"The {domain} domain policy as instructions.")(policy_prompt)
    server.add_middleware(TrialRecorder(store, domain))
    return server


class Gateway:
    """All domain servers over one trial store, plus the combined namespaced server."""

    def __init__(self, domains: Sequence[str] | None = None, *, store: TrialStore | None = None) -> None:
        self.store = store if store is not None else TrialStore()  # an empty store is falsy (len 0)
        self.domains = list(domains or known_domains())
        self.servers = {d: build_domain_server(d, self.store) for d in self.domains}
        self.combined = FastMCP(name="crmbench-gateway", mask_error_details=True)
        for domain, server in self.servers.items():
            self.combined.mount(server, namespace=domain)
        self.combined.add_middleware(CombinedRecorder(self.store, self.domains))
        self.recorders = {d: next(m for m in s.middleware if isinstance(m, TrialRecorder)) for d, s in self.servers.items()}
        self._tools: dict[str, dict[str, Tool]] = {}
        self._listed: dict[str, list[mt.Tool]] = {}
        self._output_schemas: dict[str, dict[str, dict[str, Any] | None]] = {}
        self._fill_locks: dict[str, anyio.Lock] = {}
        self._server_info: dict[str, Any] = {}

    async def _domain_tools(self, domain: str) -> dict[str, Tool]:
        tools = self._tools.get(domain)
        if tools is None:
            async with self._filling(domain):  # hundreds of trials start at once: fill the cache once
                tools = self._tools.get(domain)
                if tools is None:
                    server = self.server(domain)
                    found = {name: await server.get_tool(name) for name in environment_class(domain).tool_methods()}
                    tools = self._tools[domain] = {name: tool for name, tool in found.items() if tool is not None}
        return tools

    def _filling(self, domain: str) -> anyio.Lock:
        lock = self._fill_locks.get(domain)
        if lock is None:
            lock = self._fill_locks[domain] = anyio.Lock()
        return lock

    async def call_tool(self, trial_id: str, name: str, arguments: dict[str, Any] | None = None) -> ToolResult:
        """The lean in-process path (replays, the gates, in-process agents): the same recorder core and
        the same fastmcp tool (argument validation included) as an MCP `tools/call`, without the client,
        the JSON-RPC session and the server's request plumbing. Arguments are encoded as a client would
        encode them (`wire_arguments`). Raises what the domain server's middleware chain raises (a
        `ToolError` for every refused or failed call); the trace records the call exactly as over MCP."""
        trial = self.store.get(trial_id)
        tools = await self._domain_tools(trial.domain)
        problem = unsendable(arguments or {})
        if problem:  # never sent (no client can send it), but the agent made it: recorded
            raise CallRejected(await self.record_unsent(trial_id, name, arguments or {}, problem))
        wire = wire_arguments(name, arguments)
        return await self.recorders[trial.domain].record(trial, name, wire, lambda: run_tool(tools.get(name), name, wire))

    async def record_unsent(self, trial_id: str, name: str, arguments: dict[str, Any], problem: str) -> str:
        """Record a call of this trial refused before it could be sent (`unsendable`) and return the error
        it gets: every in-process path calls this, so the trace holds every call the agent made."""
        trial = self.store.get(trial_id)
        return await self.recorders[trial.domain].record_unsent(trial, name, dict(arguments), problem)

    def server(self, domain: str) -> FastMCP:
        try:
            return self.servers[domain]
        except KeyError:
            raise KeyError(f"domain {domain!r} is not served by this gateway ({', '.join(self.domains)})") from None

    # ---- control plane (in-process API; the HTTP routes call these) -----------------------------
    def open_trial(self, domain: str, **kwargs: Any) -> Trial:
        self.server(domain)
        return self.store.open(domain, **kwargs)

    def set_turn(self, trial_id: str, turn: int, allowed_tools: Sequence[str] | None = None) -> Trial:
        trial = self.store.get(trial_id)
        trial.turn = turn
        trial.allowed_tools = None if allowed_tools is None else frozenset(allowed_tools)
        return trial

    def trial(self, trial_id: str) -> Trial:
        return self.store.get(trial_id)

    def close_trial(self, trial_id: str) -> Trial:
        return self.store.close(trial_id)

    @contextlib.asynccontextmanager
    async def reading(self, trial_id: str) -> AsyncIterator[Trial]:
        """The trial with no call of it in flight. A tool runs on the live world under an undo journal, so
        a reader (the control plane) waits for the call in flight to commit or roll back instead of
        seeing a half-made change."""
        trial = self.store.get(trial_id)
        async with trial.lock:
            yield trial

    async def close_settled(self, trial_id: str) -> Trial:
        """Close the trial once the call in flight (if any) has finished; calls waiting behind it run nothing."""
        trial = self.store.get(trial_id)
        async with trial.lock:
            return self.store.close(trial_id)

    async def listed_tools(self, domain: str) -> list[mt.Tool]:
        """The domain's `tools/list` exactly as an MCP client receives it (asked once per gateway and
        domain over an in-memory client, then cached): the lean tool surface filters it per trial."""
        listed = self._listed.get(domain)
        if listed is None:
            async with self._filling(domain):
                listed = self._listed.get(domain)
                if listed is None:
                    from fastmcp import Client

                    async with Client(self.server(domain)) as client:
                        page = await client.list_tools_mcp()
                        listed = list(await client.list_tools()) if page.next_cursor else list(page.tools)
                    # the stamp the server puts in every 2026-era result's `_meta` (spec #3002)
                    self._server_info[domain] = (page.meta or {}).get(mt.SERVER_INFO_META_KEY)
                    self._output_schemas[domain] = {t.name: t.output_schema for t in listed}
                    self._listed[domain] = listed
        return listed

    async def output_schemas(self, domain: str) -> dict[str, dict[str, Any] | None]:
        """Per tool, the output schema a client parses results with (from `listed_tools`)."""
        await self.listed_tools(domain)
        return self._output_schemas[domain]

    def server_info_stamp(self, domain: str) -> dict[str, Any] | None:
        """The `serverInfo` stamp the domain's server puts in each result's `_meta` (after `listed_tools`)."""
        return self._server_info.get(domain)

    def tools_for(self, trial_id: str) -> GatewayTools:
        """The lean tool surface of one trial, for in-process agents (`TrialSession.tools`)."""
        return GatewayTools(self, trial_id)

    @contextlib.asynccontextmanager
    async def in_memory_clients(self) -> AsyncIterator[dict[str, Client]]:
        """One in-memory MCP client per domain, shared by every trial: each request names its trial in
        `_meta`, so no per-trial connection is needed."""
        from fastmcp import Client

        async with contextlib.AsyncExitStack() as stack:
            yield {d: await stack.enter_async_context(Client(s)) for d, s in self.servers.items()}


class GatewayTools:
    """One trial's tools for an in-process agent, on the lean path: `list_tools` and `call_tool` give
    what an MCP client bound to the trial gets (`orchestrator.protocol.TrialTools`) — the same tool
    list filtered by the turn's exposure, the same parsed `CallToolResult` (errors returned, never
    raised) and the same trace record — without a JSON-RPC round trip per call. The MCP path stays the
    one every external client uses; `tests/test_lean_tools.py` holds the two to equality."""

    def __init__(self, gateway: Gateway, trial_id: str) -> None:
        self.gateway = gateway
        self.trial_id = trial_id

    async def list_tools(self) -> list[mt.Tool]:
        trial = self.gateway.trial(self.trial_id)
        return [t for t in await self.gateway.listed_tools(trial.domain) if trial.tool_exposed(t.name)]

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> Any:
        """The `fastmcp.client.CallToolResult` an in-memory MCP client returns with `raise_on_error=False`."""
        trial = self.gateway.trial(self.trial_id)
        problem = unsendable(arguments or {})
        if problem:  # what `TrialTools` answers: a client cannot send it, the server never sees it; recorded
            await self.gateway.record_unsent(self.trial_id, name, arguments or {}, problem)
            return unsendable_result(problem)
        try:
            result = mcp_result(await self.gateway.call_tool(self.trial_id, name, arguments))
        except FastMCPError as exc:  # returned as an error result, as the server returns it (the recorder
            # turns unknown tools, refusals and masked bugs into `ToolError`s on both paths)
            result = mt.CallToolResult(content=[mt.TextContent(type="text", text=str(exc))], is_error=True)
        schemas = await self.gateway.output_schemas(trial.domain)
        stamp = self.gateway.server_info_stamp(trial.domain)
        if stamp is not None and (result.meta or {}).get(mt.SERVER_INFO_META_KEY) is None:
            result = result.model_copy(update={"meta": {**(result.meta or {}), mt.SERVER_INFO_META_KEY: dict(stamp)}})
        return await _client_parser()(name, result, tool_output_schemas=schemas, list_tools_fn=_no_refresh, raise_on_error=False)


@functools.cache
def _client_parser() -> Callable[..., Awaitable[Any]]:
    """fastmcp's own client-side result parser (same `data` as an MCP client gets), imported on first use:
    `serve` never needs the client stack."""
    from fastmcp.client.mixins.tools import _parse_call_tool_result

    return _parse_call_tool_result


def mcp_result(result: ToolResult) -> mt.CallToolResult:
    """A tool's `ToolResult` as the server puts it on the wire (`ToolResult.to_mcp_result`)."""
    out = result.to_mcp_result()
    if isinstance(out, mt.CallToolResult):
        return out
    if isinstance(out, tuple):
        return mt.CallToolResult(content=out[0], structured_content=out[1])
    return mt.CallToolResult(content=out)


async def _no_refresh() -> None:
    """The listed tools are complete: a name not among them has no schema to refresh."""
