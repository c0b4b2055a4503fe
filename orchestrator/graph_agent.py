"""The reference graph-routed agent (spec A.7).

Each user turn: a router (the agent-under-test model, structured output through a forced `route` tool
call) maps the utterance and context to exactly one capability node, or to a reserved `unsafe` /
`out_of_scope` label that yields the graph's deterministic refusal. The chosen node then runs a ReAct
loop of at most `max_iterations` model calls with only its own tools, and sends one visible reply. No
node-to-node hand-off within a turn. Tool exposure is filtered here (the model only sees the node's
tools) and enforced at the gateway; a call to any other tool is forwarded to the gateway, which blocks
and records it, and is reported as a hallucinated tool.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from contracts.catalog import POLICIES_DIR
from contracts.evidence import RoutingDecision
from contracts.graph import RESERVED_LABELS, GraphConfig, GraphNode
from models.model import Model
from models.types import ChatMessage, ToolSpec
from orchestrator.protocol import AgentReply, TrialSession

ROUTE_TOOL = "route"
ITERATION_LIMIT_REPLY = "I'm sorry, I wasn't able to finish that request. Could you tell me more about what you need?"
CONTEXT_MESSAGES = 6


@cache
def domain_policy(domain: str) -> str:
    path = POLICIES_DIR / f"{domain}.md"
    return path.read_text(encoding="utf-8") if path.exists() else ""


def _result_text(result: Any) -> str:
    if getattr(result, "structured_content", None) is not None:
        text = json.dumps(result.structured_content, sort_keys=True)
    else:
        text = "\n".join(getattr(block, "text", "") for block in getattr(result, "content", []) or [])
    return f"ERROR: {text}" if getattr(result, "is_error", False) else text


class GraphAgent:
    name = "graph"

    def __init__(self, graph: GraphConfig, *, agent_model: Model, router_model: Model, max_iterations: int = 10) -> None:
        self.graph = graph
        self.agent_model = agent_model
        self.router_model = router_model
        self.max_iterations = max_iterations
        self.session: TrialSession | None = None
        self.tool_specs: dict[str, ToolSpec] = {}
        self.history: list[ChatMessage] = []
        """The agent's memory across turns: visible messages plus its own tool log (never shown to the user)."""
        self.visible: list[tuple[str, str]] = []

    async def start(self, session: TrialSession) -> None:
        self.session = session
        self.tool_specs = {
            t.name: ToolSpec(name=t.name, description=t.description or "", parameters=dict(t.input_schema))
            for t in await session.tools.list_tools()
        }

    async def stop(self) -> None:
        self.session = None

    # ---- routing -------------------------------------------------------------------------------
    def _route_spec(self) -> ToolSpec:
        labels = [n.name for n in self.graph.nodes] + list(RESERVED_LABELS)
        return ToolSpec(
            name=ROUTE_TOOL,
            description="Choose the one capability node that should handle the customer's latest message.",
            parameters={
                "type": "object",
                "properties": {"node": {"type": "string", "enum": labels}, "reason": {"type": "string"}},
                "required": ["node"],
                "additionalProperties": False,
            },
        )

    def _router_messages(self, utterance: str) -> list[ChatMessage]:
        nodes = "\n".join(f"- {n.name}: {n.description}" for n in self.graph.nodes)
        system = (
            f"You route a customer-service conversation in the {self.graph.domain} domain to exactly one capability node.\n"
            f"Nodes:\n{nodes}\n- unsafe: harmful, abusive or fraudulent requests\n"
            "- out_of_scope: requests this desk does not handle\n"
            f"Call the {ROUTE_TOOL} tool once with your choice."
        )
        context = "\n".join(f"{role}: {text}" for role, text in self.visible[-CONTEXT_MESSAGES:])
        prompt = (f"Conversation so far:\n{context}\n\n" if context else "") + f"Latest customer message:\n{utterance}"
        return [ChatMessage(role="system", content=system), ChatMessage(role="user", content=prompt)]

    async def route(self, utterance: str, turn: int) -> RoutingDecision:
        output = await self.router_model.generate(
            self._router_messages(utterance), [self._route_spec()], self.router_model.config.model_copy(update={"tool_choice": ROUTE_TOOL})
        )
        valid = {n.name for n in self.graph.nodes} | set(RESERVED_LABELS)
        for call in output.tool_calls:
            node = call.arguments.get("node")
            if call.name == ROUTE_TOOL and node in valid:
                return RoutingDecision(turn=turn, node=node, reason=str(call.arguments.get("reason", "")))
        default = self.graph.entry_node if turn == 0 else self.graph.fallback_node
        return RoutingDecision(turn=turn, node=default, reason="router gave no valid node; default node")

    # ---- the node's ReAct loop -----------------------------------------------------------------
    def _system_prompt(self, node: GraphNode) -> str:
        policy = domain_policy(self.graph.domain)
        return (
            f"{self.graph.system_prompt.strip()}\n\n<policy>\n{policy.strip()}\n</policy>\n\n"
            f"Current capability: {node.name}. {node.instructions.strip()}\n"
            "Reply to the customer in plain language once you are done with tools."
        )

    async def respond(self, user_message: str, turn: int) -> AgentReply:
        assert self.session is not None, "start() first"
        decision = await self.route(user_message, turn)
        self.visible.append(("customer", user_message))
        if decision.node in RESERVED_LABELS:
            text = self.graph.refusals[decision.node]
            self._remember(user_message, [], text)
            return AgentReply(text=text, routing=[decision])
        node = self.graph.node(decision.node)
        self.session.expose(node.tools)
        specs = [self.tool_specs[name] for name in node.tools if name in self.tool_specs]
        messages = [ChatMessage(role="system", content=self._system_prompt(node)), *self.history, ChatMessage(role="user", content=user_message)]
        hallucinated: list[str] = []
        tool_log: list[str] = []
        notes: list[str] = []
        text = ""
        for _ in range(self.max_iterations):
            output = await self.agent_model.generate(messages, specs)
            if not output.tool_calls:
                text = output.text.strip()
                break
            messages.append(output.as_message())
            for call in output.tool_calls:
                if call.name not in node.tools:
                    hallucinated.append(call.name)
                result = await self.session.tools.call_tool(call.name, call.arguments)
                result_text = _result_text(result)
                if call.parse_error:
                    result_text = f"ERROR: arguments were not valid JSON ({call.parse_error}). {result_text}"
                messages.append(ChatMessage(role="tool", tool_call_id=call.id, name=call.name, content=result_text))
                tool_log.append(f"{call.name}({json.dumps(call.arguments, sort_keys=True)}) -> {result_text}")
        else:
            text = ITERATION_LIMIT_REPLY
            notes.append(f"iteration limit ({self.max_iterations}) reached in node {node.name}")
        text = text or ITERATION_LIMIT_REPLY
        self._remember(user_message, tool_log, text)
        return AgentReply(text=text, routing=[decision], hallucinated_tools=hallucinated, notes=notes)

    def _remember(self, user_message: str, tool_log: list[str], reply: str) -> None:
        self.history.append(ChatMessage(role="user", content=user_message))
        if tool_log:
            log = "\n".join(tool_log)
            self.history.append(ChatMessage(role="user", content=f"(Internal note, not from the customer: tool calls you made for the previous message)\n{log}"))
        self.history.append(ChatMessage(role="assistant", content=reply))
        self.visible.append(("assistant", reply))
