"""Baseline agents: the oracle (plays the task's gold path), a script player, and a no-op agent.

They implement the same `Agent` protocol as the reference graph agent and any external adapter, and
their tool calls go through the same gateway, so offline runs exercise the real runtime end to end.
"""

from __future__ import annotations

from pathlib import Path

import yaml
from pydantic import BaseModel, ValidationError

from contracts.catalog import read_yaml
from contracts.evidence import RoutingDecision, ToolCallRecord
from contracts.schema import GoldTurn, Task
from harness.release.replay import render_reply, resolve_args
from orchestrator.protocol import AgentReply, TrialSession


class TrajectoryAgent:
    """Plays fixed turns: the calls of turn k when it receives the k-th user message, then the reply.

    The user's words are ignored: this agent is for offline reference runs and reproductions, where the
    scripted user plays the same trajectory's user turns.
    """

    name = "trajectory"

    def __init__(self, turns: list[GoldTurn], *, name: str | None = None, node: str = "scripted") -> None:
        self.turns = turns
        self.name = name or self.name
        self.node = node
        self.session: TrialSession | None = None
        self.seen: list[ToolCallRecord] = []
        """Results this agent received, so `${tool.field}` can refer to ids minted earlier."""

    async def start(self, session: TrialSession) -> None:
        self.session = session

    async def respond(self, user_message: str, turn: int) -> AgentReply:
        assert self.session is not None, "start() first"
        if turn >= len(self.turns):
            return AgentReply(text="Is there anything else I can help you with?", routing=[RoutingDecision(turn=turn, node="general")])
        planned = self.turns[turn]
        for call in planned.calls:
            arguments = resolve_args(call.args, self.seen, strict=False)
            result = await self.session.tools.call_tool(call.tool, arguments)
            self.seen.append(
                ToolCallRecord(
                    seq=len(self.seen),
                    turn=turn,
                    tool=call.tool,
                    status="tool_error" if result.is_error else "executed",
                    result=result.structured_content,
                )
            )
        text = render_reply(planned.reply, self.seen, strict=False)
        return AgentReply(text=text, routing=[RoutingDecision(turn=turn, node=self.node, reason="scripted")])

    async def stop(self) -> None:
        self.session = None


def oracle_agent(task: Task) -> TrajectoryAgent:
    """The offline reference policy: the task's own gold path."""
    return TrajectoryAgent(list(task.gold), name="oracle", node="gold")


class NoOpAgent:
    """Never calls a tool; always the same polite non-answer. Must fail every task that needs an effect."""

    name = "noop"
    REPLY = "I'm sorry, I can't help with that right now."

    async def start(self, session: TrialSession) -> None:
        return None

    async def respond(self, user_message: str, turn: int) -> AgentReply:
        return AgentReply(text=self.REPLY, routing=[RoutingDecision(turn=turn, node="general", reason="noop")])

    async def stop(self) -> None:
        return None


class ScriptFile(BaseModel):
    """A trajectory file: per task id, the turns (tool calls and the reply) the script agent plays."""

    tasks: dict[str, list[GoldTurn]]


def load_script(path: Path) -> ScriptFile:
    try:
        return ScriptFile.model_validate(read_yaml(path.read_text(encoding="utf-8")))
    except (yaml.YAMLError, ValidationError, OSError) as exc:
        raise ValueError(f"{path}: not a valid trajectory file: {exc}") from None


def script_agent(script: ScriptFile, task: Task) -> TrajectoryAgent:
    if task.id not in script.tasks:
        raise KeyError(f"the trajectory file has no turns for task {task.id!r}")
    return TrajectoryAgent(script.tasks[task.id], name="script", node="scripted")
