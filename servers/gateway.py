"""The gateway: domain MCP servers over per-trial worlds, a recording middleware, and a control plane.

Layout of the HTTP app (`gateway_app`):
- `/<domain>/mcp`   one domain's tools under their own names (what an agent under test connects to);
- `/mcp`            every domain mounted with a namespace (`payments_get_account_balance`), for poking;
- `/control/...`    plain HTTP routes (never in `tools/list`): open a trial, set the turn and the tools
                    exposed in it, read the trace and the state, close it.

The trial of a request is, in order: the request's `_meta["crmbench/trial"]`, the in-process binding
(`bind_trial`, for in-memory clients), the `X-Trial-Id` header, the `?trial=` query parameter, else a
sandbox world. Sandboxes: an id the gateway issued (`GET /sandbox`, `TrialStore.mint_sandbox_id`) gets a
private world of its own on first use (a guessed or self-chosen `sandbox-…` id is refused); a handshake-era HTTP client (stable `Mcp-Session-Id`) gets one per session;
anything else shares the domain's sandbox (`sandbox-<domain>`), and `tools/list` says so in every tool's
description. With `--require-trial` (`TrialStore(sandbox=False)`) there is no sandbox at all.
"""

from __future__ import annotations

import ast
import contextlib
import contextvars
import copy
import functools
import inspect
import json
import logging
import math
import textwrap
import time
import typing
import warnings
from dataclasses import dataclass
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from typing import Any

import anyio
import mcp_types as mt
from fastmcp import FastMCP
from fastmcp.tools.function_tool import FunctionTool
from fastmcp.utilities.tasks import TaskConfig
from fastmcp.exceptions import FastMCPError, NotFoundError, ToolError
from fastmcp.server.dependencies import get_http_request
from fastmcp.server.middleware import Middleware, MiddlewareContext
from fastmcp.tools.base import Tool, ToolResult
from pydantic import BaseModel, TypeAdapter
from pydantic import ValidationError as PydanticValidationError

from contracts.catalog import POLICIES_DIR
from contracts.evidence import CallStatus, ToolCallRecord
from contracts.text import ERROR_MAX_CHARS, VALUE_MAX_CHARS, has_unsafe_text, json_problem, safe_text, short
from servers.base import IdMinter, InvalidCall, Refusal, ToolEnvironment, to_result
from servers.registry import environment_class, known_domains
from servers.journal import Journal
from servers import tool_specs
from servers.tool_specs import ToolSpec

if typing.TYPE_CHECKING:  # the MCP client stack costs ~0.5 s to import; `serve` never needs it
    from fastmcp import Client
from servers.trials import SANDBOX_PREFIX, Trial, TrialStore, UnknownTrial

log = logging.getLogger(__name__)

TRIAL_HEADER = "x-trial-id"
TRIAL_QUERY = "trial"
TRIAL_META_KEY = "crmbench/trial"

_bound_trial: contextvars.ContextVar[str | None] = contextvars.ContextVar("crmbench_bound_trial", default=None)
_active_call: contextvars.ContextVar[_CallScope | None] = contextvars.ContextVar("crmbench_active_call", default=None)

ARGUMENT_MAX_CHARS = VALUE_MAX_CHARS
"""The longest string argument the gateway forwards; longer ones are rejected before any tool runs."""

ARGUMENT_MAX_DEPTH = 64
"""The deepest nesting of lists and objects a tool call's arguments may have (no tool takes more than a
few levels); deeper ones are rejected, recorded, before any tool runs."""

WIRE_MAX_DEPTH = 200
"""Nesting an MCP client cannot serialise (pydantic stops at 255) and the HTTP JSON parser refuses: on the
in-process paths such a call is refused before it reaches the recorder, as over HTTP."""

JSON_SAFE_INTEGER = 2**53
"""Integers beyond ±2^53 are not interoperable JSON numbers (RFC 7493) and no world quantity needs them;
a float conversion of a huge one overflows inside the tool. Rejected, recorded, before any tool runs."""


