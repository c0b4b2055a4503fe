"""`crmbench run`: every selected task × round through the real gateway, agent, user and grader.

Trials run concurrently (bounded), each record is written atomically as soon as it is graded, and a
rerun of the same command resumes: finished trials are skipped, ⊥ trials are retried.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import logging
import os
import re
import secrets
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

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
from models.model import UsageLedger
from models.prices import DEFAULT_PRICE_TABLE, PriceTable
from models.types import Usage
from servers.gateway import Gateway
from servers.http import serve_in_loop
from servers.trials import TrialStore

if TYPE_CHECKING:
    from fastmcp import Client

log = logging.getLogger("crmbench.run")


def trial_seed(base_seed: int, task_id: str, round_index: int) -> int:
    """A stable per-trial seed derived from the base seed, the task and the round."""
    digest = hashlib.sha256(f"{base_seed}|{task_id}|{round_index}".encode()).digest()
    return int.from_bytes(digest[:4], "big")


class CatalogInvalid(ValueError):
    """The selected tasks cannot be run as they are (structure or lock). The message says what to do."""


def choose_tasks(config: RunConfig) -> list[Task]:
    catalog = load_catalog()
    known = sorted({t.domain for t in catalog.values()})
    unknown = [d for d in config.domain if d not in known]
    if unknown:
        raise CatalogInvalid(f"--domain {unknown[0]!r} has no tasks in the catalog; known domains: {', '.join(known)}")
    tasks = select_tasks(catalog, domains=config.domain, task_ids=config.task)
    if config.capability:
        tasks = [t for t in tasks if set(t.capabilities) & set(config.capability)]
    if config.difficulty:
        tasks = [t for t in tasks if t.difficulty in config.difficulty]
    return tasks


ALLOW_STALE_LOCK_ENV = "CRMBENCH_ALLOW_STALE_LOCK"
"""`=1` does what `--allow-stale-lock` does (the test suite sets it: tests check behaviour, the release
gates check the lock)."""


def preflight(tasks: list[Task], config: RunConfig) -> None:
    """What `crmbench validate` checks structurally, for the selected tasks, before anything runs: every
    domain is registered, every contract names real tools, arguments and state paths, every initial state
    validates; and the catalog lock matches the task files (a run must record the dataset it claims)."""
    from contracts.graph import load_graph
    from harness.validate import validate_tasks
    from servers.registry import UnknownDomain, environment_class

    domains = sorted({t.domain for t in tasks})
    try:
        envs = {d: environment_class(d) for d in domains}
        graphs = {d: load_graph(d) for d in domains}
    except UnknownDomain as exc:
        owner = next(t.id for t in tasks if t.domain == exc.args[0])
        raise CatalogInvalid(f"task {owner!r}: {exc}") from None
    except (OSError, ValueError) as exc:
        raise CatalogInvalid(f"cannot load a domain graph: {exc}") from None
    problems = validate_tasks(tasks, envs, graphs)
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise CatalogInvalid(f"the selected tasks do not validate: {problems[0]}{more}; run `crmbench validate` for the full list")
    stale = stale_lock_files(domains)
    if stale and not (config.allow_stale_lock or os.environ.get(ALLOW_STALE_LOCK_ENV) == "1"):
        raise CatalogInvalid(
            f"the catalog lock does not match the files of the selected domains (changed: {', '.join(stale)}); "
            "run `python -m harness.benchmark_spec --gold --write-lock` after checking the catalog, "
            "or pass --allow-stale-lock to run an unreleased catalog"
        )


def stale_lock_files(domains: list[str]) -> list[str]:
    """Catalog files of these domains (tasks, graph, policy) whose content differs from the committed
    lock, or that the lock does not know. Other domains' files do not block a run of these."""
    import json

    from contracts.catalog import LOCK_PATH, catalog_lock

    if not LOCK_PATH.exists():
        return [LOCK_PATH.name + " (missing)"]
    committed = json.loads(LOCK_PATH.read_text(encoding="utf-8")).get("files", {})
    current = catalog_lock()["files"]
    names = set(committed) | set(current)
    return sorted(n for n in names if Path(n).stem in domains and committed.get(n) != current.get(n))


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


