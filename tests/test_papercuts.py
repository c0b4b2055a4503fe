"""Users' papercuts (issue 28), each with a test: the report prices a run as the run did, `--label` takes
commas, help texts everywhere, `stdio --help` shows only its flags, fastmcp's per-call error log is ours at
debug level, a wheel's version and source hash are in the manifest, tool annotations tell the truth."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from harness.cli import Crmbench, keep_commas, main

pytestmark = pytest.mark.anyio
QUIET = Console(file=open("/dev/null", "w"), force_terminal=False)  # noqa: SIM115
BALANCE = "payments_balance_inquiry_01"


def test_label_values_keep_their_commas(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    seen: dict[str, Any] = {}

    def fake_build(runs: Any, out: Any, **kwargs: Any) -> Any:
        seen.update(kwargs)
        raise SystemExit(0)

    import harness.report.build as build

    monkeypatch.setattr(build, "build_report", fake_build)
    with pytest.raises(SystemExit):
        main(["report", "--label", f"baseline={tmp_path / 'r1'},{tmp_path / 'r2'}", "--label=gold=x", "--out", str(tmp_path / "rep")])
    assert seen["labels"] == {tmp_path / "r1": "baseline", tmp_path / "r2": "baseline", Path("x"): "gold"}
    assert keep_commas(["report", "--label", '["a=b"]']) == ["report", "--label", '["a=b"]']


async def test_the_report_uses_the_price_table_the_run_recorded(tmp_path: Path) -> None:
    from harness.report.build import build_report
    from harness.runner.components import TrialComponents
    from harness.runner.config import RunConfig
    from harness.runner.plan import Plan
    from harness.runner.run import execute_run
    from models.prices import DEFAULT_PRICE_TABLE
    from models.scripted import ScriptedModel, text, tool_call

    prices = tmp_path / "prices.yaml"
    prices.write_text(
        "currency: USD\nunit: per_million_tokens\nmodels:\n  mock:agent: {input: 1000000.0, output: 0.0, accessed: 2026-01-01}\n", encoding="utf-8"
    )
    config = RunConfig(out=tmp_path / "run", task=[BALANCE], agent="graph", agent_model="mock:agent", price_table=prices)
    plan = Plan(agent="graph", agent_model="mock:agent", router_model="mock:agent", user="scripted", judge="evidence", offline=False)
    script = [tool_call("route", node="balance_inquiry"), tool_call("get_account_balance", account_id="ACC-1005"), text("Your balance is $640.20.")]
    result = await execute_run(config, console=QUIET, components=TrialComponents(config, plan, apis={"agent": ScriptedModel(script), "router": ScriptedModel(script)}))
    recorded = build_report([result.directory], tmp_path / "a", figures=False)
    default = build_report([result.directory], tmp_path / "b", price_table=DEFAULT_PRICE_TABLE, figures=False)
    board = {t.key: t for t in recorded.tables}["leaderboard"]
    other = {t.key: t for t in default.tables}["leaderboard"]
    assert board.rows != other.rows  # priced at the run's own rates, not the default table's "n/a"
    assert any("$" in str(cell) for row in board.rows for cell in row)


def _subcommands() -> dict[str, type]:
    return {name if name != "validate_" else "validate": field.annotation.__args__[0] for name, field in Crmbench.model_fields.items()}


def test_every_subcommand_and_flag_has_a_help_text(capsys: pytest.CaptureFixture[str]) -> None:
    for name, field in Crmbench.model_fields.items():
        assert field.description, f"subcommand {name} has no description"
    for name, model in _subcommands().items():
        for flag, field in model.model_fields.items():
            assert field.description, f"crmbench {name} --{flag.replace('_', '-')} has no help text"
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert "run the benchmark" in out and "re-grade a recorded run" in out


@pytest.mark.parametrize("subcommand", ["run", "report", "compare", "grade", "serve", "stdio", "tasks", "suggest", "validate"])
def test_every_subcommand_help_works(subcommand: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main([subcommand, "--help"])
    assert info.value.code in (0, None)
    assert "usage: crmbench" in capsys.readouterr().out


def test_stdio_help_lists_only_its_flags(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["stdio", "--help"])
    out = capsys.readouterr().out
    usage, options = out.split("\n\n", 1)[0], out.split("options:", 1)[1]
    for http_only in ("--port", "--host", "--control-token", "--allowed-origin", "--transport", "--require-trial", "--judge"):
        assert http_only not in usage and http_only not in options, http_only
    assert "--domain" in out and "--task" in out and "--log-level" in out


async def test_fastmcps_per_call_error_log_is_ours_at_debug() -> None:
    """A failing tool call must not print a timestamped 'Error calling tool' line that looks like a harness
    failure: fastmcp's per-call records go to `crmbench.tools` at debug level."""
    import logging

    from fastmcp import Client

    from servers.gateway import Gateway

    class Keep(logging.Handler):
        def __init__(self) -> None:
            super().__init__(logging.DEBUG)
            self.records: list[logging.LogRecord] = []

        def emit(self, record: logging.LogRecord) -> None:
            self.records.append(record)

    fastmcp_log, ours = logging.getLogger("fastmcp.server.server"), logging.getLogger("crmbench.tools")
    loud, quiet = Keep(), Keep()
    levels = fastmcp_log.level, ours.level
    fastmcp_log.addHandler(loud)
    ours.addHandler(quiet)
    fastmcp_log.setLevel(logging.DEBUG)
    ours.setLevel(logging.DEBUG)
    try:
        gateway = Gateway(["payments"])
        trial = gateway.open_trial("payments")
        async with Client(gateway.server("payments")) as client:
            for args in ({"account_id": "ACC-NOPE"}, {"account_id": 5}):
                result = await client.call_tool("get_account_balance", args, raise_on_error=False, meta={"crmbench/trial": trial.trial_id})
                assert result.is_error
    finally:
        fastmcp_log.removeHandler(loud)
        ours.removeHandler(quiet)
        fastmcp_log.setLevel(levels[0])
        ours.setLevel(levels[1])
    assert not [r for r in loud.records if "tool" in r.getMessage() and r.levelno >= logging.WARNING], [r.getMessage() for r in loud.records]
    assert quiet.records and all(r.levelno == logging.DEBUG for r in quiet.records)


