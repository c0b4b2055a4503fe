"""The recorder: which trial a request belongs to, and the trace record of every tool call that reaches a
domain server.

The trial of a request is, in order: the request's `_meta["crmbench/trial"]`, the in-process binding
(`bind_trial`, for in-memory clients), the `X-Trial-Id` header, the `?trial=` query parameter, else a
sandbox world. Sandboxes: an id the gateway issued (`GET /sandbox`, `TrialStore.mint_sandbox_id`) gets a
private world of its own on first use (a guessed or self-chosen `sandbox-…` id is refused); a handshake-era HTTP client (stable `Mcp-Session-Id`) gets one per session;
anything else shares the domain's sandbox (`sandbox-<domain>`), and `tools/list` says so in every tool's
description. With `--require-trial` (`TrialStore(sandbox=False)`) there is no sandbox at all.

`TrialRecorder.record` is the one core of every call, whatever the transport: the turn's exposure, the
argument checks, the call, the commit-only-on-success rule (`servers.calls.CallScope`) and the record.
`CombinedRecorder` refuses, and records, a call on the combined endpoint to another domain's tool.
"""

from __future__ import annotations

import contextlib
import contextvars
import time
from collections.abc import Awaitable, Callable, Iterator, Sequence
from typing import Any

import mcp_types as mt
from fastmcp.exceptions import NotFoundError, ToolError
from fastmcp.server.dependencies import get_http_request
from fastmcp.server.middleware import Middleware, MiddlewareContext
from fastmcp.tools.base import Tool, ToolResult
from pydantic import ValidationError as PydanticValidationError

from contracts.evidence import CallStatus, ToolCallRecord
from contracts.text import ERROR_MAX_CHARS, has_unsafe_text, safe_text, short
from servers.calls import CallRejected, CallScope, active_call, check_arguments, clean_error, strict_json
from servers.registry import environment_class
from servers.tool_derivation import check_no_bool_numbers
from servers.trials import SANDBOX_PREFIX, Trial, TrialStore, UnknownTrial

TRIAL_HEADER = "x-trial-id"
TRIAL_QUERY = "trial"
TRIAL_META_KEY = "crmbench/trial"

_bound_trial: contextvars.ContextVar[str | None] = contextvars.ContextVar("crmbench_bound_trial", default=None)

@contextlib.contextmanager
def bind_trial(trial_id: str) -> Iterator[None]:
    """Route in-process (in-memory transport) requests made inside this block to `trial_id`."""
    token = _bound_trial.set(trial_id)
    try:
        yield
    finally:
        _bound_trial.reset(token)


def requested_trial_id(meta: Any = None) -> str | None:
    if isinstance(meta, dict) and isinstance(meta.get(TRIAL_META_KEY), str):
        return meta[TRIAL_META_KEY]
    bound = _bound_trial.get()
    if bound:
        return bound
    try:
        request = get_http_request()
    except RuntimeError:
        return None
    return request.headers.get(TRIAL_HEADER) or request.query_params.get(TRIAL_QUERY)


SESSION_HEADER = "mcp-session-id"

SHARED_SANDBOX_NOTE = (
    " [Sandbox: this request names no trial, so it uses the domain's SHARED sandbox world, which every "
    "client that names no trial sees and changes. For a private world send the header X-Trial-Id (or "
    "?trial=) with an id from GET /sandbox on this gateway, or open a trial via /control/trials.]"
)


def _session_id() -> str | None:
    """The MCP session of a handshake-era HTTP client (stable across its requests); None otherwise
    (stateless-era clients get a new session id per request, so it cannot key a world)."""
    try:
        request = get_http_request()
    except RuntimeError:
        return None
    session = request.headers.get(SESSION_HEADER)
    protocol = request.headers.get("mcp-protocol-version", "")
    return session if session and protocol < "2026" else None


def _is_http() -> bool:
    try:
        get_http_request()
    except RuntimeError:
        return False
    return True


def sandbox_key(domain: str) -> str | None:
    """Which private sandbox world a request without an opened trial gets, or None for the shared one."""
    session = _session_id()
    if session:
        return f"{SANDBOX_PREFIX}{domain}/session-{safe_text(session, 64)}"
    return None


