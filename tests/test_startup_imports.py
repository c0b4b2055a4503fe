"""Fast starts (issue 16), checked by what gets imported rather than by a clock: `crmbench --help` loads
the CLI's configuration models and nothing of the MCP stack, the catalog or the model SDKs, and `serve`
gets to the point of serving without the MCP *client* stack (fastmcp.client pulls in the OAuth and
key-value modules and beartype), the model SDKs, plotting or the report package. Each check runs in a
fresh interpreter, since this test process has imported everything already."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

NEVER_FOR_SERVE = ("fastmcp.client", "mcp.client.auth", "openai", "anthropic", "matplotlib", "harness.report", "key_value", "beartype")
"""Modules `crmbench serve` never needs to start (the MCP client, model SDKs, plotting, reports)."""

NEVER_FOR_HELP = (*NEVER_FOR_SERVE, "fastmcp", "mcp", "mcp_types", "starlette", "uvicorn", "rich", "yaml", "contracts.catalog", "servers.gateway")
"""`crmbench --help` needs the configuration models and pydantic-settings, nothing else of ours."""


def loaded_modules(script: str) -> set[str]:
    """The names in `sys.modules` after `script` ran in a fresh interpreter (printed as JSON last)."""
    body = textwrap.dedent(script) + "\nimport json, sys\nprint('\\n' + json.dumps(sorted(sys.modules)))\n"
    env = {**os.environ, "FASTMCP_CHECK_FOR_UPDATES": "off"}
    done = subprocess.run([sys.executable, "-c", body], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
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
    assert "pydantic_settings" in modules and "harness.config" in modules
    assert offending(modules, NEVER_FOR_HELP) == []


@pytest.mark.parametrize("domains", [["--domain", "payments"], []], ids=["payments", "all-domains"])
def test_serve_starts_without_the_client_stack(domains: list[str]) -> None:
    """Everything `serve` does up to handing the app to uvicorn (gateway, domain servers, control routes),
    with `uvicorn.run` replaced by a recorder so that the process ends there."""
    modules = loaded_modules(
        f"""
        import uvicorn
        served = []
        uvicorn.run = lambda app, **kwargs: served.append(app)
        from harness.cli import main
        main(["serve", "--port", "0", *{domains!r}])
        assert len(served) == 1, served
        """
    )
    assert "fastmcp" in modules and "servers.gateway" in modules and "harness.control" in modules
    assert offending(modules, NEVER_FOR_SERVE) == []
