"""A second, independent reviewer's labels on the held-out calibration cases (issue 37): how often two
careful reviewers agree is the ceiling of any judge's agreement with one of them, so `judge-check` prints
it beside the judge's figure, with the judge's agreement on the cases both reviewers label alike."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
import yaml
from rich.console import Console

from contracts.yaml_io import read_yaml
from grader.calibration import CALIBRATION_DIR, CONSENT, HELDOUT, CalibrationError, Outcome, load_heldout, reviewer_figures
from harness.judge_check import JudgeCheckConfig, catalog_views, check

SOURCES = {"heldout": CALIBRATION_DIR / "paraphrase_v6" / "sales.yaml", "heldout_consent": CALIBRATION_DIR / "consent_v6" / "sales.yaml"}


def _outcome(expected: bool, second: bool | None, got: bool | None) -> Outcome:
    return Outcome(id=f"x{expected}{second}{got}", domain="sales", kind="synonym", expected=expected, got=got, second=second)


def test_the_figures_count_only_cases_with_a_second_label() -> None:
    outcomes = [_outcome(True, True, True), _outcome(True, False, True), _outcome(False, False, True), _outcome(False, None, False)]
    figures = reviewer_figures(outcomes)
    assert figures is not None
    assert figures.labelled == 3 and figures.agreement == pytest.approx(2 / 3)
    # the cases both reviewers label alike: the first (judged right) and the third (judged wrong)
    assert figures.consensus.n == 2 and figures.consensus.agreement == pytest.approx(0.5)
    # against the second reviewer: right on the first only
    assert figures.with_second.n == 3 and figures.with_second.agreement == pytest.approx(1 / 3)
    assert reviewer_figures([_outcome(True, None, True)]) is None


def _directory(tmp_path: Path, second: object) -> Path:
    """A calibration directory with a held-out reply file and consent file (sales), every case given `second`
    (the first reviewer's label flipped on every third case, so the reviewers disagree somewhere)."""
    for sub, source in SOURCES.items():
        data = read_yaml(source.read_text(encoding="utf-8"))
        for i, case in enumerate(data["items"]):
            case["second"] = (case["expected"] if i % 3 else not case["expected"]) if second == "flip" else second
        (tmp_path / sub).mkdir(parents=True)
        (tmp_path / sub / "sales.yaml").write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return tmp_path


def test_the_loader_keeps_the_second_label_and_refuses_a_non_boolean(tmp_path: Path) -> None:
    criteria = catalog_views()[1]
    items = load_heldout(criteria, _directory(tmp_path / "ok", "flip") / "heldout")
    assert [item.second for _, item in items][:4] == [not items[0][1].expected, items[1][1].expected, items[2][1].expected, not items[3][1].expected]
    with pytest.raises(CalibrationError, match="second: Input should be a valid boolean"):
        load_heldout(criteria, _directory(tmp_path / "bad", "maybe") / "heldout")


def test_judge_check_prints_and_stores_the_reviewers_agreement(tmp_path: Path) -> None:
    directory = _directory(tmp_path / "set", "flip")
    out, results = io.StringIO(), tmp_path / "results.json"
    report = check(JudgeCheckConfig(split=[HELDOUT, CONSENT]), directory=directory, results=results, console=Console(file=out, width=250))
    text = out.getvalue()
    for split in (HELDOUT, CONSENT):
        figures = report.splits[split].reviewers
        assert figures is not None and figures.labelled == report.splits[split].overall.n
        n = figures.labelled
        assert figures.agreement == pytest.approx(sum(1 for i in range(n) if i % 3) / n)
        assert f"the two reviewers agree on {figures.agreement:.1%}" in text
        stored = json.loads(results.read_text())
        key = next(k for k, v in stored.items() if split in v["splits"])
        assert stored[key]["splits"][split]["reviewers"] == {
            "labelled": n, "agreement": round(figures.agreement, 4), "consensus_items": figures.consensus.n,
            "judge_on_consensus": round(figures.consensus.agreement, 4), "judge_with_second": round(figures.with_second.agreement, 4)}


def test_without_second_labels_nothing_is_printed_or_stored(tmp_path: Path) -> None:
    directory = _directory(tmp_path / "set", None)
    out, results = io.StringIO(), tmp_path / "results.json"
    report = check(JudgeCheckConfig(split=[HELDOUT]), directory=directory, results=results, console=Console(file=out, width=250))
    assert report.splits[HELDOUT].reviewers is None and "second reviewer" not in out.getvalue()
    assert "reviewers" not in json.loads(results.read_text())["evidence"]["splits"][HELDOUT]
