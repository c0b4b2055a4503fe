"""Validity batteries: the mistakes agents really make must fail, and valid alternatives must pass.

The falsifiability gate (`harness.release.mutations`) proves that each *declared* check can fail. These
batteries prove something stronger about the contract as a whole, generated from each task's gold path,
its world and its graph (issue "Contracts that catch the mistakes agents really make"):

- **behavioural** - plausible agent mistakes, each of which must fail strictly: repeat each write; drop
  each write; aim each write at a look-alike record of the same kind; move each write before the
  validation (or contract-named read) that precedes it, and - when that check happened in an earlier
  user turn - into that turn (acting before the customer asked or confirmed); change each non-free-text
  argument of each write;
  add an unrequested write of each write tool the task's nodes expose; attempt each forbidden action.
- **equivalence** - correct-but-different routes, each of which must pass strictly: extra reads of every
  read tool at every turn; adjacent independent reads swapped; numbers spelled 180 / 180.0 / "180"; a
  re-validation or re-read just before the write it guards.

A mutation that *adds* a call is only meaningful if the world let that call succeed: when the world
refuses it (a 409 on a repeated receipt), the world itself guards the mistake and the case is reported as
`guarded`, not as a miss. A task may exempt a generated case with a written reason
(`battery_exemptions`); the gate prints every exemption.
"""

from __future__ import annotations

import datetime as dt
import typing
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from contracts.evidence import Evidence
from contracts.graph import GraphConfig
from contracts.schema import GoldCall, GoldTurn, Task
from harness.release.replay import REF
from harness.release.world import probes_of, result_facts
from servers.base import ToolEnvironment, is_free_text

Battery = Literal["behaviour", "equivalence", "reply", "exploit", "playability", "consent"]
Outcome = Literal["killed", "missed", "guarded", "passed", "false_failure", "exempt", "debt", "inapplicable"]
MUST_FAIL: frozenset[str] = frozenset({"behaviour", "exploit", "playability"})


@dataclass(frozen=True)
class BatteryCase:
    """One generated trajectory and what it must do."""

    id: str
    battery: Battery
    kind: str
    description: str
    turns: list[GoldTurn]
    added: tuple[int, ...] = ()
    """Flat indices (in call order) of calls this case adds; they must succeed for the case to apply."""
    fallback: BatteryCase | None = None
    """Tried when this case is guarded (e.g. the same write aimed at the probe's own record)."""
    must: Literal["fail", "pass"] | None = None
    """What the case must do strictly; None: by its battery (behaviour and exploit fail, equivalence passes)."""
    requires: tuple[int, frozenset[str]] | None = None
    """(flat index, facts): the case only applies when that call succeeded and its result holds every fact
    (a read substitute that does not return what the task depends on is no substitute)."""
    replies: tuple[str, ...] | None = None
    """Reply cases: the gold evidence with these assistant replies (one per turn), no replay."""
    appended: tuple[GoldCall, ...] | None = None
    """When the case is the gold path plus these calls at the end of its last turn: played by continuing
    from the gold path's checkpoint (same evidence as a full replay, a fraction of the cost)."""
    toolless: bool = False
    """With `replies`: no tool call at all (the world untouched), as a tool-less exploit."""

    @property
    def expects(self) -> Literal["fail", "pass"]:
        if self.must is not None:
            return self.must
        return "fail" if self.battery in MUST_FAIL else "pass"


@dataclass
class CaseResult:
    case_id: str
    battery: Battery
    kind: str
    outcome: Outcome
    detail: str = ""


@dataclass
class BatteryReport:
    results: list[CaseResult] = field(default_factory=list)
    stale_exemptions: list[str] = field(default_factory=list)

    def count(self, battery: Battery, *outcomes: Outcome) -> int:
        return sum(r.battery == battery and r.outcome in outcomes for r in self.results)

    @property
    def failures(self) -> list[CaseResult]:
        """Misses and false failures the debt ledger does not carry: these fail the gate."""
        return [r for r in self.results if r.outcome in ("missed", "false_failure")]

    @property
    def debt(self) -> list[CaseResult]:
        """Misses and false failures the ledger carries (known debt: not a pass, not a gate failure)."""
        return [r for r in self.results if r.outcome == "debt"]

    kills: dict[str, str] = field(default_factory=dict)
    """Declared check -> the first must-fail case whose verdict failed it (counts towards the kill proof)."""
    stale_debt: list[str] = field(default_factory=list)
    """Ledger entries of this task that no longer miss: the ratchet must shrink, so they fail the gate."""


# ---- trajectory editing ----------------------------------------------------------------------------

Position = tuple[int, int]


