"""`crmbench compare RUN_A RUN_B`: task-by-task differences between two runs, per component, with an
exact McNemar test on the paired strict outcomes (tasks scored in both runs)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from grader.stats import flips, mcnemar_exact, rate
from harness.report.data import System, load_runs
from harness.report.gate import GateResult, gate, pair_rounds
from harness.rundir import RunDirectory
from harness.report.tables import Table, ci, components_in, pct


@dataclass
class Comparison:
    a: str
    b: str
    common: int
    only_a: list[str]
    only_b: list[str]
    strict_a: float | None
    strict_b: float | None
    gained: list[str]
    lost: list[str]
    p_value: float
    passes_a: int = 0
    passes_b: int = 0
    passes_all_a: int = 0
    scored_a: int = 0
    passes_all_b: int = 0
    scored_b: int = 0
    components: dict[str, tuple[list[str], list[str]]] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    """Component → (tasks where it went fail→pass, pass→fail), over tasks where both graded it."""

    def tables(self) -> list[Table]:
        summary = Table(
            "compare_summary",
            f"Comparison: {self.a} (A) vs {self.b} (B), round 1 of each",
            ["measure", "value"],
            [
                ["tasks scored in both (the paired set)", self.common],
                [f"strict A over the {self.common} common tasks", f"{pct(self.strict_a)} {ci(self.passes_a, self.common)}"],
                [f"strict B over the {self.common} common tasks", f"{pct(self.strict_b)} {ci(self.passes_b, self.common)}"],
                ["strict A over all its scored tasks", f"{pct(rate(self.passes_all_a, self.scored_a))} ({self.passes_all_a}/{self.scored_a})"],
                ["strict B over all its scored tasks", f"{pct(rate(self.passes_all_b, self.scored_b))} ({self.passes_all_b}/{self.scored_b})"],
                ["fail->pass (A to B)", len(self.gained)],
                ["pass->fail (A to B)", len(self.lost)],
                [f"exact McNemar p (two-sided; {len(self.gained) + len(self.lost)} discordant of {self.common} paired tasks)", f"{self.p_value:.4g}"],
                ["only in A / only in B", f"{len(self.only_a)} / {len(self.only_b)}"],
            ],
            [
                f"Strict rates 'over the common tasks' and the paired test use only the {self.common} tasks scored in both runs' round 1; "
                "⊥ and missing trials are left out and counted in the last row.",
                "Exact McNemar: two-sided binomial test of the discordant pairs (fail->pass vs pass->fail) with p = 0.5. "
                "95% intervals are Wilson intervals over the common tasks.",
                *self.warnings,
            ],
        )
        per_component = Table(
            "compare_components",
            f"Per-component flips (of the {self.common} common tasks, those where both runs recorded the component)",
            ["component", "fail->pass", "pass->fail", "examples"],
            [[c, len(g), len(lost), ", ".join((g + lost)[:6])] for c, (g, lost) in self.components.items()],
        )
        tasks = Table(
            "compare_tasks",
            "Tasks whose strict outcome flipped",
            ["task", "A", "B"],
            [[t, "fail", "pass"] for t in self.gained] + [[t, "pass", "fail"] for t in self.lost],
        )
        return [summary, per_component, tasks]


def compare_runs(run_a: Path, run_b: Path) -> Comparison:
    a_data = load_runs([run_a], {run_a: f"A:{run_a.name}"})
    b_data = load_runs([run_b], {run_b: f"B:{run_b.name}"})
    a, b = a_data.systems[0].first, b_data.systems[0].first
    outcome_a = {t: a.outcome(t) for t in a.records}
    outcome_b = {t: b.outcome(t) for t in b.records}
    both = sorted(t for t in set(outcome_a) & set(outcome_b) if outcome_a[t] is not None and outcome_b[t] is not None)
    changed = flips(outcome_a, outcome_b)
    components: dict[str, tuple[list[str], list[str]]] = {}
    for component in components_in([a.records[t] for t in both] + [b.records[t] for t in both]):
        ca = {t: a.records[t].verdict.components.get(component) for t in both if a.records[t].verdict}
        cb = {t: b.records[t].verdict.components.get(component) for t in both if b.records[t].verdict}
        moved = flips(ca, cb)
        if moved["gained"] or moved["lost"] or any(v is not None for v in ca.values()):
            components[component] = (moved["gained"], moved["lost"])
    warnings = []
    ma, mb = a_data.systems[0].manifest, b_data.systems[0].manifest
    if ma.get("dataset_lock_sha256") != mb.get("dataset_lock_sha256"):
        warnings.append(f"WARNING: the runs used different catalogs ({ma.get('dataset_version')} lock {str(ma.get('dataset_lock_sha256'))[:12]} vs "
                        f"{mb.get('dataset_version')} lock {str(mb.get('dataset_lock_sha256'))[:12]}): a task id may not mean the same contract")
    return Comparison(
        warnings=warnings,
        a=a_data.systems[0].label,
        b=b_data.systems[0].label,
        common=len(both),
        only_a=sorted(set(outcome_a) - set(outcome_b)),
        only_b=sorted(set(outcome_b) - set(outcome_a)),
        strict_a=rate(sum(bool(outcome_a[t]) for t in both), len(both)),
        strict_b=rate(sum(bool(outcome_b[t]) for t in both), len(both)),
        gained=changed["gained"],
        lost=changed["lost"],
        p_value=mcnemar_exact(len(changed["gained"]), len(changed["lost"])),
        passes_a=sum(bool(outcome_a[t]) for t in both),
        passes_b=sum(bool(outcome_b[t]) for t in both),
        passes_all_a=sum(bool(v) for v in outcome_a.values() if v is not None),
        scored_a=sum(v is not None for v in outcome_a.values()),
        passes_all_b=sum(bool(v) for v in outcome_b.values() if v is not None),
        scored_b=sum(v is not None for v in outcome_b.values()),
        components=components,
    )


def gate_runs(run_a: Path, run_b: Path, *, alpha: float = 0.05, max_drop: float = 0.02) -> tuple[GateResult, str, str]:
    """The regression gate (harness.report.gate) over every round both runs hold: round r of A against
    round r of B, ⊥ or missing on either side dropped on both; each pair keeps the paths of its records."""
    a_data = load_runs([run_a], {run_a: f"A:{run_a.name}"})
    b_data = load_runs([run_b], {run_b: f"B:{run_b.name}"})
    a, b = a_data.systems[0], b_data.systems[0]
    domains = {t: r.domain for s in (a, b) for rnd in s.rounds for t, r in rnd.records.items()}

    def outcomes(system: System) -> list[dict[str, bool | None]]:
        return [{t: rnd.outcome(t) for t in rnd.records} for rnd in system.rounds]

    def paths(system: System) -> list[dict[str, Path]]:
        return [{t: RunDirectory(rnd.source).trial_path(r.domain, r.key) for t, r in rnd.records.items()} for rnd in system.rounds]

    pairs, dropped = pair_rounds(outcomes(a), outcomes(b), domains, (paths(a), paths(b)))
    dropped += sum(len(r.records) for r in (a.rounds if len(a.rounds) > len(b.rounds) else b.rounds)[min(len(a.rounds), len(b.rounds)):])
    return gate(pairs, alpha=alpha, max_drop=max_drop, dropped=dropped), a.label, b.label
