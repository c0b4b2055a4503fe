"""The gateway: every payments tool over in-memory and streamable HTTP, recording, isolation, control plane."""

from __future__ import annotations

import json
from typing import Any

import anyio
import httpx2 as httpx
import pytest
from fastmcp import Client

from servers.domains.payments.tools import PaymentsEnvironment
from servers.gateway import Gateway
from servers.recorder import TRIAL_META_KEY, bind_trial

pytestmark = pytest.mark.anyio

# tool -> (calls to make first, arguments, a key its result must contain)
TOOL_CASES: dict[str, tuple[list[tuple[str, dict[str, Any]]], dict[str, Any], str]] = {
    "authenticate_customer": ([], {"customer_id": "CUST-2001", "pin": "4821"}, "authenticated"),
    "freeze_account": ([("authenticate_customer", {"customer_id": "CUST-2002", "pin": "7314"})], {"account_id": "ACC-1002", "reason": "lost card"}, "frozen"),
    "get_account_balance": ([], {"account_id": "ACC-1001"}, "balance"),
    "get_transaction_history": ([], {"account_id": "ACC-1001", "limit": 5}, "payments"),
    "get_payment_details": ([], {"transaction_id": "TXN-A1B2C3"}, "merchant"),
    "validate_transfer": ([], {"source_account_id": "ACC-1001", "destination_account_id": "ACC-1002", "amount": 10}, "valid"),
    "execute_transfer": ([], {"source_account_id": "ACC-1001", "destination_account_id": "ACC-1002", "amount": 10}, "transfer_id"),
    "process_payment": ([], {"account_id": "ACC-1002", "amount": 15.5, "method": "paypal"}, "transaction_id"),
    "send_receipt": ([], {"transaction_id": "TXN-A1B2C3"}, "receipt_id"),
    "award_loyalty_points": ([("send_receipt", {"transaction_id": "TXN-A1B2C3"})], {"account_id": "ACC-1001", "transaction_id": "TXN-A1B2C3"}, "points_awarded"),
    "log_transaction": ([], {"transaction_id": "TXN-A1B2C3"}, "entry_id"),
    "refund_payment": ([("authenticate_customer", {"customer_id": "CUST-2001", "pin": "4821"})], {"transaction_id": "TXN-D4E5F6", "amount": 89.99, "reason": "duplicate"}, "refund_id"),
    "file_dispute": ([("authenticate_customer", {"customer_id": "CUST-2005", "pin": "1138"})], {"transaction_id": "TXN-K1L2M3", "reason": "not_received"}, "dispute_id"),
}


def test_every_tool_has_a_case() -> None:
    assert set(TOOL_CASES) == set(PaymentsEnvironment.tool_methods())


async def _exercise(client: Client, tool: str, meta: dict[str, Any] | None = None) -> dict[str, Any]:
    setup, args, key = TOOL_CASES[tool]
    for name, setup_args in setup:
        await client.call_tool(name, setup_args, meta=meta)
    result = await client.call_tool(tool, args, meta=meta)
    assert not result.is_error
    assert key in result.structured_content, result.structured_content
    assert not result.structured_content.get("refused")
    return result.structured_content


@pytest.mark.parametrize("tool", sorted(TOOL_CASES))
async def test_tool_in_memory(tool: str) -> None:
    gateway = Gateway(["payments"])
    trial = gateway.open_trial("payments")
    with bind_trial(trial.trial_id):
        async with Client(gateway.server("payments")) as client:
            await _exercise(client, tool)
    assert trial.trace[-1].tool == tool and trial.trace[-1].status == "executed"


@pytest.mark.parametrize("tool", sorted(TOOL_CASES))
async def test_tool_over_streamable_http(live_gateway, tool: str) -> None:
    trial = live_gateway.gateway.open_trial("payments")
    async with Client(live_gateway.mcp_url("payments", trial.trial_id)) as client:
        await _exercise(client, tool)
    assert [r.tool for r in trial.trace][-1] == tool
    assert all(r.status == "executed" for r in trial.trace)


async def test_schemas_are_derived_from_signatures_and_docstrings() -> None:
    gateway = Gateway(["payments"])
    async with Client(gateway.server("payments")) as client:
        tools = {t.name: t for t in await client.list_tools()}
    transfer = tools["execute_transfer"]
    assert transfer.description.startswith("Move money between two accounts")
    schema = transfer.input_schema
    assert set(schema["properties"]) == {"source_account_id", "destination_account_id", "amount", "memo"}
    assert set(schema["required"]) == {"source_account_id", "destination_account_id", "amount"}
    assert schema["properties"]["amount"]["type"] == "number"
    assert "ACC-1001" in schema["properties"]["source_account_id"]["description"]
    assert schema["properties"]["memo"]["default"] == ""
    assert tools["process_payment"].input_schema["properties"]["method"]["enum"] == ["card", "paypal", "bank_transfer", "account_balance"]