def test_the_manifest_records_the_version_and_a_source_hash() -> None:
    from harness.manifest import source_identity

    identity = source_identity()
    assert identity["version"] and identity["source_sha256"] and len(identity["source_sha256"]) == 64
    assert identity == source_identity()  # stable


def test_the_source_hash_changes_with_the_code(tmp_path: Path) -> None:
    from harness import manifest

    (tmp_path / "a.py").write_text("x = 1\n", encoding="utf-8")
    first = manifest.tree_sha256(tmp_path)
    (tmp_path / "a.py").write_text("x = 2\n", encoding="utf-8")
    assert manifest.tree_sha256(tmp_path) != first


def test_tool_annotations_never_claim_read_only_for_a_tool_that_changes_state() -> None:
    """authenticate_customer (compute) records the customer as authenticated: not read-only, in every
    domain that has one; pure computations stay read-only."""
    from servers.registry import environment_class, known_domains
    from servers.tool_derivation import domain_tools

    seen_auth = 0
    for domain in known_domains():
        tools = domain_tools(environment_class(domain))
        for name, tool in tools.items():
            hints = tool.annotations
            if name.startswith(("authenticate", "verify_identity", "login")):
                seen_auth += 1
                assert hints.read_only_hint is False and hints.destructive_hint is False, (domain, name)
    assert seen_auth >= 3
    payments = domain_tools(environment_class("payments"))
    assert payments["validate_transfer"].annotations.read_only_hint is True


