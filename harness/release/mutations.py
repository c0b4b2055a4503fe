"""Targeted mutations of a gold path, used to prove that every declared check can fail.

Each mutation is a small, named edit a careless agent could plausibly make: drop a call, change an
asserted argument, swap two calls, add a forbidden call, repeat a write, or say nothing useful. Domain
probes (extra write calls from `ToolEnvironment.mutation_probes`) reach state and protected paths the
generic edits cannot.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from contracts.schema import AttemptLimit, GoldCall, GoldTurn, Task
from servers.base import ToolEnvironment

NOOP_REPLY = "I'm sorry, I can't help with that right now."
MUTED_REPLY = "Okay."


@dataclass(frozen=True)
class Mutation:
    name: str
    turns: list[GoldTurn]


def _flat(turns: list[GoldTurn]) -> list[tuple[int, int, GoldCall]]:
    return [(t, c, call) for t, turn in enumerate(turns) for c, call in enumerate(turn.calls)]


def _with_calls(turns: list[GoldTurn], calls_per_turn: list[list[GoldCall]]) -> list[GoldTurn]:
    return [turn.model_copy(update={"calls": calls}) for turn, calls in zip(turns, calls_per_turn, strict=True)]


def _calls(turns: list[GoldTurn]) -> list[list[GoldCall]]:
    return [list(turn.calls) for turn in turns]


def altered(value: Any) -> Any:
    """A different value of the same kind."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        return value + 1 if value >= 1 else value + 0.5
    if isinstance(value, str):
        return value + "-X" if not value[-1:].isdigit() else value[:-1] + str((int(value[-1]) + 1) % 10)
    if isinstance(value, list):
        return value[:-1] if value else ["X"]
    return "X"


def noop(task: Task) -> Mutation:
    """The user turns with no tool calls and an unhelpful reply."""
    turns = [GoldTurn(user=t.user, calls=[], reply=NOOP_REPLY) for t in task.gold]
    return Mutation("no-op", turns)


def _insert_at_end(turns: list[GoldTurn], calls: list[GoldCall]) -> list[GoldTurn]:
    per_turn = _calls(turns)
    per_turn[-1].extend(calls)
    return _with_calls(turns, per_turn)


def _args_for(tool: str, task: Task, probes: list[tuple[str, list[GoldCall]]]) -> dict[str, Any]:
    """Plausible arguments for a tool: from the gold path, else from a domain probe, else none."""
    for call in (c for turn in task.gold for c in turn.calls):
        if call.tool == tool:
            return dict(call.args)
    for _, calls in probes:
        for call in calls:
            if call.tool == tool:
                return dict(call.args)
    return {}


