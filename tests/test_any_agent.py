"""Benchmarking an agent that is not ours: the plug-in point, its identity, honest failure classes, the
redacted task view, one task scope for start/respond/stop, HTTP served on demand, usage, isolation."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from harness.runner.components import TrialComponents
from harness.runner.config import RunConfig
from harness.runner.plan import Plan, config_hash, resolve_plan
from harness.runner.plugins import ENTRY_POINT_GROUP, load_plugin
from harness.runner.run import default_out, execute_run
from models.base import ConfigurationError
from tests.fixtures.my_agent import Crashes, GivesUp, MyAgent, SeesTheView, Snoops

pytestmark = pytest.mark.anyio
QUIET = Console(file=open("/dev/null", "w"), force_terminal=False)  # noqa: SIM115
BALANCE = "payments_balance_inquiry_01"
CHECKOUT = "payments_checkout_full_chain_02"


async def run(tmp_path: Path, *, components: TrialComponents | None = None, **kwargs: Any):
    config = RunConfig(out=kwargs.pop("out", tmp_path / "run"), offline=True, **kwargs)
    return await execute_run(config, console=QUIET, components=components)


async def test_plugin_agent_by_module_and_class_is_labelled_by_its_own_name(tmp_path: Path) -> None:
    result = await run(tmp_path, agent="tests.fixtures.my_agent:MyAgent", agent_config={"greeting": "Hi"}, task=[BALANCE, CHECKOUT])
    manifest = json.loads((result.directory / "manifest.json").read_text())
    assert manifest["plan"]["agent"] == "my-agent" and manifest["plan"]["agent_ref"] == "tests.fixtures.my_agent:MyAgent"
    assert manifest["plan"]["agent_config"] == {"greeting": "Hi"}
    assert all(r.agent == "my-agent" for r in result.records)
    assert "agent: my-agent" in result.summary_markdown and "oracle" not in result.summary_markdown
    by_task = {r.key.task_id: r for r in result.records}
    assert by_task[BALANCE].strict and by_task[BALANCE].conversation[-1].content.startswith("Hi! Account ACC-1005 has a balance of $640.20")
    assert by_task[CHECKOUT].status == "scored" and not by_task[CHECKOUT].strict  # it cannot check out: scored 0
    assert "| **all** | 2 | 2 | 0 | 1 | 50.00% |" in result.summary_markdown


def test_identity_is_in_the_config_hash_and_the_default_folder() -> None:
    oracle = resolve_plan(RunConfig(offline=True))
    mine = resolve_plan(RunConfig(offline=True, agent="tests.fixtures.my_agent:MyAgent"))
    configured = resolve_plan(RunConfig(offline=True, agent="tests.fixtures.my_agent:MyAgent", agent_config={"greeting": "Yo"}))
    hashes = {config_hash(RunConfig(), p, "d") for p in (oracle, mine, configured)}
    assert len(hashes) == 3
    assert default_out(mine, "abcdef0123").name.startswith("my-agent-")
    assert default_out(oracle, "abcdef0123").name.startswith("oracle-")
    assert default_out(mine, "x").parent == Path.cwd() / "runs"  # the current folder, not the install folder


def test_unknown_or_broken_plugins_are_configuration_errors() -> None:
    with pytest.raises(ConfigurationError, match="cannot import"):
        load_plugin("no_such_module_xyz:Agent")
    with pytest.raises(ConfigurationError, match="has no attribute"):
        load_plugin("tests.fixtures.my_agent:Nope")
    with pytest.raises(ConfigurationError, match="does not implement the Agent protocol"):
        load_plugin("pathlib:Path")
    with pytest.raises(ConfigurationError, match="unknown agent 'nobody'"):
        load_plugin("nobody")


def test_entry_point_group_registers_agents_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.metadata

    ep = importlib.metadata.EntryPoint(name="mine", value="tests.fixtures.my_agent:MyAgent", group=ENTRY_POINT_GROUP)
    monkeypatch.setattr(importlib.metadata, "entry_points", lambda group=None: [ep] if group == ENTRY_POINT_GROUP else [])
    plan = resolve_plan(RunConfig(offline=True, agent="mine"))
    assert (plan.agent, plan.agent_kind, plan.agent_ref) == ("my-agent", "plugin", "tests.fixtures.my_agent:MyAgent")


async def test_factory_agent_is_not_recorded_as_oracle_and_does_not_resume_its_run(tmp_path: Path) -> None:
    oracle = await run(tmp_path, task=[BALANCE], out=tmp_path / "a")
    assert oracle.records[0].strict
    config = RunConfig(offline=True, task=[BALANCE])  # no --agent: resolves to the oracle...
    components = TrialComponents(config, resolve_plan(config), apis={}, agent_factory=MyAgent)  # ...but MyAgent runs
    assert components.plan.agent == "my-agent" and components.plan.agent_kind == "plugin"
    assert not any("oracle" in n for n in components.plan.notes)
    oracle_hash = json.loads((oracle.directory / "manifest.json").read_text())["config_hash"]
    mine = await execute_run(config.model_copy(update={"out": tmp_path / "b"}), console=QUIET, components=components)
    assert json.loads((mine.directory / "manifest.json").read_text())["config_hash"] != oracle_hash
    assert mine.records[0].agent == "my-agent"
    unnamed = TrialComponents(config, resolve_plan(config), apis={}, agent_factory=lambda view: MyAgent())
    assert unnamed.plan.agent == "custom-agent" and "<lambda>" in (unnamed.plan.agent_ref or "")  # never "oracle"
    assert any("agent_name=" in n for n in unnamed.plan.notes)


async def test_model_give_up_and_a_plugin_that_raises_both_score_zero_in_the_denominator(tmp_path: Path) -> None:
    """The ⊥ rule (docs/guarantees.md): a plug-in whose respond raises is the agent's failure, not ⊥."""
    gave_up = await run(tmp_path, agent="tests.fixtures.my_agent:GivesUp", task=[BALANCE], out=tmp_path / "a")
    [record] = gave_up.records
    assert record.status == "scored" and record.strict is False and record.failure_class == "model:invalid_tool_calls"
    assert "| **all** | 1 | 1 | 0 | 0 | 0.00% |" in gave_up.summary_markdown  # in the denominator
    crashed = await run(tmp_path, agent="tests.fixtures.my_agent:Crashes", task=[BALANCE], out=tmp_path / "b", infra_retries=0)
    [record] = crashed.records
    assert record.status == "scored" and record.strict is False and record.failure_class == "model:agent_error", record.error
    assert "adapter bug" in (record.error or "") and record.attempts == 1  # labelled with its message, never re-run
    assert "| **all** | 1 | 1 | 0 | 0 | 0.00% |" in crashed.summary_markdown  # in the denominator
    assert GivesUp.name != Crashes.name
    assert "WARNING" not in gave_up.summary_markdown and "WARNING" not in crashed.summary_markdown
    from harness.report.data import load_runs
    from harness.report.tables import leaderboard
    from models.prices import DEFAULT_PRICE_TABLE, PriceTable

    table = leaderboard(load_runs([gave_up.directory, crashed.directory]), PriceTable.load(DEFAULT_PRICE_TABLE))
    assert {row[1].rstrip(" †‡") for row in table.rows} == {"gives-up", "crashes"}  # two systems, by name (partial: †)


