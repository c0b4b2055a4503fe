"""Concurrency efficiency of `crmbench run` with its record writer and with `--workers N`.

    uv run python scripts/bench_executors.py [--latency 1.0] [--trials 256 1024] [--workers 1 2]

Each measurement (a fresh process) runs N trials of one task, all at once (`--concurrency N`), through
the whole runtime: gateway, reference graph agent with router, scripted user, grader, atomic fsync'd
trial records. Every model call sleeps `latency` seconds (3 calls per trial), so the ideal wall time
is 3 × latency whatever N; efficiency = ideal / measured wall (1.0: the harness costs nothing).

The in-run baseline, "records on the loop", is the run as it was before the record writer: each
record written (fsync'd) on the event loop as its trial finishes. Every other row is today's code,
with 1 or more worker processes (each its own gateway and event loop; the fork server and the
workers' start-up are inside the measured time). Machines here are noisy: read the ratios.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("FASTMCP_CHECK_FOR_UPDATES", "off")
os.environ.setdefault("FASTMCP_LOG_LEVEL", "CRITICAL")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

TASK = "payments_balance_inquiry_01"
CALLS_PER_TRIAL = 3  # router, tool call, final reply (one user turn)


def _records_on_the_loop() -> None:
    """The baseline: what `crmbench run` did before the record writer (fsync'd writes on the event loop)."""
    from harness.writer import RecordWriter

    async def save(self: RecordWriter, record: Any, data: bytes | None = None) -> None:
        self.directory.save(record, data)

    RecordWriter.save = save  # type: ignore[method-assign]


async def measure(n: int, workers: int, latency: float, mode: str) -> dict[str, float]:
    from rich.console import Console

    from harness.runner.config import RunConfig
    from harness.runner.gold_models import GoldPlayedModels
    from harness.runner.run import execute_run

    if mode == "loop":
        _records_on_the_loop()
    with tempfile.TemporaryDirectory() as tmp:
        config = RunConfig(
            out=Path(tmp) / "run", task=[TASK], rounds=n, concurrency=n, workers=workers, agent="graph", agent_model="mock:gold",
            user="scripted", judge="evidence", provider_concurrency=max(n, 1) * 2,
        )  # fmt: skip
        factory = GoldPlayedModels.of([TASK], latency_s=latency)  # picklable: every process builds its own models
        started = time.perf_counter()
        result = await execute_run(config, console=Console(file=open(os.devnull, "w")), component_factory=factory)  # noqa: SIM115
        wall = time.perf_counter() - started
    assert len(result.records) == n and all(r.strict for r in result.records)
    ideal = CALLS_PER_TRIAL * latency
    return {"wall_s": wall, "ideal_s": ideal, "efficiency": ideal / wall}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--latency", type=float, default=1.0)
    parser.add_argument("--trials", type=int, nargs="+", default=[256, 1024])
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--one", nargs=3, metavar=("TRIALS", "WORKERS", "MODE"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        n, workers, mode = int(args.one[0]), int(args.one[1]), args.one[2]
        print(json.dumps(asyncio.run(measure(n, workers, args.latency, mode))))
        return
    print(f"model latency {args.latency:g} s/call, {CALLS_PER_TRIAL} calls per trial -> ideal {CALLS_PER_TRIAL * args.latency:.2f} s per run")
    print(f"{'trials':>7} {'how':<22} {'wall s':>8} {'efficiency':>10} {'vs baseline':>12}")
    for n in args.trials:
        rows = [("records on the loop", 1, "loop")] + [(f"writer, {w} worker(s)" if w > 1 else "writer, in process", w, "writer") for w in args.workers]
        baseline = None
        for label, workers, mode in rows:
            out = subprocess.run(
                [sys.executable, __file__, "--latency", str(args.latency), "--one", str(n), str(workers), mode], capture_output=True, text=True, check=True
            )
            r = json.loads(out.stdout.strip().splitlines()[-1])
            baseline = baseline or r["wall_s"]
            print(f"{n:>7} {label:<22} {r['wall_s']:>8.2f} {r['efficiency']:>10.2f} {baseline / r['wall_s']:>11.2f}×")


if __name__ == "__main__":
    main()
