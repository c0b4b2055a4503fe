"""The held-out consent part of the calibration set (issue 37): its data (real consent checks of real
tasks, every domain, both labels, the answer classes the issue names), its loader's errors, the question
a case becomes, and its measurement (the committed figure is that of the current files and rule)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import anyio
import pytest
import yaml

from contracts.catalog import load_catalog
from contracts.yaml_io import read_yaml
from grader.calibration import CALIBRATION_DIR, CONSENT, CONSENT_V1_DIRNAME, DOMAINS, RESULTS_FILE, CalibrationError, set_hash, stored_figures
from grader.consent import ConsentJudgement, ConsentQuestion, RuleConsentJudge
from grader.consent_calibration import CONSENT_DIRNAME, ResolvedConsentCase, load_consent, measure_consent, question_for
from grader.grade import JudgeFailure
from harness.judge_check import consent_checks

CONSENT_DIR = CALIBRATION_DIR / CONSENT_DIRNAME
SAMPLE_DIR = CALIBRATION_DIR / "consent_v10"
SETS = {"v11": (CONSENT_DIR, ".v11c."), "v10": (SAMPLE_DIR, ".v10c."), "v9": (CALIBRATION_DIR / "consent_v9", ".v9c."), "v8": (CALIBRATION_DIR / "consent_v8", ".v8c."), "v7": (CALIBRATION_DIR / "consent_v7", ".v7c."), "v6": (CALIBRATION_DIR / "consent_v6", ".v6c."), "v5": (CALIBRATION_DIR / "consent_v5", ".v5c."), "v4": (CALIBRATION_DIR / "consent_v4", ".v4c."), "v3": (CALIBRATION_DIR / "consent_v3", ".v3c."), "v2": (CALIBRATION_DIR / "consent_v2", ".v2c."),
        "v1": (CALIBRATION_DIR / CONSENT_V1_DIRNAME, ".c.")}
"""The held-out v11 consent set and the sets retired to dev (split `dev_consent`): directory, id infix."""
GRANTED_KINDS = {"yes_form", "repeats_request", "conditional_kept", "upfront_request"}


@pytest.fixture(scope="module")
def checks() -> dict:
    return consent_checks()


@pytest.fixture(scope="module")
def cases(checks: dict) -> list[ResolvedConsentCase]:
    return load_consent(checks)


@pytest.fixture(scope="module", params=sorted(SETS))
def consent_set(request: pytest.FixtureRequest, checks: dict) -> tuple[str, list[ResolvedConsentCase]]:
    return request.param, load_consent(checks, SETS[request.param][0])


def test_the_consent_part_covers_every_domain_with_real_checks(consent_set: tuple[str, list[ResolvedConsentCase]]) -> None:
    name, cases = consent_set
    infix = SETS[name][1]
    per_domain = Counter(r.domain for r in cases)
    assert set(per_domain) == set(DOMAINS) and min(per_domain.values()) >= 4 and len(cases) >= 50
    catalog = load_catalog()
    for r in cases:
        task = catalog[r.case.task]
        assert task.domain == r.domain and r.check in (task.contract.consent or []), r.case.id
        assert r.case.id.startswith(f"{r.case.task}{infix}"), r.case.id
        # every customer answer was written for this split: none is a line of the task's gold dialogue
        assert r.case.conversation[-1].text not in {turn.user for turn in task.gold}, r.case.id


def test_the_consent_part_covers_the_answer_classes_with_labels_fixed_by_them(consent_set: tuple[str, list[ResolvedConsentCase]]) -> None:
    _, cases = consent_set
    kinds = Counter(r.case.kind for r in cases)
    for kind in ("yes_form", "repeats_request", "decline", "deferral", "conditional_kept", "conditional_broken", "question_back"):
        assert kinds[kind] >= 3, (kind, kinds[kind])
    for r in cases:
        assert r.case.expected is (r.case.kind in GRANTED_KINDS), r.case.id
        if r.case.kind.startswith("conditional_"):
            assert r.case.call is not None, f"{r.case.id}: a condition is judged against the later call"
    labels = Counter(r.case.expected for r in cases)
    assert min(labels.values()) / len(cases) >= 0.35, labels


def test_a_case_becomes_the_question_a_grader_asks(checks: dict) -> None:
    cases = [r for directory, _ in SETS.values() for r in load_consent(checks, directory)]
    case = next(r for r in cases if len(r.case.conversation) == 3)
    question = question_for(case)
    assert [m.turn for m in question.conversation] == [0, 0, 1] and question.turn == 1
    assert question.conversation[-1].role == "user" and question.tool == case.check.tool and question.check == case.check
    upfront = next(r for r in cases if len(r.case.conversation) == 1)
    assert question_for(upfront).turn == 0


def _one_case(tmp_path: Path, mutate) -> Path:  # noqa: ANN001
    directory = tmp_path / CONSENT_DIRNAME
    directory.mkdir()
    data = read_yaml((SAMPLE_DIR / "payments.yaml").read_text(encoding="utf-8"))
    mutate(data["items"][0])
    (directory / "payments.yaml").write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return directory


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda c: c.pop("expected"), "expected: Field required"),
        (lambda c: c.update(kind="maybe"), "kind: Input should be"),
        (lambda c: c["conversation"].pop(), "must end with the customer's message"),
        (lambda c: c.update(task="payments_no_such_task_01"), "no task 'payments_no_such_task_01' in the catalog"),
        (lambda c: c.update(tool="close_case"), "has 0 consent checks on 'close_case'"),
        (lambda c: c.update(call={"account_id": "ACC-1002", "method": "account_balance"}), "is not gated by the check"),
    ],
)
def test_a_bad_case_is_an_error_naming_the_file_and_the_case(tmp_path: Path, checks: dict, mutate, message: str) -> None:  # noqa: ANN001
    directory = _one_case(tmp_path, mutate)
    with pytest.raises(CalibrationError) as exc:
        load_consent(checks, directory)
    text = str(exc.value)
    first = read_yaml((SAMPLE_DIR / "payments.yaml").read_text(encoding="utf-8"))["items"][0]["id"]
    assert str(directory / "payments.yaml") in text and first in text and message in text, text


class _Fails:
    name = "failing"

    async def judge(self, question: ConsentQuestion) -> ConsentJudgement:
        raise JudgeFailure("no valid answer")


class _Grants:
    name = "grants"

    async def judge(self, question: ConsentQuestion) -> ConsentJudgement:
        last = question.conversation[-1]
        return ConsentJudgement(granted=True, message=len(question.conversation), quote=last.content, explanation="yes")


def test_measuring_counts_agreement_and_judge_failures(cases: list[ResolvedConsentCase]) -> None:
    some = cases[:12]
    granted = anyio.run(lambda: measure_consent(_Grants(), some, prompt=None, set_sha="x"))
    assert granted.split == CONSENT and granted.judge == "grants"
    assert granted.overall.true_pass == sum(r.case.expected for r in some) and granted.overall.true_fail == 0
    failed = anyio.run(lambda: measure_consent(_Fails(), some, prompt=None, set_sha="x"))
    assert failed.overall.judge_failed == len(some) and failed.overall.agreement == 0.0 and len(failed.disagreements) == len(some)


def test_the_committed_consent_figure_is_that_of_the_current_files_and_rule(cases: list[ResolvedConsentCase]) -> None:
    entry = json.loads(RESULTS_FILE.read_text(encoding="utf-8"))["consent-rule"]
    report = anyio.run(lambda: measure_consent(RuleConsentJudge(), cases, prompt=None, set_sha=set_hash()))
    assert entry["set_sha256"] == set_hash() and entry["heldout"] == [CONSENT]
    stored = entry["splits"][CONSENT]
    assert {k: stored[k] for k in ("items", "agreement", "kappa")} == {"items": report.overall.n, "agreement": round(report.overall.agreement, 4),
                                                                      "kappa": None if report.overall.kappa is None else round(report.overall.kappa, 4)}
    assert stored == stored_figures(report)  # with the second reviewer's figures where the cases carry them
