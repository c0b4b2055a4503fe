"""Release gates: `python -m harness.benchmark_spec [--gold] [--write-lock]` (spec A.5).

Without flags: structural validation of the catalog, its graphs and the lock. `--gold` also executes every
gold path from fresh state through the gateway, checks the no-op trajectory, and mutation-tests every
declared check. `--write-lock` rewrites the content-addressed lock once everything passes.
Prints the contract inventory and the falsifiability report; exits non-zero on any failure.
"""

from __future__ import annotations

import asyncio
import gc
import json
import logging
import multiprocessing
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from contracts import catalog as cat
from contracts.graph import load_graph
from contracts.schema import Task
from harness.files import write_atomic
from harness.policy_rules import GATED_DOMAINS
from harness.release.debt import DebtError, load_debt, write_debt
from harness.release.gates import TaskProof, prove_task
from harness.release.inventory import inventory, label_summary, render_markdown
from harness.release.replay import GatewayReplayer
from harness.runner.config import ReleaseConfig
from harness.validate import overspecification_warnings, validate_manifest, validate_tasks
from servers.gateway import Gateway
from servers.registry import environment_class

log = logging.getLogger("crmbench.release")


class ReleaseCommand(ReleaseConfig):
    __doc__ = ReleaseConfig.__doc__


def parse_args(argv: list[str] | None = None) -> ReleaseConfig:
    """Parse flags derived from `ReleaseConfig` (the same model `crmbench validate` uses)."""
    from pydantic_settings import CliApp, CliSettingsSource

    source = CliSettingsSource(ReleaseCommand, cli_prog_name="python -m harness.benchmark_spec", cli_kebab_case=True, cli_implicit_flags=True)
    args = sys.argv[1:] if argv is None else argv
    parsed = CliApp.run(ReleaseCommand, cli_args=args, cli_settings_source=source)
    return ReleaseConfig.model_validate(parsed.model_dump())


def _debt_of(task: Task, use_debt: bool) -> list[str]:
    return load_debt(task.domain).get(task.id, []) if use_debt else []


async def _prove_chunk(replayer: GatewayReplayer, tasks: list[Task], mutate: bool, on_done: Any = None, use_debt: bool = True) -> list[TaskProof]:
    """Prove `tasks` one after another. The collector runs at a run's pace (`run_pace`: what the proofs
    start from is frozen, young collections come in larger batches): measured on retail in one process,
    its time fell from ~2.1 s (11 full collections walking the catalog and every cache) to ~0.4 s."""
    from harness.gc_policy import run_pace

    with run_pace():
        return await _prove_each(replayer, tasks, mutate, on_done, use_debt)


async def _prove_each(replayer: GatewayReplayer, tasks: list[Task], mutate: bool, on_done: Any, use_debt: bool) -> list[TaskProof]:
    proofs: list[TaskProof] = []
    for task in tasks:
        try:
            proofs.append(
                await prove_task(
                    replayer, task, environment_class(task.domain), mutate=mutate, graph=load_graph(task.domain), debt=_debt_of(task, use_debt)
                )
            )
        except Exception as exc:  # a broken gold path must not hide the others
            log.debug("gold run failed", exc_info=True)
            proofs.append(_errored(task, exc))
        if on_done is not None:
            on_done(task)
    return proofs


def default_workers() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def _chunks(tasks: list[Task], size: int) -> list[list[Task]]:
    """Consecutive runs of at most `size` tasks of one domain (a worker's gateway serves what it needs)."""
    chunks: list[list[Task]] = []
    for task in tasks:
        if chunks and len(chunks[-1]) < size and chunks[-1][0].domain == task.domain:
            chunks[-1].append(task)
        else:
            chunks.append([task])
    return chunks


# ---- worker processes: each has its own gateway, event loop and replayer, kept across chunks ----------
_worker: dict[str, Any] = {}


