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


# --- issue 41: the agent's identity follows the code its command really runs ---------------------------


def _tree(root: Path) -> None:
    (root / "pkg").mkdir()
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "main.py").write_text("from pkg.helper import answer\n")
    (root / "pkg" / "helper.py").write_text("answer = 1\n")
    (root / "proj" / "agents").mkdir(parents=True)
    (root / "proj" / "agents" / "agent.py").write_text("import tools\n")
    (root / "proj" / "agents" / "tools.py").write_text("answer = 1\n")
    (root / "wrap.sh").write_text("#!/bin/sh\nexec python3 proj/agents/agent.py \"$@\"\n")


@pytest.mark.parametrize(
    ("command", "edited"),
    [
        ("sh wrap.sh", "proj/agents/tools.py"),  # a wrapper running a Python file that imports another
        ("./wrap.sh --fast", "proj/agents/agent.py"),
        ("python -m pkg.main", "pkg/helper.py"),  # a module: its package
        ("bash -c 'python proj/agents/agent.py --x'", "proj/agents/tools.py"),  # a shell string
        ("uv run --directory proj python agents/agent.py", "proj/agents/tools.py"),  # another directory
        ("python proj/agents/agent.py", "proj/agents/tools.py"),  # the modules the named script imports
    ],
)
def test_an_edit_to_code_the_command_does_not_name_is_a_new_identity(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str, edited: str) -> None:
    from harness.adapters.process import code_identity
    from harness.runner.plan import config_hash, resolve_plan

    _tree(tmp_path)
    monkeypatch.chdir(tmp_path)
    config = RunConfig(offline=True, agent="process", agent_command=command)
    before, first = config_hash(config, resolve_plan(config), "dataset"), code_identity(command)
    assert first is not None
    (tmp_path / edited).write_text((tmp_path / edited).read_text() + "answer = 2  # edited\n")
    assert code_identity(command) != first
    assert config_hash(config, resolve_plan(config), "dataset") != before


