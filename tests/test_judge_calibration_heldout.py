"""The paraphrase splits of the judge calibration set (issue 37): the held-out v11 set (`heldout/`) and the
held-out sets retired to dev (`paraphrase_v1/`..`paraphrase_v10/`, split `dev_paraphrase`) — their data (real tasks and
criteria, every domain, both labels, every class the issue names, written apart from the gold wording),
its loader and schema errors, the split selection of `crmbench judge-check`, its printing (the held-out
figure named, its cases not shown to rule authors) and the committed record of its figures."""

from __future__ import annotations

import io
import json
import shutil
from collections import Counter
from pathlib import Path

import anyio
import pytest
import yaml
from rich.console import Console

from contracts.catalog import load_catalog
from contracts.yaml_io import read_yaml
from grader.calibration import (
    CALIBRATION_DIR,
    DOMAINS,
    CONSENT,
    DEV_CONSENT,
    DEV_PARAPHRASE,
    HELDOUT,
    RESULTS_FILE,
    SPLIT_DIRS,
    CalibrationError,
    load_heldout,
    load_set,
    load_split,
    measure,
    set_hash,
    store_result,
    stored_figures,
)
from grader.text.evidence import EvidenceJudge
from harness.cli import main
from harness.judge_check import JudgeCheckConfig, catalog_views, check

QUIET = Console(file=io.StringIO(), force_terminal=False)
HELDOUT_DIR = CALIBRATION_DIR / "heldout"
V1_DIR = CALIBRATION_DIR / "paraphrase_v1"
V2_DIR = CALIBRATION_DIR / "paraphrase_v2"
V3_DIR = CALIBRATION_DIR / "paraphrase_v3"
V4_DIR = CALIBRATION_DIR / "paraphrase_v4"
V5_DIR = CALIBRATION_DIR / "paraphrase_v5"
V6_DIR = CALIBRATION_DIR / "paraphrase_v6"
V7_DIR = CALIBRATION_DIR / "paraphrase_v7"
V8_DIR = CALIBRATION_DIR / "paraphrase_v8"
V9_DIR = CALIBRATION_DIR / "paraphrase_v9"
V10_DIR = CALIBRATION_DIR / "paraphrase_v10"
SETS = {
    "v11": (HELDOUT_DIR, ".v11.", "held-out v11, blind to the judges' rules"),
    "v10": (V10_DIR, ".v10.", "held-out v10, blind to the judges' rules"),
    "v9": (V9_DIR, ".v9.", "held-out v9, blind to the judges' rules"),
    "v8": (V8_DIR, ".v8.", "held-out v8, blind to the judges' rules"),
    "v7": (V7_DIR, ".v7.", "held-out v7, blind to the judges' rules"),
    "v6": (V6_DIR, ".v6.", "held-out v6, blind to the judges' rules"),
    "v5": (V5_DIR, ".v5.", "held-out v5, blind to the judges' rules"),
    "v4": (V4_DIR, ".v4.", "held-out v4, blind to the judges' rules"),
    "v3": (V3_DIR, ".v3.", "held-out v3, blind to the judges' rules"),
    "v2": (V2_DIR, ".v2.", "held-out v2, blind to the judges' rules"),
    "v1": (V1_DIR, ".h.", "before issue 37"),
}
"""Each paraphrase set: its directory, the infix of its case ids and the words its files are dated with."""


@pytest.fixture(scope="module")
def views() -> tuple[dict, dict]:
    """Each task's instruction (what the judge is given, as `judge-check` gives it) and reply criteria."""
    return catalog_views()


@pytest.fixture(scope="module")
def criteria(views: tuple[dict, dict]) -> dict:
    return views[1]


@pytest.fixture(scope="module")
def heldout(criteria: dict) -> list:
    return load_heldout(criteria)


@pytest.fixture(scope="module", params=sorted(SETS))
def paraphrase_set(request: pytest.FixtureRequest, criteria: dict) -> tuple[str, list]:
    """(set name, its items): the held-out set and the sets retired to dev are held to the same rules."""
    return request.param, load_heldout(criteria, SETS[request.param][0])


def test_each_paraphrase_set_covers_every_domain_with_real_tasks(paraphrase_set: tuple[str, list]) -> None:
    name, heldout = paraphrase_set
    per_domain = Counter(domain for domain, _ in heldout)
    assert set(per_domain) == set(DOMAINS) and min(per_domain.values()) >= 40 and len(heldout) >= 400
    catalog = load_catalog()
    for domain, item in heldout:
        task = catalog[item.task]
        assert task.domain == domain, item.id
        assert item.criterion in (task.contract.reply_criteria or []), item.id
        assert item.id.startswith(f"{item.task}{SETS[name][1]}"), item.id


