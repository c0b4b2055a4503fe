"""The gateway: domain MCP servers over per-trial worlds, a recording middleware, and a control plane.

Layout of the HTTP app (`gateway_app`):
- `/<domain>/mcp`   one domain's tools under their own names (what an agent under test connects to);
- `/mcp`            every domain mounted with a namespace (`payments_get_account_balance`), for poking;
- `/control/...`    plain HTTP routes (never in `tools/list`): open a trial, set the turn and the tools
                    exposed in it, read the trace and the state, close it.

The trial of a request is, in order: the request's `_meta["crmbench/trial"]`, the in-process binding
(`bind_trial`, for in-memory clients), the `X-Trial-Id` header, the `?trial=` query parameter, else the
domain's sandbox trial.
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
import time
import typing
from collections.abc import AsyncIterator, Iterator, Sequence
from typing import Any

import mcp_types as mt
from fastmcp import Client, FastMCP
from fastmcp.tools.function_tool import FunctionTool
from fastmcp.exceptions import NotFoundError, ToolError
from fastmcp.server.dependencies import get_http_request
from fastmcp.server.middleware import Middleware, MiddlewareContext
from fastmcp.tools.base import Tool, ToolResult
from pydantic import BaseModel, TypeAdapter

from contracts.catalog import POLICIES_DIR
from contracts.evidence import CallStatus, ToolCallRecord
from servers.base import InvalidCall, Refusal, ToolEnvironment, to_result
from servers.registry import environment_class, known_domains
from servers.trials import SANDBOX_PREFIX, Trial, TrialStore, UnknownTrial

log = logging.getLogger(__name__)

TRIAL_HEADER = "x-trial-id"
TRIAL_QUERY = "trial"
TRIAL_META_KEY = "crmbench/trial"

_bound_trial: contextvars.ContextVar[str | None] = contextvars.ContextVar("crmbench_bound_trial", default=None)
_active_trial: contextvars.ContextVar[Trial | None] = contextvars.ContextVar("crmbench_active_trial", default=None)


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


def _resolve_trial(store: TrialStore, domain: str, meta: Any = None) -> Trial:
    trial_id = requested_trial_id(meta)
    if trial_id == SANDBOX_PREFIX + domain and store.sandbox_enabled:
        trial_id = None  # naming the sandbox trial opens it on first use, like naming no trial
    try:
        return store.get(trial_id) if trial_id else store.sandbox(domain)
    except UnknownTrial as exc:
        store.incident(None, f"tool call on {domain} named an unknown trial id {trial_id!r}")
        raise ToolError(str(exc)) from None


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
        trial = _resolve_trial(self.store, self.domain, _request_meta(context))
        name = context.message.name
        arguments = dict(context.message.arguments or {})
        if trial.domain != self.domain:  # another domain's tool (e.g. through the combined endpoint)
            error = f"trial {trial.trial_id!r} belongs to domain {trial.domain!r}, not {self.domain!r}: tool {self.domain}_{name} is not available to it."
            async with trial.lock:
                trial.trace.append(
                    ToolCallRecord(seq=len(trial.trace), turn=trial.turn, tool=f"{self.domain}_{name}", arguments=arguments, status="blocked", error=error)
                )
            raise ToolError(error)
        async with trial.lock:
            started = time.perf_counter()
            status: CallStatus = "executed"
            payload: Any = None
            error: str | None = None
            token = _active_trial.set(trial)
            try:
                if not trial.tool_exposed(name) and name in self.tool_names:
                    status, error = "blocked", f"Tool {name!r} is not available in this turn."
                    raise ToolError(error)
                result = await call_next(context)
                payload = _result_payload(result)
                if isinstance(payload, dict) and payload.get("refused") is True:
                    status = "refused"
                return result
            except NotFoundError as exc:
                status, error = "unknown_tool", str(exc)
                raise
            except Exception as exc:
                if status != "blocked":
                    status, error = "tool_error", str(exc)
                raise
            finally:
                _active_trial.reset(token)
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


def _tool_function(env_cls: type[ToolEnvironment], name: str) -> Any:
    """An async MCP tool function with the method's signature (minus `self`), bound per call to the
    active trial. The call runs on a copy of the state that is committed only on success."""
    method = env_cls.tool_methods()[name]
    signature, hints = env_cls.tool_signature(name)

    async def call(**kwargs: Any) -> dict[str, Any]:
        trial = _active_trial.get()
        if trial is None:  # pragma: no cover - the recorder always binds one
            raise ToolError("no active trial")
        draft = trial.state.model_copy(deep=True)
        counters = trial.ids.snapshot()
        try:
            value = method(env_cls(draft, trial.ids), **kwargs)
        except Refusal as refusal:
            trial.ids.restore(counters)
            return refusal.as_result()
        except InvalidCall as exc:
            trial.ids.restore(counters)
            raise ToolError(str(exc)) from None
        trial.state = draft
        return to_result(value)

    call.__name__ = name
    call.__qualname__ = f"{env_cls.__name__}.{name}"
    call.__doc__ = method.__doc__
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


def tool_annotations(kind: str) -> mt.ToolAnnotations:
    """MCP hints from the tool kind: reads and computations change nothing and may be repeated; writes
    change the world (and are not idempotent: repeating one is a second effect). The world is closed."""
    if kind in ("read", "compute"):
        return mt.ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
    return mt.ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=False, open_world_hint=False)


def tool_input_schema(env_cls: type[ToolEnvironment], name: str) -> dict[str, Any]:
    """The MCP input schema of a tool, exactly as the server publishes it."""
    return FunctionTool.from_function(_tool_function(env_cls, name)).parameters


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


def build_domain_server(domain: str, store: TrialStore) -> FastMCP:
    """One domain as a standalone MCP server (servable alone over stdio or HTTP, or mounted): its tools
    (annotated from their kinds), its instructions, and its policy as a resource and a prompt."""
    env_cls = environment_class(domain)
    server = FastMCP(
        name=f"crmbench-{domain}",
        instructions=server_instructions(domain),
        mask_error_details=True,
    )
    for name in env_cls.tool_methods():
        kind = env_cls.tool_kind(name)
        output = tool_output_schema(env_cls, name)
        extra: dict[str, Any] = {} if output is None else {"output_schema": output}
        server.tool(_tool_function(env_cls, name), tags={kind}, annotations=tool_annotations(kind), **extra)
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
    async def in_memory_clients(self) -> AsyncIterator[dict[str, Client]]:
        """One in-memory MCP client per domain, shared by every trial: each request names its trial in
        `_meta`, so no per-trial connection is needed."""
        async with contextlib.AsyncExitStack() as stack:
            yield {d: await stack.enter_async_context(Client(s)) for d, s in self.servers.items()}
