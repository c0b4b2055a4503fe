"""The provider interface and the typed errors/retry decisions the `Model` wrapper acts on."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from models.types import ChatMessage, GenerateConfig, ModelOutput, ToolSpec


@dataclass(frozen=True)
class RetryDecision:
    """What to do after a failed call: give up (`fatal`), retry with backoff (`transient`), or retry
    after the server's Retry-After (`rate_limit`)."""

    kind: Literal["fatal", "transient", "rate_limit"]
    retry_after: float | None = None
    reason: str = ""


FATAL = RetryDecision("fatal")


class ModelError(RuntimeError):
    """A model call failed for good. `infrastructure` errors (outage, exhausted retries, timeouts) make
    the trial ⊥ (excluded and re-runnable); others are configuration errors and stop the run."""

    def __init__(self, message: str, *, infrastructure: bool = True) -> None:
        super().__init__(message)
        self.infrastructure = infrastructure


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
            return RetryDecision("transient", reason="timeout")
        return FATAL

    async def aclose(self) -> None:
        """Release clients (HTTP pools). Default: nothing to release."""
