"""The `crmbench` command. Subcommands are derived from the typed configs in `harness.config`."""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, CliApp, CliPositionalArg, CliSubCommand, SettingsConfigDict

from harness.config import CompareConfig, ReleaseConfig, ReportConfig, RunConfig, ServeConfig, TasksConfig


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


class Stdio(ServeConfig):
    """Serve one domain over stdio (one process is one trial): `crmbench stdio --domain payments`, the same
    as `serve --transport stdio`, for MCP clients' config files (the MCP Inspector's CLI takes a
    `--transport` among a server's arguments for its own)."""

    def cli_cmd(self) -> None:
        from harness.serve import serve

        logging.basicConfig(level=self.log_level, stream=sys.stderr)
        serve(ServeConfig.model_validate({**self.model_dump(), "transport": "stdio"}))


class Tasks(TasksConfig):
    __doc__ = TasksConfig.__doc__

    def cli_cmd(self) -> None:
        from contracts.catalog import load_catalog, select_tasks

        for task in select_tasks(load_catalog(), domains=self.domain):
            labels = ",".join(task.capabilities)
            print(f"{task.id:<52} {task.difficulty:<6} {labels:<40} {task.title}")
            if self.show_instruction:
                print("    " + task.instruction.strip().replace("\n", "\n    "))


class Validate(ReleaseConfig):
    __doc__ = ReleaseConfig.__doc__

    def cli_cmd(self) -> None:
        from harness.benchmark_spec import run_release

        raise SystemExit(run_release(ReleaseConfig.model_validate(self.model_dump())))


class Run(RunConfig):
    __doc__ = RunConfig.__doc__

    def cli_cmd(self) -> None:
        import anyio
        from rich.console import Console

        from harness.run import execute_run
        from models.base import ConfigurationError

        logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s")
        console = Console(stderr=True)
        config = RunConfig.model_validate(self.model_dump())
        try:
            result = anyio.run(lambda: execute_run(config, console=console))
        except (ConfigurationError, ValueError) as exc:
            console.print(f"[red]error[/red]: {exc}")
            raise SystemExit(2) from None
        print(result.summary_markdown)
        print(f"run directory: {result.directory}  ({result.ran} trial(s) run, {result.skipped} resumed)")
        print(f"report: uv run crmbench report {result.directory} --out report")


class Report(ReportConfig):
    __doc__ = ReportConfig.__doc__
    runs: CliPositionalArg[list[Path]]

    def cli_cmd(self) -> None:
        from harness.report.build import build_report
        from harness.report.data import ReportInputError

        try:
            report = build_report(self.runs, self.out, card_tasks=self.card, price_table=self.price_table)
        except (ReportInputError, KeyError) as exc:
            print(f"error: {exc}", file=sys.stderr)
            raise SystemExit(2) from None
        print(f"wrote {len(report.tables)} tables, {len(report.figures)} figures, {len(report.cards)} demo cards to {report.out}")
        print(f"open {report.html_path}")
        coverage = next(t for t in report.tables if t.key == "coverage")
        for row in coverage.rows:
            if row[5]:
                print(f"note: {row[0]} round {row[1]} is missing {row[5]} task(s) of its domains (partial run)")


class Compare(CompareConfig):
    __doc__ = CompareConfig.__doc__
    run_a: CliPositionalArg[Path]
    run_b: CliPositionalArg[Path]

    def cli_cmd(self) -> None:
        from harness.report.compare import compare_runs
        from harness.report.data import ReportInputError
        from harness.report.render import to_markdown
        from harness.files import write_atomic

        try:
            comparison = compare_runs(self.run_a, self.run_b)
        except ReportInputError as exc:
            print(f"error: {exc}", file=sys.stderr)
            raise SystemExit(2) from None
        text = "\n".join(to_markdown(t) for t in comparison.tables())
        print(text)
        if self.out:
            write_atomic(self.out, text)


class Crmbench(BaseSettings):
    """CRM-Agent-Bench: stateful CRM domains as MCP servers, with strict executable contracts."""

    model_config = SettingsConfigDict(cli_prog_name="crmbench", cli_kebab_case=True, cli_implicit_flags=True)

    run: CliSubCommand[Run]
    report: CliSubCommand[Report]
    compare: CliSubCommand[Compare]
    serve: CliSubCommand[Serve]
    stdio: CliSubCommand[Stdio]
    tasks: CliSubCommand[Tasks]
    validate_: CliSubCommand[Validate] = Field(alias="validate")

    def cli_cmd(self) -> None:
        CliApp.run_subcommand(self)


def main(argv: list[str] | None = None) -> None:
    quiet_fastmcp()
    args = sys.argv[1:] if argv is None else argv
    CliApp.run(Crmbench, cli_args=args)


if __name__ == "__main__":
    main()
