"""Harness overhead on realistic trials: concurrency efficiency and harness CPU per trial.

    uv run python scripts/bench_harness.py [--latency 1.0] [--trials 1 256 1024] [--workers 1 2] [--transport lean mcp]

A realistic trial is the model-driven runtime end to end: the reference graph agent with its router,
the LLM user simulator and the LLM judge, each role a scripted model (`harness.gold_models`) that plays
the gold path of `payments_transfer_daily_limit_01` — two user turns, four tool calls through the
gateway, twelve model calls — and sleeps `latency` seconds per call. A trial's ideal wall time is therefore
12 × latency, and N trials in flight at once ideally take the same. Per level, in a fresh process, after
one unmeasured cold-start run (one trial per worker, through the same executor):

- efficiency = ideal / measured wall time (1.0: the harness adds nothing; the issue's goal ≥ 0.90 at 256);
- harness CPU per trial = CPU time of the run (this process, and the worker processes as they report
  it: `RunResult.worker_cpu_s`, which includes each worker's start-up) / N — the model
  sleeps cost no CPU, so this is what the harness spends (gateway, agent loop, user, judge, grading,
  records); and, with `--transport lean mcp`, the same run with in-process agents on an in-memory MCP
  client, as the in-run baseline (ratio lean/mcp);
- peak RSS of the level's process (the driver's; workers are separate processes);
- with `--workers 1 2`, each level also over worker processes (`crmbench run --workers`), each with its
  own gateway, building the same scripted models from the picklable `GoldPlayedModels` factory.

Machines here are noisy: read the ratios. Every trial must pass (the run is checked, not just timed).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("FASTMCP_CHECK_FOR_UPDATES", "off")
os.environ.setdefault("FASTMCP_LOG_LEVEL", "CRITICAL")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

TASK = "payments_transfer_daily_limit_01"
CALLS_PER_TRIAL = 12  # user 3 (2 messages + stop), router 2, agent 6 (4 tool steps + 2 replies), judge 1


def _cpu_s() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


async def _measure(n: int, latency: float, transport: str, workers: int = 1) -> dict[str, float]:
    from rich.console import Console

    from harness.config import RunConfig
    from harness.gold_models import GoldPlayedModels
    from harness.run import execute_run

    with tempfile.TemporaryDirectory() as tmp:
        config = RunConfig(
            out=Path(tmp) / "run",
            task=[TASK],
            rounds=n,
            concurrency=n,
            workers=workers,
            agent="graph",
            agent_model="mock:gold",
            user="llm",
            user_model="mock:gold",
            judge="llm",
            judge_model="mock:gold",
            in_process_tools=transport,  # type: ignore[arg-type]
        )
        factory = GoldPlayedModels.of([TASK], latency_s=latency)  # picklable: worker processes build their own
        cpu, started = _cpu_s(), time.perf_counter()
        result = await execute_run(config, console=Console(file=open(os.devnull, "w")), component_factory=factory)  # noqa: SIM115
        wall, cpu = time.perf_counter() - started, _cpu_s() - cpu + result.worker_cpu_s
    if len(result.records) != n or not all(r.strict for r in result.records):
        raise SystemExit(f"the benchmark's trials must all pass: {sum(bool(r.strict) for r in result.records)}/{n}")
    calls = sum(u.calls for u in result.records[0].usage.values())
    if calls != CALLS_PER_TRIAL:
        raise SystemExit(f"a trial made {calls} model calls, expected {CALLS_PER_TRIAL}")
    ideal = CALLS_PER_TRIAL * latency
    return {"trials": n, "wall_s": wall, "ideal_s": ideal, "efficiency": ideal / wall, "cpu_ms_per_trial": 1000 * cpu / n}


async def level(n: int, latency: float, transport: str, workers: int) -> dict[str, float]:
    cold_started = time.perf_counter()
    await _measure(workers, latency, transport, workers)  # the same path warmed (imports, the workers' fork server)
    cold = time.perf_counter() - cold_started
    warm = await _measure(n, latency, transport, workers)
    return {**warm, "cold_start_s": cold, "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--latency", type=float, default=1.0, help="seconds per model call")
    parser.add_argument("--trials", type=int, nargs="+", default=[1, 256, 1024])
    parser.add_argument("--transport", nargs="+", choices=["lean", "mcp"], default=["lean"], help="how in-process agents reach the gateway")
    parser.add_argument("--workers", type=int, nargs="+", default=[1], help="worker processes (--workers of crmbench run)")
    parser.add_argument("--level", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.level is not None:
        print(json.dumps(asyncio.run(level(args.level, args.latency, args.transport[0], args.workers[0]))))
        return
    ideal = CALLS_PER_TRIAL * args.latency
    print(f"realistic trial: {CALLS_PER_TRIAL} model calls at {args.latency * 1000:.0f} ms -> ideal {ideal:.1f} s per run, whatever the number in flight")
    print(f"{'transport':>9} {'workers':>7} {'trials':>7} {'wall s':>8} {'efficiency':>10} {'CPU ms/trial':>13} {'peak RSS MiB':>13} {'cold start s':>13}")
    cpu: dict[tuple[str, int, int], float] = {}
    for n in args.trials:
        for workers in args.workers:
            for transport in args.transport:
                command = [sys.executable, __file__, "--level", str(n), "--latency", str(args.latency), "--transport", transport, "--workers", str(workers)]
                out = subprocess.run(command, capture_output=True, text=True, check=True)
                r = json.loads(out.stdout.strip().splitlines()[-1])
                cpu[(transport, workers, n)] = r["cpu_ms_per_trial"]
                print(
                    f"{transport:>9} {workers:>7} {n:>7} {r['wall_s']:>8.2f} {r['efficiency']:>10.2f} {r['cpu_ms_per_trial']:>13.2f} "
                    f"{r['peak_rss_mib']:>13.0f} {r['cold_start_s']:>13.2f}"
                )
    if {"lean", "mcp"} <= set(args.transport):
        for n in args.trials:
            for workers in args.workers:
                print(f"CPU per trial lean/mcp, {n} trials on {workers} worker(s): {cpu[('lean', workers, n)] / cpu[('mcp', workers, n)]:.2f}")


if __name__ == "__main__":
    main()
