"""Sandbox worlds (issue 14): a client that opens no trial gets a private world when it names its own
`sandbox-…` id, or shares the domain's sandbox and is told so in `tools/list`; none with --require-trial."""

from __future__ import annotations

import anyio
import pytest
from fastmcp import Client
from fastmcp.client.transports import StreamableHttpTransport

from servers import trials
from servers.gateway import SHARED_SANDBOX_NOTE, Gateway
from servers.trials import TrialStore

pytestmark = pytest.mark.anyio
TRANSFER = {"source_account_id": "ACC-1001", "destination_account_id": "ACC-1002", "amount": 10}


async def test_each_client_sandbox_id_gets_its_own_world(live_gateway) -> None:
    url = f"{live_gateway.base_url}/payments/mcp"
    balances: dict[int, float] = {}

    async def client(i: int) -> None:
        transport = StreamableHttpTransport(url, headers={"X-Trial-Id": f"sandbox-client-{i}"})
        async with Client(transport) as c:
            before = (await c.call_tool("get_account_balance", {"account_id": "ACC-1001"})).structured_content["balance"]
            for _ in range(i % 3 + 1):
                await c.call_tool("execute_transfer", TRANSFER)
            after = (await c.call_tool("get_account_balance", {"account_id": "ACC-1001"})).structured_content["balance"]
            balances[i] = round(before - after, 2)

    async with anyio.create_task_group() as group:
        for i in range(16):
            group.start_soon(client, i)
    assert balances == {i: 10.0 * (i % 3 + 1) for i in range(16)}  # nobody saw anyone else's transfers
    ids = set(live_gateway.gateway.store.ids())
    assert {f"sandbox-client-{i}" for i in range(16)} <= ids
    for i in range(16):
        live_gateway.gateway.close_trial(f"sandbox-client-{i}")


async def test_the_shared_sandbox_says_so_in_tools_list(live_gateway) -> None:
    async with Client(f"{live_gateway.base_url}/payments/mcp") as c:
        tools = await c.list_tools()
    assert tools and all(SHARED_SANDBOX_NOTE.strip() in (t.description or "") for t in tools)
    trial = live_gateway.gateway.open_trial("payments")
    async with Client(live_gateway.mcp_url("payments", trial.trial_id)) as c:
        tools = await c.list_tools()
    assert not any("SHARED sandbox" in (t.description or "") for t in tools)
    private = StreamableHttpTransport(f"{live_gateway.base_url}/payments/mcp", headers={"X-Trial-Id": "sandbox-mine"})
    async with Client(private) as c:
        tools = await c.list_tools()
    assert not any("SHARED sandbox" in (t.description or "") for t in tools)
    live_gateway.gateway.close_trial(trial.trial_id)


async def test_in_process_clients_see_no_sandbox_note() -> None:
    gateway = Gateway(["payments"])
    async with Client(gateway.server("payments")) as c:
        tools = await c.list_tools()
    assert not any("SHARED sandbox" in (t.description or "") for t in tools)


async def test_no_sandbox_at_all_with_require_trial() -> None:
    gateway = Gateway(["payments"], store=TrialStore(sandbox=False))
    async with Client(gateway.server("payments")) as c:
        anonymous = await c.call_tool("get_account_balance", {"account_id": "ACC-1001"}, raise_on_error=False)
        chosen = await c.call_tool("get_account_balance", {"account_id": "ACC-1001"}, raise_on_error=False, meta={"crmbench/trial": "sandbox-mine"})
    assert anonymous.is_error and "--require-trial" in anonymous.content[0].text
    assert chosen.is_error and "unknown trial id" in chosen.content[0].text
    assert gateway.store.ids() == []


def test_private_sandboxes_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(trials, "MAX_PRIVATE_SANDBOXES", 3)
    store = TrialStore()
    for i in range(5):
        store.sandbox("payments", f"sandbox-{i}")
    assert sorted(store.ids()) == ["sandbox-2", "sandbox-3", "sandbox-4"]


def test_sandbox_worlds_start_from_the_served_task() -> None:
    store = TrialStore()
    store.sandbox_templates["payments"] = {"initial_state": {"accounts": {"ACC-1001": {"balance": 1.0}}}, "seed": 3, "task_id": "t"}
    world = store.sandbox("payments", "sandbox-x")
    assert world.state.accounts["ACC-1001"].balance == 1.0 and world.task_id == "t"


def test_handshake_era_sessions_get_their_own_world(monkeypatch: pytest.MonkeyPatch) -> None:
    from types import SimpleNamespace

    from servers import gateway as gateway_module

    def request(headers: dict[str, str]):  # noqa: ANN202
        return lambda: SimpleNamespace(headers=headers, query_params={})

    store = TrialStore()
    monkeypatch.setattr(gateway_module, "get_http_request", request({"mcp-session-id": "s1", "mcp-protocol-version": "2025-11-25"}))
    first = gateway_module._resolve_trial(store, "payments")
    monkeypatch.setattr(gateway_module, "get_http_request", request({"mcp-session-id": "s2", "mcp-protocol-version": "2025-11-25"}))
    second = gateway_module._resolve_trial(store, "payments")
    monkeypatch.setattr(gateway_module, "get_http_request", request({"mcp-session-id": "per-request", "mcp-protocol-version": "2026-07-28"}))
    stateless = gateway_module._resolve_trial(store, "payments")
    assert first.trial_id != second.trial_id and "session-s1" in first.trial_id
    assert stateless.trial_id == "sandbox-payments"  # stateless-era session ids change per request: shared
