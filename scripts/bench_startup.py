"""Measure start-up: `crmbench serve` to its first answered `tools/list`, and `crmbench --help`.

    uv run python scripts/bench_startup.py [--runs 7] [--baseline /path/to/other/checkout]

Every figure is a fresh process, timed from spawn: `serve --domain payments` and `serve` (all domains)
until `tools/list` over streamable HTTP answers with the domain's tools (on the combined `/mcp` endpoint
for all domains), and `crmbench --help` until it exits. `tools/list` is raw JSON-RPC in both protocol
eras: a handshake-era session (`initialize`, `notifications/initialized`, `tools/list`; fastmcp then
builds its per-session state store on the first list) and one stateless 2026-07-28 request. The server's
own CPU seconds up to that moment come from `/proc/<pid>/stat`. `serve` keeps the tool schemas fastmcp
derives in a cache directory (`servers.tool_specs`): the figures use one of this run's own, filled in the
warm-up round, and `serve all → tools/list, cold` starts each time with an empty one (the first start
after an install or a code change). Two reference processes run in the same
rounds: `python -c pass` (the interpreter alone) and `python -c "from fastmcp import FastMCP"` (the MCP
server stack every `serve` must import). Machines here are shared and noisy: quote the ratios against
those references, and the medians only as an indication.

`--baseline DIR` times a second checkout (its own `.venv`) in the same rounds, each figure A then B, and
prints the ratio of each pair (A/B < 1: this tree is faster). Nothing here is asserted; it is a measurement.
This process itself only uses the standard library, so it does not compete with what it times.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

READY_TIMEOUT_S = 60.0
ALL_DOMAINS_TOOL_PREFIX = "payments_"
"""On the combined endpoint every tool is namespaced; one of payments' proves the mounts are served."""


@dataclass
class Tree:
    """A checkout with its own virtual environment: what a user runs as `crmbench`."""

    label: str
    root: Path

    @property
    def python(self) -> Path:
        return self.root / ".venv" / "bin" / "python"

    @property
    def crmbench(self) -> Path:
        return self.root / ".venv" / "bin" / "crmbench"

    def check(self) -> None:
        for path in (self.python, self.crmbench):
            if not path.exists():
                raise SystemExit(f"{self.label}: {path} does not exist (run `uv sync` in {self.root})")


@dataclass
class Sample:
    wall: float
    cpu: float | None = None


@dataclass
class Series:
    samples: list[Sample] = field(default_factory=list)

    def median_wall(self) -> float:
        return statistics.median(s.wall for s in self.samples)

    def median_cpu(self) -> float | None:
        cpus = [s.cpu for s in self.samples if s.cpu is not None]
        return statistics.median(cpus) if cpus else None


TOOL_CACHE_ENV = "CRMBENCH_CACHE_DIR"
"""Where `serve` keeps the tool schemas fastmcp derived (`servers.tool_specs`). The warm figures use a
cache directory of this run's own (set in `main`, filled in the warm-up round), the cold ones an empty
one each time: what the first start after an install or a code change costs."""


def _env(cache: Path | None = None) -> dict[str, str]:
    """This process's environment for a child; `cache`: its own tool-spec cache instead of the run's."""
    env = dict(os.environ)
    env.setdefault("FASTMCP_CHECK_FOR_UPDATES", "off")
    env.pop("VIRTUAL_ENV", None)
    if cache is not None:
        env[TOOL_CACHE_ENV] = str(cache)
    return env