async def test_agent_gets_a_redacted_view_and_no_url_when_it_needs_none(tmp_path: Path) -> None:
    SeesTheView.seen.clear()
    await run(tmp_path, agent="tests.fixtures.my_agent:SeesTheView", task=[BALANCE])
    [session] = SeesTheView.seen
    assert session.mcp_url is None  # needs_mcp_url = False: no HTTP served
    view = session.task
    assert view.domain == "payments" and "get_account_balance" in view.tool_names() and "PIN" in view.policy
    assert not hasattr(session, "task_id")
    text = repr(view)
    assert "ACC-1005" not in text and "640.20" not in text and BALANCE not in text  # no instruction, gold or id
    tool = next(t for t in view.tools if t.name == "process_payment")
    assert tool.kind == "write" and "amount" in tool.input_schema["properties"]


async def test_usage_from_the_adapter_reaches_the_ledger_and_the_cost(tmp_path: Path) -> None:
    config = RunConfig(offline=True, task=[BALANCE], out=tmp_path / "run")
    plan = Plan(agent="my-agent", agent_model="openai:gpt-5-mini", user="scripted", judge="evidence", offline=True)
    components = TrialComponents(config, plan, apis={}, agent_factory=MyAgent)
    result = await execute_run(config, console=QUIET, components=components)
    [record] = result.records
    assert record.usage["agent"].prompt_tokens == 1000 and record.usage["agent"].completion_tokens == 100
    assert "estimated agent cost (cache-neutral): $0.0004" in result.summary_markdown  # 1000*0.25e-6 + 100*2e-6
    unpriced = plan.model_copy(update={"agent_model": "vllm:my-model"})
    other = await execute_run(config.model_copy(update={"out": tmp_path / "b"}), console=QUIET, components=TrialComponents(config, unpriced, apis={}, agent_factory=MyAgent))
    assert "estimated agent cost (cache-neutral): n/a" in other.summary_markdown