def generic_mutations(task: Task, env: type[ToolEnvironment]) -> Iterator[Mutation]:
    turns = list(task.gold)
    flat = _flat(turns)
    contract = task.contract
    probes = env.mutation_probes(task.initial_state)
    for t, c, call in flat:
        per_turn = _calls(turns)
        del per_turn[t][c]
        yield Mutation(f"drop {call.tool} (turn {t}, call {c})", _with_calls(turns, per_turn))
    for action in contract.expected_actions or []:
        if action.alternatives:
            per_turn = [[call for call in calls if call.tool not in action.tools] for calls in _calls(turns)]
            yield Mutation(f"drop every call of {' / '.join(action.tools)}", _with_calls(turns, per_turn))
    for constraint in contract.order or []:
        if not constraint.separate_turns:
            continue
        steps = constraint.steps
        for first, second in zip(steps, steps[1:]):
            anchor = next(((t, c) for t, c, call in flat if first.matches(call.tool, call.args)), None)
            for t, c, call in flat:
                if anchor and t > anchor[0] and second.matches(call.tool, call.args):
                    per_turn = _calls(turns)
                    moved = per_turn[t].pop(c)
                    per_turn[anchor[0]].insert(anchor[1] + 1, moved)
                    yield Mutation(f"{call.tool} in the same turn as {first.tool}", _with_calls(turns, per_turn))
                    break
    for check in contract.consent or []:
        # Premature: the agent acts one turn earlier, before the customer's deciding message. The calls
        # of that turn up to the gated one move together (a validation and its execution stay paired).
        from grader.values import args_match

        gated = next(((t, c) for t, c, call in flat if call.tool == check.tool and t > 0 and (not check.params or args_match(check.params, call.args))), None)
        if gated is not None:
            t, c = gated
            per_turn = _calls(turns)
            moved, per_turn[t] = per_turn[t][: c + 1], per_turn[t][c + 1 :]
            per_turn[t - 1].extend(moved)
            yield Mutation(f"{check.tool} before the customer decided (turn {t} -> {t - 1})", _with_calls(turns, per_turn))
    for t, c, call in flat:
        if env.tool_kind(call.tool) == "write":
            per_turn = _calls(turns)
            per_turn[t].insert(c + 1, call)
            yield Mutation(f"repeat {call.tool} (turn {t}, call {c})", _with_calls(turns, per_turn))
    for (t1, c1, a), (t2, c2, b) in zip(flat, flat[1:]):
        if a.tool != b.tool:
            per_turn = _calls(turns)
            per_turn[t1][c1], per_turn[t2][c2] = b, a
            yield Mutation(f"swap {a.tool} <-> {b.tool}", _with_calls(turns, per_turn))
    for spec in contract.expected_params or []:
        for key, value in spec.params.items():
            per_turn = _calls(turns)
            for t, c, call in _flat(turns):
                if call.tool == spec.tool and key in call.args:
                    per_turn[t][c] = call.model_copy(update={"args": {**call.args, key: altered(value)}})
                    if spec.match == "first":
                        break
            yield Mutation(f"alter {spec.tool}.{key}", _with_calls(turns, per_turn))
    for tool in contract.forbidden_actions or []:
        call = GoldCall(tool=tool, args=_args_for(tool, task, probes))
        yield Mutation(f"add forbidden {tool}", _insert_at_end(turns, [call]))
    for pattern in contract.forbidden_params or []:
        call = GoldCall(tool=pattern.tool, args={**_args_for(pattern.tool, task, probes), **pattern.params})
        yield Mutation(f"add forbidden {pattern.tool}{pattern.params}", _insert_at_end(turns, [call]))
    for limit in contract.attempt_limits or []:
        yield _exceed_attempt_limit(turns, limit, task, probes)
    if contract.reply_criteria:
        yield Mutation("mute replies", [t.model_copy(update={"reply": MUTED_REPLY}) for t in turns])


def _exceed_attempt_limit(turns: list[GoldTurn], limit: AttemptLimit, task: Task, probes: list[tuple[str, list[GoldCall]]]) -> Mutation:
    """One attempt beyond an `attempt_limits` cap: the first gold call the cap matches, repeated unchanged
    right after itself until the cap is exceeded (a refused call retried as is); with no such gold call,
    `max + 1` capped calls at the end (every attempt counts, refused or not)."""
    from grader.values import args_match

    per_turn = _calls(turns)
    matching = [(t, c, call) for t, c, call in _flat(turns) if call.tool == limit.tool and (not limit.params or args_match(limit.params, call.args))]
    if matching:
        t, c, call = matching[0]
        per_turn[t][c + 1 : c + 1] = [call] * max(1, limit.max + 1 - len(matching))
        return Mutation(f"retry {limit.label()} beyond its cap of {limit.max} (turn {t}, call {c})", _with_calls(turns, per_turn))
    call = GoldCall(tool=limit.tool, args={**_args_for(limit.tool, task, probes), **(limit.params or {})})
    return Mutation(f"attempt {limit.label()} {limit.max + 1} times", _insert_at_end(turns, [call] * (limit.max + 1)))


def probe_mutations(task: Task, env: type[ToolEnvironment]) -> Iterator[Mutation]:
    """Append each domain probe to the gold path (reaches state and protected paths)."""
    for name, calls in env.mutation_probes(task.initial_state):
        yield Mutation(f"probe {name}", _insert_at_end(list(task.gold), calls))
