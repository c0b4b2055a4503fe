"""Text from models and tools is made safe before it is stored or shown (issue 14)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from rich.console import Console

from contracts.evidence import ToolCallRecord
from contracts.text import REPLY_MAX_CHARS, VALUE_MAX_CHARS, safe_text, safe_value, short
from harness.records import TrialRecord
from harness.runner.components import TrialComponents
from harness.runner.config import RunConfig
from harness.runner.plan import Plan
from harness.runner.run import execute_run
from orchestrator.protocol import AgentReply

pytestmark = pytest.mark.anyio
QUIET = Console(file=open("/dev/null", "w"), force_terminal=False)  # noqa: SIM115


def test_safe_text() -> None:
    assert safe_text("a\ud800b\udfff") == "a\ufffdb\ufffd"
    assert safe_text("tab\tnew\nline\r ok") == "tab\tnew\nline\r ok"
    assert safe_text("\x00\x1b[2Jhi\x7f") == "[2Jhi"
    long = safe_text("x" * 50_000, 1_000)
    assert len(long) <= 1_000 and long.endswith("chars]") and "truncated" in long
    assert safe_text(safe_text("y" * 5_000, 1_000), 1_000) == safe_text("y" * 5_000, 1_000)
    assert safe_text("fine") == "fine"


def test_safe_value_and_short() -> None:
    value = safe_value({"a\ud800": [math.nan, math.inf, "z" * (VALUE_MAX_CHARS + 10)], "n": 1, "b": True})
    json.dumps(value, allow_nan=False).encode("utf-8")
    assert value["a\ufffd"][0] == "nan" and "truncated" in value["a\ufffd"][2]
    assert len(short("Q" * 1_000_000)) < 120 and "truncated" in short("Q" * 1_000_000)


def test_tool_call_records_are_safe() -> None:
    record = ToolCallRecord(seq=0, turn=0, tool="t\ud800", arguments={"x": "\ud800" * 3}, status="tool_error", result={"v": math.nan}, error="e" * 10_000)
    json.dumps(record.model_dump(mode="json"), allow_nan=False).encode("utf-8")
    assert len(record.error) <= 1_000


class SurrogateAgent:
    name = "surrogate"

    async def start(self, session) -> None:  # noqa: ANN001
        return None

    async def respond(self, user_message: str, turn: int) -> AgentReply:
        return AgentReply(text="Your balance is \ud83d and \udfff\x1b[31m" + "!" * (REPLY_MAX_CHARS * 2))

    async def stop(self) -> None:
        return None


async def test_a_lone_surrogate_in_a_reply_does_not_crash_the_run(tmp_path: Path) -> None:
    plan = Plan(agent="oracle", user="scripted", judge="evidence", offline=True)
    config = RunConfig(out=tmp_path / "run", task=["payments_balance_inquiry_01"], offline=True)
    components = TrialComponents(config, plan, agent_factory=lambda t: SurrogateAgent())
    result = await execute_run(config, console=QUIET, components=components)
    [record] = result.records
    assert record.status == "scored"
    [path] = (result.directory / "trials").glob("*/*.json")
    reloaded = TrialRecord.model_validate_json(path.read_text(encoding="utf-8"))
    reply = reloaded.conversation[1].content
    assert "\ufffd" in reply and "\x1b" not in reply and "truncated" in reply and len(reply) <= REPLY_MAX_CHARS


async def test_model_outputs_are_repaired_before_anyone_sees_them() -> None:
    from models.model import Model
    from models.scripted import ScriptedModel, calls

    bad = calls(("get_account_balance", {"account_id": "ACC-1001\ud800"}), text="hi\udfff\x07")
    output = await Model(ScriptedModel([bad]), role="agent").generate([])
    assert output.text == "hi\ufffd"
    assert output.tool_calls[0].arguments == {"account_id": "ACC-1001\ufffd"}
    json.dumps(output.model_dump(mode="json"), ensure_ascii=False).encode("utf-8")
