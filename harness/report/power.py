"""`crmbench plan --baseline RUN`: how many rounds (or tasks) a paired comparison against this run needs
to detect a given drop in strict success, before anybody pays for the runs.

The model, from the baseline's own rounds (grader.stats.proportional_drop_pairs): each task succeeds
with its own probability p (c of its n scored rounds) and varies from round to round with its own
variance (unbiased c(n - c)/(n(n - 1))); the candidate is worse by `delta` on average, each task's p
scaled by the same factor. The test is the regression gate's overall test (`crmbench compare --gate`):
one-sided exact McNemar on (task, round) pairs at alpha/2. Its power is a continuity-corrected normal
approximation, checked against a seeded simulation of the exact test (tests/test_gate.py).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

from grader.stats import paired_power, pairs_needed, proportional_drop_pairs, task_success_counts
from harness.report.data import ReportInputError, load_runs

ROUNDS_SHOWN = (1, 2, 3, 4, 5, 8, 10)
APPROXIMATION = "not a simulation; tests/test_gate.py holds it within 6 points of a seeded simulation of the exact test"
"""What the printed power is, said in the output: the user reads a figure of a model, not of the gate."""
MAX_ROUNDS = 1000


@dataclass
class PowerPlan:
    baseline: str
    tasks: int
    rounds: int
    strict: float
    flaky: int
    """Tasks that both passed and failed across the baseline's rounds."""
    delta: float
    alpha: float
    power: float
    power_by_rounds: list[tuple[int, float]]
    rounds_needed: int | None
    pairs_needed: int | None
    tasks_needed: list[tuple[int, int | None]]
    excluded: int = 0
    """Tasks with no scored round in the baseline (all ⊥): left out."""
    expected_discordance: float | None = None
    """Share of tasks the model expects to flip between two rounds of the baseline itself: mean of 2·p(1 - p)."""
    observed_discordance: float | None = None
    """Share of tasks that did flip between consecutive rounds of the baseline (scored in both)."""
    warnings: list[str] = field(default_factory=list)

    def render(self) -> str:
        lines = [
            f"### Plan: detecting a {100 * self.delta:g}-point drop against {self.baseline}",
            "",
            f"baseline: {self.tasks} tasks with a scored round, {self.rounds} round(s), mean per-task success {100 * self.strict:.2f}%, "
            f"{self.flaky} task(s) both passed and failed across rounds" + (f"; {self.excluded} task(s) never scored, left out" if self.excluded else ""),
            *([f"round-to-round flips: {100 * self.observed_discordance:.1f}% of tasks between consecutive rounds; the model expects "
               f"{100 * (self.expected_discordance or 0):.1f}%"] if self.observed_discordance is not None else []),
            f"test: the regression gate's overall test (one-sided exact McNemar on paired (task, round) trials at alpha/2 = {self.alpha / 2:g}); "
            f"target power {100 * self.power:g}%; power by a continuity-corrected normal approximation of that exact test ({APPROXIMATION})",
            "",
        ]
        if self.rounds_needed is None:
            lines.append(f"**not detectable** with up to {MAX_ROUNDS} rounds of these tasks")
        else:
            lines.append(f"**rounds needed: {self.rounds_needed}** of each of the {self.tasks} tasks, on both systems: "
                         f"{self.rounds_needed} × {self.tasks} = {self.rounds_needed * self.tasks} paired trials "
                         f"(the power is reached at {self.pairs_needed}; whole rounds round it up)")
        lines += ["", "| rounds (both systems) | paired trials | power |", "|---|---|---|"]
        lines += [f"| {r} | {r * self.tasks} | {100 * p:.1f}% |" for r, p in self.power_by_rounds]
        lines += ["", "| rounds | tasks needed (drawn like these) |", "|---|---|"]
        lines += [f"| {r} | {'n/a' if t is None else t} |" for r, t in self.tasks_needed]
        lines += ["", "_Model: each task keeps its own success probability and round-to-round variance from the baseline; the candidate is "
                      f"{100 * self.delta:g} points worse on average, every task's probability scaled by the same factor. "
                      "More tasks help only if they are like these._"]
        lines += [f"**WARNING: {w}**" for w in self.warnings]
        return "\n".join(lines) + "\n"


