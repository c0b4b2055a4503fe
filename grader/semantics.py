"""Argument and state semantics derived from the tools, never from a task (DESIGN.md, validity principle 2).

Equal effects are equal. Before any programmatic check compares a value, both sides are brought to the
canonical form the *world itself* defines:

- an omitted argument takes the tool's declared default (`issue_refund` without `refund_to` is a call with
  `refund_to="original_payment"`), so it matches a pinned argument and hits a forbidden one;
- every argument is validated through its parameter's own pydantic type (expected and actual alike, when
  validation succeeds), so whatever the tool's type normalises (a lower-cased email, an upper-cased airport
  code, `9:00` -> `09:00`, `"50"` -> `50.0`) the grader normalises identically;
- a list whose order carries no meaning (`servers.base.Unordered`, on a tool parameter or on a field of the
  world's state model) is sorted into a canonical order, so equality of canonical forms is multiset
  equality; this applies to the trace's arguments, the initial and final state, and the contract's
  expected values at those parameters and paths.

The checks in `grader/checks.py` then compare canonical forms with their usual rules. Canonicalisation
works on copies: the recorded evidence is never changed.
"""

from __future__ import annotations

import inspect
import json
import logging
import typing
from functools import cache
from typing import Any

from pydantic import BaseModel, TypeAdapter, ValidationError
from pydantic.fields import FieldInfo

from contracts.evidence import Evidence, ToolCallRecord
from contracts.schema import Contract
from servers.base import ToolEnvironment, Unordered, is_unordered

log = logging.getLogger(__name__)


class CanonicalCall(ToolCallRecord):
    """A trace record with canonical arguments (defaults filled in); `given` names the arguments the
    caller actually sent, which `expected_params` `match: merged` needs (a filled default sets nothing)."""

    given: list[str] = []


def _sort_key(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


def _unordered_sorted(value: list[Any]) -> list[Any]:
    return sorted(value, key=_sort_key)


# ---- tool parameters ----------------------------------------------------------------------------


@cache
def _param_adapter(env: type[ToolEnvironment], tool: str, param: str) -> TypeAdapter[Any] | None:
    _, hints = env.tool_signature(tool)
    hint = hints.get(param)
    if hint is None:
        return None
    try:
        return TypeAdapter(hint)
    except Exception:  # noqa: BLE001 - a type pydantic cannot adapt is compared raw
        log.debug("no TypeAdapter for %s.%s", tool, param, exc_info=True)
        return None


@cache
def _defaults(env: type[ToolEnvironment], tool: str) -> tuple[tuple[str, Any], ...]:
    signature, _ = env.tool_signature(tool)
    out = []
    for p in signature.parameters.values():
        default = p.default
        if default is inspect.Parameter.empty:
            continue
        if isinstance(default, FieldInfo):
            if default.default_factory is not None or default.is_required():
                continue
            default = default.default
        out.append((p.name, default))
    return tuple(out)


def required_params(env: type[ToolEnvironment], tool: str) -> set[str]:
    """The parameters a tool requires (no default): for an update tool, the record it acts on."""
    if tool not in env.tool_methods():
        return set()
    signature, _ = env.tool_signature(tool)
    return {p.name for p in signature.parameters.values() if p.default is inspect.Parameter.empty}


def canonical_param(env: type[ToolEnvironment], tool: str, param: str, value: Any) -> Any:
    """`value` as the tool's parameter type reads it (JSON form), lists marked `Unordered` sorted; the raw
    value when the tool or parameter is unknown or the value does not validate (a wrong value stays wrong)."""
    if tool not in env.tool_methods():
        return value
    adapter = _param_adapter(env, tool, param)
    if adapter is None:
        return value
    try:
        value = adapter.dump_python(adapter.validate_python(value), mode="json")
    except Exception:  # noqa: BLE001 - an invalid value is compared as given
        pass
    _, hints = env.tool_signature(tool)
    return _canonical_by_type(hints[param], value)


def canonical_args(env: type[ToolEnvironment], tool: str, args: dict[str, Any], *, defaults: bool) -> dict[str, Any]:
    """Canonical arguments of one call (`defaults`: omitted arguments take the tool's declared default)."""
    if tool not in env.tool_methods():
        return dict(args)
    out = {key: canonical_param(env, tool, key, value) for key, value in args.items()}
    if defaults:
        for name, default in _defaults(env, tool):
            if name not in out:
                out[name] = canonical_param(env, tool, name, default)
    return out


# ---- state -------------------------------------------------------------------------------------


def _strip_optional(annotation: Any) -> Any:
    """`X | None` -> X (keeping an outer Annotated's metadata visible to the caller first)."""
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, getattr(__import__("types"), "UnionType", None)):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(args) == 1:
            return args[0]
    return annotation


