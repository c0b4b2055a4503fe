"""Judge calibration: a labelled set of (criterion, visible replies, expected verdict) items written from
the catalog's real criteria, and the agreement of a judge with it (agreement, Cohen's kappa, confusion
matrix per domain and per item kind), in five splits (`SPLITS`). Three are dev — the rules were written
with them in view: `dev` (`contracts/judge_calibration/<domain>.yaml`), and the earlier held-out sets,
each retired to dev once its figure was reported and rule authors read it (`dev_paraphrase`:
`paraphrase_v1/`..`paraphrase_v10/`; `dev_consent`: `consent_v1/`..`consent_v10/`). Two are held out — written blind to the rules by writers who saw only the tasks'
instructions, gold dialogues, criterion statements and the policies, and never shown to rule authors:
`heldout_paraphrase` (`heldout/`) and `heldout_consent` (`heldout_consent/`); their figures are the
judges' held-out ones. A held-out set whose cases a rule author reads is retired to dev the same way and a
new one is written (docs/judges.md).

`crmbench judge-check` measures a judge on the set and stores the figure in a small result file keyed by
judge name and prompt version (`contracts/judge_calibration/results.json`); a run's manifest records the
figure of the judge it used when one was measured for the current set (`manifest_entry`).
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from contracts.schema import ReplyCriterion
from contracts.yaml_io import read_yaml
from grader.judge import Judge

log = logging.getLogger(__name__)
CALIBRATION_DIR = Path(__file__).resolve().parents[1] / "contracts" / "judge_calibration"
HELDOUT_DIRNAME = "heldout"
CONSENT_HELDOUT_DIRNAME = "heldout_consent"
PARAPHRASE_V1_DIRNAME = "paraphrase_v1"
CONSENT_V1_DIRNAME = "consent_v1"
RETIRED_PARAPHRASE_DIRS = (PARAPHRASE_V1_DIRNAME, "paraphrase_v2", "paraphrase_v3", "paraphrase_v4", "paraphrase_v5", "paraphrase_v6", "paraphrase_v7", "paraphrase_v8", "paraphrase_v9", "paraphrase_v10")
RETIRED_CONSENT_DIRS = (CONSENT_V1_DIRNAME, "consent_v2", "consent_v3", "consent_v4", "consent_v5", "consent_v6", "consent_v7", "consent_v8", "consent_v9", "consent_v10")
"""The held-out sets retired to dev, oldest first: each was measured held out once, then read by rule authors."""
SPLIT_DIRS = (*RETIRED_PARAPHRASE_DIRS, *RETIRED_CONSENT_DIRS, HELDOUT_DIRNAME, CONSENT_HELDOUT_DIRNAME)
"""The subdirectories of the splits read by statement (the consent parts' schema is `grader.consent_calibration`)."""
RESULTS_FILE = CALIBRATION_DIR / "results.json"
DOMAINS = ("retail", "customer_support", "field_service", "itsm", "payments", "travel", "onboarding", "sales", "marketing")
DEV = "dev"
DEV_PARAPHRASE = "dev_paraphrase"
DEV_CONSENT = "dev_consent"
HELDOUT = "heldout_paraphrase"
CONSENT = "heldout_consent"
SPLITS = (DEV, DEV_PARAPHRASE, DEV_CONSENT, HELDOUT, CONSENT)
"""`dev`: the original set (`<domain>.yaml`), which the evidence judge's rules were written with in view.
`dev_paraphrase` / `dev_consent`: the retired held-out sets — v1 (`paraphrase_v1/`, `consent_v1/`; held out
before issue 37's rules: replies 63.9%, consent 79.3%) and v2 (`paraphrase_v2/`, `consent_v2/`; held out
after the first round of rules: replies 84.0%, consent 87.9%), v3 (`paraphrase_v3/`, `consent_v3/`; held
out after the second round: replies 87.7%, consent 86.6%) and v4 (`paraphrase_v4/`, `consent_v4/`; held out
after the third round: replies 89.2%, consent 87.9%) and v5 (`paraphrase_v5/`, `consent_v5/`; held out
after the fourth round: replies 90.3%, consent 91.2%) and v6 (`paraphrase_v6/`, `consent_v6/`; held out
after the fifth round: replies 92.5% with the round-5 catalog re-audit, consent 90.2%) and v7 (`paraphrase_v7/`,
`consent_v7/`; held out after the sixth round: replies 93.3%, consent 90.2%) and v8 (`paraphrase_v8/`, `consent_v8/`;
held out after the seventh round: replies 93.9%, consent 92.3%) and v9 (`paraphrase_v9/`, `consent_v9/`; held out
after the eighth round: replies 93.9%, consent 92.3%) and v10 (`paraphrase_v10/`, `consent_v10/`; held out
after the ninth round: replies 93.8%, consent 95.3%), each retired when the next round's rule authors
read its disagreements. `heldout_paraphrase` (`heldout/`) and `heldout_consent`
(`heldout_consent/`): the current held-out set (v11), written blind to the rules; their figures are the reply
and consent judges' held-out ones. The consent splits (schema in `grader.consent_calibration`) are answered by
the consent judge that goes with the reply judge."""
HELDOUT_SPLITS = (HELDOUT, CONSENT)
CONSENT_SPLITS = {DEV_CONSENT: RETIRED_CONSENT_DIRS, CONSENT: (CONSENT_HELDOUT_DIRNAME,)}
"""Consent split → its subdirectories."""
Split = Literal["dev", "dev_paraphrase", "dev_consent", "heldout_paraphrase", "heldout_consent"]
DevKind = Literal[
    "correct_plain", "paraphrase", "other_format", "split_over_messages", "correction", "refused_then_succeeded",
    "wrong_value", "negation", "keyword_list", "partial_answer", "absent_stated", "no_answer",
]
HeldoutKind = Literal[
    # labelled pass: the fact is stated, in words the contract's author did not write
    "terse_correct", "synonym", "other_spelling", "value_form", "several_records", "correction_kept",
    # labelled fail: the fact is not stated, stated wrong, or taken back
    "keyword_dump", "wrong_value", "wrong_subject", "retracted", "as_question", "negated", "missing_fact",
]
Kind = DevKind | HeldoutKind


SECOND_LABEL = ("a second reviewer's label, given independently: blind to `expected`, to `kind` and `why`, and to every "
                "judge. Two careful reviewers' agreement is the ceiling of any judge's agreement with one of them.")


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
    second: bool | None = Field(default=None, description=SECOND_LABEL)


class HeldoutItem(BaseModel):
    """One held-out case as written: the criterion is named by its statement (`criterion` of one of the
    task's reply criteria) and its evidence is taken from the catalog when loaded, so the case measures the
    contract as it is when measured and its author never copied an evidence list. The label was set from
    the task's instruction and the domain policy, before any judge ran on it."""

    model_config = ConfigDict(extra="forbid")
    id: str = Field(min_length=3)
    task: str = Field(min_length=3)
    criterion: str = Field(min_length=8)
    messages: list[str] = Field(min_length=1)
    expected: bool
    kind: HeldoutKind
    why: str = Field(min_length=8)
    second: bool | None = Field(default=None, description=SECOND_LABEL)


class _File(BaseModel):
    model_config = ConfigDict(extra="forbid")
    domain: str
    written: str | None = Field(default=None, description="held-out split: when and before what the cases were written")
    items: list[dict[str, Any]] = Field(min_length=1)


class CalibrationError(ValueError):
    """A calibration file that cannot be read or does not validate (named with its path and case)."""


def _errors(exc: ValidationError) -> str:
    return "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'item'}: {e['msg']}" for e in exc.errors())