def _worker_prove(tasks: list[Task], mutate: bool, use_debt: bool = True) -> list[TaskProof]:
    loop = _worker.get("loop")
    if loop is None:
        # What the worker inherited from its parent (a test runner can be large) is never garbage: keep
        # the collector from re-scanning it (and from touching every inherited page) on every collection.
        gc.freeze()
        logging.getLogger().setLevel(logging.WARNING)
        loop = _worker["loop"] = asyncio.new_event_loop()
        replayer = GatewayReplayer(Gateway(), lean=True)
        loop.run_until_complete(replayer.__aenter__())
        _worker["replayer"] = replayer
    return loop.run_until_complete(_prove_chunk(_worker["replayer"], tasks, mutate, use_debt=use_debt))


def _prove_all(tasks: list[Task], mutate: bool, console: Console, workers: int = 1, use_debt: bool = True) -> list[TaskProof]:
    """Prove every task; with `workers > 1` over a process pool (chunks of one domain's tasks). The
    result is in the order of `tasks` whatever the number of workers."""
    columns = (TextColumn("[bold]gold+mutations"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), TextColumn("{task.fields[current]}"))
    with Progress(*columns, console=console, transient=True, disable=not console.is_terminal) as bar:
        job = bar.add_task("tasks", total=len(tasks), current="")
        if workers <= 1 or len(tasks) < 2:

            async def run() -> list[TaskProof]:
                async with GatewayReplayer(Gateway(sorted({t.domain for t in tasks})), lean=True) as replayer:
                    return await _prove_chunk(replayer, tasks, mutate, lambda t: bar.update(job, advance=1, current=t.id), use_debt)

            return asyncio.run(run())
        chunks = _chunks(tasks, max(1, min(8, len(tasks) // (workers * 4) or 1)))
        results: list[list[TaskProof] | None] = [None] * len(chunks)
        context = multiprocessing.get_context("fork") if "fork" in multiprocessing.get_all_start_methods() else None
        with ProcessPoolExecutor(max_workers=min(workers, len(chunks)), mp_context=context) as pool:
            futures = {pool.submit(_worker_prove, chunk, mutate, use_debt): i for i, chunk in enumerate(chunks)}
            for future in as_completed(futures):
                i = futures[future]
                results[i] = future.result()
                bar.update(job, advance=len(chunks[i]), current=chunks[i][-1].id)
    return [proof for chunk in results for proof in chunk or []]


def _errored(task: Task, exc: Exception) -> TaskProof:
    from grader.verdicts import roll_up

    empty = roll_up(task.id, [], model_failure="gold path could not be executed")
    return TaskProof(task_id=task.id, domain=task.domain, gold=empty, noop=empty, needs_effect=True, error=f"{type(exc).__name__}: {exc}")


def _battery_row(proofs: list[TaskProof]) -> dict[str, Any]:
    """Declared-check kill rate, behavioural kill rate and equivalence pass rate over a set of tasks."""
    declared = sum(len(p.gold.checks) for p in proofs if p.gold.strict)
    killed = sum(len(p.killed) for p in proofs if p.gold.strict)
    reports = [p.batteries for p in proofs if p.batteries is not None]
    b = {o: sum(r.count("behaviour", o) for r in reports) for o in ("killed", "missed", "guarded", "exempt")}
    e = {o: sum(r.count("equivalence", o) for r in reports) for o in ("passed", "false_failure", "exempt")}
    return {
        "tasks": len(proofs),
        "declared_killed": killed,
        "declared": declared,
        "behaviour_killed": b["killed"],
        "behaviour_scored": b["killed"] + b["missed"],
        "behaviour_guarded": b["guarded"],
        "behaviour_exempt": b["exempt"],
        "equivalence_passed": e["passed"],
        "equivalence_scored": e["passed"] + e["false_failure"],
        "equivalence_exempt": e["exempt"],
    }


def _pct(num: int, den: int) -> str:
    return f"{100.0 * num / den:.1f}% ({num}/{den})" if den else "n/a (0)"


def _report_batteries(proofs: list[TaskProof], console: Console) -> dict[str, Any]:
    rows: dict[str, Any] = {}
    by_domain: dict[str, list[TaskProof]] = {}
    for p in proofs:
        by_domain.setdefault(p.domain, []).append(p)
    for domain in sorted(by_domain):
        rows[domain] = _battery_row(by_domain[domain])
    rows["all"] = _battery_row(proofs)
    console.print("\n[bold]Validity[/bold] (declared checks killed by targeted mutations; behavioural mistakes that fail strictly; valid alternatives that pass)")
    console.print("| domain | tasks | declared-check kill rate | behavioural kill rate | guarded by the world | exempt | equivalence pass rate | exempt |", markup=False)
    console.print("|---|---|---|---|---|---|---|---|", markup=False)
    for domain, r in rows.items():
        console.print(
            f"| {domain} | {r['tasks']} | {_pct(r['declared_killed'], r['declared'])} | {_pct(r['behaviour_killed'], r['behaviour_scored'])} | "
            f"{r['behaviour_guarded']} | {r['behaviour_exempt']} | {_pct(r['equivalence_passed'], r['equivalence_scored'])} | {r['equivalence_exempt']} |",
            markup=False,
        )
    return rows


KIND_COLUMNS = ("generated", "killed", "guarded", "exempt", "missed", "passed", "false_failure", "debt")


def kind_table(proofs: list[TaskProof]) -> dict[str, dict[str, dict[str, int]]]:
    """domain -> `battery/kind` -> outcome counts (generated = every case that applied)."""
    table: dict[str, dict[str, dict[str, int]]] = {}
    for p in proofs:
        if p.batteries is None:
            continue
        for r in p.batteries.results:
            for domain in (p.domain, "all"):
                row = table.setdefault(domain, {}).setdefault(f"{r.battery}/{r.kind}", dict.fromkeys(KIND_COLUMNS, 0))
                row["generated"] += 1
                row[r.outcome] = row.get(r.outcome, 0) + 1
    return {d: dict(sorted(rows.items())) for d, rows in sorted(table.items(), key=lambda kv: (kv[0] == "all", kv[0]))}


def _report_kinds(proofs: list[TaskProof], console: Console) -> dict[str, Any]:
    table = kind_table(proofs)
    console.print("\n[bold]Batteries by domain and kind[/bold] (must-fail: killed/guarded/exempt/missed; must-pass: passed/false failure; debt = a miss the ledger carries, NOT a pass)")
    console.print("| domain | battery/kind | generated | killed | guarded | exempt | missed | passed | false failure | KNOWN DEBT |", markup=False)
    console.print("|---|---|---|---|---|---|---|---|---|---|", markup=False)
    for domain, rows in table.items():
        for kind, r in rows.items():
            console.print(
                f"| {domain} | {kind} | {r['generated']} | {r['killed']} | {r['guarded']} | {r['exempt']} | {r['missed']} | {r['passed']} | {r['false_failure']} | {r['debt']} |",
                markup=False,
            )
    debt = {d: sum(r["debt"] for r in rows.values()) for d, rows in table.items()}
    if debt.get("all"):
        console.print(
            "[bold red]KNOWN DEBT[/bold red] (contracts/battery_debt/): "
            + ", ".join(f"{d} {n}" for d, n in debt.items() if d != "all" and n)
            + f" - {debt['all']} generated case(s) the catalog still misses; the gate passes only because the ledger carries them"
        )
    return table


def _report_paraphrases(proofs: list[TaskProof], console: Console) -> dict[str, Any]:
    from harness.release.reply_paraphrases import table

    rows = table([(p.domain, p.batteries) for p in proofs])
    console.print("\n[bold]Reply paraphrase battery[/bold] (every reply criterion: the facts in other words must pass; dumped, retracted, negated or asked must fail; bar 100%)")
    console.print("| domain | must pass | passed | must fail | failed | rate |", markup=False)
    console.print("|---|---|---|---|---|---|", markup=False)
    for domain, r in rows.items():
        total = r["pass_cases"] + r["fail_cases"]
        rate = 100.0 * (r["passed"] + r["failed"]) / total if total else 100.0
        console.print(f"| {domain} | {r['pass_cases']} | {r['passed']} | {r['fail_cases']} | {r['failed']} | {rate:.1f}% |", markup=False)
    return rows


def _report_consent(proofs: list[TaskProof], console: Console) -> dict[str, Any]:
    """The consent paraphrase battery per domain (harness/release/consent_battery.py): 100% is the bar."""
    from harness.release.consent_battery import consent_table

    rows = [
        (p.domain, p.task_id, r.case_id, r.outcome in ("passed", "killed"))
        for p in proofs
        if p.batteries is not None
        for r in p.batteries.results
        if r.battery == "consent"
    ]
    if not rows:
        return {}
    table = consent_table(rows)
    console.print("\n[bold]Consent paraphrase battery[/bold] (general yes-forms granted; declines, deferrals and broken conditions refused)")
    console.print("| domain | consent checks | yes-forms granted | declines refused | deferrals refused | broken conditions refused |", markup=False)
    console.print("|---|---|---|---|---|---|", markup=False)
    for domain, row in table.items():
        cells = [_pct(*row[kind]) for kind in ("grants", "declines", "deferrals", "broken_conditions")]  # type: ignore[misc]
        console.print(f"| {domain} | {row['checks']} | " + " | ".join(cells) + " |", markup=False)
    return table


def _report_proofs(proofs: list[TaskProof], console: Console, verbose: bool, mutated: bool) -> dict[str, Any]:
    gold_pass = sum(p.gold.strict for p in proofs)
    effect = [p for p in proofs if p.needs_effect]
    noop_fail = sum(not p.noop.strict for p in effect)
    declared = sum(len(p.gold.checks) for p in proofs if p.gold.strict)
    killed = sum(len(p.killed) for p in proofs if p.gold.strict)
    console.print(f"gold paths passing: {gold_pass}/{len(proofs)}")
    console.print(f"no-op fails every task that needs an effect: {noop_fail}/{len(effect)} (all tasks: {sum(not p.noop.strict for p in proofs)}/{len(proofs)})")
    console.print(f"created and configured records pinned whole: {sum(not p.pins for p in proofs)}/{len(proofs)} task(s)")
    rate = 100.0 * killed / declared if declared else 100.0
    if mutated:
        console.print(f"mutation kill rate: {killed}/{declared} declared checks ({rate:.1f}%), {sum(p.mutations_run for p in proofs)} mutations run")
    else:
        console.print("mutation kill rate: skipped (--no-mutations)")
    battery_rows = _report_batteries(proofs, console) if mutated else {}
    kinds = _report_kinds(proofs, console) if mutated else {}
    paraphrases = _report_paraphrases(proofs, console) if mutated else {}
    consent = _report_consent(proofs, console) if mutated else {}
    for p in proofs:
        if p.batteries is not None:
            for result in p.batteries.results:
                if result.outcome == "missed" and result.battery == "playability":
                    console.print(f"[red]UNPLAYABLE[/red] {p.task_id}: {result.case_id} - {result.detail}")
                elif result.outcome == "missed":
                    console.print(f"[red]MISTAKE PASSES[/red] {p.task_id}: {result.case_id} - {result.detail}")
                elif result.outcome == "false_failure":
                    console.print(f"[red]VALID ROUTE FAILS[/red] {p.task_id}: {result.case_id} - {result.detail}")
                elif result.outcome == "exempt" and verbose:
                    console.print(f"[dim]exempt[/dim] {p.task_id}: {result.case_id} - {result.detail}")
            for case in p.batteries.stale_exemptions:
                console.print(f"[red]STALE EXEMPTION[/red] {p.task_id}: {case} is not generated any more; remove it")
            for case in p.batteries.stale_debt:
                console.print(f"[red]STALE DEBT[/red] {p.task_id}: {case} no longer misses; remove it from contracts/battery_debt/{p.domain}.yaml")
        if p.error:
            console.print(f"[red]ERROR[/red] {p.task_id}: {p.error}")
        elif not p.gold.strict:
            console.print(f"[red]GOLD FAILS[/red] {p.gold.summary()}")
        if not p.noop_ok:
            console.print(f"[red]NO-OP PASSES[/red] {p.task_id}: a task that needs an effect passed with no tool calls")
        for check in p.unkilled:
            console.print(f"[yellow]UNFALSIFIED[/yellow] {p.task_id}: {check}")
        for line in p.policy:
            label = "[red]POLICY[/red]" if p.domain in GATED_DOMAINS else "[dim]policy (report)[/dim]"
            console.print(f"{label} {line}")
        for line in p.pins:
            console.print(f"[red]NOT PINNED[/red] {p.task_id}: {line}")
        if verbose:
            for check, mutation in p.killed.items():
                console.print(f"  {p.task_id}: {check}  <- {mutation}")
    return {
        "batteries": battery_rows,
        "battery_kinds": kinds,
        "reply_paraphrases": paraphrases,
        "consent_battery": consent,
        "gold_pass": gold_pass,
        "tasks": len(proofs),
        "noop_fail": noop_fail,
        "needs_effect": len(effect),
        "declared_checks": declared,
        "killed_checks": killed,
        "kill_rate": rate,
        "tasks_detail": [
            {
                "task_id": p.task_id,
                "gold": p.gold.strict,
                "noop_strict": p.noop.strict,
                "needs_effect": p.needs_effect,
                "killed": p.killed,
                "unkilled": p.unkilled,
                "error": p.error,
                "policy": p.policy,
                "pins": p.pins,
                "batteries": None
                if p.batteries is None
                else [{"case": r.case_id, "battery": r.battery, "kind": r.kind, "outcome": r.outcome, "detail": r.detail} for r in p.batteries.results],
            }
            for p in proofs
        ],
    }


def _write_ledgers(tasks: list[Task], proofs: list[TaskProof], console: Console) -> None:
    """Rewrite each run domain's ledger: its tasks' current misses (tasks not run keep their entries)."""
    for domain in sorted({t.domain for t in tasks}):
        ledger = load_debt(domain)
        for p in proofs:
            if p.domain == domain and p.batteries is not None:
                ledger[p.task_id] = sorted({r.case_id for r in p.batteries.results if r.outcome in ("missed", "false_failure")})
        path = write_debt(domain, ledger)
        console.print(f"wrote {path.relative_to(path.parents[2])}: {sum(len(v) for v in ledger.values())} case(s) over {sum(bool(v) for v in ledger.values())} task(s)")


def _as_debt(proof: TaskProof) -> TaskProof:
    if proof.batteries is not None:
        for r in proof.batteries.results:
            if r.outcome in ("missed", "false_failure"):
                r.outcome = "debt"
    return proof


def main(argv: list[str] | None = None) -> int:
    return run_release(parse_args(argv))


def run_release(args: ReleaseConfig) -> int:
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    console = Console(highlight=False, soft_wrap=True)
    tasks_dir = (args.tasks_dir or cat.TASKS_DIR).resolve()
    ok = True
    try:
        catalog = cat.load_catalog(tasks_dir)
        tasks = cat.select_tasks(catalog, domains=args.domain, task_ids=args.task)
        domains = sorted({t.domain for t in catalog.values()})
        unknown = [d for d in args.domain if d not in domains]
        if unknown:  # as `run` and `tasks` do: a typo is an error, never "ALL GATES PASS" over no tasks
            raise cat.CatalogError(f"--domain {unknown[0]!r} has no tasks in the catalog; known domains: {', '.join(domains)}")
        if not tasks:
            raise cat.CatalogError("no task matches the selection (--domain and --task together)")
        envs = {d: environment_class(d) for d in domains}
        graphs = {d: load_graph(d) for d in domains}
    except (cat.CatalogError, KeyError) as exc:
        console.print(f"[red]catalog error[/red]: {exc}")
        return 2
    console.print(f"[bold]CRM-Agent-Bench release gates[/bold] - {len(tasks)} task(s) in {', '.join(domains)}")

    stage = time.perf_counter()
    problems = validate_tasks(tasks, envs, graphs)
    default_catalog = tasks_dir == cat.TASKS_DIR
    if default_catalog:
        counts: dict[str, int] = {}
        for task in catalog.values():
            counts[task.domain] = counts.get(task.domain, 0) + 1
        problems += validate_manifest(counts, cat.load_manifest().domains)
    console.print(f"structural validation: {len(problems)} problem(s) ({time.perf_counter() - stage:.1f} s)")
    for line in problems:
        console.print(f"  [red]-[/red] {line}")
    ok &= not problems
    warnings = overspecification_warnings(tasks, envs)
    if warnings:
        console.print(f"over-specification (warnings, not failures): {len(warnings)} param spec(s) only restate pinned state" + ("" if args.verbose else " (-v lists them)"))
        for line in warnings if args.verbose else []:
            console.print(f"  [yellow]-[/yellow] {line}")

    table = inventory(catalog.values())
    console.print("\n[bold]Contract inventory[/bold] (spec Table 2 columns)")
    console.print(render_markdown(table), markup=False)
    labels, pairs = label_summary(catalog.values())
    console.print(f"capability labels: {labels} distinct over {pairs} domain-label pairs (release: 36 over 38)")
    report: dict[str, Any] = {"structural_problems": problems, "overspecification_warnings": warnings, "inventory": table}

    if args.gold:
        console.print("\n[bold]Gold paths, no-op and mutations[/bold]")
        workers = args.workers or default_workers()
        started = time.perf_counter()
        try:
            proofs = _prove_all(tasks, args.mutations, console, workers, use_debt=not args.write_debt)
        except DebtError as exc:
            console.print(f"[red]debt ledger error[/red]: {exc}")
            return 2
        console.print(f"gold, no-op, mutations and batteries: {len(tasks)} task(s) in {time.perf_counter() - started:.1f} s ({workers} worker(s))")
        report["proofs"] = _report_proofs(proofs, console, args.verbose, args.mutations)
        report["exemptions"] = [
            {"task": t.id, "case": e.case, "reason": e.reason} for t in tasks for e in t.battery_exemptions or []
        ]
        if report["exemptions"]:
            console.print(f"\nbattery exemptions: {len(report['exemptions'])} (reasons: -v or --json-report)")
        if args.write_debt and args.mutations:
            _write_ledgers(tasks, proofs, console)
            proofs = [_as_debt(p) for p in proofs]
        ok &= all(p.ok or (not args.mutations and p.gold.strict and p.noop_ok and not p.pins) for p in proofs)

    if default_catalog and not args.task and not args.domain:
        if args.write_lock and ok:
            lock = cat.catalog_lock()
            write_atomic(cat.LOCK_PATH, json.dumps(lock, indent=2, sort_keys=True) + "\n")
            console.print(f"wrote {cat.LOCK_PATH.name} (sha256 {lock['catalog_sha256'][:12]})")
        elif args.write_lock:
            console.print("[red]not writing the lock: gates failed[/red]")
        else:
            fresh, why = cat.lock_status()
            console.print(f"catalog lock: {why}")
            ok &= fresh
    if args.json_report:
        write_atomic(args.json_report, json.dumps(report, indent=2, default=str))
    console.print("[green]ALL GATES PASS[/green]" if ok else "[red]GATES FAILED[/red]")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