_FIELD_ANNOTATIONS: dict[int, tuple[FieldInfo, Any]] = {}


def _field_annotation(field: FieldInfo) -> Any:
    """A pydantic field's annotation with its metadata re-attached (pydantic moves `Annotated` metadata
    into `FieldInfo.metadata`); one object per field, so what is cached about it stays cached."""
    hit = _FIELD_ANNOTATIONS.get(id(field))
    if hit is not None and hit[0] is field:
        return hit[1]
    annotation = field.annotation
    if any(meta is Unordered for meta in field.metadata):
        annotation = typing.Annotated[annotation, Unordered]
    _FIELD_ANNOTATIONS[id(field)] = (field, annotation)
    return annotation


def _unwrap(annotation: Any) -> tuple[bool, Any]:
    """(marked Unordered, the bare type) through `Annotated[...]` and `X | None` in either nesting."""
    unordered = False
    for _ in range(4):
        if typing.get_origin(annotation) is typing.Annotated:
            unordered = unordered or is_unordered(annotation)
            annotation = typing.get_args(annotation)[0]
            continue
        stripped = _strip_optional(annotation)
        if stripped is annotation:
            break
        annotation = stripped
    return unordered, annotation


def is_unordered_type(annotation: Any) -> bool:
    return _unwrap(annotation)[0]


_HOLDS_UNORDERED: dict[int, tuple[Any, bool]] = {}
"""id(annotation) -> (annotation, whether an `Unordered` list lies anywhere beneath it). The annotation is
kept in the value so its id cannot be reused while cached."""


def _holds_unordered(annotation: Any, _seen: frozenset[int] = frozenset()) -> bool:
    """Whether any list marked `Unordered` lies at or beneath `annotation` (a type's answer never changes,
    so it is worked out once per annotation object): the walk skips every part of a state that cannot
    hold one, which is almost all of it (the release gates canonicalise thousands of states)."""
    key = id(annotation)
    hit = _HOLDS_UNORDERED.get(key)
    if hit is not None and hit[0] is annotation:
        return hit[1]
    if key in _seen:  # a recursive model: its answer is decided by its other fields
        return False
    seen = _seen | {key}
    unordered, bare = _unwrap(annotation)
    if unordered:
        answer = True
    elif bare is Any:
        answer = False  # the walk below leaves an untyped value as it is
    elif isinstance(bare, type) and issubclass(bare, BaseModel):
        answer = any(_holds_unordered(_field_annotation(f), seen) for f in bare.model_fields.values())
    else:
        answer = any(_holds_unordered(arg, seen) for arg in typing.get_args(bare) if arg is not Ellipsis)
    _HOLDS_UNORDERED[key] = (annotation, answer)
    return answer


