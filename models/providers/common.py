"""Helpers shared by the provider adapters. They import nothing heavy: SDKs load on first use."""

from __future__ import annotations

import email.utils
import importlib
import os
import time
from collections.abc import Mapping
from types import ModuleType
from typing import Any

from models.base import PROTOCOL_ERROR_TYPES, ConfigurationError, ProviderProtocolError, RetryDecision
from models.providers.transport import DEFAULT_BACKEND, HttpBackend

def import_sdk(package: str) -> ModuleType:
    """Import a provider SDK on first use, turning its absence into an actionable configuration error."""
    try:
        return importlib.import_module(package)
    except ImportError as exc:
        raise ConfigurationError(f"the {package!r} package is required for {package} models; install it with: uv add {package}") from exc


def pooled_http_client(sdk: Any, backend: HttpBackend = DEFAULT_BACKEND) -> Any:
    """The SDK's own default async HTTP client class for `backend` (`DefaultAioHttpClient` or
    `DefaultAsyncHttpxClient`: its timeouts, redirect policy, proxies from the environment) over the
    process's shared transport of that backend, whose cost per request does not grow with the number in
    flight and whose connections every model role reuses (`models.providers.transport`)."""
    from models.providers.transport import shared_transport

    client_class = sdk.DefaultAioHttpClient if backend == "aiohttp" else sdk.DefaultAsyncHttpxClient
    return client_class(transport=shared_transport(backend, sdk.__name__))


def read_api_key(env_var: str) -> str:
    """The key from `env_var`. Checked up front so a missing key fails at model construction, naming the
    variable, instead of as an opaque 401 in the middle of a run."""
    key = os.environ.get(env_var, "").strip()
    if not key:
        raise ConfigurationError(f"no API key: set {env_var}")
    return key


def retry_after_seconds(headers: Mapping[str, str] | None) -> float | None:
    """The server's requested wait, from `retry-after-ms` (more precise, non-standard), then `retry-after`
    as seconds or as an HTTP date. None when absent or unparseable, so `Model` falls back to backoff."""
    if not headers:
        return None
    millis = headers.get("retry-after-ms")
    if millis is not None:
        try:
            return max(float(millis) / 1000.0, 0.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    parsed = email.utils.parsedate_tz(value)
    if parsed is None:
        return None
    return max(float(email.utils.mktime_tz(parsed)) - time.time(), 0.0)


def response_headers(error: BaseException) -> Mapping[str, str] | None:
    """Headers of the HTTP response behind an SDK status error, if any."""
    response = getattr(error, "response", None)
    return getattr(response, "headers", None)


def classify_stainless_error(sdk: Any, error: BaseException) -> RetryDecision | None:
    """The retry decision for the error classes both official SDKs share (same generator, same names):
    429 waits for Retry-After; 5xx, 408, timeouts and connection errors are transient; a 200 whose body
    is not the expected JSON is a protocol error (transient); 401/403 are auth errors and 400/404/422
    bad requests (fatal). None: not one of these, the caller decides (usually fatal)."""
    if isinstance(error, sdk.RateLimitError):
        return RetryDecision("rate_limit", retry_after=retry_after_seconds(response_headers(error)), reason="rate limited (429)", category="rate_limit")
    if isinstance(error, sdk.InternalServerError):
        return RetryDecision("transient", reason=f"server error ({error.status_code})", category="server")
    if isinstance(error, sdk.APIStatusError) and error.status_code == 408:
        return RetryDecision("transient", reason="request timeout (408)", category="timeout")
    if isinstance(error, sdk.APITimeoutError | TimeoutError):  # APITimeoutError before its base class
        return RetryDecision("transient", reason="timeout", category="timeout")
    if isinstance(error, sdk.APIConnectionError):
        return RetryDecision("transient", reason="connection error", category="transport")
    if isinstance(error, getattr(sdk, "APIResponseValidationError", ())) or isinstance(error, ProviderProtocolError):
        return RetryDecision("transient", reason=f"malformed response: {error}", category="protocol")
    if isinstance(error, sdk.AuthenticationError | sdk.PermissionDeniedError):
        return RetryDecision("fatal", reason=f"authentication failed ({error.status_code})", category="auth")
    if isinstance(error, sdk.APIStatusError) and 400 <= error.status_code < 500:
        return RetryDecision("fatal", reason=f"request rejected ({error.status_code})", category="bad_request")
    if isinstance(error, PROTOCOL_ERROR_TYPES) and not isinstance(error, sdk.APIError):
        return RetryDecision("transient", reason=f"malformed response: {type(error).__name__}: {error}", category="protocol")
    return None
