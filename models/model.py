"""`Model`: a provider API with a role, retries with backoff (honouring Retry-After), a per-provider
concurrency limit, and usage summed per role into a shared ledger."""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Callable, Sequence

import anyio

from contracts.text import has_unsafe_text, safe_text, safe_value
from models.base import PROTOCOL_ERROR_TYPES, ModelAPI, ModelError, RetryDecision, observe
from models.types import ChatMessage, GenerateConfig, ModelOutput, Role, ToolSpec, Usage

log = logging.getLogger(__name__)


def safe_output(output: ModelOutput) -> ModelOutput:
    """A model's answer with unsafe text repaired (a lone surrogate would make the next request to any
    provider, and the trial record, unencodable; control characters can rewrite a terminal). Tool-call
    arguments are repaired the same way; nothing is cut here, caps apply where text is stored."""
    if not has_unsafe_text(output.text) and not any(_unsafe_args(call.arguments) for call in output.tool_calls):
        return output
    calls = [
        call.model_copy(update={"name": safe_text(call.name, 200), "arguments": safe_value(call.arguments, 1_000_000)}) for call in output.tool_calls
    ]
    return output.model_copy(update={"text": safe_text(output.text, 10_000_000), "tool_calls": calls})


def _unsafe_args(value: object) -> bool:
    if isinstance(value, str):
        return has_unsafe_text(value)
    if isinstance(value, dict):
        return any(_unsafe_args(k) or _unsafe_args(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_unsafe_args(v) for v in value)
    return False


class UsageLedger:
    """Usage summed per role (never overwritten), safe to share across concurrent trials.

    It also keeps the trial's *retry time*: seconds spent in failed provider attempts and the backoff
    after them. That time is not the model's: the trial runner listens (`on_retry_time`) and moves the
    task's deadline by it, so retries run outside the task's own clock; `retrying` counts the calls that
    are between attempts right now, and `cancelled_while_retrying` records that a call was cancelled in
    that state (a deadline that fires then is the provider's fault: ⊥).
    """

    def __init__(self) -> None:
        self._by_role: dict[str, Usage] = {}
        self._lock = threading.Lock()
        self.retry_s = 0.0
        self.retrying = 0
        self.cancelled_while_retrying = False
        self.retry_category: str | None = None
        """The category of the last failed attempt that was retried (`timeout`: a stall)."""
        self.on_retry_time: Callable[[float], None] | None = None
        self.call_timeout_s: float | None = None
        """Set by the trial runner: no provider attempt waits longer than this (a share of the trial's
        time limit), whatever the model's configured timeout; a stall is then retried and ⊥, not charged
        to the model as non-convergence."""

    def add_retry_time(self, seconds: float) -> None:
        with self._lock:
            self.retry_s += seconds
            listener = self.on_retry_time
        if listener is not None:
            listener(seconds)

    def add(self, role: str, usage: Usage) -> None:
        with self._lock:
            self._by_role[role] = self._by_role.get(role, Usage()) + usage

    def snapshot(self) -> dict[str, Usage]:
        with self._lock:
            return dict(self._by_role)


class RetryPolicy:
    def __init__(self, max_retries: int = 4, base_delay_s: float = 1.0, max_delay_s: float = 60.0) -> None:
        self.max_retries = max_retries
        self.base_delay_s = base_delay_s
        self.max_delay_s = max_delay_s

    def delay(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return min(max(retry_after, 0.0), self.max_delay_s)
        backoff = self.base_delay_s * (2**attempt)
        return min(backoff * (0.5 + random.random() / 2), self.max_delay_s)


_limiters: dict[str, anyio.CapacityLimiter] = {}
_limiters_lock = threading.Lock()


def provider_limiter(provider: str, limit: int) -> anyio.CapacityLimiter:
    """One concurrency limit per provider, shared by every role and trial in the process. The most
    recently configured limit applies (a later run in the same process may allow more or fewer)."""
    with _limiters_lock:
        limiter = _limiters.get(provider)
        if limiter is None:
            limiter = _limiters[provider] = anyio.CapacityLimiter(limit)
        elif limiter.total_tokens != limit:
            limiter.total_tokens = limit
        return limiter


class Model:
    def __init__(
        self,
        api: ModelAPI,
        *,
        role: Role,
        config: GenerateConfig | None = None,
        ledger: UsageLedger | None = None,
        retry: RetryPolicy | None = None,
        max_concurrency: int = 32,
    ) -> None:
        self.api = api
        self.role = role
        self.config = config or GenerateConfig()
        self.ledger = ledger or UsageLedger()
        self.retry = retry or RetryPolicy()
        self.max_concurrency = max_concurrency

    @property
    def name(self) -> str:
        return self.api.name

    async def generate(
        self,
        messages: Sequence[ChatMessage],
        tools: Sequence[ToolSpec] = (),
        config: GenerateConfig | None = None,
    ) -> ModelOutput:
        """One completion with retries. Usage of every attempt is added to the ledger (a failed attempt
        as a `failed_calls` count with its latency); time lost to failed attempts and backoff is reported
        as retry time, which the trial runner keeps off the task's clock."""
        config = config or self.config
        limiter = provider_limiter(self.api.provider, self.max_concurrency)
        attempt = 0
        try:
            while True:
                started = time.perf_counter()
                try:
                    async with limiter:
                        with anyio.fail_after(self._timeout(config)):
                            output = await self.api.generate(messages, tools, config)
                except Exception as exc:  # classified below; never swallowed
                    if isinstance(exc, ModelError):
                        raise
                    elapsed = time.perf_counter() - started
                    self.ledger.add(self.role, Usage(failed_calls=1, latency_s=round(elapsed, 6)))
                    decision = self._classify(exc)
                    if decision.kind == "fatal" or attempt >= self.retry.max_retries:
                        # Exhausted retries on a transient problem: an outage (⊥, re-runnable). A fatal error
                        # (bad key, rejected request) will not go away by re-running: stop the run.
                        fatal = decision.kind == "fatal"
                        kind = "failed" if fatal else f"gave up after retries ({attempt + 1} attempts)"
                        raise observe(
                            ModelError(
                                f"{self.name} ({self.role}) {kind} [{decision.category}]: {type(exc).__name__}: {str(exc)[:500]}",
                                infrastructure=not fatal,
                                category=decision.category,
                            )
                        ) from exc
                    wait = self.retry.delay(attempt, decision.retry_after)
                    log.warning("%s (%s): %s [%s]; retry %d in %.1fs", self.name, self.role, decision.reason or type(exc).__name__, decision.category, attempt + 1, wait)
                    self.ledger.retry_category = decision.category
                    if attempt == 0:
                        self.ledger.retrying += 1
                    attempt += 1
                    self.ledger.add_retry_time(elapsed + wait)
                    await anyio.sleep(wait)
                    continue
                usage = output.usage.model_copy(update={"calls": max(output.usage.calls, 1), "latency_s": round(time.perf_counter() - started, 6)})
                output = safe_output(output).model_copy(update={"usage": usage, "model": output.model or self.name})
                self.ledger.add(self.role, usage)
                return output
        except anyio.get_cancelled_exc_class():
            if attempt > 0:  # cancelled (e.g. by the task's deadline) while retrying: the provider's doing
                self.ledger.cancelled_while_retrying = True
            raise
        finally:
            if attempt > 0:
                self.ledger.retrying -= 1

    def _timeout(self, config: GenerateConfig) -> float:
        limit = self.ledger.call_timeout_s
        return config.timeout_s if limit is None else min(config.timeout_s, limit)

    def _classify(self, exc: BaseException) -> RetryDecision:
        """The provider's decision; an answer that could not even be decoded (AttributeError, broken JSON,
        a validation error) is a protocol error, retried like an outage, never a reason to stop the run."""
        decision = self.api.classify_error(exc)
        if decision.kind == "fatal" and decision.category == "unknown" and isinstance(exc, PROTOCOL_ERROR_TYPES):
            return RetryDecision("transient", reason=f"malformed response: {type(exc).__name__}", category="protocol")
        return decision
