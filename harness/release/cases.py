"""Battery cases: the case type, case ids, and the gold path as turns of calls that every battery edits.

Every battery module (`behaviour`, `equivalence`, `widened`, `replies`, `exploits`) builds `BatteryCase`s
from a task's gold path with these helpers: the path flattened to positioned calls and rebuilt from
edited turns, the literal values it gives each argument (`gold_values`), and arguments for another
call filled from them (`filled_args`, `example_args`). It sits below every battery and below
`harness.release.batteries`, which only assembles and judges the cases, so the imports run one way.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from contracts.schema import GoldCall, GoldTurn, Task
from harness.release.replay import REF
from servers.base import ToolEnvironment

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


# ---- the gold path as turns of calls, and edits of it ------------------------------------------------

Position = tuple[int, int]


def flat_calls(turns: list[GoldTurn]) -> list[tuple[Position, GoldCall]]:
    return [((t, c), call) for t, turn in enumerate(turns) for c, call in enumerate(turn.calls)]


def rebuild_turns(turns: list[GoldTurn], per_turn: list[list[GoldCall]]) -> list[GoldTurn]:
    return [turn.model_copy(update={"calls": calls}) for turn, calls in zip(turns, per_turn, strict=True)]


def calls_per_turn(turns: list[GoldTurn]) -> list[list[GoldCall]]:
    return [list(turn.calls) for turn in turns]


def total_calls(turns: list[GoldTurn]) -> int:
    return sum(len(t.calls) for t in turns)


def append_calls(turns: list[GoldTurn], calls: list[GoldCall]) -> list[GoldTurn]:
    per = calls_per_turn(turns)
    per[-1].extend(calls)
    return rebuild_turns(turns, per)


def is_ref(value: Any) -> bool:
    return isinstance(value, str) and REF.search(value) is not None


def case_id(battery: Battery, kind: str, subject: str, position: Position | None = None) -> str:
    where = f"@{position[0]}.{position[1]}" if position else ""
    return f"{battery}/{kind}/{subject}{where}"


# ---- the gold path's values, as arguments of other calls ---------------------------------------------


def gold_values(task: Task) -> dict[str, Any]:
    """Argument name -> its first literal value in the gold path (references excluded)."""
    values: dict[str, Any] = {}
    for turn in task.gold:
        for call in turn.calls:
            for key, value in call.args.items():
                if key not in values and not is_ref(value):
                    values[key] = value
    return values


def required_params(env: type[ToolEnvironment], tool: str) -> tuple[list[str], list[str]]:
    signature, _ = env.tool_signature(tool)
    required = [p.name for p in signature.parameters.values() if p.default is p.empty]
    optional = [p.name for p in signature.parameters.values() if p.default is not p.empty]
    return required, optional


def filled_args(env: type[ToolEnvironment], tool: str, values: Mapping[str, Any]) -> dict[str, Any] | None:
    """Arguments for `tool` filled by parameter name from `values`; None if a required one is missing."""
    required, optional = required_params(env, tool)
    if any(name not in values for name in required):
        return None
    return {name: values[name] for name in required + optional if name in values}


def example_args(tool: str, task: Task, probes: list[tuple[str, list[Any]]], env: type[ToolEnvironment], values: Mapping[str, Any]) -> dict[str, Any]:
    for turn in task.gold:
        for call in turn.calls:
            if call.tool == tool:
                return dict(call.args)
    filled = filled_args(env, tool, values)
    if filled is not None:
        return filled
    for _, calls in probes:
        for call in calls:
            if call.tool == tool and not any(is_ref(v) for v in call.args.values()):
                return dict(call.args)
    return {}