def _flat(turns: list[GoldTurn]) -> list[tuple[Position, GoldCall]]:
    return [((t, c), call) for t, turn in enumerate(turns) for c, call in enumerate(turn.calls)]


def _rebuild(turns: list[GoldTurn], per_turn: list[list[GoldCall]]) -> list[GoldTurn]:
    return [turn.model_copy(update={"calls": calls}) for turn, calls in zip(turns, per_turn, strict=True)]


def _per_turn(turns: list[GoldTurn]) -> list[list[GoldCall]]:
    return [list(turn.calls) for turn in turns]


def _flat_index(per_turn: list[list[GoldCall]], position: Position) -> int:
    t, c = position
    return sum(len(calls) for calls in per_turn[:t]) + c


def _is_ref(value: Any) -> bool:
    return isinstance(value, str) and REF.search(value) is not None


def _case_id(battery: Battery, kind: str, subject: str, position: Position | None = None) -> str:
    where = f"@{position[0]}.{position[1]}" if position else ""
    return f"{battery}/{kind}/{subject}{where}"


# ---- world knowledge: look-alike records, argument alternatives ---------------------------------------


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


def _write_tools_of(task: Task, graph: GraphConfig, env: type[ToolEnvironment]) -> list[str]:
    tools: list[str] = []
    for label in task.capabilities:
        for tool in graph.node(label).tools:
            if tool not in tools and env.tool_kind(tool) == "write":
                tools.append(tool)
    return tools


def _gold_values(task: Task) -> dict[str, Any]:
    """Argument name -> its first literal value in the gold path (references excluded)."""
    values: dict[str, Any] = {}
    for turn in task.gold:
        for call in turn.calls:
            for key, value in call.args.items():
                if key not in values and not _is_ref(value):
                    values[key] = value
    return values


def _gold_candidates(task: Task) -> dict[str, list[Any]]:
    """Argument name -> the distinct literal values the gold path gives it, in order of appearance."""
    found: dict[str, list[Any]] = {}
    for turn in task.gold:
        for call in turn.calls:
            for key, value in call.args.items():
                if not _is_ref(value) and isinstance(value, (str, int, float)) and value not in found.setdefault(key, []):
                    found[key].append(value)
    return found


def _read_variants(env: type[ToolEnvironment], tool: str, candidates: Mapping[str, list[Any]], limit: int = 3) -> list[dict[str, Any]]:
    """Valid argument sets for an extra read: each required parameter filled from gold values of the same
    name or of a qualified name (`destination_account_id` feeds `account_id`). Variant k takes the k-th
    value of each parameter that has one, so a read about *another* record of the task is tried too."""
    required, optional = _required_params(env, tool)
    pools: dict[str, list[Any]] = {}
    for name in required + optional:
        pool = list(candidates.get(name, []))
        for key, values in candidates.items():
            if key.endswith("_" + name):
                pool += [v for v in values if v not in pool]
        if pool:
            pools[name] = pool
    if any(name not in pools for name in required):
        return []
    width = min(limit, max(len(pools[name]) for name in required)) if required else 1
    return [{name: pool[min(k, len(pool) - 1)] for name, pool in pools.items() if name in required} for k in range(width)]


def _required_params(env: type[ToolEnvironment], tool: str) -> tuple[list[str], list[str]]:
    signature, _ = env.tool_signature(tool)
    required = [p.name for p in signature.parameters.values() if p.default is p.empty]
    optional = [p.name for p in signature.parameters.values() if p.default is not p.empty]
    return required, optional


def _filled_args(env: type[ToolEnvironment], tool: str, values: Mapping[str, Any]) -> dict[str, Any] | None:
    """Arguments for `tool` filled by parameter name from `values`; None if a required one is missing."""
    required, optional = _required_params(env, tool)
    if any(name not in values for name in required):
        return None
    return {name: values[name] for name in required + optional if name in values}


# ---- behavioural battery -------------------------------------------------------------------------------


