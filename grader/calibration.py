"""Judge calibration: a labelled set of (criterion, visible replies, expected verdict) items written from
the catalog's real criteria (`contracts/judge_calibration/<domain>.yaml`), and the agreement of a judge
with it (agreement, Cohen's kappa, confusion matrix per domain and per item kind).

`crmbench judge-check` measures a judge on the set and stores the figure in a small result file keyed by
judge name and prompt version (`contracts/judge_calibration/results.json`); a run's manifest records the
figure of the judge it used when one was measured for the current set (`manifest_entry`).
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections import Counter
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from contracts.schema import ReplyCriterion
from grader.judge import Judge

log = logging.getLogger(__name__)
CALIBRATION_DIR = Path(__file__).resolve().parents[1] / "contracts" / "judge_calibration"
RESULTS_FILE = CALIBRATION_DIR / "results.json"
DOMAINS = ("retail", "customer_support", "field_service", "itsm", "payments", "travel", "onboarding", "sales", "marketing")
Kind = Literal[
    "correct_plain", "paraphrase", "other_format", "split_over_messages", "correction", "refused_then_succeeded",
    "wrong_value", "negation", "keyword_list", "partial_answer", "absent_stated", "no_answer",
]


class CalibrationItem(BaseModel):
    """One labelled case: a real criterion of `task` (as in the task, ids resolved to literals), the visible
    assistant messages, the verdict a careful reviewer gives, the kind of case and why."""

    model_config = ConfigDict(extra="forbid")
    id: str = Field(min_length=3)
    task: str
    criterion: ReplyCriterion
    messages: list[str] = Field(min_length=1)
    expected: bool
    kind: Kind
    why: str = Field(min_length=8)


class CalibrationFile(BaseModel):
    model_config = ConfigDict(extra="forbid")
    domain: str
    items: list[CalibrationItem] = Field(min_length=1)


class CalibrationError(ValueError):
    """A calibration file that cannot be read or does not validate (named with its path)."""


def load_set(directory: Path = CALIBRATION_DIR, domains: list[str] | None = None) -> list[tuple[str, CalibrationItem]]:
    """(domain, item) for every item of the set, optionally of some domains only; ids unique."""
    out: list[tuple[str, CalibrationItem]] = []
    files = sorted(directory.glob("*.yaml"))
    if not files:
        raise CalibrationError(f"no calibration files in {directory}")
    for path in files:
        try:
            data = CalibrationFile.model_validate(yaml.safe_load(path.read_text(encoding="utf-8")))
        except (yaml.YAMLError, ValidationError) as exc:
            raise CalibrationError(f"{path}: {exc}") from None
        if data.domain != path.stem:
            raise CalibrationError(f"{path}: domain {data.domain!r} does not match the file name")
        if domains and data.domain not in domains:
            continue
        out.extend((data.domain, item) for item in data.items)
    ids = Counter(item.id for _, item in out)
    if dupes := [i for i, n in ids.items() if n > 1]:
        raise CalibrationError(f"duplicate calibration item ids: {', '.join(dupes[:5])}")
    if domains and (unknown := set(domains) - {d for d, _ in out}):
        raise CalibrationError(f"--domain {', '.join(sorted(unknown))}: no calibration items (known: {', '.join(DOMAINS)})")
    return out


def set_hash(directory: Path = CALIBRATION_DIR) -> str:
    digest = hashlib.sha256()
    for path in sorted(directory.glob("*.yaml")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:12]


# ---- measuring ----------------------------------------------------------------------------------


class Outcome(BaseModel):
    id: str
    domain: str
    kind: str
    expected: bool
    got: bool | None  # None: the judge failed on the item (counted as a disagreement)
    explanation: str = ""


class Agreement(BaseModel):
    """Agreement figures of one group of outcomes. The confusion matrix counts expected × judged."""

    n: int
    agreement: float
    kappa: float | None
    true_pass: int
    false_pass: int
    true_fail: int
    false_fail: int
    judge_failed: int


def agreement(outcomes: list[Outcome]) -> Agreement:
    """Agreement and Cohen's kappa (None when chance agreement is 1, e.g. one class only)."""
    n = len(outcomes)
    tp = sum(o.expected and o.got is True for o in outcomes)
    fp = sum(not o.expected and o.got is True for o in outcomes)
    tn = sum(not o.expected and o.got is False for o in outcomes)
    fn = sum(o.expected and o.got is False for o in outcomes)
    failed = sum(o.got is None for o in outcomes)
    agree = (tp + tn) / n if n else 0.0
    p_yes = (sum(o.expected for o in outcomes) / n) * (sum(o.got is True for o in outcomes) / n) if n else 0.0
    p_no = (sum(not o.expected for o in outcomes) / n) * (sum(o.got is not True for o in outcomes) / n) if n else 0.0
    chance = p_yes + p_no
    kappa = None if chance >= 1.0 else (agree - chance) / (1.0 - chance)
    return Agreement(n=n, agreement=agree, kappa=kappa, true_pass=tp, false_pass=fp, true_fail=tn, false_fail=fn, judge_failed=failed)


