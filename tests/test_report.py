"""Reports from real run directories: every section renders, values follow the spec's definitions, the
HTML opens in headless Chromium with its figures, and two runs compare task by task."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from contracts.catalog import load_catalog
from harness.report.build import build_report
from harness.report.compare import compare_runs
from tests.report_runs import run_dir, scripted, table  # noqa: F401 - scripted: a fixture


# Two sizes of input. The report over the whole catalog (`runs`, `report`) is what the tables, figures,
# explorer and McNemar tests read. The tests about run identity, partial and mixed runs, copies, ungraded
# and infra trials edit copies of runs and rebuild the report; what they check does not depend on the
# catalog's size, so they use runs of two domains reported against those two domains (`SMALL_DOMAINS`, passed as
# the report's catalog as scripts/report_fixture.py does), instead of copying and re-reading ~2,200
# trials per test: they are in tests/test_report_systems.py, so that xdist runs them on another core
# while this file builds its full-catalog runs.
pytestmark = pytest.mark.slow  # ~1 min of fixtures: started first under xdist (tests/conftest.py)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("runs")
    return {
        "oracle": run_dir(root / "oracle", rounds=2, offline=True),
        "noop": run_dir(root / "noop", agent="noop", rounds=2, offline=True),
    }


@pytest.fixture(scope="module")
def report(runs: dict[str, Path], scripted: dict[str, Path], tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    out = tmp_path_factory.mktemp("report")
    return build_report([runs["oracle"], runs["noop"], scripted["script"]], out)


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


def test_spearman_names_systems_with_fewer_rounds(report) -> None:  # type: ignore[no-untyped-def]
    [pair] = table(report, "spearman").rows
    assert pair[0] == "round 1 vs 2" and pair[1] == 2 and "script" in pair[3]
    assert any("Fewer rounds than 2: script (1)" in n for n in table(report, "multi_round").notes)
    stability = {r[0]: r for r in table(report, "rank_stability").rows}
    assert stability["script †"][2] == "-"


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
