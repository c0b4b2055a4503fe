"""A live streamable-HTTP gateway for any set of domains (the conftest fixture serves payments only)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

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
