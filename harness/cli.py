"""The `crmbench` command. Subcommands are derived from the typed configs in `harness.runner.config`."""

from __future__ import annotations

import json
import logging
import os
import re
import sys
from pathlib import Path
from typing import NoReturn

from pydantic import Field, ValidationError
from pydantic_settings import BaseSettings, CliApp, CliPositionalArg, CliSettingsSource, CliSubCommand, SettingsConfigDict, SettingsError

from harness.cli_help import user_facing
from harness.runner.config import (
    CompareConfig,
    DiffConfig,
    GradeConfig,
    PlanConfig,
    ReleaseConfig,
    ReportConfig,
    RunConfig,
    ServeConfig,
    StdioConfig,
    SuggestConfig,
    TasksConfig,
    shown_as,
)


def quiet_fastmcp() -> None:
    """No network update check, no traceback per ToolError: set before fastmcp is imported."""
    os.environ.setdefault("FASTMCP_CHECK_FOR_UPDATES", "off")
    os.environ.setdefault("FASTMCP_LOG_LEVEL", "ERROR")
    os.environ.setdefault("FASTMCP_SHOW_SERVER_BANNER", "false")


class Serve(ServeConfig):
    __doc__ = ServeConfig.__doc__

    def cli_cmd(self) -> None:
        from harness.serve import serve

        logging.basicConfig(level=self.log_level, stream=sys.stderr)
        serve(ServeConfig.model_validate(self.model_dump()))


class Stdio(StdioConfig):
    """Serve one domain over stdio (one process is one trial): `crmbench stdio --domain payments`, the same
    as `serve --transport stdio`, for MCP clients' config files (the MCP Inspector's CLI takes a
    `--transport` among a server's arguments for its own). Only the flags that mean something over stdio."""

    def cli_cmd(self) -> None:
        from harness.serve import serve

        logging.basicConfig(level=self.log_level, stream=sys.stderr)
        serve(StdioConfig.model_validate(self.model_dump()).serve_config())


class Tasks(TasksConfig):
    __doc__ = TasksConfig.__doc__

    def cli_cmd(self) -> None:
        from contracts.catalog import load_catalog, select_tasks

        catalog = load_catalog()
        known = sorted({t.domain for t in catalog.values()})
        for domain in self.domain:
            if domain not in known:
                fail(f"--domain {domain!r} has no tasks in the catalog; known domains: {', '.join(known)}")
        for task in select_tasks(catalog, domains=self.domain):
            labels = ",".join(task.capabilities)
            print(f"{task.id:<52} {task.difficulty:<6} {labels:<40} {task.title}")
            if self.show_instruction:
                print("    " + task.instruction.strip().replace("\n", "\n    "))


class Suggest(SuggestConfig):
    __doc__ = SuggestConfig.__doc__

    def cli_cmd(self) -> None:
        import anyio

        from contracts.catalog import CatalogError, load_catalog, select_tasks
        from harness.release.suggest import render, suggest_tasks

        try:
            tasks = select_tasks(load_catalog(), domains=self.domain, task_ids=self.task)
        except (CatalogError, KeyError) as exc:
            print(f"error: {exc}", file=sys.stderr)
            raise SystemExit(2) from None
        for task, suggestion in anyio.run(suggest_tasks, tasks):
            print(render(task, suggestion) + "\n")


class Validate(ReleaseConfig):
    __doc__ = ReleaseConfig.__doc__

    def cli_cmd(self) -> None:
        from contracts.catalog import catalog_domains, load_catalog, task_files

        if self.tasks_dir is not None:  # a bad folder or file is one sentence naming it, before any gate runs
            if not self.tasks_dir.is_dir():
                fail(f"--tasks-dir {self.tasks_dir}: no such directory")
            if not task_files(self.tasks_dir):
                fail(f"--tasks-dir {self.tasks_dir}: holds no task files (*.yaml)")
            load_catalog(self.tasks_dir)  # CatalogError names the file, task and field
        known = catalog_domains(self.tasks_dir) if self.tasks_dir is not None else catalog_domains()
        for domain in self.domain:  # as `run` and `tasks`: an empty selection is an error, not "ALL GATES PASS"
            if domain not in known:
                fail(f"--domain {domain!r} has no tasks in the catalog; known domains: {', '.join(known)}")
        from harness.benchmark_spec import run_release

        raise SystemExit(run_release(ReleaseConfig.model_validate(self.model_dump())))