def read_cases(path: Path, model: type[BaseModel]) -> tuple[str, list[Any]]:
    """The domain and validated items of one file; every error names the file and the case (its id, or
    its position when the id itself is missing). Parsed once per text and schema in a process (a
    judge-check reads ~170 files of megabytes of YAML, and the tests measure the splits many times)."""
    domain, items = _parsed_cases(path, path.read_text(encoding="utf-8"), model)
    return domain, list(items)


@lru_cache(maxsize=512)
def _parsed_cases(path: Path, text: str, model: type[BaseModel]) -> tuple[str, tuple[Any, ...]]:
    try:
        raw = read_yaml(text)
    except yaml.YAMLError as exc:
        raise CalibrationError(f"{path}: not valid YAML: {exc}") from None
    try:
        data = _File.model_validate(raw)
    except ValidationError as exc:
        raise CalibrationError(f"{path}: {_errors(exc)}") from None
    if data.domain != path.stem:
        raise CalibrationError(f"{path}: domain {data.domain!r} does not match the file name")
    items = []
    for position, raw_item in enumerate(data.items, 1):
        name = raw_item.get("id") if isinstance(raw_item.get("id"), str) else f"#{position} (no id)"
        try:
            items.append(model.model_validate(raw_item))
        except ValidationError as exc:
            raise CalibrationError(f"{path}: case {name}: {_errors(exc)}") from None
    return data.domain, tuple(items)


def case_files(directory: Path) -> list[Path]:
    files = sorted(directory.glob("*.yaml"))
    if not files:
        raise CalibrationError(f"no calibration files in {directory}")
    return files


