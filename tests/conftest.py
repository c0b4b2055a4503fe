"""Shared fixtures: an offline environment, a gateway, and a live streamable-HTTP gateway on loopback."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator

import pytest

os.environ.setdefault("FASTMCP_CHECK_FOR_UPDATES", "off")
os.environ.setdefault("FASTMCP_LOG_LEVEL", "CRITICAL")
# Tests check behaviour on whatever the catalog holds; whether its lock is fresh is the release gates'
# check (`python -m harness.benchmark_spec`), so `crmbench run` in tests does not refuse a stale lock.
os.environ.setdefault("CRMBENCH_ALLOW_STALE_LOCK", "1")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class LiveGateway:
    def __init__(self, gateway, base_url: str) -> None:
        self.gateway = gateway
        self.base_url = base_url

    def mcp_url(self, domain: str, trial_id: str | None = None) -> str:
        url = f"{self.base_url}/{domain}/mcp"
        return f"{url}?trial={trial_id}" if trial_id else url


@pytest.fixture(scope="module")
def live_gateway() -> Iterator[LiveGateway]:
    """The real gateway app under uvicorn on an ephemeral loopback port, in a background thread."""
    import uvicorn

    from servers.gateway import Gateway
    from servers.http import gateway_app, listening_socket

    gateway = Gateway(["payments"])
    sock = listening_socket()
    port = sock.getsockname()[1]
    config = uvicorn.Config(gateway_app(gateway), log_level="warning", lifespan="on")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline:
            raise RuntimeError("gateway did not start")
        time.sleep(0.02)
    try:
        yield LiveGateway(gateway, f"http://127.0.0.1:{port}")
    finally:
        server.should_exit = True
        thread.join(timeout=10)
