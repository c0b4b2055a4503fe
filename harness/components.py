"""Builds each trial's agent, user and judge from the resolved plan.

Provider clients (`ModelAPI`) are built once per run and shared; each trial wraps them in its own
`Model`s with a per-trial usage ledger, so usage is summed per role per trial and never overwritten.
"""

from __future__ import annotations

from collections.abc import Callable

from contracts.graph import load_graph
from contracts.schema import Task
from grader.judge import EvidenceJudge, Judge
from harness.agents import NoOpAgent, load_script, oracle_agent, script_agent
from harness.config import RunConfig
from harness.plan import Plan
from models.base import ModelAPI
from models.model import Model, UsageLedger
from models.registry import get_model_api
from models.types import GenerateConfig, Role
from orchestrator.protocol import Agent
from simulator.protocol import User
from simulator.scripted import ScriptedUser


class TrialComponents:
    def __init__(
        self,
        config: RunConfig,
        plan: Plan,
        apis: dict[Role, ModelAPI] | None = None,
        agent_factory: Callable[[Task], Agent] | None = None,
    ) -> None:
        """`agent_factory` plugs in any agent (e.g. a framework adapter configured in Python)."""
        self.config = config
        self.plan = plan
        self.agent_factory = agent_factory
        self.script = load_script(config.script) if plan.agent == "script" and config.script else None
        self.apis: dict[Role, ModelAPI] = apis if apis is not None else self._build_apis()

    def _build_apis(self) -> dict[Role, ModelAPI]:
        apis: dict[Role, ModelAPI] = {}
        cache: dict[str, ModelAPI] = {}
        for role, name in self.plan.models().items():
            if name not in cache:
                cache[name] = get_model_api(name)
            apis[role] = cache[name]  # type: ignore[index]
        return apis

    def model(self, role: Role, ledger: UsageLedger, temperature: float | None = None, seed: int | None = None) -> Model:
        """A per-trial model; the trial seed is passed to providers that accept one (recorded per trial)."""
        return Model(
            self.apis[role],
            role=role,
            ledger=ledger,
            config=GenerateConfig(temperature=temperature, seed=seed),
            max_concurrency=self.config.provider_concurrency,
        )

    def agent(self, task: Task, ledger: UsageLedger, seed: int | None = None) -> Agent:
        if self.agent_factory is not None:
            return self.agent_factory(task)
        kind = self.plan.agent
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
        from harness.adapters.pydantic_ai import PydanticAIAgent

        return PydanticAIAgent.from_model_name(self.plan.agent_model or "", load_graph(task.domain))

    def user(self, task: Task, ledger: UsageLedger, seed: int | None = None) -> User:
        if self.plan.user == "llm":
            from simulator.llm_user import LLMUser

            return LLMUser(self.model("user", ledger, self.config.user_temperature, seed), task.instruction)
        if self.script is not None and task.id in self.script.tasks:
            return ScriptedUser([turn.user for turn in self.script.tasks[task.id]])
        return ScriptedUser([turn.user for turn in task.gold])

    def judge(self, ledger: UsageLedger) -> Judge:
        if self.plan.judge == "llm":
            from grader.llm_judge import LLMJudge

            return LLMJudge(self.model("judge", ledger))
        return EvidenceJudge()

    async def aclose(self) -> None:
        for api in {id(a): a for a in self.apis.values()}.values():
            await api.aclose()
