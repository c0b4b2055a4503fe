"""An agent in another process (any language) through the JSON-lines stdio protocol: it gets its MCP URL,
its calls are recorded by the gateway, its replies graded; its give-ups score 0 and its crashes are ⊥."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from harness.config import RunConfig
from harness.run import execute_run

pytestmark = pytest.mark.anyio
AGENT = Path(__file__).parent / "fixtures" / "process_agent.py"
QUIET = Console(file=open("/dev/null", "w"), force_terminal=False)  # noqa: SIM115


async def run(tmp_path: Path, tasks: list[str], **options: Any):
    config = RunConfig(
        out=tmp_path / "run", offline=True, task=tasks, agent="process", agent_command=f"{sys.executable} {AGENT}", agent_config=options, infra_retries=0
    )
    return await execute_run(config, console=QUIET)


async def test_process_agent_is_graded_from_what_the_gateway_recorded(tmp_path: Path) -> None:
    result = await run(tmp_path, ["payments_balance_inquiry_01", "payments_checkout_full_chain_02"])
    by_task = {r.key.task_id: r for r in result.records}
    balance = by_task["payments_balance_inquiry_01"]
    assert balance.strict, balance.error or balance.verdict.summary()
    assert [(c.tool, c.status) for c in balance.tool_trace] == [("get_account_balance", "executed")]
    assert balance.usage["agent"].prompt_tokens == 50 and balance.agent == "process:process_agent"  # labelled by its program
    assert not by_task["payments_checkout_full_chain_02"].strict and by_task["payments_checkout_full_chain_02"].status == "scored"


@pytest.mark.parametrize(
    ("mode", "status", "failure_class"),
    [("give_up", "scored", "model:max_turns"), ("crash", "infra_error", "infra:crash"), ("exit", "infra_error", "infra:crash")],
)
async def test_process_agent_failure_classes(tmp_path: Path, mode: str, status: str, failure_class: str) -> None:
    [record] = (await run(tmp_path, ["payments_balance_inquiry_01"], mode=mode)).records
    assert (record.status, record.failure_class) == (status, failure_class), record.error
    if mode == "exit":
        assert "exited" in (record.error or "") and "agent for trial" in (record.error or "")  # its stderr is shown


async def test_missing_command_is_a_configuration_error(tmp_path: Path) -> None:
    from models.base import ConfigurationError

    with pytest.raises(ConfigurationError, match="--agent-command"):
        await execute_run(RunConfig(out=tmp_path / "r", offline=True, agent="process", task=["payments_balance_inquiry_01"]), console=QUIET)
