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

__all__ = [
    "average_ranks",
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
