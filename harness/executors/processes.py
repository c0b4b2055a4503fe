"""`--workers N`: the run's trials over N worker processes on this machine, one run directory.

Each worker is a fresh Python process (forked from a fork server, else spawned) with its own gateway and event loop running its shard
(`shard.run_shard`); it builds its own trial components with the run's component factory. It sends each
finished trial back over a pipe as soon as it is graded; the driver (`crmbench run` itself) writes it
with the run's one record writer, counts it on the progress bar, and keeps it for the summary. Workers
never touch the run directory, so resume, the lock and the files are exactly as with one process.

A worker that finds a configuration error reports it and the run stops with that error. A worker that
crashes or dies stops the run with what it printed. The driver's death (even SIGKILL) closes each
worker's lifeline pipe, and the worker exits at once, so a killed run leaves no orphans behind; its
finished trials are on disk and a rerun resumes as usual.

The fork server starts once per driver process and keeps the environment it started with: a Python
program that changes `os.environ` (an API key) between runs should set it before its first `--workers` run.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import signal
import threading
from collections.abc import Sequence
from multiprocessing.connection import Connection, wait
from multiprocessing.context import ForkServerContext, SpawnContext
from multiprocessing.process import BaseProcess
from typing import Any

import anyio

from harness.executors.shard import ComponentFactory, Emit, ShardMessage, ShardReceiver, ShardSpec, TrialWork, WorkerFailed, report_shard
from harness.executors.split import deal, worker_config
from harness.runner.config import RunConfig
from harness.runner.plan import Plan

log = logging.getLogger("crmbench.run")

_CLOSED = object()
"""A worker's pipe reached end of file (the worker exited or died)."""


def _exit_with_driver(lifeline: Connection) -> None:
    """Block on the lifeline: the driver never writes to it, so it returns only when the driver has
    closed it or died. Either way this worker has no one to report to: leave at once."""
    try:
        lifeline.recv()
    except (EOFError, OSError):
        pass
    os._exit(3)


def worker_main(spec: ShardSpec, results: Connection, lifeline: Connection, log_level: int = logging.WARNING) -> None:
    """Entry point of a worker process. It logs at the driver's level, its messages marked with its number."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the driver's to handle: it stops us
    logging.basicConfig(level=log_level, format=f"%(levelname)s %(name)s [worker {spec.index}]: %(message)s", force=True)
    threading.Thread(target=_exit_with_driver, args=(lifeline,), name="crmbench-lifeline", daemon=True).start()
    sending = anyio.CapacityLimiter(1)  # one message at a time on the pipe

    async def send(message: ShardMessage) -> None:
        await anyio.to_thread.run_sync(results.send, message, limiter=sending)

    anyio.run(report_shard, spec, send)
    results.close()


def _receive_ready(connections: Sequence[Connection], timeout: float = 0.5) -> list[tuple[Connection, Any]]:
    """Every message available now on any of the pipes (waiting up to `timeout` for the first)."""
    out: list[tuple[Connection, Any]] = []
    for conn in wait(list(connections), timeout=timeout):
        assert isinstance(conn, Connection)
        try:
            while True:
                out.append((conn, conn.recv()))
                if len(out) >= 256 or not conn.poll():
                    break
        except (EOFError, OSError):
            out.append((conn, _CLOSED))
    return out


class ProcessExecutor:
    """Shards over `workers` spawned processes; see the module docstring."""

    def __init__(self, config: RunConfig, plan: Plan, factory: ComponentFactory, workers: int) -> None:
        self.config = config
        self.plan = plan
        self.factory = factory
        self.workers = workers
        self.worker_cpu_s = 0.0
        """CPU seconds the worker processes spent (known once they finished)."""

    async def run(self, work: Sequence[TrialWork], emit: Emit) -> None:
        shards = deal(work, self.workers)
        context = _context()
        processes: list[BaseProcess] = []
        lifelines: list[Connection] = []
        receivers: dict[Connection, tuple[ShardReceiver, BaseProcess]] = {}
        try:
            for index, part in enumerate(shards):
                spec = ShardSpec(index=index, config=worker_config(self.config, len(shards), index), plan=self.plan, factory=self.factory, work=tuple(part))
                results_read, results_write = context.Pipe(duplex=False)
                lifeline_read, lifeline_write = context.Pipe(duplex=False)
                process = context.Process(
                    target=worker_main,
                    args=(spec, results_write, lifeline_read, logging.getLogger().getEffectiveLevel()),
                    name=f"crmbench-worker-{index}",
                    daemon=True,
                )
                process.start()
                results_write.close()  # ours would hide the worker's end of file
                lifeline_read.close()
                processes.append(process)
                lifelines.append(lifeline_write)
                receivers[results_read] = (ShardReceiver(f"worker {index} (pid {process.pid})", len(part), emit), process)
            log.info("started %d worker process(es)", len(processes))
            await self._collect(receivers)
            self.worker_cpu_s = sum(receiver.cpu_s for receiver, _ in receivers.values())
        finally:
            for lifeline in lifelines:
                lifeline.close()  # a worker still running exits on this
            for conn in receivers:
                conn.close()
            with anyio.CancelScope(shield=True):
                await anyio.to_thread.run_sync(_reap, processes)

    async def _collect(self, receivers: dict[Connection, tuple[ShardReceiver, BaseProcess]]) -> None:
        open_pipes = set(receivers)
        while open_pipes:
            batch = await anyio.to_thread.run_sync(_receive_ready, list(open_pipes), abandon_on_cancel=True)
            arrived: dict[Connection, list[Any]] = {}
            for conn, message in batch:
                arrived.setdefault(conn, []).append(message)
            for conn, messages in arrived.items():
                receiver, process = receivers[conn]
                await receiver.handle_many([m for m in messages if m is not _CLOSED])
                if _CLOSED in messages:
                    open_pipes.discard(conn)
                    if not receiver.finished:
                        await anyio.to_thread.run_sync(process.join, 5.0)
                        raise WorkerFailed(f"{receiver.name} exited unexpectedly (exit code {process.exitcode}) after {receiver.received} trial(s)")


_preload: list[str] = [__name__]
"""What the fork server imports before it forks: the worker code, and the provider SDKs of the first
run's models (`start_fork_server`), so no worker imports them again."""


def _context() -> ForkServerContext | SpawnContext:
    """Workers are never forked from this process (it has threads and a running loop). A fork server
    that imported the worker code once forks each worker ready to run (Python 3.14's default on Linux);
    later runs in the same process reuse it. Where there is none, each worker is spawned afresh."""
    if "forkserver" in multiprocessing.get_all_start_methods():
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(list(_preload))
        return context
    return multiprocessing.get_context("spawn")


def start_fork_server(preload: Sequence[str] = ()) -> None:
    """Start the fork server now, so its imports overlap the driver's own preparation (preflight,
    resume) instead of delaying the first worker. `preload`: more modules for it to import first (the
    provider SDKs; a server already running keeps what it imported)."""
    _preload.extend(module for module in preload if module not in _preload)
    context = _context()
    if context.get_start_method() == "forkserver":
        from multiprocessing import forkserver

        forkserver.ensure_running()


def _reap(processes: Sequence[BaseProcess]) -> None:
    """Wait briefly for workers to leave, then make sure they have."""
    for process in processes:
        process.join(timeout=5.0)
    for process in processes:
        if process.is_alive():
            process.terminate()
            process.join(timeout=5.0)
        if process.is_alive():
            process.kill()
            process.join()
