"""The behavioural battery: plausible agent mistakes on the gold path, each of which must fail strictly.

Repeat each write; drop each write; aim each write at a look-alike record of the same kind; move each
write before the validation (or contract-named read) that precedes it, and - when that check happened in
an earlier user turn - into that turn (acting before the customer asked or confirmed); change each
non-free-text argument of each write; switch each optional setting a write leaves at its default to
another value in the same call (an unrequested setting); attempt each forbidden action. The world knowledge it needs
(look-alike records, a plausible wrong value of a parameter's type) lives here too.
"""

from __future__ import annotations

import datetime as dt
import typing
from collections.abc import Iterator, Mapping
from typing import Any, Literal

from contracts.evidence import Evidence
from contracts.graph import GraphConfig
from contracts.schema import GoldCall, GoldTurn, Task
from harness.release.cases import (
    BatteryCase,
    append_calls,
    calls_per_turn,
    case_id,
    example_args,
    flat_calls,
    gold_values,
    is_ref,
    rebuild_turns,
)
from harness.release.world import probes_of
from servers.base import ToolEnvironment, is_free_text

def _collections(state: Any, depth: int = 0) -> Iterator[dict[str, Any]]:
    """Dicts of records (id -> dict) anywhere in the first three levels of the state."""
    if not isinstance(state, dict) or depth > 2:
        return
    values = list(state.values())
    if values and all(isinstance(v, dict) for v in values) and depth > 0:
        yield state
    for value in values:
        yield from _collections(value, depth + 1)


def lookalike(value: str, state: Mapping[str, Any]) -> str | None:
    """Another record of the same collection as the record `value` names, the most similar one first
    (most equal field values, then id order): the record an agent is most likely to confuse it with."""
    for collection in _collections(dict(state)):
        if value in collection:
            original = collection[value]
            others = [k for k in collection if k != value and isinstance(k, str)]
            if not others:
                return None

            def similarity(key: str) -> tuple[int, str]:
                record = collection[key]
                shared = sum(1 for f, v in original.items() if f in record and record[f] == v)
                return (-shared, key)

            return sorted(others, key=similarity)[0]
    return None


def _enum_values(annotation: Any) -> list[Any]:
    """Allowed values of a Literal/Enum parameter (through Annotated and Optional)."""
    base = annotation
    while typing.get_origin(base) is typing.Annotated:
        base = typing.get_args(base)[0]
    if typing.get_origin(base) is typing.Union or type(base).__name__ == "UnionType":
        for arg in typing.get_args(base):
            found = _enum_values(arg)
            if found:
                return found
        return []
    if typing.get_origin(base) is Literal:
        return list(typing.get_args(base))
    if isinstance(base, type) and hasattr(base, "__members__"):
        return [m.value for m in base.__members__.values()]  # type: ignore[attr-defined]
    return []


def altered_argument(value: Any, annotation: Any) -> Any:
    """A plausible wrong value of the same kind: another enum member, the other boolean, a number one
    higher, the next day, or a slightly different string. None when nothing sensible exists."""
    options = [v for v in _enum_values(annotation) if v != value]
    if options:
        return options[0]
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, float):
        return round(value + 1.0, 2)
    if isinstance(value, str):
        try:
            day = dt.date.fromisoformat(value)
        except ValueError:
            pass
        else:
            return (day + dt.timedelta(days=1)).isoformat()
        if "@" in value:
            return "x" + value
        if value and value[-1].isdigit():
            return value[:-1] + str((int(value[-1]) + 1) % 10)
        return value + " (other)"
    if isinstance(value, list) and value:
        return value[:-1]
    return None


def _admits_bool(annotation: Any) -> bool:
    """Whether a parameter takes a boolean (`bool`, `bool | None`, through Annotated)."""
    while typing.get_origin(annotation) is typing.Annotated:
        annotation = typing.get_args(annotation)[0]
    return annotation is bool or bool in typing.get_args(annotation)


def _current_values(gold: Evidence, index: int, name: str) -> list[Any]:
    """The values of the field `name` on the records a gold call names (its arguments or its result), in
    the final world: a setting switched to the value it already has is no change."""
    from harness.release.pins import leaves_of, record_paths

    record = gold.tool_trace[index]
    named = {v for v in (*record.arguments.values(), *((record.result or {}).values() if isinstance(record.result, dict) else ())) if isinstance(v, str)}
    return [
        value
        for path in record_paths(gold.final_state)
        if path.rpartition(".")[2] in named
        for field, value in leaves_of(gold.final_state, path)
        if field.rpartition(".")[2] == name
    ]


def _unrequested_settings(
    turns: list[GoldTurn], pos: tuple[int, int], call: GoldCall, env: type[ToolEnvironment], gold: Evidence, index: int
) -> Iterator[BatteryCase]:
    """The gold write with one optional setting it leaves at its default switched to another value in the
    same call (`sso_enabled=true` on a time-zone change): what the customer never asked for must fail. From
    the tool's signature and the world (never the value the record already holds); free text and settings
    without another sensible value are skipped."""
    from grader.semantics import canonical_args

    _, hints = env.tool_signature(call.tool)
    for name, default in canonical_args(env, call.tool, {}, defaults=True).items():
        if name in call.args or is_free_text(hints.get(name)):
            continue
        current = [default, *_current_values(gold, index, name)]
        options = _enum_values(hints.get(name)) or ([True, False] if _admits_bool(hints.get(name)) else [altered_argument(default, hints.get(name))])
        other = next((o for o in options if o is not None and o not in current), None)
        if other is None:
            continue
        per = calls_per_turn(turns)
        per[pos[0]][pos[1]] = call.model_copy(update={"args": {**call.args, name: other}})
        yield BatteryCase(case_id("behaviour", "unrequested_setting", f"{call.tool}.{name}", pos), "behaviour", "unrequested_setting",
                          f"{call.tool} also sets {name}={other!r}, which nobody asked for", rebuild_turns(turns, per))


