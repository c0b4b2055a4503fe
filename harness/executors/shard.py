"""Run a shard of trials in this process: one gateway, one event loop, bounded concurrency.

This is the one place that runs trials (`run_trial`), whoever drives it: `crmbench run` itself
(`--workers 1`), each worker process (`--workers N`) and each Ray actor (`--executor ray`). A finished
trial (after its infrastructure retries) is handed to `emit`, which the driver makes durable; `emit`
is awaited outside the concurrency slot, so a slow disk or pipe never holds a trial back.

Worker processes and Ray actors report through `report_shard`, as a stream of `ShardMessage`s that the
driver interprets with `ShardReceiver`: records as they finish, then `done`; or one `config_error` (the
run stops with that sentence, as a configuration error in-process does) or `crash` (a traceback).
"""

from __future__ import annotations

import contextlib
import logging
import secrets
import resource
import traceback
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import anyio

from contracts.schema import Task
from harness.gc_policy import run_pace
from harness.records import TrialKey, TrialRecord
from harness.rundir import encode_record
from harness.runner.components import TrialComponents
from harness.runner.config import RunConfig
from harness.runner.plan import Plan
from harness.runner.trial import Limits, run_trial
from models.base import ConfigurationError
from models.types import Usage
from servers.gateway import Gateway
from servers.trials import TrialStore

if TYPE_CHECKING:
    from fastmcp import Client

log = logging.getLogger("crmbench.run")

Emit = Callable[[TrialRecord, bytes | None], Awaitable[None]]
"""Receives each finished trial (and, from a worker, its encoded file content); returns once it is durable."""

ComponentFactory = Callable[[RunConfig, Plan], TrialComponents]
"""Builds a process's trial components from the run's configuration and resolved plan. Worker processes
and Ray actors call it to build their own; it must be picklable: a top-level function or class
(`TrialComponents` itself is the default), not a lambda or a closure."""


@dataclass(frozen=True)
class TrialWork:
    """One trial to run, with the ⊥ record of an earlier invocation it replaces (its usage and attempts
    carry over)."""

    task: Task
    key: TrialKey
    earlier: TrialRecord | None = None


@dataclass(frozen=True)
class ShardSpec:
    """What a worker needs to run its shard: its share of the configuration, the resolved plan, how to
    build components, and its trials (tasks travel with them, so a worker need not load the catalog)."""

    index: int
    config: RunConfig
    plan: Plan
    factory: ComponentFactory
    work: tuple[TrialWork, ...]


ShardMessage = (
    tuple[Literal["record"], TrialRecord, bytes]
    | tuple[Literal["done"], int, float]
    | tuple[Literal["config_error"], str]
    | tuple[Literal["crash"], str]
)


def first_configuration_error(group: BaseExceptionGroup) -> ConfigurationError | None:
    """A configuration error in any trial stops the run; surface it plainly, not as a group."""
    matched: BaseException | None = group.subgroup(lambda e: isinstance(e, ConfigurationError))
    while isinstance(matched, BaseExceptionGroup):
        matched = matched.exceptions[0]
    return matched if isinstance(matched, ConfigurationError) else None


@contextlib.asynccontextmanager
async def _maybe_http(gateway: Gateway, enabled: bool) -> AsyncIterator[str | None]:
    """Serve the gateway over streamable HTTP on an ephemeral loopback port when an agent needs a URL."""
    if not enabled:
        yield None
        return
    from servers.http import serve_in_loop

    async with serve_in_loop(gateway, control_token=secrets.token_urlsafe(32)) as base_url:  # agents never get the token
        yield base_url


@contextlib.asynccontextmanager
async def _maybe_mcp_clients(gateway: Gateway, enabled: bool) -> AsyncIterator[dict[str, Client]]:
    """In-memory MCP clients for in-process agents when asked (`--in-process-tools mcp`); by default they
    use the gateway's lean path (no clients)."""
    if not enabled:
        yield {}
        return
    async with gateway.in_memory_clients() as clients:
        yield clients


