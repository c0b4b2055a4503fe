"""`crmbench run`: every selected task × round through the real gateway, agent, user and grader.

Trials run concurrently (bounded) — in this process, in `--workers N` processes, or on Ray actors
(`--executor ray`, see `harness.executors`) —, each record is written atomically by the run's record
writer as soon as it is graded, and a rerun of the same command resumes: finished trials are skipped,
⊥ trials are retried, ungraded trials are re-judged.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import logging
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from contracts.catalog import catalog_domains, catalog_lock, load_selection, select_tasks
from contracts.schema import Task
from harness.runner.components import TrialComponents
from harness.runner.config import RunConfig
from harness.executors import check_executor, make_executor, prepare_workers
from harness.executors.shard import ComponentFactory, TrialWork
from harness.gc_policy import bulk_load, long_lived
from harness.manifest import build_manifest
from harness.runner.plan import Plan, resolve_plan
from harness.records import TrialKey, TrialRecord
from harness.rundir import RunDirectory, refuse_unidentified_resume
from harness.summary import summarise
from harness.runner.trial import judge_calls_at_once
from harness.writer import RecordWriter, record_writer
from models.model import UsageLedger
from models.prices import DEFAULT_PRICE_TABLE, PriceTable
from models.types import Usage

log = logging.getLogger("crmbench.run")


def trial_seed(base_seed: int, task_id: str, round_index: int) -> int:
    """A stable per-trial seed derived from the base seed, the task and the round."""
    digest = hashlib.sha256(f"{base_seed}|{task_id}|{round_index}".encode()).digest()
    return int.from_bytes(digest[:4], "big")


class CatalogInvalid(ValueError):
    """The selected tasks cannot be run as they are (structure or lock). The message says what to do."""


def choose_tasks(config: RunConfig) -> list[Task]:
    known = catalog_domains()
    catalog = load_selection(config.domain, config.task)  # only the files the selection needs
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
    with bulk_load():  # validation dumps every initial world: many objects, no cyclic garbage
        problems = validate_tasks(tasks, envs, graphs)
    if problems:
        from contracts.catalog import task_files

        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        owner = next((t for t in sorted(tasks, key=lambda t: -len(t.id)) if problems[0].startswith(t.id)), None)
        source = next((str(f) for f in task_files() if owner is not None and f.stem == owner.domain), None)
        where = f"{source}: " if source else ""
        raise CatalogInvalid(f"{where}the selected tasks do not validate: {problems[0]}{more}; run `crmbench validate` for the full list")
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


def load_price_table(path: Path | None) -> PriceTable:
    """The price table, or one sentence naming the file and what is wrong with it."""
    import yaml
    from pydantic import ValidationError

    from models.base import ConfigurationError

    where = path or DEFAULT_PRICE_TABLE
    try:
        return PriceTable.load(where)
    except FileNotFoundError:
        raise ConfigurationError(f"--price-table {where}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigurationError(f"--price-table {where}: cannot read it ({exc})") from None
    except yaml.YAMLError as exc:
        raise ConfigurationError(f"--price-table {where}: invalid YAML ({str(exc).splitlines()[0]})") from None
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        field = ".".join(str(p) for p in first.get("loc", ())) or "(document)"
        raise ConfigurationError(f"--price-table {where}: field {field}: {first.get('msg')} ({len(exc.errors())} problem(s))") from None


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
    worker_cpu_s: float = 0.0
    """CPU seconds spent by worker processes or Ray actors (0 when the trials ran in this process)."""


async def _rejudge_ungraded(
    existing: list[TrialRecord], tasks: list[Task], components: TrialComponents, writer: RecordWriter, console: Console
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
            await writer.save(record)
        out.append(record)
    return out


async def execute_run(
    config: RunConfig,
    *,
    console: Console | None = None,
    components: TrialComponents | None = None,
    component_factory: ComponentFactory | None = None,
) -> RunResult:
    """Run (or resume) the benchmark as `config` says.

    Trial components (agent, user, judge) come from `components` (ready-built, e.g. scripted models:
    in-process runs only), else from `component_factory(config, plan)` — a picklable top-level function
    or class, called by this process and by every worker process or Ray actor to build its own —, else
    from `TrialComponents(config, plan)`."""
    console = console or Console(stderr=True)
    if components is not None and component_factory is not None:
        raise ValueError("pass components= or component_factory=, not both")
    factory: ComponentFactory | None = None if components is not None else (component_factory or TrialComponents)
    check_executor(config, factory)
    tasks = choose_tasks(config)
    if not tasks:
        raise ValueError("no task matches the selection")
    calls_at_once = max(judge_calls_at_once(t) for t in tasks)
    config = config.with_provider_cap(calls_at_once)
    if components is not None and components.config.provider_concurrency is None:
        components.config = components.config.with_provider_cap(calls_at_once)
    resolved = components.plan if components is not None else resolve_plan(config)
    if components is None:
        assert factory is not None
        components = factory(config, resolved)
    prepare_workers(config, resolved.models().values())  # their start-up overlaps the preflight
    plan = components.plan
    preflight(tasks, config)
    script = getattr(components, "script", None)
    if plan.agent_kind == "script" and script is not None:
        uncovered = [t.id for t in tasks if t.id not in script.tasks]
        if uncovered:
            more = f" (and {len(uncovered) - 1} more)" if len(uncovered) > 1 else ""
            raise CatalogInvalid(f"--script {config.script}: the trajectory file has no turns for task {uncovered[0]!r}{more}; select its tasks with --task")
    prices = load_price_table(config.price_table)
    manifest = build_manifest(config, plan, prices, [t.id for t in tasks], catalog_lock())
    directory = RunDirectory(config.out or default_out(plan, manifest["config_hash"]))
    if directory.root.exists() and not directory.root.is_dir():
        raise CatalogInvalid(f"--out {directory.root}: is a file, not a run directory")
    try:
        directory.lock()  # a second run on the same directory is refused; released on exit, even on SIGKILL
    except OSError as exc:
        raise CatalogInvalid(f"--out {directory.root}: cannot create the run directory there ({exc.strerror or exc})") from None
    try:
        refuse_unidentified_resume(directory, plan.agent_kind, plan.agent_code, allowed=config.allow_unidentified_agent)
        with long_lived():  # the catalog, the plan, the components: the run's long-lived heap
            return await _execute(config, console, components, factory, resolved, tasks, prices, manifest, directory)
    finally:
        directory.unlock()


def _record_order(record: TrialRecord) -> tuple[str, str]:
    """The order of the run directory's files (`trials/<domain>/<slug>.json`), as `records()` reads them."""
    return record.domain, f"{record.key.slug}.json"