def domain_cases(directory: Path, model: type[BaseModel], domains: list[str] | None, known_tasks: Mapping[str, Any]) -> Iterator[tuple[Path, str, Any]]:
    """(file, domain, case) for every case of the split's files under `directory` (only `domains` when
    given), each naming a task of `known_tasks` (else an error naming the file and the case): the reading
    both held-out parts share."""
    for path in case_files(directory):
        domain, cases = read_cases(path, model)
        if domains and domain not in domains:
            continue
        for case in cases:
            if case.task not in known_tasks:
                raise CalibrationError(f"{path}: case {case.id}: no task {case.task!r} in the catalog")
            yield path, domain, case


def checked_ids(out: list[tuple[str, Any]], domains: list[str] | None) -> list[tuple[str, Any]]:
    """`out` (domain, case) with unique case ids and every asked domain present."""
    ids = Counter(item.id for _, item in out)
    if dupes := [i for i, n in ids.items() if n > 1]:
        raise CalibrationError(f"duplicate calibration item ids: {', '.join(dupes[:5])}")
    if domains and (unknown := set(domains) - {d for d, _ in out}):
        raise CalibrationError(f"--domain {', '.join(sorted(unknown))}: no calibration items (known: {', '.join(DOMAINS)})")
    return out


def load_set(directory: Path = CALIBRATION_DIR, domains: list[str] | None = None) -> list[tuple[str, CalibrationItem]]:
    """(domain, item) for every item of the dev split, optionally of some domains only; ids unique."""
    out: list[tuple[str, CalibrationItem]] = []
    for path in case_files(directory):
        domain, items = read_cases(path, CalibrationItem)
        if not domains or domain in domains:
            out.extend((domain, item) for item in items)
    return checked_ids(out, domains)


def load_heldout(criteria: Mapping[str, Sequence[ReplyCriterion]], directory: Path = CALIBRATION_DIR / HELDOUT_DIRNAME,
                 domains: list[str] | None = None) -> list[tuple[str, CalibrationItem]]:
    """(domain, item) for every item of the held-out split, its criterion resolved from `criteria` (task
    id → the task's reply criteria, from the catalog): the one criterion whose statement the case names.
    A task or statement the catalog does not have, or a criterion with a `${...}` reference, is an error
    naming the file and the case."""
    out: list[tuple[str, CalibrationItem]] = []
    for path, domain, item in domain_cases(directory, HeldoutItem, domains, criteria):
        matches = [c for c in criteria[item.task] if c.criterion == item.criterion]
        if len(matches) != 1:
            known = "; ".join(c.criterion for c in criteria[item.task]) or "none"
            raise CalibrationError(f"{path}: case {item.id}: task {item.task} has {len(matches)} reply criteria stated "
                                   f"{item.criterion!r} (its criteria: {known})")
        if "${" in matches[0].model_dump_json():
            raise CalibrationError(f"{path}: case {item.id}: the criterion holds a result reference; held-out cases use literal criteria")
        out.append((domain, CalibrationItem(id=item.id, task=item.task, criterion=matches[0], messages=item.messages,
                                            expected=item.expected, kind=item.kind, why=item.why, second=item.second)))
    return checked_ids(out, domains)


def load_split(split: Split, criteria: Mapping[str, Sequence[ReplyCriterion]], directory: Path = CALIBRATION_DIR,
               domains: list[str] | None = None) -> list[tuple[str, CalibrationItem]]:
    """The items of one reply split (`criteria` is needed by the splits read by statement only; the consent
    splits have their own loader, `grader.consent_calibration.load_consent`)."""
    if split == DEV:
        return load_set(directory, domains)
    if split == DEV_PARAPHRASE:
        return checked_ids([item for sub in RETIRED_PARAPHRASE_DIRS for item in load_heldout(criteria, directory / sub, domains)], domains)
    if split == HELDOUT:
        return load_heldout(criteria, directory / HELDOUT_DIRNAME, domains)
    raise CalibrationError(f"{split} is not a reply split")


def set_hash(directory: Path = CALIBRATION_DIR) -> str:
    """The fingerprint of every split's files (a stored figure is valid only for the files it was measured on)."""
    digest = hashlib.sha256()
    for path in [*sorted(directory.glob("*.yaml")), *(p for sub in SPLIT_DIRS for p in sorted((directory / sub).glob("*.yaml")))]:
        digest.update(path.relative_to(directory).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:12]


# ---- measuring ----------------------------------------------------------------------------------


class Outcome(BaseModel):
    id: str
    domain: str
    kind: str
    expected: bool
    got: bool | None  # None: the judge failed on the item (counted as a disagreement)
    explanation: str = ""
    second: bool | None = None  # the second reviewer's label, where the case has one


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


