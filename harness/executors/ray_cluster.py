"""`--executor ray`: the run's trials over Ray actors, on a local Ray instance or a cluster.

Optional: Ray comes with the `distributed` extra (`uv sync --extra distributed`) and is imported only
when this executor runs. Each actor owns a gateway and runs its shard's trials concurrently
(`shard.run_shard`, the same engine as in-process), building its trial components with the run's
component factory. Records stream back to the driver as each trial finishes (an actor method that is
an async generator: Ray delivers every yielded item as it is produced), and the driver writes them into
the one run directory with the run's record writer, exactly as `--workers` does.

Without `--ray-address` a local Ray instance is started for the run and shut down after it; `auto` or
`ray://HOST:PORT` joins an existing cluster, whose nodes must have this project installed (the same
version, with its catalog). A driver that already called `ray.init` keeps its connection.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import AsyncIterator, Sequence
from typing import Any

import anyio

from harness.executors.shard import ComponentFactory, Emit, ShardMessage, ShardReceiver, ShardSpec, TrialWork, WorkerFailed, first_configuration_error, report_shard
from harness.executors.split import deal, worker_config
from harness.runner.config import RunConfig
from harness.runner.plan import Plan
from models.base import ConfigurationError

log = logging.getLogger("crmbench.run")

MISSING_RAY = "--executor ray needs Ray: install the `distributed` extra: uv sync --extra distributed"


def ray_installed() -> bool:
    """Whether Ray can be imported, without importing it (that takes a second or two)."""
    import importlib.util

    return importlib.util.find_spec("ray") is not None


def import_ray(local: bool) -> Any:
    """Ray, or a `ConfigurationError` saying how to install it. For a local instance started under
    `uv run`, Ray's default would re-create the driver's uv environment for every worker (a copy of the
    working folder and a `uv run` per worker); local workers share this interpreter, so that is off."""
    if local:
        os.environ.setdefault("RAY_ENABLE_UV_RUN_RUNTIME_ENV", "0")
    try:
        import ray
    except ImportError:
        raise ConfigurationError(MISSING_RAY) from None
    return ray


class ShardActor:
    """One Ray actor: runs a shard and yields its `ShardMessage`s as they happen.

    The shard arrives pickled and is unpickled here, after the driver's import path has been added to
    the actor's: a component factory defined in a module the driver imported from its own path (a test
    module, a script's folder) then resolves on a local instance as it does in a worker process."""

    def __init__(self, driver_sys_path: list[str]) -> None:
        import sys

        sys.path.extend(p for p in driver_sys_path if p not in sys.path)

    async def run(self, pickled_spec: bytes) -> AsyncIterator[ShardMessage]:
        import pickle

        spec: ShardSpec = pickle.loads(pickled_spec)
        send, receive = anyio.create_memory_object_stream[ShardMessage](float("inf"))

        async def produce() -> None:
            async with send:
                await report_shard(spec, send.send)

        import asyncio

        producer = asyncio.get_running_loop().create_task(produce())
        try:
            async with receive:
                async for message in receive:
                    yield message
        finally:
            if not producer.done():
                producer.cancel()
        await producer


class RayExecutor:
    """Shards over `workers` Ray actors; see the module docstring."""

    def __init__(self, config: RunConfig, plan: Plan, factory: ComponentFactory, workers: int) -> None:
        self.config = config
        self.plan = plan
        self.factory = factory
        self.workers = workers
        self.address = config.ray_address
        self.worker_cpu_s = 0.0
        """CPU seconds the actors' processes spent (known once they finished)."""

    async def run(self, work: Sequence[TrialWork], emit: Emit) -> None:
        ray = import_ray(local=self.address is None)
        started = False
        if not ray.is_initialized():
            options: dict[str, Any] = {"include_dashboard": False, "logging_level": logging.WARNING}
            if self.address is None:
                options["num_cpus"] = max(os.cpu_count() or 1, self.workers)
            else:
                options["address"] = self.address
            ray.init(**options)  # on the main thread (Ray installs its signal handlers there); nothing else runs yet
            started = True
        actor_class = ray.remote(num_cpus=1)(ShardActor)
        shards = deal(work, self.workers)
        actors = [actor_class.remote(list(sys.path)) for _ in shards]
        receivers = [ShardReceiver(f"Ray actor {index}", len(part), emit) for index, part in enumerate(shards)]
        try:
            async with anyio.create_task_group() as group:
                for index, (actor, part) in enumerate(zip(actors, shards, strict=True)):
                    spec = ShardSpec(index=index, config=worker_config(self.config, len(shards), index), plan=self.plan, factory=self.factory, work=tuple(part))
                    pickled = ray.cloudpickle.dumps(spec)  # by value what the workers cannot import (a script's __main__)
                    group.start_soon(self._drain, actor, pickled, receivers[index])
            self.worker_cpu_s = sum(receiver.cpu_s for receiver in receivers)
        except BaseExceptionGroup as errors:
            raise first_configuration_error(errors) or _first(errors) from None
        finally:
            for actor in actors:
                ray.kill(actor)
            if started:
                ray.shutdown()

    @staticmethod
    async def _drain(actor: Any, pickled_spec: bytes, receiver: ShardReceiver) -> None:
        last: list[ShardMessage] = []
        async with anyio.create_task_group() as group:  # records made durable concurrently: the writer batches them
            async for ref in actor.run.remote(pickled_spec):
                message = await ref
                if message[0] == "record":
                    group.start_soon(receiver.handle, message)
                else:
                    last.append(message)  # `done` (or the error that ended the shard) follows its records
        for message in last:
            await receiver.handle(message)
        if not receiver.finished:
            raise WorkerFailed(f"{receiver.name} stopped after {receiver.received} trial(s) without finishing")


def _first(group: BaseExceptionGroup) -> BaseException:
    error: BaseException = group
    while isinstance(error, BaseExceptionGroup):
        error = error.exceptions[0]
    return error
