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

    minted = [live_gateway.gateway.store.mint_sandbox_id() for _ in range(16)]

    async def client(i: int) -> None:
        transport = StreamableHttpTransport(url, headers={"X-Trial-Id": minted[i]})
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
    assert set(minted) <= ids
    for trial_id in minted:
        live_gateway.gateway.close_trial(trial_id)


async def test_the_shared_sandbox_says_so_in_tools_list(live_gateway) -> None:
    async with Client(f"{live_gateway.base_url}/payments/mcp") as c:
        tools = await c.list_tools()
    assert tools and all(SHARED_SANDBOX_NOTE.strip() in (t.description or "") for t in tools)
    trial = live_gateway.gateway.open_trial("payments")
    async with Client(live_gateway.mcp_url("payments", trial.trial_id)) as c:
        tools = await c.list_tools()
    assert not any("SHARED sandbox" in (t.description or "") for t in tools)
    private = StreamableHttpTransport(f"{live_gateway.base_url}/payments/mcp", headers={"X-Trial-Id": live_gateway.gateway.store.mint_sandbox_id()})
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
    one, two = gateway.store.mint_sandbox_id(), gateway.store.mint_sandbox_id()
    try:
        async with Client(gateway.server("payments")) as c:
            first = await c.call_tool("get_account_balance", {"account_id": "ACC-1001"}, raise_on_error=False, meta={"crmbench/trial": one})
            second = await c.call_tool("get_account_balance", {"account_id": "ACC-1001"}, raise_on_error=False, meta={"crmbench/trial": two})
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


async def test_a_guessed_or_forged_sandbox_id_reaches_no_world(live_gateway) -> None:
    """Issue 41: a client-chosen `sandbox-<name>` was open to anyone who guessed it. Ids are issued by the
    gateway (`GET /sandbox`, no token needed) and carry its HMAC; a chosen, guessed or forged one is refused."""
    import httpx

    async with httpx.AsyncClient() as http:
        issued = (await http.get(f"{live_gateway.base_url}/sandbox")).json()
    trial_id = issued["trial_id"]
    assert trial_id.startswith("sandbox-") and issued["headers"] == {"X-Trial-Id": trial_id}
    url = f"{live_gateway.base_url}/payments/mcp"
    async with Client(StreamableHttpTransport(url, headers={"X-Trial-Id": trial_id})) as c:
        assert not (await c.call_tool("execute_transfer", TRANSFER)).is_error
    nonce, mac = trial_id.removeprefix("sandbox-").split(".")
    forged = [
        "sandbox-dev", "sandbox-client-1", f"sandbox-{nonce}", f"sandbox-{nonce}.{'0' * len(mac)}",
        f"sandbox-{'f' * len(nonce)}.{mac}", trial_id.upper(), trial_id + "x",
    ]  # fmt: skip
    for guess in forged:
        async with Client(StreamableHttpTransport(url, headers={"X-Trial-Id": guess})) as c:
            result = await c.call_tool("get_account_balance", {"account_id": "ACC-1001"}, raise_on_error=False)
        assert result.is_error and "unknown trial id" in result.content[0].text, (guess, result.content)
        assert "issued by the gateway" in result.content[0].text or not guess.startswith("sandbox-")
        assert guess not in live_gateway.gateway.store.ids()
    live_gateway.gateway.close_trial(trial_id)


def test_each_store_signs_its_own_ids() -> None:
    one, other = TrialStore(), TrialStore()
    minted = one.mint_sandbox_id()
    assert one.is_minted_sandbox_id(minted) and not other.is_minted_sandbox_id(minted)
    assert len({one.mint_sandbox_id() for _ in range(100)}) == 100
