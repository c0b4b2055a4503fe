"""The real provider path over HTTP (issue 31): the fake model server plays whole trials through the
official SDKs, the sharded transport keeps every connection pool small whatever the number in flight,
request bodies are the SDK's own request with each tool list serialised once, and the SDKs a run needs
are known up front. Nothing here is timed: `scripts/bench_harness.py --provider http` measures."""

from __future__ import annotations

import asyncio

import json
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType

import anyio
import httpx2
import pytest

from models.providers.openai import OpenAIChatAPI, parse_completion_data
from models.providers.transport import sharded_transport
from models.registry import get_model, sdk_modules
from models.types import ChatMessage, GenerateConfig, ToolSpec
from tests.scripts import load_script

pytestmark = pytest.mark.anyio

ROOT = Path(__file__).resolve().parents[1]
TASK = "payments_transfer_daily_limit_01"


def _server_module() -> ModuleType:
    return load_script("fake_model_server")


@contextmanager
def fake_models(latency_s: float = 0.0) -> Iterator[tuple[str, object]]:
    """The fake model server under uvicorn on a loopback port, playing `TASK`; yields (url, app)."""
    import uvicorn

    from servers.http import listening_socket

    module = _server_module()
    app = module.FakeModelServer(module.gold_players([TASK]), latency_s)
    sock = listening_socket()
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off", http="h11", ws="none"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert time.monotonic() < deadline, "the fake model server did not start"
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}", app
    finally:
        server.should_exit = True
        thread.join(timeout=10)


@pytest.fixture
def http_models(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, object]]:
    with fake_models() as (url, app):
        monkeypatch.setenv("VLLM_BASE_URL", f"{url}/v1")
        monkeypatch.setenv("OLLAMA_BASE_URL", f"{url}/v1")
        monkeypatch.setenv("VLLM_API_KEY", "fake-key")
        monkeypatch.setenv("ANTHROPIC_BASE_URL", url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "fake-key")
        yield url, app


# ---------------------------------------------------------------- whole trials over HTTP


@pytest.mark.parametrize("http_transport", ["aiohttp", "httpx"])
async def test_real_providers_play_whole_trials_against_the_fake_server(http_models: tuple[str, object], tmp_path: Path, http_transport: str) -> None:
    """The bench's realistic trial, for correctness: graph agent and router on vllm:, LLM user and judge
    on ollama:, every call a real HTTP request through the OpenAI SDK over either HTTP stack; each trial
    passes with usage."""
    from rich.console import Console

    from harness.runner.config import RunConfig
    from harness.runner.run import execute_run

    _, app = http_models
    config = RunConfig(
        out=tmp_path / "run", task=[TASK], rounds=3, concurrency=3, agent="graph", user="llm", judge="llm",
        agent_model="vllm:gold-agent", router_model="vllm:gold-router", user_model="ollama:gold-user", judge_model="ollama:gold-judge",
        http_transport=http_transport,
    )  # fmt: skip
    result = await execute_run(config, console=Console(file=open("/dev/null", "w")))  # noqa: SIM115
    assert len(result.records) == 3 and all(r.strict for r in result.records), [r.error for r in result.records]
    usage = result.records[0].usage
    assert sum(u.calls for u in usage.values()) == 13  # 12 of the dialogue and its reply judgement, 1 consent judgement (issue 30)
    assert all(u.prompt_tokens > 0 and u.completion_tokens > 0 for u in usage.values())
    assert app.requests == 39  # type: ignore[attr-defined]


async def test_the_fake_server_speaks_the_anthropic_messages_shape(http_models: tuple[str, object]) -> None:
    from contracts.catalog import load_selection

    task = load_selection(task_ids=[TASK])[TASK]
    model = get_model("anthropic:gold-user", role="user")
    try:
        output = await model.generate([ChatMessage(role="system", content=task.instruction), ChatMessage(role="user", content="Hello, how can I help?")])
    finally:
        await model.api.aclose()
    assert output.text == task.gold[0].user and output.usage.prompt_tokens > 0


async def test_the_fake_server_refuses_what_it_cannot_play(http_models: tuple[str, object]) -> None:
    url, _ = http_models
    async with httpx2.AsyncClient() as client:
        unnamed = await client.post(f"{url}/v1/chat/completions", json={"model": "gold", "messages": []})
        stranger = await client.post(f"{url}/v1/chat/completions", json={"model": "gold-user", "messages": [{"role": "system", "content": "hi"}]})
    assert unnamed.status_code == 400 and "names no role" in unnamed.json()["error"]["message"]
    assert stranger.status_code == 400 and "instructions" in stranger.json()["error"]["message"]


# ---------------------------------------------------------------- the sharded transport