class Run(RunConfig):
    __doc__ = RunConfig.__doc__

    def cli_cmd(self) -> None:
        from rich.console import Console

        from harness.runner.loop import run_blocking
        from harness.runner.run import execute_run
        from models.base import ConfigurationError

        logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s")
        console = Console(stderr=True)
        config = RunConfig.model_validate(self.model_dump())
        try:
            result = run_blocking(lambda: execute_run(config, console=console))
        except (ConfigurationError, ValueError) as exc:
            fail(str(exc))
        print(result.summary_markdown)
        print(f"run directory: {result.directory}  ({result.ran} trial(s) run, {result.skipped} resumed)")
        print(f"report: uv run crmbench report {result.directory} --out report")


class Report(ReportConfig):
    __doc__ = ReportConfig.__doc__
    runs: CliPositionalArg[list[Path]] = Field(default_factory=list, description="run directories (optional when every run is given by --label)")

    def cli_cmd(self) -> None:
        from harness.report.build import build_report
        from harness.report.data import ReportInputError, parse_labels

        from harness.runner.run import load_price_table

        if self.out.exists() and not self.out.is_dir():
            fail(f"--out {self.out}: is a file, not a directory for the report")
        try:
            if self.price_table is not None:
                load_price_table(self.price_table)
            labels = parse_labels(self.label)
            report = build_report(self.runs, self.out, card_tasks=self.card, price_table=self.price_table, labels=labels, allow_mixed=self.allow_mixed, figures=self.figures)
        except (ReportInputError, KeyError) as exc:
            fail(str(exc.args[0]) if isinstance(exc, KeyError) and exc.args else str(exc))
        except OSError as exc:
            fail(f"--out {self.out}: cannot write the report there ({exc.strerror or exc})")
        print(f"wrote {len(report.tables)} tables, {len(report.figures)} figures, {len(report.cards)} demo cards to {report.out}")
        print(f"open {report.html_path}")
        coverage = next(t for t in report.tables if t.key == "coverage")
        missing = coverage.columns.index("missing")
        for row in coverage.rows:
            if row[missing]:
                print(f"note: {row[0]} round {row[1]} is missing {row[missing]} catalog task(s) (partial run; marked in every table)")


class Grade(GradeConfig):
    __doc__ = GradeConfig.__doc__
    run: CliPositionalArg[Path] = Field(description="the run directory to re-grade")

    def cli_cmd(self) -> None:
        from contracts.catalog import CatalogError
        from harness.runner.loop import run_blocking
        from harness.regrade import RegradeError, judge_factory_for, regrade_run
        from harness.rundir import RunDirectory
        from models.base import ConfigurationError

        manifest = RunDirectory(self.run).read_manifest() or {}
        try:
            factory, name = judge_factory_for(self.judge, self.judge_model, manifest)
            result = run_blocking(
                lambda: regrade_run(
                    self.run,
                    out=self.out,
                    judge_factory=factory,
                    judge_name=name,
                    only_infra=self.only_infra,
                    tasks_dir=self.tasks_dir,
                    rejudge=self.judge != "recorded",
                )
            )
        except (RegradeError, CatalogError, ConfigurationError) as exc:
            print(f"error: {exc}", file=sys.stderr)
            raise SystemExit(2) from None
        print((result.directory / "results.md").read_text(encoding="utf-8"))
        print(f"re-graded run: {result.directory}  ({len(result.changes)} verdict(s) changed; compare: uv run crmbench compare {self.run} {result.directory})")


