"""Typed configuration. The CLI is derived from these models (pydantic-settings), never re-declared."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Literal

from pydantic import AliasChoices, BaseModel, Field, field_validator


def shown_as(metavar: str) -> dict[str, Any]:
    """`json_schema_extra` naming what a user types for a flag in `--help` (harness.cli_help), where the
    field's type alone would only say TEXT or PATH."""
    return {"metavar": metavar}


class ServeConfig(BaseModel):
    """Serve the domain MCP servers (the gateway) for any MCP client."""

    domain: list[str] = Field(default_factory=list, json_schema_extra=shown_as("DOMAIN"), description="serve only these domains (default: all)")
    transport: Literal["http", "stdio"] = Field(default="http", description="streamable HTTP, or stdio (one domain, one trial)")
    host: str = Field(default="127.0.0.1", json_schema_extra=shown_as("HOST"), description="HTTP bind address")
    port: int = Field(default=8000, json_schema_extra=shown_as("PORT"), ge=0, le=65535, description="HTTP port")
    task: str | None = Field(default=None, json_schema_extra=shown_as("TASK_ID"), description="start the default trial from this task's initial state")
    seed: int = Field(default=0, description="seed for ids the world mints in the default trial")
    require_trial: bool = Field(default=False, description="refuse tool calls that name no trial (no sandbox trial)")
    control_token: str | None = Field(
        default=None, json_schema_extra=shown_as("TOKEN"), description="token /control/ requests must send as 'Authorization: Bearer TOKEN' (default: a fresh one, printed; 'none': no token)"
    )
    allowed_origin: list[str] = Field(default_factory=list, json_schema_extra=shown_as("ORIGIN"), description="browser Origins allowed besides loopback (e.g. an Inspector UI elsewhere)")
    user: Literal["scripted", "llm"] = Field(default="scripted", description="the user behind /control/trials/{id}/user: the task's scripted turns, or the simulator")
    user_model: str = Field(default="openai:gpt-5-mini", json_schema_extra=shown_as("PROVIDER:MODEL"), description="user simulator model (with --user llm)")
    judge: Literal["evidence", "llm"] = Field(default="evidence", description="the judge behind /control/trials/{id}/grade")
    judge_model: str = Field(default="openai:gpt-5-mini", json_schema_extra=shown_as("PROVIDER:MODEL"), description="judge model (with --judge llm)")
    max_turns: int = Field(default=30, ge=1, description="user-turn limit of a dialogue driven through the control plane")
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = Field(default="WARNING", description="log messages of this level and above, on stderr")


class StdioConfig(BaseModel):
    """Serve one domain over stdio (one process is one trial): `crmbench stdio --domain payments`, for MCP
    clients' config files. Only the flags that mean something over stdio (no host, port, control plane)."""

    domain: list[str] = Field(default_factory=list, json_schema_extra=shown_as("DOMAIN"), description="the one domain to serve")
    task: str | None = Field(default=None, json_schema_extra=shown_as("TASK_ID"), description="start the trial from this task's initial state")
    seed: int = Field(default=0, description="seed for ids the world mints")
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = Field(default="WARNING", description="log messages of this level and above, on stderr")

    def serve_config(self) -> ServeConfig:
        return ServeConfig(domain=self.domain, task=self.task, seed=self.seed, log_level=self.log_level, transport="stdio")


class TasksConfig(BaseModel):
    """List the task catalog."""

    domain: list[str] = Field(default_factory=list, json_schema_extra=shown_as("DOMAIN"), description="only these domains")
    show_instruction: bool = Field(default=False, description="print each task's user instruction")


class SuggestConfig(BaseModel):
    """Authoring aid: play tasks' gold paths and print the checks that pin their effect (only_changes,
    exact counts of new records, exact counts of writes) for the author to review and paste."""

    task: list[str] = Field(default_factory=list, json_schema_extra=shown_as("TASK_ID"), description="task ids (repeatable)")
    domain: list[str] = Field(default_factory=list, json_schema_extra=shown_as("DOMAIN"), description="every task of these domains")