async def _execute(
    config: RunConfig,
    console: Console,
    components: TrialComponents,
    factory: ComponentFactory | None,
    resolved: Plan,
    tasks: list[Task],
    prices: PriceTable,
    manifest: dict,
    directory: RunDirectory,
) -> RunResult:
    plan = components.plan
    directory.open(manifest)
    for note in plan.notes:
        console.print(f"[yellow]note[/yellow]: {note}")

    keys = [(task, TrialKey(task_id=task.id, round=r, seed=trial_seed(config.base_seed, task.id, r))) for r in range(config.rounds) for task in tasks]
    existing = directory.records()  # read once: what this invocation produces is kept as it is produced
    columns = (TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), TimeRemainingColumn(), TextColumn("{task.fields[status]}"))
    passed = failed = errors = 0
    try:
        async with record_writer(directory) as writer:
            existing = await _rejudge_ungraded(existing, tasks, components, writer, console)
            held = {r.key: r for r in existing}
            finished = {r.key for r in existing if r.finished}
            unfinished = {r.key: r for r in existing if not r.finished}
            todo = [TrialWork(task, key, unfinished.get(key)) for task, key in keys if key not in finished]
            if finished:
                console.print(f"resuming {directory.root}: {len(keys) - len(todo)} of {len(keys)} trial(s) already done")
            executor = make_executor(config, components, factory, resolved, len(todo))
            with Progress(*columns, console=console, disable=not console.is_terminal) as progress:
                job = progress.add_task(f"{plan.label} run", total=len(todo), status="")

                async def emit(record: TrialRecord, data: bytes | None) -> None:
                    """A finished trial: durable first, then counted (a killed run loses only trials in flight)."""
                    nonlocal passed, failed, errors
                    await writer.save(record, data)
                    held[record.key] = record
                    if record.status != "scored":
                        errors += 1
                    elif record.strict:
                        passed += 1
                    else:
                        failed += 1
                    progress.update(job, advance=1, status=f"pass {passed}  fail {failed}  ⊥ {errors}")

                if todo:
                    await executor.run(todo, emit)
    finally:
        await components.aclose()
    wanted = {key for _, key in keys}
    everything = sorted(held.values(), key=_record_order)
    records = [r for r in everything if r.key in wanted]
    directory.write_traces(everything)
    summary = summarise(records, plan, prices)
    directory.write_results(records, summary)
    return RunResult(
        directory=directory.root,
        plan=plan,
        records=records,
        ran=len(todo),
        skipped=len(keys) - len(todo),
        summary_markdown=summary,
        notes=plan.notes,
        worker_cpu_s=executor.worker_cpu_s,
    )
