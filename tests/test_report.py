"""Reports from real run directories: every section renders, values follow the spec's definitions, the
HTML opens in headless Chromium with its figures, and two runs compare task by task."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from contracts.catalog import catalog_lock, load_catalog, select_tasks
from contracts.schema import Task
from harness.report.build import build_report
from harness.report.compare import compare_runs
from harness.runner.config import RunConfig
from harness.runner.loop import run_blocking
from harness.runner.run import execute_run

DATA = Path(__file__).parent / "data"
QUIET = Console(file=open(os.devnull, "w"))  # noqa: SIM115


def _run(out: Path, **kwargs) -> Path:  # type: ignore[no-untyped-def]
    # allow_stale_lock: these tests are about reports, not about whether the catalog lock was rewritten after an edit
    run_blocking(lambda: execute_run(RunConfig(out=out, allow_stale_lock=True, **kwargs), console=QUIET))
    return out


# Two sizes of input. The report over the whole catalog (`runs`, `report`) is what the tables, figures,
# explorer and McNemar tests read. The tests about run identity, partial and mixed runs, copies, ungraded
# and infra trials edit copies of runs and rebuild the report; what they check does not depend on the
# catalog's size, so they use runs of two domains reported against those two domains (`SMALL_DOMAINS`, passed as
# the report's catalog as scripts/report_fixture.py does), instead of copying and re-reading ~2,200
# trials per test.
pytestmark = pytest.mark.slow  # ~1 min of fixtures: started first under xdist (tests/conftest.py)
SMALL_DOMAINS = ("payments", "retail")  # the script run's task (commerce_returns_01) is a retail task


def _small_catalog() -> dict[str, Task]:
    return {t.id: t for t in select_tasks(load_catalog(), domains=SMALL_DOMAINS)}


def _two_domains() -> dict[str, Any]:
    """What the two-domain tests pass to `load_runs` / `build_report`: SMALL_DOMAINS' tasks as the
    catalog, and the catalog's real lock (the runs recorded it, so they are not marked mixed)."""
    return {"catalog": _small_catalog(), "lock": catalog_lock()}


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("runs")
    return {
        "oracle": _run(root / "oracle", rounds=2, offline=True),
        "noop": _run(root / "noop", agent="noop", rounds=2, offline=True),
    }