def unsendable_result(problem: str) -> Any:
    """The client-side error result for a call that never reached the server (no server stamp: the server
    did not answer it, as over HTTP its parser refuses the request)."""
    from fastmcp.client.client import CallToolResult

    text = f"the call was rejected and nothing changed: {problem}"
    return CallToolResult(content=[mt.TextContent(type="text", text=text)], structured_content=None, meta=None, is_error=True)


def unsendable(arguments: Any) -> str | None:
    """What makes arguments impossible to send as an MCP client sends them (non-finite numbers, nesting
    deeper than `WIRE_MAX_DEPTH`): the in-process paths refuse such a call like the HTTP parser does,
    instead of a client encoder raising (nesting) or silently turning NaN into a missing argument."""
    stack: list[tuple[Any, int, str]] = [(arguments, 0, "arguments")]
    while stack:
        value, depth, path = stack.pop()
        if isinstance(value, float) and not math.isfinite(value):
            return f"argument {path!r} is a non-finite number"
        if isinstance(value, dict | list | tuple):
            if depth >= WIRE_MAX_DEPTH:
                return f"the arguments are nested more than {WIRE_MAX_DEPTH} levels deep"
            items = value.items() if isinstance(value, dict) else enumerate(value)
            for key, item in items:
                child = str(key) if depth == 0 and isinstance(value, dict) else f"{path}.{key}" if isinstance(value, dict) else f"{path}[{key}]"
                stack.append((item, depth + 1, child))
    return None


@dataclass
class _CallScope:
    """One tool call in flight. The tool body works on the trial's live state under an undo journal and
    on a copy of the id minter; the recorder commits (drops the journal, keeps the ids) only once the
    call has succeeded *and* its result has serialised. Anything else rolls the journal back and leaves
    the trial byte-identical."""

    trial: Trial
    journal: Journal | None = None
    ids: IdMinter | None = None
    result: dict[str, Any] | None = None
    ready: bool = False
    """The body succeeded and its new state checked out: the call may commit."""

    def commit(self) -> None:
        if self.ready and self.ids is not None:
            self.trial.ids.restore(self.ids.snapshot())
            if self.journal is not None:
                if self.trial.undo_log is not None:  # the caller will take the world back past this call
                    self.trial.undo_log.extend(self.journal.undo)
                self.journal.discard()
            self.journal = None

    def finish(self) -> None:
        """Roll back whatever was not committed (a failure, a refusal, a read)."""
        if self.journal is not None:
            self.journal.rollback()
            self.journal = None


class CallRejected(ToolError):
    """A call the gateway refuses before or after the tool body: nothing was committed."""


def strict_json(value: Any, what: str) -> str:
    """`value` as strict JSON (no NaN/Infinity, valid UTF-8), or `CallRejected` saying what is wrong."""
    try:
        text = json.dumps(value, allow_nan=False, ensure_ascii=False)
        text.encode("utf-8")
    except (ValueError, TypeError, UnicodeError) as exc:
        reason = "a non-finite number" if "Out of range float" in str(exc) else ("invalid text" if isinstance(exc, UnicodeError) else type(exc).__name__)
        raise CallRejected(f"the call was rejected and nothing changed: its {what} holds {reason}") from None
    return text


def check_state(state: BaseModel) -> None:
    """Reject a new state that is not a valid world (`CallRejected`): a non-finite number or unsafe text
    anywhere, or a field a tool set to the wrong type (the state re-validates against its model)."""
    data = state.model_dump(mode="python", warnings=False)  # a wrongly typed field fails re-validation below
    problem = json_problem(data)
    if problem:
        raise CallRejected(f"the call was rejected and nothing changed: it would store {problem}")
    try:
        type(state).model_validate(data)
    except PydanticValidationError:
        raise CallRejected("the call was rejected and nothing changed: it would leave the world in an invalid state") from None


