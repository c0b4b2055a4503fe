"""Small fakes shared by the honesty tests (issue 28): models and agents that misbehave on purpose."""

from __future__ import annotations

import anyio

from models.scripted import ScriptedModel, tool_call
from models.types import ModelOutput


def busy_balance_checker(latency_s: float) -> ScriptedModel:
    """An agent model that answers every call promptly (after `latency_s`) with one more balance check:
    it never finishes on its own."""

    class Busy(ScriptedModel):
        async def generate(self, messages, tools, config) -> ModelOutput:  # noqa: ANN001
            await anyio.sleep(latency_s)
            return tool_call("get_account_balance", account_id="ACC-1002")

    return Busy([])
