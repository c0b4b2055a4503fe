"""In-process agents reach the gateway on its lean path (`GatewayTools`): what they see and what is
recorded must be exactly what an MCP client bound to the trial sees and records.

- the tool surface: `list_tools` (with and without a turn's exposure) and every kind of `call_tool`
  result (executed, refused, tool error, invalid or hostile arguments, unknown and blocked tools) agree
  field by field with `TrialTools` over an in-memory MCP client, and so do the traces;
- whole runs: the reference graph agent, driven by the gold-playing scripted models (router, agent, LLM
  user, LLM judge), gives the same trial records over `--in-process-tools lean` and `mcp` for a sample of
  every domain's tasks (timings aside).
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from pydantic_core import to_jsonable_python
from rich.console import Console

from contracts.catalog import get_task, load_catalog
from harness.runner.config import RunConfig
from harness.runner.gold_models import GoldPlayedModels
from harness.runner.plan import Plan
from harness.runner.run import execute_run
from orchestrator.protocol import ToolSurface, TrialTools
from servers.gateway import Gateway, GatewayTools
from servers.registry import environment_class
from tests.test_lean_path import HOSTILE

pytestmark = pytest.mark.anyio

GOLD_PLAN = Plan(
    agent="graph", agent_model="mock:gold", router_model="mock:gold", user="llm", user_model="mock:gold", judge="llm", judge_model="mock:gold", offline=True
)


def _result(result: Any) -> dict[str, Any]:
    return {
        "content": [block.model_dump(mode="json") for block in result.content],
        "structured_content": result.structured_content,
        "data": to_jsonable_python(result.data),
        "data_type": type(result.data).__name__,
        "is_error": result.is_error,
        "meta": result.meta,
    }


def _trace(trial: Any) -> list[dict[str, Any]]:
    return [r.model_dump(mode="json") | {"latency_ms": 0} for r in trial.trace]


async def test_lean_tools_answer_like_an_mcp_client() -> None:
    task = get_task("payments_transfer_insufficient_then_retry_01")
    gateway = Gateway(["payments"])
    seen: dict[str, list[Any]] = {}
    async with gateway.in_memory_clients() as clients:
        for name in ("mcp", "lean"):
            trial = gateway.open_trial("payments", initial_state=task.initial_state, seed=7, task_id=task.id)
            tools: ToolSurface = TrialTools(clients["payments"], trial.trial_id, gateway.record_unsent) if name == "mcp" else gateway.tools_for(trial.trial_id)
            assert isinstance(tools, ToolSurface)
            out: list[Any] = [[t.model_dump(mode="json") for t in await tools.list_tools()]]
            for tool, args in HOSTILE:
                out.append(_result(await tools.call_tool(tool, args)))
            gateway.set_turn(trial.trial_id, 1, ["get_account_balance"])  # a node's exposure
            out.append([t.name for t in await tools.list_tools()])
            out.append(_result(await tools.call_tool("get_account_balance", {"account_id": "ACC-1001"})))
            out.append(_result(await tools.call_tool("execute_transfer", {"source_account_id": "ACC-1001", "destination_account_id": "ACC-1002", "amount": 1})))
            gateway.close_trial(trial.trial_id)
            out.append(_trace(trial))
            seen[name] = out
    assert isinstance(gateway.tools_for("x"), GatewayTools)
    assert seen["lean"] == seen["mcp"]
    listed, *calls = seen["lean"]
    assert [t["name"] for t in listed] == list(environment_class("payments").tool_methods())
    assert seen["lean"][-4] == ["get_account_balance"]  # a client of the trial sees only what the turn exposes
    statuses = [r["status"] for r in seen["lean"][-1]]
    assert {"executed", "refused", "tool_error", "unknown_tool", "blocked"} <= set(statuses), statuses
    executed = next(r for r in calls if isinstance(r, dict) and not r["is_error"])
    assert executed["data"] == executed["structured_content"]  # parsed by the client's own parser on both paths


def _sample(per_domain: int) -> tuple[str, ...]:
    by_domain: dict[str, list[str]] = {}
    for task in load_catalog().values():
        by_domain.setdefault(task.domain, []).append(task.id)
    return tuple(t for ids in by_domain.values() for t in ids[:: max(1, len(ids) // per_domain)][:per_domain])


def _comparable(records: list[Any]) -> list[dict[str, Any]]:
    out = []
    for record in sorted(records, key=lambda r: r.key.slug):
        data = record.model_dump(mode="json")
        data["wall_s"] = 0
        for usage in data["usage"].values():
            usage["latency_s"] = 0
        for call in data["tool_trace"]:
            call["latency_ms"] = 0
        out.append(data)
    return out


async def _run(tasks: tuple[str, ...], transport: str, out: Path) -> list[Any]:
    config = RunConfig(out=out, task=list(tasks), concurrency=16, agent="graph", agent_model="mock:gold", in_process_tools=transport)  # type: ignore[arg-type]
    result = await execute_run(config, console=Console(quiet=True), components=GoldPlayedModels.of(tasks)(config, GOLD_PLAN))
    return result.records


async def test_graph_agent_runs_are_the_same_on_the_lean_path_and_over_mcp() -> None:
    tasks = _sample(4)
    assert len({get_task(t).domain for t in tasks}) == 9
    with tempfile.TemporaryDirectory() as tmp:
        lean = await _run(tasks, "lean", Path(tmp) / "lean")
        mcp = await _run(tasks, "mcp", Path(tmp) / "mcp")
    assert len(lean) == len(tasks)
    assert _comparable(lean) == _comparable(mcp)
    assert sum(1 for r in lean if r.strict) >= len(tasks) * 0.8  # the model-driven runtime plays most gold paths
    # one reply judgement, plus one consent judgement per turn of a consent-gated call (issue 30)
    calls = {
        r.key.task_id: (r.usage["judge"].calls, 1 + len(r.consent_judgement.items if r.consent_judgement else []))
        for r in lean
        if r.status == "scored" and get_task(r.key.task_id).contract.reply_criteria
    }
    assert all(got == want for got, want in calls.values()), {t: v for t, v in calls.items() if v[0] != v[1]}


async def test_gold_played_models_drive_every_model_role() -> None:
    """A realistic trial (the harness benchmark's): two user turns, four tool calls, twelve model calls."""
    task = "payments_transfer_daily_limit_01"
    with tempfile.TemporaryDirectory() as tmp:
        (record,) = await _run((task,), "lean", Path(tmp) / "run")
    assert record.strict, record.verdict
    # judge: the reply judgement and the consent judgement of the $5,000 transfer (issue 30)
    assert {role: u.calls for role, u in record.usage.items()} == {"user": 3, "router": 2, "agent": 6, "judge": 2}
    assert [c.tool for c in record.tool_trace] == [c.tool for turn in get_task(task).gold for c in turn.calls]
    assert json.dumps(record.judgement.model_dump(mode="json")).count('"passed": true') == len(get_task(task).contract.reply_criteria or [])  # type: ignore[union-attr]