def check_changes(journal: Journal) -> None:
    """Reject a call whose changes would not leave a valid world (`CallRejected`): a non-finite number or
    unsafe text in anything it stored, or a value of the wrong type where it stored it. Only what the
    call touched is checked: the rest of the world was valid before and did not change."""
    problem = journal.problem()
    if problem == "invalid":
        raise CallRejected("the call was rejected and nothing changed: it would leave the world in an invalid state")
    if problem:
        raise CallRejected(f"the call was rejected and nothing changed: it would store {problem}")


def check_arguments(arguments: dict[str, Any]) -> None:
    """Reject arguments no tool should ever receive: unsafe text (lone surrogates, control characters
    other than tab/newline) and strings longer than `ARGUMENT_MAX_CHARS`, anywhere in the arguments."""

    def walk(value: Any, path: str, depth: int = 1) -> None:
        if depth > ARGUMENT_MAX_DEPTH:
            raise CallRejected(f"the call was rejected and nothing changed: argument {path!r} is nested more than {ARGUMENT_MAX_DEPTH} levels deep")
        if isinstance(value, bool):
            return
        if isinstance(value, int) and abs(value) > JSON_SAFE_INTEGER:
            raise CallRejected(f"the call was rejected and nothing changed: argument {path!r} is out of range (an integer beyond ±2^53)")
        if isinstance(value, float) and not math.isfinite(value):
            raise CallRejected(f"the call was rejected and nothing changed: argument {path!r} is a non-finite number")
        if isinstance(value, str):
            if len(value) > ARGUMENT_MAX_CHARS:
                raise CallRejected(f"argument {path!r} is too long ({len(value):,} characters; at most {ARGUMENT_MAX_CHARS:,})")
            if has_unsafe_text(value):
                raise CallRejected(f"argument {path!r} contains invalid text (a lone surrogate or a control character)")
        elif isinstance(value, dict):
            for key, item in value.items():
                if isinstance(key, str) and (len(key) > 200 or has_unsafe_text(key)):
                    raise CallRejected(f"argument {path!r} has an invalid key {short(key)}")
                walk(item, f"{path}.{key}", depth + 1)
        elif isinstance(value, list):
            for i, item in enumerate(value):
                walk(item, f"{path}[{i}]", depth + 1)

    for name, value in arguments.items():
        if has_unsafe_text(str(name)) or len(str(name)) > 200:
            raise CallRejected(f"unexpected argument {short(name)}")
        walk(value, str(name))


def _schema_types(schema: dict[str, Any]) -> set[str]:
    types: set[str] = set()
    kind = schema.get("type")
    types.update(kind if isinstance(kind, list) else [kind] if isinstance(kind, str) else [])
    for key in ("anyOf", "oneOf", "allOf"):
        for option in schema.get(key) or []:
            if isinstance(option, dict):
                types |= _schema_types(option)
    return types


@functools.cache
def _numeric_params(env_cls: type[ToolEnvironment], name: str) -> frozenset[str]:
    """A tool's parameters whose published schema takes a number and not a boolean."""
    properties = tool_input_schema(env_cls, name).get("properties") or {}
    return frozenset(
        key for key, prop in properties.items() if isinstance(prop, dict) and (t := _schema_types(prop)) & {"integer", "number"} and "boolean" not in t
    )


def check_no_bool_numbers(env_cls: type[ToolEnvironment], name: str, arguments: dict[str, Any]) -> None:
    """`true` is not a count: a boolean where the tool's own schema takes a number is rejected (pydantic's
    lax mode would read it as 1, e.g. `bags: true` charging one bag)."""
    numeric = _numeric_params(env_cls, name)
    for key, value in arguments.items():
        if key in numeric and isinstance(value, bool):
            raise CallRejected(f"the call was rejected and nothing changed: argument {key!r} must be a number, not {str(value).lower()}")