class Compare(CompareConfig):
    __doc__ = CompareConfig.__doc__
    run_a: CliPositionalArg[Path] = Field(description="baseline run directory")
    run_b: CliPositionalArg[Path] = Field(description="run directory to compare against the baseline")

    def cli_cmd(self) -> None:
        from harness.report.compare import compare_runs
        from harness.report.data import ReportInputError
        from harness.report.render import to_markdown
        from harness.files import write_atomic

        try:
            comparison = compare_runs(self.run_a, self.run_b)
            gate_text = result = None
            name_a = name_b = ""
            if self.gate:
                from harness.report.compare import gate_runs
                from harness.report.gate import render

                result, name_a, name_b = gate_runs(self.run_a, self.run_b, alpha=self.alpha, max_drop=self.max_drop)
                gate_text = render(result, name_a, name_b, self.run_a, self.run_b)
        except (ReportInputError, ValueError) as exc:
            fail(str(exc))
        text = "\n".join(to_markdown(t) for t in comparison.tables()) + (f"\n{gate_text}" if gate_text else "")
        print(text)
        if self.out:
            write_atomic(self.out, text)
        if result is not None and result.failed:
            print(f"regression gate FAILED: {name_b} is significantly worse than {name_a}", file=sys.stderr)
            raise SystemExit(EXIT_GATE)


class Plan(PlanConfig):
    __doc__ = PlanConfig.__doc__

    def cli_cmd(self) -> None:
        from harness.report.data import ReportInputError
        from harness.report.power import plan_from_run

        try:
            plan = plan_from_run(self.baseline, delta=self.delta, alpha=self.alpha, power=self.power)
        except (ReportInputError, ValueError) as exc:
            fail(str(exc))
        print(plan.render())


class Diff(DiffConfig):
    __doc__ = DiffConfig.__doc__
    runs: CliPositionalArg[list[Path]] = Field(default_factory=list, description="RUN_A [RUN_B] (with --gold: RUN_A only)")

    def cli_cmd(self) -> None:
        from harness.report.diff import DiffInputError, diff_runs

        if len(self.runs) not in (1, 2):
            fail("give RUN_A RUN_B, or RUN_A --gold")
        if len(self.runs) == 1 and not self.gold:
            fail("one run given: add --gold to compare it with the task's gold path, or give a second run")
        try:
            diff = diff_runs(self.runs[0], self.runs[1] if len(self.runs) == 2 else None, self.task, round_number=self.round, gold=self.gold)
        except DiffInputError as exc:
            fail(str(exc))
        print(diff.render())


class JudgeCheck(BaseSettings):
    """Measure a reply judge on the labelled calibration set (contracts/judge_calibration), in its two
    splits (dev, and the held-out paraphrase split): agreement, Cohen's kappa and the confusion matrix per
    split, domain and item kind."""

    model_config = SettingsConfigDict(populate_by_name=True)
    judge: str = Field(default="evidence", json_schema_extra=shown_as("{evidence,llm}"), description="evidence or llm")
    judge_model: str | None = Field(default=None, json_schema_extra=shown_as("PROVIDER:MODEL"), description="the model for --judge llm")
    domain: list[str] = Field(default_factory=list, json_schema_extra=shown_as("DOMAIN"), description="only these domains (the figure is then not stored)")
    split: list[str] = Field(default_factory=list, json_schema_extra=shown_as("SPLIT"),
                             description="only these splits: dev, dev_paraphrase, dev_consent, heldout_paraphrase, heldout_consent (default: every split)")
    json_file: Path | None = Field(default=None, alias="json", json_schema_extra=shown_as("FILE"), description="also write the full report as JSON here")
    show: int = Field(default=10, ge=0, description="list this many disagreements of the dev split")
    show_heldout: bool = Field(default=False, description="also list the held-out split's disagreements (reviewers only, never rule authors)")
    record: Path | None = Field(default=None, json_schema_extra=shown_as("FILE"),
                                description="with --judge llm: append the model's every answer to this recording (JSON Lines); "
                                "--judge-model replay:FILE answers from it later, offline")

    def cli_cmd(self) -> None:
        from grader.calibration import SPLITS, CalibrationError
        from harness.judge_check import JudgeCheckConfig, check
        from models.base import ModelError

        if self.judge not in ("evidence", "llm"):
            fail(f"--judge {self.judge!r}: choose evidence or llm")
        if unknown := [s for s in self.split if s not in SPLITS]:
            fail(f"--split {', '.join(unknown)}: choose {' or '.join(SPLITS)}")
        try:
            check(JudgeCheckConfig(judge=self.judge, judge_model=self.judge_model, domain=self.domain, split=self.split, json=self.json_file,  # type: ignore[arg-type]
                                   show=self.show, show_heldout=self.show_heldout, record=self.record))
        except (CalibrationError, ModelError) as exc:
            fail(str(exc))


