"""`crmbench judge-check`: measure a reply judge (and the consent judge that goes with it) on the
labelled calibration set (`contracts/judge_calibration/`), in all its splits — `dev`, `dev_paraphrase` and
`dev_consent` (the rules were written with them in view), and the held-out `heldout_paraphrase` and
`heldout_consent` — or some (`--split`): agreement, Cohen's kappa
and the confusion matrix, per domain and per case kind, as Rich tables (and `--json FILE`). A measurement
over every domain is stored per split as the judges' calibration figures, which run manifests then record.

The held-out splits' disagreements are counted, not listed (their messages would show rule authors the
held-out cases), unless `--show-heldout`: for a reviewer once the rules are frozen."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field
from rich.console import Console
from rich.table import Table

from contracts.schema import ConsentCheck, ReplyCriterion
from grader.calibration import (
    CALIBRATION_DIR,
    CONSENT,
    CONSENT_SPLITS,
    HELDOUT,
    HELDOUT_SPLITS,
    RESULTS_FILE,
    SPLITS,
    Agreement,
    CheckReport,
    Split,
    SplitsReport,
    load_split,
    measure,
    set_hash,
    store_result,
)
from grader.consent import ConsentJudge
from grader.consent_judges import consent_judge_for
from grader.consent_calibration import load_consent, measure_consent
from grader.judge import Judge
from grader.text.evidence import EvidenceJudge
from harness.runner.loop import run_blocking


class JudgeCheckConfig(BaseModel):
    """Measure a reply judge on the labelled calibration set: agreement, Cohen's kappa and the confusion
    matrix per split, domain and item kind (`--judge llm --judge-model provider:model` needs its key)."""

    judge: Literal["evidence", "llm"] = Field(default="evidence", description="the judge to measure")
    judge_model: str | None = Field(default=None, description="provider:model for --judge llm")
    domain: list[str] = Field(default_factory=list, description="only these domains (the figure is then not stored)")
    split: list[Split] = Field(default_factory=list, description="only these splits (dev, dev_paraphrase, dev_consent, heldout_paraphrase, heldout_consent); default all")
    json_: Path | None = Field(default=None, alias="json", description="also write the full report as JSON here")
    show: int = Field(default=10, ge=0, description="list this many disagreements of the dev split")
    show_heldout: bool = Field(default=False, description="also list the held-out splits' disagreements (reviewers only)")
    record: Path | None = Field(default=None, description="with --judge llm: append every answer of the model to this recording "
                                "(JSON Lines), which --judge-model replay:PATH answers from later, offline")


def build_judge(config: JudgeCheckConfig) -> tuple[Judge, str | None]:
    """The judge and its prompt fingerprint (None for the deterministic evidence judge)."""
    if config.judge == "evidence":
        if config.record is not None:
            raise SystemExit("--record records a model's answers: it needs --judge llm")
        return EvidenceJudge(), None
    if not config.judge_model:
        raise SystemExit("--judge llm needs --judge-model provider:model")
    from grader.llm_judge import PROMPT, LLMJudge
    from models.model import Model
    from models.registry import get_model_api, parse_model_name
    from models.types import GenerateConfig

    if config.record is not None and parse_model_name(config.judge_model)[0] == "replay":
        raise SystemExit("--record records a model's answers; replay:PATH already answers from a recording")

    api = get_model_api(config.judge_model)
    if config.record is not None:
        from models.providers.replay import Recorder

        api = Recorder(api, config.record)
    model = Model(api, role="judge", config=GenerateConfig(temperature=0.0))
    return LLMJudge(model), PROMPT.fingerprint


def catalog_views() -> tuple[dict[str, str], dict[str, Sequence[ReplyCriterion]]]:
    """Each task's instruction (the judge's context) and reply criteria (the held-out cases name theirs)."""
    from contracts.catalog import load_catalog

    tasks = load_catalog().values()
    return {t.id: t.instruction for t in tasks}, {t.id: list(t.contract.reply_criteria or []) for t in tasks}


def consent_checks() -> dict[str, Sequence[ConsentCheck]]:
    """Each task's consent checks (the held-out consent cases name theirs by tool)."""
    from contracts.catalog import load_catalog

    return {t.id: list(t.contract.consent or []) for t in load_catalog().values()}


def consent_prompt(judge: ConsentJudge) -> str | None:
    """The consent judge's prompt fingerprint (None for the rule)."""
    if getattr(judge, "model", None) is None:
        return None
    from grader.llm_consent import PROMPT

    return PROMPT.fingerprint


