"""The gateway's invariant: a call commits state only if it succeeded and its result serialised.

A throwaway domain whose tools misbehave on purpose (write, then fail in every way a tool can fail)
shows that nothing leaks into the trial; the payments domain shows the original NaN exploit is closed
in memory and over HTTP, and that long ids are not echoed whole.
"""

from __future__ import annotations

import json
import math
from typing import Any

import anyio
import httpx2 as httpx
import pytest
from fastmcp import Client
from pydantic import BaseModel

from servers import registry
from servers.base import InvalidCall, Money, Refusal, ToolEnvironment, tool
from servers.gateway import Gateway
from servers.recorder import bind_trial

pytestmark = pytest.mark.anyio


class DummyState(BaseModel):
    counter: int = 0
    note: str = ""
    amount: float = 0.0


class DummyEnvironment(ToolEnvironment[DummyState]):
    """A world whose tools write first and then fail."""

    domain = "dummy"
    state_model = DummyState

    @classmethod
    def default_state(cls) -> DummyState:
        return DummyState()

    def _write(self) -> None:
        self.state.counter += 1
        self.ids.mint("D")

    @tool("write")
    def ok(self) -> dict[str, Any]:
        self._write()
        return {"counter": self.state.counter}

    @tool("write")
    def bad_result(self) -> dict[str, Any]:
        self._write()
        return {"value": math.nan}

    @tool("write")
    def surrogate_result(self) -> dict[str, Any]:
        self._write()
        return {"value": "a\ud800b"}

    @tool("write")
    def crash(self) -> dict[str, Any]:
        self._write()
        raise RuntimeError("bug")

    @tool("write")
    def invalid(self) -> dict[str, Any]:
        self._write()
        raise InvalidCall("no such thing")

    @tool("write")
    def refuse(self) -> dict[str, Any]:
        self._write()
        raise Refusal(409, "conflict")

    @tool("write")
    def store_nan(self) -> dict[str, Any]:
        self._write()
        self.state.amount = math.nan
        return {"stored": True}

    @tool("write")
    def store_surrogate(self) -> dict[str, Any]:
        self._write()
        self.state.note = "x\udc00"
        return {"stored": True}

    @tool("write")
    def store_wrong_type(self) -> dict[str, Any]:
        self._write()
        self.state.counter = "many"  # type: ignore[assignment]
        return {"stored": True}

    @tool("read")
    def sneaky_read(self) -> dict[str, Any]:
        self._write()
        return {"counter": self.state.counter}

    @tool("compute")
    def pay(self, amount: Money) -> dict[str, Any]:
        self._write()
        return {"amount": amount}


@pytest.fixture
def dummy_gateway(monkeypatch: pytest.MonkeyPatch) -> Gateway:
    monkeypatch.setitem(registry.DOMAIN_ENVIRONMENTS, "dummy", f"{__name__}:DummyEnvironment")
    registry.environment_class.cache_clear()
    yield Gateway(["dummy"])
    registry.environment_class.cache_clear()


@pytest.mark.parametrize(
    ("tool_name", "arguments"),
    [
        ("bad_result", {}),
        ("surrogate_result", {}),
        ("crash", {}),
        ("invalid", {}),
        ("refuse", {}),
        ("store_nan", {}),
        ("store_surrogate", {}),
        ("store_wrong_type", {}),
        ("pay", {"amount": "NaN"}),
        ("pay", {"amount": True}),
        ("pay", {"amount": "1_000"}),
        ("pay", {"amount": 1e300}),
        ("pay", {"amount": 0.001}),
        ("ok", {"unexpected": 1}),
    ],
)
async def test_a_failed_call_leaves_the_trial_byte_identical(dummy_gateway: Gateway, tool_name: str, arguments: dict[str, Any]) -> None:
    trial = dummy_gateway.open_trial("dummy")
    with bind_trial(trial.trial_id):
        async with Client(dummy_gateway.server("dummy")) as client:
            before = (trial.state.model_dump_json(), trial.ids.snapshot())
            result = await client.call_tool(tool_name, arguments, raise_on_error=False)
            after = (trial.state.model_dump_json(), trial.ids.snapshot())
            assert after == before
            if tool_name == "refuse":
                assert result.structured_content["refused"] is True
                assert trial.trace[-1].status == "refused"
            else:
                assert result.is_error
                assert trial.trace[-1].status == "tool_error"
                assert trial.trace[-1].error
            # and the world still works afterwards
            ok = await client.call_tool("ok", {})
            assert ok.structured_content == {"counter": 1}
            assert trial.ids.snapshot() == {"D": 1}