class GradeConfig(BaseModel):
    """Re-grade a recorded run from its stored evidence (no agent or user model is called): the current
    catalog's contracts, reply judgements reused where the criteria are unchanged, judge failures re-judged."""

    out: Path | None = Field(default=None, json_schema_extra=shown_as("DIR"), description="new run directory (default: <run>-regraded)")
    judge: Literal["recorded", "evidence", "llm"] = Field(
        default="recorded", description="recorded: reuse recorded judgements, ask the run's own judge where needed; evidence / llm: re-judge every reply"
    )
    judge_model: str | None = Field(default=None, json_schema_extra=shown_as("PROVIDER:MODEL"), description="provider:model for --judge llm (default: the run's judge model)")
    only_infra: bool = Field(default=False, description="only re-judge trials whose judge failed (⊥); copy the rest unchanged")
    tasks_dir: Path | None = Field(default=None, json_schema_extra=shown_as("DIR"), description="grade against the contracts in this catalog directory instead")


class ReleaseConfig(BaseModel):
    """Release gates: structural validation, gold paths, no-op and mutation proofs, the lock."""

    gold: bool = Field(default=False, description="execute gold paths, the no-op run and mutations")
    write_lock: bool = Field(default=False, description="rewrite contracts/catalog.lock.json when all gates pass")
    tasks_dir: Path | None = Field(default=None, json_schema_extra=shown_as("DIR"), description="task YAML directory (default: contracts/tasks)")
    domain: list[str] = Field(default_factory=list, json_schema_extra=shown_as("DOMAIN"), description="only these domains")
    task: list[str] = Field(default_factory=list, json_schema_extra=shown_as("TASK_ID"), description="only these task ids")
    mutations: bool = Field(default=True, description="with --gold: run the mutation kill-rate proof")
    json_report: Path | None = Field(default=None, json_schema_extra=shown_as("FILE"), description="also write the full report as JSON here")
    write_debt: bool = Field(default=False, description="with --gold: rewrite contracts/battery_debt/<domain>.yaml from this run's misses")
    workers: int = Field(default=0, ge=0, description="with --gold: worker processes over the catalog (0: one per core)")
    verbose: bool = Field(
        default=False, validation_alias=AliasChoices("verbose", "v"), description="list which mutation killed each check"
    )


BUILTIN_AGENTS = ("auto", "graph", "oracle", "noop", "script", "pydantic-ai", "openai-agents", "process")


