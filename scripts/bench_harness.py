"""Harness overhead: wall time of real runs vs the ideal, with a scripted model that sleeps a fixed latency.

    uv run python scripts/bench_harness.py [--latency 0.05] [--trials 1 16 64 256]

Each level (in a fresh process, after one unmeasured cold-start run) runs N trials of one task at concurrency N through the whole runtime (gateway, reference graph
agent with router, scripted user, grader, atomic trial records) in a fresh process. Every model call
sleeps `latency` seconds, so a trial's ideal wall time is (model calls per trial) × latency, and with N
trials in parallel the ideal run time is the same. The ratio measured/ideal is the harness overhead
(machines here are noisy: read ratios, not absolute times). Peak RSS is that level's process peak.
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

TASK = "payments_balance_inquiry_01"
CALLS_PER_TRIAL = 3  # router, tool call, final reply (one user turn)


async def level(n: int, latency: float) -> dict[str, float]:
    """One cold 1-trial run (imports, catalog load, first connections), then the measured N-trial run."""
    cold = await _measure(1, latency)
    warm = await _measure(n, latency)
    return {**warm, "cold_start_s": cold["wall_s"]}


async def _measure(n: int, latency: float) -> dict[str, float]:
    from rich.console import Console

    from harness.components import TrialComponents
    from harness.config import RunConfig
    from harness.plan import Plan
    from harness.run import execute_run
    from models.scripted import ScriptedModel, text, tool_call

    def agent(messages, tools):  # noqa: ANN001, ANN202
        if messages[-1].role == "tool":
            return text("Your balance is $640.20 with 310 loyalty points.")
        return tool_call("get_account_balance", account_id="ACC-1005")

    router = ScriptedModel(lambda m, t: tool_call("route", node="balance_inquiry"), latency_s=latency)
    worker = ScriptedModel(agent, latency_s=latency)
    with tempfile.TemporaryDirectory() as tmp:
        config = RunConfig(out=Path(tmp) / "run", task=[TASK], rounds=n, concurrency=n, agent="graph", agent_model="mock:bench", provider_concurrency=max(n, 1) * 2)
        plan = Plan(agent="graph", agent_model="mock:bench", router_model="mock:bench", user="scripted", judge="evidence", offline=True)
        components = TrialComponents(config, plan, apis={"agent": worker, "router": router})
        started = time.perf_counter()
        result = await execute_run(config, console=Console(file=open(os.devnull, "w")), components=components)  # noqa: SIM115
        wall = time.perf_counter() - started
    assert len(result.records) == n and all(r.strict for r in result.records)
    ideal = CALLS_PER_TRIAL * latency
    return {
        "trials": n,
        "wall_s": wall,
        "ideal_s": ideal,
        "ratio": wall / ideal,
        "overhead_ms_per_trial": 1000 * (wall - ideal) / n,
        "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--trials", type=int, nargs="+", default=[1, 16, 64, 256])
    parser.add_argument("--level", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.level is not None:
        print(json.dumps(asyncio.run(level(args.level, args.latency))))
        return
    print(f"model latency {args.latency * 1000:.0f} ms/call, {CALLS_PER_TRIAL} calls per trial -> ideal {CALLS_PER_TRIAL * args.latency:.2f} s per run")
    print(f"{'trials':>7} {'wall s':>8} {'ideal s':>8} {'wall/ideal':>10} {'overhead ms/trial':>18} {'peak RSS MiB':>13} {'cold start s':>13}")
    for n in args.trials:
        out = subprocess.run([sys.executable, __file__, "--level", str(n), "--latency", str(args.latency)], capture_output=True, text=True, check=True)
        r = json.loads(out.stdout.strip().splitlines()[-1])
        print(f"{n:>7} {r['wall_s']:>8.2f} {r['ideal_s']:>8.2f} {r['ratio']:>10.2f} {r['overhead_ms_per_trial']:>18.1f} {r['peak_rss_mib']:>13.0f} {r['cold_start_s']:>13.2f}")


if __name__ == "__main__":
    main()
