"""Reports over runs that must not merge, or that lack something: run identity, copies, mixed catalogs,
labels, partial and ungraded runs, ⊥ trials, demo cards. What they check does not depend on the catalog's
size, so they use runs of two domains reported against those two domains (tests/report_runs.py), apart
from the full-catalog report tests (tests/test_report.py) so that the two run on two cores at once. They
build reports without figures (`--no-figures`), which are most of a report's time and none of what they check."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from contracts.catalog import load_catalog
from harness.report.build import build_report
from harness.report.compare import compare_runs
from tests.report_runs import copy_run, scripted, small, small_catalog, table, two_domains  # noqa: F401 - scripted, small: fixtures

pytestmark = pytest.mark.slow  # builds runs of two domains (~670 trials): started early under xdist (tests/conftest.py)


def test_partial_run_says_what_is_missing(small: dict[str, Path], tmp_path: Path) -> None:
    partial = tmp_path / "partial"
    shutil.copytree(small["oracle"], partial)
    removed = sorted((partial / "trials" / "payments").glob("payments_transfer_*__r0__*.json"))[:3]
    for path in removed:
        path.unlink()
    report = build_report([partial], tmp_path / "out", **two_domains(), figures=False)
    coverage = table(report, "coverage")
    first = next(r for r in coverage.rows if r[1] == 1)
    col = coverage.columns.index
    assert first[col("missing")] == 3 and first[col("missing (first)")].startswith("payments_transfer_")
    assert first[col("selected, not run")] == 3 and first[0] == "oracle †"


def test_demo_card_for_a_requested_task(scripted: dict[str, Path], tmp_path: Path) -> None:
    report = build_report([scripted["case_b"]], tmp_path / "out", card_tasks=["payments_checkout_full_chain_02"], figures=False)
    [card] = report.cards
    md = (report.out / "report.md").read_text()
    assert "graded failure (primary: state)" in card.outcome
    assert "accounts.ACC-1002.loyalty_points: expected 155, got 310" in md
    assert "process_payment" in md and "node `scripted`" in md
    with pytest.raises(KeyError):
        build_report([scripted["case_b"]], tmp_path / "out2", card_tasks=["payments_nope_01"], figures=False)


def test_different_configurations_of_one_agent_are_different_systems(scripted: dict[str, Path]) -> None:
    from harness.report.data import load_runs

    data = load_runs([scripted["script"], scripted["case_b"]])  # two trajectory files, two task selections
    assert len(data.systems) == 2 and all(s.label.startswith("script [") for s in data.systems)
    assert all(len(s.rounds) == 1 for s in data.systems)  # never "rounds" of one system
    assert any("share this name" in w for w in data.warnings)


def test_the_same_directory_or_a_copy_is_refused(small: dict[str, Path], tmp_path: Path) -> None:
    from harness.report.data import ReportInputError, load_runs

    scope = two_domains()
    with pytest.raises(ReportInputError, match="given twice"):
        load_runs([small["noop"], small["noop"]], **scope)
    copy = copy_run(small["noop"], tmp_path / "noop_copy")
    with pytest.raises(ReportInputError, match="same trials"):
        load_runs([small["noop"], copy], **scope)
    # a second run of the same system (another start time) is a further round of it
    again = copy_run(small["noop"], tmp_path / "noop_again", started_at="2099-01-01T00:00:00+00:00")
    [system] = load_runs([small["noop"], again], **scope).systems
    assert len(system.rounds) == 4 and system.rounds[-1].source == again


def test_mixed_catalogs_are_refused_or_marked(small: dict[str, Path], tmp_path: Path) -> None:
    from harness.report.data import ReportInputError, load_runs

    scope = two_domains()
    other = copy_run(small["noop"], tmp_path / "noop_v0", dataset_version="0.9.0", dataset_lock_sha256="f" * 64, started_at="2099-01-01")
    with pytest.raises(ReportInputError, match="different catalog versions"):
        load_runs([small["oracle"], other], **scope)
    report = build_report([small["oracle"], other], tmp_path / "out", allow_mixed=True, **scope, figures=False)
    leaderboard = table(report, "leaderboard")
    marked = [r[1] for r in leaderboard.rows if "‡" in r[1]]
    assert marked == ["noop ‡"]
    md = (report.out / "tables" / "leaderboard.md").read_text()
    assert "MIXED" in md and "0.9.0 lock ffffffffffff" in md


def test_labels_name_and_group_runs_only_of_one_system(small: dict[str, Path], tmp_path: Path) -> None:
    from harness.report.data import ReportInputError, load_runs, parse_labels

    scope = two_domains()
    again = copy_run(small["noop"], tmp_path / "noop_again", started_at="2099-01-01T00:00:00+00:00")
    labels = parse_labels([f"baseline={small['noop']},{again}", f"gold={small['oracle']}"])
    data = load_runs([], labels, **scope)
    assert sorted(s.label for s in data.systems) == ["baseline", "gold"]
    assert len(data.system("baseline").rounds) == 4
    with pytest.raises(ReportInputError, match="not one system"):
        load_runs([], parse_labels([f"both={small['noop']},{small['oracle']}"]), **scope)
    mixed = load_runs([], parse_labels([f"both={small['noop']},{small['oracle']}"]), allow_mixed=True, **scope)
    assert mixed.systems[0].name == "both ‡"
    with pytest.raises(ReportInputError, match="NAME=RUN"):
        parse_labels(["no-equals-sign"])


def test_a_run_missing_a_whole_domain_says_so(small: dict[str, Path], tmp_path: Path) -> None:
    partial = tmp_path / "oracle_no_payments"
    shutil.copytree(small["oracle"], partial)
    shutil.rmtree(partial / "trials" / "payments")
    report = build_report([partial, small["noop"]], tmp_path / "out", **two_domains(), figures=False)
    coverage = table(report, "coverage")
    col = coverage.columns.index
    row = next(r for r in coverage.rows if r[0].startswith("oracle"))
    payments = sum(t.domain == "payments" for t in load_catalog().values())
    assert row[0] == "oracle †" and row[col("missing")] == payments and row[col("domains without a trial")] == "payments"
    domain_row = next(r for r in table(report, "per_domain").rows if r[0] == "oracle †")
    assert domain_row[table(report, "per_domain").columns.index("payments")] == "n/a (not run)"  # never 0
    for key in ("leaderboard", "per_domain", "difficulty", "components", "policy", "failure_composition", "multi_round"):
        assert any(r[0 if key != "leaderboard" else 1] == "oracle †" for r in table(report, key).rows), key
        assert any("oracle is partial" in n and "no trial in domain(s) payments" in n for n in table(report, key).notes), key


def test_failure_composition_has_non_convergence_and_bottom_slices(small: dict[str, Path], scripted: dict[str, Path], tmp_path: Path) -> None:
    from harness.report.tables import BOTTOM

    broken = tmp_path / "noop_infra"
    shutil.copytree(small["noop"], broken)
    path = sorted((broken / "trials" / "payments").glob("*__r0__*.json"))[0]
    record = json.loads(path.read_text())
    record.update(status="infra_error", strict=None, failure_class="infra:connection", verdict=None)
    path.write_text(json.dumps(record))
    report = build_report([broken, scripted["script"]], tmp_path / "out", **two_domains(), figures=False)
    composition = table(report, "failure_composition")
    col = composition.columns.index
    noop = next(r for r in composition.rows if r[0] == "noop")
    assert noop[col(BOTTOM)] == 1 and noop[col("non-successes (scored)")] == len(small_catalog()) - 1
    script = next(r for r in composition.rows if r[0].startswith("script"))
    assert script[col("non_convergence")] == 1 and script[col("reply")] == 0  # its own class, not a component's
    assert composition.rows[0][0].startswith("script")  # fewest non-successes first, as the spec


def test_compare_states_what_its_rates_are_over(small: dict[str, Path], scripted: dict[str, Path]) -> None:
    comparison = compare_runs(small["oracle"], scripted["script"])
    summary = comparison.tables()[0]
    measures = [r[0] for r in summary.rows]
    assert "strict A over the 1 common tasks" in measures and "strict A over all its scored tasks" in measures
    assert any("discordant of 1 paired tasks" in m for m in measures)


def test_ungraded_trials_mark_the_system_incomplete(small: dict[str, Path], tmp_path: Path) -> None:
    judged = tmp_path / "noop_ungraded"
    shutil.copytree(small["noop"], judged)
    path = sorted((judged / "trials" / "payments").glob("*__r0__*.json"))[0]
    record = json.loads(path.read_text())
    record["ungraded"] = "judge failed after 3 retries"
    path.write_text(json.dumps(record))
    report = build_report([judged], tmp_path / "out", **two_domains(), figures=False)
    [row] = table(report, "leaderboard").rows
    assert row[1] == "noop †"
    assert any("1 ungraded trial(s) counted as non-passes" in n for n in table(report, "leaderboard").notes)
    composition = table(report, "failure_composition")
    assert composition.rows[0][composition.columns.index("ungraded")] == 1


def test_a_demo_card_chooses_system_and_round(small: dict[str, Path], tmp_path: Path) -> None:
    task = sorted(small_catalog())[0]
    report = build_report([small["oracle"], small["noop"]], tmp_path / "out", card_tasks=[f"{task}@noop#2", f"{task}@oracle"], **two_domains(), figures=False)
    first, second = report.cards
    assert (first.system, first.record.key.round, first.record.agent) == ("noop", 1, "noop")
    assert (second.system, second.record.key.round) == ("oracle", 0)
    with pytest.raises(KeyError, match="no system named"):
        build_report([small["noop"]], tmp_path / "out2", card_tasks=[f"{task}@nobody"], **two_domains(), figures=False)


def test_no_figures_writes_the_same_tables_and_says_the_figures_were_left_out(small: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`crmbench report --no-figures`: the same tables, no PNG (an earlier report's in the same directory
    removed, not left to pass for this one's), and the Markdown and HTML say the figures were not drawn."""
    from harness.cli import main

    out = tmp_path / "report"
    main(["report", str(small["oracle"]), "--out", str(out)])
    assert " 0 figures" not in capsys.readouterr().out and list((out / "figures").glob("*.png"))
    before = {p.name: p.read_text() for p in (out / "tables").glob("*.md")}
    main(["report", str(small["oracle"]), "--out", str(out), "--no-figures"])
    assert " 0 figures" in capsys.readouterr().out
    assert not list((out / "figures").glob("*.png"))
    assert "Figures not drawn" in (out / "report.md").read_text() and "Figures not drawn" in (out / "report.html").read_text()
    after = {p.name: p.read_text() for p in (out / "tables").glob("*.md")}
    assert after.keys() == before.keys()
    differs = [name for name in before if _without_provenance(before[name]) != _without_provenance(after[name])]
    assert not differs, differs


def _without_provenance(markdown: str) -> str:
    """A table's Markdown without its provenance header (it says when the report was generated)."""
    return markdown.split("</details>", 1)[-1]
