"""Report statistics, following the paper's reporting rules exactly.

Pure functions over plain Python values, standard library only: the reports must be reproducible
from the stored verdicts without a numerical stack, and every figure here is small enough
(hundreds of tasks, a handful of rounds and systems) that exactness matters more than speed.
Where the stdlib offers an exact route (integer binomial sums, ``statistics.stdev``) it is used,
so that figures recomputed from counts agree with the paper to the last printed digit.

Conventions shared by every function:

* An *outcome* is ``True`` (strict pass), ``False`` (strict fail) or ``None`` (not scored, e.g. an
  infrastructure failure ⊥). ``None`` is never counted as a failure: an unscored task is removed
  from the denominator, not added to the failures.
* A rate with an empty denominator is ``None`` (shown as "n/a"), never 0, because 0 would claim
  the system failed everything when it was in fact never measured.
* Invalid input (negative counts, more passes than trials, mismatched lengths) raises
  ``ValueError`` rather than producing a plausible-looking number.
"""

from __future__ import annotations

import math
import statistics
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

__all__ = [
    "PassKPoint",
    "average_ranks",
    "holm",
    "mcnemar_one_sided",
    "minimum_detectable_gap",
    "pass_hat_k_curve",
    "pass_hat_k_unbiased",
    "paired_power",
    "pairs_needed",
    "proportional_drop_pairs",
    "task_success_counts",
    "competition_ranks",
    "flips",
    "mcnemar_exact",
    "mean_and_sample_std",
    "pass_hat_k",
    "rate",
    "spearman",
    "tie_groups",
    "wilson_interval",
]