@contextlib.asynccontextmanager
async def _maybe_mcp_clients(gateway: Gateway, enabled: bool) -> AsyncIterator[dict[str, Client]]:
    """In-memory MCP clients for in-process agents when asked (`--in-process-tools mcp`); by default they
    use the gateway's lean path (no clients)."""
    if not enabled:
        yield {}
        return
    async with gateway.in_memory_clients() as clients:
        yield clients


async def _rejudge_ungraded(
    existing: list[TrialRecord], tasks: list[Task], components: TrialComponents, directory: RunDirectory, console: Console
) -> list[TrialRecord]:
    """Spec A.2: a trial whose judge failed is re-judged from its record, never re-run. Its conversation
    and tool trace are complete; only the reply judgement is missing."""
    from harness.regrade import grade_record

    by_id = {t.id: t for t in tasks}
    pending = [r for r in existing if r.ungraded is not None and r.key.task_id in by_id]
    if not pending:
        return existing
    console.print(f"re-judging {len(pending)} trial(s) whose judge failed (no agent or user call)")
    out = []
    for record in existing:
        if record.ungraded is not None and record.key.task_id in by_id:
            ledger = UsageLedger()
            updated, _ = await grade_record(record, by_id[record.key.task_id], components.judge(ledger))
            usage = dict(updated.usage)
            for role, spent in ledger.snapshot().items():
                usage[role] = usage.get(role, Usage()) + spent
            record = updated.model_copy(update={"usage": usage})
            directory.save(record)
        out.append(record)
    return out


async def execute_run(config: RunConfig, *, console: Console | None = None, components: TrialComponents | None = None) -> RunResult:
    console = console or Console(stderr=True)
    components = components or TrialComponents(config, resolve_plan(config))
    plan = components.plan
    tasks = choose_tasks(config)
    if not tasks:
        raise ValueError("no task matches the selection")
    preflight(tasks, config)
    prices = PriceTable.load(config.price_table or DEFAULT_PRICE_TABLE)
    manifest = build_manifest(config, plan, prices, [t.id for t in tasks], catalog_lock())
    directory = RunDirectory(config.out or default_out(plan, manifest["config_hash"]))
    directory.lock()  # a second run on the same directory is refused; released on exit, even on SIGKILL
    try:
        return await _execute(config, console, components, plan, tasks, prices, manifest, directory)
    finally:
        directory.unlock()


async def _execute(
    config: RunConfig,
    console: Console,
    components: TrialComponents | None,
    plan: Plan,
    tasks: list[Task],
    prices: PriceTable,
    manifest: dict,
    directory: RunDirectory,
) -> RunResult:
    directory.open(manifest)
    for note in plan.notes:
        console.print(f"[yellow]note[/yellow]: {note}")

    keys = [(task, TrialKey(task_id=task.id, round=r, seed=trial_seed(config.base_seed, task.id, r))) for r in range(config.rounds) for task in tasks]
    existing = directory.records()
    components = components or TrialComponents(config, plan)
    existing = await _rejudge_ungraded(existing, tasks, components, directory, console)
    finished = {r.key for r in existing if r.finished}
    unfinished = {r.key: r for r in existing if not r.finished}
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
        async with _maybe_mcp_clients(gateway, config.in_process_tools == "mcp") as clients, _maybe_http(gateway, serve_http) as base_url:
            with Progress(*columns, console=console, disable=not console.is_terminal) as progress:
                job = progress.add_task(f"{plan.label} run", total=len(todo), status="")

                async def one(task: Task, key: TrialKey) -> None:
                    nonlocal passed, failed, errors
                    async with limiter:
                        record = None
                        # Usage of every attempt is kept: this invocation's ⊥ attempts and those of an
                        # earlier invocation whose ⊥ record this one replaces.
                        earlier = unfinished.get(key)
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