async def test_every_tool_annotated_read_only_leaves_the_world_unchanged_on_the_gold_paths() -> None:
    """Verified against the world, not only the code: every gold call of the catalog to a tool that claims
    read-only is replayed on the task's world, and the world is compared before and after."""
    from contracts.catalog import load_catalog
    from harness.release.replay import resolve_args
    from servers.gateway import Gateway
    from servers.registry import environment_class
    from servers.tool_derivation import domain_tools

    gateway = Gateway()
    checked = 0
    read_only = {}
    for task in load_catalog().values():
        if task.domain not in read_only:
            read_only[task.domain] = {n for n, t in domain_tools(environment_class(task.domain)).items() if t.annotations.read_only_hint}
        trial = gateway.open_trial(task.domain, initial_state=task.initial_state, seed=0, task_id=task.id)
        for turn in task.gold:
            for call in turn.calls:
                args = resolve_args(call.args, trial.trace, strict=False)
                before = trial.final_state()
                await gateway.call_tool(trial.trial_id, call.tool, args) if call.tool in read_only[task.domain] else await _call(gateway, trial, call.tool, args)
                if call.tool in read_only[task.domain]:
                    checked += 1
                    assert trial.final_state() == before, (task.id, call.tool)
        gateway.close_trial(trial.trial_id)
    assert checked > 500


async def _call(gateway: Any, trial: Any, tool: str, args: dict[str, Any]) -> None:
    from fastmcp.exceptions import ToolError

    try:
        await gateway.call_tool(trial.trial_id, tool, args)
    except ToolError:
        pass


# ---- issue 39: help says what a user types; plan's headline is what the user will run --------------------

PYTHON_WORDS = ("list[", "dict[", "{Path", "Path,", ",null}", "null", "default factory", " str ", " int ", " float ", "VALUE")


@pytest.mark.parametrize("subcommand", ["run", "report", "compare", "plan", "diff", "grade", "serve", "stdio", "tasks", "suggest", "validate", "judge-check"])
def test_help_names_values_as_a_user_types_them(subcommand: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main([subcommand, "--help"])
    out = capsys.readouterr().out
    for word in PYTHON_WORDS:
        assert word not in out, f"crmbench {subcommand} --help shows {word!r}"


def test_help_value_names_come_from_the_config() -> None:
    from typing import Literal

    from pydantic import BaseModel, Field

    from harness.cli_help import help_text, metavar
    from harness.runner.config import RunConfig

    class Example(BaseModel):
        out: Path | None = None
        count: int | None = None
        level: list[Literal["a", "b"]] = Field(default_factory=list)
        mode: bool = False

    fields = RunConfig.model_fields
    assert metavar(fields["domain"]) == "DOMAIN" and metavar(fields["agent_model"]) == "PROVIDER:MODEL"
    assert metavar(fields["rounds"]) == "N" and metavar(fields["agent_config"]) == "JSON" and metavar(fields["task_timeout_s"]) == "NUMBER"
    assert metavar(Example.model_fields["out"]) == "PATH" and metavar(Example.model_fields["count"]) == "N"
    assert metavar(Example.model_fields["level"]) == "{a,b}"
    assert help_text(Example.model_fields["level"], "levels (default factory: list)") == "levels (repeatable)"
    assert help_text(Example.model_fields["out"], "where (default: null)") == "where"
    assert help_text(Example.model_fields["mode"], "switch (default: False)") == "switch (default: off)"
    assert help_text(Example.model_fields["level"], "levels (repeatable; a, b)") == "levels (repeatable; a, b)"


def test_report_help_says_which_price_table_prices_a_run(capsys: pytest.CaptureFixture[str]) -> None:
    """The behaviour (test_the_report_uses_the_price_table_the_run_recorded): each run's manifest table;
    the help must say the same, not 'default: models/prices.yaml'."""
    with pytest.raises(SystemExit):
        main(["report", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "the table each run recorded in its manifest" in out
    assert "(default: models/prices.yaml)" not in out


def test_plan_headline_is_rounds_times_tasks_and_names_its_approximation() -> None:
    from harness.report.power import plan_from_counts

    counts = [(3, 3)] * 50 + [(0, 3)] * 20 + [(1, 3)] * 15 + [(2, 3)] * 15
    plan = plan_from_counts("x", counts, 3, delta=0.10, alpha=0.05, power=0.8)
    assert plan.rounds_needed is not None and plan.pairs_needed is not None
    assert plan.pairs_needed != plan.rounds_needed * plan.tasks  # the case the headline got wrong: a rounded-up round
    text = plan.render()
    assert f"{plan.rounds_needed} × {plan.tasks} = {plan.rounds_needed * plan.tasks} paired trials" in text
    assert f"({plan.pairs_needed} paired trials in all)" not in text
    assert "continuity-corrected normal approximation" in text