async def test_no_pool_holds_more_than_a_shard_whatever_the_number_in_flight() -> None:
    """40 requests in flight at once over shards of 4: ten pools of at most four connections (a plain
    pool would hold all 40, and scan them all on every request); every slot is given back, and a second
    wave reuses the same shards and connections."""
    with fake_models(latency_s=0.3) as (url, _):
        transport = sharded_transport(shard_size=4)
        peak: list[int] = []
        async with httpx2.AsyncClient(transport=transport) as client:

            async def one() -> None:
                response = await client.get(f"{url}/health")
                assert response.status_code == 200
                peak.append(max(len(shard.transport._pool.connections) for shard in transport.shards))

            for _ in range(2):
                async with anyio.create_task_group() as group:
                    for _ in range(40):
                        group.start_soon(one)
                assert transport.in_flight == 0
            assert len(transport.shards) == 10 and max(peak) <= 4
            assert sum(len(shard.transport._pool.connections) for shard in transport.shards) == 40


async def test_a_failed_request_gives_its_slot_back() -> None:
    transport = sharded_transport(shard_size=2)
    async with httpx2.AsyncClient(transport=transport) as client:
        for _ in range(3):
            with pytest.raises(httpx2.ConnectError):
                await client.get("http://127.0.0.1:9/")  # the discard port: nothing listens
        assert transport.in_flight == 0 and len(transport.shards) == 1
    assert transport.shards == []  # closed with the client


def _idle_connections(transport: object) -> int:
    if type(transport).__name__ == "ShardedTransport":
        return sum(len(shard.transport._pool.connections) for shard in transport.shards)  # type: ignore[attr-defined]
    return sum(len(held) for held in transport.client.connector._conns.values())  # type: ignore[attr-defined]  # aiohttp's pool


@pytest.mark.parametrize("backend", ["aiohttp", "httpx"])
async def test_every_client_on_a_loop_shares_one_transport(monkeypatch: pytest.MonkeyPatch, backend: str) -> None:
    """The router's, agent's, user's and judge's clients reuse each other's connections: a trial's calls
    come one after another, so its next call takes the connection its last one freed (one pool per role
    let each role's connection expire while the others spoke, and opened a new one)."""
    from models.providers.transport import _shared

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    agent, judge = OpenAIChatAPI("gpt-5-mini", http_backend=backend), OpenAIChatAPI("gpt-5", http_backend=backend)  # type: ignore[arg-type]
    clients = [agent._client._client, judge._client._client]
    assert {type(c._transport).__name__ for c in clients} == {"SharedTransportHandle"}
    with fake_models(latency_s=0.0) as (url, _):
        for client in clients:
            assert (await client.get(f"{url}/health")).status_code == 200
        loop = asyncio.get_running_loop()
        shared = _shared[loop][backend].transport
        assert type(shared).__name__ == {"aiohttp": "AiohttpTransport", "httpx": "ShardedTransport"}[backend]
        assert _idle_connections(shared) == 1  # the second client's request reused the first's connection
        await clients[0].aclose()  # one role's client closed: the other's connections stay
        assert _shared[loop][backend].transport is shared and (await clients[1].get(f"{url}/health")).status_code == 200
        await clients[1].aclose()  # the last one: the transport is closed and forgotten
        assert backend not in _shared[loop]


def test_a_shared_transport_is_per_event_loop() -> None:
    """Connections belong to one event loop: a client used from a second loop gets that loop's transport,
    and a finished loop's transport goes with it."""
    import gc
    import weakref

    from models.providers.transport import _shared, shared_transport

    handle = shared_transport()
    seen: list[object] = []
    loops: list[weakref.ref[asyncio.AbstractEventLoop]] = []

    async def bind() -> None:
        seen.append(handle._bind().transport)
        loops.append(weakref.ref(asyncio.get_running_loop()))

    asyncio.run(bind())
    asyncio.run(bind())
    gc.collect()
    assert len(seen) == 2 and seen[0] is not seen[1]
    assert loops[0]() is None or loops[0]() not in _shared  # the first loop's entry went with its loop
    assert type(seen[0]).__name__ == "AiohttpTransport"  # the default backend


# ---------------------------------------------------------------- request bodies and answers

TOOLS = [
    ToolSpec(name="lookup", description="Find a customer.", parameters={"type": "object", "properties": {"email": {"type": "string"}}}),
    ToolSpec(name="refund", description="Refund.", parameters={"type": "object", "properties": {"amount": {"type": "number"}}}),
]
MESSAGES = [ChatMessage(role="system", content="You are a CRM agent. «ünïcode»"), ChatMessage(role="user", content='Say "hi"\n')]