async def run_shard(config: RunConfig, components: TrialComponents, work: Sequence[TrialWork], emit: Emit) -> None:
    """Run `work` with at most `config.concurrency` trials at once, each retried up to
    `config.infra_retries` times on an infrastructure failure; raise a `ConfigurationError` plainly."""
    if not work:
        return
    gateway = Gateway(sorted({item.task.domain for item in work}), store=TrialStore(sandbox=False))
    limits = Limits(max_turns=config.max_turns, task_timeout_s=config.task_timeout_s)
    limiter = anyio.CapacityLimiter(config.concurrency)
    serve_http = config.serve_http or components.needs_mcp_url

    async with _maybe_mcp_clients(gateway, config.in_process_tools == "mcp") as clients, _maybe_http(gateway, serve_http) as base_url:

        async def one(item: TrialWork) -> None:
            task, key, earlier = item.task, item.key, item.earlier
            async with limiter:
                record = None
                # Usage of every attempt is kept: this invocation's ⊥ attempts and those of an earlier
                # invocation whose ⊥ record this one replaces.
                spent: dict[str, Usage] = dict(earlier.usage) if earlier else {}
                for attempt in range(config.infra_retries + 1):
                    record = await run_trial(
                        task, key, gateway=gateway, client=clients.get(task.domain), components=components, limits=limits, mcp_base_url=base_url
                    )
                    for role, usage in record.usage.items():
                        spent[role] = spent.get(role, Usage()) + usage
                    record.attempts = attempt + 1 + (earlier.attempts if earlier else 0)
                    if record.status == "scored":
                        break
                    log.warning("%s: infrastructure failure (%s), attempt %d", key.slug, record.failure_class, attempt + 1)
                assert record is not None
                record.usage = spent
            await emit(record, None)

        try:
            with run_pace():  # fewer walks of the long-lived heap while the trials run
                async with anyio.create_task_group() as group:
                    for item in work:
                        group.start_soon(one, item)
        except BaseExceptionGroup as errors:
            raise first_configuration_error(errors) or errors from None


async def report_shard(spec: ShardSpec, send: Callable[[ShardMessage], Awaitable[None]]) -> None:
    """A worker's whole life: build components, run the shard, and report every finished trial through
    `send` (encoded here, so the driver only writes bytes), then `done` — or the error that stopped it."""
    sent = 0

    async def emit(record: TrialRecord, _data: bytes | None) -> None:
        nonlocal sent
        await send(("record", record, encode_record(record)))
        sent += 1

    try:
        components = spec.factory(spec.config, spec.plan)
        try:
            await run_shard(spec.config, components, spec.work, emit)
        finally:
            await components.aclose()
    except ConfigurationError as exc:
        await send(("config_error", str(exc)))
        return
    except Exception:  # noqa: BLE001 - reported to the driver, which stops the run with it
        await send(("crash", traceback.format_exc()))
        return
    own = resource.getrusage(resource.RUSAGE_SELF)
    await send(("done", sent, own.ru_utime + own.ru_stime))  # the worker's CPU, for the run's accounting


class WorkerFailed(RuntimeError):
    """A worker process or actor crashed or vanished; the message says which and why."""


class ShardReceiver:
    """The driver's side of one worker's messages: records go to `emit`; errors stop the run."""

    def __init__(self, name: str, expected: int, emit: Emit) -> None:
        self.name = name
        self.expected = expected
        self.emit = emit
        self.received = 0
        self.finished = False
        self.cpu_s = 0.0
        """CPU seconds the worker process spent in all (reported with `done`)."""

    async def handle_many(self, messages: Sequence[ShardMessage]) -> None:
        """Messages that arrived together: their records are made durable concurrently (the run's writer
        then fsyncs them as one batch instead of one after another), then the rest, in order."""
        records = [m for m in messages if m[0] == "record"]
        if len(records) > 1:
            async with anyio.create_task_group() as group:
                for message in records:
                    group.start_soon(self.handle, message)
        elif records:
            await self.handle(records[0])
        for message in messages:
            if message[0] != "record":
                await self.handle(message)

    async def handle(self, message: ShardMessage) -> None:
        kind = message[0]
        if kind == "record":
            _, record, data = message  # type: ignore[misc]
            await self.emit(record, data)
            self.received += 1
        elif kind == "done":
            self.finished = True
            self.cpu_s = float(message[2])  # type: ignore[misc]
            if message[1] != self.received:
                raise WorkerFailed(f"{self.name} reported {message[1]} trial(s) but {self.received} arrived")
        elif kind == "config_error":
            raise ConfigurationError(str(message[1]))
        elif kind == "crash":
            raise WorkerFailed(f"{self.name} failed:\n{message[1]}")
        else:
            raise WorkerFailed(f"{self.name} sent an unknown message {kind!r}")