def test_a_declared_agent_code_path_is_part_of_the_identity(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from harness.runner.plan import config_hash, resolve_plan
    from models.base import ConfigurationError

    _tree(tmp_path)
    monkeypatch.chdir(tmp_path)
    config = RunConfig(offline=True, agent="process", agent_command="my-installed-agent", agent_code=[Path("proj")])
    plan = resolve_plan(config)
    assert plan.agent_code is not None
    before = config_hash(config, plan, "dataset")
    (tmp_path / "proj" / "agents" / "tools.py").write_text("answer = 3\n")
    assert config_hash(config, resolve_plan(config), "dataset") != before
    assert resolve_plan(RunConfig(offline=True, agent="process", agent_command="my-installed-agent")).agent_code is None
    with pytest.raises(ConfigurationError, match="--agent-code"):
        resolve_plan(RunConfig(offline=True, agent="process", agent_command="x", agent_code=[Path("missing")]))


def test_an_interpreter_alone_identifies_nothing() -> None:
    from harness.agent_code import agent_code

    assert not agent_code(f"{sys.executable} -m no_such_module_here").established
    assert not agent_code("some-program-on-path --flag").established
    assert agent_code(f"{sys.executable} -c 'print(1)'").established  # inline code: the command is the code


async def test_a_run_of_an_unidentified_agent_is_not_resumed_silently(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from harness.rundir import UnidentifiedAgent

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    program = bin_dir / "crmbench-test-installed-agent"
    program.write_text(f"#!{sys.executable}\nimport runpy\nrunpy.run_path({str(AGENT)!r}, run_name='__main__')\n")
    program.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:{__import__('os').environ['PATH']}")

    def config(**extra: Any) -> RunConfig:
        return RunConfig(
            out=tmp_path / "run", offline=True, task=["payments_balance_inquiry_01"], agent="process", agent_command=program.name, infra_retries=0, **extra
        )

    first = await execute_run(config(), console=QUIET)  # a new run: nothing to mix it with
    assert first.records[0].status == "scored"
    with pytest.raises(UnidentifiedAgent, match="--agent-code"):
        await execute_run(config(), console=QUIET)
    resumed = await execute_run(config(allow_unidentified_agent=True), console=QUIET)  # the user vouches for it
    assert resumed.skipped == 1


# --- issue 41: a process agent cannot reach the harness --------------------------------------------------


def _isolation_reason() -> str | None:
    from harness.adapters.isolation import IsolationUnavailable, probe

    try:
        probe()
    except IsolationUnavailable as exc:
        return str(exc)
    return None


async def _snoop(tmp_path: Path, **extra: Any) -> dict[str, Any]:
    import json
    import os

    from contracts.catalog import TASKS_DIR

    # A variable of the harness's own environment as the kernel shows it (where API keys would be).
    marker = next(v for v in Path("/proc/self/environ").read_bytes().split(b"\0") if v.startswith(b"PATH=")).decode("latin-1")
    out = tmp_path / "run"
    options = {"mode": "snoop", "harness_pid": os.getpid(), "tasks_dir": str(TASKS_DIR), "run_dir": str(out), "marker": marker}
    config = RunConfig(
        out=out, offline=True, task=["payments_balance_inquiry_01"], agent="process", agent_command=f"{sys.executable} {AGENT}",
        agent_config=options, infra_retries=0, **extra,
    )  # fmt: skip
    [record] = (await execute_run(config, console=QUIET)).records
    assert record.status == "scored" and not record.strict  # snooping is no answer: a failure, in the denominator
    return json.loads(next(m.content for m in record.conversation if m.role == "assistant"))


async def test_an_isolated_agent_cannot_read_or_signal_the_harness(tmp_path: Path) -> None:
    reason = _isolation_reason()
    if reason:
        pytest.skip(f"this machine cannot isolate a process agent: {reason}")
    seen = await _snoop(tmp_path)
    assert seen["environ"].startswith("refused"), seen  # /proc/<harness>/environ: not there
    assert seen["cwd"].startswith("refused") and seen["cwd_listing"].startswith("refused"), seen
    assert seen["signal"].startswith("refused"), seen  # no signal reaches the harness
    assert seen["secret_in"] == "[]", seen  # no process it can see holds the harness's secret
    assert seen["parent"] == "0", seen  # its parent is outside its PID namespace
    for covered in ("tasks", "run_dir"):  # the catalog and the run directory are covered: empty, or not there at all
        assert seen[covered] == "[]" or seen[covered].startswith("refused: FileNotFoundError"), seen


async def test_an_unisolated_agent_can_read_the_harness_so_the_check_above_can_fail(tmp_path: Path) -> None:
    """The control: run as a plain child (`--agent-unisolated`), the same agent reaches all of it."""
    seen = await _snoop(tmp_path, agent_unisolated=True)
    assert seen["environ"] == "True" and seen["signal"] == "delivered" and seen["secret_in"] != "[]", seen
    assert seen["tasks"] != "[]", seen


async def test_without_isolation_a_process_agent_is_refused_unless_the_user_opts_out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from harness.adapters import process
    from harness.adapters.isolation import IsolationUnavailable
    from models.base import ConfigurationError

    def unavailable() -> Any:
        raise IsolationUnavailable("unshare not found (util-linux on Linux is needed)")

    monkeypatch.setattr(process, "probe", unavailable)
    with pytest.raises(ConfigurationError, match="cannot isolate a process agent.*unshare not found.*--agent-unisolated"):
        await run(tmp_path, ["payments_balance_inquiry_01"])
    config = RunConfig(
        out=tmp_path / "opted-out", offline=True, task=["payments_balance_inquiry_01"], agent="process",
        agent_command=f"{sys.executable} {AGENT}", agent_unisolated=True, infra_retries=0,
    )  # fmt: skip
    [record] = (await execute_run(config, console=QUIET)).records
    assert record.strict, record.error


def test_the_probe_names_what_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    import shutil

    from harness.adapters import isolation

    real = shutil.which
    monkeypatch.setattr(isolation.shutil, "which", lambda name, *a, **k: None if name == "unshare" else real(name, *a, **k))
    with pytest.raises(isolation.IsolationUnavailable, match="unshare not found"):
        isolation.probe.__wrapped__()


def test_covers_hide_the_outermost_directories_only(tmp_path: Path) -> None:
    from harness.adapters.isolation import covers

    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "c").mkdir()
    assert covers([tmp_path / "a" / "b", tmp_path / "a", tmp_path / "c", tmp_path / "missing", None]) == [str(tmp_path / "a"), str(tmp_path / "c")]  # type: ignore[list-item]


async def test_a_missing_program_is_a_configuration_error_not_the_agents_exit(tmp_path: Path) -> None:
    from models.base import ConfigurationError

    config = RunConfig(out=tmp_path / "r", offline=True, task=["payments_balance_inquiry_01"], agent="process", agent_command="no-such-program-crmbench", infra_retries=0)
    with pytest.raises(ConfigurationError, match="not found"):
        await execute_run(config, console=QUIET)
