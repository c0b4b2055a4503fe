"""The floor of one model call's client CPU: the official SDK's request pipeline against the HTTP stack
under it, with nothing of the harness around them.

    uv run python scripts/bench_provider_call.py [--calls 3000] [--in-flight 64 256]

A local server (uvicorn in its own process, so its CPU is not counted) answers every request at once
with one canned chat completion. Against it, per path and number in flight, in a fresh process
each, after a warm-up: the client's CPU per call (user + system time of the process over `--calls`
calls) and calls a second. The paths:

- `sdk-aiohttp`: `OpenAIChatAPI.generate` as a run makes it — the OpenAI SDK's `post` (request options,
  headers, URL, `httpx2` request and response objects, status errors) over the SDK's vendored aiohttp
  transport on the process's shared transport (the default, `--http-transport aiohttp`);
- `sdk-httpx`: the same over the SDK's default `httpx2` stack on `ShardedTransport` (`--http-transport httpx`);
- `aiohttp`: the same request (the same JSON body and headers) sent with aiohttp alone and its answer
  decoded — not a path the harness takes (it keeps the SDKs: their errors, retry decisions and usage);
  what the SDK's pipeline costs on top of the HTTP stack is the difference.

What it shows (docs/performance.md): the SDK's pipeline is most of a call's client CPU, a cost no
setting of ours removes; a trial's 13 calls pay it 13 times.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

PATHS = ("sdk-aiohttp", "sdk-httpx", "aiohttp")

_ANSWER = json.dumps(
    {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1,
        "model": "m",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": "Your transfer of $5,000.00 went to ACC-1004.", "refusal": None}, "finish_reason": "stop", "logprobs": None}],
        "usage": {"prompt_tokens": 512, "completion_tokens": 12, "total_tokens": 524},
    }
).encode()
_HEADERS = [(b"content-type", b"application/json"), (b"content-length", str(len(_ANSWER)).encode())]


async def canned_app(scope: dict, receive, send) -> None:  # type: ignore[no-untyped-def]
    """The ASGI app of the canned server: every request read to its end, answered at once with `_ANSWER`."""
    if scope["type"] != "http":
        return
    while (await receive()).get("more_body"):
        pass
    await send({"type": "http.response.start", "status": 200, "headers": _HEADERS})
    await send({"type": "http.response.body", "body": _ANSWER})


def serve() -> None:
    """The canned server under uvicorn on a loopback port; its first line is `listening on URL`."""
    import uvicorn

    from servers.http import listening_socket

    sock = listening_socket()
    sock.listen(4096)  # connections made as soon as the line below is read wait for uvicorn's accept loop
    print(f"listening on http://127.0.0.1:{sock.getsockname()[1]}", flush=True)
    config = uvicorn.Config(canned_app, log_level="warning", lifespan="off", access_log=False, http="h11", ws="none", backlog=4096)
    uvicorn.Server(config).run(sockets=[sock])


def serve_command() -> list[str]:
    """The command that starts the canned server in its own process (its CPU is not the client's)."""
    return [sys.executable, __file__, "--serve"]


def _messages() -> list[dict[str, str]]:
    """A mid-trial request: a system prompt and eight turns (about the size of the realistic trial's)."""
    system = "You are the payments desk's agent. Follow the policy: verify the customer, check limits, confirm before any transfer. " * 8
    turns = [{"role": "user" if i % 2 == 0 else "assistant", "content": f"Turn {i}: the customer and the agent discuss the transfer from ACC-1002. " * 3} for i in range(8)]
    return [{"role": "system", "content": system}, *turns]


async def measure(url: str, path: str, calls: int, in_flight: int) -> dict[str, float]:
    messages = _messages()
    if path == "aiohttp":
        import aiohttp

        body = json.dumps({"model": "m", "messages": messages}).encode()
        headers = {"Content-Type": "application/json", "Authorization": "Bearer fake-key", "Accept": "application/json"}
        session = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0))

        async def one() -> None:
            async with session.post(f"{url}/v1/chat/completions", data=body, headers=headers) as response:
                json.loads(await response.read())

        close = session.close
    else:
        from models.providers.openai import OpenAIChatAPI
        from models.types import ChatMessage, GenerateConfig

        os.environ["BENCH_PROVIDER_KEY"] = "fake-key"
        api = OpenAIChatAPI("m", provider="vllm", base_url=f"{url}/v1", api_key_env="BENCH_PROVIDER_KEY", http_backend=path.removeprefix("sdk-"))  # type: ignore[arg-type]
        chat = [ChatMessage(role=m["role"], content=m["content"]) for m in messages]  # type: ignore[arg-type]
        config = GenerateConfig()

        async def one() -> None:
            await api.generate(chat, [], config)

        close = api.aclose
    gate = asyncio.Semaphore(in_flight)

    async def limited() -> None:
        async with gate:
            await one()

    await asyncio.gather(*(limited() for _ in range(max(in_flight, 200))))  # warm: connections open, code paths taken
    cpu, started = time.process_time(), time.perf_counter()
    await asyncio.gather(*(limited() for _ in range(calls)))
    cpu, wall = time.process_time() - cpu, time.perf_counter() - started
    await close()
    return {"cpu_ms_per_call": 1000 * cpu / calls, "calls_per_s": calls / wall}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=3000)
    parser.add_argument("--in-flight", type=int, nargs="+", default=[64, 256])
    parser.add_argument("--paths", nargs="+", choices=PATHS, default=list(PATHS))
    parser.add_argument("--one", nargs=3, metavar=("URL", "PATH", "IN_FLIGHT"), help=argparse.SUPPRESS)
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve()
        return
    if args.one:
        url, path, in_flight = args.one
        print(json.dumps(asyncio.run(measure(url, path, args.calls, int(in_flight)))))
        return
    server = subprocess.Popen(serve_command(), stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None
        url = server.stdout.readline().strip().removeprefix("listening on ")
        print(f"{'path':>12} {'in flight':>9} {'CPU ms/call':>12} {'calls/s':>9}")
        for in_flight in args.in_flight:
            for path in args.paths:
                out = subprocess.run([sys.executable, __file__, "--calls", str(args.calls), "--one", url, path, str(in_flight)], capture_output=True, text=True)
                if out.returncode:
                    raise SystemExit(f"{path} failed:\n{out.stderr[-2000:]}")
                r = json.loads(out.stdout.strip().splitlines()[-1])
                print(f"{path:>12} {in_flight:>9} {r['cpu_ms_per_call']:>12.3f} {r['calls_per_s']:>9.0f}", flush=True)
    finally:
        server.terminate()
        server.wait(timeout=10)


if __name__ == "__main__":
    main()