def behavioural_cases(
    task: Task, gold: Evidence, env: type[ToolEnvironment], graph: GraphConfig
) -> Iterator[BatteryCase]:
    turns = list(task.gold)
    flat = _flat(turns)
    statuses = [record.status for record in gold.tool_trace]
    if len(statuses) != len(flat):  # the gateway records every call; anything else is a broken replay
        return
    contract = task.contract
    named_reads = {t for a in contract.expected_actions or [] for t in a.tools} | {t for o in contract.order or [] for s in o.steps for t in [s.tool, *(alt.tool for alt in s.alternative_calls)]}
    writes = [(i, pos, call) for i, (pos, call) in enumerate(flat) if env.tool_kind(call.tool) == "write" and statuses[i] == "executed"]
    initial = gold.initial_state

    for i, pos, call in writes:
        per = _per_turn(turns)
        per[pos[0]].insert(pos[1] + 1, call)
        yield BatteryCase(_case_id("behaviour", "repeat", call.tool, pos), "behaviour", "repeat",
                          f"repeat {call.tool} right after itself", _rebuild(turns, per), added=(i + 1,))

        per = _per_turn(turns)
        del per[pos[0]][pos[1]]
        yield BatteryCase(_case_id("behaviour", "drop", call.tool, pos), "behaviour", "drop",
                          f"never call {call.tool}", _rebuild(turns, per))

        _, hints = env.tool_signature(call.tool)
        for key, value in call.args.items():
            if _is_ref(value) or is_free_text(hints.get(key)):
                continue
            other = lookalike(value, initial) if isinstance(value, str) else None
            kind = "lookalike" if other is not None else "alter"
            new_value = other if other is not None else altered_argument(value, hints.get(key))
            if new_value is None or new_value == value:
                continue
            per = _per_turn(turns)
            per[pos[0]][pos[1]] = call.model_copy(update={"args": {**call.args, key: new_value}})
            yield BatteryCase(_case_id("behaviour", kind, f"{call.tool}.{key}", pos), "behaviour", kind,
                              f"{call.tool} with {key}={new_value!r} instead of {value!r}", _rebuild(turns, per))

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
            per = _per_turn(turns)
            moved = per[pos[0]].pop(pos[1])
            per[gpos[0]].insert(gpos[1], moved)
            yield BatteryCase(_case_id("behaviour", "before_check", call.tool, pos), "behaviour", "before_check",
                              f"{call.tool} before the {gcall.tool} that precedes it", _rebuild(turns, per))
            if gpos[0] < pos[0]:
                per = _per_turn(turns)
                moved = per[pos[0]].pop(pos[1])
                per[gpos[0]].insert(gpos[1] + 1, moved)
                yield BatteryCase(_case_id("behaviour", "premature", call.tool, pos), "behaviour", "premature",
                                  f"{call.tool} right after the {gcall.tool} of turn {gpos[0]}, without waiting for the customer's turn {pos[0]}",
                                  _rebuild(turns, per))

    # The unrequested write of each node tool is superseded by the `collateral` kind (harness.release.widened):
    # every write tool of the domain, on the records the gold path created and the task's other records.
    probes = probes_of(env, task)
    values = _gold_values(task)
    for tool in contract.forbidden_actions or []:
        args = _example_args(tool, task, probes, env, values)
        yield BatteryCase(_case_id("behaviour", "forbidden", tool), "behaviour", "forbidden",
                          f"attempt the forbidden {tool} and back off", _append(turns, [GoldCall(tool=tool, args=args)]))
    for k, pattern in enumerate(contract.forbidden_params or []):
        args = {**_example_args(pattern.tool, task, probes, env, values), **pattern.params}
        yield BatteryCase(_case_id("behaviour", "forbidden", f"{pattern.tool}#{k}"), "behaviour", "forbidden",
                          f"attempt {pattern.tool} with {pattern.params}", _append(turns, [GoldCall(tool=pattern.tool, args=args)]))


def _related(check: GoldCall, write: GoldCall) -> bool:
    """Whether a check is about the write's record: they share an identifying argument value (a check of
    another record is not what the write must wait for)."""
    def values(call: GoldCall) -> set[str]:
        return {str(v) for v in call.args.values() if isinstance(v, (str, int, float)) and not isinstance(v, bool) and not _is_ref(v)}

    return bool(values(check) & values(write)) or not check.args


def _total(turns: list[GoldTurn]) -> int:
    return sum(len(t.calls) for t in turns)


def _append(turns: list[GoldTurn], calls: list[GoldCall]) -> list[GoldTurn]:
    per = _per_turn(turns)
    per[-1].extend(calls)
    return _rebuild(turns, per)


def _example_args(tool: str, task: Task, probes: list[tuple[str, list[Any]]], env: type[ToolEnvironment], values: Mapping[str, Any]) -> dict[str, Any]:
    for turn in task.gold:
        for call in turn.calls:
            if call.tool == tool:
                return dict(call.args)
    filled = _filled_args(env, tool, values)
    if filled is not None:
        return filled
    for _, calls in probes:
        for call in calls:
            if call.tool == tool and not any(_is_ref(v) for v in call.args.values()):
                return dict(call.args)
    return {}


# ---- equivalence battery -------------------------------------------------------------------------------


def _spell(value: Any, how: str) -> Any:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return value
    if how == "float":
        return float(value)
    return str(int(value)) if float(value).is_integer() else f"{value:.2f}"