@pytest.mark.parametrize(
    "args",
    [
        {"source_account_id": "ACC-1001", "destination_account_id": "ACC-1002"},  # missing amount
        {"source_account_id": "ACC-1001", "destination_account_id": "ACC-1002", "amount": "lots"},  # wrong type
        {"source_account_id": "ACC-1001", "destination_account_id": "ACC-1002", "amount": 5, "bogus": 1},  # extra key
        {"source_account_id": "ACC-9999", "destination_account_id": "ACC-1002", "amount": 5},  # unknown id
    ],
)
async def test_malformed_arguments_are_recorded_and_change_nothing(args: dict[str, Any]) -> None:
    gateway = Gateway(["payments"])
    trial = gateway.open_trial("payments")
    before = trial.final_state()
    async with Client(gateway.server("payments")) as client:
        result = await client.call_tool("execute_transfer", args, raise_on_error=False, meta={TRIAL_META_KEY: trial.trial_id})
    assert result.is_error and result.content[0].text
    [record] = trial.trace
    assert record.status == "tool_error" and record.arguments == args and record.error
    assert trial.final_state() == before


async def test_business_refusal_is_data_and_changes_nothing() -> None:
    gateway = Gateway(["payments"])
    trial = gateway.open_trial("payments")
    before = trial.final_state()
    async with Client(gateway.server("payments")) as client:
        meta = {TRIAL_META_KEY: trial.trial_id}
        result = await client.call_tool("execute_transfer", {"source_account_id": "ACC-1002", "destination_account_id": "ACC-1001", "amount": 1000}, meta=meta)
        frozen = await client.call_tool("execute_transfer", {"source_account_id": "ACC-1003", "destination_account_id": "ACC-1001", "amount": 1}, meta=meta)
    assert not result.is_error
    assert result.structured_content == {"refused": True, "status": 422, "reason": "Insufficient funds", "available_balance": 180.0}
    assert frozen.structured_content["status"] == 403 and frozen.structured_content["reason"] == "Source account is frozen"
    assert [r.status for r in trial.trace] == ["refused", "refused"]
    assert trial.final_state() == before and not trial.final_state()["transfers"]


async def test_unknown_tool_is_recorded() -> None:
    gateway = Gateway(["payments"])
    trial = gateway.open_trial("payments")
    async with Client(gateway.server("payments")) as client:
        result = await client.call_tool("wire_money_abroad", {"amount": 1}, raise_on_error=False, meta={TRIAL_META_KEY: trial.trial_id})
    assert result.is_error
    assert trial.trace[0].status == "unknown_tool" and trial.trace[0].tool == "wire_money_abroad"


async def test_turn_exposure_filters_list_and_blocks_calls() -> None:
    gateway = Gateway(["payments"])
    trial = gateway.open_trial("payments")
    gateway.set_turn(trial.trial_id, 3, ["get_account_balance"])
    with bind_trial(trial.trial_id):
        async with Client(gateway.server("payments")) as client:
            assert [t.name for t in await client.list_tools()] == ["get_account_balance"]
            blocked = await client.call_tool("process_payment", {"account_id": "ACC-1002", "amount": 5, "method": "card"}, raise_on_error=False)
            ok = await client.call_tool("get_account_balance", {"account_id": "ACC-1002"})
    assert blocked.is_error and "not available in this turn" in blocked.content[0].text
    assert [(r.tool, r.status, r.turn) for r in trial.trace] == [("process_payment", "blocked", 3), ("get_account_balance", "executed", 3)]
    assert not trial.final_state()["payments"].keys() - gateway.store.get(trial.trial_id).initial_state["payments"].keys()
    assert not ok.is_error


async def test_ids_are_deterministic_per_seed() -> None:
    async def mint(seed: int) -> list[str]:
        gateway = Gateway(["payments"])
        trial = gateway.open_trial("payments", seed=seed, task_id="t")
        ids = []
        async with Client(gateway.server("payments")) as client:
            for _ in range(2):
                r = await client.call_tool("process_payment", {"account_id": "ACC-1001", "amount": 1, "method": "card"}, meta={TRIAL_META_KEY: trial.trial_id})
                ids.append(r.structured_content["transaction_id"])
        return ids

    first, again, other = await mint(7), await mint(7), await mint(8)
    assert first == again and first != other and len(set(first)) == 2
    assert all(i.startswith("TXN-") and len(i) == 10 for i in first)