def check(config: JudgeCheckConfig, judge: Judge | None = None, prompt: str | None = None, *, directory: Path = CALIBRATION_DIR,
          results: Path = RESULTS_FILE, console: Console | None = None) -> SplitsReport:
    """Run the check on the chosen splits (the judge may be given, e.g. a scripted model's LLM judge in
    tests), print it, store the figures when every domain was measured, and write `--json`."""
    console = console or Console()
    if judge is None:
        judge, prompt = build_judge(config)
    instructions, criteria = catalog_views()
    splits: list[Split] = [s for s in SPLITS if not config.split or s in config.split]  # type: ignore[misc]
    sha = set_hash(directory)
    domains = config.domain or None
    # every file is validated before any judging
    loaded = {split: load_split(split, criteria, directory, domains) for split in splits if split not in CONSENT_SPLITS}
    checks = consent_checks() if set(CONSENT_SPLITS) & set(splits) else {}
    consent_cases = {split: [case for sub in CONSENT_SPLITS[split] for case in load_consent(checks, directory / sub, domains)]
                     for split in splits if split in CONSENT_SPLITS}
    measured = {split: run_blocking(lambda items=items, split=split: measure(judge, items, instructions, prompt=prompt, set_sha=sha, split=split))
                for split, items in loaded.items()}
    if consent_cases:
        consent_judge = consent_judge_for(judge)
        for split, cases in consent_cases.items():
            measured[split] = run_blocking(lambda cases=cases, split=split: measure_consent(
                consent_judge, cases, prompt=consent_prompt(consent_judge), set_sha=sha, split=split))
    report = SplitsReport(judge=judge.name, prompt=prompt, set_sha256=sha, splits={s: measured[s] for s in splits})
    render(report, console, config.show, show_heldout=config.show_heldout)
    store_result(report, results, full_set=not config.domain)
    if config.json_:
        config.json_.write_text(redacted(report, config.show_heldout).model_dump_json(indent=1), encoding="utf-8")
    return report


def redacted(report: SplitsReport, show_heldout: bool) -> SplitsReport:
    """The report for `--json`: the held-out splits' disagreements keep their id, kind and verdicts but not
    the judge's explanation (which quotes the held-out messages), unless `--show-heldout`."""
    if show_heldout:
        return report
    splits = dict(report.splits)
    for name in set(HELDOUT_SPLITS) & set(splits):
        hidden = [o.model_copy(update={"explanation": "(held out)"}) for o in splits[name].disagreements]
        splits[name] = splits[name].model_copy(update={"disagreements": hidden})
    return report.model_copy(update={"splits": splits})


def _row(table: Table, name: str, a: Agreement) -> None:
    kappa = "—" if a.kappa is None else f"{a.kappa:.3f}"
    table.add_row(name, str(a.n), f"{a.agreement:.1%}", kappa, str(a.true_pass), str(a.false_pass), str(a.true_fail), str(a.false_fail), str(a.judge_failed))


def _label(split: str) -> str:
    if split in HELDOUT_SPLITS:
        return f"{split} (HELD OUT: written blind to the rules; never tune rules on it)"
    return f"{split} (the rules were written with it in view)"


def render_split(report: CheckReport, console: Console, show: int) -> None:
    for title, groups in (("domain", report.by_domain), ("kind", report.by_kind)):
        table = Table(title=f"judge {report.judge}{' (' + report.prompt + ')' if report.prompt else ''} on split {_label(report.split)}, by {title}")
        table.add_column(title, no_wrap=True)
        for column in ("items", "agreement", "kappa", "P→P", "F→P", "F→F", "P→F", "failed"):
            table.add_column(column, justify="right", no_wrap=True)
        for name, a in groups.items():
            _row(table, name, a)
        table.add_section()
        _row(table, "all", report.overall)
        console.print(table)
    if report.reviewers is not None:
        r = report.reviewers
        console.print(f"second reviewer (blind to the labels and the judges): {r.labelled} of {report.overall.n} items labelled; the two reviewers agree "
                      f"on {r.agreement:.1%}; the judge agrees with the first on {r.consensus.agreement:.1%} of the {r.consensus.n} items both "
                      f"reviewers agree on, and with the second on {r.with_second.agreement:.1%}")
    for outcome in report.disagreements[:show]:
        console.print(f"[yellow]disagrees[/yellow] {outcome.id} ({outcome.kind}): expected {'pass' if outcome.expected else 'fail'}, judged {outcome.got}: {outcome.explanation[:200]}")
    if report.split in HELDOUT_SPLITS and report.disagreements and not show:
        console.print(f"{len(report.disagreements)} held-out disagreements, not listed (--show-heldout lists them: reviewers only, never rule authors)")


def render(report: SplitsReport, console: Console, show: int, *, show_heldout: bool = False) -> None:
    for split, figures in report.splits.items():
        render_split(figures, console, show if split not in HELDOUT_SPLITS else (len(figures.disagreements) if show_heldout else 0))
    console.print("X→Y: labelled X (P pass, F fail), judged Y; F→P = the judge passed an item labelled fail; failed = invalid judge output")
    for split, figures in report.splits.items():
        o = figures.overall
        kappa = "—" if o.kappa is None else f"{o.kappa:.3f}"
        held = {HELDOUT: " — the reply judge's HELD-OUT figure", CONSENT: " — the consent judge's HELD-OUT figure"}.get(split, "")
        console.print(f"{split} ({figures.judge}): agreement {o.agreement:.1%} over {o.n} items, Cohen's kappa {kappa}{held}")
        if figures.reviewers is not None:
            r = figures.reviewers
            console.print(f"  reviewers agree on {r.agreement:.1%} of {r.labelled}; judge on their {r.consensus.n} shared labels {r.consensus.agreement:.1%}")
    console.print(f"set {report.set_sha256}; held-out splits: {', '.join(report.heldout)}")
