"""The provider interface and the typed errors/retry decisions the `Model` wrapper acts on."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from models.types import ChatMessage, GenerateConfig, ModelOutput, ToolSpec


ErrorCategory = Literal["transport", "timeout", "protocol", "rate_limit", "server", "auth", "bad_request", "unknown"]
"""What a provider failure *is*:

- transport: the request did not get an answer (connection refused/reset, DNS);
- timeout: no answer in time (the SDK's or `Model`'s own deadline);
- protocol: an answer that is not a well-formed response (HTTP 200 with HTML or broken JSON, missing fields);
- rate_limit: 429 (and provider-specific "overloaded");
- server: 5xx;
- auth: bad or missing key, no permission, out of credits;
- bad_request: the request itself was rejected (400/404/422): retrying the same request cannot help;
- unknown: anything else (treated as fatal, so it is seen rather than hidden).

transport, timeout, protocol, rate_limit and server are retried and, once retries are exhausted, make the
trial ⊥ (an outage: excluded, re-runnable). auth, bad_request and unknown stop the run.
"""

RETRIABLE: frozenset[str] = frozenset({"transport", "timeout", "protocol", "rate_limit", "server"})


@dataclass(frozen=True)
class RetryDecision:
    """What to do after a failed call: give up (`fatal`), retry with backoff (`transient`), or retry
    after the server's Retry-After (`rate_limit`); `category` says what the failure is."""

    kind: Literal["fatal", "transient", "rate_limit"]
    retry_after: float | None = None
    reason: str = ""
    category: ErrorCategory = "unknown"


FATAL = RetryDecision("fatal")


class ProviderProtocolError(RuntimeError):
    """The provider answered, but not with a well-formed response (e.g. HTTP 200 with an HTML page,
    broken JSON, a completion without choices). Transient: retried, then ⊥."""


PROTOCOL_ERROR_TYPES: tuple[type[BaseException], ...] = (ProviderProtocolError, ValueError, AttributeError, TypeError, KeyError, IndexError)
"""Exceptions that, raised while a provider's answer is decoded, mean the answer was malformed
(`json.JSONDecodeError` and pydantic's `ValidationError` are `ValueError`s)."""


class ModelError(RuntimeError):
    """A model call failed for good. `infrastructure` errors (outage, exhausted retries, timeouts) make
    the trial ⊥ (excluded and re-runnable); others are configuration errors and stop the run."""

    def __init__(self, message: str, *, infrastructure: bool = True, category: ErrorCategory = "unknown") -> None:
        super().__init__(message)
        self.infrastructure = infrastructure
        self.category = category


_OBSERVED = "_crmbench_observed"


def observe(exc: BaseException) -> BaseException:
    """Mark `exc` as seen by the harness itself (our provider layer's outage after retries, a framework
    adapter's mapping of the framework's provider-error classes). Only observed errors can make a trial ⊥:
    the same exception class raised by an agent under test is the agent's failure (see `harness.runner.trial`)."""
    setattr(exc, _OBSERVED, True)
    return exc


def observed(exc: BaseException) -> bool:
    """Whether the harness itself raised or classified `exc` (`observe`)."""
    return getattr(exc, _OBSERVED, False) is True


class ConfigurationError(ModelError):
    """Missing key or package, unknown provider: fix the configuration, nothing to retry."""

    def __init__(self, message: str) -> None:
        super().__init__(message, infrastructure=False)


class ModelAPI(ABC):
    """One provider's model. Only `generate` is required; `classify_error` has a safe default."""

    provider: str = ""

    def __init__(self, model: str) -> None:
        self.model = model

    @property
    def name(self) -> str:
        return f"{self.provider}:{self.model}"

    @abstractmethod
    async def generate(self, messages: Sequence[ChatMessage], tools: Sequence[ToolSpec], config: GenerateConfig) -> ModelOutput:
        """One completion. Raise the provider's exception on failure; `classify_error` decides retries."""

    def classify_error(self, error: BaseException) -> RetryDecision:
        """Map a provider exception to a retry decision. Default: timeouts are transient, the rest fatal."""
        if isinstance(error, TimeoutError):
            return RetryDecision("transient", reason="timeout", category="timeout")
        if isinstance(error, ProviderProtocolError):
            return RetryDecision("transient", reason=f"malformed response: {error}", category="protocol")
        if isinstance(error, ConnectionError):
            return RetryDecision("transient", reason="connection error", category="transport")
        return FATAL

    async def aclose(self) -> None:
        """Release clients (HTTP pools). Default: nothing to release."""
