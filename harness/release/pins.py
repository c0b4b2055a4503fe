"""Gate lint: every record a gold write creates or configures is pinned whole (issue 38, item 4).

A contract that checks the requested fields of a new or reconfigured record but leaves the record's
other settable fields free passes an agent that switches an unrequested setting on in the same call
(`update_settings(timezone=..., sso_enabled=true)`, a segment built with an extra filter). The record's
settable fields come from the world, not from the contract: a field of the record (at any depth) named
like a parameter of the write tool that touched it is a setting that call can make. Each must be pinned:

- `only_changes` does not let it change (an existing record's untouched setting stays as it was), or
- a state check fixes it: `equals` at the field or at any path above it (a whole-object check), or a
  `count` check on the record's collection whose `where` names the field, or
- an `expected_params` entry of that tool asserts the parameter.

Free-text parameters (their facts are checked by text matchers), the record's own id and values the
gold call does not own (a field the tool cannot set) are out of scope. Findings fail the gate. A field the
world itself guards (every other value is refused) may be exempted with a written reason, as a
`battery_exemptions` entry `pins/<collection>.*.<field>`; an exemption that matches nothing is reported.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from contracts.evidence import Evidence
from contracts.schema import Contract, Task
from grader.values import get_path, path_allowed
from harness.release.world import collections, leaves
from servers.base import ToolEnvironment, is_free_text


PIN_EXEMPTION = "pins/"
"""Prefix of a `battery_exemptions` case that exempts an unpinned setting: `pins/credits.*.case_id`."""


def pin_case(record: str, field: str) -> str:
    """The exemption id of a field: its record's collection, `*` for the record, the field below it."""
    collection = record.rpartition(".")[0]
    return f"{PIN_EXEMPTION}{collection}.*.{field[len(record) + 1 :]}"


def record_paths(state: dict[str, Any]) -> set[str]:
    """`collection.key` of every record (a record id may key records of several collections: a payment
    and its loyalty award share the transaction id)."""
    return {f"{path}.{key}" for path, items in collections(state) for key in items if isinstance(key, str)}


def touched_records(gold: Evidence) -> dict[str, bool]:
    """Record path -> created, for every record the gold path created or changed."""
    before, after = record_paths(gold.initial_state), record_paths(gold.final_state)
    return {
        path: path not in before
        for path in sorted(after)
        if path not in before or get_path(gold.initial_state, path) != get_path(gold.final_state, path)
    }


def leaves_of(state: dict[str, Any], path: str) -> list[tuple[str, Any]]:
    """(dotted path, value) of every leaf of the record at `path`."""
    return list(_leaves(get_path(state, path), path))


def _leaves(value: Any, path: str) -> Iterator[tuple[str, Any]]:
    """(dotted path, value) of every leaf under a record; a list is one leaf (its items are not settings)."""
    if isinstance(value, dict) and value:
        for key, item in value.items():
            yield from _leaves(item, f"{path}.{key}")
    else:
        yield path, value


def _strings(value: Any) -> Iterator[str]:
    """Every string leaf of an argument set or a result (the record ids a call names)."""
    return (leaf for leaf in leaves(value) if isinstance(leaf, str))


def _settable(env: type[ToolEnvironment], tool: str) -> set[str]:
    """A write tool's parameters that set a value (free text and ids of the record acted on excluded)."""
    signature, hints = env.tool_signature(tool)
    return {name for name in signature.parameters if not is_free_text(hints.get(name))}


def _pinned(contract: Contract, record: str, field: str, tool: str, param: str) -> bool:
    if contract.only_changes is not None and not path_allowed(field, contract.only_changes):
        return True
    collection, _, key = record.rpartition(".")
    relative = field[len(record) + 1 :].split(".")
    for check in contract.expected_state or []:
        if check.has_equals and (field == check.path or field.startswith(check.path + ".")):
            return True
        if check.count is not None and check.path == collection and check.where and relative[0] in check.where:
            return True
    return any(spec.tool == tool and param in spec.params for spec in contract.expected_params or [])


def pin_findings(task: Task, gold: Evidence, env: type[ToolEnvironment]) -> list[str]:
    """Each settable field of a record the gold path created or changed that no check pins, named with
    the call that could set it. `task` must be prepared (its `${...}` references resolved)."""
    after = gold.final_state
    records = touched_records(gold)
    findings: list[str] = []
    seen: set[str] = set()
    exempt = {e.case for e in task.battery_exemptions or [] if e.case.startswith(PIN_EXEMPTION)}
    found: set[str] = set()
    for call in gold.successful_calls():
        if env.tool_kind(call.tool) != "write":
            continue
        named = set(_strings(call.arguments)) | set(_strings(call.result))
        params = _settable(env, call.tool)
        for record, created in records.items():
            key = record.rpartition(".")[2]
            if key not in named:
                continue
            for field, value in _leaves(get_path(after, record), record):
                if value == key:
                    continue  # the record's own id
                parts = field[len(record) + 1 :].split(".")
                param = next((p for p in parts if p in params), None)
                if param is None or field in seen:
                    continue
                if not _pinned(task.contract, record, field, call.tool, param):
                    seen.add(field)
                    case = pin_case(record, field)
                    found.add(case)
                    if case in exempt:
                        continue
                    what = "creates" if created else "changes"
                    findings.append(
                        f"{call.tool} {what} {record}; its setting {field} (parameter `{param}`) is pinned by no check: "
                        f"an unrequested value would pass (pin it with a state check, a `where` field or a narrower only_changes; or exempt {case} with a reason)"
                    )
    findings += [f"stale pin exemption {case}: no unpinned setting matches it; remove it" for case in sorted(exempt - found)]
    return findings
