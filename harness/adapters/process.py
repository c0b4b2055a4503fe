"""Any agent, in any language, in its own process: it gets its trial's MCP URL and talks to the user
through JSON lines on stdin/stdout. One process per trial. `--agent process --agent-command 'CMD'`.

The protocol (one JSON object per line; stdout carries only protocol lines, log to stderr):

    harness → agent  {"type": "start", "trial_id": ..., "mcp_url": ..., "mcp_headers": {...},
                      "domain": ..., "instructions": ..., "policy": ..., "tools": [{"name", "description",
                      "kind", "input_schema"}], "agent_model": ... | null, "options": {...}}
    agent → harness  {"type": "ready"}
    harness → agent  {"type": "user", "turn": 0, "text": "Hi, ..."}
    agent → harness  {"type": "reply", "text": "...", "usage": {"prompt_tokens": 0, "completion_tokens": 0, "calls": 0}}
                  or {"type": "failure", "kind": "max_turns", "message": "..."}   the model made it give up: scores 0
                  or {"type": "error", "message": "..."}                          the agent itself broke: ⊥
    harness → agent  {"type": "stop"}   then stdin closes; the process should exit (it is killed after 10 s)

The agent calls its tools with any MCP client over streamable HTTP at `mcp_url` (the URL already names
the trial; sending the `mcp_headers` too is harmless). The same values are in its environment as
`CRMBENCH_MCP_URL` and `CRMBENCH_TRIAL_ID`. A process that exits or prints a non-protocol line is a crash
of the agent (⊥), shown with the end of its stderr.
"""

from __future__ import annotations

import json
import os
import shlex
from dataclasses import asdict
from typing import Any

import anyio
from anyio.abc import Process
from anyio.streams.text import TextReceiveStream

from models.base import ConfigurationError
from models.types import Usage
from orchestrator.protocol import AgentFailure, AgentReply, TrialSession

STOP_GRACE_S = 10.0


class AgentProcessError(RuntimeError):
    """The agent process broke the protocol or died (⊥)."""


class ProcessAgent:
    name = "process"
    needs_mcp_url = True

    def __init__(self, command: list[str], *, agent_model: str | None = None, options: dict[str, Any] | None = None, cwd: str | None = None) -> None:
        if not command:
            raise ConfigurationError("--agent process needs --agent-command 'COMMAND'")
        self.command = command
        self.agent_model = agent_model
        self.options = options or {}
        self.cwd = cwd
        self._process: Process | None = None
        self._lines: Any = None
        self._stderr: list[str] = []

    @classmethod
    def from_command(cls, command: str | list[str], *, agent_model: str | None = None, **options: Any) -> ProcessAgent:
        return cls(shlex.split(command) if isinstance(command, str) else list(command), agent_model=agent_model, options=options)

    async def _send(self, message: dict[str, Any]) -> None:
        assert self._process is not None and self._process.stdin is not None
        await self._process.stdin.send((json.dumps(message) + "\n").encode())

    async def _receive(self) -> dict[str, Any]:
        try:
            line = await self._lines.__anext__()
        except StopAsyncIteration:
            with anyio.move_on_after(2):  # let its last words on stderr arrive
                await self._stderr_done.wait()
            raise AgentProcessError(f"the agent process exited{self._stderr_tail()}") from None
        try:
            message = json.loads(line)
        except json.JSONDecodeError:
            raise AgentProcessError(f"the agent process printed a non-protocol line: {line[:200]!r}{self._stderr_tail()}") from None
        if not isinstance(message, dict) or "type" not in message:
            raise AgentProcessError(f"not a protocol message: {line[:200]!r}")
        return message

    def _stderr_tail(self) -> str:
        tail = "".join(self._stderr)[-2000:].strip()
        return f"; its stderr ends with:\n{tail}" if tail else ""

    async def _lines_of_stdout(self) -> Any:
        assert self._process is not None and self._process.stdout is not None
        buffer = ""
        async for chunk in TextReceiveStream(self._process.stdout):
            buffer += chunk
            while "\n" in buffer:
                line, buffer = buffer.split("\n", 1)
                if line.strip():
                    yield line
        if buffer.strip():
            yield buffer

    async def _drain_stderr(self) -> None:
        assert self._process is not None and self._process.stderr is not None
        try:
            async for chunk in TextReceiveStream(self._process.stderr):
                self._stderr.append(chunk)
                if len(self._stderr) > 200:
                    del self._stderr[:100]
        finally:
            self._stderr_done.set()

    async def start(self, session: TrialSession) -> None:
        if not session.mcp_url:
            raise ConfigurationError("the process adapter needs the run to serve HTTP")
        env = {**os.environ, "CRMBENCH_MCP_URL": session.mcp_url, "CRMBENCH_TRIAL_ID": session.trial_id}
        try:
            self._process = await anyio.open_process(self.command, env=env, cwd=self.cwd)
        except OSError as exc:
            raise ConfigurationError(f"cannot start the agent command {shlex.join(self.command)!r}: {exc}") from None
        self._stderr_done = anyio.Event()
        self._group = anyio.create_task_group()
        await self._group.__aenter__()
        self._group.start_soon(self._drain_stderr)
        self._lines = self._lines_of_stdout()
        view = session.task
        await self._send(
            {
                "type": "start",
                "trial_id": session.trial_id,
                "mcp_url": session.mcp_url,
                "mcp_headers": dict(session.mcp_headers),
                "domain": session.domain,
                "instructions": view.instructions if view else "",
                "policy": view.policy if view else "",
                "tools": [asdict(t) for t in view.tools] if view else [],
                "agent_model": self.agent_model,
                "options": self.options,
            }
        )
        message = await self._receive()
        if message["type"] != "ready":
            self._raise_for(message, expected="ready")

    def _raise_for(self, message: dict[str, Any], *, expected: str) -> None:
        if message["type"] == "failure":
            raise AgentFailure(str(message.get("kind") or "agent_gave_up"), str(message.get("message") or ""))
        if message["type"] == "error":
            raise AgentProcessError(f"the agent reported an error: {message.get('message')}")
        raise AgentProcessError(f"expected a {expected!r} message, got {message['type']!r}")

    async def respond(self, user_message: str, turn: int) -> AgentReply:
        await self._send({"type": "user", "turn": turn, "text": user_message})
        message = await self._receive()
        if message["type"] != "reply":
            self._raise_for(message, expected="reply")
        usage = Usage.model_validate(message["usage"]) if isinstance(message.get("usage"), dict) else None
        return AgentReply(text=str(message.get("text", "")), usage=usage)

    async def stop(self) -> None:
        process, self._process = self._process, None
        if process is None:
            return
        with anyio.CancelScope(shield=True):
            try:
                with anyio.move_on_after(1):
                    await self._send_to(process, {"type": "stop"})
                if process.stdin is not None:
                    await process.stdin.aclose()
            except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
                pass
            with anyio.move_on_after(STOP_GRACE_S):
                await process.wait()
            if process.returncode is None:
                process.kill()
                await process.wait()
        self._group.cancel_scope.cancel()
        await self._group.__aexit__(None, None, None)

    @staticmethod
    async def _send_to(process: Process, message: dict[str, Any]) -> None:
        if process.stdin is not None:
            await process.stdin.send((json.dumps(message) + "\n").encode())