def _resolve_trial(store: TrialStore, domain: str, meta: Any = None) -> Trial:
    """The trial a request belongs to: the trial it names; else a private sandbox (a `sandbox-…` id the
    gateway issued, or its handshake-era MCP session); else the domain's shared sandbox."""
    trial_id = requested_trial_id(meta)
    try:
        if trial_id:
            try:
                trial = store.get(trial_id)
            except UnknownTrial:
                shared = trial_id == SANDBOX_PREFIX + domain  # the shared world, public by design
                if not store.sandbox_enabled or len(trial_id) > 128 or not (shared or store.is_minted_sandbox_id(trial_id)):
                    raise
                trial = store.sandbox(domain, None if shared else trial_id)
            if trial.domain != domain and trial_id.startswith(SANDBOX_PREFIX) and store.sandbox_enabled:
                trial = store.sandbox(domain, f"{trial_id}/{domain}")  # one private world per domain
        else:
            trial = store.sandbox(domain, sandbox_key(domain))
    except UnknownTrial:
        named = f"an unknown trial id {short(trial_id, 80)}" if trial_id else "no trial"
        store.incident(None, f"tool call on {domain} named {named}")
        raise
    return trial  # a trial of another domain is refused and recorded by the recorder


def _request_meta(context: MiddlewareContext[Any]) -> dict[str, Any] | None:
    """The request's `_meta`, wherever this fastmcp version carries it."""
    meta: Any = getattr(context.message, "meta", None)
    ctx = context.fastmcp_context
    if meta is None and ctx is not None and ctx.request_context is not None:
        meta = ctx.request_context.meta
    if meta is not None and not isinstance(meta, dict):
        meta = meta.model_dump() if hasattr(meta, "model_dump") else dict(meta)
    return meta


def _result_payload(result: ToolResult) -> Any:
    if result.structured_content is not None:
        return result.structured_content
    texts = [getattr(block, "text", "") for block in result.content or []]
    return "\n".join(t for t in texts if t)


