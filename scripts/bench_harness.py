"""Harness overhead on realistic trials: concurrency efficiency and harness CPU per trial.

    uv run python scripts/bench_harness.py [--latency 1.0] [--latency-dist constant|lognormal|uniform] [--latency-spread 0.5]
        [--trials 1 256 1024] [--workers 1 2] [--transport lean mcp] [--provider scripted|http] [--reps 3] [--baseline DIR]

A realistic trial is the model-driven runtime end to end: the reference graph agent with its router,
the LLM user simulator and the LLM judge, each role a scripted model (`harness.runner.gold_models`) that plays
the gold path of `payments_transfer_daily_limit_01` — two user turns, four tool calls through the
gateway, thirteen model calls of which twelve come one after another (the reply judge and the consent
judge are asked at once; counted from the gold path, `critical_path_calls`) — and sleeps `latency`
seconds per call: constant (`--latency-dist constant`, the default), or drawn per call around that mean
(`lognormal`, `uniform`; `--latency-spread`; `models.latency`), by the scripted models and the fake
server alike. With a constant latency a trial's ideal wall time is 12 × latency, and N trials in flight
at once ideally take the same — but they also run in lockstep, asking their k-th call in the same
instant, which no provider does. With drawn latencies N trials end when the slowest ends: the ideal is
the expected time of the slowest of N trials (`models.latency.expected_slowest`, a seeded simulation of
the same steps), printed with its spread. Per level, in a fresh process, after one unmeasured cold-start
run (one trial per worker, through the same executor), `--reps` times (default 3; min/median/max):

- efficiency = ideal / measured wall time (1.0: the harness adds nothing; the issue's goal ≥ 0.90 at 256);
- harness CPU per trial = CPU time of the run (this process, and the worker processes as they report
  it: `RunResult.worker_cpu_s`, which includes each worker's start-up) / N — the model
  sleeps cost no CPU, so this is what the harness spends (gateway, agent loop, user, judge, grading,
  records); and, with `--transport lean mcp`, the same run with in-process agents on an in-memory MCP
  client, as the in-run baseline (ratio lean/mcp);
- peak RSS of the level's process (the driver's; workers are separate processes);
- with `--workers 1 2`, each level also over worker processes (`crmbench run --workers`), each with its
  own gateway, building the same scripted models from the picklable `GoldPlayedModels` factory.

With `--provider http` the same trial runs over the real provider path: the graph agent and router on
`vllm:`, the user and judge on `ollama:`, each call an HTTP request through the official SDK to
`scripts/fake_model_server.py` (its own process, started here; it plays the same gold path and answers
after `latency`). Each level then also reports client CPU per model call, the server's CPU per call,
the calls retried, and what a process pays once (harness imports, SDK imports) apart from the fixed
per-run cost (a cold run's CPU less one warm trial's). `--baseline DIR` runs each level with another
checkout's code too (`git worktree add --detach /tmp/perf-base main`), in turn, and prints the ratios.

Machines here are noisy: read the ratios. Every trial must pass (the run is checked, not just timed).
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

os.environ.setdefault("FASTMCP_CHECK_FOR_UPDATES", "off")
os.environ.setdefault("FASTMCP_LOG_LEVEL", "CRITICAL")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

TASK = "payments_transfer_daily_limit_01"


@functools.cache
def critical_path_calls(task_id: str = TASK) -> int:
    """The model calls one after another in a trial of `task_id`, counted from its gold path rather than
    written down (a re-authored gold path changes it): the user one per turn plus its stop, the router one
    per turn, the agent one per tool step plus one reply per turn, then one round of judges (the reply
    judge and the consent questions are asked at once). A trial's ideal wall time is this × latency."""
    from contracts.catalog import load_selection

    gold = load_selection(task_ids=[task_id])[task_id].gold
    turns, steps = len(gold), sum(len(turn.calls) for turn in gold)
    return (turns + 1) + turns + (steps + turns) + 1


def _cpu_s() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


HTTP_MODELS = {"agent_model": "vllm:gold-agent", "router_model": "vllm:gold-router", "user_model": "ollama:gold-user", "judge_model": "ollama:gold-judge"}
"""`--provider http`: the graph agent and router on `vllm:`, the LLM user and judge on `ollama:` — two
OpenAI-compatible presets, both pointed at the fake server; the role is the model name's last word."""


