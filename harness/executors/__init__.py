"""Where a run's trials execute: in this process, in worker processes, or on Ray actors.

`crmbench run` (the driver) owns everything about the run — preflight, the manifest, the directory
lock, resume, the record writer, the progress bar, the summary — and hands the trials that remain to an
executor, which calls `emit` with each finished trial. Every executor runs trials with the same engine
(`shard.run_shard`), so a record does not depend on where its trial ran.
"""

from __future__ import annotations

import pickle
from collections.abc import Iterable, Sequence
from typing import Protocol

from harness.executors.shard import ComponentFactory, Emit, TrialWork, run_shard
from harness.executors.split import effective_workers
from harness.runner.components import TrialComponents
from harness.runner.config import RunConfig
from harness.runner.plan import Plan
from models.base import ConfigurationError


class Executor(Protocol):
    worker_cpu_s: float
    """CPU seconds spent outside this process (worker processes, Ray actors), once `run` has returned."""

    async def run(self, work: Sequence[TrialWork], emit: Emit) -> None: ...


class InProcessExecutor:
    """`--workers 1`: the trials run on this event loop with the run's own components."""

    def __init__(self, config: RunConfig, components: TrialComponents) -> None:
        self.config = config
        self.components = components
        self.worker_cpu_s = 0.0  # the trials run here: their CPU is this process's

    async def run(self, work: Sequence[TrialWork], emit: Emit) -> None:
        await run_shard(self.config, self.components, work, emit)


class ExecutorError(ValueError):
    """The run's executor options cannot work as given; the message says what to change."""


def distributed(config: RunConfig) -> bool:
    """Whether trials may run outside this process (then components are built by each worker)."""
    return config.workers > 1 or config.executor == "ray"


def check_executor(config: RunConfig, factory: ComponentFactory | None) -> None:
    """Before anything runs: the executor asked for can be loaded (Ray is an optional extra), and the
    workers can build their components. `factory` is None when the caller passed ready-built
    components, which cannot leave this process."""
    if config.executor == "ray":
        from harness.executors.ray_cluster import MISSING_RAY, ray_installed

        if not ray_installed():
            raise ConfigurationError(MISSING_RAY)
    if not distributed(config):
        return
    if factory is None:
        raise ExecutorError(
            "--workers and --executor ray build the trial components in each worker: pass "
            "execute_run(config, component_factory=...) (a picklable (RunConfig, Plan) -> TrialComponents) instead of components="
        )
    check_factory(factory)


def prepare_workers(config: RunConfig, models: Iterable[str] = ()) -> None:
    """Get worker processes under way early (their start-up overlaps the driver's preparation); their
    fork server imports the provider SDKs of `models` (the plan's) once, for every worker."""
    if config.executor == "local" and config.workers > 1:
        from harness.executors.processes import start_fork_server
        from models.registry import sdk_modules

        start_fork_server(preload=sdk_modules(models))


def check_factory(factory: ComponentFactory) -> None:
    """Workers build their components with `factory`, so it must travel to them (by reference)."""
    try:
        pickle.dumps(factory)
    except Exception as exc:  # noqa: BLE001 - any pickling failure means the same thing
        raise ExecutorError(
            f"the component factory {factory!r} cannot be sent to worker processes ({type(exc).__name__}); "
            "pass a top-level function or class (RunConfig, Plan) -> TrialComponents, not a lambda or a closure"
        ) from None


def make_executor(config: RunConfig, components: TrialComponents, factory: ComponentFactory | None, plan: Plan, trials: int) -> Executor:
    """The executor `config` asks for. `factory` is None when the caller passed ready-built components,
    which only the in-process executor can use; workers call `factory(config, plan)` with the resolved
    plan the driver's own components were built from."""
    workers = effective_workers(config, trials)
    if config.executor == "local" and workers == 1:
        return InProcessExecutor(config, components)
    assert factory is not None, "check_executor() comes first"
    if config.executor == "ray":
        from harness.executors.ray_cluster import RayExecutor

        return RayExecutor(config, plan, factory, workers)
    from harness.executors.processes import ProcessExecutor

    return ProcessExecutor(config, plan, factory, workers)
