"""The HTTP client the framework adapters give their provider SDKs: it counts every request the framework
sends (retries and failed attempts included), and refuses a malformed answer the way our own provider
layer does (`models.providers.openai`): a 200 whose chat completion has no choices, or whose Responses-API
answer has no output items, is a protocol error, not an empty reply.

Why: a framework reports the usage of the requests that succeeded, and only when its run succeeds; the
trial's ledger must hold every request made, whatever the outcome (docs/guarantees.md). The adapter
compares the requests this client saw with the requests the framework reported and records the rest as
`failed_calls`.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any

from models.base import ConfigurationError, ProviderProtocolError, observe


def malformed_answer(api: str, body: Any) -> str | None:
    """Why a 200 answer of the chat-completions (`api="chat"`) or Responses (`api="responses"`) API is
    not an answer at all, or None. The two APIs' equivalents: a chat completion without `choices`, a
    response without `output` items (the Agents SDK would read either as an empty reply and charge it to
    the model; our provider layer calls it a protocol fault, ⊥). An answer that *has* a choice or an
    output item is the model's, however empty its text."""
    if not isinstance(body, dict):
        return None
    if api == "chat" and not body.get("choices"):
        return "the provider answered a chat completion without choices"
    if api == "responses" and body.get("object", "response") == "response" and not body.get("output"):
        return f"the provider answered a response without output items (status {body.get('status')!r})"
    return None


@dataclass
class RequestCounter:
    sent: int = 0
    """Requests sent to the provider (every attempt)."""
    malformed: int = 0
    """Answers refused as malformed (a 200 without choices)."""
    clients: list[Any] = field(default_factory=list)

    def client(self, timeout_s: float | None) -> Any:
        """An async HTTP client (`httpx2`, which the provider SDKs use, else `httpx`) whose every request is
        counted; `timeout_s` bounds each attempt."""
        try:
            import httpx2 as httpx
        except ImportError:  # older SDKs
            import httpx  # type: ignore[no-redef]

        async def on_request(request: Any) -> None:
            self.sent += 1

        async def on_response(response: Any) -> None:
            if response.status_code != 200 or "json" not in response.headers.get("content-type", ""):
                return
            path = response.request.url.path
            api = "chat" if path.endswith("/chat/completions") else "responses" if path.endswith("/responses") else None
            if api is None:
                return
            await response.aread()
            try:
                body = json.loads(response.content)
            except ValueError:
                return  # the SDK reports undecodable bodies itself
            problem = malformed_answer(api, body)
            if problem:
                self.malformed += 1
                raise observe(ProviderProtocolError(problem))

        timeout = httpx.Timeout(timeout_s, connect=min(timeout_s, 10.0)) if timeout_s else httpx.Timeout(600.0, connect=10.0)
        client = httpx.AsyncClient(timeout=timeout, event_hooks={"request": [on_request], "response": [on_response]})
        self.clients.append(client)
        return client

    async def aclose(self) -> None:
        clients, self.clients = self.clients, []
        for client in clients:
            await client.aclose()


def openai_compatible(name: str) -> tuple[str, str | None, str] | None:
    """`(model, base_url, api_key)` for a `provider:model` name this project's registry serves over the
    OpenAI API (openai, vllm, ollama, llamacpp, openrouter, registered endpoints), else None. The same
    base URLs and key variables as the built-in agent: `--agent-model llamacpp:x` means the same server
    whatever the agent."""
    from models.providers.openai import LOCAL_PLACEHOLDER_KEY
    from models.registry import OPENAI_COMPATIBLE, parse_model_name

    provider, model = parse_model_name(name)
    if provider == "openai":
        key = os.environ.get("OPENAI_API_KEY", "").strip()
        if not key:
            raise ConfigurationError("no API key: set OPENAI_API_KEY")
        return model, os.environ.get("OPENAI_BASE_URL") or None, key
    endpoint = OPENAI_COMPATIBLE.get(provider)
    if endpoint is None:
        return None
    base_url = os.environ.get(f"{provider.upper()}_BASE_URL", endpoint.base_url)
    key = os.environ.get(endpoint.api_key_env, "").strip() if endpoint.api_key_env else LOCAL_PLACEHOLDER_KEY
    if endpoint.api_key_env and not key and provider == "openrouter":
        raise ConfigurationError(f"no API key: set {endpoint.api_key_env}")
    return model, base_url, key or LOCAL_PLACEHOLDER_KEY
