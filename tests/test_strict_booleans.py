"""A boolean tool argument is a JSON boolean (issue 41): `"no"`, `"true"`, `"off"`, `1` or `0` are invalid
calls, not a guess the world acts on. Derived from every tool's signature, so a new boolean parameter is
covered the moment it exists; over MCP and on the lean path alike, the refused call changes nothing."""

from __future__ import annotations

import typing
from typing import Any

import pytest
from pydantic import TypeAdapter, ValidationError

from servers.gateway import Gateway
from servers.recorder import TRIAL_META_KEY
from servers.registry import environment_class, known_domains

pytestmark = pytest.mark.anyio
LOOSE = ["no", "yes", "true", "false", "off", "on", "1", 1, 0, 1.0]


def _has_bool(annotation: Any) -> bool:
    if annotation is bool:
        return True
    return any(_has_bool(arg) for arg in typing.get_args(annotation) if not isinstance(arg, str | int | float) or isinstance(arg, type))


BOOLEAN_PARAMETERS = [
    (domain, tool, name, hint)
    for domain in known_domains()
    for tool in environment_class(domain).tool_methods()
    for name, hint in environment_class(domain).tool_signature(tool)[1].items()
    if name != "return" and _has_bool(hint)
]


def test_every_boolean_parameter_takes_only_true_or_false() -> None:
    assert len(BOOLEAN_PARAMETERS) >= 2  # customer_support.list_cases(include_closed), onboarding.update_settings(sso_enabled)
    wrong = []
    for domain, tool, name, hint in BOOLEAN_PARAMETERS:
        adapter = TypeAdapter(hint)
        assert adapter.validate_python(True) is True and adapter.validate_python(False) is False
        assert adapter.validate_json("true") is True  # JSON's own booleans, as they arrive over MCP
        for loose in LOOSE:
            try:
                adapter.validate_python(loose)
            except ValidationError:
                continue
            wrong.append(f"{domain}.{tool}({name}={loose!r}) accepted")
    assert not wrong, wrong


@pytest.mark.parametrize("loose", ["no", "true", 1])
async def test_a_loose_boolean_is_one_clear_error_and_changes_nothing(loose: Any) -> None:
    gateway = Gateway(["onboarding"])
    trial = gateway.open_trial("onboarding")
    state = trial.state.model_dump(mode="json")
    account = next(iter(state["accounts"].values())) if isinstance(state.get("accounts"), dict) else state["accounts"][0]
    account_id = account.get("account_id") or account.get("id")
    lean = gateway.tools_for(trial.trial_id)
    before = trial.state.model_dump_json()
    async with gateway.in_memory_clients() as clients:
        over_mcp = await clients["onboarding"].call_tool(
            "update_settings", {"account_id": account_id, "sso_enabled": loose}, meta={TRIAL_META_KEY: trial.trial_id}, raise_on_error=False
        )
    in_process = await lean.call_tool("update_settings", {"account_id": account_id, "sso_enabled": loose})
    for result in (over_mcp, in_process):
        text = "\n".join(getattr(block, "text", "") for block in result.content or [])
        assert result.is_error and "sso_enabled" in text and "boolean" in text.lower(), text
    assert [c.status for c in trial.trace[-2:]] == ["tool_error", "tool_error"]
    assert trial.state.model_dump_json() == before
    done = await lean.call_tool("update_settings", {"account_id": account_id, "sso_enabled": True})
    assert not done.is_error and trial.trace[-1].status in ("executed", "refused"), done.content  # `true` is a value the world judges
