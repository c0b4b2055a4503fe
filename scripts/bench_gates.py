"""Measure the release gate with every battery: wall time, CPU time and the case counts.

    uv run python scripts/bench_gates.py [--domain D ...] [--workers N] [--budget 60]

Runs `python -m harness.benchmark_spec --gold` in a child process (as CI does), reads its JSON report,
and prints wall seconds, CPU seconds of the whole process tree, the load average (a shared machine
inflates wall time; CPU / workers is what an idle machine would take) and the cases per battery kind.
Exits 1 when the wall time exceeds `--budget` on a machine whose load was below its core count.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--domain", action="append", default=[])
    parser.add_argument("--workers", type=int, default=0)
    parser.add_argument("--budget", type=float, default=60.0, help="wall-clock budget in seconds (issue 22: 60 s for 555 tasks)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "gate.json"
        command = [sys.executable, "-m", "harness.benchmark_spec", "--gold", "--json-report", str(report)]
        for domain in args.domain:
            command += ["--domain", domain]
        if args.workers:
            command += ["--workers", str(args.workers)]
        load_before = os.getloadavg()[0]
        started = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        wall = time.perf_counter() - started
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        if not report.exists():
            print(done.stdout[-2000:], done.stderr[-2000:], sep="\n")
            return 2
        data = json.loads(report.read_text())
    cpu = usage.ru_utime + usage.ru_stime
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    proofs = data.get("proofs", {})
    kinds = proofs.get("battery_kinds", {}).get("all", {})
    print(f"tasks: {proofs.get('tasks')}  gate exit: {done.returncode}")
    print(f"wall: {wall:.1f} s  cpu: {cpu:.1f} s  cpu/cores: {cpu / cores:.1f} s  load before: {load_before:.1f} on {cores} core(s)")
    print("| battery/kind | generated | killed | guarded | exempt | missed | passed | false failure | debt |")
    print("|---|---|---|---|---|---|---|---|---|")
    for kind, row in kinds.items():
        print(f"| {kind} | " + " | ".join(str(row.get(c, 0)) for c in ("generated", "killed", "guarded", "exempt", "missed", "passed", "false_failure", "debt")) + " |")
    print(f"cases: {sum(r.get('generated', 0) for r in kinds.values())}")
    if wall > args.budget and load_before < cores:
        print(f"OVER BUDGET: {wall:.1f} s > {args.budget:.0f} s on an idle machine")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