def equivalence_cases(task: Task, gold: Evidence, env: type[ToolEnvironment]) -> Iterator[BatteryCase]:
    turns = list(task.gold)
    flat = _flat(turns)
    contract = task.contract
    forbidden_tools = set(contract.forbidden_actions or [])
    forbidden_patterns = contract.forbidden_params or []
    values = _gold_values(task)

    candidates = _gold_candidates(task)
    for tool in env.tool_methods():
        if env.tool_kind(tool) != "read" or tool in forbidden_tools or any(p.tool == tool for p in forbidden_patterns):
            continue
        for k, args in enumerate(_read_variants(env, tool, candidates)):
            per = _per_turn(turns)
            for calls in per:
                calls.insert(0, GoldCall(tool=tool, args=args))
            subject = tool if k == 0 else f"{tool}#{k}"
            yield BatteryCase(_case_id("equivalence", "extra_read", subject), "equivalence", "extra_read",
                              f"an extra {tool}{args} at the start of every turn", _rebuild(turns, per))

    for (pos_a, a), (pos_b, b) in zip(flat, flat[1:]):
        if pos_a[0] != pos_b[0] or env.tool_kind(a.tool) != "read" or env.tool_kind(b.tool) != "read" or a.tool == b.tool:
            continue
        if any(_is_ref(v) and f"${{{a.tool}." in v for v in b.args.values()):
            continue
        per = _per_turn(turns)
        per[pos_a[0]][pos_a[1]], per[pos_b[0]][pos_b[1]] = b, a
        yield BatteryCase(_case_id("equivalence", "reorder_reads", f"{a.tool}+{b.tool}", pos_a), "equivalence", "reorder_reads",
                          f"{b.tool} before {a.tool}", _rebuild(turns, per))

    has_numbers = any(isinstance(v, (int, float)) and not isinstance(v, bool) for _, c in flat for v in c.args.values())
    if has_numbers:
        for how in ("float", "string"):
            per = [[c.model_copy(update={"args": {k: _spell(v, how) for k, v in c.args.items()}}) for c in calls] for calls in _per_turn(turns)]
            yield BatteryCase(_case_id("equivalence", "numbers", how), "equivalence", "numbers",
                              f"every number argument written as a {how}", _rebuild(turns, per))

    statuses = [r.status for r in gold.tool_trace] if len(gold.tool_trace) == len(flat) else [None] * len(flat)
    for i, (pos, call) in enumerate(flat):
        if env.tool_kind(call.tool) == "write" or statuses[i] == "refused":
            continue  # a refused check again (a rejected PIN) is a retry every policy forbids (behaviour/retry_refused)
        later_write = next(((p, c) for p, c in flat[i + 1:] if env.tool_kind(c.tool) == "write" and p[0] > pos[0]), None)
        if later_write is None or any(_is_ref(v) for v in call.args.values()):
            continue
        wpos, wcall = later_write
        per = _per_turn(turns)
        per[wpos[0]].insert(wpos[1], call)
        yield BatteryCase(_case_id("equivalence", "recheck", call.tool, pos), "equivalence", "recheck",
                          f"{call.tool} again just before {wcall.tool} in turn {wpos[0]}", _rebuild(turns, per))


def all_cases(task: Task, gold: Evidence, env: type[ToolEnvironment], graph: GraphConfig) -> list[BatteryCase]:
    from harness.release import exploits, replies, widened

    cases = (
        list(behavioural_cases(task, gold, env, graph))
        + list(widened.behavioural_cases(task, gold, env))
        + list(equivalence_cases(task, gold, env))
        + list(widened.equivalence_cases(task, gold, env))
        + list(replies.reply_cases(task, gold))
        + list(exploits.exploit_cases(task, gold, env))
    )
    seen: set[str] = set()
    unique = []
    for case in cases:  # two edits can land on one id (e.g. two forbidden patterns); keep the first
        if case.id not in seen:
            seen.add(case.id)
            unique.append(case)
    return unique


def judge_case(case: BatteryCase, evidence: Evidence, strict: bool) -> Outcome:
    """What a played case means: a behavioural case must fail strictly (unless the world refused what it
    added), an equivalence case must pass strictly."""
    trace = evidence.tool_trace
    if case.requires is not None:
        index, facts = case.requires
        # what the substitute returned beyond what it was given (an echoed argument is no fact it found)
        if index >= len(trace) or trace[index].status != "executed" or not facts <= result_facts(trace[index].result, trace[index].arguments):
            return "inapplicable"
    if case.expects == "pass":
        return "passed" if strict else "false_failure"
    if any(index >= len(trace) or trace[index].status != "executed" for index in case.added):
        return "guarded"
    return "missed" if strict else "killed"