def _child_cpu(proc: subprocess.Popen[bytes]) -> float | None:
    """User + system CPU seconds the process has used so far (Linux), read while it still runs."""
    try:
        fields = Path(f"/proc/{proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks


def time_exit(argv: list[str | Path], cwd: Path) -> Sample:
    """Wall and CPU seconds of a process that runs to its end."""
    start = time.perf_counter()
    proc = subprocess.Popen([str(a) for a in argv], cwd=cwd, env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(map(str, argv))} exited with {proc.returncode}")
    return Sample(wall, usage.ru_utime + usage.ru_stime)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


CLIENT_INFO = {"name": "bench_startup", "version": "1"}


def _post(port: int, path: str, body: dict, session: str | None, extra: dict[str, str] | None = None) -> tuple[int, dict[str, str], str]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    headers = {"content-type": "application/json", "accept": "application/json, text/event-stream", **(extra or {})}
    if session:
        headers["mcp-session-id"] = session
    try:
        conn.request("POST", path, json.dumps(body), headers)
        response = conn.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read().decode()
    finally:
        conn.close()


def _jsonrpc_result(text: str) -> dict:
    """The JSON-RPC result of a streamable-HTTP answer, whether plain JSON or an SSE stream."""
    payloads = [line[5:].strip() for line in text.splitlines() if line.startswith("data:")] or [text]
    for payload in payloads:
        message = json.loads(payload)
        if "result" in message:
            return message["result"]
        if "error" in message:
            raise RuntimeError(f"JSON-RPC error: {message['error']}")
    raise RuntimeError(f"no JSON-RPC result in {text[:200]!r}")


MODERN_ERA = "2026-07-28"
HANDSHAKE_ERA = "2025-06-18"


def list_tools(port: int, path: str, era: str) -> list[str]:
    """A minimal MCP client. Handshake era: initialize, initialized, tools/list on the session. The
    stateless 2026-07-28 era (fastmcp, the MCP SDK and most frameworks' default): one self-contained
    tools/list."""
    if era == MODERN_ERA:
        meta = {"io.modelcontextprotocol/protocolVersion": era, "io.modelcontextprotocol/clientInfo": CLIENT_INFO, "io.modelcontextprotocol/clientCapabilities": {}}
        request = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta}}
        status, _, text = _post(port, path, request, None, {"mcp-protocol-version": era, "mcp-method": "tools/list"})
    else:
        init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": era, "capabilities": {}, "clientInfo": CLIENT_INFO}}
        status, headers, text = _post(port, path, init, None)
        if status != 200:
            raise RuntimeError(f"initialize answered {status}: {text[:200]}")
        _jsonrpc_result(text)
        session = headers.get("mcp-session-id")
        _post(port, path, {"jsonrpc": "2.0", "method": "notifications/initialized"}, session)
        status, _, text = _post(port, path, {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}}, session)
    if status != 200:
        raise RuntimeError(f"tools/list answered {status}: {text[:200]}")
    return [tool["name"] for tool in _jsonrpc_result(text)["tools"]]


def time_serve(tree: Tree, domain: str | None, era: str, *, cold: bool = False) -> Sample:
    """Spawn `crmbench serve` and poll until `tools/list` answers with the served tools. `cold`: with an
    empty tool-spec cache, so every tool's schemas are derived (and kept)."""
    if cold:
        with tempfile.TemporaryDirectory(prefix="bench-startup-cold-") as empty:
            return _time_serve(tree, domain, era, _env(Path(empty)))
    return _time_serve(tree, domain, era, _env())


def _time_serve(tree: Tree, domain: str | None, era: str, env: dict[str, str]) -> Sample:
    port = free_port()
    argv = [str(tree.crmbench), "serve", "--port", str(port), *(["--domain", domain] if domain else [])]
    path = f"/{domain}/mcp" if domain else "/mcp"
    start = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=tree.root, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while True:
            if proc.poll() is not None:
                raise SystemExit(f"{' '.join(argv)} exited with {proc.returncode} before answering")
            if time.perf_counter() - start > READY_TIMEOUT_S:
                raise SystemExit(f"{' '.join(argv)} did not answer tools/list within {READY_TIMEOUT_S:.0f} s")
            try:
                names = list_tools(port, path, era)
            except (ConnectionError, OSError):
                time.sleep(0.005)
                continue
            wall = time.perf_counter() - start
            cpu = _child_cpu(proc)
            expected = bool(names) and (domain is not None or any(n.startswith(ALL_DOMAINS_TOOL_PREFIX) for n in names))
            if not expected:
                raise SystemExit(f"{' '.join(argv)}: tools/list answered without the served tools: {names[:5]}")
            return Sample(wall, cpu)
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def measures(tree: Tree) -> dict[str, Callable[[], Sample]]:
    return {
        "python -c pass": lambda: time_exit([tree.python, "-c", "pass"], tree.root),
        "import FastMCP": lambda: time_exit([tree.python, "-c", "from fastmcp import FastMCP"], tree.root),
        "crmbench --help": lambda: time_exit([tree.crmbench, "--help"], tree.root),
        "serve payments → tools/list": lambda: time_serve(tree, "payments", HANDSHAKE_ERA),
        "serve payments → stateless": lambda: time_serve(tree, "payments", MODERN_ERA),
        "serve all → tools/list": lambda: time_serve(tree, None, HANDSHAKE_ERA),
        "serve all → stateless": lambda: time_serve(tree, None, MODERN_ERA),
        "serve all → tools/list, cold": lambda: time_serve(tree, None, HANDSHAKE_ERA, cold=True),
    }