class RunConfig(BaseModel):
    """One benchmark run. Defaults follow the spec's protocol (A.3): 30 user turns, 1,200 s per task,
    10 ReAct iterations per turn, one trial per task, a fixed base seed, simulator and judge gpt-5-mini."""

    domain: list[str] = Field(default_factory=list, json_schema_extra=shown_as("DOMAIN"), description="only these domains (default: all)")
    task: list[str] = Field(default_factory=list, json_schema_extra=shown_as("TASK_ID"), description="only these task ids")
    capability: list[str] = Field(default_factory=list, json_schema_extra=shown_as("LABEL"), description="only tasks with one of these capability labels")
    difficulty: list[Literal["easy", "medium", "hard"]] = Field(default_factory=list, description="only these difficulties")
    rounds: int = Field(default=1, ge=1, description="independent rounds (trials per task)")
    base_seed: int = Field(default=20260925, description="framework base seed; trial seeds derive from it")
    concurrency: int = Field(default=8, ge=1, description="trials run at once (in the whole run, split over the workers)")
    workers: int = Field(
        default=1, ge=1, description="worker processes (or Ray actors with --executor ray), each with its own gateway; 1: in this process"
    )
    executor: Literal["local", "ray"] = Field(
        default="local", description="local: this machine; ray: Ray actors on a local Ray instance or the cluster at --ray-address"
    )
    ray_address: str | None = Field(
        default=None, json_schema_extra=shown_as("ADDRESS"), description="--executor ray: 'auto' or ray://HOST:PORT joins a cluster (default: start a local Ray instance)"
    )
    agent: str = Field(
        default="auto",
        json_schema_extra=shown_as("AGENT"),
        description="auto|graph|oracle|noop|script|pydantic-ai|openai-agents|process, a module:Class, or a name registered "
        "under the crmbench.agents entry points (auto: graph with a model, else the offline oracle)",
    )
    agent_config: dict[str, Any] = Field(default_factory=dict, description="options for the agent as JSON (plug-ins get them as keyword arguments)")
    agent_command: str | None = Field(default=None, json_schema_extra=shown_as("COMMAND"), description="--agent process: the command that starts your agent (it speaks the JSON-lines protocol)")
    agent_env: list[str] = Field(
        default_factory=list,
        json_schema_extra=shown_as("NAME"),
        description="--agent process: name of an environment variable the agent process also gets, e.g. OPENAI_API_KEY (repeatable; "
        "its value is copied from this environment, never recorded; the process otherwise starts with a minimal environment)",
    )
    agent_code: list[Path] = Field(
        default_factory=list,
        json_schema_extra=shown_as("PATH"),
        description="--agent process: a file or directory of the agent's code (repeatable), hashed into the run identity with the files its command runs",
    )
    agent_unisolated: bool = Field(
        default=False,
        description="--agent process on a machine that cannot isolate it (no Linux namespaces): run it as a plain child process, which can then read the harness's environment and files and signal it",
    )
    allow_unidentified_agent: bool = Field(
        default=False,
        description="resume a run whose agent's code cannot be identified (a command that names no code file and no --agent-code): you vouch that the agent did not change",
    )
    agent_model: str | None = Field(default=None, json_schema_extra=shown_as("PROVIDER:MODEL"), description="agent under test, provider:model (also routes unless --router-model)")
    router_model: str | None = Field(default=None, json_schema_extra=shown_as("PROVIDER:MODEL"), description="router model (default: the agent model)")
    user_model: str = Field(default="openai:gpt-5-mini", json_schema_extra=shown_as("PROVIDER:MODEL"), description="user simulator model")
    judge_model: str = Field(default="openai:gpt-5-mini", json_schema_extra=shown_as("PROVIDER:MODEL"), description="semantic judge model")
    user: Literal["auto", "llm", "scripted"] = Field(default="auto", description="auto: llm when its key is set, else scripted")
    judge: Literal["auto", "llm", "evidence"] = Field(default="auto", description="auto: llm when its key is set, else evidence")
    script: Path | None = Field(default=None, json_schema_extra=shown_as("FILE"), description="trajectory file for --agent script")
    agent_temperature: float | None = Field(default=None, description="agent sampling temperature (provider default if unset)")
    user_temperature: float | None = Field(default=None, description="simulator sampling temperature")
    max_turns: int = Field(default=30, ge=1, description="user-turn limit per trial")
    task_timeout_s: float = Field(default=1200.0, gt=0, description="wall-clock limit per trial")
    max_iterations: int = Field(default=10, ge=1, description="ReAct iterations per turn (reference agent)")
    infra_retries: int = Field(default=1, ge=0, description="re-runs of a trial after an infrastructure failure")
    provider_concurrency: int | None = Field(
        default=None,
        ge=1,
        description="concurrent requests per model provider (default: as many as the run's trials ask at once: --concurrency × the most judge calls one selected task asks together, at least 16)",
    )
    price_table: Path | None = Field(default=None, json_schema_extra=shown_as("FILE"), description="price table YAML (default: models/prices.yaml)")
    out: Path | None = Field(default=None, json_schema_extra=shown_as("DIR"), description="run directory (default: runs/<agent>-<date>)")
    offline: bool = Field(default=False, description="force the offline configuration (no model calls)")
    serve_http: bool = Field(default=False, description="serve the gateway over HTTP even if the agent does not need it (agents that need a URL get it automatically)")
    allow_stale_lock: bool = Field(default=False, description="run even if contracts/catalog.lock.json does not match the task files")
    user_prompt: Literal["user_v1", "user_v2"] = Field(
        default="user_v2", description="user simulator prompt version (simulator/prompts/; recorded in the manifest)"
    )
    exclude_simulator_faults: bool = Field(
        default=False,
        description="make trials with a simulator conformance fault that nothing the agent said could have caused (in the customer's opening message) ⊥ (infra:simulator) instead of counting them; every fault is flagged, and one the agent may have brought about always counts",
    )
    http_transport: Literal["aiohttp", "httpx"] = Field(
        default="aiohttp",
        description="how provider SDKs reach the network: aiohttp (their DefaultAioHttpClient; less CPU per call) or httpx (their default stack); results do not depend on it",
    )
    in_process_tools: Literal["lean", "mcp"] = Field(
        default="lean",
        description="how in-process agents reach the gateway: its lean path, or an in-memory MCP client (same records, slower; for checking)",
    )

    @field_validator("agent_env")
    @classmethod
    def _env_names(cls, names: list[str]) -> list[str]:
        """Names only: a value on the command line would end up in the manifest and the shell history."""
        for name in names:
            if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
                raise ValueError("takes the NAME of an environment variable (its value is copied from your environment), not NAME=VALUE or anything else")
        return names

    def with_provider_cap(self, calls_at_once: int = 1) -> RunConfig:
        """This config with its per-provider cap settled. Unset, the cap is what the run's trials can ask
        at once — `--concurrency` × `calls_at_once`, the most model calls one trial makes together (its
        judges: the reply judge and the consent questions are asked at once), never below 16 — so 256
        trials in flight are not silently held to fewer calls than they make: with a cap of 256, the 512
        judge calls of 256 trials' last step waited a whole model latency for each other. The run settles
        it once it knows its tasks; the effective value is what the manifest records."""
        if self.provider_concurrency is not None:
            return self
        return self.model_copy(update={"provider_concurrency": max(16, self.concurrency * max(1, calls_at_once))})

    def result_affecting(self) -> dict[str, object]:
        """The fields whose change makes earlier trial records incomparable (the resume key)."""
        return {k: (str(v) if isinstance(v, Path) else v) for k, v in self.model_dump().items() if k not in EXECUTION_ONLY}


