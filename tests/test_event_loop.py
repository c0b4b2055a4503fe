"""The event loop a run drives its trials on (`--event-loop`, `harness.aio`): uvloop where installed,
the standard loop on request, a clear error when uvloop is asked for and missing — and results that do
not depend on the loop: the same trials over real HTTP providers give the same records on both."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from rich.console import Console

from harness import aio
from harness.config import EXECUTION_ONLY, RunConfig
from harness.run import execute_run
from tests.test_http_provider_path import TASK, fake_models


async def _loop_module() -> str:
    return type(asyncio.get_running_loop()).__module__


def test_each_choice_runs_on_its_loop() -> None:
    assert aio.run(_loop_module, event_loop="uvloop").startswith("uvloop")
    assert aio.run(_loop_module, event_loop="asyncio").startswith("asyncio")
    assert aio.run(_loop_module).startswith("uvloop")  # auto, where uvloop is installed (a dependency here)


def test_a_missing_uvloop_is_an_error_when_asked_for_and_the_standard_loop_otherwise(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(aio, "uvloop_available", lambda: False)
    with pytest.raises(ValueError, match="uvloop is not installed"):
        aio.run(_loop_module, event_loop="uvloop")
    assert aio.run(_loop_module, event_loop="auto").startswith("asyncio")


def test_the_loop_is_an_execution_setting() -> None:
    assert "event_loop" in EXECUTION_ONLY
    assert RunConfig(event_loop="asyncio").result_affecting() == RunConfig(event_loop="uvloop").result_affecting()


def _essence(record: object) -> dict:
    """What a trial did and how it was graded, without timings, ids minted per call or usage latency."""
    data = record.model_dump(mode="json")  # type: ignore[attr-defined]
    for key in ("wall_s", "usage"):
        data.pop(key)
    for call in data["tool_trace"]:
        call.pop("latency_ms")
    return {k: data[k] for k in ("key", "conversation", "tool_trace", "final_state", "strict", "verdict", "failure_class")}


def test_the_same_trials_give_the_same_records_on_either_loop(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    with fake_models() as (url, _):
        monkeypatch.setenv("VLLM_BASE_URL", f"{url}/v1")
        monkeypatch.setenv("OLLAMA_BASE_URL", f"{url}/v1")
        monkeypatch.setenv("VLLM_API_KEY", "fake-key")
        records = {}
        for loop in ("uvloop", "asyncio"):
            config = RunConfig(
                out=tmp_path / loop, task=[TASK], rounds=2, concurrency=2, agent="graph", user="llm", judge="llm", event_loop=loop,
                agent_model="vllm:gold-agent", router_model="vllm:gold-router", user_model="ollama:gold-user", judge_model="ollama:gold-judge",
            )  # fmt: skip
            result = aio.run(lambda config=config: execute_run(config, console=Console(quiet=True)), event_loop=loop)
            assert len(result.records) == 2 and all(r.strict for r in result.records), [r.error for r in result.records]
            records[loop] = sorted((_essence(r) for r in result.records), key=lambda e: str(e["key"]))
    assert records["uvloop"] == records["asyncio"]
