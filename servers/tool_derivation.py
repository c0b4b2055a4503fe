"""The derivation of a domain's MCP tools from its world's methods.

What each tool is made of: the async function fastmcp calls (the method bound per call to the active
trial's world, under the call's undo journal), its description, input and output schemas, annotations
(from the tool kind and from whether its code can change the world, `mutates_state`), the server
instructions and policy text, and the schema-derived argument rule `check_no_bool_numbers`. Schemas are
derived by fastmcp once and kept (`servers.tool_specs`); `domain_tools` builds every tool from them.
"""

from __future__ import annotations

import ast
import copy
import functools
import inspect
import textwrap
import typing
from typing import Any

import mcp_types as mt
from fastmcp.exceptions import ToolError
from fastmcp.tools.function_tool import FunctionTool
from fastmcp.utilities.tasks import TaskConfig
from pydantic import BaseModel, TypeAdapter

from contracts.catalog import POLICIES_DIR
from servers import tool_specs
from servers.base import IdMinter, InvalidCall, Refusal, ToolEnvironment, to_result
from servers.calls import CallRejected, active_call, check_changes, strict_json
from servers.journal import Journal
from servers.registry import environment_class
from servers.tool_specs import ToolSpec

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
        scope = active_call.get()
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

