"""Any agent, in any language, in its own process: it gets its trial's MCP URL and talks to the user
through JSON lines on stdin/stdout. One process per trial. `--agent process --agent-command 'CMD'`.

The protocol (one JSON object per line; stdout carries only protocol lines, log to stderr):

    harness → agent  {"type": "start", "trial_id": ..., "mcp_url": ..., "mcp_headers": {...},
                      "domain": ..., "instructions": ..., "policy": ..., "tools": [{"name", "description",
                      "kind", "input_schema"}], "agent_model": ... | null, "options": {...},
                      "provider_timeout_s": ...}
    agent → harness  {"type": "ready"}
    harness → agent  {"type": "user", "turn": 0, "text": "Hi, ..."}
    agent → harness  {"type": "reply", "text": "...", "usage": {"prompt_tokens": 0, "completion_tokens": 0, "calls": 0}}
                  or {"type": "failure", "kind": "max_turns", "message": "...", "usage": {...}}  gave up: scores 0
                  or {"type": "error", "message": "...", "usage": {...}}    broke: `agent_error`, scores 0
    harness → agent  {"type": "stop"}   then stdin closes; the process should exit (it is killed after 10 s)

`usage` (optional everywhere) is the model usage of that turn, up to the failure: a trial costs what it
cost, whatever its outcome. Every failure of the agent is its own and stays in the denominator (see
docs/guarantees.md): an `error` message, an exit, a non-protocol line, a malformed message.
`provider_timeout_s` is the per-call timeout the harness applies to its own provider calls in this trial:
an agent that calls a model itself should not wait longer for one answer.

The agent calls its tools with any MCP client over streamable HTTP at `mcp_url` (the URL already names
the trial; sending the `mcp_headers` too is harmless).

Its process starts in a fresh, empty temporary working directory (removed after the trial) with a
minimal environment: `CRMBENCH_MCP_URL`, `CRMBENCH_TRIAL_ID`, `PATH` (so commands resolve), `HOME` and
`TMPDIR` (the working directory), `LANG=C.UTF-8`, plus only the variables named with `--agent-env KEY`
(copied from the harness's environment, e.g. an API key). Relative paths in the command that name
existing files (`python my_agent.py`) are resolved against the directory `crmbench run` was started from.

It runs isolated from the harness (`harness.adapters.isolation`): in its own PID and mount namespaces,
without capabilities, with the task catalog, the run directories and the catalog's git data covered, so
it can neither read the harness's environment or working directory through `/proc` nor signal it. Where
the machine cannot isolate it, the run stops with the reason, unless `--agent-unisolated` says to run it
as a plain child process anyway.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import tempfile
from dataclasses import asdict
from pathlib import Path
from typing import Any

import anyio
from anyio.abc import Process

from harness.adapters.isolation import IsolationUnavailable, probe
from harness.agent_code import agent_code, resolve_command
from anyio.streams.text import TextReceiveStream

from models.base import ConfigurationError
from models.types import Usage
from orchestrator.protocol import AgentFailure, AgentReply, TrialSession

STOP_GRACE_S = 10.0


class AgentProcessError(RuntimeError):
    """The agent process broke the protocol or died: the agent's failure (`agent_error`, scores 0)."""


BASE_ENV = {"LANG": "C.UTF-8"}


def command_files(command: list[str]) -> list[Path]:
    """The files a command runs (its scripts, the modules they import, a `-m` package, a wrapper's
    script: `harness.agent_code`): their content is the agent's code identity."""
    return list(agent_code(command).files)


def code_identity(command: str, declared: list[Path] | None = None) -> str | None:
    """sha256 over the files the command runs and the `declared` paths (`--agent-code`), or None when
    they do not identify the agent (`harness.agent_code`): part of the run identity, so editing the agent
    is a new configuration, and a run whose agent cannot be identified is not resumed silently."""
    return agent_code(command, declared).digest()


def agent_environment(mcp_url: str, trial_id: str, workdir: str, pass_through: list[str]) -> dict[str, str]:
    """The process's whole environment (see the module docstring): nothing of the harness's own besides
    PATH and the variables the user names."""
    env = {**BASE_ENV, "PATH": os.environ.get("PATH", os.defpath), "HOME": workdir, "TMPDIR": workdir}
    for key in pass_through:
        if key in os.environ:
            env[key] = os.environ[key]
    env.update({"CRMBENCH_MCP_URL": mcp_url, "CRMBENCH_TRIAL_ID": trial_id})
    return env


