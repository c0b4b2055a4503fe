"""What the batteries know about a task's world, derived from the world itself (never from the contract).

- the records a task touches, their look-alikes, the customer's other records and the records the gold
  path created (read off the gold evidence: new keys of the final state, so `${...}` ids come resolved);
- templates for every write tool of the domain (a gold call of that tool, else a domain probe), so an
  unrequested write can be aimed at any of those records;
- how a tool's own parameter types normalise a value (case, spaces, date forms), so an argument form
  is only tried where the tool accepts it as the same value;
- the facts a gold read contributes (its result's values that later calls or replies rely on).
"""

from __future__ import annotations

import datetime as dt
import functools
import inspect
import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import TypeAdapter

from contracts.evidence import Evidence
from contracts.schema import GoldCall, Task
from harness.release.replay import REF
from servers.base import ToolEnvironment, is_free_text

MAX_TARGETS = 3
"""Targets per write tool for the collateral kind (created records first): bounds the battery's cost."""


def is_ref(value: Any) -> bool:
    return isinstance(value, str) and REF.search(value) is not None


def collections(state: Any, path: str = "", depth: int = 0) -> Iterator[tuple[str, dict[str, Any]]]:
    """(path, {id: record}) for every dict of records in the first three levels of a state."""
    if not isinstance(state, dict) or depth > 2:
        return
    values = list(state.values())
    if values and depth > 0 and all(isinstance(v, dict) for v in values):
        yield path, state
    for key, value in state.items():
        yield from collections(value, f"{path}.{key}" if path else str(key), depth + 1)


_INDEXES: list[tuple[Mapping[str, Any], dict[str, str]]] = []
"""The last few states indexed, with their index: a task's generators index its gold path's initial and
final world several times each (a big world's walk is most of their cost). Kept by identity (the state
object is kept with its index); the evidence's states are never changed once recorded."""


def record_index(state: Mapping[str, Any]) -> dict[str, str]:
    """Record id -> the path of its collection."""
    for known, index in _INDEXES:
        if known is state:
            return dict(index)
    index = {key: path for path, items in collections(dict(state)) for key in items if isinstance(key, str)}
    _INDEXES.insert(0, (state, index))
    del _INDEXES[4:]
    return dict(index)


@dataclass(frozen=True)
class Targets:
    """Record ids an unrequested write may be aimed at, by role, most telling first."""

    created: list[str]
    own: list[str]
    lookalikes: list[str]
    customer: list[str]


def created_records(gold: Evidence) -> list[str]:
    """Ids of the records the gold path created (new keys of a collection in the final state)."""
    before = record_index(gold.initial_state)
    return [key for key in record_index(gold.final_state) if key not in before]


def _similar(value: str, items: Mapping[str, Any]) -> list[str]:
    original = items[value]
    others = [k for k in items if k != value and isinstance(k, str)]

    def score(key: str) -> tuple[int, str]:
        record = items[key]
        shared = sum(1 for f, v in original.items() if isinstance(record, dict) and f in record and record[f] == v)
        return (-shared, key)

    return sorted(others, key=score)


def world_targets(task: Task, gold: Evidence) -> Targets:
    """The records of the task's world, by role: created by the gold path, named by the gold path (own),
    the most similar other record of each (look-alikes), other records of the same customer."""
    state = gold.initial_state
    index = record_index(state)
    by_path = dict(collections(dict(state)))
    own: list[str] = []
    for turn in task.gold:
        for call in turn.calls:
            for value in call.args.values():
                for v in value if isinstance(value, list) else [value]:
                    if isinstance(v, str) and v in index and v not in own:
                        own.append(v)
    lookalikes = [o for v in own for o in _similar(v, by_path[index[v]])[:1] if o not in own]
    customers = {v for v in own if index[v].endswith("customers") or index[v].endswith("contacts") or index[v].endswith("accounts")}
    customer: list[str] = []
    for path, items in by_path.items():
        for key, record in items.items():
            if key in own or key in customer or not isinstance(record, dict):
                continue
            if any(isinstance(v, str) and v in customers for v in record.values()):
                customer.append(key)
    return Targets(created=created_records(gold), own=own, lookalikes=lookalikes, customer=customer)


_PROBES: dict[tuple[type[ToolEnvironment], str], list[tuple[str, list[Any]]]] = {}


def probes_of(env: type[ToolEnvironment], task: Task) -> list[tuple[str, list[Any]]]:
    """`env.mutation_probes(task.initial_state)`, worked out once per distinct world: a domain tries each
    probe on a copy of the world (field service: hundreds of deep copies per world), the battery
    generators ask several times per task, and most tasks of a domain start from the same world (no
    override, or the same one). Probes are a pure function of the domain and the initial state, so the
    key is the state override's canonical JSON; a process proves a few dozen distinct worlds at most."""
    key = (env, json.dumps(task.initial_state, sort_keys=True, default=str))
    probes = _PROBES.get(key)
    if probes is None:
        probes = _PROBES[key] = env.mutation_probes(task.initial_state)
    return list(probes)


def write_templates(task: Task, env: type[ToolEnvironment], catalog_calls: Mapping[str, GoldCall] | None = None) -> dict[str, list[GoldCall]]:
    """Write tool -> a call sequence whose last call is a valid call of it: the task's own gold call, else
    a domain probe (with the probe's prefix), else the first literal gold call of the tool in the catalog."""
    found: dict[str, list[GoldCall]] = {}
    for turn in task.gold:
        for call in turn.calls:
            if env.tool_kind(call.tool) == "write" and call.tool not in found and not any(is_ref(v) for v in call.args.values()):
                found[call.tool] = [call]
    for _, calls in probes_of(env, task):
        for k, call in enumerate(calls):
            if call.tool not in found and env.tool_kind(call.tool) == "write":
                found[call.tool] = list(calls[: k + 1])
    for tool, call in (catalog_calls or {}).items():
        found.setdefault(tool, [call])
    return {tool: found[tool] for tool in env.tool_methods() if tool in found}


