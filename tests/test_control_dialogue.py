"""A harness in any language drives a whole benchmark trial over plain HTTP: list the (redacted) tasks,
read what the agent may know, open a trial, relay user and agent messages, close and grade it."""

from __future__ import annotations

import httpx2 as httpx
import pytest
from fastmcp import Client

from harness.control import dialogue_routes
from servers.gateway import Gateway
from servers.http import gateway_app, listening_socket

pytestmark = pytest.mark.anyio
TOKEN = "t0ken"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
TASK = "payments_balance_inquiry_01"


@pytest.fixture
async def base():
    import anyio
    import uvicorn

    gateway = Gateway(["payments"])
    app = gateway_app(gateway, control_token=TOKEN, extra_control_routes=dialogue_routes(gateway))
    sock = listening_socket()
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    async with anyio.create_task_group() as group:
        group.start_soon(lambda: server.serve(sockets=[sock]))
        while not server.started:
            await anyio.sleep(0.01)
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
        server.should_exit = True


async def _episode(base: str, act: bool) -> dict:
    async with httpx.AsyncClient(base_url=base, headers=AUTH) as http:
        tasks = (await http.get("/control/tasks")).json()["tasks"]
        assert {"task_id": TASK, "domain": "payments", "difficulty": "easy", "capabilities": tasks[[t["task_id"] for t in tasks].index(TASK)]["capabilities"]} in tasks
        assert all(set(t) == {"task_id", "domain", "difficulty", "capabilities"} for t in tasks)  # no instruction, contract, gold
        view = (await http.get(f"/control/tasks/{TASK}")).json()
        assert "PIN" in view["policy"] and "get_account_balance" in [t["name"] for t in view["tools"]] and "ACC-1005" not in str(view)
        opened = (await http.post("/control/trials", json={"task_id": TASK, "seed": 1})).json()
        trial_id, mcp_url = opened["trial_id"], opened["mcp_url"]
        first = (await http.post(f"/control/trials/{trial_id}/user", json={"reply": None})).json()
        assert first["turn"] == 0 and not first["done"] and "ACC-1005" in first["user_message"]
        reply = "Sorry, I cannot help."
        if act:  # the agent (any MCP client) works with nothing but its URL
            async with Client(mcp_url) as client:
                data = (await client.call_tool("get_account_balance", {"account_id": "ACC-1005"})).structured_content
            reply = f"ACC-1005 has ${data['balance']:.2f} and {data['loyalty_points']} loyalty points."
        after = (await http.post(f"/control/trials/{trial_id}/user", json={"reply": reply})).json()
        assert after == {"user_message": None, "turn": 1, "done": True}
        graded = (await http.post(f"/control/trials/{trial_id}/grade")).json()
        assert (await http.get(f"/control/trials/{trial_id}")).status_code == 404  # closed
        return graded


async def test_a_foreign_harness_scores_a_passing_agent(base: str) -> None:
    graded = await _episode(base, act=True)
    assert graded["strict"] is True and graded["task_id"] == TASK
    assert [(r["tool"], r["status"]) for r in graded["trace"]] == [("get_account_balance", "executed")]


async def test_a_foreign_harness_scores_a_do_nothing_agent_zero(base: str) -> None:
    graded = await _episode(base, act=False)
    assert graded["strict"] is False and graded["verdict"]["primary_failure"] == "action"


async def test_dialogue_endpoints_need_the_token_and_a_task_trial(base: str) -> None:
    async with httpx.AsyncClient(base_url=base) as http:
        assert (await http.get("/control/tasks")).status_code == 401
        assert (await http.post("/control/trials/x/grade", headers=AUTH)).status_code == 404
        sandbox = (await http.post("/control/trials", json={"domain": "payments"}, headers=AUTH)).json()
        assert (await http.post(f"/control/trials/{sandbox['trial_id']}/user", json={}, headers=AUTH)).status_code == 409


async def test_a_harness_in_any_language_grades_its_own_recorded_trace(base: str, tmp_path) -> None:
    """POST /control/grade: evidence recorded elsewhere, in the trial-record format, graded like `crmbench grade`."""
    from contracts.catalog import get_task
    from harness.release.replay import GatewayReplayer

    task = get_task("payments_checkout_full_chain_02")
    async with GatewayReplayer(Gateway(["payments"])) as replayer:
        evidence = await replayer.play(task, task.gold, strict_refs=True)
    record = {
        "task_id": task.id,
        "conversation": [m.model_dump(mode="json") for m in evidence.conversation],
        "tool_trace": [c.model_dump(mode="json") for c in evidence.tool_trace],
        "final_state": evidence.final_state,
    }
    async with httpx.AsyncClient(base_url=base, headers=AUTH) as http:
        passed = (await http.post("/control/grade", json=record)).json()
        doubled = {**record, "final_state": {**evidence.final_state, "accounts": {**evidence.final_state["accounts"], "ACC-1002": {**evidence.final_state["accounts"]["ACC-1002"], "loyalty_points": 310}}}}
        failed = (await http.post("/control/grade", json=doubled)).json()
        bad = await http.post("/control/grade", json={"task_id": task.id})
        unknown = await http.post("/control/grade", json={**record, "task_id": "payments_nope_01"})
        anonymous = await httpx.AsyncClient(base_url=base).post("/control/grade", json=record)
    assert passed["strict"] is True and passed["verdict"]["strict"] is True
    assert failed["strict"] is False and "accounts.ACC-1002.loyalty_points: expected 155, got 310" in str(failed["verdict"])
    assert bad.status_code == 422 and unknown.status_code == 404 and anonymous.status_code == 401
