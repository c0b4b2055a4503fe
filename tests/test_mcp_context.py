"""Output schemas from a tool's declared return type (with the business-refusal alternative)."""

from __future__ import annotations

from typing import Any

import pytest
from fastmcp import Client
from pydantic import BaseModel

from servers.base import Refusal, ToolEnvironment, tool
from servers.gateway import build_domain_server
from servers.tool_derivation import tool_output_schema
from servers.trials import TrialStore

pytestmark = pytest.mark.anyio


class ToyState(BaseModel):
    counter: int = 0


class Peek(BaseModel):
    counter: int
    note: str


class ToyEnvironment(ToolEnvironment[ToyState]):
    """A toy domain."""

    domain = "toy"
    state_model = ToyState

    @classmethod
    def default_state(cls) -> ToyState:
        return ToyState()

    @tool("read")
    def peek(self, refuse: bool = False) -> Peek:
        """Look at the counter."""
        if refuse:
            raise Refusal("not_allowed", "No peeking.")
        return Peek(counter=self.state.counter, note="ok")

    @tool("write")
    def bump(self) -> dict[str, Any]:
        """Add one."""
        self.state.counter += 1
        return {"counter": self.state.counter}


@pytest.fixture
def toy(monkeypatch: pytest.MonkeyPatch):
    from servers import registry

    monkeypatch.setitem(registry.DOMAIN_ENVIRONMENTS, "toy", f"{__name__}:ToyEnvironment")
    registry.environment_class.cache_clear()
    yield
    registry.environment_class.cache_clear()


async def test_output_schema_comes_from_the_return_type_and_admits_refusals(toy: None) -> None:
    schema = tool_output_schema(ToyEnvironment, "peek")
    assert schema is not None and schema["type"] == "object"
    assert schema["anyOf"][0]["properties"].keys() == {"counter", "note"} and schema["anyOf"][1]["properties"]["refused"] == {"const": True}
    assert tool_output_schema(ToyEnvironment, "bump") is None  # untyped: the generic object schema
    server = build_domain_server("toy", TrialStore())
    async with Client(server) as client:
        tools = {t.name: t for t in await client.list_tools()}
        assert tools["peek"].output_schema == schema
        ok = await client.call_tool("peek", {})
        assert ok.structured_content == {"counter": 0, "note": "ok"}
        refused = await client.call_tool("peek", {"refuse": True})  # validates against the schema too
        assert refused.structured_content["refused"] is True