def clean_error(exc: BaseException, arguments: dict[str, Any]) -> str:
    """A clear, bounded error message: validation errors as `field: problem` lines without the echoed
    input, long argument values never echoed whole, unsafe text removed."""
    cause = exc.__cause__
    if isinstance(cause, PydanticValidationError):
        problems = []
        for error in cause.errors(include_url=False, include_input=False):
            where = ".".join(str(p) for p in error.get("loc", ()) if p != "call") or "arguments"
            problems.append(f"{where}: {error.get('msg', 'invalid')}")
        message = "invalid arguments: " + "; ".join(problems[:10]) + (f" (and {len(problems) - 10} more)" if len(problems) > 10 else "")
    else:
        message = str(exc)
    for value in _strings(arguments):
        if len(value) > 60:
            for form in (repr(value), value):
                if form in message:
                    message = message.replace(form, short(value))
    return safe_text(message, ERROR_MAX_CHARS)


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for item in value.values() for s in _strings(item)]
    if isinstance(value, list):
        return [s for item in value for s in _strings(item)]
    return []


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
    client chose, or its handshake-era MCP session); else the domain's shared sandbox."""
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
            scope = _CallScope(trial)
            token = _active_call.set(scope)
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
                _active_call.reset(token)
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


def _tool_function(env_cls: type[ToolEnvironment], name: str) -> Any:
    """An async MCP tool function with the method's signature (minus `self`), bound per call to the
    active trial. The body runs on the live state under an undo journal (`servers.journal`) and on a
    copy of the id minter; the recorder commits only when the call succeeded and its result serialised,
    and rolls the journal back otherwise. A refusal returns data and commits nothing; an invalid call, a
    bug or a read tool commits nothing."""
    method = env_cls.tool_methods()[name]
    signature, hints = env_cls.tool_signature(name)
    read_only = env_cls.tool_kind(name) == "read"

    async def call(**kwargs: Any) -> dict[str, Any]:
        scope = _active_call.get()
        if scope is None:  # pragma: no cover - the recorder always binds one
            raise ToolError("no active trial")
        trial = scope.trial
        ids = IdMinter(trial.ids.seed)
        ids.restore(trial.ids.snapshot())
        journal = scope.journal = Journal()
        try:
            with journal.recording():
                value = method(env_cls(trial.state, ids), **kwargs)
        except Refusal as refusal:
            result = refusal.as_result()
            strict_json(result, "result")
            return result  # never committed: the recorder rolls back whatever the tool did first
        except InvalidCall as exc:
            raise ToolError(str(exc)) from None
        result = to_result(value)
        strict_json(result, "result")
        if read_only:
            return result  # a read tool never commits, whatever it did to the world
        # The new state must itself be valid, strict JSON: a tool that stored NaN or invalid text
        # must not poison every later call and the trial record.
        check_changes(journal)
        scope.ids, scope.result, scope.ready = ids, result, True
        return result

    call.__name__ = name
    call.__qualname__ = f"{env_cls.__name__}.{name}"
    call.__doc__ = None  # the description is given to fastmcp directly (`tool_description`): no docstring parsing
    call.__signature__ = signature  # type: ignore[attr-defined]
    call.__annotations__ = hints
    return call


POLICY_URI = "crmbench://policy"
POLICY_PROMPT = "policy"


def domain_policy_text(domain: str) -> str:
    path = POLICIES_DIR / f"{domain}.md"
    return path.read_text(encoding="utf-8").strip() if path.exists() else ""


def server_instructions(domain: str) -> str:
    """The MCP server instructions: what the server is, and the domain policy the agent must follow
    (also served as the resource `policy://<domain>` and the prompt `policy`). An MCP-only agent thereby
    knows what the in-tree agents know before the user speaks."""
    env_cls = environment_class(domain)
    parts = [(env_cls.__doc__ or f"The {domain} domain.").strip()]
    policy = domain_policy_text(domain)
    if policy:
        parts.append(
            f"You act for the business. Follow this policy (also available as the resource "
            f"{POLICY_URI} and the prompt '{POLICY_PROMPT}'):\n\n{policy}"
        )
    return "\n\n".join(parts)


