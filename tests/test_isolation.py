"""The agent under test reaches only its own trial's tools: the control plane needs the run's token,
foreign Origins are refused, unknown trial ids and other domains' tools are refused and recorded. And the
domain's context is MCP-native: instructions, the policy as a resource and a prompt, tool annotations."""

from __future__ import annotations

import httpx2 as httpx
import pytest
from fastmcp import Client

from servers.gateway import Gateway
from servers.http import serve_in_loop
from servers.tool_derivation import POLICY_PROMPT, POLICY_URI
from servers.trials import TrialStore

pytestmark = pytest.mark.anyio
TOKEN = "s3cret"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


async def test_control_plane_needs_the_token_and_charges_the_attempt_to_the_trial() -> None:
    gateway = Gateway(["payments"], store=TrialStore(sandbox=False))
    async with serve_in_loop(gateway, control_token=TOKEN) as base, httpx.AsyncClient(base_url=base) as http:
        assert (await http.get("/control/health")).status_code == 200  # liveness stays public
        opened = await http.post("/control/trials", json={"task_id": "payments_balance_inquiry_01"}, headers=AUTH)
        assert opened.status_code == 201
        trial_id = opened.json()["trial_id"]
        for method, path in (("GET", f"/control/trials/{trial_id}"), ("DELETE", f"/control/trials/{trial_id}"), ("POST", "/control/trials")):
            refused = await http.request(method, path, headers={"Authorization": "Bearer guess"}, json={})
            assert refused.status_code == 401, (method, path)
        assert gateway.trial(trial_id)  # still open: the agent could not close it
        assert len(gateway.trial(trial_id).incidents) == 2 and "without the run's token" in gateway.trial(trial_id).incidents[0]
        assert len(gateway.store.incidents) == 3
        assert (await http.get(f"/control/trials/{trial_id}", headers=AUTH)).status_code == 200


async def test_foreign_origin_is_refused_loopback_allowed() -> None:
    gateway = Gateway(["payments"])
    async with serve_in_loop(gateway) as base, httpx.AsyncClient(base_url=base) as http:
        evil = await http.get("/control/health", headers={"Origin": "http://evil.example"})
        assert evil.status_code == 403 and "Origin" in evil.json()["error"]
        mcp = await http.post("/payments/mcp", headers={"Origin": "https://evil.example:8000"}, json={})
        assert mcp.status_code == 403
        assert (await http.get("/control/health", headers={"Origin": "http://localhost:6274"})).status_code == 200
        assert len(gateway.store.incidents) == 2


async def test_unknown_trial_ids_are_refused_and_recorded() -> None:
    gateway = Gateway(["payments"], store=TrialStore(sandbox=False))
    async with serve_in_loop(gateway) as base, Client(f"{base}/payments/mcp?trial=trial-guessed") as client:
        result = await client.call_tool("get_account_balance", {"account_id": "ACC-1001"}, raise_on_error=False)
    assert result.is_error and "unknown trial id 'trial-guessed'" in result.content[0].text
    assert gateway.store.incidents[-1]["what"].startswith("tool call on payments named an unknown trial id")


async def test_combined_endpoint_shows_a_trial_only_its_domain_and_records_other_calls() -> None:
    gateway = Gateway(["payments", "retail"])
    trial = gateway.open_trial("payments")
    async with serve_in_loop(gateway) as base, Client(f"{base}/mcp?trial={trial.trial_id}") as client:
        names = {t.name for t in await client.list_tools()}
        assert names and all(n.startswith("payments_") for n in names)
        other = await client.call_tool("retail_get_order", {"order_id": "ORD-9001"}, raise_on_error=False)
    assert other.is_error
    assert [(r.tool, r.status) for r in trial.trace] == [("retail_get_order", "blocked")]


async def test_policy_instructions_resource_prompt_and_annotations() -> None:
    gateway = Gateway(["payments"])
    async with Client(gateway.server("payments")) as client:
        policy = (await client.read_resource(POLICY_URI))[0].text
        assert "PIN" in policy
        assert policy in (client.instructions or "")  # the server instructions carry the policy
        prompt = await client.get_prompt(POLICY_PROMPT)
        assert policy in prompt.messages[0].content.text
        tools = {t.name: t.annotations for t in await client.list_tools()}
    assert tools["get_account_balance"].read_only_hint is True and tools["get_account_balance"].idempotent_hint is True
    assert tools["validate_transfer"].read_only_hint is True  # compute
    assert tools["process_payment"].destructive_hint is True and tools["process_payment"].read_only_hint is False
    assert all(a.open_world_hint is False for a in tools.values())