async def test_trial_of_another_domain_is_rejected() -> None:
    gateway = Gateway(["payments"])
    trial = gateway.open_trial("payments")
    trial.domain = "retail"
    async with Client(gateway.server("payments")) as client:
        result = await client.call_tool("get_account_balance", {"account_id": "ACC-1001"}, raise_on_error=False, meta={TRIAL_META_KEY: trial.trial_id})
    assert result.is_error and "belongs to domain 'retail'" in result.content[0].text
    assert [(r.tool, r.status) for r in trial.trace] == [("payments_get_account_balance", "blocked")]  # refused and recorded


async def test_sandbox_trial_when_no_trial_is_named() -> None:
    gateway = Gateway(["payments"])
    async with Client(gateway.server("payments")) as client:
        await client.call_tool("get_account_balance", {"account_id": "ACC-1001"})
    assert gateway.store.ids() == ["sandbox-payments"]
    fresh = Gateway(["payments"])
    async with Client(fresh.server("payments")) as client:  # naming the sandbox opens it on first use too
        result = await client.call_tool("get_account_balance", {"account_id": "ACC-1001"}, meta={TRIAL_META_KEY: "sandbox-payments"})
    assert not result.is_error and [r.tool for r in fresh.trial("sandbox-payments").trace] == ["get_account_balance"]


async def test_combined_endpoint_namespaces_domains(live_gateway) -> None:
    trial = live_gateway.gateway.open_trial("payments")
    async with Client(f"{live_gateway.base_url}/mcp?trial={trial.trial_id}") as client:
        names = {t.name for t in await client.list_tools()}
        result = await client.call_tool("payments_get_account_balance", {"account_id": "ACC-1002"})
    assert "payments_execute_transfer" in names and "execute_transfer" not in names
    assert result.structured_content["balance"] == 180.0
    assert trial.trace[0].tool == "get_account_balance"


async def test_header_names_the_trial(live_gateway) -> None:
    from fastmcp.client.transports import StreamableHttpTransport

    trial = live_gateway.gateway.open_trial("payments")
    transport = StreamableHttpTransport(live_gateway.mcp_url("payments"), headers={"X-Trial-Id": trial.trial_id})
    async with Client(transport) as client:
        await client.call_tool("get_account_balance", {"account_id": "ACC-1004"})
    assert [r.tool for r in trial.trace] == ["get_account_balance"]


async def test_concurrent_trials_do_not_leak_state(live_gateway) -> None:
    """64 trials at once over HTTP, each moving its own amount: every world sees only its own transfer."""
    n = 64
    trials = [live_gateway.gateway.open_trial("payments", seed=i) for i in range(n)]

    async def run(i: int) -> None:
        async with Client(live_gateway.mcp_url("payments", trials[i].trial_id)) as client:
            await client.call_tool("execute_transfer", {"source_account_id": "ACC-1001", "destination_account_id": "ACC-1002", "amount": i + 1})
            await client.call_tool("get_account_balance", {"account_id": "ACC-1002"})

    async with anyio.create_task_group() as tg:
        for i in range(n):
            tg.start_soon(run, i)
    for i, trial in enumerate(trials):
        state = trial.final_state()
        assert state["accounts"]["ACC-1002"]["balance"] == pytest.approx(180 + i + 1)
        assert state["accounts"]["ACC-1001"]["balance"] == pytest.approx(2450.75 - i - 1)
        assert [r.tool for r in trial.trace] == ["execute_transfer", "get_account_balance"]
        assert trial.trace[1].result["balance"] == pytest.approx(180 + i + 1)