async def test_a_read_tool_never_commits(dummy_gateway: Gateway) -> None:
    trial = dummy_gateway.open_trial("dummy")
    with bind_trial(trial.trial_id):
        async with Client(dummy_gateway.server("dummy")) as client:
            result = await client.call_tool("sneaky_read", {})
    assert result.structured_content == {"counter": 1}  # it saw its own draft...
    assert trial.state.counter == 0 and trial.ids.snapshot() == {}  # ...which was never committed
    assert trial.trace[-1].status == "executed"


async def test_money_accepts_plain_numbers(dummy_gateway: Gateway) -> None:
    trial = dummy_gateway.open_trial("dummy")
    with bind_trial(trial.trial_id):
        async with Client(dummy_gateway.server("dummy")) as client:
            for value, expected in ((180, 180.0), ("180", 180.0), ("15.50", 15.5), (15.5, 15.5)):
                result = await client.call_tool("pay", {"amount": value})
                assert result.structured_content == {"amount": expected}


async def test_nan_amount_cannot_break_payments_limits() -> None:
    """The exploit of issue 14: a NaN amount was saved, then a 1e300 transfer from $180 went through."""
    gateway = Gateway(["payments"])
    trial = gateway.open_trial("payments")
    before = trial.state.model_dump_json()
    with bind_trial(trial.trial_id):
        async with Client(gateway.server("payments")) as client:
            for amount in ("NaN", math.nan, math.inf, "Infinity", True, "1_000", 1e300, "1e3"):
                for name in ("validate_transfer", "execute_transfer"):
                    result = await client.call_tool(
                        name, {"source_account_id": "ACC-1002", "destination_account_id": "ACC-1001", "amount": amount}, raise_on_error=False
                    )
                    assert result.is_error, (name, amount, result.structured_content)
                    assert "amount" in result.content[0].text
            result = await client.call_tool(
                "execute_transfer", {"source_account_id": "ACC-1002", "destination_account_id": "ACC-1001", "amount": 1e9}, raise_on_error=False
            )
            assert result.structured_content["refused"] is True
    assert trial.state.model_dump_json() == before


async def test_long_ids_are_not_echoed_whole() -> None:
    gateway = Gateway(["payments"])
    trial = gateway.open_trial("payments")
    long_id = "ACC-" + "9" * 5_000
    with bind_trial(trial.trial_id):
        async with Client(gateway.server("payments")) as client:
            result = await client.call_tool("get_account_balance", {"account_id": long_id}, raise_on_error=False)
            huge = await client.call_tool("get_account_balance", {"account_id": "A" * 1_000_000}, raise_on_error=False)
    text = result.content[0].text
    assert result.is_error and "Unknown account id" in text and "truncated" in text and len(text) < 300
    assert huge.is_error and "too long" in huge.content[0].text and len(huge.content[0].text) < 300
    assert len(trial.trace[-1].error or "") < 300


async def _raw_call(http: httpx.AsyncClient, trial_id: str, tool_name: str, arguments_json: str) -> dict[str, Any]:
    """A `tools/call` written by hand, so the body can hold what well-behaved clients refuse to send:
    the JSON `NaN` literal and an escaped lone surrogate."""
    meta = '{"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "0"}, "io.modelcontextprotocol/clientCapabilities": {}}'
    body = f'{{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {{"name": "{tool_name}", "arguments": {arguments_json}, "_meta": {meta}}}}}'
    response = await http.post(
        f"/payments/mcp?trial={trial_id}",
        content=body.encode(),
        headers={
            "accept": "application/json, text/event-stream",
            "content-type": "application/json",
            "mcp-protocol-version": "2026-07-28",
            "mcp-method": "tools/call",
            "mcp-name": tool_name,
        },
    )
    text = response.text
    if text.lstrip().startswith("{"):
        return json.loads(text)
    data = [line[5:].strip() for line in text.splitlines() if line.startswith("data:")]
    return json.loads(data[-1])


