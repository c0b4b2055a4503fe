"""Fast starts (issue 16), checked by what gets imported rather than by a clock: `crmbench --help` loads
the CLI's configuration models and nothing of the MCP stack, the catalog or the model SDKs, and `serve`
gets to the point of serving without the MCP *client* stack (fastmcp.client pulls in the OAuth and
key-value modules and beartype), the model SDKs, plotting or the report package. Each import check runs
in a fresh interpreter, since this test process has imported everything already. Speed itself is
measured by `scripts/bench_startup.py`, never asserted. Also: `serve --port 0` names the port it got."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import textwrap
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

NEVER_FOR_SERVE = ("fastmcp.client", "mcp.client.auth", "openai", "anthropic", "matplotlib", "harness.report", "key_value", "beartype")
"""Modules `crmbench serve` never needs to start (the MCP client, model SDKs, plotting, reports)."""

NEVER_FOR_HELP = (*NEVER_FOR_SERVE, "fastmcp", "mcp", "mcp_types", "starlette", "uvicorn", "rich", "yaml", "contracts.catalog", "servers.gateway", "servers.recorder", "servers.calls", "servers.tool_derivation")
"""`crmbench --help` needs the configuration models and pydantic-settings, nothing else of ours."""


def loaded_modules(script: str) -> set[str]:
    """The names in `sys.modules` after `script` ran in a fresh interpreter (printed as JSON last)."""
    body = textwrap.dedent(script) + "\nimport json, sys\nprint('\\n' + json.dumps(sorted(sys.modules)))\n"
    env = {**os.environ, "FASTMCP_CHECK_FOR_UPDATES": "off"}
    done = subprocess.run([sys.executable, "-c", body], check=False, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return set(json.loads(done.stdout.strip().splitlines()[-1]))


def offending(modules: set[str], forbidden: tuple[str, ...]) -> list[str]:
    return sorted(m for m in modules if any(m == f or m.startswith(f + ".") for f in forbidden))


def test_offending_matches_packages_and_submodules_only() -> None:
    assert offending({"fastmcp.client.auth", "fastmcp", "openai_agents", "rich"}, ("fastmcp.client", "openai")) == ["fastmcp.client.auth"]


def test_help_imports_only_the_cli() -> None:
    modules = loaded_modules(
        """
        import contextlib, io
        from harness.cli import main
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):
            main(["--help"])
        assert "serve" in out.getvalue(), out.getvalue()
        """
    )
    assert "pydantic_settings" in modules and "harness.runner.config" in modules
    assert offending(modules, NEVER_FOR_HELP) == []


@pytest.mark.parametrize("domains", [["--domain", "payments"], []], ids=["payments", "all-domains"])
def test_serve_starts_without_the_client_stack(domains: list[str]) -> None:
    """Everything `serve` does up to serving (gateway, domain servers, control routes, uvicorn's protocol
    classes), with `uvicorn.Server.run` replaced by a recorder so that the process ends there."""
    modules = loaded_modules(
        f"""
        import uvicorn
        served = []

        def record(server, sockets=None):
            server.config.load()  # what uvicorn loads before serving: the app and its protocol classes
            served.append((server.config.app, [s.getsockname()[1] for s in sockets]))
            server.started = True

        uvicorn.Server.run = record
        from harness.cli import main
        main(["serve", "--port", "0", *{domains!r}])
        [(app, ports)] = served
        assert callable(app) and len(ports) == 1 and ports[0] > 0, ports
        """
    )
    assert "fastmcp" in modules and "servers.gateway" in modules and "harness.control" in modules
    assert offending(modules, (*NEVER_FOR_SERVE, "websockets")) == []  # MCP over HTTP needs no websocket protocol


def stateless_tools_list(url: str) -> list[str]:
    """One self-contained 2026-07-28 `tools/list` over streamable HTTP, with the standard library only."""
    era = "2026-07-28"
    meta = {"io.modelcontextprotocol/protocolVersion": era, "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "1"}, "io.modelcontextprotocol/clientCapabilities": {}}
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta}}).encode()
    headers = {"content-type": "application/json", "accept": "application/json, text/event-stream", "mcp-protocol-version": era, "mcp-method": "tools/list"}
    with urllib.request.urlopen(urllib.request.Request(url, data=body, headers=headers), timeout=30) as response:
        text = response.read().decode()
    payload = next((line[5:] for line in text.splitlines() if line.startswith("data:")), text)
    return [tool["name"] for tool in json.loads(payload)["result"]["tools"]]


def test_serve_on_port_zero_prints_the_port_it_listens_on() -> None:
    """`--port 0`: the kernel picks a free port and the banner names it (not `:0`), so a script can start a
    gateway without racing for a port, read its URL and list its tools."""
    env = {**os.environ, "FASTMCP_CHECK_FOR_UPDATES": "off", "FASTMCP_LOG_LEVEL": "CRITICAL"}
    proc = subprocess.Popen(
        [str(Path(sys.executable).parent / "crmbench"), "serve", "--domain", "payments", "--port", "0", "--control-token", "none"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stderr is not None
        banner = proc.stderr.readline()
        match = re.search(r"gateway on (http://127\.0\.0\.1:(\d+))$", banner.strip())
        assert match and int(match.group(2)) > 0, banner
        deadline = time.monotonic() + 60
        while True:
            try:
                names = stateless_tools_list(f"{match.group(1)}/payments/mcp")
                break
            except OSError:
                assert proc.poll() is None and time.monotonic() < deadline, "serve did not answer tools/list"
                time.sleep(0.05)
        assert {"get_account_balance", "validate_transfer", "execute_transfer"} <= set(names)
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_serve_on_a_busy_port_is_a_sentence(capsys: pytest.CaptureFixture[str]) -> None:
    from harness.cli import main

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        with pytest.raises(SystemExit) as info:
            main(["serve", "--domain", "payments", "--port", str(port)])
    err = capsys.readouterr().err
    assert info.value.code == 2 and err.startswith(f"error: cannot listen on 127.0.0.1:{port}") and "Traceback" not in err
