"""Where trials run does not change what is recorded: `--workers N` processes and Ray actors give the
records of a single-process run (timings aside), streamed back as trials finish; the record writer never
loses a finished trial; a killed `--workers` run resumes; a configuration error in a worker stops the run
with that error."""

from __future__ import annotations

import functools
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from rich.console import Console

from contracts.catalog import load_catalog
from harness.executors import ExecutorError
from harness.executors.split import deal, effective_workers, share, worker_config
from harness.records import TrialKey, TrialRecord
from harness.rundir import RunDirectory
from harness.runner.components import TrialComponents
from harness.runner.config import RunConfig
from harness.runner.loop import run_blocking
from harness.runner.plan import Plan
from harness.runner.run import RunResult, execute_run, trial_seed
from harness.writer import record_writer
from models.base import ConfigurationError
from models.scripted import ScriptedModel, text, tool_call
from tests.run_processes import wait_for_records

ROOT = Path(__file__).resolve().parents[1]
QUIET = Console(file=open(os.devnull, "w"), force_terminal=False)  # noqa: SIM115
TIMINGS = {"wall_s", "latency_ms", "latency_s", "retry_s"}
ORACLE_DOMAINS = ("payments", "sales", "itsm")
GRAPH_TASK = "payments_balance_inquiry_01"


def _oracle_tasks() -> list[str]:
    catalog = load_catalog()
    return [task_id for domain in ORACLE_DOMAINS for task_id in [t.id for t in catalog.values() if t.domain == domain][:3]]


def _without_timings(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_timings(v) for k, v in value.items() if k not in TIMINGS}
    if isinstance(value, list):
        return [_without_timings(v) for v in value]
    return value


def trial_files(directory: Path) -> dict[str, Any]:
    """Every trial file of a run directory, by relative path, timings removed."""
    return {str(p.relative_to(directory)): _without_timings(json.loads(p.read_text())) for p in sorted((directory / "trials").glob("*/*.json"))}


def _run(config: RunConfig, **kwargs: Any) -> RunResult:
    return run_blocking(functools.partial(execute_run, config, console=QUIET, **kwargs))


# ---- a picklable component factory: the graph agent over scripted models -----------------------


def _route(messages: Any, tools: Any) -> Any:
    return tool_call("route", node="balance_inquiry")


def _answer(messages: Any, tools: Any) -> Any:
    if messages[-1].role == "tool":
        return text("Your balance is $640.20 with 310 loyalty points.")
    return tool_call("get_account_balance", account_id="ACC-1005")


def scripted_graph(config: RunConfig, plan: Plan) -> TrialComponents:
    """Top-level, so worker processes and Ray actors can build it: every process gets its own models."""
    return TrialComponents(config, plan, apis={"agent": ScriptedModel(_answer), "router": ScriptedModel(_route)})


class _Rejected(ScriptedModel):
    async def generate(self, messages, tools, config):  # noqa: ANN001, ANN201
        raise PermissionError("401 invalid api key")


def rejected_graph(config: RunConfig, plan: Plan) -> TrialComponents:
    """A provider that refuses the key: a configuration error in whichever worker meets it first."""
    return TrialComponents(config, plan, apis={"agent": _Rejected([]), "router": _Rejected([])})


class _WaitsForThePreviousRound(ScriptedModel):
    """The router of round r > 0 answers only once round r-1's record is in the run directory. With three
    rounds over two workers (round-robin), worker 0 runs rounds 0 and 2 and worker 1 round 1, and only the
    driver writes records: round 1 needs round 0's record while worker 0 is still busy with round 2, which
    needs round 1's. The run completes only if each record reaches the driver as its trial finishes."""

    def __init__(self, out: Path) -> None:
        super().__init__(_route)
        self.out = out
        self.seeds = {trial_seed(20260925, GRAPH_TASK, r): r for r in range(8)}

    def _record_of(self, round_index: int) -> Path:
        key = TrialKey(task_id=GRAPH_TASK, round=round_index, seed=trial_seed(20260925, GRAPH_TASK, round_index))
        return RunDirectory(self.out).trial_path("payments", key)

    async def generate(self, messages, tools, config):  # noqa: ANN001, ANN201
        round_index = self.seeds[config.seed]
        if round_index > 0:
            previous = self._record_of(round_index - 1)
            with anyio.move_on_after(60):  # a liveness bound, not a speed check: without streaming it never appears
                while not previous.exists():
                    await anyio.sleep(0.02)
            if not previous.exists():
                return text(f"round {round_index - 1}'s record never reached the driver")
        return await super().generate(messages, tools, config)