async def test_nan_literal_and_surrogates_over_http_change_nothing(live_gateway) -> None:
    async with httpx.AsyncClient(base_url=live_gateway.base_url) as http:
        opened = (await http.post("/control/trials", json={"domain": "payments"})).json()
        trial_id = opened["trial_id"]
        state = opened["state"]
        bodies = [
            ("execute_transfer", '{"source_account_id": "ACC-1002", "destination_account_id": "ACC-1001", "amount": NaN}'),
            ("execute_transfer", '{"source_account_id": "ACC-1002", "destination_account_id": "ACC-1001", "amount": Infinity}'),
            ("validate_transfer", '{"source_account_id": "ACC-1002", "destination_account_id": "ACC-1001", "amount": NaN}'),
            ("process_payment", '{"account_id": "ACC-1002", "amount": 5, "method": "paypal", "merchant": "a\\ud800"}'),
            ("freeze_account", '{"account_id": "ACC-1002\\udfff", "reason": "x"}'),
        ]
        for tool_name, arguments in bodies:
            answer = await _raw_call(http, trial_id, tool_name, arguments)
            result = answer.get("result") or {}
            assert result.get("isError") is True or "error" in answer, answer
        # the limit checks still work, and the control plane still answers
        answer = await _raw_call(http, trial_id, "execute_transfer", '{"source_account_id": "ACC-1002", "destination_account_id": "ACC-1001", "amount": 1e300}')
        assert answer["result"]["isError"] is True
        view = await http.get(f"/control/trials/{trial_id}")
        assert view.status_code == 200
        assert view.json()["state"] == state
        assert [c["status"] for c in view.json()["trace"]] == ["tool_error"] * 6
        json.dumps(view.json(), allow_nan=False).encode("utf-8")
        await http.delete(f"/control/trials/{trial_id}")


async def test_the_control_plane_refuses_a_poisoned_initial_state(live_gateway) -> None:
    async with httpx.AsyncClient(base_url=live_gateway.base_url) as http:
        for body in (
            b'{"domain": "payments", "initial_state": {"accounts": {"ACC-1002": {"balance": NaN}}}}',
            b'{"domain": "payments", "initial_state": {"accounts": {"ACC-1002": {"owner_name": "x\\ud800"}}}}',
        ):
            response = await http.post("/control/trials", content=body, headers={"content-type": "application/json"})
            assert response.status_code == 422, response.text
            assert "initial_state holds" in response.json()["error"]
        assert (await http.get("/control/health")).status_code == 200


async def test_readers_never_see_a_call_in_flight_and_a_closed_trial_runs_nothing() -> None:
    """A tool runs on the live world under an undo journal. The control plane's GET waits for the call in
    flight, so it shows the state before or after the call, never between; closing waits too, and a
    call that was waiting behind it runs no tool and leaves the evidence as it was."""
    import httpx2

    from servers.gateway import run_tool, wire_arguments
    from servers.http import gateway_app

    gateway = Gateway(["payments"])
    trial = gateway.open_trial("payments", seed=1)
    tools = await gateway._domain_tools("payments")
    recorder = gateway.recorders["payments"]
    args = wire_arguments("execute_transfer", {"source_account_id": "ACC-1001", "destination_account_id": "ACC-1002", "amount": 10})
    ran, release = anyio.Event(), anyio.Event()

    async def slow_transfer() -> Any:
        result = await run_tool(tools["execute_transfer"], "execute_transfer", args)
        ran.set()  # the world is changed, not yet committed
        await release.wait()
        return result

    def balance(view: dict[str, Any]) -> float:
        return view["state"]["accounts"]["ACC-1001"]["balance"]

    before = trial.final_state()["accounts"]["ACC-1001"]["balance"]
    client = httpx2.AsyncClient(transport=httpx2.ASGITransport(app=gateway_app(gateway)), base_url="http://127.0.0.1")
    seen: list[float] = []
    async with client, anyio.create_task_group() as group:
        group.start_soon(recorder.record, trial, "execute_transfer", args, slow_transfer)
        await ran.wait()
        assert trial.final_state()["accounts"]["ACC-1001"]["balance"] != before  # the live world is mid-call

        async def read() -> None:
            seen.append(balance((await client.get(f"/control/trials/{trial.trial_id}")).json()))

        group.start_soon(read)
        await anyio.sleep(0.05)
        assert seen == []  # the reader waits for the call
        late = wire_arguments("get_account_balance", {"account_id": "ACC-1001"})
        outcome: list[str] = []

        async def late_call() -> None:
            try:
                await recorder.record(trial, "get_account_balance", late, lambda: run_tool(tools["get_account_balance"], "get_account_balance", late))
                outcome.append("ran")
            except Exception as exc:  # noqa: BLE001
                outcome.append(str(exc))

        group.start_soon(gateway.close_settled, trial.trial_id)  # queued behind the reader
        await anyio.sleep(0.01)
        group.start_soon(late_call)  # queued behind the close
        await anyio.sleep(0.01)
        release.set()
    assert seen == [before - 10]  # after the commit, never the half-made state
    assert trial.closed and [r.tool for r in trial.trace] == ["execute_transfer"]
    assert outcome == [f"trial {trial.trial_id!r} is closed"]
