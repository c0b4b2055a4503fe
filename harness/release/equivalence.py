"""The equivalence battery: correct-but-different routes, each of which must pass strictly.

Extra reads of every read tool at every turn (filled from the gold path's values, also about the task's
other records); adjacent independent reads swapped; numbers spelled 180 / 180.0 / "180"; a re-validation
or re-read just before the write it guards.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from contracts.evidence import Evidence
from contracts.schema import GoldCall, Task
from harness.release.cases import BatteryCase, calls_per_turn, case_id, flat_calls, gold_values, is_ref, rebuild_turns, required_params
from servers.base import ToolEnvironment

def _gold_candidates(task: Task) -> dict[str, list[Any]]:
    """Argument name -> the distinct literal values the gold path gives it, in order of appearance."""
    found: dict[str, list[Any]] = {}
    for turn in task.gold:
        for call in turn.calls:
            for key, value in call.args.items():
                if not is_ref(value) and isinstance(value, (str, int, float)) and value not in found.setdefault(key, []):
                    found[key].append(value)
    return found


def _read_variants(env: type[ToolEnvironment], tool: str, candidates: Mapping[str, list[Any]], limit: int = 3) -> list[dict[str, Any]]:
    """Valid argument sets for an extra read: each required parameter filled from gold values of the same
    name or of a qualified name (`destination_account_id` feeds `account_id`). Variant k takes the k-th
    value of each parameter that has one, so a read about *another* record of the task is tried too."""
    required, optional = required_params(env, tool)
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


def _spell(value: Any, how: str) -> Any:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return value
    if how == "float":
        return float(value)
    return str(int(value)) if float(value).is_integer() else f"{value:.2f}"


def equivalence_cases(task: Task, gold: Evidence, env: type[ToolEnvironment]) -> Iterator[BatteryCase]:
    turns = list(task.gold)
    flat = flat_calls(turns)
    contract = task.contract
    forbidden_tools = set(contract.forbidden_actions or [])
    forbidden_patterns = contract.forbidden_params or []
    values = gold_values(task)

    candidates = _gold_candidates(task)
    for tool in env.tool_methods():
        if env.tool_kind(tool) != "read" or tool in forbidden_tools or any(p.tool == tool for p in forbidden_patterns):
            continue
        for k, args in enumerate(_read_variants(env, tool, candidates)):
            per = calls_per_turn(turns)
            for calls in per:
                calls.insert(0, GoldCall(tool=tool, args=args))
            subject = tool if k == 0 else f"{tool}#{k}"
            yield BatteryCase(case_id("equivalence", "extra_read", subject), "equivalence", "extra_read",
                              f"an extra {tool}{args} at the start of every turn", rebuild_turns(turns, per))

    for (pos_a, a), (pos_b, b) in zip(flat, flat[1:]):
        if pos_a[0] != pos_b[0] or env.tool_kind(a.tool) != "read" or env.tool_kind(b.tool) != "read" or a.tool == b.tool:
            continue
        if any(is_ref(v) and f"${{{a.tool}." in v for v in b.args.values()):
            continue
        per = calls_per_turn(turns)
        per[pos_a[0]][pos_a[1]], per[pos_b[0]][pos_b[1]] = b, a
        yield BatteryCase(case_id("equivalence", "reorder_reads", f"{a.tool}+{b.tool}", pos_a), "equivalence", "reorder_reads",
                          f"{b.tool} before {a.tool}", rebuild_turns(turns, per))

    has_numbers = any(isinstance(v, (int, float)) and not isinstance(v, bool) for _, c in flat for v in c.args.values())
    if has_numbers:
        for how in ("float", "string"):
            per = [[c.model_copy(update={"args": {k: _spell(v, how) for k, v in c.args.items()}}) for c in calls] for calls in calls_per_turn(turns)]
            yield BatteryCase(case_id("equivalence", "numbers", how), "equivalence", "numbers",
                              f"every number argument written as a {how}", rebuild_turns(turns, per))

    statuses = [r.status for r in gold.tool_trace] if len(gold.tool_trace) == len(flat) else [None] * len(flat)
    for i, (pos, call) in enumerate(flat):
        if env.tool_kind(call.tool) == "write" or statuses[i] == "refused":
            continue  # a refused check again (a rejected PIN) is a retry every policy forbids (behaviour/retry_refused)
        later_write = next(((p, c) for p, c in flat[i + 1:] if env.tool_kind(c.tool) == "write" and p[0] > pos[0]), None)
        if later_write is None or any(is_ref(v) for v in call.args.values()):
            continue
        wpos, wcall = later_write
        per = calls_per_turn(turns)
        per[wpos[0]].insert(wpos[1], call)
        yield BatteryCase(case_id("equivalence", "recheck", call.tool, pos), "equivalence", "recheck",
                          f"{call.tool} again just before {wcall.tool} in turn {wpos[0]}", rebuild_turns(turns, per))
