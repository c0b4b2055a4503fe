"""`crmbench judge-check`: measure a reply judge on the labelled calibration set
(`contracts/judge_calibration/`): agreement, Cohen's kappa and the confusion matrix, per domain and per
item kind, as a Rich table (and `--json FILE`). A measurement over the whole set is stored as the judge's
calibration figure, which run manifests then record."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field
from rich.console import Console
from rich.table import Table

from grader.calibration import CALIBRATION_DIR, RESULTS_FILE, Agreement, CheckReport, load_set, measure, set_hash, store_result
from grader.judge import EvidenceJudge, Judge
from harness.runner.loop import run_blocking


class JudgeCheckConfig(BaseModel):
    """Measure a reply judge on the labelled calibration set: agreement, Cohen's kappa and the confusion
    matrix per domain and per item kind (`--judge llm --judge-model provider:model` needs its key)."""

    judge: Literal["evidence", "llm"] = Field(default="evidence", description="the judge to measure")
    judge_model: str | None = Field(default=None, description="provider:model for --judge llm")
    domain: list[str] = Field(default_factory=list, description="only these domains (the figure is then not stored)")
    json_: Path | None = Field(default=None, alias="json", description="also write the full report as JSON here")
    show: int = Field(default=10, ge=0, description="list this many disagreements")


def build_judge(config: JudgeCheckConfig) -> tuple[Judge, str | None]:
    """The judge and its prompt fingerprint (None for the deterministic evidence judge)."""
    if config.judge == "evidence":
        return EvidenceJudge(), None
    if not config.judge_model:
        raise SystemExit("--judge llm needs --judge-model provider:model")
    from grader.llm_judge import PROMPT, LLMJudge
    from models.model import Model
    from models.registry import get_model_api
    from models.types import GenerateConfig

    model = Model(get_model_api(config.judge_model), role="judge", config=GenerateConfig(temperature=0.0))
    return LLMJudge(model), PROMPT.fingerprint


def instructions() -> dict[str, str]:
    from contracts.catalog import load_catalog

    return {task.id: task.instruction for task in load_catalog().values()}


def check(config: JudgeCheckConfig, judge: Judge | None = None, prompt: str | None = None, *, directory: Path = CALIBRATION_DIR,
          results: Path = RESULTS_FILE, console: Console | None = None) -> CheckReport:
    """Run the check (the judge may be given, e.g. a scripted model's LLM judge in tests), print it, store
    the figure when the whole set was measured, and write `--json`."""
    console = console or Console()
    if judge is None:
        judge, prompt = build_judge(config)
    items = load_set(directory, config.domain or None)
    report = run_blocking(lambda: measure(judge, items, instructions(), prompt=prompt, set_sha=set_hash(directory)))
    render(report, console, config.show)
    store_result(report, results, full_set=not config.domain)
    if config.json_:
        config.json_.write_text(report.model_dump_json(indent=1), encoding="utf-8")
    return report


def _row(table: Table, name: str, a: Agreement) -> None:
    kappa = "—" if a.kappa is None else f"{a.kappa:.3f}"
    table.add_row(name, str(a.n), f"{a.agreement:.1%}", kappa, str(a.true_pass), str(a.false_pass), str(a.true_fail), str(a.false_fail), str(a.judge_failed))


def render(report: CheckReport, console: Console, show: int) -> None:
    for title, groups in (("domain", report.by_domain), ("kind", report.by_kind)):
        table = Table(title=f"judge {report.judge}{' (' + report.prompt + ')' if report.prompt else ''} by {title}")
        table.add_column(title, no_wrap=True)
        for column in ("items", "agreement", "kappa", "P→P", "F→P", "F→F", "P→F", "failed"):
            table.add_column(column, justify="right", no_wrap=True)
        for name, a in groups.items():
            _row(table, name, a)
        table.add_section()
        _row(table, "all", report.overall)
        console.print(table)
    console.print("X→Y: labelled X (P pass, F fail), judged Y; F→P = the judge passed an item labelled fail; failed = invalid judge output")
    for outcome in report.disagreements[:show]:
        console.print(f"[yellow]disagrees[/yellow] {outcome.id} ({outcome.kind}): expected {'pass' if outcome.expected else 'fail'}, judged {outcome.got}: {outcome.explanation[:200]}")
    kappa = "—" if report.overall.kappa is None else f"{report.overall.kappa:.3f}"
    console.print(f"agreement {report.overall.agreement:.1%} over {report.overall.n} items, Cohen's kappa {kappa} (set {report.set_sha256})")
