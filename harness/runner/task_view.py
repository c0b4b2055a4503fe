"""The redacted view of a task that an agent under test receives: domain, tools, policy. Never the user's
instruction, the contract, the gold path or the task id."""

from __future__ import annotations

from contracts.schema import Task
from orchestrator.graph_agent import domain_policy
from orchestrator.protocol import TaskView, ToolInfo
from servers.registry import environment_class

_VIEWS: dict[str, TaskView] = {}


def domain_view(domain: str) -> TaskView:
    """The same for every task of a domain (cached: tools and policy are fixed for a process)."""
    view = _VIEWS.get(domain)
    if view is None:
        from servers.tool_derivation import server_instructions, tool_input_schema

        env = environment_class(domain)
        tools = tuple(
            ToolInfo(name=name, description=(method.__doc__ or "").strip(), kind=env.tool_kind(name), input_schema=tool_input_schema(env, name))
            for name, method in env.tool_methods().items()
        )
        view = TaskView(domain=domain, tools=tools, policy=domain_policy(domain), instructions=server_instructions(domain))
        _VIEWS[domain] = view
    return view


def task_view(task: Task) -> TaskView:
    return domain_view(task.domain)
