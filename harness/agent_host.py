"""Runs an agent's `start`, every `respond` and `stop` in one dedicated task.

Frameworks' MCP clients are async context managers built on task groups and cancel scopes, which must be
entered and exited by the same task. An adapter that opens its client in `start()` and closes it in
`stop()` therefore crashes if the runtime calls those from different tasks (or from inside and outside a
timeout scope). `hosted_agent` gives the agent one task for its whole life; the trial talks to it through
a zero-buffer channel, so calls stay strictly sequential.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator
from typing import Any

import anyio

from orchestrator.protocol import Agent, AgentReply, TrialSession

log = logging.getLogger(__name__)


class HostedAgent:
    def __init__(self, requests: Any, replies: Any) -> None:
        self._requests = requests
        self._replies = replies

    async def respond(self, user_message: str, turn: int) -> AgentReply:
        await self._requests.send((user_message, turn))
        outcome, value = await self._replies.receive()
        if outcome == "error":
            raise value
        return value


@contextlib.asynccontextmanager
async def hosted_agent(agent: Agent, session: TrialSession) -> AsyncIterator[HostedAgent]:
    """Start `agent` in its own task; yield a handle whose `respond` forwards to it; stop it on exit
    (also on error or cancellation), from that same task. Exceptions of `start`/`respond` are re-raised
    in the caller; an exception of `stop` is logged (it must not mask the trial's outcome)."""
    send_request, receive_request = anyio.create_memory_object_stream[Any](0)
    send_reply, receive_reply = anyio.create_memory_object_stream[Any](1)

    async def life() -> None:
        try:
            try:
                await agent.start(session)
            except Exception as exc:  # noqa: BLE001 - handed to the caller
                await send_reply.send(("error", exc))
                return
            await send_reply.send(("ok", None))
            async with receive_request:
                async for message in receive_request:
                    try:
                        reply = await agent.respond(*message)
                    except Exception as exc:  # noqa: BLE001 - handed to the caller
                        await send_reply.send(("error", exc))
                    else:
                        await send_reply.send(("ok", reply))
        finally:
            # Not inside a new cancel scope: `stop` must exit the scopes `start` entered, in this task.
            try:
                await agent.stop()
            except Exception:  # noqa: BLE001
                log.debug("agent.stop failed", exc_info=True)

    failure: Exception | None = None  # raised after the task group, so callers see it unwrapped
    async with anyio.create_task_group() as group:
        group.start_soon(life)
        outcome, value = await receive_reply.receive()
        if outcome == "error":
            failure = value
        else:
            try:
                yield HostedAgent(send_request, receive_reply)
            except Exception as exc:  # noqa: BLE001
                failure = exc
        send_request.close()  # ends the agent's loop; it then stops itself, in its own task
    if failure is not None:
        raise failure