def test_each_paraphrase_set_is_balanced_and_covers_the_classes_of_issue_37(paraphrase_set: tuple[str, list]) -> None:
    _, heldout = paraphrase_set
    labels = Counter(item.expected for _, item in heldout)
    assert min(labels.values()) / len(heldout) >= 0.35, labels  # roughly balanced pass / fail
    kinds = Counter(item.kind for _, item in heldout)
    for kind in ("terse_correct", "synonym", "other_spelling", "value_form", "several_records",  # correct replies
                 "keyword_dump", "wrong_value", "wrong_subject", "retracted", "as_question"):  # incorrect ones
        assert kinds[kind] >= 5, (kind, kinds[kind])
    for _, item in heldout:  # a kind fixes the label: a reviewer's class, not a judge's verdict
        passing = item.kind in ("terse_correct", "synonym", "other_spelling", "value_form", "several_records", "correction_kept")
        assert item.expected is passing, item.id


def test_the_heldout_split_is_written_apart_from_the_gold_replies_and_the_dev_splits(heldout: list, criteria: dict) -> None:
    """Held out from the rules' sources: no case replays a task's gold replies, none repeats a case of a
    dev split (the original set, or the v1 paraphrases retired to dev)."""
    catalog = load_catalog()
    dev = [*load_set(), *(item for directory in (V1_DIR, V2_DIR, V3_DIR, V4_DIR, V5_DIR, V6_DIR, V7_DIR, V8_DIR, V9_DIR, V10_DIR) for item in load_heldout(criteria, directory))]
    dev_messages = {tuple(item.messages) for _, item in dev}
    assert not {item.id for _, item in heldout} & {item.id for _, item in dev}
    for _, item in heldout:
        gold = [turn.reply for turn in catalog[item.task].gold]
        # earlier messages may be the dialogue's history (a correction follows the gold's first reply); the
        # message that carries the judged statement last is the writer's own
        assert item.messages != gold and item.messages[-1] not in gold, item.id
        assert tuple(item.messages) not in dev_messages, item.id


@pytest.mark.parametrize("name", sorted(SETS))
def test_the_split_files_are_marked_and_dated(name: str) -> None:
    directory, _, marker = SETS[name]
    for path in sorted(directory.glob("*.yaml")):
        data = read_yaml(path.read_text(encoding="utf-8"))
        assert data["domain"] == path.stem and marker in data["written"], path


# ---- the loader's errors ---------------------------------------------------------------------------


def _one_case(tmp_path: Path, mutate) -> Path:  # noqa: ANN001
    """A held-out directory with one sales file whose first case `mutate` edits (the raw dict)."""
    directory = tmp_path / "heldout"
    directory.mkdir()
    data = read_yaml((V6_DIR / "sales.yaml").read_text(encoding="utf-8"))
    mutate(data["items"][0])
    (directory / "sales.yaml").write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return directory


def test_the_loader_reads_a_valid_file(tmp_path: Path, criteria: dict) -> None:
    directory = _one_case(tmp_path, lambda case: None)
    items = load_heldout(criteria, directory)
    assert {d for d, _ in items} == {"sales"} and items[0][1].criterion.evidence  # evidence taken from the catalog


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda c: c.pop("expected"), "expected: Field required"),
        (lambda c: c.update(kind="vibes"), "kind: Input should be"),
        (lambda c: c.update(messages=[]), "messages: List should have at least 1 item"),
        (lambda c: c.update(extra_field=1), "extra_field: Extra inputs are not permitted"),
        (lambda c: c.update(task="sales_no_such_task_01"), "no task 'sales_no_such_task_01' in the catalog"),
        (lambda c: c.update(criterion="Confirms something the task never asks."), "has 0 reply criteria stated"),
    ],
)
def test_a_bad_case_is_an_error_naming_the_file_and_the_case(tmp_path: Path, criteria: dict, mutate, message: str) -> None:  # noqa: ANN001
    directory = _one_case(tmp_path, mutate)
    with pytest.raises(CalibrationError) as exc:
        load_heldout(criteria, directory)
    text = str(exc.value)
    first = read_yaml((V6_DIR / "sales.yaml").read_text(encoding="utf-8"))["items"][0]["id"]
    assert str(directory / "sales.yaml") in text and first in text and message in text, text


def test_a_case_without_an_id_is_named_by_its_position(tmp_path: Path, criteria: dict) -> None:
    directory = _one_case(tmp_path, lambda c: c.pop("id"))
    with pytest.raises(CalibrationError, match=r"case #1 \(no id\): id: Field required"):
        load_heldout(criteria, directory)