def test_the_body_is_the_request_create_would_send(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    api = OpenAIChatAPI("gpt-5-mini")
    for tools, config in [(TOOLS, GenerateConfig(temperature=0.2, seed=7, max_tokens=99)), ([], GenerateConfig()), (TOOLS, GenerateConfig(tool_choice="refund"))]:
        assert json.loads(api.request_body(MESSAGES, tools, config)) == api.request_params(MESSAGES, tools, config)


def test_a_tool_list_is_serialised_once_while_the_same_specs_are_offered(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    api = OpenAIChatAPI("gpt-5-mini")
    first = api._tools_json_of(TOOLS)
    assert api._tools_json_of(list(TOOLS)) is first  # the same objects in a new list: reused
    copies = [t.model_copy(deep=True) for t in TOOLS]
    other = api._tools_json_of(copies)
    assert other is not first and other == first  # equal specs, other objects: their own entry
    assert len(api._tools_json) == 2


def test_the_tool_cache_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    import models.providers.openai as openai_provider

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setattr(openai_provider, "TOOLS_JSON_CACHE_SIZE", 3)
    api = OpenAIChatAPI("gpt-5-mini")
    for _ in range(10):
        api._tools_json_of([t.model_copy() for t in TOOLS])
    assert len(api._tools_json) == 3


def test_answers_are_read_from_the_decoded_json() -> None:
    data = {
        "model": "served-model",
        "choices": [{"message": {"content": None, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "lookup", "arguments": '{"email": "a@b.c"}'}},
                                                                  {"type": "function", "function": {"name": "refund", "arguments": {"amount": 3}}}]},
                     "finish_reason": "tool_calls"}],
        "usage": {"prompt_tokens": 11, "completion_tokens": 4},
    }  # fmt: skip
    out = parse_completion_data(data, "vllm:x")
    assert [(c.id, c.name, c.arguments) for c in out.tool_calls] == [("c1", "lookup", {"email": "a@b.c"}), ("call_1", "refund", {"amount": 3})]
    assert (out.usage.prompt_tokens, out.usage.completion_tokens, out.stop_reason, out.model) == (11, 4, "tool_calls", "served-model")


@pytest.mark.parametrize("data", ["<html>502</html>", {"error": {"message": "x"}}, {"choices": []}, {"choices": [{"text": "legacy"}]}, {"choices": [{"message": {"tool_calls": 3}}]}])
def test_anything_but_a_completion_is_a_protocol_error(data: object) -> None:
    from models.base import ProviderProtocolError

    with pytest.raises(ProviderProtocolError):
        parse_completion_data(data, "vllm:x")


# ---------------------------------------------------------------- SDKs known up front


def test_the_sdks_a_run_needs_are_known_from_its_model_names() -> None:
    assert sdk_modules(["vllm:a", "ollama:b", "openai:c"]) == ["openai", "httpcore2", "openai._vendor.httpx_aiohttp"]
    assert sdk_modules(["anthropic:a"]) == ["anthropic", "httpcore2", "anthropic._vendor.httpx_aiohttp"]
    assert sdk_modules(["mock:gold", "nonsense"]) == []


def test_the_workers_fork_server_imports_the_run_sdks_before_it_forks(monkeypatch: pytest.MonkeyPatch) -> None:
    """`prepare_workers` hands the plan's SDKs to the fork server, which imports them once for every
    worker (the server itself is not started here)."""
    import multiprocessing
    from multiprocessing import forkserver

    from harness.executors import prepare_workers
    from harness.executors import processes
    from harness.runner.config import RunConfig

    if "forkserver" not in multiprocessing.get_all_start_methods():
        pytest.skip("no fork server on this platform")
    preloaded: list[list[str]] = []
    monkeypatch.setattr(processes, "_preload", [processes.__name__])
    monkeypatch.setattr(forkserver._forkserver, "_preload_modules", list(forkserver._forkserver._preload_modules))
    monkeypatch.setattr(forkserver, "ensure_running", lambda: preloaded.append(list(forkserver._forkserver._preload_modules)))
    prepare_workers(RunConfig(workers=2), ["vllm:gold-agent", "mock:gold"])
    assert preloaded == [[processes.__name__, "openai", "httpcore2", "openai._vendor.httpx_aiohttp"]]
    prepare_workers(RunConfig(workers=1), ["anthropic:x"])  # one process: no fork server, nothing preloaded
    assert len(preloaded) == 1


def test_preloading_imports_the_sdks_and_the_tls_context() -> None:
    from models.providers import transport
    from models.registry import preload_sdks

    assert preload_sdks(["ollama:x", "mock:y"]) == ["openai", "httpcore2", "openai._vendor.httpx_aiohttp"]
    assert "openai" in sys.modules and transport._default_contexts


def test_the_call_floor_bench_measures_every_path_against_its_canned_server() -> None:
    """`scripts/bench_provider_call.py` (what one call costs in the SDK's pipeline against the HTTP stack
    alone): each path completes its calls against the canned server and reports a cost. Not timed."""
    import subprocess

    bench = load_script("bench_provider_call")
    server = subprocess.Popen(bench.serve_command(), stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None
        url = server.stdout.readline().strip().removeprefix("listening on ")
        for path in bench.PATHS:
            result = anyio.run(bench.measure, url, path, 20, 4)
            assert result["cpu_ms_per_call"] > 0 and result["calls_per_s"] > 0, path
    finally:
        server.terminate()
        server.wait(timeout=10)