async def test_agent_reaching_for_the_control_plane_is_refused_recorded_and_fails(tmp_path: Path) -> None:
    result = await run(tmp_path, agent="tests.fixtures.my_agent:Snoops", task=[BALANCE])
    [record] = result.records
    assert record.status == "scored" and not record.strict
    assert record.failure_class == "model:isolation_violation" and "without the run's token" in (record.error or "")


async def test_require_trial_really_requires_one() -> None:
    from fastmcp import Client

    from servers.gateway import Gateway
    from servers.trials import TrialStore

    gateway = Gateway(["payments"], store=TrialStore(sandbox=False))
    async with Client(gateway.server("payments")) as client:
        result = await client.call_tool("get_account_balance", {"account_id": "ACC-1001"}, raise_on_error=False)
    assert result.is_error and "no sandbox (--require-trial)" in result.content[0].text
    assert len(gateway.store) == 0 and gateway.store.incidents


def test_trial_ids_are_unguessable() -> None:
    from servers.trials import TrialStore

    store = TrialStore()
    ids = {store.open("payments").trial_id for _ in range(50)}
    assert len(ids) == 50 and all(len(i) >= 6 + 24 for i in ids)


@pytest.mark.slow
def test_cli_runs_a_plugin_agent_from_the_project_folder(tmp_path: Path) -> None:
    """The installed `crmbench` started in the project folder imports the agent from that folder (a
    console script does not put the current folder on sys.path by itself): a real process."""
    import subprocess
    import sys

    crmbench = Path(sys.executable).parent / "crmbench"
    root = Path(__file__).resolve().parents[1]
    ok = subprocess.run(
        [str(crmbench), "run", "--agent", "tests.fixtures.my_agent:MyAgent", "--task", BALANCE, "--offline", "--out", str(tmp_path / "run")],
        cwd=root, capture_output=True, text=True, timeout=120,
    )
    assert ok.returncode == 0, ok.stderr
    assert "agent: my-agent" in ok.stdout and "| **all** | 1 | 1 | 0 | 1 | 100.00% |" in ok.stdout