class Crmbench(BaseSettings):
    """CRM-Agent-Bench: stateful CRM domains as MCP servers, with strict executable contracts."""

    model_config = SettingsConfigDict(cli_prog_name="crmbench", cli_kebab_case=True, cli_implicit_flags=True)

    run: CliSubCommand[Run] = Field(description="run the benchmark (or resume a run) and write its records")
    report: CliSubCommand[Report] = Field(description="build tables, figures and demo cards from run directories")
    compare: CliSubCommand[Compare] = Field(description="compare two runs task by task (exact McNemar test; --gate fails on a significant drop)")
    plan: CliSubCommand[Plan] = Field(description="how many rounds or tasks a paired comparison needs (power, from a baseline run)")
    diff: CliSubCommand[Diff] = Field(description="line up two trials of a task (or a trial and its gold path) to the first wrong write")
    grade: CliSubCommand[Grade] = Field(description="re-grade a recorded run from its evidence")
    serve: CliSubCommand[Serve] = Field(description="serve the domain MCP servers over HTTP (or stdio)")
    stdio: CliSubCommand[Stdio] = Field(description="serve one domain over stdio, for MCP clients' config files")
    tasks: CliSubCommand[Tasks] = Field(description="list the task catalog")
    suggest: CliSubCommand[Suggest] = Field(description="authoring aid: checks that pin a task's gold effect")
    validate_: CliSubCommand[Validate] = Field(alias="validate", description="release gates: structural validation, gold paths, mutations, lock")
    judge_check: CliSubCommand[JudgeCheck] = Field(description="measure a reply judge on the labelled calibration set (agreement, kappa)")

    def cli_cmd(self) -> None:
        CliApp.run_subcommand(self)


EXIT_USAGE = 2
EXIT_GATE = 1
"""`compare --gate`: B is significantly worse (a result, not a usage error)."""


def fail(message: str) -> NoReturn:
    """The one error style of the CLI: `error: <a sentence naming the file, task, field or flag>` on
    stderr, and exit code 2. Never a traceback for bad input."""
    text = message.strip() or "failed"
    print(f"error: {text}", file=sys.stderr)
    raise SystemExit(EXIT_USAGE)


SECRET_FLAGS = {"agent_env", "control_token"}


def _flag_error(exc: ValidationError) -> str:
    """A CLI value that does not validate, as a sentence naming the flag."""
    parts = []
    for error in exc.errors(include_url=False):
        loc = [str(p) for p in error.get("loc", ()) if not isinstance(p, int)]
        flag = "--" + loc[-1].replace("_", "-") if loc else "a value"
        given = error.get("input")
        secret = bool(loc) and loc[-1] in SECRET_FLAGS  # e.g. an --agent-env KEY=VALUE: never echo the value
        shown = f" (got {given!r})" if isinstance(given, str | int | float) and len(str(given)) < 80 and not secret else ""
        message = str(error.get("msg", "invalid")).removeprefix("Value error, ").rstrip(".")
        parts.append(f"{flag}{shown}: {message}")
    return "invalid value for " + "; ".join(parts)


WRAPPERS = ("uv", "uvx")
"""Parents that only wrap the run: when they die, the run should stop with them."""


