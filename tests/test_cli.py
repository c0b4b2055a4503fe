"""`crmbench serve` as external MCP clients see it: the fastmcp CLI over HTTP, and a stdio client."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx2 as httpx
import pytest
from fastmcp import Client
from fastmcp.client.transports import StdioTransport

ROOT = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "FASTMCP_CHECK_FOR_UPDATES": "off", "FASTMCP_LOG_LEVEL": "CRITICAL"}
BIN = Path(sys.executable).parent


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def served() -> Iterator[str]:
    port = _free_port()
    proc = subprocess.Popen(
        [str(BIN / "crmbench"), "serve", "--port", str(port), "--task", "payments_transfer_insufficient_then_retry_01", "--control-token", TOKEN],
        cwd=ROOT,
        env=ENV,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        try:
            if httpx.get(f"{base}/control/health", timeout=1).status_code == 200:
                break
        except httpx.HTTPError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            raise RuntimeError("crmbench serve did not start: " + (proc.stderr.read().decode() if proc.stderr else ""))
        time.sleep(0.1)
    try:
        yield base
    finally:
        proc.terminate()
        proc.wait(timeout=10)


TOKEN = "test-control-token"


def _fastmcp(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(BIN / "fastmcp"), *args], cwd=ROOT, env=ENV, capture_output=True, text=True, timeout=60)


@pytest.mark.slow
def test_fastmcp_cli_lists_and_calls_payments_tools(served: str) -> None:
    listed = _fastmcp("list", f"{served}/payments/mcp")
    assert listed.returncode == 0, listed.stderr
    for tool in ("get_account_balance", "validate_transfer", "execute_transfer", "process_payment", "send_receipt", "award_loyalty_points", "log_transaction"):
        assert tool in listed.stdout
    called = _fastmcp("call", f"{served}/payments/mcp", "validate_transfer", "source_account_id=ACC-1002", "destination_account_id=ACC-1001", "amount=1000", "--json")
    assert called.returncode == 0, called.stderr
    payload = json.loads(called.stdout)
    assert payload["structured_content"] == {"valid": False, "reason": "Insufficient funds", "status": 422, "available_balance": 180.0}
    # the call landed in the default trial, which `--task` started from that task's state, and was recorded
    assert httpx.get(f"{served}/control/trials/sandbox-payments").status_code == 401  # the control plane needs the token
    trace = httpx.get(f"{served}/control/trials/sandbox-payments", headers={"Authorization": f"Bearer {TOKEN}"}).json()
    assert trace["task_id"] == "payments_transfer_insufficient_then_retry_01"
    assert [(r["tool"], r["status"]) for r in trace["trace"]] == [("validate_transfer", "executed")]


@pytest.mark.anyio
@pytest.mark.parametrize("args", [["serve", "--transport", "stdio", "--domain", "payments"], ["stdio", "--domain", "payments"]])
@pytest.mark.slow
async def test_stdio_serves_one_domain(args: list[str], tmp_path: Path) -> None:
    transport = StdioTransport(command=str(BIN / "crmbench"), args=args, cwd=str(tmp_path), env=ENV)  # any folder
    async with Client(transport) as client:
        assert "PIN" in (client.instructions or "")  # the policy travels with the server instructions
        names = {t.name for t in await client.list_tools()}
        result = await client.call_tool("execute_transfer", {"source_account_id": "ACC-1001", "destination_account_id": "ACC-1007", "amount": 100})
        balance = await client.call_tool("get_account_balance", {"account_id": "ACC-1007"})
    assert "execute_transfer" in names
    assert result.structured_content["status"] == "completed"
    assert balance.structured_content["balance"] == 9200.0


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