def test_bad_yaml_a_wrong_domain_and_duplicate_ids_are_errors(tmp_path: Path, criteria: dict) -> None:
    directory = tmp_path / "heldout"
    directory.mkdir()
    (directory / "sales.yaml").write_text("domain: sales\nitems:\n- id: x\n  why: a: b\n", encoding="utf-8")
    with pytest.raises(CalibrationError, match=r"sales\.yaml: not valid YAML"):
        load_heldout(criteria, directory)
    (directory / "sales.yaml").write_text((V6_DIR / "sales.yaml").read_text(encoding="utf-8").replace("domain: sales", "domain: retail"), encoding="utf-8")
    with pytest.raises(CalibrationError, match="does not match the file name"):
        load_heldout(criteria, directory)
    (directory / "sales.yaml").unlink()
    shutil.copy(V5_DIR / "sales.yaml", directory / "sales.yaml")
    shutil.copy(V5_DIR / "sales.yaml", directory / "marketing.yaml")
    (directory / "marketing.yaml").write_text((directory / "marketing.yaml").read_text(encoding="utf-8").replace("domain: sales", "domain: marketing"), encoding="utf-8")
    with pytest.raises(CalibrationError, match="duplicate calibration item ids"):
        load_heldout(criteria, directory)
    with pytest.raises(CalibrationError, match="no calibration files"):
        load_heldout(criteria, tmp_path / "empty")


def test_the_dev_loader_names_the_case_too(tmp_path: Path) -> None:
    data = read_yaml((CALIBRATION_DIR / "sales.yaml").read_text(encoding="utf-8"))
    data["items"][2].pop("expected")
    (tmp_path / "sales.yaml").write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    with pytest.raises(CalibrationError, match=rf"sales\.yaml: case {data['items'][2]['id']}: expected: Field required"):
        load_set(tmp_path)


# ---- judge-check: splits, printing, JSON, the stored figures -----------------------------------------


def test_split_selection(tmp_path: Path, criteria: dict) -> None:
    results = tmp_path / "results.json"
    held = check(JudgeCheckConfig(split=[HELDOUT], domain=["sales"]), results=results, console=QUIET)
    assert set(held.splits) == {HELDOUT} and held.splits[HELDOUT].split == HELDOUT
    assert held.splits[HELDOUT].overall.n == len(load_split(HELDOUT, criteria, domains=["sales"]))
    dev = check(JudgeCheckConfig(split=["dev"], domain=["sales"]), results=results, console=QUIET)
    assert set(dev.splits) == {"dev"} and dev.splits["dev"].overall.n == len(load_set(domains=["sales"]))
    every = check(JudgeCheckConfig(domain=["sales"]), results=results, console=QUIET)
    assert set(every.splits) == {"dev", DEV_PARAPHRASE, DEV_CONSENT, HELDOUT, CONSENT}
    assert every.splits[CONSENT].judge == every.splits[DEV_CONSENT].judge == "consent-rule"
    assert every.splits[DEV_PARAPHRASE].overall.n == len(load_split(DEV_PARAPHRASE, criteria, domains=["sales"]))


def test_the_printout_names_the_heldout_figure_and_hides_its_cases(tmp_path: Path) -> None:
    out = io.StringIO()
    report = check(JudgeCheckConfig(domain=["retail"], show=3), results=tmp_path / "r.json", console=Console(file=out, width=200))
    text = out.getvalue()
    held = report.splits[HELDOUT]
    assert "on split dev" in text and f"on split {HELDOUT} (HELD OUT" in text
    assert f"{HELDOUT} (evidence): agreement {held.overall.agreement:.1%} over {held.overall.n} items" in text
    assert "the reply judge's HELD-OUT figure" in text and "the consent judge's HELD-OUT figure" in text
    assert held.disagreements, "the current offline judge disagrees with some held-out cases"
    assert not any(o.id in text for o in held.disagreements)  # not listed to rule authors
    assert f"{len(held.disagreements)} held-out disagreements, not listed" in text
    shown = io.StringIO()
    check(JudgeCheckConfig(domain=["retail"], show_heldout=True), results=tmp_path / "r.json", console=Console(file=shown, width=200))
    assert all(o.id in shown.getvalue() for o in held.disagreements)