def _fmt(value: float | None) -> str:
    return "      -" if value is None else f"{value:7.3f}"


def report(trees: list[Tree], results: dict[str, dict[str, Series]]) -> None:
    names = list(results[trees[0].label])
    for tree in trees:
        series = results[tree.label]
        base = series["python -c pass"].median_wall()
        stack = series["import FastMCP"].median_wall()
        print(f"\n{tree.label}: {tree.root}")
        print(f"  {'measure':<30} {'wall med':>8} {'min':>7} {'max':>7} {'cpu med':>8}  {'÷ python':>8} {'÷ FastMCP':>9}")
        for name in names:
            s = series[name]
            walls = [x.wall for x in s.samples]
            med = s.median_wall()
            print(f"  {name:<30} {med:8.3f} {min(walls):7.3f} {max(walls):7.3f} {_fmt(s.median_cpu()):>8}  {med / base:8.2f} {med / stack:9.2f}")
    if len(trees) == 2:
        a, b = trees
        print(f"\npaired ratios {a.label}/{b.label} (each round: A then B; median [min-max] of the pairs; < 1: {a.label} is faster)")
        for name in names:
            pairs = zip(results[a.label][name].samples, results[b.label][name].samples, strict=True)
            walls, cpus = [], []
            for x, y in pairs:
                walls.append(x.wall / y.wall)
                if x.cpu and y.cpu:
                    cpus.append(x.cpu / y.cpu)
            cpu = f"   cpu {statistics.median(cpus):.2f} [{min(cpus):.2f}-{max(cpus):.2f}]" if cpus else ""
            print(f"  {name:<30} wall {statistics.median(walls):.2f} [{min(walls):.2f}-{max(walls):.2f}]{cpu}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7, help="counted rounds (each measure once per tree per round)")
    parser.add_argument("--warmup", type=int, default=1, help="rounds run first and not counted (page cache)")
    parser.add_argument("--baseline", type=Path, help="another checkout with its own .venv, timed in the same rounds")
    parser.add_argument("--only", nargs="+", help="measure names to run (substring match), e.g. --only help payments")
    args = parser.parse_args()
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    trees = [Tree("this tree", Path(__file__).resolve().parent.parent)]
    if args.baseline:
        trees.append(Tree("baseline", args.baseline.resolve()))
    for tree in trees:
        tree.check()
    with tempfile.TemporaryDirectory(prefix="bench-startup-cache-") as warm_cache:
        os.environ[TOOL_CACHE_ENV] = warm_cache  # every child's, unless it is given an empty one
        run_rounds(trees, args)


def run_rounds(trees: list[Tree], args: argparse.Namespace) -> None:
    """Every selected measure once per tree per round (A then B), then the report."""
    plans = {t.label: measures(t) for t in trees}
    selected = [n for n in plans[trees[0].label] if n.startswith(("python", "import")) or not args.only or any(o in n for o in args.only)]
    results: dict[str, dict[str, Series]] = {t.label: {n: Series() for n in selected} for t in trees}
    for round_no in range(args.warmup + args.runs):
        for name in selected:
            for tree in trees:
                sample = plans[tree.label][name]()
                if round_no >= args.warmup:
                    results[tree.label][name].samples.append(sample)
        print(f"round {round_no + 1}/{args.warmup + args.runs} done", file=sys.stderr)
    report(trees, results)


if __name__ == "__main__":
    main()
