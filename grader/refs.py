"""Result references in contracts: a value the trial itself produced, named by the call that produced it.

`${file_dispute.dispute_id}` is the `dispute_id` field of the FIRST successful `file_dispute` call's result
in the recorded trace; `${file_dispute#2.dispute_id}` the second's; dotted fields go deeper
(`${book_flight.booking.locator}`, a list by index: `${search_flights.flights.0.flight_id}`). References
may appear in any string of a contract (reply criteria, evidence and absent phrases, state paths, `equals`,
`where`, asserted arguments, consent phrases). A string that is exactly one reference takes the value's
own type (`equals: "${issue_refund.amount}"` compares a number); a reference inside text is formatted.

Resolved at grading time, before any check or judge sees the contract, so a minted id (`DSP-…`) is
checked exactly and an invented one fails. A reference that cannot be resolved (the call never
succeeded, the result has no such field) is replaced by a marker that matches nothing and is reported as
a failing check with a readable reason, never a crash.
"""

from __future__ import annotations

import functools
import re
from collections import OrderedDict
from collections.abc import Sequence
from typing import Annotated, Any

from pydantic import BaseModel, TypeAdapter, ValidationError

from contracts.evidence import Evidence, ToolCallRecord
from contracts.schema import Contract

REF = re.compile(r"\$\{([a-z_][a-z0-9_]*)(?:#(\d+))?\.([A-Za-z0-9_.\-]+)\}")
"""`${tool.field}` or `${tool#N.field}` (N from 1)."""

UNRESOLVED_MARK = "\u27e8unresolved {ref}: {reason}\u27e9"


class Reference(BaseModel):
    """One reference as written, parsed."""

    text: str
    tool: str
    occurrence: int
    field: str


class Unresolved(BaseModel):
    """A reference that could not be resolved, where it was written and why."""

    family: str
    location: str
    reference: str
    reason: str


def parse(text: str) -> list[Reference]:
    return [
        Reference(text=m.group(0), tool=m.group(1), occurrence=int(m.group(2) or 1), field=m.group(3))
        for m in REF.finditer(text)
    ]


def references_in(value: Any) -> list[Reference]:
    """Every reference anywhere in a (dumped) contract value."""
    if isinstance(value, str):
        return parse(value)
    if isinstance(value, dict):
        return [r for k, v in value.items() for r in references_in(k) + references_in(v)]
    if isinstance(value, list):
        return [r for v in value for r in references_in(v)]
    return []


def lookup(ref: Reference, trace: Sequence[ToolCallRecord]) -> tuple[Any, str | None]:
    """(value, None) or (None, reason)."""
    calls = [c for c in trace if c.tool == ref.tool and c.status == "executed"]
    if len(calls) < ref.occurrence:
        if not calls:
            return None, f"{ref.text}: {ref.tool} never succeeded"
        return None, f"{ref.text}: {ref.tool} succeeded {len(calls)} time(s), not {ref.occurrence}"
    node: Any = calls[ref.occurrence - 1].result
    walked: list[str] = []
    for part in ref.field.split("."):
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.lstrip("-").isdigit() and -len(node) <= int(part) < len(node):
            node = node[int(part)]
        else:
            where = ".".join(walked) or "its result"
            return None, f"{ref.text}: the {ref.tool} result has no field {part!r} under {where}"
        walked.append(part)
    if node is None:
        return None, f"{ref.text}: the {ref.tool} result's {ref.field} is null"
    return node, None


def _resolve_value(
    value: Any, trace: Sequence[ToolCallRecord], family: str, location: str, problems: list[Unresolved], *, as_text: bool = False
) -> Any:
    if isinstance(value, dict):
        return {
            _resolve_value(k, trace, family, f"{location}.{k}", problems, as_text=True): _resolve_value(
                v, trace, family, f"{location}.{k}", problems, as_text=as_text
            )
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_resolve_value(v, trace, family, f"{location}[{i}]", problems, as_text=as_text) for i, v in enumerate(value)]
    if not isinstance(value, str) or "${" not in value:
        return value
    refs = parse(value)
    if not refs:
        return value
    resolved: dict[str, Any] = {}
    for ref in refs:
        got, reason = lookup(ref, trace)
        if reason is not None:
            problems.append(Unresolved(family=family, location=location, reference=ref.text, reason=reason))
            resolved[ref.text] = UNRESOLVED_MARK.format(ref=ref.text, reason=reason)
        else:
            resolved[ref.text] = got
    whole = REF.fullmatch(value)
    if whole and not as_text:
        return resolved[value]
    return REF.sub(lambda m: _text(resolved[m.group(0)]), value)


def _text(value: Any) -> str:
    if isinstance(value, float) and abs(round(value, 2) - value) < 1e-9:
        return f"{value:.2f}"
    return str(value)


def resolve(contract: Contract, evidence: Evidence) -> tuple[Contract, list[Unresolved]]:
    """The contract with every reference resolved from the trace, and the references that could not be.

    Only the families that hold a reference are resolved and re-validated (each through its own field
    type: resolution changes values, never the families' shape the contract's own validator checks); the
    contract's dump and where its references are is worked out once per contract object."""
    families = _families_with_references(contract)
    if not families:
        return contract, []
    trace = evidence.tool_trace
    update: dict[str, Any] = {}
    problems: list[Unresolved] = []
    for family, value in families.items():
        adapter = _family_adapter(family)
        for as_text in (False, True):
            # A whole-string reference keeps its value's type; where the schema needs text (a state path),
            # the value is written as text instead.
            found: list[Unresolved] = []
            out = _resolve_value(value, trace, family, family, found, as_text=as_text)
            try:
                update[family] = adapter.validate_python(out)
            except ValidationError as exc:
                error = exc
                continue
            problems.extend(found)
            break
        else:
            refs = ", ".join(sorted({r.text for v in families.values() for r in references_in(v)}))
            reason = f"the contract with {refs} resolved is not a valid contract: {error.errors()[0]['msg']}"
            first = "reply_criteria" if "reply_criteria" in families else next(iter(families))
            return contract, [Unresolved(family=first, location="contract", reference=refs, reason=reason)]
    return contract.model_copy(update=update), problems


_REFERENCES_CACHE_SIZE = 4096
_references: OrderedDict[int, tuple[Contract, dict[str, Any]]] = OrderedDict()


def _families_with_references(contract: Contract) -> dict[str, Any]:
    """{family: its dumped value} for the families of `contract` that hold a reference; kept per contract
    object (with the object, so its id is not reused while kept) in a bounded LRU: a task's contract is
    graded on every trial, and its references do not change."""
    key = id(contract)
    hit = _references.get(key)
    if hit is not None and hit[0] is contract:
        _references.move_to_end(key)
        return hit[1]
    data = contract.model_dump(exclude_unset=True)
    families = {family: value for family, value in data.items() if references_in(value)}
    _references[key] = (contract, families)
    if len(_references) > _REFERENCES_CACHE_SIZE:
        _references.popitem(last=False)
    return families


@functools.cache
def _family_adapter(family: str) -> TypeAdapter[Any]:
    field = Contract.model_fields[family]
    return TypeAdapter(Annotated[field.annotation, field])  # the field's own constraints too


def resolve_contract(contract: Contract, evidence: Evidence) -> Contract:
    """The contract with references resolved (unresolvable ones replaced by a marker that matches nothing)."""
    return resolve(contract, evidence)[0]