def tool_annotations(kind: str, mutates: bool = False) -> mt.ToolAnnotations:
    """MCP hints from the tool kind and what its code can do: reads change nothing (the gateway never
    commits a read) and may be repeated; a computation is read-only only if its code cannot change the
    world (`mutates_state`): one that records something (a customer's authentication) is not read-only,
    but repeating it changes nothing more (idempotent, not destructive); writes change the world and are
    not idempotent (repeating one is a second effect). The world is closed."""
    if kind == "read" or (kind == "compute" and not mutates):
        return mt.ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
    if kind == "compute":
        return mt.ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
    return mt.ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=False, open_world_hint=False)


_MUTATORS = frozenset({"append", "extend", "insert", "pop", "remove", "clear", "update", "setdefault", "add", "discard", "popitem", "sort", "reverse"})


_COPIES = frozenset({"model_dump", "model_copy", "copy", "deepcopy"})
"""Calls whose result is a fresh object: a local bound from one is not the world."""


def _root(node: Any) -> Any:
    while isinstance(node, ast.Attribute | ast.Subscript | ast.Call):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node


@functools.cache
def mutates_state(env_cls: type[ToolEnvironment], name: str, _depth: int = 0) -> bool:
    """Whether a tool method's code (and the `self.` helpers it calls, transitively) can change the world:
    an assignment, deletion or mutating call (`append`, `update`, …) on anything reached from `self`
    (directly, or through a local bound from a `self.` expression). Derived from the code, so a tool's
    annotations cannot claim read-only for a tool that changes state; conservative when the source is
    not available (True)."""
    method = getattr(env_cls, name, None)
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(method)))
    except (OSError, TypeError, SyntaxError):
        return True
    from_self: set[str] = {"self"}
    for node in ast.walk(tree):  # locals bound from `self.…` (e.g. `account = self._account(id)`)
        copied = isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Attribute) and node.value.func.attr in _COPIES
        if isinstance(node, ast.Assign) and not copied and isinstance(_root(node.value), ast.Name) and _root(node.value).id == "self":
            from_self.update(t.id for t in node.targets if isinstance(t, ast.Name))
        if isinstance(node, ast.For) and isinstance(_root(node.iter), ast.Name) and _root(node.iter).id == "self" and isinstance(node.target, ast.Name):
            from_self.add(node.target.id)

    def reached(expr: Any) -> bool:
        root = _root(expr)
        return isinstance(root, ast.Name) and root.id in from_self

    helpers: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign | ast.Delete):
            targets = node.targets if isinstance(node, ast.Assign | ast.Delete) else [node.target]
            if any(isinstance(t, ast.Attribute | ast.Subscript) and reached(t) for t in targets):
                return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr in _MUTATORS and reached(node.func.value):
                return True
            if isinstance(node.func.value, ast.Name) and node.func.value.id == "self":
                helpers.add(node.func.attr)
    if _depth >= 6:
        return True
    return any(callable(getattr(env_cls, h, None)) and mutates_state(env_cls, h, _depth + 1) for h in helpers - {name})


def tool_description(env_cls: type[ToolEnvironment], name: str) -> str | None:
    """A tool's description: its method's docstring. Given to fastmcp directly rather than parsed out of
    the docstring by fastmcp (griffe: ~0.25 s of `serve` start-up for 149 tools, import included), which
    gives the same text because tool docstrings hold no Args/Returns sections — `tests/test_gateway.py`
    checks that against fastmcp's own parser for every tool."""
    return inspect.getdoc(env_cls.tool_methods()[name]) or None


def tool_input_schema(env_cls: type[ToolEnvironment], name: str) -> dict[str, Any]:
    """The MCP input schema of a tool, exactly as the server publishes it."""
    return domain_tool_specs(env_cls)[name].parameters


REFUSAL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "A business refusal: the call reached the tool and was refused; nothing changed.",
    "properties": {"refused": {"const": True}, "status": {"type": ["integer", "string"]}, "reason": {"type": "string"}},
    "required": ["refused", "reason"],
}