def follow_parent(wrappers: tuple[str, ...] | None = WRAPPERS) -> None:
    """Make signals reach the run through a wrapper (`uv run crmbench ...`): on Linux, ask the kernel to
    send this process SIGTERM when its wrapper dies, so killing the wrapper, even with SIGKILL, stops the
    run instead of leaving it going (SIGTERM and SIGINT themselves are forwarded by uv). Only for the
    wrappers named (None: any parent): a run started from a shell with nohup must outlive that shell."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes
        import signal

        parent = os.getppid()
        if wrappers is not None:
            comm = Path(f"/proc/{parent}/comm").read_text(encoding="utf-8").strip()
            if comm not in wrappers:
                return
        libc = ctypes.CDLL(None, use_errno=True)
        pr_set_pdeathsig = 1
        libc.prctl(pr_set_pdeathsig, signal.SIGTERM, 0, 0, 0)
        if os.getppid() != parent:  # the wrapper died before the request took effect
            os.kill(os.getpid(), signal.SIGTERM)
    except (OSError, AttributeError):  # pragma: no cover - best effort
        pass


DICT_FLAGS = {"agent_config": "--agent-config"}


def _settings_error(exc: Exception) -> str:
    """pydantic-settings' parse errors as the CLI's one sentence: a flag that takes JSON says so and shows
    an example; an argparse error says where to look."""
    text = str(exc).strip()
    match = re.match(r"Parsing error encountered for (?:[\w-]+\.)*([\w-]+): (.*)", text, re.S)
    if match:
        field = match.group(1).replace("-", "_")
        flag = DICT_FLAGS.get(field, "--" + field.replace("_", "-"))
        if field in DICT_FLAGS:
            return f"{flag} expects a JSON object, e.g. {flag} '{{\"max_turns\": 5}}'"
        return f"{flag}: cannot parse the value ({match.group(2).strip()})"
    if text.startswith("error parsing CLI:"):
        return text.removeprefix("error parsing CLI:").strip() + " (see `crmbench --help`, or `crmbench SUBCOMMAND --help`)"
    return text


def _input_errors() -> tuple[type[Exception], ...]:
    """The project's bad-input errors, shown as `error: <sentence>` instead of a traceback. Imported only
    once an exception is being handled: `crmbench --help` and `serve` must not load the catalog, the
    run-directory and the model modules just to name what they might catch."""
    from contracts.catalog import CatalogError
    from harness.rundir import RunDirectoryError
    from models.base import ConfigurationError
    from servers.registry import UnknownDomain

    return (ConfigurationError, CatalogError, RunDirectoryError, UnknownDomain)


WHOLE_VALUE_FLAGS = ("--label",)
"""List flags whose every value is taken whole: `--label NAME=RUN1,RUN2` is one value with commas (the
settings parser would split list values at commas first)."""


def keep_commas(args: list[str]) -> list[str]:
    """`--label NAME=RUN1,RUN2` (or `--label=…`) passed to the settings parser as a one-item JSON list."""
    out: list[str] = []
    pending = False
    for arg in args:
        if pending:
            out.append(arg if arg.startswith("[") else json.dumps([arg]))
            pending = False
            continue
        flag, eq, value = arg.partition("=")
        if flag in WHOLE_VALUE_FLAGS:
            if eq:
                out.append(f"{flag}={value if value.startswith('[') else json.dumps([value])}")
            else:
                out.append(arg)
                pending = True
            continue
        out.append(arg)
    return out


def main(argv: list[str] | None = None) -> None:
    quiet_fastmcp()
    follow_parent()
    args = keep_commas(sys.argv[1:] if argv is None else argv)
    try:
        source = CliSettingsSource(Crmbench, cli_exit_on_error=False, add_argument_method=user_facing(Crmbench))
        CliApp.run(Crmbench, cli_args=args, cli_settings_source=source)
    except SystemExit as exc:
        if isinstance(exc.code, str):  # `raise SystemExit("message")` anywhere: the same style, exit 2
            fail(exc.code)
        raise
    except ValidationError as exc:
        fail(_flag_error(exc))
    except SettingsError as exc:  # e.g. --agent-config that is not JSON, an unknown flag or subcommand
        fail(_settings_error(exc))
    except Exception as exc:
        if isinstance(exc, _input_errors()):
            fail(str(exc))
        raise
    except KeyboardInterrupt:
        print("interrupted: finished trials are saved; rerun the same command to resume", file=sys.stderr)
        raise SystemExit(130) from None


if __name__ == "__main__":
    main()
