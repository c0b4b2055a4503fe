"""`crmbench compare A B --gate`: a paired regression gate for CI.

B fails the gate when it is *significantly* worse than A on the trials both scored, overall or in a
domain, and the drop is larger than the tolerated `--max-drop`:

- pairs are (task, round): round r of A against round r of B, for every round both runs hold; a pair
  where either side is ⊥ (or missing) is dropped on both sides. Conditional on the tasks, the rounds
  are independent trials, so under "B is no worse" each discordant pair is a fair coin and the exact
  McNemar test is valid on these pairs; more rounds give more pairs and more power (`crmbench plan`).
- overall: one-sided exact McNemar ("B worse") at alpha/2; per domain: the same test, Holm-adjusted
  over the domains, at alpha/2. The two halves keep the gate's false-alarm rate at most alpha in total
  (Bonferroni over the two families), whatever the number of domains.
- a test fails only when, in addition, B's strict rate over its pairs is more than `max_drop` below
  A's: a significant but negligible drop does not break a build.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from grader.stats import holm, mcnemar_one_sided, rate

OVERALL = "all domains"


@dataclass(frozen=True)
class Pair:
    """One paired trial: a task in one round, scored in both runs."""

    task_id: str
    round: int
    """0-based round index."""
    domain: str
    a: bool
    b: bool
    path_a: Path | None = None
    path_b: Path | None = None


@dataclass
class GateTest:
    scope: str
    pairs: int
    passes_a: int
    passes_b: int
    lost: int
    gained: int
    p_value: float
    adjusted: float
    level: float
    failed: bool = False

    @property
    def drop(self) -> float | None:
        """A's strict rate minus B's over the pairs (positive: B is worse)."""
        ra, rb = rate(self.passes_a, self.pairs), rate(self.passes_b, self.pairs)
        return None if ra is None or rb is None else ra - rb


@dataclass
class GateResult:
    alpha: float
    max_drop: float
    overall: GateTest
    domains: list[GateTest]
    flipped: list[Pair] = field(default_factory=list)
    dropped: int = 0
    """(task, round) trials left out because one side is ⊥ or missing."""

    @property
    def failed(self) -> bool:
        return self.overall.failed or any(t.failed for t in self.domains)


def _test(scope: str, pairs: Sequence[Pair], level: float) -> GateTest:
    lost = sum(p.a and not p.b for p in pairs)
    gained = sum(p.b and not p.a for p in pairs)
    p_value = mcnemar_one_sided(lost, gained)
    return GateTest(scope, len(pairs), sum(p.a for p in pairs), sum(p.b for p in pairs), lost, gained, p_value, p_value, level)


def pair_rounds(
    a_rounds: Sequence[Mapping[str, bool | None]],
    b_rounds: Sequence[Mapping[str, bool | None]],
    domains: Mapping[str, str],
    paths: tuple[Sequence[Mapping[str, Path]], Sequence[Mapping[str, Path]]] | None = None,
) -> tuple[list[Pair], int]:
    """Pairs of round r of A with round r of B over the rounds both hold; (pairs, trials dropped because
    one side is ⊥ or has no trial of that task)."""
    pairs: list[Pair] = []
    dropped = 0
    for r in range(min(len(a_rounds), len(b_rounds))):
        a, b = a_rounds[r], b_rounds[r]
        for task in sorted(set(a) | set(b)):
            va, vb = a.get(task), b.get(task)
            if va is None or vb is None:
                dropped += 1
                continue
            pa = paths[0][r].get(task) if paths else None
            pb = paths[1][r].get(task) if paths else None
            pairs.append(Pair(task, r, domains.get(task, "?"), va, vb, pa, pb))
    return pairs, dropped


def gate(pairs: Sequence[Pair], *, alpha: float = 0.05, max_drop: float = 0.02, dropped: int = 0) -> GateResult:
    """Apply the gate to paired trials (see the module docstring)."""
    if not 0 < alpha < 1:
        raise ValueError(f"--alpha must be in (0, 1), got {alpha}")
    if not 0 <= max_drop < 1:
        raise ValueError(f"--max-drop must be in [0, 1), got {max_drop}")
    half = alpha / 2
    overall = _test(OVERALL, pairs, half)
    by_domain: dict[str, list[Pair]] = {}
    for p in pairs:
        by_domain.setdefault(p.domain, []).append(p)
    domains = [_test(d, items, half) for d, items in sorted(by_domain.items())]
    adjusted = holm({t.scope: t.p_value for t in domains})
    for t in domains:
        t.adjusted = adjusted[t.scope]
    for t in [overall, *domains]:
        drop = t.drop
        t.failed = t.adjusted < t.level and drop is not None and drop > max_drop
    flipped = sorted((p for p in pairs if p.a != p.b), key=lambda p: (p.b, p.domain, p.task_id, p.round))
    return GateResult(alpha=alpha, max_drop=max_drop, overall=overall, domains=domains, flipped=flipped, dropped=dropped)


def render(result: GateResult, name_a: str, name_b: str, run_a: Path | None = None, run_b: Path | None = None, limit: int = 60) -> str:
    """The gate's verdict as Markdown: the tests, then the flipped trials (pass->fail first) with paths."""

    def pct(v: float | None) -> str:
        return "n/a" if v is None else f"{100 * v:.2f}%"

    verdict = "FAIL" if result.failed else "pass"
    lines = [
        f"### Regression gate: {verdict} (B = {name_b} against A = {name_a})",
        "",
        f"B fails when it is significantly worse (one-sided exact McNemar on paired (task, round) trials; overall at alpha/2 = "
        f"{result.alpha / 2:g}, domains Holm-adjusted at alpha/2) and its strict rate is more than {100 * result.max_drop:g} points below A's.",
        f"{result.overall.pairs} paired trials; {result.dropped} left out (⊥ or missing on either side).",
        "",
        "| scope | pairs | strict A | strict B | drop | pass->fail | fail->pass | p (one-sided) | p adjusted | verdict |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for t in [result.overall, *result.domains]:
        drop = t.drop
        lines.append(
            f"| {t.scope} | {t.pairs} | {pct(rate(t.passes_a, t.pairs))} | {pct(rate(t.passes_b, t.pairs))} | "
            f"{'n/a' if drop is None else f'{100 * drop:+.2f} pp'} | {t.lost} | {t.gained} | {t.p_value:.4g} | {t.adjusted:.4g} | "
            f"{'FAIL' if t.failed else 'ok'} |"
        )
    lost = [p for p in result.flipped if p.a and not p.b]
    gained = [p for p in result.flipped if p.b and not p.a]
    lines += ["", f"Flipped trials: {len(lost)} pass->fail, {len(gained)} fail->pass" + (f" (first {limit} listed)" if len(result.flipped) > limit else "")]
    for p in result.flipped[:limit]:
        arrow = "pass->fail" if p.a else "fail->pass"
        lines.append(f"- {arrow} {p.task_id} round {p.round + 1} ({p.domain}): A {p.path_a or '?'} | B {p.path_b or '?'}")
    if lost:
        first = lost[0]
        lines += ["", f"see what changed: crmbench diff {run_a or 'RUN_A'} {run_b or 'RUN_B'} --task {first.task_id} --round {first.round + 1}"]
    return "\n".join(lines) + "\n"
