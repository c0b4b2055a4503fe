"""Reference-graph playability: every gold user turn's calls must lie within one node of the domain graph.

The reference graph agent routes each user turn to exactly one node and sees only that node's tools; a
gold turn that needs tools of two nodes cannot be played by it, so the task measures the graph, not the
agent. Reported as `playability/turn/<tools>@<turn>.0` cases (they fail the gate unless the debt ledger
carries them; graphs and tasks are fixed by their owners).
"""

from __future__ import annotations

from contracts.graph import GraphConfig
from contracts.schema import Task


def unplayable_turns(task: Task, graph: GraphConfig) -> list[tuple[int, list[str]]]:
    """(turn, its tools) for every gold turn whose tools no single expert node exposes."""
    out = []
    for t, turn in enumerate(task.gold):
        tools = sorted({call.tool for call in turn.calls})
        if tools and not any(set(tools) <= set(node.tools) for node in graph.expert_nodes()):
            out.append((t, tools))
    return out


def case_id(turn: int, tools: list[str]) -> str:
    return f"playability/turn/{'+'.join(tools)}@{turn}.0"
