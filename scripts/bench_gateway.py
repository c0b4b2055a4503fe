"""Measure gateway overhead: per-call latency by transport, and throughput as concurrent trials grow.

    uv run python scripts/bench_gateway.py [--calls 200] [--trials 1 16 64]

Reports ratios (machines here are noisy, so absolute times mean little): the lean path in-process agents
use (`session.tools`) vs an in-memory MCP client, HTTP vs in-memory per call,
the cost of recording (recorder on vs a bare FastMCP tool), and concurrent-trial throughput relative to
one trial. Peak RSS is reported from the OS. Nothing here is asserted; it is a measurement.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import socket
import statistics
import subprocess
import sys
import time

os.environ.setdefault("FASTMCP_CHECK_FOR_UPDATES", "off")
os.environ.setdefault("FASTMCP_LOG_LEVEL", "CRITICAL")

CALL = ("get_account_balance", {"account_id": "ACC-1001"})
CONTROL_TOKEN = "bench-gateway-token"  # the control plane always wants one; agents never see it


def _serve_subprocess() -> tuple[str, subprocess.Popen[bytes]]:
    """`crmbench serve` in its own process, as an external agent would see it."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    command = [sys.executable, "-m", "harness.cli", "serve", "--domain", "payments", "--port", str(port), "--control-token", CONTROL_TOKEN]
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    import httpx2

    for _ in range(300):
        try:
            httpx2.get(f"{base}/control/health", timeout=0.5)
            return base, proc
        except httpx2.HTTPError:
            time.sleep(0.05)
    proc.kill()
    raise RuntimeError("gateway did not start")


async def _latency(client, n: int, meta: dict | None = None) -> float:
    samples = []
    for _ in range(n):
        start = time.perf_counter()
        if meta is None:
            await client.call_tool(CALL[0], CALL[1])
        else:
            await client.call_tool(CALL[0], CALL[1], meta=meta)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


async def main(calls: int, trial_counts: list[int]) -> None:
    from fastmcp import Client, FastMCP

    from servers.gateway import Gateway
    from servers.recorder import TRIAL_META_KEY

    gateway = Gateway(["payments"])
    bare = FastMCP("bare")

    @bare.tool
    def get_account_balance(account_id: str) -> dict:
        return {"account_id": account_id, "balance": 1.0}

    trial = gateway.open_trial("payments")
    async with Client(bare) as client:
        bare_ms = await _latency(client, calls) * 1000
    async with Client(gateway.server("payments")) as client:
        mem_ms = await _latency(client, calls, {TRIAL_META_KEY: trial.trial_id}) * 1000
    lean_ms = await _latency(gateway.tools_for(trial.trial_id), calls) * 1000  # in-process agents' path
    base, server = _serve_subprocess()
    async with Client(f"{base}/payments/mcp") as client:
        http_ms = await _latency(client, calls) * 1000

    print(f"median call latency: bare in-memory {bare_ms:.2f} ms, gateway in-memory {mem_ms:.2f} ms, gateway lean {lean_ms:.2f} ms, gateway HTTP {http_ms:.2f} ms")
    print(f"  lean path vs in-memory MCP client: x{lean_ms / mem_ms:.2f}")
    print(f"  recording + isolation overhead (gateway/bare, in-memory): x{mem_ms / bare_ms:.2f}")
    print(f"  HTTP vs in-memory: x{http_ms / mem_ms:.2f}")

    per_trial_calls = 10
    AUTH = {"Authorization": f"Bearer {CONTROL_TOKEN}"}

    import httpx2

    async def one_trial(http: httpx2.AsyncClient) -> None:
        opened = (await http.post(f"{base}/control/trials", json={"domain": "payments"}, headers=AUTH)).json()
        async with Client(opened["mcp_url"]) as c:
            for _ in range(per_trial_calls):
                await c.call_tool(*CALL)
        await http.delete(f"{base}/control/trials/{opened['trial_id']}", headers=AUTH)

    baseline = None
    for n in trial_counts:
        start = time.perf_counter()
        async with httpx2.AsyncClient() as http:
            await asyncio.gather(*(one_trial(http) for _ in range(n)))
        elapsed = time.perf_counter() - start
        rate = n * per_trial_calls / elapsed
        baseline = baseline or rate
        print(f"{n:>4} concurrent trials x {per_trial_calls} calls over HTTP: {rate:8.0f} calls/s (x{rate / baseline:.2f} of 1 trial)")
    server.terminate()
    server.wait()
    print(f"peak RSS of this client process: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB; "
          f"of the gateway process: {resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024:.0f} MiB")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--trials", type=int, nargs="+", default=[1, 16, 64])
    args = parser.parse_args()
    asyncio.run(main(args.calls, args.trials))
