"""Helpers the domain tests share: a live streamable-HTTP gateway for any set of domains (the conftest
fixture serves payments only), one tool over HTTP, a policy gate's refusal, the in-process release proof."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from servers.gateway import Gateway


@contextmanager
def serve_gateway(domains: list[str]) -> Iterator[tuple[Gateway, str]]:
    """The real gateway app under uvicorn on an ephemeral loopback port; yields (gateway, base url)."""
    import uvicorn

    from servers.http import gateway_app, listening_socket

    gateway = Gateway(domains)
    sock = listening_socket()
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(gateway_app(gateway), log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline:
            raise RuntimeError("gateway did not start")
        time.sleep(0.02)
    try:
        yield gateway, f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


async def assert_tool_executes_over_http(served: tuple[Gateway, str], domain: str, tool: str, args: dict, key: str) -> None:
    """One tool over streamable HTTP on a fresh trial: it executes, answers with `key`, and is recorded."""
    from fastmcp import Client

    gateway, base_url = served
    trial = gateway.open_trial(domain)
    async with Client(f"{base_url}/{domain}/mcp?trial={trial.trial_id}") as client:
        result = await client.call_tool(tool, args)
    assert key in result.structured_content and not result.structured_content.get("refused")
    assert [(r.tool, r.status) for r in trial.trace] == [(tool, "executed")]


async def assert_release_proof(domain: str, task_id: str) -> None:
    """The release gate in-process for one task: gold, no-op, mutations and both batteries."""
    from contracts.catalog import get_task
    from contracts.graph import load_graph
    from harness.release.debt import known_debt
    from harness.release.gates import prove_task
    from harness.release.replay import GatewayReplayer
    from servers.registry import environment_class

    async with GatewayReplayer(Gateway([domain])) as replayer:
        proof = await prove_task(replayer, get_task(task_id), environment_class(domain), graph=load_graph(domain), debt=known_debt(domain, task_id))
    assert proof.batteries is not None and proof.batteries.results
    assert proof.ok, (proof.error, proof.unkilled, proof.batteries.failures)


async def assert_gate_refuses(
    domain: str, setup: list[tuple[str, dict]], tool: str, args: dict, code: int, reason: str, *, reason_contains: bool = False
) -> None:
    """A policy gate over MCP on a fresh trial: after `setup` (each call must go through), `tool` is
    refused with `code` and `reason` (the whole reason, or a part of it), recorded as refused, and the
    world is exactly as it was before the call."""
    from fastmcp import Client

    from servers.recorder import TRIAL_META_KEY

    gateway = Gateway([domain])
    trial = gateway.open_trial(domain)
    async with Client(gateway.server(domain)) as client:

        async def call(name: str, arguments: dict) -> Any:
            return await client.call_tool(name, arguments, raise_on_error=False, meta={TRIAL_META_KEY: trial.trial_id})

        for name, setup_args in setup:
            done = await call(name, setup_args)
            assert not done.is_error and not done.structured_content.get("refused"), done.structured_content
        before = trial.final_state()
        result = await call(tool, args)
    content = result.structured_content
    assert not result.is_error and content["refused"] is True, content
    assert content["status"] == code, content
    assert reason in content["reason"] if reason_contains else content["reason"] == reason, content
    assert trial.trace[-1].status == "refused"
    assert trial.final_state() == before
