"""Resolve a `RunConfig` into what will actually run: which agent, user and judge, with which models.

"auto" choices become concrete here, once, so the manifest records what ran and the config hash covers
the resolved plan. With no API key configured the run is offline (oracle agent, scripted user, evidence
judge) and the plan says so.
"""

from __future__ import annotations

import hashlib
import json
import shlex
from pathlib import PurePath
from typing import Any, Literal

from pydantic import BaseModel, Field, model_validator

from harness.runner.config import BUILTIN_AGENTS, RunConfig
from models.base import ConfigurationError
from models.registry import check_model_name, credential_env, credentials_available, parse_model_name


AgentKind = Literal["graph", "oracle", "noop", "script", "pydantic-ai", "openai-agents", "process", "plugin"]
MODEL_AGENTS = ("graph", "pydantic-ai", "openai-agents")
"""Built-in agents that need --agent-model."""
URL_AGENTS = ("pydantic-ai", "openai-agents", "process")
"""Built-in agents that reach the tools over MCP streamable HTTP."""


class Plan(BaseModel):
    agent: str
    """The agent's name: the label of the run in records, the summary, the default folder and reports."""
    agent_kind: AgentKind | None = None
    """Which code builds it (default: `agent` itself for built-in names; `plugin` for anything else)."""
    agent_ref: str | None = None
    """For plug-ins: the `module:Class` (or `module:factory`) that was loaded."""
    agent_config: dict[str, Any] = Field(default_factory=dict)
    agent_command: str | None = None
    agent_code: str | None = None
    """sha256 of a plug-in's module (and package) files or of the files a process agent's command names:
    editing the agent's code makes a new configuration (a new run), never a silent resume of the old one."""
    agent_model: str | None = None
    router_model: str | None = None
    user: Literal["llm", "scripted"]
    user_model: str | None = None
    judge: Literal["llm", "evidence"]
    judge_model: str | None = None
    offline: bool
    notes: list[str] = Field(default_factory=list)

    @model_validator(mode="after")
    def _kind(self) -> Plan:
        if self.agent_kind is None:
            self.agent_kind = self.agent if self.agent in BUILTIN_AGENTS else "plugin"  # type: ignore[assignment]
        return self

    def identity(self) -> dict[str, Any]:
        """What the agent under test is, for the config hash: name, code and configuration."""
        fields = {
            "agent": self.agent,
            "agent_kind": self.agent_kind,
            "agent_ref": self.agent_ref,
            "agent_config": self.agent_config,
            "agent_command": self.agent_command,
            "agent_code": self.agent_code,
        }
        return {k: v for k, v in fields.items() if v not in (None, {})}

    @property
    def label(self) -> str:
        """`graph` runs are labelled by their model (one system per model, as in the paper); any other
        agent by its name, plus its model when it has one."""
        if self.agent_kind == "graph" and self.agent_model:
            return self.agent_model
        return f"{self.agent} ({self.agent_model})" if self.agent_model else self.agent

    def models(self) -> dict[str, str]:
        roles = {"agent": self.agent_model, "router": self.router_model, "user": self.user_model, "judge": self.judge_model}
        return {role: name for role, name in roles.items() if name}


def process_agent_name(command: str, options: dict[str, Any]) -> str:
    """`--agent process` runs are labelled by `--agent-config '{"name": ...}'`, else by the program:
    `python agents/my_agent.py --fast` → `process:my_agent`."""
    if isinstance(options.get("name"), str) and options["name"]:
        return str(options["name"])
    words = [w for w in shlex.split(command) if not w.startswith("-")]
    return f"process:{PurePath(words[-1]).stem}" if words else "process"


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
    for name in filter(None, (config.agent_model, config.router_model)):  # the agent's own settings first
        check_model_name(name)
    for name in (config.user_model, config.judge_model):  # form only: a simulator or judge not used needs no provider
        parse_model_name(name)
    agent = config.agent
    plugin = None
    if agent not in BUILTIN_AGENTS:
        from harness.runner.plugins import load_plugin

        plugin = load_plugin(agent)
    if config.offline and agent in MODEL_AGENTS:
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
    if agent in MODEL_AGENTS:
        if not config.agent_model:
            raise ConfigurationError(f"--agent {agent} needs --agent-model provider:model")
        if not _has_key(config.agent_model):
            raise _missing_key("--agent-model", config.agent_model, "pass --offline for an offline run")
        if config.router_model and agent == "graph" and not _has_key(config.router_model):
            raise _missing_key("--router-model", config.router_model, "drop --router-model to route with the agent model")
    if agent == "script" and config.script is None:
        raise ConfigurationError("--agent script needs --script FILE (a trajectory file)")
    if agent == "process" and not config.agent_command:
        raise ConfigurationError("--agent process needs --agent-command 'COMMAND' (the program that runs your agent)")
    if plugin is not None and config.agent_model and not _has_key(config.agent_model):
        raise _missing_key("--agent-model", config.agent_model, "drop --agent-model")
    model_agent = agent in MODEL_AGENTS or (plugin is not None and bool(config.agent_model)) or (agent == "process" and bool(config.agent_model))

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

    name = plugin.name if plugin is not None else agent
    code = plugin.code_identity() if plugin is not None else None
    if agent == "process":
        from harness.adapters.process import code_identity

        name = process_agent_name(config.agent_command or "", config.agent_config)
        missing = [str(path) for path in config.agent_code if not path.exists()]
        if missing:
            raise ConfigurationError(f"--agent-code {missing[0]}: no such file or directory")
        code = code_identity(config.agent_command or "", list(config.agent_code))
    return Plan(
        agent=name,
        agent_kind="plugin" if plugin is not None else agent,  # type: ignore[arg-type]
        agent_ref=plugin.ref if plugin is not None else None,
        agent_config=dict(config.agent_config),
        agent_command=config.agent_command if agent == "process" else None,
        agent_code=code,
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
    plan_fields = plan.model_dump(exclude={"notes", "agent", "agent_kind", "agent_ref", "agent_config", "agent_command", "agent_code"})
    payload = {"dataset": dataset_sha256, "config": affecting, "plan": {**plan_fields, **plan.identity()}}
    return hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()[:16]