async def test_control_plane_over_http(live_gateway) -> None:
    async with httpx.AsyncClient(base_url=live_gateway.base_url) as http:
        opened = await http.post("/control/trials", json={"task_id": "payments_checkout_full_chain_02", "seed": 3})
        assert opened.status_code == 201, opened.text
        info = opened.json()
        trial_id = info["trial_id"]
        assert info["mcp_url"].endswith(f"/payments/mcp?trial={trial_id}")
        turn = await http.post(f"/control/trials/{trial_id}/turn", json={"turn": 1, "allowed_tools": ["get_account_balance"]})
        assert turn.json() == {"trial_id": trial_id, "turn": 1}
        async with Client(info["mcp_url"]) as client:
            assert [t.name for t in await client.list_tools()] == ["get_account_balance"]
            await client.call_tool("get_account_balance", {"account_id": "ACC-1002"})
        view = (await http.get(f"/control/trials/{trial_id}")).json()
        assert [(r["tool"], r["turn"], r["status"]) for r in view["trace"]] == [("get_account_balance", 1, "executed")]
        assert view["state"]["accounts"]["ACC-1002"]["loyalty_points"] == 0
        closed = await http.delete(f"/control/trials/{trial_id}")
        assert closed.status_code == 200
        assert (await http.get(f"/control/trials/{trial_id}")).status_code == 404
        bad = await http.post("/control/trials", json={"task_id": "payments_nope_01"})
        assert bad.status_code == 404 and "unknown task id" in bad.json()["error"]
        junk = await http.post("/control/trials", content=b"{not json")
        assert junk.status_code == 422
        health = await http.get("/control/health")
        assert json.loads(health.text)["domains"] == ["payments"]


async def test_control_plane_is_not_a_tool(live_gateway) -> None:
    async with Client(live_gateway.mcp_url("payments")) as client:
        names = {t.name for t in await client.list_tools()}
    assert names == set(PaymentsEnvironment.tool_methods())


async def test_daily_limit_counts_todays_transfers() -> None:
    gateway = Gateway(["payments"])
    trial = gateway.open_trial("payments")
    meta = {TRIAL_META_KEY: trial.trial_id}
    args = {"source_account_id": "ACC-1004", "destination_account_id": "ACC-1001"}
    async with Client(gateway.server("payments")) as client:
        first = await client.call_tool("execute_transfer", {**args, "amount": 3000}, meta=meta)
        check = await client.call_tool("validate_transfer", {**args, "amount": 2500}, meta=meta)
        second = await client.call_tool("execute_transfer", {**args, "amount": 2500}, meta=meta)
        rest = await client.call_tool("execute_transfer", {**args, "amount": 2000}, meta=meta)
    assert first.structured_content["status"] == "completed"
    assert check.structured_content == {
        "valid": False, "reason": "Amount exceeds the daily transfer limit", "status": 422,
        "daily_transfer_limit": 5000.0, "remaining_today": 2000.0,
    }
    assert second.structured_content["refused"] and second.structured_content["remaining_today"] == 2000.0
    assert rest.structured_content["status"] == "completed"


def _scribble(node) -> None:  # type: ignore[no-untyped-def]
    """Mutate every container reachable from a state object, in place."""
    from pydantic import BaseModel

    if isinstance(node, BaseModel):
        for name in type(node).model_fields:
            _scribble(getattr(node, name))
    elif isinstance(node, dict):
        for value in list(node.values()):
            _scribble(value)
        node["__scribble__"] = "x"
    elif isinstance(node, list):
        for value in list(node):
            _scribble(value)
        node.append("__scribble__")


@pytest.mark.parametrize("domain", ["payments", "retail"])
def test_trials_never_share_mutable_state(domain: str) -> None:
    """Initial states share nothing with each other or with the cached default (structural sharing in
    the merge must stop at validation), so one trial's writes can never leak into another's world."""
    from servers.registry import environment_class

    gateway = Gateway([domain])
    first = gateway.open_trial(domain)
    _scribble(first.state)
    second = gateway.open_trial(domain, initial_state={"business_date": "2026-12-01"})
    fresh = environment_class(domain).default_state().model_dump(mode="json")
    assert second.final_state() == {**fresh, "business_date": "2026-12-01"}
    assert "__scribble__" not in str(gateway.open_trial(domain).final_state())


def test_tool_descriptions_are_what_fastmcp_would_parse_from_the_docstrings() -> None:
    """`serve` gives fastmcp each tool's description instead of having it parse 149 docstrings at start-up.
    That is the same text only while no tool docstring has a section fastmcp splits off (Args, Returns, …):
    a docstring that grows one fails here, and its parameter descriptions must then be given another way."""
    from fastmcp.utilities.docstring_parsing import parse_docstring

    from servers.registry import environment_class, known_domains
    from servers.tool_derivation import tool_description

    checked = 0
    for domain in known_domains():
        env = environment_class(domain)
        for name, method in env.tool_methods().items():
            parsed = parse_docstring(method)
            assert tool_description(env, name) == parsed.description, f"{domain}.{name}"
            assert parsed.parameters == {}, f"{domain}.{name}: its docstring describes parameters"
            checked += 1
    assert checked >= 149
