"""A model call's latency for benchmarks: constant, lognormal or uniform around a mean, and the ideal
wall time of N trials in flight under it.

A constant latency puts every trial in lockstep: N trials ask their k-th call in the same instant and
wait for each other's CPU, which no real provider does. Drawn latencies spread them. With a spread, the
ideal is no longer "calls × mean": N trials in flight end when the slowest ends, so the ideal is the
expected time of the slowest trial (each trial the sum of its steps' latencies, a step of several calls
asked at once lasting its slowest call), estimated here by a seeded simulation with its spread.

Used by the scripted models (`models.scripted.ScriptedModel`, `harness.runner.gold_models`) and by
`scripts/fake_model_server.py`, so in-process and HTTP benchmarks draw from the same distributions.
"""

from __future__ import annotations

import math
import random
import statistics
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

Distribution = Literal["constant", "lognormal", "uniform"]
DISTRIBUTIONS: tuple[Distribution, ...] = ("constant", "lognormal", "uniform")
DEFAULT_SPREAD = 0.5


@dataclass(frozen=True)
class Latency:
    """Seconds per call: `mean_s` on average. `spread` is the lognormal's sigma (of the log) or the
    uniform's half-width as a share of the mean (0.5: from 0.5 × to 1.5 × the mean); a constant has none."""

    mean_s: float = 0.0
    dist: Distribution = "constant"
    spread: float = DEFAULT_SPREAD

    def __post_init__(self) -> None:
        if self.mean_s < 0:
            raise ValueError(f"a latency's mean must be >= 0, got {self.mean_s}")
        if self.dist not in DISTRIBUTIONS:
            raise ValueError(f"latency distribution {self.dist!r}: choose one of {', '.join(DISTRIBUTIONS)}")
        if self.spread < 0 or (self.dist == "uniform" and self.spread > 1):
            raise ValueError(f"latency spread {self.spread}: >= 0, and at most 1 for a uniform (no negative latency)")

    def draw(self, rng: random.Random) -> float:
        """One call's latency."""
        if self.dist == "constant" or self.mean_s == 0 or self.spread == 0:
            return self.mean_s
        if self.dist == "uniform":
            return rng.uniform(self.mean_s * (1 - self.spread), self.mean_s * (1 + self.spread))
        return rng.lognormvariate(math.log(self.mean_s) - self.spread**2 / 2, self.spread)  # mean exactly mean_s

    def sampler(self, seed: int) -> Callable[[], float]:
        """Draws for one model (its own seeded stream: a rerun draws the same sequence)."""
        rng = random.Random(seed)
        return lambda: self.draw(rng)

    def describe(self) -> str:
        if self.dist == "constant" or self.spread == 0:
            return f"constant {self.mean_s * 1000:.0f} ms"
        shape = f"sigma {self.spread:g}" if self.dist == "lognormal" else f"±{100 * self.spread:g}%"
        return f"{self.dist} mean {self.mean_s * 1000:.0f} ms ({shape})"


@dataclass(frozen=True)
class Ideal:
    """The expected wall time of the slowest of N trials, with the spread of that time over replicates."""

    mean_s: float
    sd_s: float
    p05_s: float
    p95_s: float
    replicates: int

    def describe(self) -> str:
        if self.sd_s == 0:
            return f"{self.mean_s:.2f} s"
        return f"{self.mean_s:.2f} s (sd {self.sd_s:.2f}, 5-95% {self.p05_s:.2f}-{self.p95_s:.2f}, {self.replicates} simulated runs)"


def expected_slowest(latency: Latency, trials: int, steps: int, *, parallel_last: int = 1, replicates: int = 400, seed: int = 0) -> Ideal:
    """The ideal wall time of `trials` trials in flight at once, each `steps` steps one after another of
    drawn latencies, the last step `parallel_last` calls asked together (the reply judge and the consent
    questions): the mean over seeded replicates of the slowest trial's time. A constant latency gives
    exactly steps × mean."""
    if trials < 1 or steps < 1 or parallel_last < 1:
        raise ValueError("trials, steps and parallel_last must be >= 1")
    if latency.dist == "constant" or latency.spread == 0 or latency.mean_s == 0:
        return Ideal(steps * latency.mean_s, 0.0, steps * latency.mean_s, steps * latency.mean_s, 1)
    rng = random.Random(seed)
    draw = latency.draw
    slowest: list[float] = []
    for _ in range(replicates):
        worst = 0.0
        for _ in range(trials):
            total = sum(draw(rng) for _ in range(steps - 1)) + max(draw(rng) for _ in range(parallel_last))
            worst = max(worst, total)
        slowest.append(worst)
    slowest.sort()
    return Ideal(
        mean_s=statistics.fmean(slowest),
        sd_s=statistics.stdev(slowest) if len(slowest) > 1 else 0.0,
        p05_s=slowest[int(0.05 * (len(slowest) - 1))],
        p95_s=slowest[int(0.95 * (len(slowest) - 1))],
        replicates=replicates,
    )
