"""Calls no MCP client can send are recorded too (issue 41, item 7; docs/guarantees.md "every call").

Arguments holding a non-finite number or nested beyond `WIRE_MAX_DEPTH` never reach the recorder on the
in-process paths (an MCP client cannot encode them, so those paths answer with an error as the HTTP
parser would). The agent made the call all the same: each path records it, once, with the status the
recorder gives a call it refuses (`tool_error`; `unknown_tool` for a name no tool has; `blocked` for a
tool the turn does not expose) and the error the agent was told; nothing runs, the world is unchanged.
"""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from fastmcp.exceptions import ToolError

from contracts.schema import GoldCall
from harness.release.replay import GatewayReplayer
from orchestrator.protocol import TrialTools
from servers.calls import WIRE_MAX_DEPTH
from servers.gateway import Gateway

pytestmark = pytest.mark.anyio

TRANSFER = {"source_account_id": "ACC-1001", "destination_account_id": "ACC-1002"}


def _deep(levels: int) -> Any:
    value: Any = "x"
    for _ in range(levels):
        value = [value]
    return value


UNSENDABLE: list[tuple[str, dict[str, Any], str]] = [
    ("execute_transfer", {**TRANSFER, "amount": math.nan}, "non-finite"),
    ("execute_transfer", {**TRANSFER, "amount": 10, "memo": -math.inf}, "non-finite"),
    ("get_account_balance", {"account_id": _deep(WIRE_MAX_DEPTH + 100)}, "nested"),
]


def _trace(trial: Any) -> list[dict[str, Any]]:
    return [r.model_dump(mode="json") | {"latency_ms": 0} for r in trial.trace]


async def _lean_call(gateway: Gateway, trial_id: str, name: str, arguments: dict[str, Any]) -> str:
    with pytest.raises(ToolError) as refused:
        await gateway.call_tool(trial_id, name, arguments)
    return str(refused.value)


@pytest.mark.parametrize(("name", "arguments", "why"), UNSENDABLE, ids=["nan", "infinity", "deep"])
async def test_every_in_process_path_records_an_unsendable_call(name: str, arguments: dict[str, Any], why: str) -> None:
    gateway = Gateway(["payments"])
    traces: dict[str, list[dict[str, Any]]] = {}
    told: dict[str, str] = {}
    async with gateway.in_memory_clients() as clients:
        for path in ("gateway", "lean_tools", "mcp_tools", "replay_mcp", "replay_lean"):
            trial = gateway.open_trial("payments", seed=7)
            before = trial.final_state()
            if path == "gateway":
                told[path] = await _lean_call(gateway, trial.trial_id, name, arguments)
            elif path in ("lean_tools", "mcp_tools"):
                tools = gateway.tools_for(trial.trial_id) if path == "lean_tools" else TrialTools(clients["payments"], trial.trial_id, gateway.record_unsent)
                result = await tools.call_tool(name, arguments)
                assert result.is_error
                told[path] = result.content[0].text
            elif path == "replay_mcp":
                await GatewayReplayer.call(clients["payments"], trial.trial_id, GoldCall(tool=name, args=arguments), trial.trace, record_unsent=gateway.record_unsent)
            else:
                await GatewayReplayer.call_lean(gateway, trial.trial_id, GoldCall(tool=name, args=arguments), trial.trace)
            gateway.close_trial(trial.trial_id)
            assert trial.final_state() == before, path  # nothing ran
            traces[path] = _trace(trial)
    [record] = traces["gateway"]
    assert record["tool"] == name and record["status"] == "tool_error" and why in record["error"]
    assert record["error"].startswith("the call was rejected and nothing changed")
    assert all(trace == traces["gateway"] for trace in traces.values()), traces  # the same record on every path
    assert set(told.values()) == {record["error"]}  # the record says what the agent was told
    json.dumps(traces, allow_nan=False)  # the recorded arguments are strict JSON (NaN as text, depth clipped)


async def test_the_status_is_the_recorders_for_unknown_and_unexposed_tools() -> None:
    gateway = Gateway(["payments"])
    trial = gateway.open_trial("payments")
    await _lean_call(gateway, trial.trial_id, "no_such_tool", {"amount": math.nan})
    gateway.set_turn(trial.trial_id, 1, ["get_account_balance"])
    await _lean_call(gateway, trial.trial_id, "execute_transfer", {**TRANSFER, "amount": math.nan})
    await _lean_call(gateway, trial.trial_id, "get_account_balance", {"account_id": _deep(WIRE_MAX_DEPTH)})
    assert [(r.status, r.turn) for r in trial.trace] == [("unknown_tool", 0), ("blocked", 1), ("tool_error", 1)]
    assert [r.seq for r in trial.trace] == [0, 1, 2]


async def test_sendable_calls_are_recorded_once_and_a_closed_trial_records_nothing() -> None:
    gateway = Gateway(["payments"])
    trial = gateway.open_trial("payments")
    tools = gateway.tools_for(trial.trial_id)
    # just inside the limits: sent, recorded once by the recorder itself (nesting over 64 is its own refusal)
    await tools.call_tool("get_account_balance", {"account_id": _deep(WIRE_MAX_DEPTH - 1)})
    await tools.call_tool("get_account_balance", {"account_id": "ACC-1001"})
    assert [r.status for r in trial.trace] == ["tool_error", "executed"]
    assert "64 levels" in (trial.trace[0].error or "")
    gateway.close_trial(trial.trial_id)  # a call that waited on the trial's lock while it closed:
    await gateway.recorders["payments"].record_unsent(trial, "get_account_balance", {"account_id": math.nan}, "a non-finite number")
    assert len(trial.trace) == 2  # its evidence is taken: nothing may change

