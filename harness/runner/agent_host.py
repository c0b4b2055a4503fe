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
from pydantic import ValidationError

from models.base import ConfigurationError, ModelError, observed
from orchestrator.protocol import Agent, AgentFailure, AgentReply, TrialSession

log = logging.getLogger(__name__)


def attribute(exc: BaseException) -> BaseException:
    """Who answers for an exception out of the agent's `start` or `respond` (the ⊥ rule, docs/guarantees.md):

    - `AgentFailure`: the agent gave up; scored 0, in the denominator, as it is;
    - an error the harness itself raised or classified (`models.base.observe`: our provider layer's outage
      after retries, a framework adapter's mapped provider error, our tool surface's crash): as it is, so
      it can be ⊥ — an agent cannot produce one by raising the same class;
    - `ConfigurationError` (a missing key or package, an unknown model): as it is, it stops the whole run;
    - anything else — the agent raised it, reported it or died of it — is the agent's failure:
      `AgentFailure("agent_error", ...)`, scored 0 and kept in the denominator. An agent that "errors"
      whenever it is losing must not be able to report only its wins."""
    if isinstance(exc, AgentFailure | ConfigurationError) or observed(exc):
        return exc
    message = f"{type(exc).__name__}: {exc}".strip()
    if isinstance(exc, ModelError):
        message = f"the agent raised a provider error the harness did not observe: {message}"
    failure = AgentFailure("agent_error", message[:4000], usage=getattr(exc, "usage", None))
    failure.__cause__ = exc
    log.debug("agent error", exc_info=exc)
    return failure


def _harness_stop(exc: BaseException, scope: anyio.CancelScope | None) -> bool:
    """Whether an exception out of the agent's code is the harness stopping (it must propagate): a
    KeyboardInterrupt (Ctrl-C cannot be told apart from one the agent raises: the run stops, nothing is
    recorded for the trial, and a resume replays it with the same seed) or a cancellation our own scope
    asked for. Anything else — `GeneratorExit`, a custom `BaseException`, a cancellation no one asked for —
    is the agent's failure."""
    if isinstance(exc, KeyboardInterrupt):
        return True
    return isinstance(exc, anyio.get_cancelled_exc_class()) and (scope is None or scope.cancel_called)


def checked_reply(reply: Any) -> AgentReply:
    """The agent's reply, validated again field by field: an `AgentReply` built without validation
    (`model_construct`) or changed after it (`reply.text = None`) is a malformed reply, the agent's
    failure (`agent_error`), not a crash of the harness."""
    if not isinstance(reply, AgentReply):
        raise TypeError(f"respond() returned {type(reply).__name__}, not an AgentReply")
    try:
        return AgentReply.model_validate(dict(vars(reply)))
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors()[:5])
        raise TypeError(f"respond() returned a malformed AgentReply ({exc.error_count()} invalid field(s)): {problems}") from None


STOP_GRACE_S = 10.0
"""After the trial ends (normally, on error or at its time limit), the agent gets this long to stop."""


class HostedAgent:
    def __init__(self, requests: Any, replies: Any) -> None:
        self._requests = requests
        self._replies = replies
        self.life_scope: anyio.CancelScope | None = None
        self.current_call: anyio.CancelScope | None = None
        self.closing = False

    async def respond(self, user_message: str, turn: int) -> AgentReply:
        await self._requests.send((user_message, turn))
        outcome, value = await self._replies.receive()
        if outcome == "error":
            raise value
        return value

    def wind_down(self) -> None:
        """No more requests: interrupt a call in flight, and bound what is left (start or stop)."""
        self.closing = True
        self._requests.close()
        if self.current_call is not None:
            self.current_call.cancel()
        if self.life_scope is not None:
            self.life_scope.deadline = min(self.life_scope.deadline, anyio.current_time() + STOP_GRACE_S)


@contextlib.asynccontextmanager
async def hosted_agent(agent: Agent, session: TrialSession) -> AsyncIterator[HostedAgent]:
    """Start `agent` in its own task; yield a handle whose `respond` forwards to it; stop it on exit
    (also on error or at the trial's time limit), from that same task. Exceptions of `start`/`respond`
    are re-raised in the caller; an exception of `stop` is logged (it must not mask the trial's outcome).

    The agent's task is shielded from the trial's cancellation, so that `stop` can still await (close its
    client, end its process); on exit the call in flight is cancelled through its own scope and the rest
    is bounded by `STOP_GRACE_S`. No scope is ever pushed between `start` and `stop`: an agent may enter
    a task group or an async client in `start` and exit it in `stop`."""
    send_request, receive_request = anyio.create_memory_object_stream[Any](0)
    send_reply, receive_reply = anyio.create_memory_object_stream[Any](1)
    handle = HostedAgent(send_request, receive_reply)

    def deliver(outcome: tuple[str, Any]) -> None:
        with contextlib.suppress(anyio.BrokenResourceError, anyio.WouldBlock):
            send_reply.send_nowait(outcome)

    async def life() -> None:
        with anyio.CancelScope(shield=True) as life_scope:
            handle.life_scope = life_scope
            if handle.closing:  # the trial ended before this task ran
                life_scope.deadline = anyio.current_time() + STOP_GRACE_S
            try:
                try:
                    await agent.start(session)
                except BaseException as exc:  # noqa: BLE001 - handed to the caller
                    if _harness_stop(exc, life_scope):
                        raise
                    deliver(("error", attribute(exc)))
                    return
                deliver(("ok", None))
                async with receive_request:
                    async for message in receive_request:
                        outcome: tuple[str, Any] = ("error", RuntimeError("the agent call was interrupted"))
                        with anyio.CancelScope() as call:
                            handle.current_call = call
                            try:
                                outcome = ("ok", checked_reply(await agent.respond(*message)))
                            except BaseException as exc:  # noqa: BLE001 - handed to the caller
                                if _harness_stop(exc, call):
                                    raise
                                outcome = ("error", attribute(exc))
                        handle.current_call = None
                        if call.cancelled_caught:
                            break
                        deliver(outcome)
            finally:
                # In this task, with no new scope in between: `stop` exits whatever `start` entered.
                life_scope.deadline = min(life_scope.deadline, anyio.current_time() + STOP_GRACE_S)
                try:
                    await agent.stop()
                except BaseException as exc:  # noqa: BLE001 - a stop that fails ends nothing but the agent
                    if _harness_stop(exc, life_scope):
                        raise
                    log.debug("agent.stop failed", exc_info=True)

    failure: Exception | None = None  # raised after the task group, so callers see it unwrapped
    async with anyio.create_task_group() as group:
        group.start_soon(life)
        try:
            outcome, value = await receive_reply.receive()
            if outcome == "error":
                failure = value
            else:
                try:
                    yield handle
                except Exception as exc:  # noqa: BLE001
                    failure = exc
        finally:
            handle.wind_down()  # also on cancellation (the trial's time limit)
    if failure is not None:
        raise failure