def plan_from_counts(name: str, counts: list[tuple[int, int]], rounds: int, *, delta: float, alpha: float, power: float) -> PowerPlan:
    """The plan for a baseline given as per-task (successes, scored rounds)."""
    if not 0 < delta < 1:
        raise ValueError(f"--delta must be in (0, 1), got {delta}")
    if not 0 < alpha < 1:
        raise ValueError(f"--alpha must be in (0, 1), got {alpha}")
    if not 0 < power < 1:
        raise ValueError(f"--power must be in (0, 1), got {power}")
    scored = [(c, n) for c, n in counts if n > 0]
    if not scored:
        raise ValueError(f"{name}: no task was scored in any round; nothing to plan from")
    strict = math.fsum(c / n for c, n in scored) / len(scored)
    if delta >= strict:
        raise ValueError(f"--delta {delta:g} is not smaller than the baseline's mean success {strict:.4f}: no drop that large is possible")
    pairs = proportional_drop_pairs(scored, delta)
    level = alpha / 2
    needed = pairs_needed(pairs, level, power)
    rounds_needed = None if needed is None else math.ceil(needed / len(scored))
    if rounds_needed is not None and rounds_needed > MAX_ROUNDS:
        rounds_needed = None
    shown = sorted(set(ROUNDS_SHOWN) | ({rounds_needed} if rounds_needed else set()))
    warnings = []
    if rounds < 2:
        warnings.append("the baseline has one round: no task's round-to-round variance can be seen, so every task is taken as steady and "
                        "the plan is optimistic; run the baseline with --rounds 3 or more and plan again")
    return PowerPlan(
        baseline=name,
        tasks=len(scored),
        rounds=rounds,
        strict=strict,
        flaky=sum(0 < c < n for c, n in scored),
        delta=delta,
        alpha=alpha,
        power=power,
        power_by_rounds=[(r, paired_power(pairs, r, level)) for r in shown],
        rounds_needed=rounds_needed,
        pairs_needed=needed,
        tasks_needed=[(r, None if needed is None else math.ceil(needed / r)) for r in (1, 2, 3, 5)],
        excluded=len(counts) - len(scored),
        warnings=warnings,
        expected_discordance=math.fsum(2 * c * (n - c) / (n * (n - 1)) if n >= 2 else 0.0 for c, n in scored) / len(scored),
    )


def plan_from_run(baseline: Path | list[Path], *, delta: float = 0.05, alpha: float = 0.05, power: float = 0.8) -> PowerPlan:
    """From one run directory, or several of one system (each adds its rounds)."""
    paths = [baseline] if isinstance(baseline, Path) else list(baseline)
    data = load_runs(paths)
    if len(data.systems) != 1:
        raise ReportInputError(f"--baseline: the runs are {len(data.systems)} systems ({', '.join(s.label for s in data.systems)}), not one; "
                               "plan against one system's runs")
    [system] = data.systems
    baseline = paths[0] if len(paths) == 1 else Path(", ".join(str(p) for p in paths))
    tasks = sorted({t for r in system.rounds for t in r.records})
    outcomes = {t: [r.outcome(t) for r in system.rounds] for t in tasks}
    counts = list(task_success_counts(outcomes).values())
    plan = plan_from_counts(f"{system.label} ({baseline})", counts, len(system.rounds), delta=delta, alpha=alpha, power=power)
    both = [(a, b) for rounds in outcomes.values() for a, b in zip(rounds, rounds[1:]) if a is not None and b is not None]
    plan.observed_discordance = sum(a != b for a, b in both) / len(both) if both else None
    return plan