def _canonical_by_type(annotation: Any, value: Any, records: RecordCache | None = None) -> Any:
    """Walk `value` along `annotation`, sorting every list whose annotation is marked `Unordered`
    (`records`: the items of dict collections are looked up by content first)."""
    if not isinstance(value, (dict, list)) or not _holds_unordered(annotation):
        return value
    unordered, annotation = _unwrap(annotation)
    origin = typing.get_origin(annotation)
    if isinstance(value, dict):
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            fields = annotation.model_fields
            return {k: _canonical_by_type(_field_annotation(fields[k]), v, records) if k in fields else v for k, v in value.items()}
        if origin is dict:
            args = typing.get_args(annotation)
            item = args[1] if len(args) == 2 else Any
            if records is not None:
                return {k: _canonical_record(item, v, records) for k, v in value.items()}
            return {k: _canonical_by_type(item, v) for k, v in value.items()}
        return value
    if isinstance(value, list):
        if origin in (list, tuple, set, frozenset):
            args = typing.get_args(annotation)
            item = args[0] if args else Any
            value = [_canonical_by_type(item, v, records) for v in value]
        return _unordered_sorted(value) if unordered else value
    return value


def annotation_at(model: type[BaseModel], path: str) -> Any:
    """The annotation of the state value at a dotted path (`accounts.ACC-1.users`), or Any when the path
    leaves the typed model."""
    annotation: Any = model
    for part in path.split("."):
        annotation = _unwrap(annotation)[1]
        origin = typing.get_origin(annotation)
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            field = annotation.model_fields.get(part)
            if field is None:
                return Any
            annotation = _field_annotation(field)
        elif origin is dict:
            args = typing.get_args(annotation)
            annotation = args[1] if len(args) == 2 else Any
        elif origin in (list, tuple) and part.lstrip("-").isdigit():
            args = typing.get_args(annotation)
            annotation = args[0] if args else Any
        else:
            return Any
    return annotation


def unordered_index_paths(model: type[BaseModel], path: str) -> str | None:
    """The prefix of `path` that is an `Unordered` list indexed by position (meaningless), or None."""
    parts = path.split(".")
    for i in range(1, len(parts)):
        if parts[i].lstrip("-").isdigit() and is_unordered_type(annotation_at(model, ".".join(parts[:i]))):
            return ".".join(parts[:i])
    return None


def canonical_state(model: type[BaseModel], state: dict[str, Any], records: RecordCache | None = None) -> dict[str, Any]:
    """`records` (one task's many worlds, the release batteries): each record of a collection is
    canonicalised once per distinct content (most records of a case's world are the gold path's)."""
    return typing.cast(dict[str, Any], _canonical_by_type(model, state, records))


RecordCache = dict[tuple[int, str], tuple[Any, Any]]
"""(id(annotation), repr(record)) -> (annotation, canonical record). `repr` of JSON data is exact: it tells
1 from 1.0 and True from 1 and keeps key order; the annotation is kept so its id cannot be reused."""


def _canonical_record(annotation: Any, value: Any, records: RecordCache) -> Any:
    if not isinstance(value, (dict, list)) or not _holds_unordered(annotation):
        return value
    key = (id(annotation), repr(value))
    hit = records.get(key)
    if hit is None:
        hit = records[key] = (annotation, _canonical_by_type(annotation, value, records))
    return hit[1]


def canonical_state_value(model: type[BaseModel], path: str, value: Any) -> Any:
    return _canonical_by_type(annotation_at(model, path), value)


def canonical_where(model: type[BaseModel], path: str, where: dict[str, Any]) -> dict[str, Any]:
    """A `count` check's `where` fields, canonical as fields of the collection's items."""
    collection = _unwrap(annotation_at(model, path))[1]
    args = typing.get_args(collection)
    item = _unwrap(args[-1])[1] if args else Any
    if isinstance(item, type) and issubclass(item, BaseModel):
        return {k: _canonical_by_type(_field_annotation(item.model_fields[k]), v) if k in item.model_fields else v for k, v in where.items()}
    return where


# ---- the contract and the evidence --------------------------------------------------------------