def test_cli_names_an_agent_it_cannot_import_or_configure(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Exit 2 and a sentence, never a traceback (in this process: the messages and exit codes of
    `harness.cli.main`, the function the console script calls)."""
    from harness.cli import main

    def cli(*args: str) -> tuple[int, str]:
        with pytest.raises(SystemExit) as info:
            main(list(args))
            raise SystemExit(0)
        return int(info.value.code or 0), capsys.readouterr().err

    code, err = cli("run", "--agent", "nowhere:Agent", "--offline", "--out", str(tmp_path / "bad"))
    assert code == 2 and "cannot import 'nowhere'" in err and "Traceback" not in err
    code, err = cli("run", "--agent", "tests.fixtures.my_agent:MyAgent", "--agent-config", '{"nope": 1}', "--task", BALANCE, "--offline", "--out", str(tmp_path / "w"))
    assert code == 2 and "unexpected keyword argument 'nope'" in err and "Traceback" not in err


def test_the_wheel_ships_every_package_the_code_imports() -> None:
    """A non-editable `pip install .` once lacked `models`: every top-level package is in the wheel."""
    import tomllib

    root = Path(__file__).resolve().parents[1]
    shipped = set(tomllib.loads((root / "pyproject.toml").read_text())["tool"]["hatch"]["build"]["targets"]["wheel"]["packages"])
    packages = {p.parent.name for p in root.glob("*/__init__.py")} - {"tests", "scripts"}
    assert packages <= shipped, f"missing from the wheel: {sorted(packages - shipped)}"


async def test_time_limit_stops_an_agent_holding_an_open_client(tmp_path: Path) -> None:
    from tests.fixtures.my_agent import Slow

    Slow.stopped.clear()
    result = await run(tmp_path, agent="tests.fixtures.my_agent:Slow", task=[BALANCE], task_timeout_s=1.0)
    [record] = result.records
    assert record.status == "scored" and record.failure_class == "model:non_convergence", record.error
    assert Slow.stopped == [True]  # stop() ran, in the agent's own task, after the cancellation


async def test_unknown_and_foreign_tools_are_refused_recorded_and_score_zero(tmp_path: Path) -> None:
    result = await run(tmp_path, agent="tests.fixtures.my_agent:Trespasser", task=[BALANCE])
    [record] = result.records
    statuses = [(c.tool, c.status) for c in record.tool_trace]
    assert ("transfer_everything", "unknown_tool") in statuses
    assert ("retail_get_order", "unknown_tool") in statuses  # via /mcp: this run serves no retail, and it is not the trial's
    assert ("get_account_balance", "executed") in statuses  # the right answer does not save it
    assert record.status == "scored" and record.strict is False


async def test_from_context_gets_options_view_and_a_recorded_model(tmp_path: Path) -> None:
    from models.scripted import ScriptedModel, text

    config = RunConfig(offline=True, task=[BALANCE], out=tmp_path / "run", agent_config={"style": "terse"})
    plan = Plan(
        agent="uses-context", agent_kind="plugin", agent_ref="tests.fixtures.my_agent:UsesContext", agent_config={"style": "terse"},
        agent_model="openai:gpt-5-mini", user="scripted", judge="evidence", offline=True,
    )
    model = ScriptedModel([text("ACC-1005: $640.20 and 310 points", prompt_tokens=7, completion_tokens=3)])
    result = await execute_run(config, console=QUIET, components=TrialComponents(config, plan, apis={"agent": model}))
    [record] = result.records
    assert record.conversation[-1].content == "[terse/payments] ACC-1005: $640.20 and 310 points"
    assert record.usage["agent"].prompt_tokens == 7 and record.usage["agent"].calls == 1


def test_a_plugins_code_is_part_of_the_run_identity(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Editing a plug-in's module makes a new configuration (issue 28), never a silent resume."""
    from harness.runner.plan import config_hash

    module = tmp_path / "edited_agent_mod.py"
    source = (Path(__file__).parent / "fixtures" / "my_agent.py").read_text(encoding="utf-8")
    module.write_text(source, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    config = RunConfig(offline=True, agent="edited_agent_mod:MyAgent")
    plan = resolve_plan(config)
    assert plan.agent_code
    module.write_text(source + "\n# a changed prompt\n", encoding="utf-8")
    edited = resolve_plan(config)
    assert edited.agent_code != plan.agent_code
    assert config_hash(config, edited, "d") != config_hash(config, plan, "d")
