"""Resolve a `RunConfig` into what will actually run: which agent, user and judge, with which models.

"auto" choices become concrete here, once, so the manifest records what ran and the config hash covers
the resolved plan. With no API key configured the run is offline (oracle agent, scripted user, evidence
judge) and the plan says so.
"""

from __future__ import annotations

import hashlib
import json
from typing import Literal

from pydantic import BaseModel, Field

from harness.config import RunConfig
from models.base import ConfigurationError
from models.registry import credential_env, credentials_available, parse_model_name


class Plan(BaseModel):
    agent: Literal["graph", "oracle", "noop", "script", "pydantic-ai"]
    agent_model: str | None = None
    router_model: str | None = None
    user: Literal["llm", "scripted"]
    user_model: str | None = None
    judge: Literal["llm", "evidence"]
    judge_model: str | None = None
    offline: bool
    notes: list[str] = Field(default_factory=list)

    def models(self) -> dict[str, str]:
        roles = {"agent": self.agent_model, "router": self.router_model, "user": self.user_model, "judge": self.judge_model}
        return {role: name for role, name in roles.items() if name}


def _has_key(model: str | None) -> bool:
    return model is not None and credentials_available(model)


def _missing_key(flag: str, model: str, opt_out: str) -> ConfigurationError:
    return ConfigurationError(
        f"{flag} {model} needs {credential_env(model)} to be set; set it, or {opt_out}. Nothing was run."
    )


def resolve_plan(config: RunConfig) -> Plan:
    """Real-model runs never fall back silently: a model the user asked for (an agent model, or the user
    simulator and judge of a run whose agent is a model) without its key is an error before anything
    runs. The offline stand-ins (oracle, scripted user, evidence judge) are used only when asked for
    (`--offline`, `--user scripted`, `--judge evidence`) or when the whole run is offline (no agent model)."""
    notes: list[str] = []
    for name in filter(None, (config.agent_model, config.router_model, config.user_model, config.judge_model)):
        parse_model_name(name)
    agent = config.agent
    if config.offline and agent in ("graph", "pydantic-ai"):
        raise ConfigurationError(f"--offline contradicts --agent {agent} (a model agent); drop one of them")
    if agent == "auto":
        if config.offline:
            agent = "oracle"
            notes.append("offline run (--offline): oracle agent plays each task's gold path")
        elif config.agent_model:
            if not _has_key(config.agent_model):
                raise _missing_key("--agent-model", config.agent_model, "pass --offline for an offline run")
            agent = "graph"
        else:
            agent = "oracle"
            notes.append("offline run (no --agent-model): oracle agent plays each task's gold path")
    if agent in ("graph", "pydantic-ai"):
        if not config.agent_model:
            raise ConfigurationError(f"--agent {agent} needs --agent-model provider:model")
        if not _has_key(config.agent_model):
            raise _missing_key("--agent-model", config.agent_model, "pass --offline for an offline run")
        if config.router_model and agent == "graph" and not _has_key(config.router_model):
            raise _missing_key("--router-model", config.router_model, "drop --router-model to route with the agent model")
    if agent == "script" and config.script is None:
        raise ConfigurationError("--agent script needs --script FILE (a trajectory file)")
    model_agent = agent in ("graph", "pydantic-ai")

    user = config.user
    if user == "auto":
        if model_agent:
            if not _has_key(config.user_model):
                raise _missing_key("the user simulator", config.user_model, "pass --user scripted (the gold user turns) or another --user-model")
            user = "llm"
        else:
            user = "scripted"
            notes.append("scripted user: plays the task's gold user turns" if agent != "script" else "scripted user: plays the trajectory file's user turns")
    elif user == "scripted" and model_agent:
        notes.append("scripted user (--user scripted): plays the task's gold user turns to a model agent")
    if user == "llm" and not _has_key(config.user_model):
        raise _missing_key("--user llm with --user-model", config.user_model, "pass --user scripted")

    judge = config.judge
    if judge == "auto":
        if model_agent:
            if not _has_key(config.judge_model):
                raise _missing_key("the reply judge", config.judge_model, "pass --judge evidence (the offline evidence judge) or another --judge-model")
            judge = "llm"
        else:
            judge = "llm" if not config.offline and _has_key(config.judge_model) else "evidence"
            if judge == "evidence":
                notes.append("evidence judge: reply criteria decided by their declared evidence phrases")
    elif judge == "evidence" and model_agent:
        notes.append("evidence judge (--judge evidence): reply criteria decided by their declared evidence phrases, not an LLM")
    if judge == "llm" and not _has_key(config.judge_model):
        raise _missing_key("--judge llm with --judge-model", config.judge_model, "pass --judge evidence")

    return Plan(
        agent=agent,
        agent_model=config.agent_model if model_agent else None,
        router_model=(config.router_model or config.agent_model) if agent == "graph" else None,
        user=user,
        user_model=config.user_model if user == "llm" else None,
        judge=judge,
        judge_model=config.judge_model if judge == "llm" else None,
        offline=not (model_agent or user == "llm" or judge == "llm"),
        notes=notes,
    )


def config_hash(config: RunConfig, plan: Plan, dataset_sha256: str) -> str:
    """Identifies results that can be merged on resume: the dataset, the resolved plan and every
    result-affecting setting. Task selection and rounds are not in it: a rerun may add tasks or rounds."""
    affecting = config.result_affecting()
    for selection in ("domain", "task", "capability", "difficulty", "rounds"):
        affecting.pop(selection, None)
    payload = {"dataset": dataset_sha256, "config": affecting, "plan": plan.model_dump(exclude={"notes"})}
    return hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()[:16]
