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


@dataclass
class FakeOpenAI:
    script: Callable[[int, dict[str, Any]], Answer]
    """(request index, request body) -> the answer."""
    requests: list[dict[str, Any]] = field(default_factory=list)
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
