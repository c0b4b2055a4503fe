"""Real-model runs never fall back silently (issue 14): a missing key for a role the user asked for is a
clear error before anything runs; offline stand-ins only when asked for or when the whole run is offline."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.runner.config import RunConfig
from harness.runner.plan import resolve_plan
from models.base import ConfigurationError


@pytest.fixture
def no_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENROUTER_API_KEY"):
        monkeypatch.delenv(var, raising=False)


def test_agent_model_without_its_key_is_an_error(no_keys: None) -> None:
    with pytest.raises(ConfigurationError, match="--agent-model openai:gpt-5 needs OPENAI_API_KEY"):
        resolve_plan(RunConfig(agent_model="openai:gpt-5"))


def test_missing_user_or_judge_key_in_a_real_model_run_is_an_error(no_keys: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    with pytest.raises(ConfigurationError, match="user simulator openai:gpt-5-mini needs OPENAI_API_KEY.*--user scripted"):
        resolve_plan(RunConfig(agent_model="anthropic:claude-sonnet-4-5"))
    with pytest.raises(ConfigurationError, match="reply judge openai:gpt-5-mini needs OPENAI_API_KEY.*--judge evidence"):
        resolve_plan(RunConfig(agent_model="anthropic:claude-sonnet-4-5", user="scripted"))
    plan = resolve_plan(RunConfig(agent_model="anthropic:claude-sonnet-4-5", user="scripted", judge="evidence"))
    assert plan.agent == "graph" and plan.user == "scripted" and plan.judge == "evidence"
    assert any("--user scripted" in n for n in plan.notes) and any("--judge evidence" in n for n in plan.notes)
    # the same models on the anthropic key work
    plan = resolve_plan(RunConfig(agent_model="anthropic:claude-sonnet-4-5", user_model="anthropic:claude-haiku-4-5", judge_model="anthropic:claude-haiku-4-5"))
    assert (plan.user, plan.judge) == ("llm", "llm")


def test_offline_stand_ins_when_the_whole_run_is_offline(no_keys: None) -> None:
    plan = resolve_plan(RunConfig())
    assert (plan.agent, plan.user, plan.judge, plan.offline) == ("oracle", "scripted", "evidence", True)
    plan = resolve_plan(RunConfig(offline=True))
    assert plan.offline and any("--offline" in n for n in plan.notes)
    with pytest.raises(ConfigurationError, match="contradicts"):
        resolve_plan(RunConfig(offline=True, agent="graph", agent_model="openai:gpt-5"))


def test_cli_missing_key_is_a_sentence_and_exit_2_before_anything_runs(no_keys: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from harness.cli import main

    out = tmp_path / "run"
    with pytest.raises(SystemExit) as info:
        main(["run", "--agent-model", "openai:gpt-5", "--task", "payments_balance_inquiry_01", "--out", str(out)])
    err = capsys.readouterr().err
    assert info.value.code == 2, err
    assert "OPENAI_API_KEY" in err and "Traceback" not in err
    assert not out.exists()