def test_the_json_carries_both_splits_with_heldout_explanations_redacted(tmp_path: Path) -> None:
    path = tmp_path / "check.json"
    report = check(JudgeCheckConfig(domain=["retail"], json=path), results=tmp_path / "r.json", console=QUIET)
    data = json.loads(path.read_text())
    assert data["heldout"] == [HELDOUT, CONSENT] and set(data["splits"]) == {"dev", DEV_PARAPHRASE, DEV_CONSENT, HELDOUT, CONSENT}
    assert data["splits"][HELDOUT]["overall"]["n"] == report.splits[HELDOUT].overall.n
    held = data["splits"][HELDOUT]["disagreements"]
    assert held and all(d["explanation"] == "(held out)" and d["id"] for d in held)
    check(JudgeCheckConfig(domain=["retail"], json=path, show_heldout=True), results=tmp_path / "r.json", console=QUIET)
    assert any(d["explanation"] != "(held out)" for d in json.loads(path.read_text())["splits"][HELDOUT]["disagreements"])


def _small_set(tmp_path: Path) -> Path:
    """A calibration directory with every split, each reduced to the sales files: what is stored, and when,
    does not depend on the set's size (measuring the whole set here cost ~20 s of the suite)."""
    directory = tmp_path / "set"
    directory.mkdir()
    shutil.copy(CALIBRATION_DIR / "sales.yaml", directory / "sales.yaml")
    for sub in SPLIT_DIRS:
        if (CALIBRATION_DIR / sub / "sales.yaml").exists():
            (directory / sub).mkdir()
            shutil.copy(CALIBRATION_DIR / sub / "sales.yaml", directory / sub / "sales.yaml")
    return directory


def test_measuring_one_split_keeps_the_other_figure_of_the_same_set(tmp_path: Path) -> None:
    results, directory = tmp_path / "results.json", _small_set(tmp_path)
    check(JudgeCheckConfig(), directory=directory, results=results, console=QUIET)
    first = json.loads(results.read_text())["evidence"]
    assert set(first["splits"]) == {"dev", DEV_PARAPHRASE, HELDOUT} and first["heldout"] == [HELDOUT]
    check(JudgeCheckConfig(split=["dev"]), directory=directory, results=results, console=QUIET)
    assert json.loads(results.read_text())["evidence"]["splits"] == first["splits"]
    stale = dict(first, set_sha256="000000000000")
    results.write_text(json.dumps({"evidence": stale}))
    report = check(JudgeCheckConfig(split=["dev"]), directory=directory, results=results, console=QUIET)
    assert set(json.loads(results.read_text())["evidence"]["splits"]) == {"dev"}  # another set's figure is dropped
    assert json.loads(results.read_text())["evidence"]["heldout"] == []
    store_result(report, results, full_set=False)  # a domain check stores nothing
    assert set(json.loads(results.read_text())["evidence"]["splits"]) == {"dev"}


def test_the_cli_selects_a_split_and_refuses_an_unknown_one(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "check.json"
    main(["judge-check", "--split", HELDOUT, "--domain", "sales", "--json", str(out)])
    assert set(json.loads(out.read_text())["splits"]) == {HELDOUT}
    assert "HELD OUT" in capsys.readouterr().out
    with pytest.raises(SystemExit) as exc:
        main(["judge-check", "--split", "test"])
    assert exc.value.code == 2 and "--split test" in capsys.readouterr().err


def test_the_committed_figures_are_those_of_the_current_set_and_judge(views: tuple[dict, dict]) -> None:
    """`results.json` is the record of the figures: it must be re-measured when either split or the
    evidence judge changes (`uv run crmbench judge-check`)."""
    entry = json.loads(RESULTS_FILE.read_text(encoding="utf-8"))["evidence"]
    assert entry["set_sha256"] == set_hash() and entry["heldout"] == [HELDOUT]
    for split in ("dev", DEV_PARAPHRASE, HELDOUT):
        items = load_split(split, views[1])
        report = anyio.run(lambda items=items, split=split: measure(EvidenceJudge(), items, views[0], prompt=None, set_sha=set_hash(), split=split))
        stored = entry["splits"][split]
        assert {k: stored[k] for k in ("items", "agreement", "kappa")} == {"items": report.overall.n, "agreement": round(report.overall.agreement, 4),
                                                                          "kappa": None if report.overall.kappa is None else round(report.overall.kappa, 4)}, split
        assert stored == stored_figures(report), split  # with the second reviewer's figures where the cases carry them


@pytest.mark.xfail(strict=True, reason="issue 37 must-show, reached by the offline reply judge's rewrite on another branch: "
                                      "remove this mark when it passes (strict: an unexpected pass fails the suite)")
def test_the_offline_judge_agrees_with_the_heldout_split(heldout: list, views: tuple[dict, dict]) -> None:
    report = anyio.run(lambda: measure(EvidenceJudge(), heldout, views[0], prompt=None, set_sha=set_hash(), split=HELDOUT))
    assert report.overall.agreement >= 0.98
