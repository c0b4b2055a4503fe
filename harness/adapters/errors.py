"""Mapping a framework's exceptions to the benchmark's failure classes (see `harness.runner.trial`).

- the model made the agent give up (invalid tool calls until retries ran out, a usage, token or context
  limit, unparseable output): `AgentFailure` — scored 0, stays in the denominator;
- the provider failed after the framework's retries (connection, timeout, 429, 5xx): `ModelError` — ⊥,
  excluded and re-run;
- the provider refuses the configuration (bad key, unknown model, quota): `ConfigurationError` — the run
  stops;
- anything else is left as it is, and `harness.runner.agent_host.attribute` makes it the agent's failure
  (`agent_error`: scored 0, in the denominator).

Every `ModelError` made here is marked as the harness's observation (`models.base.observe`), with its
category (`timeout` becomes ⊥ `provider_timeout`).

Frameworks are matched by exception class *name* along the MRO, so a framework version that lacks one of
the classes still maps the others.
"""

from __future__ import annotations

from collections.abc import Iterable

from models.base import ConfigurationError, ErrorCategory, ModelError, ProviderProtocolError, observe, observed
from orchestrator.protocol import AgentFailure


def _names(exc: BaseException) -> list[str]:
    return [k.__name__ for k in type(exc).__mro__]


def _chain(exc: BaseException) -> list[BaseException]:
    """`exc` and its causes (frameworks wrap the SDK's error, which wraps the transport's)."""
    chain: list[BaseException] = [exc]
    while len(chain) < 8:
        nxt = chain[-1].__cause__ or chain[-1].__context__
        if nxt is None or nxt in chain:
            break
        chain.append(nxt)
    return chain


def http_status(exc: BaseException) -> int | None:
    status = getattr(exc, "status_code", None) or getattr(exc, "status", None)
    return status if isinstance(status, int) else None


def classify(
    exc: BaseException,
    *,
    model: dict[str, str],
    infrastructure: Iterable[str] = (),
    configuration: Iterable[str] = (),
) -> BaseException:
    """The exception to raise instead of `exc`. `model` maps exception class names to failure kinds;
    a class with an HTTP status falls back on it (408/409/429/5xx ⊥, 401/403/404 configuration, other
    4xx the model's: e.g. a request the model made too long)."""
    names = _names(exc)
    status = http_status(exc)
    seen = _chain(exc)
    if any(isinstance(e, ProviderProtocolError) and observed(e) for e in seen):  # our counting client refused a malformed answer
        return observe(ModelError(f"malformed provider answer: {seen[-1]}", infrastructure=True, category="protocol"))
    for name in names:  # most specific first
        if name in model:
            return AgentFailure(model[name], f"{type(exc).__name__}: {exc}")
        if name in set(infrastructure):
            return observe(ModelError(f"{type(exc).__name__}: {exc}", infrastructure=True, category=category(exc, status)))
        if name in set(configuration):
            return observe(ConfigurationError(f"{type(exc).__name__}: {exc}"))
    if status is not None:
        if status in (408, 409, 429) or status >= 500:
            return observe(ModelError(f"provider error {status}: {exc}", infrastructure=True, category=category(exc, status)))
        if status in (401, 403, 404):
            return observe(ConfigurationError(f"provider refused the configuration ({status}): {exc}"))
        if 400 <= status < 500:
            return AgentFailure("provider_rejected", f"provider rejected the request ({status}): {exc}")
    return exc


def category(exc: BaseException, status: int | None) -> ErrorCategory:
    """What a framework's provider error is, in our provider layer's terms (`models.base.ErrorCategory`):
    a timeout (no answer within the per-call timeout) is ⊥ `provider_timeout`, the rest ⊥ `provider`."""
    chain = _chain(exc)
    names = [n for e in chain for n in _names(e)]
    if status == 408 or any("Timeout" in n for n in names) or any(isinstance(e, TimeoutError) for e in chain):
        return "timeout"
    if status == 429 or any("RateLimit" in n for n in names):
        return "rate_limit"
    if status is not None and status >= 500:
        return "server"
    if any("Protocol" in n for n in names):
        return "protocol"
    return "transport"