EXECUTION_ONLY = frozenset(
    {"out", "concurrency", "provider_concurrency", "infra_retries", "serve_http", "price_table", "allow_stale_lock",
     "in_process_tools", "http_transport", "workers", "executor", "ray_address", "allow_unidentified_agent", "agent_unisolated"}
)  # fmt: skip
"""`RunConfig` fields that change how a run executes, never its trials' results: not in the resume key,
and a change of them is not a change of configuration."""


class ReportConfig(BaseModel):
    """Build the report (tables, figures, demo cards, HTML) from one or more run directories."""

    runs: list[Path] = Field(description="run directories (several systems and/or rounds)")
    out: Path = Field(default=Path("report"), json_schema_extra=shown_as("DIR"), description="output directory")
    card: list[str] = Field(
        default_factory=list,
        json_schema_extra=shown_as("TASK[@SYSTEM[#ROUND]]"),
        description="demo cards: TASK, TASK@SYSTEM or TASK@SYSTEM#ROUND (repeatable; default: a success, a failure, a timeout)",
    )
    price_table: Path | None = Field(
        default=None,
        json_schema_extra=shown_as("FILE"),
        description="price every run with this price table YAML (default: the table each run recorded in its manifest, "
        "models it does not price from models/prices.yaml)",
    )
    label: list[str] = Field(
        default_factory=list, json_schema_extra=shown_as("NAME=RUN[,RUN...]"), description="NAME=RUN[,RUN...]: name a system and group its runs (repeatable; the runs must be one system)"
    )
    allow_mixed: bool = Field(default=False, description="allow runs over different catalogs, or a --label over different configurations (every affected row is marked)")
    figures: bool = Field(default=True, description="draw the figures (--no-figures: tables, cards and HTML only, several times faster)")


class CompareConfig(BaseModel):
    """Compare two runs task by task, per component, with an exact McNemar test."""

    run_a: Path = Field(description="baseline run directory")
    run_b: Path = Field(description="run directory to compare against the baseline")
    out: Path | None = Field(default=None, json_schema_extra=shown_as("FILE"), description="also write the comparison as Markdown here")
    gate: bool = Field(default=False, description="regression gate: exit 1 when B is significantly worse than A (exact McNemar, overall and per domain)")
    max_drop: float = Field(default=0.02, ge=0, lt=1, description="with --gate: the drop in strict success (0.02 = 2 points) tolerated even when significant")
    alpha: float = Field(default=0.05, gt=0, lt=1, description="with --gate: the gate's false-alarm rate (overall and domains together)")


class PlanConfig(BaseModel):
    """Plan a paired comparison: how many rounds (or tasks) detect a given drop against a baseline run."""

    baseline: list[Path] = Field(json_schema_extra=shown_as("RUN_DIR"), description="baseline run directory (ideally with several rounds; repeat for a system run in pieces)")
    delta: float = Field(default=0.05, gt=0, lt=1, description="the drop in strict success to detect (0.05 = 5 points)")
    alpha: float = Field(default=0.05, gt=0, lt=1, description="false-alarm rate of the regression gate")
    power: float = Field(default=0.8, gt=0, lt=1, description="probability of detecting the drop")


class DiffConfig(BaseModel):
    """Line up two trials of a task turn by turn and call by call: the first divergence and the first wrong write."""

    task: str = Field(json_schema_extra=shown_as("TASK_ID"), description="task id")
    round: int = Field(default=1, ge=1, description="round (from 1) of each run")
    gold: bool = Field(default=False, description="compare RUN_A's trial against the task's gold path instead of a second run")