@pytest.fixture(scope="module")
def scripted(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One-task runs of the script agent: a timeout (case C) and a graded failure on state (case B)."""
    root = tmp_path_factory.mktemp("scripted")
    return {
        "script": _run(root / "script", agent="script", script=DATA / "case_c.yaml", task=["commerce_returns_01"], max_turns=19),
        "case_b": _run(root / "case_b", agent="script", script=DATA / "case_b.yaml", task=["payments_checkout_full_chain_02"]),
    }


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The oracle and the no-op agent over every task of SMALL_DOMAINS, two rounds each."""
    root = tmp_path_factory.mktemp("small")
    return {
        "oracle": _run(root / "oracle", rounds=2, offline=True, domain=list(SMALL_DOMAINS)),
        "noop": _run(root / "noop", agent="noop", rounds=2, offline=True, domain=list(SMALL_DOMAINS)),
    }


@pytest.fixture(scope="module")
def report(runs: dict[str, Path], scripted: dict[str, Path], tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    out = tmp_path_factory.mktemp("report")
    return build_report([runs["oracle"], runs["noop"], scripted["script"]], out)


def table(report, key: str):  # type: ignore[no-untyped-def]
    return next(t for t in report.tables if t.key == key)


def test_every_section_is_written(report) -> None:  # type: ignore[no-untyped-def]
    keys = {t.key for t in report.tables}
    assert {"leaderboard", "coverage", "per_domain", "difficulty", "failure_composition", "components", "policy",
            "metric_standings", "metric_ranks", "multi_round", "spearman", "rank_stability", "flips", "pass_k", "costs",
            "contract_inventory", "graph_inventory", "composition"} <= keys
    for key in keys:
        for ext in ("md", "csv", "json"):
            assert (report.out / "tables" / f"{key}.{ext}").stat().st_size > 0
    assert len(report.figures) == 10 and {"figC_pass_k", "fig_cost_frontier"} <= set(report.figures)
    for name, png in report.figures.items():
        assert png[:8] == b"\x89PNG\r\n\x1a\n" and (report.out / "figures" / f"{name}.png").exists()
    assert [c.role for c in report.cards] == ["success", "graded failure", "timeout"]
    md = (report.out / "report.md").read_text()
    assert "Demo card (timeout): commerce_returns_01" in md and "FAIL reply" in md


def test_leaderboard_ranks_ties_and_exclusions(report) -> None:  # type: ignore[no-untyped-def]
    rows = {r[1]: r for r in table(report, "leaderboard").rows}
    n = len(load_catalog())
    assert rows["oracle"][:3] == [1, "oracle", "100.00%"] and rows["oracle"][4] == f"{n}/{n}"
    assert rows["oracle"][3].startswith("[9") and rows["oracle"][3].endswith(", 100.0]")  # Wilson interval
    # the script run covers one task: marked partial (†) in its row, with a note saying what it lacks
    assert rows["noop"][0] == rows["script †"][0] == 2  # competition ranks: tied systems share rank 2
    assert rows["noop"][4] == f"=0/{n}" and rows["script †"][4] == "=0/1"
    domains = len({t.domain for t in load_catalog().values()})
    assert rows["script †"][5].endswith(f"(1 of {domains} domains)")  # macro average says over which domains
    assert rows["oracle"][7] == "n/a"  # unpriced: n/a, never zero
    notes = " ".join(table(report, "leaderboard").notes)
    assert "† script is partial: round 1: 1/" in notes and "no trial in domain(s)" in notes


def test_component_matrix_uses_each_components_own_denominator(report) -> None:  # type: ignore[no-untyped-def]
    catalog = load_catalog().values()
    with_actions = sum(bool(t.contract.expected_actions) for t in catalog)
    with_order = sum(bool(t.contract.order) for t in catalog)
    row = next(r for r in table(report, "components").rows if r[0] == "noop")
    assert row[1] == f"0.0% (0/{with_actions})"
    assert row[3] == f"0.0% (0/{with_order})"


def test_policy_split_and_negative_compliance(report) -> None:  # type: ignore[no-untyped-def]
    safety = sum(t.contract.has_negative for t in load_catalog().values())
    row = next(r for r in table(report, "policy").rows if r[0] == "noop")
    assert row[2] == f"0.00% (0/{safety})"
    assert row[4] == f"100.0% ({safety}/{safety})"  # doing nothing never breaks a negative check


def test_multi_round_statistics(report) -> None:  # type: ignore[no-untyped-def]
    rows = {r[0]: r for r in table(report, "multi_round").rows}
    n = len(load_catalog())
    assert rows["oracle"][1:] == [2, f"{n}/{n}", f"{n}/{n}", "100.00%", "0.00 pp", f"100.00% ({n} tasks)"]
    assert rows["script †"][1] == 1 and rows["script †"][-2] == "n/a"  # one round: no sample std
    assert [r[0] for r in table(report, "multi_round").rows][0] == "oracle"  # sorted by mean
    flips = {(r[0], r[1]): r for r in table(report, "flips").rows}
    assert flips[("oracle", "1->2")][2] == 0


def test_partial_run_says_what_is_missing(small: dict[str, Path], tmp_path: Path) -> None:
    partial = tmp_path / "partial"
    shutil.copytree(small["oracle"], partial)
    removed = sorted((partial / "trials" / "payments").glob("payments_transfer_*__r0__*.json"))[:3]
    for path in removed:
        path.unlink()
    report = build_report([partial], tmp_path / "out", **_two_domains())
    coverage = table(report, "coverage")
    first = next(r for r in coverage.rows if r[1] == 1)
    col = coverage.columns.index
    assert first[col("missing")] == 3 and first[col("missing (first)")].startswith("payments_transfer_")
    assert first[col("selected, not run")] == 3 and first[0] == "oracle †"


def test_demo_card_for_a_requested_task(scripted: dict[str, Path], tmp_path: Path) -> None:
    report = build_report([scripted["case_b"]], tmp_path / "out", card_tasks=["payments_checkout_full_chain_02"])
    [card] = report.cards
    md = (report.out / "report.md").read_text()
    assert "graded failure (primary: state)" in card.outcome
    assert "accounts.ACC-1002.loyalty_points: expected 155, got 310" in md
    assert "process_payment" in md and "node `scripted`" in md
    with pytest.raises(KeyError):
        build_report([scripted["case_b"]], tmp_path / "out2", card_tasks=["payments_nope_01"])


def test_compare_flips_and_mcnemar(runs: dict[str, Path]) -> None:
    comparison = compare_runs(runs["oracle"], runs["noop"])
    n = len(load_catalog())
    assert comparison.common == n and comparison.strict_a == 1.0 and comparison.strict_b == 0.0
    assert len(comparison.lost) == n and comparison.gained == []
    assert comparison.p_value == pytest.approx(2 * 0.5**n)
    assert comparison.components["action"][1]  # action verdicts flipped pass->fail
    same = compare_runs(runs["oracle"], runs["oracle"])
    assert same.p_value == 1.0 and not same.lost


def _chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")


def test_html_opens_in_headless_chromium_with_its_figures(report, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    browser = _chromium()
    if browser is None:
        if os.environ.get("CRMBENCH_REQUIRE_CHROMIUM"):
            pytest.fail("chromium is required here (CRMBENCH_REQUIRE_CHROMIUM) but not installed")
        pytest.skip("chromium not installed")
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
             "--disable-component-update", "--disable-sync", f"--user-data-dir={tmp_path / 'profile'}", "--virtual-time-budget=5000"]
    url = report.html_path.resolve().as_uri()
    dom = subprocess.run([browser, *flags, "--dump-dom", url], capture_output=True, text=True, timeout=120)
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert f'data-images-loaded="{len(report.figures)}/{len(report.figures)}"' in dom.stdout
    assert "Table 6 - Leaderboard" in dom.stdout and "Demo card (timeout)" in dom.stdout
    shot = tmp_path / "report.png"
    subprocess.run([browser, *flags, f"--screenshot={shot}", "--window-size=1280,2400", url], capture_output=True, timeout=120)
    assert shot.exists() and shot.stat().st_size > 10_000


def test_report_json_tables_are_machine_readable(report) -> None:  # type: ignore[no-untyped-def]
    payload = json.loads((report.out / "tables" / "leaderboard.json").read_text())
    assert payload["columns"][0] == "rank" and len(payload["rows"]) == 3


def test_graph_inventory_matches_the_graphs(report) -> None:  # type: ignore[no-untyped-def]
    row = next(r for r in table(report, "graph_inventory").rows if r[0] == "payments")
    assert row[1:5] == [6, 5, 20, 13]  # 6 nodes incl. the fallback; 13 tools placed 20 times (checkout also carries the two payment lookups, issue 24)
    declarations = sum(len(t.contract.forbidden_actions or []) for t in load_catalog().values() if t.domain == "payments")
    assert row[6] == f"{declarations} ({declarations} matched)"


# ---- system identity: runs that must not merge ---------------------------------------------------


def _copy(src: Path, dst: Path, **manifest_changes) -> Path:  # type: ignore[no-untyped-def]
    shutil.copytree(src, dst)
    manifest = json.loads((dst / "manifest.json").read_text())
    for key, value in manifest_changes.items():
        target = manifest
        *parents, leaf = key.split("__")
        for p in parents:
            target = target[p]
        target[leaf] = value
    (dst / "manifest.json").write_text(json.dumps(manifest))
    return dst


def test_different_configurations_of_one_agent_are_different_systems(scripted: dict[str, Path]) -> None:
    from harness.report.data import load_runs

    data = load_runs([scripted["script"], scripted["case_b"]])  # two trajectory files, two task selections
    assert len(data.systems) == 2 and all(s.label.startswith("script [") for s in data.systems)
    assert all(len(s.rounds) == 1 for s in data.systems)  # never "rounds" of one system
    assert any("share this name" in w for w in data.warnings)


def test_the_same_directory_or_a_copy_is_refused(small: dict[str, Path], tmp_path: Path) -> None:
    from harness.report.data import ReportInputError, load_runs

    scope = _two_domains()
    with pytest.raises(ReportInputError, match="given twice"):
        load_runs([small["noop"], small["noop"]], **scope)
    copy = _copy(small["noop"], tmp_path / "noop_copy")
    with pytest.raises(ReportInputError, match="same trials"):
        load_runs([small["noop"], copy], **scope)
    # a second run of the same system (another start time) is a further round of it
    again = _copy(small["noop"], tmp_path / "noop_again", started_at="2099-01-01T00:00:00+00:00")
    [system] = load_runs([small["noop"], again], **scope).systems
    assert len(system.rounds) == 4 and system.rounds[-1].source == again


def test_mixed_catalogs_are_refused_or_marked(small: dict[str, Path], tmp_path: Path) -> None:
    from harness.report.data import ReportInputError, load_runs

    scope = _two_domains()
    other = _copy(small["noop"], tmp_path / "noop_v0", dataset_version="0.9.0", dataset_lock_sha256="f" * 64, started_at="2099-01-01")
    with pytest.raises(ReportInputError, match="different catalog versions"):
        load_runs([small["oracle"], other], **scope)
    report = build_report([small["oracle"], other], tmp_path / "out", allow_mixed=True, **scope)
    leaderboard = table(report, "leaderboard")
    marked = [r[1] for r in leaderboard.rows if "‡" in r[1]]
    assert marked == ["noop ‡"]
    md = (report.out / "tables" / "leaderboard.md").read_text()
    assert "MIXED" in md and "0.9.0 lock ffffffffffff" in md


def test_labels_name_and_group_runs_only_of_one_system(small: dict[str, Path], tmp_path: Path) -> None:
    from harness.report.data import ReportInputError, load_runs, parse_labels

    scope = _two_domains()
    again = _copy(small["noop"], tmp_path / "noop_again", started_at="2099-01-01T00:00:00+00:00")
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
    report = build_report([partial, small["noop"]], tmp_path / "out", **_two_domains())
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


def test_spearman_names_systems_with_fewer_rounds(report) -> None:  # type: ignore[no-untyped-def]
    [pair] = table(report, "spearman").rows
    assert pair[0] == "round 1 vs 2" and pair[1] == 2 and "script" in pair[3]
    assert any("Fewer rounds than 2: script (1)" in n for n in table(report, "multi_round").notes)
    stability = {r[0]: r for r in table(report, "rank_stability").rows}
    assert stability["script †"][2] == "-"


def test_failure_composition_has_non_convergence_and_bottom_slices(small: dict[str, Path], scripted: dict[str, Path], tmp_path: Path) -> None:
    from harness.report.tables import BOTTOM

    broken = tmp_path / "noop_infra"
    shutil.copytree(small["noop"], broken)
    path = sorted((broken / "trials" / "payments").glob("*__r0__*.json"))[0]
    record = json.loads(path.read_text())
    record.update(status="infra_error", strict=None, failure_class="infra:connection", verdict=None)
    path.write_text(json.dumps(record))
    report = build_report([broken, scripted["script"]], tmp_path / "out", **_two_domains())
    composition = table(report, "failure_composition")
    col = composition.columns.index
    noop = next(r for r in composition.rows if r[0] == "noop")
    assert noop[col(BOTTOM)] == 1 and noop[col("non-successes (scored)")] == len(_small_catalog()) - 1
    script = next(r for r in composition.rows if r[0].startswith("script"))
    assert script[col("non_convergence")] == 1 and script[col("reply")] == 0  # its own class, not a component's
    assert composition.rows[0][0].startswith("script")  # fewest non-successes first, as the spec


def test_provenance_in_every_table_file(report) -> None:  # type: ignore[no-untyped-def]
    csv_text = (report.out / "tables" / "per_domain.csv").read_text()
    assert csv_text.startswith("# generated ") and "# OFFLINE: " in csv_text
    payload = json.loads((report.out / "tables" / "multi_round.json").read_text())
    lines = " ".join(payload["provenance"])
    assert "catalog: " in lines and "lock " in lines and "git " in lines
    assert "oracle (offline stand-in: plays each task's gold path)" in lines
    assert "scripted (offline stand-in for the LLM user)" in lines and "evidence (offline stand-in for the LLM judge)" in lines
    assert "provenance" in (report.out / "tables" / "leaderboard.md").read_text()
    assert "## Provenance" in (report.out / "report.md").read_text()


def test_fig15_marker_numbers_follow_the_leaderboard_and_sit_at_the_data(report, runs: dict[str, Path], scripted: dict[str, Path]) -> None:  # type: ignore[no-untyped-def]
    import math

    from harness.report.data import load_runs
    from harness.report.figures import standings_figure
    from harness.report.tables import metric_values
    from models.prices import DEFAULT_PRICE_TABLE, PriceTable

    data = load_runs([runs["oracle"], runs["noop"], scripted["script"]])
    prices = PriceTable.load(DEFAULT_PRICE_TABLE)
    leaderboard = table(report, "leaderboard").rows
    by_number = {i: row[1].rstrip(" †‡") for i, row in enumerate(leaderboard, start=1)}
    metrics = metric_values(data, prices)
    fig = standings_figure(data, prices)
    checked = 0
    for ax, (metric, values) in zip(fig.axes, metrics.items(), strict=True):
        for annotation in [t for t in ax.texts if t.get_gid()]:
            number, label = int(annotation.get_text()), annotation.get_gid()
            assert by_number[number] == label, (metric, number, label)
            value = values[label]
            assert value is not None
            x = value if metric == "cost/success" else 100 * value
            assert math.isclose(annotation.xy[0], x)
            checked += 1
        drawn = {t.get_gid() for t in ax.texts if t.get_gid()}
        unmeasured = {label for label, v in values.items() if v is None}
        assert not drawn & unmeasured  # n/a is never drawn as a point (at 0 or anywhere)
        if unmeasured:
            text = next(t.get_text() for t in ax.texts if t.get_text().startswith("n/a: "))
            assert all(f"#{n}" in text for n, label in by_number.items() if label in unmeasured)
    assert checked >= 3
    import matplotlib.pyplot as plt

    plt.close(fig)


def test_compare_states_what_its_rates_are_over(small: dict[str, Path], scripted: dict[str, Path]) -> None:
    comparison = compare_runs(small["oracle"], scripted["script"])
    summary = comparison.tables()[0]
    measures = [r[0] for r in summary.rows]
    assert "strict A over the 1 common tasks" in measures and "strict A over all its scored tasks" in measures
    assert any("discordant of 1 paired tasks" in m for m in measures)


def test_explorer_filters_open_trials_and_links_in_headless_chromium(report) -> None:  # type: ignore[no-untyped-def]
    """The explorer in a real browser: every trial is indexed, filters narrow the index to the right
    counts, a row opens the trial (verdicts, conversation, tool calls, state diff), a link in the paired
    comparison table opens that trial, and the page reports no console error."""
    from harness.report.headless import Page, find_chromium

    browser = find_chromium()
    if browser is None:
        if os.environ.get("CRMBENCH_REQUIRE_CHROMIUM"):
            pytest.fail("chromium is required here (CRMBENCH_REQUIRE_CHROMIUM) but not installed")
        pytest.skip("chromium not installed")
    coverage = table(report, "coverage")
    expected_total = sum(r[coverage.columns.index("scored")] + r[coverage.columns.index("⊥ excluded")] for r in coverage.rows)
    n = len(load_catalog())

    def choose(name: str, value: str) -> None:
        page.evaluate(f"(function(){{var s=document.querySelector('#explorer-filters [name={name}]'); s.value={json.dumps(value)};"
                      "s.dispatchEvent(new Event('input',{bubbles:true}));})()")

    def count() -> int:
        return int(page.evaluate("document.getElementById('explorer-count').getAttribute('data-count')"))

    with Page(browser) as page:
        page.goto(report.html_path.resolve().as_uri())
        assert int(page.wait_for("document.getElementById('explorer').getAttribute('data-ready')")) == expected_total
        assert count() == expected_total
        choose("system", "noop")
        assert count() == 2 * n  # two rounds of every task
        choose("outcome", "pass")
        assert count() == 0  # noop never passes
        choose("system", "oracle")
        choose("round", "2")
        assert count() == n
        choose("outcome", "fail")
        choose("system", "")
        choose("round", "")
        choose("label", "non_convergence")
        assert count() == 1  # the script run's timeout
        page.evaluate("document.querySelector('#explorer-rows tr').click()")
        opened = page.wait_for("document.getElementById('trial').getAttribute('data-trial')")
        assert opened.endswith("-r1-commerce_returns_01")
        text = page.evaluate("document.getElementById('trial').innerText")
        for heading in ("Verdicts", "Diff against gold path", "first divergence", "Conversation", "Routing", "Tool calls", "Final-state diff", "non_convergence"):
            assert heading in text, heading
        assert "FAIL" in text and "reply" in text
        link = page.evaluate("document.querySelector('#neighbours a[data-trial]').getAttribute('data-trial')")
        page.evaluate("document.querySelector('#neighbours a[data-trial]').click()")
        page.wait_for(f"document.getElementById('trial').getAttribute('data-trial') === {json.dumps(link)}")
        assert "PASS" in page.evaluate("document.getElementById('trial').innerText") or "FAIL" in page.evaluate("document.getElementById('trial').innerText")
        assert page.evaluate("document.querySelectorAll('#explorer-data').length") == 1
        assert page.evaluate("Array.from(document.scripts).every(function (s) { return !s.src; })")  # one file, nothing fetched
        assert page.errors == []


def test_ungraded_trials_mark_the_system_incomplete(small: dict[str, Path], tmp_path: Path) -> None:
    judged = tmp_path / "noop_ungraded"
    shutil.copytree(small["noop"], judged)
    path = sorted((judged / "trials" / "payments").glob("*__r0__*.json"))[0]
    record = json.loads(path.read_text())
    record["ungraded"] = "judge failed after 3 retries"
    path.write_text(json.dumps(record))
    report = build_report([judged], tmp_path / "out", **_two_domains())
    [row] = table(report, "leaderboard").rows
    assert row[1] == "noop †"
    assert any("1 ungraded trial(s) counted as non-passes" in n for n in table(report, "leaderboard").notes)
    composition = table(report, "failure_composition")
    assert composition.rows[0][composition.columns.index("ungraded")] == 1


def test_a_demo_card_chooses_system_and_round(small: dict[str, Path], tmp_path: Path) -> None:
    task = sorted(_small_catalog())[0]
    report = build_report([small["oracle"], small["noop"]], tmp_path / "out", card_tasks=[f"{task}@noop#2", f"{task}@oracle"], **_two_domains())
    first, second = report.cards
    assert (first.system, first.record.key.round, first.record.agent) == ("noop", 1, "noop")
    assert (second.system, second.record.key.round) == ("oracle", 0)
    with pytest.raises(KeyError, match="no system named"):
        build_report([small["noop"]], tmp_path / "out2", card_tasks=[f"{task}@nobody"], **_two_domains())


def test_pass_k_table_every_k_and_common_k(report) -> None:  # type: ignore[no-untyped-def]
    pass_k = table(report, "pass_k")
    n = len(load_catalog())
    assert pass_k.columns[:4] == ["system", "rounds", "pass^1 (common)", "pass^2"]  # the script run has one round: common k = 1
    rows = {r[0]: r for r in pass_k.rows}
    assert rows["oracle"][2:4] == [f"100.00% ({n} tasks)", f"100.00% ({n} tasks)"]
    assert rows["noop"][3] == f"0.00% ({n} tasks)"
    assert rows["script †"][3] == "-"  # no second round: not at k = 2, never 0


def test_costs_are_per_role_and_never_zero_when_unmeasured(report) -> None:  # type: ignore[no-untyped-def]
    costs = table(report, "costs")
    row = next(r for r in costs.rows if r[0] == "oracle")
    assert row[costs.columns.index("total")] == "n/a"  # offline: no model call, so no cost was measured (not $0)
    leaderboard = table(report, "leaderboard")
    assert next(r for r in leaderboard.rows if r[1] == "oracle")[leaderboard.columns.index("full cost")] == "n/a"


def test_neighbours_say_the_smallest_detectable_gap(report) -> None:  # type: ignore[no-untyped-def]
    neighbours = table(report, "neighbours")
    col = neighbours.columns.index("smallest detectable gap (80% power)")
    oracle_noop = next(r for r in neighbours.rows if r[0] == "oracle")
    # every one of the N = 555 tasks discordant (psi = 1): N·d - 1 = 1.96·sqrt(N) + 0.84·sqrt(N(1 - d²)) gives d = 0.120
    # (each pair is ±1, so the paired test is no better than an unpaired one here); the observed gap (100 points) is larger
    assert oracle_noop[col] == "12.0 pp"
