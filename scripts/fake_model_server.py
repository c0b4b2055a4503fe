"""A local OpenAI-compatible (and Anthropic Messages) model server that plays gold paths, for measuring the
real provider path (`scripts/bench_harness.py --provider http`) the way the scripted one is measured.

    uv run python scripts/fake_model_server.py [--latency 1.0] [--latency-dist constant|lognormal|uniform]
        [--latency-spread 0.5] [--seed 0] [--task ID ...] [--port 0]

It answers `POST /v1/chat/completions` and `POST /v1/messages` after `latency` seconds (constant, or
drawn per answer around that mean: `models.latency`) with what a real
server sends — an id, the model, one choice with text or tool calls (JSON-string arguments), a finish
reason, and usage (tokens estimated at four bytes each, so the ledger has real numbers) — and plays each
role with `harness.runner.gold_models`' gold play, reading only what the role is shown (the request's messages,
translated back into the harness's provider-neutral types). The role is the model name's last word:
`gold-agent`, `gold-router`, `gold-user`, `gold-judge` (e.g. `vllm:gold-agent`). It is a plain ASGI
app under uvicorn with no framework on top, so that the fake costs as little of a shared machine's CPU
as possible; the first line it prints is `listening on http://HOST:PORT`. A request it cannot play is
answered 400 with an OpenAI-shaped error (a harness bug shows up as a failed trial, never as a guess).
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import logging
import sys
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from models.latency import DEFAULT_SPREAD, DISTRIBUTIONS, Latency  # noqa: E402
from models.types import ChatMessage, ModelOutput, ToolCall, ToolSpec  # noqa: E402

log = logging.getLogger("fake_model_server")

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]
Player = Callable[[Sequence[ChatMessage], Sequence[ToolSpec]], "ModelOutput | str"]

ROLES = ("agent", "router", "user", "judge")
_ids = itertools.count(1)


class BadRequest(ValueError):
    """The request cannot be played: answered 400, never guessed at."""


# ---------------------------------------------------------------- requests back into the harness's types


def from_openai(body: dict[str, Any]) -> tuple[list[ChatMessage], list[ToolSpec]]:
    """Chat Completions messages and tools as `ChatMessage`s and `ToolSpec`s. Tool results carry no tool
    name on the wire, so it is taken from the assistant turn whose call they answer."""
    names: dict[str, str] = {}
    messages: list[ChatMessage] = []
    for raw in body.get("messages") or []:
        role = raw.get("role")
        content = raw.get("content") or ""
        if isinstance(content, list):  # content parts: keep the text ones
            content = "".join(part.get("text", "") for part in content if isinstance(part, dict))
        if role == "assistant":
            calls = []
            for call in raw.get("tool_calls") or []:
                function = call.get("function") or {}
                names[call.get("id", "")] = function.get("name", "")
                calls.append(ToolCall(id=call.get("id", ""), name=function.get("name", ""), arguments=json.loads(function.get("arguments") or "{}")))
            messages.append(ChatMessage(role="assistant", content=content, tool_calls=calls))
        elif role == "tool":
            call_id = raw.get("tool_call_id") or ""
            messages.append(ChatMessage(role="tool", content=content, tool_call_id=call_id, name=names.get(call_id)))
        elif role in ("system", "user", "developer"):
            messages.append(ChatMessage(role="system" if role == "developer" else role, content=content, name=raw.get("name")))
        else:
            raise BadRequest(f"unknown message role {role!r}")
    tools = [
        ToolSpec(name=f["name"], description=f.get("description", ""), parameters=f.get("parameters") or {})
        for t in body.get("tools") or []
        if (f := t.get("function"))
    ]
    return messages, tools


def from_anthropic(body: dict[str, Any]) -> tuple[list[ChatMessage], list[ToolSpec]]:
    """Messages API turns as `ChatMessage`s: `system` first, `tool_use` blocks as tool calls, each
    `tool_result` block as a tool message named after the call it answers."""
    names: dict[str, str] = {}
    messages: list[ChatMessage] = []
    system = body.get("system")
    if isinstance(system, list):
        system = "".join(block.get("text", "") for block in system if isinstance(block, dict))
    if system:
        messages.append(ChatMessage(role="system", content=system))
    for raw in body.get("messages") or []:
        content = raw.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else list(content or [])
        if raw.get("role") == "assistant":
            text = "".join(b.get("text", "") for b in blocks if b.get("type") == "text")
            calls = []
            for b in blocks:
                if b.get("type") == "tool_use":
                    names[b["id"]] = b["name"]
                    calls.append(ToolCall(id=b["id"], name=b["name"], arguments=b.get("input") or {}))
            messages.append(ChatMessage(role="assistant", content=text, tool_calls=calls))
            continue
        for b in blocks:
            if b.get("type") == "tool_result":
                result = b.get("content")
                if isinstance(result, list):
                    result = "".join(part.get("text", "") for part in result if isinstance(part, dict))
                messages.append(ChatMessage(role="tool", content=result or "", tool_call_id=b.get("tool_use_id"), name=names.get(b.get("tool_use_id", ""))))
            elif b.get("type") == "text":
                messages.append(ChatMessage(role="user", content=b.get("text", "")))
    tools = [ToolSpec(name=t["name"], description=t.get("description", ""), parameters=t.get("input_schema") or {}) for t in body.get("tools") or []]
    return messages, tools


# ---------------------------------------------------------------- answers in each API's shape


def _tokens(data: bytes | str) -> int:
    return max(1, len(data) // 4)


def openai_completion(output: ModelOutput, model: str, prompt_tokens: int) -> dict[str, Any]:
    """A chat completion as OpenAI's API sends one (the fields the SDK's types know, nulls included)."""
    calls = [
        {"id": call.id or f"call_{next(_ids)}", "type": "function", "function": {"name": call.name, "arguments": json.dumps(call.arguments)}}
        for call in output.tool_calls
    ]
    message: dict[str, Any] = {"role": "assistant", "content": output.text or None, "refusal": None, "annotations": []}
    if calls:
        message["tool_calls"] = calls
    completion_tokens = _tokens(json.dumps(message))
    return {
        "id": f"chatcmpl-{next(_ids):012d}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": "tool_calls" if calls else "stop"}],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
            "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
            "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 0, "accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0},
        },
        "service_tier": "default",
        "system_fingerprint": "fp_gold_play",
    }


def anthropic_message(output: ModelOutput, model: str, prompt_tokens: int) -> dict[str, Any]:
    """A Messages API answer: text then `tool_use` blocks, a stop reason and usage."""
    content: list[dict[str, Any]] = [{"type": "text", "text": output.text}] if output.text else []
    content += [{"type": "tool_use", "id": call.id or f"toolu_{next(_ids)}", "name": call.name, "input": call.arguments} for call in output.tool_calls]
    return {
        "id": f"msg_{next(_ids):012d}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": "tool_use" if output.tool_calls else "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": prompt_tokens, "output_tokens": _tokens(json.dumps(content)), "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0},
    }


def openai_error(message: str, kind: str = "invalid_request_error") -> dict[str, Any]:
    return {"error": {"message": message, "type": kind, "param": None, "code": None}}


# ---------------------------------------------------------------- the app


class FakeModelServer:
    """The ASGI app: one player per role, `latency_s` per answer, or a latency drawn per answer from
    `latency` (`models.latency.Latency`, one seeded stream for the server)."""

    def __init__(self, players: dict[str, Player], latency_s: float, latency: Latency | None = None, seed: int = 0) -> None:
        self.players = players
        self.latency_s = latency_s
        self.draw = None if latency is None else latency.sampler(seed)
        self.requests = 0

    def play(self, model: str, messages: list[ChatMessage], tools: list[ToolSpec]) -> ModelOutput:
        role = model.rsplit(":", 1)[-1].rsplit("-", 1)[-1]
        player = self.players.get(role)
        if player is None:
            raise BadRequest(f"model {model!r} names no role: end it with one of {', '.join(f'-{r}' for r in ROLES)}")
        try:
            out = player(messages, tools)
        except (ValueError, KeyError, IndexError) as exc:
            raise BadRequest(f"{role}: {exc}") from None
        return ModelOutput(text=out) if isinstance(out, str) else out

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":  # uvicorn runs it with lifespan off and no websockets
            return
        path, method = scope["path"], scope["method"]
        if method == "GET" and path in ("/health", "/v1/models"):
            await _answer(send, 200, {"object": "list", "data": [{"id": f"gold-{r}", "object": "model"} for r in ROLES]})
            return
        if method != "POST" or path not in ("/v1/chat/completions", "/v1/messages"):
            await _answer(send, 404, openai_error(f"no route {method} {path}", "not_found_error"))
            return
        body = await _read_body(receive)
        self.requests += 1
        try:
            request = json.loads(body)
            anthropic = path == "/v1/messages"
            messages, tools = from_anthropic(request) if anthropic else from_openai(request)
            output = self.play(str(request.get("model", "")), messages, tools)
        except (BadRequest, ValueError, KeyError, TypeError, AttributeError) as exc:
            log.warning("400: %s", exc)
            await _answer(send, 400, openai_error(str(exc)))
            return
        delay = self.draw() if self.draw is not None else self.latency_s
        if delay:
            await asyncio.sleep(delay)
        shape = anthropic_message if anthropic else openai_completion
        await _answer(send, 200, shape(output, request["model"], _tokens(body)))


async def _read_body(receive: Receive) -> bytes:
    chunks: list[bytes] = []
    while True:
        message = await receive()
        chunks.append(message.get("body", b""))
        if not message.get("more_body"):
            return b"".join(chunks)


async def _answer(send: Send, status: int, payload: dict[str, Any]) -> None:
    data = json.dumps(payload, separators=(",", ":")).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode()), (b"x-request-id", f"req_{next(_ids)}".encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": data})


def gold_players(task_ids: Sequence[str]) -> dict[str, Player]:
    """Each role's player over the gold paths of `task_ids` (`harness.runner.gold_models`)."""
    from harness.runner.gold_models import GoldPlayedModels

    play = GoldPlayedModels.of(list(task_ids)).play()
    return {role: getattr(play, role) for role in ROLES}


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--host", default="127.0.0.1", help="loopback only: this is a test fixture")
    parser.add_argument("--port", type=int, default=0, help="0: any free port (printed)")
    parser.add_argument("--latency", type=float, default=1.0, help="seconds before each answer")
    parser.add_argument("--latency-dist", choices=DISTRIBUTIONS, default="constant", help="how each answer's latency is drawn, around the mean --latency")
    parser.add_argument("--latency-spread", type=float, default=DEFAULT_SPREAD, help="lognormal: sigma of the log; uniform: half-width as a share of the mean")
    parser.add_argument("--seed", type=int, default=0, help="seed of the drawn latencies")
    parser.add_argument("--task", nargs="+", default=["payments_transfer_daily_limit_01"], help="task ids whose gold paths are played")
    args = parser.parse_args(argv)
    import uvicorn

    from servers.http import listening_socket

    app = FakeModelServer(gold_players(args.task), args.latency, Latency(args.latency, args.latency_dist, args.latency_spread), args.seed)
    sock = listening_socket(args.host, args.port)
    host, port = sock.getsockname()[:2]
    config = uvicorn.Config(app, log_level="warning", lifespan="off", access_log=False, http="h11", ws="none", backlog=4096)  # keep-alive: uvicorn's 5 s, as vLLM's
    sock.listen(4096)  # a client that connects as soon as it reads the line below waits in the backlog, never refused
    print(f"listening on http://{host}:{port}", flush=True)
    uvicorn.Server(config).run(sockets=[sock])


if __name__ == "__main__":
    main()