class CheckReport(BaseModel):
    judge: str
    prompt: str | None
    set_sha256: str
    overall: Agreement
    by_domain: dict[str, Agreement]
    by_kind: dict[str, Agreement]
    disagreements: list[Outcome]


async def measure(judge: Judge, items: list[tuple[str, CalibrationItem]], instructions: dict[str, str], *, prompt: str | None, set_sha: str) -> CheckReport:
    """Judge every item (its criterion alone, over its messages) and compare with the labels. A judge
    failure on an item (invalid output after retries) counts as a disagreement, never as a pass."""
    from grader.grade import JudgeFailure, validate_judgement

    outcomes: list[Outcome] = []
    for domain, item in items:
        try:
            output = await judge.judge(instructions.get(item.task, ""), [item.criterion], item.messages)
            validate_judgement(output, 1, item.messages, [item.criterion])
            got: bool | None = output.criteria[0].passed
            explanation = output.criteria[0].explanation
        except JudgeFailure as exc:
            got, explanation = None, str(exc)
        outcomes.append(Outcome(id=item.id, domain=domain, kind=item.kind, expected=item.expected, got=got, explanation=explanation[:400]))

    def groups(key: str) -> dict[str, Agreement]:
        return {k: agreement([o for o in outcomes if getattr(o, key) == k]) for k in sorted({getattr(o, key) for o in outcomes})}
    return CheckReport(
        judge=judge.name,
        prompt=prompt,
        set_sha256=set_sha,
        overall=agreement(outcomes),
        by_domain=groups("domain"),
        by_kind=groups("kind"),
        disagreements=[o for o in outcomes if o.got is not o.expected],
    )


# ---- the cached figure --------------------------------------------------------------------------


def result_key(judge: str, prompt: str | None) -> str:
    """Results are keyed by judge name (``evidence``, ``llm:<provider:model>``) and, for a model judge,
    its prompt fingerprint: a new prompt or model is a new, unmeasured judge."""
    return judge if prompt is None else f"{judge}@{prompt}"


def store_result(report: CheckReport, path: Path = RESULTS_FILE, *, full_set: bool = True) -> None:
    """Record the figure of a measurement over the whole set (a per-domain check is not a calibration
    figure of the judge and is not stored)."""
    if not full_set:
        return
    try:
        results: dict[str, Any] = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    except (OSError, json.JSONDecodeError):
        log.warning("unreadable calibration results %s: rewritten", path)
        results = {}
    results[result_key(report.judge, report.prompt)] = {
        "judge": report.judge,
        "prompt": report.prompt,
        "set_sha256": report.set_sha256,
        "items": report.overall.n,
        "agreement": round(report.overall.agreement, 4),
        "kappa": None if report.overall.kappa is None else round(report.overall.kappa, 4),
    }
    path.write_text(json.dumps(results, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def manifest_entry(judge: str, prompt: str | None, path: Path = RESULTS_FILE, directory: Path = CALIBRATION_DIR) -> dict[str, Any] | None:
    """The calibration figure of `judge` (with `prompt`) measured on the CURRENT set, or None when it was
    never measured or the set changed since."""
    try:
        results = json.loads(path.read_text(encoding="utf-8"))
        entry = results.get(result_key(judge, prompt))
    except (OSError, json.JSONDecodeError, AttributeError):
        return None
    if not isinstance(entry, dict) or entry.get("set_sha256") != set_hash(directory):
        return None
    return entry
