"""Hostile-argument fuzzing of every tool of every registered domain, through the real gateway stack.

The registry is iterated, so a new domain is covered the moment it is registered. For every call the
test asserts the gateway's invariant (issue 14):

- no crash: the MCP call returns a result (possibly an error), never an exception or a masked bug;
- a rejected call (tool error or business refusal) says what is wrong in a bounded, safe message and
  leaves the trial byte-identical (state and id minter);
- an accepted call leaves a state that is still strict JSON (no NaN, no lone surrogate), and the trial's
  trace serialises.

Deterministic (`derandomize`), offline, in memory; the example budget is split over all tools so the
file stays well under ~30 s however many domains there are.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from typing import Any

import anyio.from_thread
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contracts.text import ERROR_MAX_CHARS
from servers.calls import check_state
from servers.gateway import Gateway
from servers.recorder import TRIAL_META_KEY
from servers.registry import environment_class, known_domains

TOTAL_EXAMPLES = 1_600
"""Spread over every tool of every domain (at least 10 each)."""

HTTP_EXAMPLES = 100
"""The same over streamable HTTP (at least 3 per tool): what a JSON body can carry."""

ALL_TOOLS = [(d, t) for d in known_domains() for t in environment_class(d).tool_methods()]
EXAMPLES_PER_TOOL = max(10, TOTAL_EXAMPLES // max(len(ALL_TOOLS), 1))
HTTP_EXAMPLES_PER_TOOL = max(3, HTTP_EXAMPLES // max(len(ALL_TOOLS), 1))

MEGABYTE = "A" * 1_000_000

HOSTILE_CONSTANTS: list[Any] = [
    math.nan, math.inf, -math.inf, 1e300, -1e300, 1e-300, -0.0, 10**30, -(10**30), 2**63, -1, 0,
    True, False, None,
    "NaN", "nan", "Infinity", "-inf", "1_000", "1e3", "0x10", "180", " 180 ", "0.001", "-5", "", " ",
    "\ud800", "ok\udfffok", "a\x00b", "\x1b[2J", "\u202eevil", "🙂" * 3,
    MEGABYTE, "X" * 10_001,
    [], {}, [1, 2], {"a": 1}, [math.nan], {"amount": math.inf},
]


def _known_strings(domain: str) -> list[str]:
    """Short strings of the domain's default world (ids, statuses, names): valid-looking values so that
    hostile values in one argument meet valid ones in the others and reach the tool bodies."""
    found: set[str] = set()

    def walk(value: Any) -> None:
        if isinstance(value, str) and 0 < len(value) <= 40:
            found.add(value)
        elif isinstance(value, dict):
            for key, item in value.items():
                walk(key)
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk(environment_class(domain).default_state().model_dump(mode="json"))
    return sorted(found)


def _values(domain: str) -> st.SearchStrategy[Any]:
    known = _known_strings(domain)
    scalar = st.one_of(
        st.sampled_from(HOSTILE_CONSTANTS),
        st.sampled_from(known) if known else st.just("ID-1"),
        st.floats(allow_nan=True, allow_infinity=True),
        st.integers(min_value=-(2**70), max_value=2**70),
        st.decimals(allow_nan=False, allow_infinity=False, places=3, min_value=-10_000, max_value=10_000).map(str),
        st.text(st.characters(codec=None, exclude_categories=()), max_size=20),
        st.sampled_from(known).map(lambda s: s + "-UNKNOWN") if known else st.just("UNKNOWN-1"),
    )
    return st.one_of(scalar, st.lists(scalar, max_size=3), st.dictionaries(st.text(max_size=5), scalar, max_size=2))


def _arguments(domain: str, tool: str) -> st.SearchStrategy[dict[str, Any]]:
    signature, _ = environment_class(domain).tool_signature(tool)
    values = _values(domain)
    names = list(signature.parameters)

    @st.composite
    def build(draw: st.DrawFn) -> dict[str, Any]:
        args: dict[str, Any] = {}
        for name in names:
            if draw(st.integers(0, 9)) > 0:  # mostly present, sometimes missing
                args[name] = draw(values)
        if draw(st.integers(0, 9)) == 0:
            args[draw(st.sampled_from(["extra", "__proto__", "\ud800", "x" * 300]))] = draw(values)
        return args

    return build()


@pytest.fixture(scope="module")
def world() -> Iterator[tuple[Gateway, dict[str, Any], anyio.from_thread.BlockingPortal]]:
    gateway = Gateway(known_domains())
    with anyio.from_thread.start_blocking_portal() as portal:
        clients = portal.wrap_async_context_manager(gateway.in_memory_clients())
        with clients as by_domain:
            yield gateway, by_domain, portal


def _fingerprint(gateway: Gateway, trial_id: str) -> tuple[str, dict[str, int]]:
    trial = gateway.trial(trial_id)
    return trial.state.model_dump_json(), trial.ids.snapshot()


def _error_text(result: Any) -> str:
    return "\n".join(getattr(block, "text", "") for block in result.content or [])


@pytest.mark.parametrize(("domain", "tool"), ALL_TOOLS, ids=[f"{d}.{t}" for d, t in ALL_TOOLS])
def test_hostile_arguments_never_corrupt_a_trial(world, domain: str, tool: str) -> None:
    gateway, clients, portal = world
    trial = gateway.open_trial(domain)
    client = clients[domain]
    meta = {TRIAL_META_KEY: trial.trial_id}

    @settings(
        max_examples=EXAMPLES_PER_TOOL,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture],
    )
    @given(arguments=_arguments(domain, tool))
    def one_call(arguments: dict[str, Any]) -> None:
        before = _fingerprint(gateway, trial.trial_id)
        n_trace = len(trial.trace)
        result = portal.call(lambda: client.call_tool(tool, arguments, meta=meta, raise_on_error=False))
        after = _fingerprint(gateway, trial.trial_id)
        assert len(trial.trace) == n_trace + 1, "every call is recorded exactly once"
        record = trial.trace[-1]
        if result.is_error:
            text = _error_text(result)
            assert text.strip(), "an error says what is wrong"
            assert "Error calling tool" not in text, f"a tool crashed (masked bug) on {tool}: {record.error}"
            assert len(text) <= ERROR_MAX_CHARS + 50, "errors are bounded"
            assert MEGABYTE[:2_000] not in text, "a long value is never echoed whole"
            assert record.status in ("tool_error", "unknown_tool")
            assert after == before, f"a rejected call changed the trial: {tool} {record.error}"
        elif isinstance(result.structured_content, dict) and result.structured_content.get("refused") is True:
            assert record.status == "refused"
            assert after == before, f"a refusal changed the trial: {tool}"
        else:
            assert record.status == "executed"
            check_state(trial.state)  # no NaN, no unsafe text stored
        json.dumps(record.model_dump(mode="json"), allow_nan=False).encode("utf-8")

    try:
        one_call()
    finally:
        gateway.close_trial(trial.trial_id)
    # The whole trial view (what the control plane answers) is still strict JSON.
    json.dumps(trial.final_state(), allow_nan=False).encode("utf-8")


@pytest.fixture(scope="module")
def http_world() -> Iterator[tuple[Gateway, str, anyio.from_thread.BlockingPortal]]:
    from servers.http import serve_in_loop

    gateway = Gateway(known_domains())
    with anyio.from_thread.start_blocking_portal() as portal:
        with portal.wrap_async_context_manager(serve_in_loop(gateway)) as base_url:
            yield gateway, base_url, portal


def _sendable(arguments: dict[str, Any]) -> bool:
    """What an HTTP client can put in a JSON body at all (well-behaved clients refuse NaN and surrogates;
    the raw JSON `NaN` literal is covered by test_gateway_invariant)."""
    try:
        json.dumps(arguments, allow_nan=False, ensure_ascii=False).encode("utf-8")
    except (ValueError, UnicodeError):
        return False
    return True


@pytest.mark.parametrize(("domain", "tool"), ALL_TOOLS, ids=[f"{d}.{t}" for d, t in ALL_TOOLS])
def test_hostile_arguments_over_http(http_world, domain: str, tool: str) -> None:
    from fastmcp import Client
    from hypothesis import assume

    gateway, base_url, portal = http_world
    trial = gateway.open_trial(domain)
    client = Client(f"{base_url}/{domain}/mcp?trial={trial.trial_id}")

    @settings(
        max_examples=HTTP_EXAMPLES_PER_TOOL,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(arguments=_arguments(domain, tool))
    def one_call(arguments: dict[str, Any]) -> None:
        assume(_sendable(arguments))
        before = _fingerprint(gateway, trial.trial_id)
        result = portal.call(lambda: client.call_tool(tool, arguments, raise_on_error=False))
        after = _fingerprint(gateway, trial.trial_id)
        refused = isinstance(result.structured_content, dict) and result.structured_content.get("refused") is True
        if result.is_error or refused:
            assert after == before, f"a rejected call changed the trial: {tool} {trial.trace[-1].error}"
            if result.is_error:
                text = _error_text(result)
                assert text.strip() and "Error calling tool" not in text and len(text) <= ERROR_MAX_CHARS + 50
        else:
            check_state(trial.state)

    with portal.wrap_async_context_manager(client):
        try:
            one_call()
        finally:
            gateway.close_trial(trial.trial_id)
    json.dumps(trial.final_state(), allow_nan=False).encode("utf-8")