class Reviewers(BaseModel):
    """The second reviewer's labels against the first (the case's `expected`) and the judge: how often two
    careful reviewers agree, and the judge's agreement on the cases they agree on (`consensus`) and with
    the second reviewer alone (`with_second`)."""

    labelled: int
    agreement: float
    consensus: Agreement
    with_second: Agreement


def reviewer_figures(outcomes: list[Outcome]) -> Reviewers | None:
    """None when no case of the group has a second label."""
    labelled = [o for o in outcomes if o.second is not None]
    if not labelled:
        return None
    agreed = [o for o in labelled if o.second == o.expected]
    return Reviewers(
        labelled=len(labelled),
        agreement=len(agreed) / len(labelled),
        consensus=agreement(agreed),
        with_second=agreement([o.model_copy(update={"expected": o.second}) for o in labelled]),
    )


class CheckReport(BaseModel):
    """The figures of one judge on one split."""

    judge: str
    prompt: str | None
    set_sha256: str
    split: str = DEV
    overall: Agreement
    by_domain: dict[str, Agreement]
    by_kind: dict[str, Agreement]
    disagreements: list[Outcome]
    reviewers: Reviewers | None = None


class SplitsReport(BaseModel):
    """One judge measured on some splits; `heldout` names the splits whose figures are held out."""

    judge: str
    prompt: str | None
    set_sha256: str
    heldout: list[str] = Field(default_factory=lambda: list(HELDOUT_SPLITS))
    splits: dict[str, CheckReport]


async def measure(judge: Judge, items: list[tuple[str, CalibrationItem]], instructions: dict[str, str], *, prompt: str | None, set_sha: str,
                  split: str = DEV) -> CheckReport:
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
        outcomes.append(Outcome(id=item.id, domain=domain, kind=item.kind, expected=item.expected, got=got, explanation=explanation[:400], second=item.second))

    def groups(key: str) -> dict[str, Agreement]:
        return {k: agreement([o for o in outcomes if getattr(o, key) == k]) for k in sorted({getattr(o, key) for o in outcomes})}
    return CheckReport(
        judge=judge.name,
        prompt=prompt,
        set_sha256=set_sha,
        split=split,
        overall=agreement(outcomes),
        by_domain=groups("domain"),
        by_kind=groups("kind"),
        disagreements=[o for o in outcomes if o.got is not o.expected],
        reviewers=reviewer_figures(outcomes),
    )


# ---- the cached figure --------------------------------------------------------------------------


def result_key(judge: str, prompt: str | None) -> str:
    """Results are keyed by judge name (``evidence``, ``llm:<provider:model>``) and, for a model judge,
    its prompt fingerprint: a new prompt or model is a new, unmeasured judge."""
    return judge if prompt is None else f"{judge}@{prompt}"


def stored_figures(report: CheckReport) -> dict[str, Any]:
    """The figures of one split as `results.json` keeps them."""
    o = report.overall
    figures: dict[str, Any] = {"items": o.n, "agreement": round(o.agreement, 4), "kappa": None if o.kappa is None else round(o.kappa, 4)}
    if report.reviewers is not None:
        r = report.reviewers
        figures["reviewers"] = {"labelled": r.labelled, "agreement": round(r.agreement, 4), "consensus_items": r.consensus.n,
                                "judge_on_consensus": round(r.consensus.agreement, 4), "judge_with_second": round(r.with_second.agreement, 4)}
    return figures


def store_result(report: SplitsReport, path: Path = RESULTS_FILE, *, full_set: bool = True) -> None:
    """Record the figures of a measurement over every domain, per split (`splits.<name>`), under the key of
    the judge that answered that split (the consent split is answered by the consent judge that goes with
    the reply judge). Measuring some splits keeps the others' stored figures when they were taken on the
    same files; a per-domain check is not a calibration figure of the judge and is not stored."""
    if not full_set:
        return
    try:
        results: dict[str, Any] = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    except (OSError, json.JSONDecodeError):
        log.warning("unreadable calibration results %s: rewritten", path)
        results = {}
    for name, split in report.splits.items():
        key = result_key(split.judge, split.prompt)
        old = results.get(key)
        kept = old.get("splits", {}) if isinstance(old, dict) and old.get("set_sha256") == report.set_sha256 else {}
        splits = {**kept, name: stored_figures(split)}
        results[key] = {
            "judge": split.judge,
            "prompt": split.prompt,
            "set_sha256": report.set_sha256,
            "heldout": [s for s in report.heldout if s in splits],
            "splits": splits,
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
