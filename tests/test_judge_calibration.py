"""Judge calibration (issue 23): the labelled set is valid and built from the catalog's real criteria, the
evidence judge agrees with it at >= 98%, the figures are computed right, and the measured figure reaches
run manifests only for the judge (and prompt, and set) it was measured for."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import anyio
import pytest
from rich.console import Console

from contracts.catalog import load_catalog
from grader.calibration import (
    CALIBRATION_DIR,
    CONSENT_SPLITS,
    DOMAINS,
    SPLIT_DIRS,
    SPLITS,
    Outcome,
    agreement,
    load_set,
    manifest_entry,
    measure,
    set_hash,
    store_result,
)
from grader.text.evidence import EvidenceJudge
from grader.llm_judge import PROMPT, LLMJudge
from harness.cli import main
from harness.judge_check import JudgeCheckConfig, check
from models.model import Model
from models.scripted import ScriptedModel

QUIET = Console(file=open("/dev/null", "w"), force_terminal=False)  # noqa: SIM115


def test_the_set_covers_every_domain_with_real_criteria() -> None:
    items = load_set()
    assert len(items) >= 300
    per_domain = Counter(domain for domain, _ in items)
    assert set(per_domain) == set(DOMAINS) and min(per_domain.values()) >= 25
    catalog = load_catalog()
    for domain, item in items:
        task = catalog[item.task]
        assert task.domain == domain
        assert item.criterion in (task.contract.reply_criteria or []), f"{item.id}: not a criterion of {item.task}"
    kinds = Counter(item.kind for _, item in items)
    for kind in ("correct_plain", "other_format", "wrong_value", "negation", "keyword_list", "partial_answer", "split_over_messages", "paraphrase"):
        assert kinds[kind] > 0, kind
    assert sum(not item.expected for _, item in items) >= 100 and sum(item.expected for _, item in items) >= 100


def test_the_evidence_judge_agrees_with_the_set() -> None:
    report = anyio.run(lambda: measure(EvidenceJudge(), load_set(), {}, prompt=None, set_sha=set_hash()))
    assert report.overall.agreement >= 0.98, [d.id for d in report.disagreements]
    assert report.overall.kappa is not None and report.overall.kappa >= 0.95


def test_agreement_kappa_and_confusion_are_computed_right() -> None:
    def o(expected: bool, got: bool | None) -> Outcome:
        return Outcome(id="x", domain="d", kind="k", expected=expected, got=got)

    # 10 items: 4 TP, 1 FP, 4 TN, 1 FN → agreement .8; chance = .5*.5 + .5*.5 = .5 → kappa .6
    a = agreement([o(True, True)] * 4 + [o(False, True)] + [o(False, False)] * 4 + [o(True, False)])
    assert (a.true_pass, a.false_pass, a.true_fail, a.false_fail) == (4, 1, 4, 1)
    assert a.agreement == pytest.approx(0.8) and a.kappa == pytest.approx(0.6)
    failed = agreement([o(True, None), o(False, False)])
    assert failed.judge_failed == 1 and failed.agreement == pytest.approx(0.5)
    assert agreement([o(True, True)] * 3).kappa is None  # one class only: kappa undefined, not 1


def _small_set(tmp_path: Path) -> Path:
    """Every split of one domain (payments), in a directory of their own."""
    directory = tmp_path / "cal"
    directory.mkdir()
    shutil.copy(CALIBRATION_DIR / "payments.yaml", directory / "payments.yaml")
    for sub in SPLIT_DIRS:
        (directory / sub).mkdir()
        shutil.copy(CALIBRATION_DIR / sub / "payments.yaml", directory / sub / "payments.yaml")
    return directory


def test_the_llm_judge_is_measured_with_a_scripted_model_and_its_figure_recorded(tmp_path: Path) -> None:
    """A model that passes everything, quoting the first message whole (and grants every consent, quoting
    the customer's last message): agreement = the share of items labelled pass whose quote is valid, stored
    under its name and prompt version, read back by manifests; the consent split under the consent judge's."""
    directory, results = _small_set(tmp_path), tmp_path / "results.json"

    def yes(messages, tools):  # noqa: ANN001
        if "<conversation_json" in messages[-1].content:  # the consent judge's request
            shown = json.loads(messages[-1].content.split('<conversation_json untrusted="true">\n', 1)[1].rsplit("\n</conversation_json>", 1)[0])
            return json.dumps({"granted": True, "message": shown[-1]["number"], "quote": shown[-1]["text"], "explanation": "yes"})
        transcript = json.loads(messages[-1].content.split('<transcript_json untrusted="true">\n', 1)[1].rsplit("\n</transcript_json>", 1)[0])
        return json.dumps({"criteria": [{"index": 1, "verdict": True, "quotes": [{"message": 1, "text": transcript[0]}], "explanation": "yes"}], "contradiction_found": False})

    judge = LLMJudge(Model(ScriptedModel(yes, model="yes"), role="judge"), retries=0)
    report = check(JudgeCheckConfig(judge="llm", judge_model="mock:yes"), judge, PROMPT.fingerprint, directory=directory, results=results, console=QUIET)
    assert set(report.splits) == set(SPLITS)  # the model judges are measured on every split
    items = load_set(directory)
    o = report.splits["dev"].overall
    assert o.n == len(items) and o.true_pass + o.false_pass + o.judge_failed == o.n and o.true_fail == o.false_fail == 0
    # a first message that does not state the criterion's value is no valid quote: a judge failure, a disagreement
    assert o.judge_failed >= 1 and o.agreement == pytest.approx(o.true_pass / o.n)
    held = report.splits["heldout_paraphrase"].overall
    assert held.n >= 40 and held.true_fail == held.false_fail == 0 and held.false_pass > 0  # a yes-man passes every labelled fail
    entry = manifest_entry("llm:mock:yes", PROMPT.fingerprint, results, directory)
    assert entry is not None and entry["heldout"] == ["heldout_paraphrase"]
    assert entry["splits"]["dev"]["agreement"] == round(o.agreement, 4)
    assert entry["splits"]["heldout_paraphrase"]["agreement"] == round(held.agreement, 4)
    consent = report.splits["heldout_consent"]
    assert consent.judge == "llm-consent:mock:yes" and consent.overall.n >= 5 and consent.overall.judge_failed == 0
    assert consent.overall.false_fail == consent.overall.true_fail == 0 and consent.overall.false_pass > 0  # grants every case
    from grader.llm_consent import PROMPT as CONSENT_PROMPT

    consent_entry = manifest_entry("llm-consent:mock:yes", CONSENT_PROMPT.fingerprint, results, directory)
    assert consent_entry is not None and consent_entry["splits"]["heldout_consent"]["agreement"] == round(consent.overall.agreement, 4)
    assert manifest_entry("llm:mock:yes", "judge_v2:000000000000", results, directory) is None  # another prompt: unmeasured
    assert manifest_entry("evidence", None, results, directory) is None
    (directory / "payments.yaml").write_text((directory / "payments.yaml").read_text() + "\n# edited\n")
    assert manifest_entry("llm:mock:yes", PROMPT.fingerprint, results, directory) is None  # the set changed


def test_a_domain_check_is_not_stored_as_the_judge_figure(tmp_path: Path) -> None:
    results = tmp_path / "results.json"
    report = check(JudgeCheckConfig(domain=["payments"]), directory=CALIBRATION_DIR, results=results, console=QUIET)
    assert all(set(r.by_domain) == {"payments"} for r in report.splits.values()) and not results.exists()
    store_result(report, results)
    stored = json.loads(results.read_text())
    assert {k: v["items"] for k, v in stored["evidence"]["splits"].items()} == {k: r.overall.n for k, r in report.splits.items() if k not in CONSENT_SPLITS}
    for split in CONSENT_SPLITS:
        assert stored["consent-rule"]["splits"][split]["items"] == report.splits[split].overall.n


def test_the_cli_reports_and_writes_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "check.json"
    main(["judge-check", "--domain", "sales", "--json", str(out), "--show", "0"])
    data = json.loads(out.read_text())
    assert data["judge"] == "evidence" and data["heldout"] == ["heldout_paraphrase", "heldout_consent"]
    assert set(data["splits"]) == set(SPLITS)
    assert all(set(s["by_domain"]) == {"sales"} and "by_kind" in s for s in data["splits"].values())
    assert "agreement" in capsys.readouterr().out
    with pytest.raises(SystemExit) as exc:
        main(["judge-check", "--domain", "atlantis"])
    assert exc.value.code == 2 and "no calibration items" in capsys.readouterr().err


def test_a_manifest_records_the_evidence_judge_figure() -> None:
    from harness.manifest import judge_calibration

    entry = judge_calibration("evidence", None, PROMPT.fingerprint)
    assert entry is not None and entry["set_sha256"] == set_hash() and entry["splits"]["dev"]["agreement"] >= 0.98
    assert entry["heldout"] == ["heldout_paraphrase"] and "heldout_paraphrase" in entry["splits"]
    assert judge_calibration("llm", "never:measured", PROMPT.fingerprint) is None
