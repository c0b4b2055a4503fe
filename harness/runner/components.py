"""Builds each trial's agent, user and judge from the resolved plan.

Provider clients (`ModelAPI`) are built once per run and shared; each trial wraps them in its own
`Model`s with a per-trial usage ledger, so usage is summed per role per trial and never overwritten.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Any

from contracts.graph import load_graph
from contracts.schema import Contract, Task
from grader.consent import ConsentJudge, RuleConsentJudge
from grader.judge import Judge
from grader.text.evidence import EvidenceJudge
from grader.memo import ContractMemo
from harness.runner.agents import NoOpAgent, load_script, oracle_agent, script_agent
from harness.runner.config import RunConfig
from harness.runner.plan import URL_AGENTS, Plan
from harness.runner.plugins import AgentContext, PluginAgent, load_plugin
from models.base import ModelAPI
from models.model import Model, UsageLedger
from models.registry import get_model_api
from models.types import GenerateConfig, Role
from orchestrator.protocol import Agent, TaskView
from simulator.protocol import User
from simulator.scripted import ScriptedUser


CONTRACT_VARIANTS_KEPT = 64
"""Resolutions of one task's contract a run keeps (`contract_memo`): its rounds mostly resolve it alike."""


class TrialComponents:
    def __init__(
        self,
        config: RunConfig,
        plan: Plan,
        apis: dict[Role, ModelAPI] | None = None,
        agent_factory: Callable[[TaskView], Any] | None = None,
        agent_name: str | None = None,
    ) -> None:
        """`agent_factory` plugs in any agent configured in Python: called once per trial with the
        redacted `TaskView`, it returns an `Agent` (or an awaitable of one). The run is labelled
        `agent_name`, else the factory's (or the agent class's) `name` attribute, else the class name;
        the plan, manifest, config hash, default folder and report all carry that name."""
        self.config = config
        self.agent_factory = agent_factory
        if agent_factory is not None:
            plan = _plan_for_factory(plan, agent_factory, agent_name)
        self.plan = plan
        self.plugin: PluginAgent | None = load_plugin(plan.agent_ref) if plan.agent_kind == "plugin" and agent_factory is None and plan.agent_ref else None
        self.script = load_script(config.script) if plan.agent_kind == "script" and config.script else None
        self.apis: dict[Role, ModelAPI] = apis if apis is not None else self._build_apis()
        self._contract_memos: dict[str, tuple[Contract, ContractMemo]] = {}

    @property
    def needs_mcp_url(self) -> bool:
        """Whether the agent reaches its tools over HTTP (then the run serves HTTP for it)."""
        if self.agent_factory is not None:
            return bool(getattr(self.agent_factory, "needs_mcp_url", True))
        if self.plugin is not None:
            return self.plugin.needs_mcp_url
        return self.plan.agent_kind in URL_AGENTS

    def _build_apis(self) -> dict[Role, ModelAPI]:
        apis: dict[Role, ModelAPI] = {}
        cache: dict[str, ModelAPI] = {}
        for role, name in self.plan.models().items():
            if name not in cache:
                cache[name] = get_model_api(name, http_backend=self.config.http_transport)
            apis[role] = cache[name]  # type: ignore[index]
        return apis

    def model(self, role: Role, ledger: UsageLedger, temperature: float | None = None, seed: int | None = None) -> Model:
        """A per-trial model; the trial seed is passed to providers that accept one (recorded per trial)."""
        return Model(
            self.apis[role],
            role=role,
            ledger=ledger,
            config=GenerateConfig(temperature=temperature, seed=seed),
            max_concurrency=self.config.with_provider_cap().provider_concurrency or 16,  # set by the run; outside one, the plain default
        )

    async def build_agent(self, task: Task, view: TaskView, ledger: UsageLedger, seed: int | None = None) -> Agent:
        """The trial's agent. In-tree reference agents (oracle, script) read the task; every agent under
        test gets only the redacted view."""
        if self.agent_factory is not None:
            agent = self.agent_factory(view)
            return await agent if inspect.isawaitable(agent) else agent
        if self.plugin is not None:
            model = self.model("agent", ledger, self.config.agent_temperature, seed) if self.plan.agent_model else None
            context = AgentContext(view=view, options=dict(self.plan.agent_config), agent_model=self.plan.agent_model, model=model, seed=seed)
            return self.plugin.build(context)
        return self.agent(task, ledger, seed, view)

    def agent(self, task: Task, ledger: UsageLedger, seed: int | None = None, view: TaskView | None = None) -> Agent:
        kind = self.plan.agent_kind
        if kind == "oracle":
            return oracle_agent(task)
        if kind == "noop":
            return NoOpAgent()
        if kind == "script":
            assert self.script is not None
            return script_agent(self.script, task)
        if kind == "graph":
            from orchestrator.graph_agent import GraphAgent

            return GraphAgent(
                load_graph(task.domain),
                agent_model=self.model("agent", ledger, self.config.agent_temperature, seed),
                router_model=self.model("router", ledger, self.config.agent_temperature, seed),
                max_iterations=self.config.max_iterations,
            )
        if kind == "openai-agents":
            from harness.adapters.openai_agents import OpenAIAgentsAgent

            return OpenAIAgentsAgent.from_model_name(self.plan.agent_model or "", load_graph(task.domain), **self.plan.agent_config)
        if kind == "process":
            from harness.adapters.isolation import hidden_paths
            from harness.adapters.process import ProcessAgent

            return ProcessAgent.from_command(
                self.plan.agent_command or "",
                agent_model=self.plan.agent_model,
                env=list(self.config.agent_env),
                isolated=not self.config.agent_unisolated,
                hidden=hidden_paths([self.config.out, Path.cwd() / "runs"]),
                **self.plan.agent_config,
            )
        from harness.adapters.pydantic_ai import PydanticAIAgent

        return PydanticAIAgent.from_model_name(self.plan.agent_model or "", load_graph(task.domain))

    def user(self, task: Task, ledger: UsageLedger, seed: int | None = None) -> User:
        if self.plan.user == "llm":
            from simulator.llm_user import LLMUser

            from models.prompts import VersionedPrompt
            from simulator.llm_user import PROMPT_DIR

            prompt = VersionedPrompt(PROMPT_DIR, self.config.user_prompt)
            return LLMUser(self.model("user", ledger, self.config.user_temperature, seed), task.instruction, prompt=prompt)
        if self.script is not None and task.id in self.script.tasks:
            return ScriptedUser([turn.user for turn in self.script.tasks[task.id]])
        return ScriptedUser([turn.user for turn in task.gold])

    def contract_memo(self, task: Task) -> ContractMemo:
        """The run's memo of `task`'s contract resolutions (grader/memo.py): its rounds grade one contract."""
        known = self._contract_memos.get(task.id)
        if known is None or known[0] is not task.contract:  # another contract under the same id: a fresh memo
            known = self._contract_memos[task.id] = (task.contract, ContractMemo(limit=CONTRACT_VARIANTS_KEPT))
        return known[1]

    def judge(self, ledger: UsageLedger) -> Judge:
        if self.plan.judge == "llm":
            from grader.llm_judge import LLMJudge

            return LLMJudge(self.model("judge", ledger))
        return EvidenceJudge()

    def consent_judge(self, ledger: UsageLedger) -> ConsentJudge:
        """The consent judge goes with the reply judge: the LLM consent judge (same judge model) under
        `--judge llm`, the offline consent rule under `--judge evidence`."""
        if self.plan.judge == "llm":
            from grader.llm_consent import LLMConsentJudge

            return LLMConsentJudge(self.model("judge", ledger))
        return RuleConsentJudge()

    async def aclose(self) -> None:
        for api in {id(a): a for a in self.apis.values()}.values():
            await api.aclose()


UNNAMED_AGENT = "custom-agent"


def _plan_for_factory(plan: Plan, factory: Callable[..., Any], agent_name: str | None) -> Plan:
    """The plan of a run whose agent is a Python factory: its identity replaces whatever the config
    resolved to (an unset `--agent` resolves to the offline oracle, which is not what runs)."""
    name = agent_name or getattr(factory, "name", None)
    if not isinstance(name, str) or not name:
        name = factory.__name__ if inspect.isclass(factory) else None
    notes = [n for n in plan.notes if not n.startswith("offline run")]
    if name is None:
        if plan.agent_kind not in ("oracle", "graph", "noop", "script"):
            return plan  # a framework adapter built by hand for a plan that already names it
        name = UNNAMED_AGENT  # never the reference agent's name: that is not what runs
        notes.append(f"the agent factory has no name: labelled {UNNAMED_AGENT!r}; pass TrialComponents(..., agent_name='my-agent')")
    if name == plan.agent:
        return plan
    ref = f"{getattr(factory, '__module__', '?')}:{getattr(factory, '__qualname__', type(factory).__qualname__)}"
    return plan.model_copy(update={"agent": name, "agent_kind": "plugin", "agent_ref": ref, "notes": notes})