@dataclass(frozen=True)
class LatencySpec:
    """`--latency`, `--latency-dist`, `--latency-spread` as plain values: a level run with `--code` (a
    baseline checkout, which may predate `models.latency`) imports that module only for a drawn latency."""

    mean_s: float
    dist: str = "constant"
    spread: float = 0.5
    seed: int = 0
    """Each run of a level draws its own latencies (`--reps` sample the draws too, not one fixed set)."""

    @classmethod
    def of(cls, args: argparse.Namespace) -> LatencySpec:
        return cls(args.latency, args.latency_dist, args.latency_spread, args.seed)

    def model(self) -> Any:
        from models.latency import Latency

        return Latency(self.mean_s, self.dist, self.spread)  # type: ignore[arg-type]

    def factory(self) -> Any:
        """The scripted models, each role drawing its own seeded stream (a constant: the baseline's form)."""
        from harness.runner.gold_models import GoldPlayedModels

        if self.dist == "constant":
            return GoldPlayedModels.of([TASK], latency_s=self.mean_s)
        return GoldPlayedModels.of([TASK], latency_s=self.mean_s, latency=self.model(), seed=1000 * self.seed)


async def _measure(n: int, latency: LatencySpec, transport: str, workers: int = 1, provider: str = "scripted") -> dict[str, float]:
    from rich.console import Console

    from harness.runner.config import RunConfig
    from harness.runner.run import execute_run

    models = HTTP_MODELS if provider == "http" else {"agent_model": "mock:gold", "user_model": "mock:gold", "judge_model": "mock:gold"}
    with tempfile.TemporaryDirectory() as tmp:
        config = RunConfig(
            out=Path(tmp) / "run",
            task=[TASK],
            rounds=n,
            concurrency=n,
            workers=workers,
            agent="graph",
            user="llm",
            judge="llm",
            in_process_tools=transport,  # type: ignore[arg-type]
            **models,
        )
        # scripted: a picklable factory, so worker processes build their own; http: the real providers
        factory = latency.factory() if provider == "scripted" else None
        cpu, started = _cpu_s(), time.perf_counter()
        result = await execute_run(config, console=Console(file=open(os.devnull, "w")), component_factory=factory)  # noqa: SIM115
        wall, cpu = time.perf_counter() - started, _cpu_s() - cpu + result.worker_cpu_s
    if len(result.records) != n or not all(r.strict for r in result.records):
        raise SystemExit(f"the benchmark's trials must all pass: {sum(bool(r.strict) for r in result.records)}/{n}")
    calls = sum(u.calls for u in result.records[0].usage.values())
    if any(sum(u.calls for u in r.usage.values()) != calls for r in result.records):
        raise SystemExit("the trials made different numbers of model calls: not the same realistic trial")
    ideal = critical_path_calls() * latency.mean_s  # a constant latency's; report() puts the expected slowest trial's
    return {
        "trials": n,
        "wall_s": wall,
        "ideal_s": ideal,
        "efficiency": ideal / wall,
        "cpu_ms_per_trial": 1000 * cpu / n,
        "calls_per_trial": calls,
        "cpu_ms_per_call": 1000 * cpu / (n * calls),
        "retried_calls": sum(u.failed_calls for r in result.records for u in r.usage.values()),
    }


async def level(n: int, latency: LatencySpec, transport: str, workers: int, provider: str) -> dict[str, float]:
    """One level in this (fresh) process. First what a process pays once: importing the harness, with
    what its trial path imports on first use (`import_cpu_s`), then the provider SDKs (`sdk_cpu_s`, as the driver and the workers' fork server do
    before the first trial); then a cold run of one trial per worker, whose CPU less one warm trial's is
    the fixed per-run cost (`fixed_cpu_s`: catalog, plan, preflight, gateway, clients, manifest, summary);
    then the measured run of `n` trials."""
    cpu = _cpu_s()
    import fastmcp.client  # noqa: F401 - the gateway's lean path imports it on its first tool list
    import harness.runner.config  # noqa: F401
    import harness.runner.gold_models  # noqa: F401
    import harness.runner.run  # noqa: F401

    imports, cpu = _cpu_s() - cpu, _cpu_s()
    if provider == "http":
        try:
            from models.registry import preload_sdks
        except ImportError:  # a baseline without it: the same import, by hand
            import openai  # noqa: F401
        else:
            preload_sdks(HTTP_MODELS.values())
    sdk, cpu = _cpu_s() - cpu, _cpu_s()
    cold_started = time.perf_counter()
    await _measure(workers, latency, transport, workers, provider)  # the same path warmed (the workers' fork server)
    cold, cold_cpu = time.perf_counter() - cold_started, _cpu_s() - cpu
    warm = await _measure(n, latency, transport, workers, provider)
    fixed = cold_cpu - workers * warm["cpu_ms_per_trial"] / 1000
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {**warm, "cold_start_s": cold, "import_cpu_s": imports, "sdk_cpu_s": sdk, "fixed_cpu_s": fixed, "peak_rss_mib": rss}


