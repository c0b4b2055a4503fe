"""Model names are `provider:model`. Provider modules are imported only when a model of theirs is built,
so a missing SDK or key is an error at that moment, naming exactly what to install or set."""

from __future__ import annotations

import importlib
import os
from collections.abc import Iterable
from dataclasses import dataclass

from models.base import ConfigurationError, ModelAPI
from models.model import Model, RetryPolicy, UsageLedger
from models.providers.transport import DEFAULT_BACKEND, HttpBackend
from models.types import GenerateConfig, Role


@dataclass(frozen=True)
class Endpoint:
    """An OpenAI-compatible server: its base URL and the environment variable holding its key."""

    base_url: str
    api_key_env: str | None = None
    """None: the server needs no key (a local vLLM/Ollama/llama.cpp)."""


OPENAI_COMPATIBLE: dict[str, Endpoint] = {
    "vllm": Endpoint("http://localhost:8000/v1", "VLLM_API_KEY"),
    "ollama": Endpoint("http://localhost:11434/v1"),
    "llamacpp": Endpoint("http://localhost:8080/v1"),
    "openrouter": Endpoint("https://openrouter.ai/api/v1", "OPENROUTER_API_KEY"),
}
"""Presets. Override a base URL with `<PROVIDER>_BASE_URL` (e.g. `VLLM_BASE_URL`), or register your own
endpoint with `register_endpoint`."""

PROVIDERS: dict[str, str] = {
    "openai": "models.providers.openai:OpenAIChatAPI",
    "anthropic": "models.providers.anthropic:AnthropicAPI",
    "replay": "models.providers.replay:ReplayAPI",
}


def register_endpoint(provider: str, base_url: str, api_key_env: str | None = None) -> None:
    OPENAI_COMPATIBLE[provider] = Endpoint(base_url, api_key_env)


def parse_model_name(name: str) -> tuple[str, str]:
    provider, sep, model = name.partition(":")
    if not sep or not provider or not model:
        raise ConfigurationError(f"model names are 'provider:model' (e.g. openai:gpt-5-mini), got {name!r}")
    return provider, model


SCRIPTED_PROVIDER = "mock"
"""`models.scripted.ScriptedModel`'s provider: its models are built by the caller (a run's component
factory, the benchmarks, the tests), never by `get_model_api`, so a plan naming them is not refused."""


def check_model_name(name: str) -> None:
    """`name` is `provider:model` of a provider this registry knows (a preset, a registered endpoint or an
    SDK adapter): the check a run makes of every model before it asks for any key, so a typo in a
    provider is named as such, not reported as a missing key of some other model."""
    provider, _ = parse_model_name(name)
    if provider not in OPENAI_COMPATIBLE and provider not in PROVIDERS and provider != SCRIPTED_PROVIDER:
        raise ConfigurationError(f"unknown model provider {provider!r} in {name!r}; known: {', '.join(known_providers())}")


def known_providers() -> list[str]:
    return sorted([*PROVIDERS, *OPENAI_COMPATIBLE])


def get_model_api(name: str, *, http_backend: HttpBackend = DEFAULT_BACKEND) -> ModelAPI:
    """The provider adapter of `name`; `http_backend` is how its SDK reaches the network
    (`models.providers.transport.HttpBackend`; results do not depend on it)."""
    provider, model = parse_model_name(name)
    if provider in OPENAI_COMPATIBLE:
        endpoint = OPENAI_COMPATIBLE[provider]
        base_url = os.environ.get(f"{provider.upper()}_BASE_URL", endpoint.base_url)
        from models.providers.openai import OpenAIChatAPI

        return OpenAIChatAPI(model, provider=provider, base_url=base_url, api_key_env=endpoint.api_key_env, http_backend=http_backend)
    target = PROVIDERS.get(provider)
    if target is None:  # the scripted provider included: its models are built by the caller, never here
        raise ConfigurationError(f"unknown model provider {provider!r} in {name!r}; known: {', '.join(known_providers())}")
    module_name, _, class_name = target.partition(":")
    cls = getattr(importlib.import_module(module_name), class_name)
    return cls(model, http_backend=http_backend)


def sdk_modules(names: Iterable[str]) -> list[str]:
    """The provider SDK modules that models `names` will import (unknown names: none; their error comes
    when the model is built). `httpcore2` is `httpx2`'s, which it imports on first use; the SDK's
    vendored aiohttp transport is what the default `--http-transport aiohttp` uses."""
    modules: list[str] = []
    for name in names:
        provider = name.partition(":")[0]
        target = "models.providers.openai:OpenAIChatAPI" if provider in OPENAI_COMPATIBLE else PROVIDERS.get(provider)
        if target is None:
            continue
        sdk = {"models.providers.openai": "openai", "models.providers.anthropic": "anthropic"}.get(target.partition(":")[0])
        for module in (sdk, "httpcore2", f"{sdk}._vendor.httpx_aiohttp") if sdk else ():
            if module not in modules:
                modules.append(module)
    return modules


def preload_sdks(names: Iterable[str]) -> list[str]:
    """Import the SDKs of models `names` now (once per process: ~0.45 s of CPU for `openai`, ~1.3 s for
    `anthropic`) and load the default TLS context (~30 ms), so that a process that is about to serve trials — a worker's fork server, a driver
    before its preflight — does not pay it later on a trial's path. A missing SDK is left for the model's
    construction to report (`ConfigurationError` naming the package). Returns what was imported."""
    loaded = []
    for module in sdk_modules(names):
        try:
            importlib.import_module(module)
        except ImportError:
            continue
        loaded.append(module)
    if "httpcore2" in loaded:  # and the process's default TLS context, which every client's shards share
        from models.providers.transport import default_ssl_context

        default_ssl_context()
    return loaded


def get_model(
    name: str,
    *,
    role: Role,
    config: GenerateConfig | None = None,
    ledger: UsageLedger | None = None,
    retry: RetryPolicy | None = None,
    max_concurrency: int = 32,
) -> Model:
    return Model(get_model_api(name), role=role, config=config, ledger=ledger, retry=retry, max_concurrency=max_concurrency)


def credential_env(name: str) -> str | None:
    """The environment variable a model needs for its key (None: needs none)."""
    provider, _ = parse_model_name(name)
    if provider in OPENAI_COMPATIBLE:
        return OPENAI_COMPATIBLE[provider].api_key_env if provider == "openrouter" else None
    return {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}.get(provider)


def credentials_available(name: str) -> bool:
    env = credential_env(name)
    return env is None or bool(os.environ.get(env))
