"""How a run is cut over workers: which trials each runs, and its share of the run's limits.

Deterministic: the same trials and the same `--workers` give the same shards, whatever the machine.
Trials are dealt round-robin in run order (rounds × catalog order), so every worker gets a similar
mix of domains and difficulties and finishes at about the same time. Which worker runs a trial does
not change its record: the trial's seed and world come from its key alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from harness.runner.config import RunConfig

T = TypeVar("T")


def effective_workers(config: RunConfig, trials: int) -> int:
    """No more workers than trials, nor than trials allowed at once (each worker runs at least one)."""
    return max(1, min(config.workers, config.concurrency, trials))


def deal(items: Sequence[T], workers: int) -> list[list[T]]:
    """Round-robin: item i goes to worker i mod `workers`; no worker is left empty when items suffice."""
    if workers < 1:
        raise ValueError(f"workers must be at least 1, not {workers}")
    shards: list[list[T]] = [[] for _ in range(min(workers, max(1, len(items))))]
    for i, item in enumerate(items):
        shards[i % len(shards)].append(item)
    return shards


def share(total: int, workers: int, index: int) -> int:
    """Worker `index`'s part of a run-wide limit: the parts add up to `total`, none below 1."""
    base, extra = divmod(total, workers)
    return max(1, base + (1 if index < extra else 0))


def worker_config(config: RunConfig, workers: int, index: int) -> RunConfig:
    """The configuration a worker runs with: `--concurrency` and the provider limit are per run, so each
    worker gets its share; it runs its shard in its own process (no further workers). None of these
    fields is result-affecting."""
    provider = config.provider_concurrency or config.concurrency
    return config.model_copy(
        update={
            "concurrency": share(config.concurrency, workers, index),
            "provider_concurrency": share(provider, workers, index),
            "workers": 1,
            "executor": "local",
            "ray_address": None,
        }
    )