def _usage(message: dict[str, Any]) -> Usage | None:
    raw = message.get("usage")
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise AgentProcessError(f"'usage' must be an object, got {type(raw).__name__}")
    try:
        return Usage.model_validate(raw)
    except ValueError as exc:
        raise AgentProcessError(f"'usage' is not valid: {exc}") from None


class ProcessAgent:
    name = "process"
    needs_mcp_url = True

    def __init__(
        self,
        command: list[str],
        *,
        agent_model: str | None = None,
        options: dict[str, Any] | None = None,
        cwd: str | None = None,
        env: list[str] | None = None,
        isolated: bool = True,
        hidden: list[Path] | None = None,
    ) -> None:
        """`cwd`: run there instead of a fresh temporary directory; `env`: names of the harness's
        environment variables the process also gets (`--agent-env`); `isolated`: run it isolated from
        the harness (False: `--agent-unisolated`); `hidden`: directories it must not see
        (`isolation.hidden_paths`)."""
        if not command:
            raise ConfigurationError("--agent process needs --agent-command 'COMMAND'")
        self.command = resolve_command(command)
        self.agent_model = agent_model
        self.options = options or {}
        self.cwd = cwd
        self.env = list(env or [])
        self.isolated = isolated
        self.hidden = list(hidden or [])
        self._workdir: str | None = None
        self._process: Process | None = None
        self._lines: Any = None
        self._stderr: list[str] = []

    @classmethod
    def from_command(
        cls,
        command: str | list[str],
        *,
        agent_model: str | None = None,
        env: list[str] | None = None,
        isolated: bool = True,
        hidden: list[Path] | None = None,
        **options: Any,
    ) -> ProcessAgent:
        words = shlex.split(command) if isinstance(command, str) else list(command)
        return cls(words, agent_model=agent_model, options=options, env=env, isolated=isolated, hidden=hidden)

    def _launch_command(self, env: dict[str, str]) -> list[str]:
        """The command as started: wrapped in the isolation (`isolation.probe`), after checking that its
        program exists (inside the isolation a missing program would look like the agent's own exit)."""
        if not self.isolated:
            return self.command
        if shutil.which(self.command[0], path=env.get("PATH")) is None:
            raise ConfigurationError(f"cannot start the agent command {shlex.join(self.command)!r}: {self.command[0]!r} not found")
        try:
            isolation = probe()
            isolation.check(self.hidden)
        except IsolationUnavailable as exc:
            raise ConfigurationError(
                f"this machine cannot isolate a process agent from the harness ({exc}); run where Linux namespaces are allowed "
                "(as root, or with unprivileged user namespaces), or pass --agent-unisolated to run it as a plain child process, "
                "which can then read the harness's environment and files and signal it"
            ) from None
        return isolation.wrap(self.command, self.hidden)

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
        self._workdir = tempfile.mkdtemp(prefix="crmbench-agent-")
        env = agent_environment(session.mcp_url, session.trial_id, self._workdir, self.env)
        try:
            command = await anyio.to_thread.run_sync(self._launch_command, env)  # the first probe runs a child: off the loop
            self._process = await anyio.open_process(command, env=env, cwd=self.cwd or self._workdir)
        except ConfigurationError:
            self._remove_workdir()
            raise
        except OSError as exc:
            self._remove_workdir()
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
                "provider_timeout_s": session.call_timeout_s,
            }
        )
        message = await self._receive()
        if message["type"] != "ready":
            self._raise_for(message, expected="ready")

    def _raise_for(self, message: dict[str, Any], *, expected: str) -> None:
        if message["type"] == "failure":
            raise AgentFailure(str(message.get("kind") or "agent_gave_up"), str(message.get("message") or ""), usage=_usage(message))
        if message["type"] == "error":
            raise AgentFailure("agent_error", f"the agent reported an error: {message.get('message')}", usage=_usage(message))
        raise AgentProcessError(f"expected a {expected!r} message, got {message['type']!r}")

    async def respond(self, user_message: str, turn: int) -> AgentReply:
        await self._send({"type": "user", "turn": turn, "text": user_message})
        message = await self._receive()
        if message["type"] != "reply":
            self._raise_for(message, expected="reply")
        return AgentReply(text=str(message.get("text", "")), usage=_usage(message))

    async def stop(self) -> None:
        process, self._process = self._process, None
        if process is None:
            self._remove_workdir()
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
        self._remove_workdir()

    def _remove_workdir(self) -> None:
        workdir, self._workdir = self._workdir, None
        if workdir is not None:
            shutil.rmtree(workdir, ignore_errors=True)

    @staticmethod
    async def _send_to(process: Process, message: dict[str, Any]) -> None:
        if process.stdin is not None:
            await process.stdin.send((json.dumps(message) + "\n").encode())