def _canon_alternatives(env: type[ToolEnvironment], alternatives: list[Any] | None) -> list[Any] | None:
    if not alternatives:
        return alternatives
    out = []
    for alt in alternatives:
        if isinstance(alt, dict) and alt.get("params"):
            alt = {**alt, "params": canonical_args(env, alt["tool"], alt["params"], defaults=False)}
        out.append(alt)
    return out


def canonical_contract(env: type[ToolEnvironment], contract: Contract) -> Contract:
    """The contract with every asserted argument and state value in canonical form (asserted arguments
    are canonicalised, never completed with defaults: the contract asserts only what it names)."""
    data = contract.model_dump(exclude_unset=True)
    model = env.state_model

    def params(tool: str, values: dict[str, Any]) -> dict[str, Any]:
        return canonical_args(env, tool, values, defaults=False)

    for action in data.get("expected_actions") or []:
        if action.get("params"):
            action["params"] = params(action["tool"], action["params"])
        action["alternatives"] = _canon_alternatives(env, action.get("alternatives"))
        if action["alternatives"] is None:
            action.pop("alternatives")
    for spec in data.get("expected_params") or []:
        spec["params"] = params(spec["tool"], spec["params"])
        if spec.get("match") == "merged" and not spec.get("record"):
            required = required_params(env, spec["tool"])
            record = [k for k in spec["params"] if k in required]
            if record:
                spec["record"] = record
    for constraint in data.get("order") or []:
        for step in constraint.get("tools") or []:
            if isinstance(step, dict):
                if step.get("params"):
                    step["params"] = params(step["tool"], step["params"])
                if step.get("alternatives"):
                    step["alternatives"] = _canon_alternatives(env, step["alternatives"])
    for spec in data.get("forbidden_params") or []:
        spec["params"] = params(spec["tool"], spec["params"])
    for spec in data.get("attempt_limits") or []:
        if spec.get("params"):
            spec["params"] = params(spec["tool"], spec["params"])
    for check in data.get("expected_state") or []:
        if "equals" in check:
            check["equals"] = canonical_state_value(model, check["path"], check["equals"])
        if check.get("where"):
            check["where"] = canonical_where(model, check["path"], check["where"])
    for check in data.get("forbidden_state") or []:
        check["equals"] = canonical_state_value(model, check["path"], check["equals"])
    try:
        return Contract.model_validate(data)
    except ValidationError:  # never expected: canonical values satisfy the schema the raw ones did
        log.warning("canonical contract does not validate; grading the raw values", exc_info=True)
        return contract


def canonical_evidence(env: type[ToolEnvironment], evidence: Evidence) -> Evidence:
    """A copy of the evidence with canonical call arguments (defaults filled in) and canonical states."""
    model = env.state_model
    trace = [canonical_record(env, record) for record in evidence.tool_trace]
    records: RecordCache = {}  # the final world's records the trial left alone are the initial world's: a lookup
    return evidence.model_copy(
        update={
            "tool_trace": trace,
            "initial_state": canonical_state(model, evidence.initial_state, records),
            "final_state": canonical_state(model, evidence.final_state, records),
        }
    )


def canonical_record(env: type[ToolEnvironment], record: ToolCallRecord) -> CanonicalCall:
    """One trace record with canonical arguments (defaults filled in) and the names the caller sent."""
    # constructed without validation: every field comes from a record already validated and made safe, and
    # the filled-in defaults come from the tool's own signature (the grader does this for every trace record)
    fields = {name: getattr(record, name) for name in ToolCallRecord.model_fields}
    return CanonicalCall.model_construct(
        **{**fields, "arguments": canonical_args(env, record.tool, record.arguments, defaults=True)},
        given=list(record.arguments),
    )


def given_arguments(call: ToolCallRecord) -> set[str]:
    """The arguments the caller sent (a canonical call also carries filled-in defaults)."""
    return set(call.given) if isinstance(call, CanonicalCall) else set(call.arguments)
