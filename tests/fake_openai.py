"""A real (local, offline) OpenAI-compatible HTTP server for framework adapters' tests: it plays a script
of answers (a status and a JSON body, or "hang": accept the request and never answer) and counts every
request it receives, so a test can compare the server's count with the trial's ledger."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import anyio
from anyio.abc import SocketStream

Answer = tuple[int, dict[str, Any]] | str


def completion(content: str | None = None, tool: tuple[str, dict[str, Any]] | None = None, prompt: int = 11, completion_tokens: int = 3) -> Answer:
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if tool is not None:
        message["tool_calls"] = [{"id": "call_1", "type": "function", "function": {"name": tool[0], "arguments": json.dumps(tool[1])}}]
    return (
        200,
        {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "created": 0,
            "model": "fake",
            "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if tool else "stop"}],
            "usage": {"prompt_tokens": prompt, "completion_tokens": completion_tokens, "total_tokens": prompt + completion_tokens},
        },
    )


def response(content: str | None = None, tool: tuple[str, dict[str, Any]] | None = None, *, output: list[dict[str, Any]] | None = None,
             prompt: int = 11, completion_tokens: int = 3) -> Answer:
    """A Responses-API answer (`POST /v1/responses`, what the OpenAI Agents SDK uses by default): a message,
    a function call, or exactly `output` (e.g. `[]`)."""
    if output is None:
        output = []
        if content is not None:
            output.append({"id": "msg_1", "type": "message", "role": "assistant", "status": "completed",
                           "content": [{"type": "output_text", "text": content, "annotations": []}]})  # fmt: skip
        if tool is not None:
            output.append({"id": "fc_1", "type": "function_call", "call_id": "call_1", "name": tool[0], "arguments": json.dumps(tool[1]), "status": "completed"})
    return (
        200,
        {
            "id": "resp_1",
            "object": "response",
            "created_at": 0,
            "status": "completed",
            "model": "fake",
            "output": output,
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "tools": [],
            "usage": {"input_tokens": prompt, "output_tokens": completion_tokens, "total_tokens": prompt + completion_tokens,
                      "input_tokens_details": {"cached_tokens": 0}, "output_tokens_details": {"reasoning_tokens": 0}},  # fmt: skip
        },
    )


@dataclass
class FakeOpenAI:
    script: Callable[[int, dict[str, Any]], Answer]
    """(request index, request body) -> the answer."""
    requests: list[dict[str, Any]] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    """The path of each request (which API the client used: `/v1/chat/completions`, `/v1/responses`)."""
    port: int = 0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    async def _handle(self, stream: SocketStream) -> None:
        try:
            await self._serve(stream)
        except (anyio.EndOfStream, anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
            pass  # the client hung up

    async def _serve(self, stream: SocketStream) -> None:
        async with stream:
            buffer = b""
            while True:
                while b"\r\n\r\n" not in buffer:
                    chunk = await stream.receive()
                    if not chunk:
                        return
                    buffer += chunk
                head, _, buffer = buffer.partition(b"\r\n\r\n")
                headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(b":") for line in head.split(b"\r\n")[1:])}
                length = int(headers.get(b"content-length", b"0"))
                while len(buffer) < length:
                    buffer += await stream.receive()
                body, buffer = buffer[:length], buffer[length:]
                request = json.loads(body or b"{}")
                index = len(self.requests)
                self.requests.append(request)
                self.paths.append(head.split(b"\r\n", 1)[0].split(b" ")[1].decode().split("?")[0])
                answer = self.script(index, request)
                if answer == "hang":
                    await anyio.sleep(3600)
                    return
                status, payload = answer  # type: ignore[misc]
                data = json.dumps(payload).encode()
                reason = {200: "OK", 500: "Internal Server Error", 503: "Service Unavailable"}.get(status, "Error")
                await stream.send(
                    f"HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\ncontent-length: {len(data)}\r\n\r\n".encode() + data
                )


@asynccontextmanager
async def fake_openai(script: Callable[[int, dict[str, Any]], Answer]) -> AsyncIterator[FakeOpenAI]:
    server = FakeOpenAI(script)
    listener = await anyio.create_tcp_listener(local_host="127.0.0.1", local_port=0)
    server.port = listener.extra(anyio.abc.SocketAttribute.local_port)
    async with listener, anyio.create_task_group() as group:
        group.start_soon(listener.serve, server._handle)
        try:
            yield server
        finally:
            group.cancel_scope.cancel()