def streaming_probe(config: RunConfig, plan: Plan) -> TrialComponents:
    assert config.out is not None
    return TrialComponents(config, plan, apis={"agent": ScriptedModel(_answer), "router": _WaitsForThePreviousRound(config.out)})


def _graph_config(out: Path, **kwargs: Any) -> RunConfig:
    """Three rounds of one task: over two workers, rounds 0 and 2 in worker 0, round 1 in worker 1."""
    return RunConfig(out=out, task=[GRAPH_TASK], rounds=3, concurrency=4, agent="graph", agent_model="mock:bench", user="scripted", judge="evidence", **kwargs)


# ---- baselines: one process, once per module ----------------------------------------------------


@pytest.fixture(scope="module")
def baseline(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    """Single-process records of the oracle over three domains and of the scripted graph agent."""
    root = tmp_path_factory.mktemp("baseline")
    oracle = _run(RunConfig(out=root / "oracle", task=_oracle_tasks(), rounds=2, concurrency=4))
    graph = _run(_graph_config(root / "graph"), component_factory=streaming_probe)
    assert len(oracle.records) == 18 and all(r.strict for r in oracle.records)
    assert len(graph.records) == 3 and all(r.strict and r.routing for r in graph.records)
    return {"oracle": trial_files(oracle.directory), "graph": trial_files(graph.directory)}


# ---- --workers N --------------------------------------------------------------------------------


@pytest.mark.slow
def test_workers_give_the_records_of_one_process(tmp_path: Path, baseline: dict[str, dict[str, Any]]) -> None:
    oracle = _run(RunConfig(out=tmp_path / "oracle", task=_oracle_tasks(), rounds=2, concurrency=4, workers=2))
    assert (oracle.ran, oracle.skipped) == (18, 0)
    assert oracle.worker_cpu_s > 0  # the workers report what they spent (the harness benchmark counts it)
    assert trial_files(oracle.directory) == baseline["oracle"]
    assert [r.key for r in oracle.records] == [TrialRecord.model_validate(json.loads((oracle.directory / p).read_text())).key for p in baseline["oracle"]]
    traces = sum(len(json.loads((oracle.directory / d / "traces.json").read_text())) for d in ORACLE_DOMAINS)
    assert traces == 18

    graph = _run(_graph_config(tmp_path / "graph", workers=2), component_factory=streaming_probe)
    assert trial_files(graph.directory) == baseline["graph"]  # all passed: the records streamed back (see the probe)
    assert graph.plan.agent == "graph" and graph.plan.agent_model == "mock:bench"


def test_configuration_error_in_a_worker_stops_the_run_plainly(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match=r"stopping the run: .*401 invalid api key"):
        _run(_graph_config(tmp_path / "run", workers=2), component_factory=rejected_graph)
    assert not list((tmp_path / "run" / "trials").glob("*/*.json"))


def test_workers_need_a_picklable_factory_not_built_components(tmp_path: Path) -> None:
    config = _graph_config(tmp_path / "run", workers=2)
    with pytest.raises(ExecutorError, match="component_factory"):
        _run(config, components=scripted_graph(config, Plan(agent="graph", agent_model="mock:bench", router_model="mock:bench", user="scripted", judge="evidence", offline=False)))
    with pytest.raises(ExecutorError, match="not a lambda"):
        _run(config, component_factory=lambda c, p: scripted_graph(c, p))
    with pytest.raises(ValueError, match="not both"):
        _run(config, components=scripted_graph(config, Plan(agent="oracle", user="scripted", judge="evidence", offline=True)), component_factory=scripted_graph)


def _descendants(pid: int) -> set[int]:
    """Every process below `pid` (workers may be the children of a fork server, not of the run)."""
    parents: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            parents[int(stat.parent.name)] = int(stat.read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
    found: set[int] = set()
    frontier = {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.slow
def test_killed_workers_run_resumes_and_leaves_no_workers_behind(tmp_path: Path) -> None:
    out = tmp_path / "run"
    command = [str(Path(sys.executable).parent / "crmbench"), "run", "--rounds", "6", "--concurrency", "4", "--workers", "2", "--out", str(out)]
    for domain in ("sales", "marketing"):
        command += ["--domain", domain]
    env = {**os.environ, "FASTMCP_CHECK_FOR_UPDATES": "off", "FASTMCP_LOG_LEVEL": "CRITICAL"}
    env.pop("OPENAI_API_KEY", None)
    expected = sum(t.domain in ("sales", "marketing") for t in load_catalog().values()) * 6  # enough that the kill lands mid-run
    proc = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    trials = out / "trials"
    wait_for_records(proc, trials, 20)
    workers = _descendants(proc.pid)
    assert len(workers) >= 2, "the run has worker processes"
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    deadline = time.monotonic() + 30
    while any(_alive(pid) for pid in workers):  # their lifeline closed with the driver: they leave
        assert time.monotonic() < deadline, "worker processes outlived the killed run"
        time.sleep(0.05)
    done_before = len(list(trials.glob("*/*.json")))
    assert 20 <= done_before < expected

    rerun = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert rerun.returncode == 0, rerun.stderr[-2000:]
    records = [json.loads(p.read_text()) for p in trials.glob("*/*.json")]
    keys = {(r["key"]["task_id"], r["key"]["round"], r["key"]["seed"]) for r in records}
    assert len(records) == len(keys) == expected
    assert all(r["status"] == "scored" and r["strict"] for r in records)
    assert not list(trials.glob("*/.*")), "no temp files may survive"
    assert f"{expected - done_before} trial(s) run, {done_before} resumed" in rerun.stdout


# ---- the record writer ------------------------------------------------------------------------


def _records(n: int) -> list[TrialRecord]:
    return [
        TrialRecord(key=TrialKey(task_id=f"t{i}", round=0, seed=i), domain="payments", difficulty="easy", capabilities=[], agent="oracle", status="scored", strict=True)
        for i in range(n)
    ]


@pytest.mark.anyio
async def test_writer_returns_once_the_record_is_on_disk(tmp_path: Path) -> None:
    directory = RunDirectory(tmp_path)
    async with record_writer(directory) as writer:
        for record in _records(3):
            await writer.save(record)
            assert directory.trial_path(record.domain, record.key).exists()
    assert writer.written == 3
    assert [r.key.task_id for r in directory.records()] == ["t0", "t1", "t2"]


@pytest.mark.anyio
async def test_writer_drains_what_it_was_handed_when_the_run_is_cancelled(tmp_path: Path) -> None:
    directory = RunDirectory(tmp_path)
    records = _records(40)
    with anyio.CancelScope() as scope:
        async with record_writer(directory) as writer, anyio.create_task_group() as group:
            for record in records:
                group.start_soon(writer.save, record)
            await anyio.sleep(0)  # every save has handed its record over and waits for the disk
            scope.cancel()
    assert scope.cancelled_caught
    assert {r.key for r in directory.records()} == {r.key for r in records}


@pytest.mark.anyio
async def test_writer_closed_while_it_gathers_a_batch(tmp_path: Path) -> None:
    """The last batch of a run (or of Ctrl-C): the queue is closed while the writer takes what it holds."""
    from harness.writer import RecordWriter

    directory = RunDirectory(tmp_path)
    writer = RecordWriter(directory)
    records = _records(5)
    async with anyio.create_task_group() as group:
        for record in records:
            group.start_soon(writer.save, record)
        await anyio.sleep(0)  # every record handed over
        writer.close()
        await writer._run()
    assert writer.written == 5 and {r.key for r in directory.records()} == {r.key for r in records}


@pytest.mark.anyio
async def test_records_that_arrive_together_are_made_durable_together() -> None:
    """A worker's records that arrived in one read are handed to the writer at once (so it fsyncs them
    as one batch), and the worker's `done` is checked only after all of them."""
    from harness.executors.shard import ShardReceiver, WorkerFailed

    waiting: list[str] = []
    release = anyio.Event()

    async def emit(record: TrialRecord, data: bytes | None) -> None:
        waiting.append(record.key.task_id)
        await release.wait()

    records = _records(3)
    receiver = ShardReceiver("worker 0", 3, emit)
    async with anyio.create_task_group() as group:
        group.start_soon(receiver.handle_many, [("record", r, b"") for r in records] + [("done", 3, 0.5)])
        await anyio.sleep(0.01)
        assert waiting == ["t0", "t1", "t2"] and not receiver.finished  # all three in flight at once
        release.set()
    assert receiver.finished and receiver.received == 3 and receiver.cpu_s == 0.5
    with pytest.raises(WorkerFailed, match="reported 2 trial"):
        await ShardReceiver("worker 1", 1, emit).handle_many([("record", records[0], b""), ("done", 2, 0.0)])


@pytest.mark.anyio
async def test_a_failed_write_reaches_the_caller(tmp_path: Path) -> None:
    (tmp_path / "trials").write_text("not a folder")
    async with record_writer(RunDirectory(tmp_path)) as writer:
        with pytest.raises(OSError):
            await writer.save(_records(1)[0])


def test_a_batch_write_fails_only_the_files_that_fail(tmp_path: Path) -> None:
    """The writer's batches: written, fsync'd together, renamed; one bad target costs only itself."""
    from harness.files import write_atomic_many

    (tmp_path / "old.json").write_bytes(b"old")
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "x").write_text("a non-empty directory cannot be replaced by a file")
    items = [(tmp_path / "a.json", b"A" * 70_000), (tmp_path / "taken", b"B"), (tmp_path / "old.json", b"new"), (tmp_path / "sub" / "c.json", b"C")]
    errors = write_atomic_many(items)
    assert [e is None for e in errors] == [True, False, True, True]
    assert isinstance(errors[1], OSError)
    assert (tmp_path / "a.json").read_bytes() == b"A" * 70_000 and (tmp_path / "old.json").read_bytes() == b"new"
    assert (tmp_path / "sub" / "c.json").read_bytes() == b"C"
    assert not [p for p in tmp_path.rglob(".*")], "no temp file survives, not even the failed one's"


def test_the_end_of_a_run_reads_no_record_twice(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    reads = 0
    original = RunDirectory.records

    def counting(self: RunDirectory) -> list[TrialRecord]:
        nonlocal reads
        reads += 1
        return original(self)

    monkeypatch.setattr(RunDirectory, "records", counting)
    config = RunConfig(out=tmp_path / "run", task=_oracle_tasks()[:2], rounds=2)
    first = _run(config)
    assert reads == 1 and len(first.records) == 4
    again = _run(config.model_copy(update={"rounds": 3}))
    assert reads == 2 and (again.ran, again.skipped) == (2, 4) and len(again.records) == 6
    assert len(json.loads((again.directory / "payments" / "traces.json").read_text())) == 6


# ---- sharding ---------------------------------------------------------------------------------


def test_shards_are_deterministic_and_split_the_run_limits() -> None:
    items = list(range(11))
    assert deal(items, 3) == [[0, 3, 6, 9], [1, 4, 7, 10], [2, 5, 8]]
    assert deal(items[:2], 4) == [[0], [1]]
    assert sorted(x for part in deal(items, 4) for x in part) == items
    assert [share(10, 3, i) for i in range(3)] == [4, 3, 3]
    config = RunConfig(concurrency=10, provider_concurrency=32, workers=3)
    parts = [worker_config(config, 3, i) for i in range(3)]
    assert sum(p.concurrency for p in parts) == 10 and sum(p.provider_concurrency or 0 for p in parts) == 32
    assert all(p.workers == 1 and p.executor == "local" for p in parts)
    assert effective_workers(RunConfig(concurrency=2, workers=8), 100) == 2
    assert effective_workers(RunConfig(concurrency=8, workers=8), 3) == 3


def test_executor_options_do_not_change_the_resume_key() -> None:
    base = RunConfig().result_affecting()
    assert RunConfig(workers=4, executor="ray", ray_address="auto").result_affecting() == base


# ---- Ray --------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def ray_cluster() -> Iterator[None]:
    """One local Ray instance for the module's Ray tests (the executor keeps a connection it did not make)."""
    os.environ.setdefault("RAY_ENABLE_UV_RUN_RUNTIME_ENV", "0")
    import ray

    ray.init(num_cpus=2, include_dashboard=False, logging_level="WARNING")
    try:
        yield
    finally:
        ray.shutdown()


@pytest.mark.slow
def test_ray_gives_the_records_of_one_process(tmp_path: Path, baseline: dict[str, dict[str, Any]], ray_cluster: None) -> None:
    oracle = _run(RunConfig(out=tmp_path / "oracle", task=_oracle_tasks(), rounds=2, concurrency=4, workers=2, executor="ray"))
    assert oracle.worker_cpu_s > 0
    assert trial_files(oracle.directory) == baseline["oracle"]
    graph = _run(_graph_config(tmp_path / "graph", workers=2, executor="ray"), component_factory=streaming_probe)
    assert trial_files(graph.directory) == baseline["graph"]  # all passed: the records streamed back
    with pytest.raises(ConfigurationError, match=r"stopping the run: .*401 invalid api key"):
        _run(_graph_config(tmp_path / "rejected", workers=1, executor="ray"), component_factory=rejected_graph)


def test_ray_missing_says_how_to_install_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import harness.executors.ray_cluster as ray_cluster

    monkeypatch.setattr(ray_cluster, "ray_installed", lambda: False)
    with pytest.raises(ConfigurationError, match=r"uv sync --extra distributed"):
        _run(RunConfig(out=tmp_path / "run", task=[GRAPH_TASK], executor="ray"))
    assert not (tmp_path / "run").exists(), "nothing ran"
