"""Sandbox worlds (issue 14): a client that opens no trial gets a private world when it names its own
`sandbox-…` id, or shares the domain's sandbox and is told so in `tools/list`; none with --require-trial."""

from __future__ import annotations

import anyio
import pytest
from fastmcp import Client
from fastmcp.client.transports import StreamableHttpTransport

from servers import trials
from servers.gateway import Gateway
from servers.recorder import SHARED_SANDBOX_NOTE
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


def test_private_sandboxes_are_bounded_and_a_live_one_is_never_evicted(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 28: naming 257 new sandbox ids used to evict another client's world (LRU on live ones)."""
    monkeypatch.setattr(trials, "MAX_PRIVATE_SANDBOXES", 3)
    store = TrialStore()
    victim = store.sandbox("payments", "sandbox-victim")
    victim.state.accounts["ACC-1001"].balance = 1.0
    for i in range(2):
        store.sandbox("payments", f"sandbox-{i}")
    with pytest.raises(trials.SandboxesFull, match="3 private sandboxes are in use"):
        store.sandbox("payments", "sandbox-attacker")
    assert store.sandbox("payments", "sandbox-victim") is victim and victim.state.accounts["ACC-1001"].balance == 1.0
    store.close("sandbox-0")  # a closed one frees its place
    store.sandbox("payments", "sandbox-new")
    assert sorted(store.ids()) == ["sandbox-1", "sandbox-new", "sandbox-victim"]


def test_only_idle_sandboxes_make_room(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(trials, "MAX_PRIVATE_SANDBOXES", 2)
    monkeypatch.setattr(trials, "SANDBOX_IDLE_S", 0.05)
    store = TrialStore()
    store.sandbox("payments", "sandbox-a")
    store.sandbox("payments", "sandbox-b")
    import time

    time.sleep(0.06)
    store.sandbox("payments", "sandbox-b")  # used again: in use
    store.sandbox("payments", "sandbox-c")  # a was idle: dropped
    assert sorted(store.ids()) == ["sandbox-b", "sandbox-c"]


async def test_a_full_sandbox_store_is_a_clear_tool_error() -> None:
    gateway = Gateway(["payments"])
    trials_module = trials
    old = trials_module.MAX_PRIVATE_SANDBOXES
    trials_module.MAX_PRIVATE_SANDBOXES = 1
    try:
        async with Client(gateway.server("payments")) as c:
            first = await c.call_tool("get_account_balance", {"account_id": "ACC-1001"}, raise_on_error=False, meta={"crmbench/trial": "sandbox-1"})
            second = await c.call_tool("get_account_balance", {"account_id": "ACC-1001"}, raise_on_error=False, meta={"crmbench/trial": "sandbox-2"})
    finally:
        trials_module.MAX_PRIVATE_SANDBOXES = old
    assert not first.is_error
    assert second.is_error and "private sandboxes are in use" in second.content[0].text


def test_sandbox_worlds_start_from_the_served_task() -> None:
    store = TrialStore()
    store.sandbox_templates["payments"] = {"initial_state": {"accounts": {"ACC-1001": {"balance": 1.0}}}, "seed": 3, "task_id": "t"}
    world = store.sandbox("payments", "sandbox-x")
    assert world.state.accounts["ACC-1001"].balance == 1.0 and world.task_id == "t"


def test_handshake_era_sessions_get_their_own_world(monkeypatch: pytest.MonkeyPatch) -> None:
    from types import SimpleNamespace

    from servers import recorder as recorder_module

    def request(headers: dict[str, str]):  # noqa: ANN202
        return lambda: SimpleNamespace(headers=headers, query_params={})

    store = TrialStore()
    monkeypatch.setattr(recorder_module, "get_http_request", request({"mcp-session-id": "s1", "mcp-protocol-version": "2025-11-25"}))
    first = recorder_module._resolve_trial(store, "payments")
    monkeypatch.setattr(recorder_module, "get_http_request", request({"mcp-session-id": "s2", "mcp-protocol-version": "2025-11-25"}))
    second = recorder_module._resolve_trial(store, "payments")
    monkeypatch.setattr(recorder_module, "get_http_request", request({"mcp-session-id": "per-request", "mcp-protocol-version": "2026-07-28"}))
    stateless = recorder_module._resolve_trial(store, "payments")
    assert first.trial_id != second.trial_id and "session-s1" in first.trial_id
    assert stateless.trial_id == "sandbox-payments"  # stateless-era session ids change per request: shared