@contextmanager
def fake_server(latency: LatencySpec) -> Iterator[tuple[str, int]]:
    """`scripts/fake_model_server.py` in its own process (its CPU is not the harness's), playing `TASK`
    with the same latency distribution; yields its URL and process id."""
    command = [sys.executable, str(ROOT / "scripts" / "fake_model_server.py"), "--latency", str(latency.mean_s), "--latency-dist", latency.dist,
               "--latency-spread", str(latency.spread), "--task", TASK]
    server = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None
        line = server.stdout.readline().strip()
        if not line.startswith("listening on "):
            raise SystemExit(f"the fake model server did not start: {line!r}")
        yield line.removeprefix("listening on "), server.pid
    finally:
        server.terminate()
        server.wait(timeout=10)


def _process_cpu_s(pid: int | None) -> float:
    """User + system CPU of a running process (Linux `/proc`); 0 elsewhere."""
    if pid is None:
        return 0.0
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--latency", type=float, default=1.0, help="seconds per model call (the mean, with --latency-dist)")
    parser.add_argument("--latency-dist", choices=["constant", "lognormal", "uniform"], default="constant", help="how each call's latency is drawn around --latency")
    parser.add_argument("--latency-spread", type=float, default=0.5, help="lognormal: sigma of the log; uniform: half-width as a share of the mean")
    parser.add_argument("--trials", type=int, nargs="+", default=[1, 256, 1024])
    parser.add_argument("--transport", nargs="+", choices=["lean", "mcp"], default=["lean"], help="how in-process agents reach the gateway")
    parser.add_argument("--workers", type=int, nargs="+", default=[1], help="worker processes (--workers of crmbench run)")
    parser.add_argument("--provider", choices=["scripted", "http"], default="scripted", help="in-process scripted models, or the real providers against the fake server")
    parser.add_argument("--baseline", type=Path, help="another checkout (e.g. `git worktree add /tmp/perf-base main`): each level also with its code, in turn")
    parser.add_argument("--reps", "--pairs", dest="reps", type=int, default=3, help="runs of each level, reported min/median/max (with --baseline: pairs, interleaved)")
    parser.add_argument("--seed", type=int, default=0, help=argparse.SUPPRESS)  # a level run's draws: its rep's index
    parser.add_argument("--level", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--code", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.code is not None:
        sys.path.insert(0, str(args.code.resolve()))
    if args.level is not None:
        print(json.dumps(asyncio.run(level(args.level, LatencySpec.of(args), args.transport[0], args.workers[0], args.provider))))
        return
    if args.provider == "http":
        with fake_server(LatencySpec.of(args)) as (url, pid):
            os.environ.update({"VLLM_BASE_URL": f"{url}/v1", "OLLAMA_BASE_URL": f"{url}/v1", "VLLM_API_KEY": "fake-key"})
            report(args, pid)
        return
    report(args)


def _run_level(args: argparse.Namespace, n: int, workers: int, transport: str, code: Path | None, seed: int = 0) -> dict[str, float]:
    command = [sys.executable, __file__, "--level", str(n), "--seed", str(seed), "--latency", str(args.latency), "--latency-dist", args.latency_dist,
               "--latency-spread", str(args.latency_spread), "--transport", transport, "--workers", str(workers), "--provider", args.provider]
    if code is not None:
        command += ["--code", str(code)]
    out = subprocess.run(command, capture_output=True, text=True)
    if out.returncode:
        raise SystemExit(f"level {n} ({code or 'this tree'}) failed:\n{out.stderr[-3000:]}")
    result = json.loads(out.stdout.strip().splitlines()[-1])
    reasons = sorted({line.split(": ", 1)[-1].split("; retry", 1)[0] for line in out.stderr.splitlines() if "; retry " in line})
    result["retry_reasons"] = reasons[:5]  # why calls were retried (the provider's log lines), if any
    return result


def report(args: argparse.Namespace, server_pid: int | None = None) -> None:
    """Each level in a fresh process; with `--baseline DIR`, each level also with DIR's code (the fake
    server and this script stay the same), the two in turn `--reps` times, and the ratios this/baseline.
    Efficiency is the ideal — the expected time of the slowest trial under the latency distribution — over
    the measured wall time; each level ends with min/median/max over its runs."""
    calls = critical_path_calls()
    latency = LatencySpec.of(args)
    print(f"realistic trial ({args.provider} models): {calls} model calls one after another, latency {latency.model().describe()}")
    ideals: dict[int, Any] = {}
    print(
        f"{'code':>8} {'transport':>9} {'workers':>7} {'trials':>7} {'wall s':>8} {'efficiency':>10} {'CPU ms/trial':>13} {'CPU ms/call':>12} "
        f"{'fixed CPU s':>12} {'import CPU s':>13} {'SDK CPU s':>10} {'server ms/call':>15} {'retried':>8} {'peak RSS MiB':>13} {'cold start s':>13}"
    )
    codes: list[tuple[str, Path | None]] = [("this", None)] + ([("baseline", args.baseline)] if args.baseline else [])
    results: dict[tuple[str, str, int, int], list[dict[str, float]]] = {}
    for n in args.trials:
        for workers in args.workers:
            for transport in args.transport:
                for rep in range(args.reps):
                    for label, code in codes:
                        server_cpu = _process_cpu_s(server_pid)
                        r = _run_level(args, n, workers, transport, code, seed=rep)
                        if n not in ideals:
                            ideals[n] = ideal_of(latency, n, calls, int(r["calls_per_trial"]))
                            print(f"{'':>8} ideal for {n} trial(s) in flight: {ideals[n].describe()}", flush=True)
                        r["ideal_s"], r["efficiency"] = ideals[n].mean_s, ideals[n].mean_s / r["wall_s"]
                        r["server_ms_per_call"] = 1000 * (_process_cpu_s(server_pid) - server_cpu) / ((n + workers) * r["calls_per_trial"])
                        results.setdefault((label, transport, workers, n), []).append(r)
                        print(
                            f"{label:>8} {transport:>9} {workers:>7} {n:>7} {r['wall_s']:>8.2f} {r['efficiency']:>10.2f} {r['cpu_ms_per_trial']:>13.2f} "
                            f"{r['cpu_ms_per_call']:>12.3f} {r['fixed_cpu_s']:>12.2f} {r['import_cpu_s']:>13.2f} {r['sdk_cpu_s']:>10.2f} "
                            f"{r['server_ms_per_call']:>15.3f} {r.get('retried_calls', 0):>8} {r['peak_rss_mib']:>13.0f} {r['cold_start_s']:>13.2f}",
                            flush=True,
                        )
                        if r.get("retry_reasons"):
                            print(f"{'':>8} retried because: {'; '.join(r['retry_reasons'])}", flush=True)
                for label, _ in codes:
                    runs = results[(label, transport, workers, n)]
                    print(f"  {label}, {n} trials ({transport}, {workers} worker(s)), {len(runs)} run(s): efficiency {_spread([r['efficiency'] for r in runs], '.2f')}, "
                          f"CPU ms/trial {_spread([r['cpu_ms_per_trial'] for r in runs], '.2f')} (min / median / max)", flush=True)
                if args.baseline:
                    new, old = results[("this", transport, workers, n)], results[("baseline", transport, workers, n)]
                    pairs = list(zip(new, old, strict=True))
                    cpu = sorted(a["cpu_ms_per_trial"] / b["cpu_ms_per_trial"] for a, b in pairs)
                    eff = sorted(a["efficiency"] / b["efficiency"] for a, b in pairs)
                    fixed = sorted(a["fixed_cpu_s"] / b["fixed_cpu_s"] for a, b in pairs)
                    print(f"  this/baseline, {n} trials: CPU per trial x{_median(cpu):.2f}, efficiency x{_median(eff):.2f}, fixed CPU x{_median(fixed):.2f} (medians of {len(pairs)} pairs)")
    if {"lean", "mcp"} <= set(args.transport):
        for n in args.trials:
            for workers in args.workers:
                lean, mcp = results[("this", "lean", workers, n)][0], results[("this", "mcp", workers, n)][0]
                print(f"CPU per trial lean/mcp, {n} trials on {workers} worker(s): {lean['cpu_ms_per_trial'] / mcp['cpu_ms_per_trial']:.2f}")
    levels = sorted(args.trials)
    if len(levels) > 1:
        for transport in args.transport:
            for workers in args.workers:
                per_call = {n: _median(sorted(r["cpu_ms_per_call"] for r in results[("this", transport, workers, n)])) for n in levels}
                print(f"CPU per call, {levels[-1]} / {levels[0]} in flight ({transport}, {workers} worker(s)): x{per_call[levels[-1]] / per_call[levels[0]]:.2f}")


def ideal_of(latency: LatencySpec, trials: int, steps: int, calls_per_trial: int) -> Any:
    """The expected slowest of `trials` trials of `steps` sequential steps, the last one the calls a trial
    makes beyond its critical path asked together (`models.latency.expected_slowest`)."""
    from models.latency import expected_slowest

    return expected_slowest(latency.model(), trials, steps, parallel_last=max(1, calls_per_trial - steps + 1))


def _spread(values: list[float], fmt: str) -> str:
    ordered = sorted(values)
    return " / ".join(format(v, fmt) for v in (ordered[0], _median(ordered), ordered[-1]))


def _median(values: list[float]) -> float:
    middle = len(values) // 2
    return values[middle] if len(values) % 2 else (values[middle - 1] + values[middle]) / 2


if __name__ == "__main__":
    main()
