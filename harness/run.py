"""`crmbench run`: every selected task × round through the real gateway, agent, user and grader.

Trials run concurrently (bounded), each record is written atomically as soon as it is graded, and a
rerun of the same command resumes: finished trials are skipped, ⊥ trials are retried.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import logging
import re
import secrets
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

import anyio
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from contracts.catalog import catalog_lock, load_catalog, select_tasks
from contracts.schema import Task
from harness.components import TrialComponents
from harness.config import RunConfig
from harness.manifest import build_manifest
from harness.plan import Plan, resolve_plan
from harness.records import TrialKey, TrialRecord
from harness.rundir import RunDirectory
from harness.summary import summarise
from harness.trial import Limits, run_trial
from models.base import ConfigurationError
from models.prices import DEFAULT_PRICE_TABLE, PriceTable
from servers.gateway import Gateway
from servers.http import serve_in_loop
from servers.trials import TrialStore

log = logging.getLogger("crmbench.run")


def trial_seed(base_seed: int, task_id: str, round_index: int) -> int:
    """A stable per-trial seed derived from the base seed, the task and the round."""
    digest = hashlib.sha256(f"{base_seed}|{task_id}|{round_index}".encode()).digest()
    return int.from_bytes(digest[:4], "big")


def choose_tasks(config: RunConfig) -> list[Task]:
    tasks = select_tasks(load_catalog(), domains=config.domain, task_ids=config.task)
    if config.capability:
        tasks = [t for t in tasks if set(t.capabilities) & set(config.capability)]
    if config.difficulty:
        tasks = [t for t in tasks if t.difficulty in config.difficulty]
    return tasks


def default_out(plan: Plan, config_hash: str) -> Path:
    """`./runs/<agent>[-<model>]-<date>-<hash>` under the current folder: the same command resumes its
    own run; a different agent, configuration or dataset starts a new one instead of mixing
    incomparable trials."""
    safe = re.sub(r"[^A-Za-z0-9._-]+", "-", plan.label).strip("-") or "agent"
    return Path.cwd() / "runs" / f"{safe}-{dt.date.today().isoformat()}-{config_hash[:8]}"


@dataclass
class RunResult:
    directory: Path
    plan: Plan
    records: list[TrialRecord]
    ran: int
    skipped: int
    summary_markdown: str = ""
    notes: list[str] = field(default_factory=list)


def _first_configuration_error(group: BaseExceptionGroup) -> ConfigurationError | None:
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
    async with serve_in_loop(gateway, control_token=secrets.token_urlsafe(32)) as base_url:  # agents never get the token
        yield base_url


async def execute_run(config: RunConfig, *, console: Console | None = None, components: TrialComponents | None = None) -> RunResult:
    console = console or Console(stderr=True)
    components = components or TrialComponents(config, resolve_plan(config))
    plan = components.plan
    tasks = choose_tasks(config)
    if not tasks:
        raise ValueError("no task matches the selection")
    prices = PriceTable.load(config.price_table or DEFAULT_PRICE_TABLE)
    manifest = build_manifest(config, plan, prices, [t.id for t in tasks], catalog_lock())
    directory = RunDirectory(config.out or default_out(plan, manifest["config_hash"]))
    directory.open(manifest)
    for note in plan.notes:
        console.print(f"[yellow]note[/yellow]: {note}")

    keys = [(task, TrialKey(task_id=task.id, round=r, seed=trial_seed(config.base_seed, task.id, r))) for r in range(config.rounds) for task in tasks]
    finished = directory.finished_keys()
    todo = [(task, key) for task, key in keys if key not in finished]
    if finished:
        console.print(f"resuming {directory.root}: {len(keys) - len(todo)} of {len(keys)} trial(s) already done")
    gateway = Gateway(sorted({t.domain for t in tasks}), store=TrialStore(sandbox=False))
    limits = Limits(max_turns=config.max_turns, task_timeout_s=config.task_timeout_s)
    limiter = anyio.CapacityLimiter(config.concurrency)

    columns = (TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), TimeRemainingColumn(), TextColumn("{task.fields[status]}"))
    passed = failed = errors = 0
    serve_http = config.serve_http or components.needs_mcp_url
    try:
        async with gateway.in_memory_clients() as clients, _maybe_http(gateway, serve_http) as base_url:
            with Progress(*columns, console=console, disable=not console.is_terminal) as progress:
                job = progress.add_task(f"{plan.label} run", total=len(todo), status="")

                async def one(task: Task, key: TrialKey) -> None:
                    nonlocal passed, failed, errors
                    async with limiter:
                        record = None
                        for attempt in range(config.infra_retries + 1):
                            record = await run_trial(
                                task, key, gateway=gateway, client=clients[task.domain], components=components, limits=limits, mcp_base_url=base_url
                            )
                            record.attempts = attempt + 1
                            if record.status == "scored":
                                break
                            log.warning("%s: infrastructure failure (%s), attempt %d", key.slug, record.failure_class, attempt + 1)
                        assert record is not None
                        directory.save(record)
                    if record.status != "scored":
                        errors += 1
                    elif record.strict:
                        passed += 1
                    else:
                        failed += 1
                    progress.update(job, advance=1, status=f"pass {passed}  fail {failed}  ⊥ {errors}")

                try:
                    async with anyio.create_task_group() as group:
                        for task, key in todo:
                            group.start_soon(one, task, key)
                except BaseExceptionGroup as errors_group:
                    raise _first_configuration_error(errors_group) or errors_group from None
    finally:
        await components.aclose()
    wanted = {key for _, key in keys}
    everything = directory.records()
    records = [r for r in everything if r.key in wanted]
    directory.write_traces(everything)
    summary = summarise(records, plan, prices)
    directory.write_results(records, summary)
    return RunResult(directory=directory.root, plan=plan, records=records, ran=len(todo), skipped=len(keys) - len(todo), summary_markdown=summary, notes=plan.notes)