def id_params(env: type[ToolEnvironment], tool: str, template: GoldCall, index: Mapping[str, str]) -> list[str]:
    """Parameters of `tool` that name a record: the template gives them a record id, or `*_id`."""
    signature, hints = env.tool_signature(tool)
    out = []
    for name in signature.parameters:
        value = template.args.get(name)
        if is_free_text(hints.get(name)):
            continue
        if (isinstance(value, str) and (value in index or is_ref(value))) or name.endswith("_id"):
            out.append(name)
    return out


# ---- argument forms the tool itself normalises ----------------------------------------------------------


@functools.cache
def _adapter(annotation: Any) -> TypeAdapter[Any]:
    return TypeAdapter(annotation)


def normalised(annotation: Any, value: Any) -> Any:
    """The value as the tool's parameter type validates it (raises if the tool would reject it)."""
    return _adapter(annotation).validate_python(value)


def _date_forms(value: str) -> list[str]:
    try:
        when = dt.datetime.fromisoformat(value)
    except ValueError:
        return []
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
        return [when.strftime("%Y%m%d"), when.strftime("%B %d, %Y"), f"{value}T00:00"]
    return [when.strftime("%Y-%m-%dT%H:%M:%S"), when.strftime("%Y-%m-%d %H:%M"), when.isoformat(timespec="minutes") + "Z"]


def other_forms(annotation: Any, value: Any) -> list[tuple[str, Any]]:
    """(form name, another spelling) of a value that the tool's own type accepts as the same value."""
    if not isinstance(value, str) or is_free_text(annotation) or is_ref(value):
        return []
    try:
        base = normalised(annotation, value)
    except Exception:  # noqa: BLE001 - a gold value the adapter alone cannot validate: nothing to compare
        return []
    candidates = [("case", value.lower() if value != value.lower() else value.upper()), ("spaces", f" {value} ")]
    candidates += [("date", form) for form in _date_forms(value)]
    if re.fullmatch(r"\d{2}:\d{2}", value):
        candidates.append(("time", value.lstrip("0") if value.startswith("0") else f"{value}:00"))
    out = []
    for name, form in candidates:
        if form == value:
            continue
        try:
            if normalised(annotation, form) == base:
                out.append((name, form))
        except Exception:  # noqa: BLE001 - the tool rejects this form: not an equivalent spelling
            continue
    return out


def is_unordered(annotation: Any) -> bool:
    """A set-like list parameter (the `Unordered` marker in `servers.base`, when it exists)."""
    return any("unordered" in type(m).__name__.lower() or "unordered" in repr(m).lower() for m in getattr(annotation, "__metadata__", ()))


def param_default(env: type[ToolEnvironment], tool: str, name: str) -> Any:
    """The tool's declared default of a parameter (`inspect.Parameter.empty` when it has none)."""
    signature, _ = env.tool_signature(tool)
    parameter = signature.parameters.get(name)
    return parameter.default if parameter is not None else inspect.Parameter.empty


# ---- facts a read contributes --------------------------------------------------------------------------


def leaves(value: Any) -> Iterator[Any]:
    if isinstance(value, dict):
        for v in value.values():
            yield from leaves(v)
    elif isinstance(value, list):
        for v in value:
            yield from leaves(v)
    elif isinstance(value, (str, int, float)) and not isinstance(value, bool):
        yield value


def _meaningful(value: Any) -> bool:
    if isinstance(value, str):
        return len(value) >= 3
    return isinstance(value, (int, float)) and abs(value) >= 2


def keyed_leaves(value: Any, key: str = "") -> Iterator[tuple[str, Any]]:
    """(field name, scalar) for every scalar in a result (list items keep their field's name)."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield from keyed_leaves(v, str(k))
    elif isinstance(value, list):
        for v in value:
            yield from keyed_leaves(v, key)
    elif isinstance(value, (str, int, float, bool)):
        yield key, value


def relied_facts(gold: Evidence, index: int) -> frozenset[str]:
    """The facts the task depends on from trace call `index`, as `field=value`: every value of its result
    that a later call's arguments or a reply from its turn on repeat, and every number and boolean it
    returned (a decision such as `eligible: false`, a figure a ranking or total is built from). A
    substitute read must return each under the same field name: a list of plans that mentions "starter"
    does not say which plan the account has."""
    record = gold.tool_trace[index]
    given = {_fact(v) for v in leaves(record.arguments)}
    used: set[str] = set()
    for later in gold.tool_trace[index + 1:]:
        used |= {_fact(v) for v in leaves(later.arguments)}
    replies = " ".join(m.content for m in gold.conversation if m.role == "assistant" and m.turn >= record.turn).lower()
    out: set[str] = set()
    for key, value in keyed_leaves(record.result):
        text = _fact(value)
        if text in given:
            continue
        if isinstance(value, bool) or (isinstance(value, (int, float)) and key) or (_meaningful(value) and (text in used or text.lower() in replies)):
            out.add(f"{key}={text}")
    return frozenset(out)


def _fact(value: Any) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def result_facts(result: Any, arguments: Any = None) -> set[str]:
    """`field=value` facts of a result, without those that only echo the call's own arguments."""
    given = {_fact(v) for v in leaves(arguments)} if arguments is not None else set()
    return {f"{k}={_fact(v)}" for k, v in keyed_leaves(result) if _fact(v) not in given}
