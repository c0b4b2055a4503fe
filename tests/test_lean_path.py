"""The lean in-process path (`Gateway.call_tool`, used by the gates' replays) records exactly what the MCP
path records: the same recorder core, the same fastmcp tool and argument validation, the same statuses.

Every trajectory the gates play for a sample of tasks in every domain (gold, no-op, generic and probe
mutations, behavioural and equivalence battery cases) is replayed both ways; the evidence must be byte
for byte identical once the measured latency (the only non-deterministic field) is zeroed.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from contracts.catalog import load_catalog
from contracts.evidence import Evidence
from contracts.graph import load_graph
from contracts.schema import GoldCall, GoldTurn
from harness.release.batteries import all_cases
from harness.release.mutations import generic_mutations, noop, probe_mutations
from harness.release.replay import GatewayReplayer
from servers.gateway import Gateway
from servers.registry import environment_class

pytestmark = pytest.mark.anyio

def _bytes(evidence: Evidence) -> str:
    data = evidence.model_dump(mode="json")
    for record in data["tool_trace"]:
        record["latency_ms"] = 0.0
    return json.dumps(data, sort_keys=True)


def _sample() -> list[Any]:
    by_domain: dict[str, list[Any]] = {}
    for task in load_catalog().values():
        by_domain.setdefault(task.domain, []).append(task)
    # the first task of every domain, and the last one of every other domain (deterministic)
    return [t for i, tasks in enumerate(by_domain.values()) for t in ((tasks[0], tasks[-1]) if i % 2 else (tasks[0],))]


async def _both(replayer: GatewayReplayer, task: Any, turns: list[GoldTurn], *, strict_refs: bool = False) -> tuple[str, str]:
    mcp = await replayer.play(task, turns, seed=7, strict_refs=strict_refs, lean=False)
    lean = await replayer.play(task, turns, seed=7, strict_refs=strict_refs, lean=True)
    return _bytes(mcp), _bytes(lean)


async def test_lean_path_traces_are_identical_to_the_mcp_path() -> None:
    tasks = _sample()
    assert len({t.domain for t in tasks}) >= 9
    played = 0
    async with GatewayReplayer(Gateway(sorted({t.domain for t in tasks}))) as replayer:
        for task in tasks:
            env = environment_class(task.domain)
            mcp_gold = await replayer.play(task, task.gold, seed=7, strict_refs=True, lean=False)
            trajectories = [task.gold, noop(task).turns]
            trajectories += [m.turns for m in generic_mutations(task, env)][:6]
            trajectories += [m.turns for m in probe_mutations(task, env)][:4]
            trajectories += [c.turns for c in all_cases(task, mcp_gold, env, load_graph(task.domain))][:12]
            for turns in trajectories:
                mcp, lean = await _both(replayer, task, turns)
                assert mcp == lean, f"{task.id}: lean and MCP traces differ"
                played += 1
    assert played > 80


HOSTILE: list[tuple[str, dict[str, Any]]] = [
    ("get_account_balance", {"account_id": "ACC-1001"}),
    ("get_account_balance", {"account_id": "NOPE"}),  # a tool error
    ("get_account_balance", {}),  # a missing argument
    ("get_account_balance", {"account_id": 1001, "extra": True}),  # wrong type, extra key
    ("get_account_balance", {"account_id": "x" * 100_000}),  # too long: rejected before the tool
    ("get_account_balance", {"account_id": "bad\x00text"}),  # unsafe text
    ("no_such_tool", {"a": 1}),  # unknown
    ("execute_transfer", {"source_account_id": "ACC-1001", "destination_account_id": "ACC-1002", "amount": float("nan")}),
    ("execute_transfer", {"source_account_id": "ACC-1001", "destination_account_id": "ACC-1002", "amount": "1e3"}),
    ("execute_transfer", {"source_account_id": "ACC-1001", "destination_account_id": "ACC-1002", "amount": 99_999_999.0}),  # refusal
    ("execute_transfer", {"source_account_id": "ACC-1001", "destination_account_id": "ACC-1002", "amount": 12.5}),
    ("execute_transfer", {"source_account_id": "ACC-1001", "destination_account_id": "ACC-1002", "amount": 12.5}),
]


async def test_lean_path_matches_mcp_on_hostile_and_blocked_calls() -> None:
    from contracts.catalog import get_task

    task = get_task("payments_transfer_insufficient_then_retry_01")
    calls = [GoldCall(tool=name, args=args) for name, args in HOSTILE]
    turns = [GoldTurn(user="one", calls=calls, reply="done"), GoldTurn(user="two", calls=calls[:3], reply="ok")]
    async with GatewayReplayer(Gateway(["payments"])) as replayer:
        mcp, lean = await _both(replayer, task, turns)
        assert mcp == lean
        statuses = {r["status"] for r in json.loads(lean)["tool_trace"]}
        assert {"executed", "tool_error", "unknown_tool"} <= statuses
        # a tool not exposed in the turn is blocked the same way on both paths
        gateway = replayer.gateway
        traces = []
        for lean_path in (False, True):
            trial = gateway.open_trial("payments", initial_state=task.initial_state, seed=7, task_id=task.id)
            gateway.set_turn(trial.trial_id, 0, ["get_account_balance"])
            for call in calls[:2] + calls[-1:]:
                if lean_path:
                    await GatewayReplayer.call_lean(gateway, trial.trial_id, call, trial.trace)
                else:
                    await GatewayReplayer.call(replayer._clients["payments"], trial.trial_id, call, trial.trace, record_unsent=gateway.record_unsent)
            gateway.close_trial(trial.trial_id)
            traces.append([r.model_dump(mode="json") | {"latency_ms": 0} for r in trial.trace])
            assert trial.trace[-1].status == "blocked"
        assert traces[0] == traces[1]