def behavioural_cases(
    task: Task, gold: Evidence, env: type[ToolEnvironment], graph: GraphConfig
) -> Iterator[BatteryCase]:
    turns = list(task.gold)
    flat = flat_calls(turns)
    statuses = [record.status for record in gold.tool_trace]
    if len(statuses) != len(flat):  # the gateway records every call; anything else is a broken replay
        return
    contract = task.contract
    named_reads = {t for a in contract.expected_actions or [] for t in a.tools} | {t for o in contract.order or [] for s in o.steps for t in [s.tool, *(alt.tool for alt in s.alternative_calls)]}
    writes = [(i, pos, call) for i, (pos, call) in enumerate(flat) if env.tool_kind(call.tool) == "write" and statuses[i] == "executed"]
    initial = gold.initial_state

    for i, pos, call in writes:
        per = calls_per_turn(turns)
        per[pos[0]].insert(pos[1] + 1, call)
        yield BatteryCase(case_id("behaviour", "repeat", call.tool, pos), "behaviour", "repeat",
                          f"repeat {call.tool} right after itself", rebuild_turns(turns, per), added=(i + 1,))

        per = calls_per_turn(turns)
        del per[pos[0]][pos[1]]
        yield BatteryCase(case_id("behaviour", "drop", call.tool, pos), "behaviour", "drop",
                          f"never call {call.tool}", rebuild_turns(turns, per))

        _, hints = env.tool_signature(call.tool)
        for key, value in call.args.items():
            if is_ref(value) or is_free_text(hints.get(key)):
                continue
            other = lookalike(value, initial) if isinstance(value, str) else None
            kind = "lookalike" if other is not None else "alter"
            new_value = other if other is not None else altered_argument(value, hints.get(key))
            if new_value is None or new_value == value:
                continue
            per = calls_per_turn(turns)
            per[pos[0]][pos[1]] = call.model_copy(update={"args": {**call.args, key: new_value}})
            yield BatteryCase(case_id("behaviour", kind, f"{call.tool}.{key}", pos), "behaviour", kind,
                              f"{call.tool} with {key}={new_value!r} instead of {value!r}", rebuild_turns(turns, per))

        yield from _unrequested_settings(turns, pos, call, env, gold, i)

        guard = next(
            (
                (j, p, c)
                for j, (p, c) in reversed(list(enumerate(flat[:i])))
                if (env.tool_kind(c.tool) == "compute" or (env.tool_kind(c.tool) == "read" and c.tool in named_reads)) and _related(c, call)
            ),
            None,
        )
        if guard is not None:
            j, gpos, gcall = guard
            per = calls_per_turn(turns)
            moved = per[pos[0]].pop(pos[1])
            per[gpos[0]].insert(gpos[1], moved)
            yield BatteryCase(case_id("behaviour", "before_check", call.tool, pos), "behaviour", "before_check",
                              f"{call.tool} before the {gcall.tool} that precedes it", rebuild_turns(turns, per))
            if gpos[0] < pos[0]:
                per = calls_per_turn(turns)
                moved = per[pos[0]].pop(pos[1])
                per[gpos[0]].insert(gpos[1] + 1, moved)
                yield BatteryCase(case_id("behaviour", "premature", call.tool, pos), "behaviour", "premature",
                                  f"{call.tool} right after the {gcall.tool} of turn {gpos[0]}, without waiting for the customer's turn {pos[0]}",
                                  rebuild_turns(turns, per))

    # The unrequested write of each node tool is superseded by the `collateral` kind (harness.release.widened):
    # every write tool of the domain, on the records the gold path created and the task's other records.
    probes = probes_of(env, task)
    values = gold_values(task)
    for tool in contract.forbidden_actions or []:
        args = example_args(tool, task, probes, env, values)
        yield BatteryCase(case_id("behaviour", "forbidden", tool), "behaviour", "forbidden",
                          f"attempt the forbidden {tool} and back off", append_calls(turns, [GoldCall(tool=tool, args=args)]))
    for k, pattern in enumerate(contract.forbidden_params or []):
        args = {**example_args(pattern.tool, task, probes, env, values), **pattern.params}
        yield BatteryCase(case_id("behaviour", "forbidden", f"{pattern.tool}#{k}"), "behaviour", "forbidden",
                          f"attempt {pattern.tool} with {pattern.params}", append_calls(turns, [GoldCall(tool=pattern.tool, args=args)]))

    # ---- availability (issue 38, item 3): a reply that calls a free slot taken, or a taken one free ----
    from harness.release.guards import availability_cases

    yield from availability_cases(task, gold)


def _related(check: GoldCall, write: GoldCall) -> bool:
    """Whether a check is about the write's record: they share an identifying argument value (a check of
    another record is not what the write must wait for)."""
    def values(call: GoldCall) -> set[str]:
        return {str(v) for v in call.args.values() if isinstance(v, (str, int, float)) and not isinstance(v, bool) and not is_ref(v)}

    return bool(values(check) & values(write)) or not check.args