class TrialRecorder(Middleware):
    """Records every tool call that reaches a domain server, and enforces the turn's tool exposure.

    A call to a tool that exists but is not exposed this turn is not forwarded (status `blocked`).
    Calls within one trial are serialised so the trace order is the execution order.
    """

    def __init__(self, store: TrialStore, domain: str) -> None:
        self.store = store
        self.domain = domain
        self.tool_names = frozenset(environment_class(domain).tool_methods())

    async def on_list_tools(
        self,
        context: MiddlewareContext[mt.ListToolsRequest],
        call_next: Any,
    ) -> Sequence[Tool]:
        tools = await call_next(context)
        trial_id = requested_trial_id()
        if not trial_id:
            if self.store.sandbox_enabled and _is_http() and sandbox_key(self.domain) is None:
                # Say it where every client looks: these calls would change a world others share. (Over
                # stdio one process serves one client; in-process clients name their trial per call.)
                return [t.model_copy(update={"description": (t.description or "") + SHARED_SANDBOX_NOTE}) for t in tools]
            return tools
        try:
            trial = self.store.get(trial_id)
        except UnknownTrial:
            return tools
        if trial.domain != self.domain:  # the combined endpoint: a trial sees only its own domain
            return []
        return [t for t in tools if trial.tool_exposed(t.name)]

    async def on_call_tool(
        self,
        context: MiddlewareContext[mt.CallToolRequestParams],
        call_next: Any,
    ) -> ToolResult:
        try:
            trial = _resolve_trial(self.store, self.domain, _request_meta(context))
        except UnknownTrial as exc:
            raise ToolError(str(exc)) from None
        return await self.record(trial, context.message.name, dict(context.message.arguments or {}), lambda: call_next(context))

    async def record(self, trial: Trial, name: str, arguments: dict[str, Any], invoke: Callable[[], Awaitable[ToolResult]]) -> ToolResult:
        """The one core of every tool call, whatever the transport: exposure, argument checks, the call
        (`invoke`: the MCP middleware chain, or `run_tool` on the lean in-process path), the
        commit-only-on-success invariant, and the trace record."""
        if trial.domain != self.domain:  # another domain's tool (e.g. through the combined endpoint)
            error = f"trial {trial.trial_id!r} belongs to domain {trial.domain!r}, not {self.domain!r}: tool {self.domain}_{name} is not available to it."
            async with trial.lock:
                trial.trace.append(
                    ToolCallRecord(seq=len(trial.trace), turn=trial.turn, tool=f"{self.domain}_{name}", arguments=arguments, status="blocked", error=error)
                )
            raise ToolError(error)
        async with trial.lock:
            if trial.closed:  # closed while this call waited: its evidence is taken, nothing may change
                raise ToolError(f"trial {trial.trial_id!r} is closed")
            started = time.perf_counter()
            status: CallStatus = "executed"
            payload: Any = None
            error: str | None = None
            scope = CallScope(trial)
            token = active_call.set(scope)
            try:
                if not trial.tool_exposed(name) and name in self.tool_names:
                    status, error = "blocked", f"Tool {short(name)} is not available in this turn."
                    raise ToolError(error)
                if name in self.tool_names:
                    check_arguments(arguments)
                    check_no_bool_numbers(environment_class(self.domain), name, arguments)
                result = await invoke()
                if getattr(result, "is_error", False):  # an error *returned* (not raised) never commits
                    status, error = "tool_error", safe_text(str(_result_payload(result)), ERROR_MAX_CHARS)
                    return result
                payload = _result_payload(result)
                strict_json(payload, "result")
                if isinstance(payload, dict) and payload.get("refused") is True:
                    status = "refused"
                scope.commit()
                return result
            except NotFoundError as exc:
                status, error = "unknown_tool", clean_error(exc, arguments)
                payload = None
                raise ToolError(error) from None
            except Exception as exc:
                payload = None
                if status != "blocked":
                    status, error = "tool_error", clean_error(exc, arguments)
                if isinstance(exc, ToolError) and not isinstance(exc, CallRejected) and str(exc) == error:
                    raise
                if isinstance(exc, ToolError) or isinstance(exc.__cause__, PydanticValidationError):
                    raise ToolError(error) from None
                raise  # an unexpected bug in a tool: masked by the server (mask_error_details)
            finally:
                active_call.reset(token)
                scope.finish()
                trial.trace.append(
                    ToolCallRecord(
                        seq=len(trial.trace),
                        turn=trial.turn,
                        tool=name,
                        arguments=arguments,
                        status=status,
                        result=payload,
                        error=error,
                        latency_ms=round((time.perf_counter() - started) * 1000, 3),
                    )
                )

    async def record_unsent(self, trial: Trial, name: str, arguments: dict[str, Any], problem: str) -> str:
        """Record a call refused before it could be sent (issue 41): its arguments hold what no MCP client
        puts on the wire (`servers.calls.unsendable`: a non-finite number, nesting beyond
        `WIRE_MAX_DEPTH`), so the in-process paths answer it with an error instead of sending it. The
        agent made the call, so it is in the trace like every call the gateway refuses: the status the
        recorder would give it (`unknown_tool` for a name no tool has, `blocked` for a tool not exposed
        this turn, else `tool_error`), the error the agent is told, nothing run. Returns that error."""
        error = f"the call was rejected and nothing changed: {problem}"
        status: CallStatus = "unknown_tool" if name not in self.tool_names else "tool_error" if trial.tool_exposed(name) else "blocked"
        async with trial.lock:
            if not trial.closed:  # closed while this call waited: its evidence is taken
                trial.trace.append(ToolCallRecord(seq=len(trial.trace), turn=trial.turn, tool=name, arguments=arguments, status=status, error=error))
        return error


class CombinedRecorder(Middleware):
    """On the combined `/mcp` endpoint: a trial's agent sees only its own domain's tools (the domain
    servers' recorders filter the list), and a call to another domain's tool — or to no domain's — is
    refused *and recorded* in that trial's trace, like any call that reaches a domain server."""

    def __init__(self, store: TrialStore, domains: Sequence[str]) -> None:
        self.store = store
        self.domains = list(domains)

    async def on_call_tool(self, context: MiddlewareContext[mt.CallToolRequestParams], call_next: Any) -> ToolResult:
        trial_id = requested_trial_id(_request_meta(context))
        name = context.message.name
        try:
            trial = self.store.get(trial_id) if trial_id else None
        except UnknownTrial:
            trial = None
        if trial is None or name.startswith(f"{trial.domain}_"):
            return await call_next(context)
        owner = next((d for d in self.domains if name.startswith(f"{d}_")), None)
        status: CallStatus = "blocked" if owner else "unknown_tool"
        error = f"Tool {name!r} is not available to trial {trial.trial_id!r} ({trial.domain})." if owner else f"Unknown tool: {name!r}"
        async with trial.lock:
            trial.trace.append(
                ToolCallRecord(seq=len(trial.trace), turn=trial.turn, tool=name, arguments=dict(context.message.arguments or {}), status=status, error=error)
            )
        raise ToolError(error)
