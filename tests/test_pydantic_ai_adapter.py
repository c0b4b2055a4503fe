"""An external framework as the agent under test: pydantic-ai's MCPToolset over streamable HTTP, driven
by a pydantic-ai FunctionModel (no key), graded from what the gateway recorded."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.console import Console

pytest.importorskip("pydantic_ai")

from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart, ToolReturnPart  # noqa: E402
from pydantic_ai.models.function import AgentInfo, FunctionModel  # noqa: E402

from contracts.graph import load_graph  # noqa: E402
from harness.adapters.pydantic_ai import PydanticAIAgent  # noqa: E402
from harness.components import TrialComponents  # noqa: E402
from harness.config import RunConfig  # noqa: E402
from harness.plan import Plan  # noqa: E402
from harness.run import execute_run  # noqa: E402

pytestmark = pytest.mark.anyio


def balance_then_answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    returns = [p for m in messages for p in getattr(m, "parts", []) if isinstance(p, ToolReturnPart)]
    if not returns:
        assert "get_account_balance" in {t.name for t in info.function_tools}
        return ModelResponse(parts=[ToolCallPart(tool_name="get_account_balance", args={"account_id": "ACC-1005"})])
    content = returns[-1].content
    data = content if isinstance(content, dict) else {}
    return ModelResponse(parts=[TextPart(content=f"Your balance is ${data.get('balance', 0):.2f} and you have {data.get('loyalty_points')} loyalty points.")])


async def test_pydantic_ai_agent_completes_a_payments_task_over_http(tmp_path: Path) -> None:
    config = RunConfig(out=tmp_path / "run", task=["payments_balance_inquiry_01"], agent="pydantic-ai", agent_model="mock:function")
    plan = Plan(agent="pydantic-ai", agent_model="function", user="scripted", judge="evidence", offline=True)
    graph = load_graph("payments")
    components = TrialComponents(config, plan, apis={}, agent_factory=lambda task: PydanticAIAgent.from_model_name(FunctionModel(balance_then_answer), graph))
    result = await execute_run(config, console=Console(file=open("/dev/null", "w")), components=components)  # noqa: SIM115
    [record] = result.records
    assert record.status == "scored", record.error
    assert record.strict, record.verdict.summary()
    assert [(c.tool, c.status) for c in record.tool_trace] == [("get_account_balance", "executed")]
    assert record.conversation[-1].content == "Your balance is $640.20 and you have 310 loyalty points."
    assert record.agent == "pydantic-ai"