def tool_output_schema(env_cls: type[ToolEnvironment], name: str) -> dict[str, Any] | None:
    """The MCP output schema from the tool method's declared return type: a pydantic model (or a
    TypedDict) gives its schema, or a business refusal. Untyped returns (`dict[str, Any]`) keep
    fastmcp's generic object schema (None)."""
    method = env_cls.tool_methods()[name]
    try:
        returned = typing.get_type_hints(method).get("return")
    except Exception:  # noqa: BLE001 - unresolvable hints: no specific schema
        return None
    is_model = isinstance(returned, type) and issubclass(returned, BaseModel)
    if not (is_model or typing.is_typeddict(returned)):
        return None
    schema = TypeAdapter(returned).json_schema(mode="serialization")
    defs = schema.pop("$defs", {})
    combined: dict[str, Any] = {"type": "object", "anyOf": [schema, REFUSAL_SCHEMA]}
    if defs:
        combined["$defs"] = defs
    return combined


def derive_tool(env_cls: type[ToolEnvironment], name: str) -> FunctionTool:
    """A domain tool as fastmcp makes it from its function: fastmcp derives the input schema (and the
    output schema, when the method declares no model) itself."""
    kind = env_cls.tool_kind(name)
    output = tool_output_schema(env_cls, name)
    extra: dict[str, Any] = {} if output is None else {"output_schema": output}
    return FunctionTool.from_function(
        _tool_function(env_cls, name), description=tool_description(env_cls, name), tags={kind}, annotations=tool_annotations(kind, kind == 'compute' and mutates_state(env_cls, name)), **extra
    )


def tool_from_spec(env_cls: type[ToolEnvironment], name: str, spec: ToolSpec) -> FunctionTool:
    """The tool `derive_tool` makes, from schemas it derived before (`servers.tool_specs`): the fields
    `FunctionTool.from_function` sets, with its defaults, and the method's resolved return type. The
    schemas are copies: every server gets its own, as from a derivation, so nothing done to one tool's
    schema reaches the kept spec or another gateway."""
    kind = env_cls.tool_kind(name)
    fn = _tool_function(env_cls, name)
    return FunctionTool(
        fn=fn,
        name=name,
        description=tool_description(env_cls, name),
        parameters=copy.deepcopy(spec.parameters),
        output_schema=copy.deepcopy(spec.output_schema),
        return_type=fn.__annotations__.get("return"),
        annotations=tool_annotations(kind, kind == "compute" and mutates_state(env_cls, name)),
        tags={kind},
        task_config=TaskConfig(mode="forbidden"),
        run_in_thread=True,
    )


def domain_tool_specs(env_cls: type[ToolEnvironment]) -> dict[str, ToolSpec]:
    """What fastmcp derives for each of a domain's tools: kept (`servers.tool_specs`), else derived by
    fastmcp now and kept."""
    names = list(env_cls.tool_methods())
    specs = tool_specs.load(env_cls, names)
    if specs is None:
        derived = (derive_tool(env_cls, name) for name in names)
        specs = {tool.name: ToolSpec(parameters=tool.parameters, output_schema=tool.output_schema) for tool in derived}
        tool_specs.store(env_cls, specs)
    return specs


def domain_tools(env_cls: type[ToolEnvironment]) -> dict[str, FunctionTool]:
    """Every tool of a domain, as fastmcp would make it, built from its kept specs."""
    return {name: tool_from_spec(env_cls, name, spec) for name, spec in domain_tool_specs(env_cls).items()}


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
        if problem:  # refused before the recorder, as the HTTP parser refuses it
            raise CallRejected(f"the call was rejected and nothing changed: {problem}")
        wire = wire_arguments(name, arguments)
        return await self.recorders[trial.domain].record(trial, name, wire, lambda: run_tool(tools.get(name), name, wire))

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
        if problem:  # what `TrialTools` answers: a client cannot send it, the server never sees it
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