def _check_count(name: str, value: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, got {type(value).__name__}")
    if value < 0:
        raise ValueError(f"{name} must be >= 0, got {value}")


def _check_finite(name: str, value: float) -> None:
    if math.isnan(value):
        raise ValueError(f"{name} is NaN; NaN has no order, so it cannot be ranked or averaged")


def rate(passes: int, scored: int) -> float | None:
    """Fraction of scored tasks that passed, or ``None`` when nothing was scored.

    ``None`` rather than 0.0 because a system with no scored tasks was not measured; reporting 0
    would be indistinguishable from "failed everything" and would drag averages down.
    """
    _check_count("passes", passes)
    _check_count("scored", scored)
    if passes > scored:
        raise ValueError(f"passes ({passes}) cannot exceed scored ({scored})")
    if scored == 0:
        return None
    return passes / scored


def mean_and_sample_std(values: Sequence[float]) -> tuple[float, float | None]:
    """Equal-weight mean and *sample* standard deviation (denominator n - 1).

    The rounds are a small sample of the run-to-run variability of a system, not the whole
    population of possible runs, so the unbiased-variance (Bessel-corrected) estimator is the
    honest one; with three rounds the population formula would understate the spread by a factor
    of sqrt(2/3). With fewer than two values there is no spread to estimate, so std is ``None``.

    Each value gets equal weight (a round's rate counts once regardless of how many tasks it
    scored), which is the paper's "mean of round rates" rule.
    """
    if len(values) == 0:
        raise ValueError("mean_and_sample_std needs at least one value")
    floats = [float(v) for v in values]
    for v in floats:
        _check_finite("value", v)
    mean = statistics.fmean(floats)
    std = statistics.stdev(floats) if len(floats) >= 2 else None
    return mean, std


def competition_ranks(
    scores: Mapping[str, float | None], *, higher_is_better: bool = True
) -> dict[str, int | None]:
    """Standard competition ranking ("1224").

    A system's rank is 1 + the number of systems strictly better than it, so tied systems share a
    rank and the next rank skips by the size of the tie: no system is shown ahead of an equal one,
    and rank k still means "k - 1 systems did strictly better". Systems with a ``None`` score were
    not measured: they get rank ``None`` and do not occupy a rank for anybody else.

    Equality is exact (``==``); if ties are meant at the displayed precision, round the scores to
    that precision before calling.
    """
    present: list[float] = []
    for key, value in scores.items():
        if value is not None:
            _check_finite(f"score of {key!r}", value)
            present.append(value)
    ranks: dict[str, int | None] = {}
    for key, value in scores.items():
        if value is None:
            ranks[key] = None
        elif higher_is_better:
            ranks[key] = 1 + sum(1 for other in present if other > value)
        else:
            ranks[key] = 1 + sum(1 for other in present if other < value)
    return ranks


def tie_groups(scores: Mapping[str, float | int]) -> dict[str, bool]:
    """Mark every key whose value is shared with at least one other key.

    Used to print "=" next to tied ranks, so a reader does not mistake table order for a
    difference. Equality is exact (``==``), as in :func:`competition_ranks`.
    """
    counts = Counter(scores.values())
    return {key: counts[value] > 1 for key, value in scores.items()}


def average_ranks(values: Sequence[float]) -> list[float]:
    """Fractional ranks 1..n in ascending order; tied values get the mean of the ranks they span.

    Average (fractional) ranks keep the sum of ranks equal to n(n + 1)/2 whatever the ties, so a
    correlation computed on them treats tied items symmetrically instead of arbitrarily ordering
    them by input position, which would bias the Spearman coefficient.
    """
    for v in values:
        _check_finite("value", v)
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    start = 0
    while start < len(order):
        end = start
        while end + 1 < len(order) and values[order[end + 1]] == values[order[start]]:
            end += 1
        # positions start..end (0-based) hold ranks start+1..end+1; their mean:
        shared = (start + end + 2) / 2
        for pos in range(start, end + 1):
            ranks[order[pos]] = shared
        start = end + 1
    return ranks


def spearman(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Spearman rank correlation, computed as the Pearson correlation of the average ranks.

    The textbook shortcut 1 - 6 Σd² / (n(n² - 1)) is only exact without ties; the Pearson form on
    average ranks is correct with ties, and ties are common when rates come from a few hundred
    tasks. ``None`` when n < 2 or either side is constant, because the correlation is then
    undefined (zero variance), not zero.
    """
    if len(x) != len(y):
        raise ValueError(f"spearman needs equal lengths, got {len(x)} and {len(y)}")
    n = len(x)
    if n < 2:
        return None
    rx = average_ranks(x)
    ry = average_ranks(y)
    mean = (n + 1) / 2  # average ranks always sum to n(n + 1)/2
    dx = [r - mean for r in rx]
    dy = [r - mean for r in ry]
    sxx = math.fsum(d * d for d in dx)
    syy = math.fsum(d * d for d in dy)
    if sxx == 0 or syy == 0:
        return None
    sxy = math.fsum(a * b for a, b in zip(dx, dy, strict=True))
    rho = sxy / math.sqrt(sxx * syy)
    return max(-1.0, min(1.0, rho))  # guard against 1.0000000000000002


def pass_hat_k(outcomes: Mapping[str, Sequence[bool | None]]) -> tuple[int, int, float | None]:
    """pass^k: the fraction of tasks that succeed in *every* one of k rounds (tau-bench convention).

    Only tasks scored in all k rounds count, because a task with an unscored round has no verdict
    on "all k succeed": counting it as a failure would penalise infrastructure, dropping only the
    unscored round would turn it into a pass^(k-1). Returns ``(all_pass, scored_in_all, rate)``
    with ``rate`` ``None`` when no task was scored in all rounds.

    Every task must list the same number of rounds (k >= 1); a task missing from a round should be
    given ``None`` for that round explicitly, so a short list is rejected instead of guessed at.
    """
    lengths = {len(rounds) for rounds in outcomes.values()}
    if len(lengths) > 1:
        raise ValueError(f"every task needs the same number of rounds, got lengths {sorted(lengths)}")
    if lengths == {0}:
        raise ValueError("pass^k needs at least one round per task")
    all_pass = 0
    scored = 0
    for rounds in outcomes.values():
        if any(outcome is None for outcome in rounds):
            continue
        scored += 1
        if all(rounds):
            all_pass += 1
    return all_pass, scored, rate(all_pass, scored)


def flips(a: Mapping[str, bool | None], b: Mapping[str, bool | None]) -> dict[str, list[str]]:
    """Tasks whose strict outcome changed between two rounds or runs ``a`` -> ``b``.

    Only tasks scored (not ``None``) in both are compared, since a change to or from "unscored"
    is an infrastructure event, not a change in the agent's behaviour; tasks present in only one
    mapping are likewise skipped. Returns ``{"gained": fail->pass ids, "lost": pass->fail ids}``,
    each sorted so reports are deterministic. The two counts are McNemar's discordant pairs.
    """
    gained: list[str] = []
    lost: list[str] = []
    for task_id, before in a.items():
        after = b.get(task_id)
        if before is None or after is None:
            continue
        if not before and after:
            gained.append(task_id)
        elif before and not after:
            lost.append(task_id)
    return {"gained": sorted(gained), "lost": sorted(lost)}


def mcnemar_exact(gained: int, lost: int) -> float:
    """Two-sided exact McNemar test: a binomial test of the discordant pairs with p = 0.5.

    p = min(1, 2 · Σ_{i=0}^{min(g, l)} C(n, i) / 2^n), n = g + l; p = 1.0 when n = 0.

    The exact test rather than the chi-square approximation because the number of discordant
    pairs between two rounds is small (tens), where the approximation is poor. Only the
    discordant pairs carry information about a difference between the two rounds; tasks that
    agree are the same evidence for both. The sum is done in integers so the result is exact up
    to the final division.
    """
    _check_count("gained", gained)
    _check_count("lost", lost)
    n = gained + lost
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, i) for i in range(min(gained, lost) + 1))
    return min(1.0, 2 * tail / 2**n)


def wilson_interval(passes: int, n: int, z: float = 1.96) -> tuple[float, float] | None:
    """Wilson score interval for a binomial proportion; ``None`` when n == 0.

    Wilson rather than the normal-approximation (Wald) interval because pass rates near 0 or 1
    are common and Wald then collapses to zero width or leaves [0, 1]; Wilson stays inside
    [0, 1] and keeps close to nominal coverage for the sample sizes used here.
    """
    _check_count("passes", passes)
    _check_count("n", n)
    if passes > n:
        raise ValueError(f"passes ({passes}) cannot exceed n ({n})")
    if not (z > 0 and math.isfinite(z)):
        raise ValueError(f"z must be a positive finite number, got {z}")
    if n == 0:
        return None
    p = passes / n
    z2 = z * z
    denom = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


# --- pass^k at every k (unbiased) ------------------------------------------------------------


def pass_hat_k_unbiased(successes: int, n: int, k: int) -> float | None:
    """Unbiased estimate of one task's pass^k from ``successes`` of ``n`` scored rounds: C(c, k) / C(n, k).

    It is the probability that k rounds drawn without replacement from the n observed ones all
    succeed, whose expectation is p^k for a task that succeeds with probability p in each round
    (Chen et al. 2021's pass@k estimator, turned around for "all k succeed"). ``None`` when
    n < k: fewer scored rounds than k say nothing about k rounds in a row. Integer arithmetic
    up to the final division, so hand examples are matched exactly.
    """
    _check_count("successes", successes)
    _check_count("n", n)
    _check_count("k", k)
    if successes > n:
        raise ValueError(f"successes ({successes}) cannot exceed n ({n})")
    if k == 0:
        raise ValueError("k must be >= 1")
    if n < k:
        return None
    return math.comb(successes, k) / math.comb(n, k)


@dataclass(frozen=True)
class PassKPoint:
    """pass^k at one k: the mean of the per-task unbiased estimates over the tasks with n >= k."""

    k: int
    value: float | None
    tasks: int
    """Tasks that count at this k (at least k scored rounds)."""
    excluded: int
    """Tasks left out at this k: fewer than k scored rounds (⊥ rounds lower a task's n)."""


def task_success_counts(outcomes: Mapping[str, Sequence[bool | None]]) -> dict[str, tuple[int, int]]:
    """Task → (successes, scored rounds). A ⊥ round (``None``) lowers n; it is not a failure."""
    return {task: (sum(o is True for o in rounds), sum(o is not None for o in rounds)) for task, rounds in outcomes.items()}


def pass_hat_k_curve(outcomes: Mapping[str, Sequence[bool | None]], max_k: int | None = None) -> list[PassKPoint]:
    """pass^k for k = 1..max_k (default: the most rounds any task has), each k over the tasks with at
    least k *scored* rounds.

    Unlike :func:`pass_hat_k`, a task with a ⊥ round is not removed: its n is the number of rounds
    that were scored, so an outage that clusters on hard tasks does not inflate pass^k by removing
    them. Tasks may list different numbers of rounds (a system run in pieces). A task with n < k is
    excluded at that k and counted in ``excluded``; ``value`` is ``None`` when no task has k rounds.
    """
    counts = task_success_counts(outcomes)
    longest = max((len(r) for r in outcomes.values()), default=0)
    top = longest if max_k is None else max_k
    _check_count("max_k", top)
    points = []
    for k in range(1, top + 1):
        estimates = [e for c, n in counts.values() if (e := pass_hat_k_unbiased(c, n, k)) is not None]
        value = math.fsum(estimates) / len(estimates) if estimates else None
        points.append(PassKPoint(k=k, value=value, tasks=len(estimates), excluded=len(counts) - len(estimates)))
    return points


# --- paired tests ----------------------------------------------------------------------------


def mcnemar_one_sided(lost: int, gained: int) -> float:
    """One-sided exact McNemar: P(X >= lost) for X ~ Binomial(lost + gained, 1/2).

    The p-value of "B is worse than A" from the discordant pairs (``lost`` = A passed, B failed;
    ``gained`` = the reverse). A regression gate asks a one-directional question, so the one-sided
    tail is the exact test of it; 1.0 when there is no discordant pair.
    """
    _check_count("lost", lost)
    _check_count("gained", gained)
    n = lost + gained
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, i) for i in range(lost, n + 1))
    return min(1.0, tail / 2**n)


def holm(p_values: Mapping[str, float]) -> dict[str, float]:
    """Holm-Bonferroni adjusted p-values (step-down, monotone, capped at 1).

    Controls the family-wise error rate over the family (e.g. one test per domain) without the
    independence assumptions of Hochberg or Benjamini-Hochberg: rejecting where the adjusted p is
    below alpha keeps P(any false alarm) <= alpha.
    """
    for key, p in p_values.items():
        _check_finite(f"p-value of {key!r}", p)
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"p-value of {key!r} must be in [0, 1], got {p}")
    order = sorted(p_values, key=lambda key: (p_values[key], key))
    m = len(order)
    adjusted: dict[str, float] = {}
    running = 0.0
    for i, key in enumerate(order):
        running = max(running, min(1.0, (m - i) * p_values[key]))
        adjusted[key] = running
    return adjusted


# --- power and sample size -------------------------------------------------------------------

_NORMAL = statistics.NormalDist()


def proportional_drop_pairs(counts: Sequence[tuple[int, int]], delta: float) -> list[tuple[float, float]]:
    """Per task, the probabilities (a, b) that one paired round is lost (A passes, B fails) or gained
    (A fails, B passes) when B's success probability on every task is A's scaled by the same factor
    λ = 1 - delta / mean(p), so that B is ``delta`` worse on average.

    From the baseline's own rounds: p = c / n, and the task's round-to-round variance p(1 - p) by its
    unbiased estimate c(n - c) / (n(n - 1)) (0 with one round: no spread can be seen). Then, for
    independent rounds, a = p(1 - λp) = (1 - λ)p + λ·p(1 - p) and b = (1 - p)λp = λ·p(1 - p): the
    discordance of a flaky task comes from its variance, that of a steady one only from the drop.
    ``delta = 0`` gives the null (a = b = the round-to-round flip rate of the task, halved).
    """
    scored = [(c, n) for c, n in counts if n > 0]
    if not scored:
        raise ValueError("no task has a scored round to estimate success probabilities from")
    p = [c / n for c, n in scored]
    mean = math.fsum(p) / len(p)
    if not (0.0 <= delta < mean or delta == 0):
        raise ValueError(f"a drop of {delta:g} is not possible from a mean success rate of {mean:.4f}")
    lam = 1.0 - delta / mean if mean > 0 else 1.0
    pairs = []
    for (c, n), pi in zip(scored, p, strict=True):
        variance = c * (n - c) / (n * (n - 1)) if n >= 2 else 0.0
        pairs.append(((1 - lam) * pi + lam * variance, lam * variance))
    return pairs


def _power(drift: float, discordant: float, variance: float, alpha: float) -> float:
    z = _NORMAL.inv_cdf(1 - alpha)
    if variance <= 0:
        return 1.0 if drift - 1 > z * math.sqrt(discordant) else 0.0
    return _NORMAL.cdf((drift - 1 - z * math.sqrt(discordant)) / math.sqrt(variance))


def _moments(pairs: Sequence[tuple[float, float]]) -> tuple[float, float, float]:
    """Per task: mean of a - b, of a + b, and of a + b - (a - b)² (the variance of one pair's L - G)."""
    n = len(pairs)
    return (math.fsum(a - b for a, b in pairs) / n, math.fsum(a + b for a, b in pairs) / n,
            math.fsum(a + b - (a - b) ** 2 for a, b in pairs) / n)


def paired_power(pairs: Sequence[tuple[float, float]], rounds: float, alpha: float) -> float:
    """Power of the one-sided exact McNemar test at level ``alpha`` over ``rounds`` paired rounds of
    every task, each task's round losing with probability a and gaining with probability b.

    Normal approximation of the test: with L lost and G gained pairs it rejects about when
    (L - G - 1) / sqrt(L + G) >= z(1 - alpha) (continuity-corrected); over N independent pairs
    L - G has mean N·mean(a - b) and variance N·mean(a + b - (a - b)²), and L + G is close to its
    mean N·mean(a + b). Heterogeneous tasks are summed exactly, not averaged into one rate.
    ``rounds`` may be fractional (tasks scaled at a fixed number of rounds: pairs = tasks × rounds).
    tests/test_gate.py checks it against a seeded simulation of the exact test.
    """
    if rounds < 0:
        raise ValueError(f"rounds must be >= 0, got {rounds}")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")
    if rounds == 0 or not pairs:
        return 0.0
    mu, psi, var = _moments(pairs)
    n = rounds * len(pairs)
    return _power(n * mu, n * psi, n * var, alpha)


def pairs_needed(pairs: Sequence[tuple[float, float]], alpha: float, power: float, limit: int = 10**8) -> int | None:
    """Smallest number of paired trials (tasks × rounds, tasks drawn like these) for which
    :func:`paired_power` reaches ``power``; ``None`` when not even ``limit`` pairs do (no drop)."""
    if not 0 < power < 1:
        raise ValueError(f"power must be in (0, 1), got {power}")
    if not pairs:
        return None
    mu, psi, var = _moments(pairs)
    if mu <= 0:
        return None

    def enough(n: int) -> bool:
        return _power(n * mu, n * psi, n * var, alpha) >= power

    hi = 1
    while not enough(hi):
        hi *= 2
        if hi > limit:
            return None
    lo = hi // 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if enough(mid) else (mid, hi)
    return hi


def minimum_detectable_gap(pairs: int, discordance: float, alpha: float = 0.05, power: float = 0.8) -> float | None:
    """Smallest true difference in strict success that a two-sided exact McNemar test at ``alpha``
    over ``pairs`` paired tasks detects with probability ``power``, given the observed share of
    discordant pairs (Connor 1987, with the continuity correction of :func:`paired_power`).

    Solves N·δ - 1 = z(1 - alpha/2)·sqrt(N·ψ) + z(power)·sqrt(N·(ψ - δ²)) for δ by bisection on
    [0, ψ] (a gap cannot exceed the discordance). ``None`` when nothing is detectable (no pairs, or
    even δ = ψ falls short).
    """
    _check_count("pairs", pairs)
    if not 0 <= discordance <= 1:
        raise ValueError(f"discordance must be in [0, 1], got {discordance}")
    if pairs == 0 or discordance == 0:
        return None
    za, zb = _NORMAL.inv_cdf(1 - alpha / 2), _NORMAL.inv_cdf(power)

    def margin(delta: float) -> float:
        return pairs * delta - 1 - za * math.sqrt(pairs * discordance) - zb * math.sqrt(max(0.0, pairs * (discordance - delta * delta)))

    if margin(discordance) < 0:
        return None
    lo, hi = 0.0, discordance
    for _ in range(80):
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if margin(mid) >= 0 else (mid, hi)
    return hi
