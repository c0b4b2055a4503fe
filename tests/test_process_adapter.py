"""An agent in another process (any language) through the JSON-lines stdio protocol: it gets its MCP URL,
its calls are recorded by the gateway, its replies graded; its give-ups and its crashes score 0 (in the denominator)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from harness.runner.config import RunConfig
from harness.runner.run import execute_run

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
    ("mode", "failure_class"),
    [
        ("give_up", "model:max_turns"),
        ("crash", "model:agent_error"),  # {"type": "error"}: the agent's failure, never ⊥ (issue 28)
        ("exit", "model:agent_error"),
        ("garbage", "model:agent_error"),
        ("bad_usage", "model:agent_error"),
    ],
)
async def test_every_process_agent_failure_scores_zero_in_the_denominator(tmp_path: Path, mode: str, failure_class: str) -> None:
    result = await run(tmp_path, ["payments_balance_inquiry_01"], mode=mode)
    [record] = result.records
    assert (record.status, record.strict, record.failure_class) == ("scored", False, failure_class), record.error
    assert record.attempts == 1  # not re-run as infrastructure
    assert "| **all** | 1 | 1 | 0 | 0 | 0.00% |" in result.summary_markdown
    if mode == "exit":
        assert "exited" in (record.error or "") and "agent for trial" in (record.error or "")  # its stderr is shown
    if mode == "crash":
        assert "KeyError in my agent" in (record.error or "")


@pytest.mark.parametrize(("mode", "usage"), [("crash", (70, 7, 2)), ("give_up_usage", (30, 3, 3))])
async def test_the_failure_messages_carry_usage_into_the_ledger(tmp_path: Path, mode: str, usage: tuple[int, int, int]) -> None:
    [record] = (await run(tmp_path, ["payments_balance_inquiry_01"], mode=mode)).records
    spent = record.usage["agent"]
    assert (spent.prompt_tokens, spent.completion_tokens, spent.calls) == usage


async def test_the_process_starts_in_an_empty_directory_with_a_minimal_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import json

    monkeypatch.setenv("CRMBENCH_TEST_SECRET", "s3cret")
    monkeypatch.setenv("CRMBENCH_TEST_PASSED", "yes")
    config = RunConfig(
        out=tmp_path / "run", offline=True, task=["payments_balance_inquiry_01"], agent="process", agent_command=f"{sys.executable} {AGENT}",
        agent_config={"mode": "env"}, agent_env=["CRMBENCH_TEST_PASSED"], infra_retries=0,
    )  # fmt: skip
    [record] = (await execute_run(config, console=QUIET)).records
    seen = json.loads(next(m.content for m in record.conversation if m.role == "assistant"))
    assert set(seen["env"]) <= {"CRMBENCH_MCP_URL", "CRMBENCH_TRIAL_ID", "PATH", "HOME", "TMPDIR", "LANG", "CRMBENCH_TEST_PASSED", "LC_CTYPE"}
    assert "CRMBENCH_TEST_PASSED" in seen["env"] and "CRMBENCH_TEST_SECRET" not in seen["env"]
    assert seen["listing"] == [] and Path(seen["cwd"]).name.startswith("crmbench-agent-")
    assert not Path(seen["cwd"]).exists()  # removed after the trial


def test_a_relative_script_is_resolved_and_its_content_is_the_code_identity(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from harness.adapters.process import code_identity, resolve_command
    from harness.runner.plan import config_hash, resolve_plan

    script = tmp_path / "agent.py"
    script.write_text("print('v1')\n")
    monkeypatch.chdir(tmp_path)
    assert resolve_command(["python", "agent.py", "--fast"]) == ["python", str(script), "--fast"]
    config = RunConfig(offline=True, agent="process", agent_command="python agent.py")
    before = config_hash(config, resolve_plan(config), "dataset")
    first = code_identity("python agent.py")
    script.write_text("print('v2')\n")
    assert code_identity("python agent.py") != first
    assert config_hash(config, resolve_plan(config), "dataset") != before  # an edited agent is a new run, not a resume


async def test_missing_command_is_a_configuration_error(tmp_path: Path) -> None:
    from models.base import ConfigurationError

    with pytest.raises(ConfigurationError, match="--agent-command"):
        await execute_run(RunConfig(out=tmp_path / "r", offline=True, agent="process", task=["payments_balance_inquiry_01"]), console=QUIET)
