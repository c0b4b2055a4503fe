"""Reference capability graphs (spec A.7): one YAML per domain in `contracts/graphs/`.

A graph has a system prompt, an entry node, expert nodes (one per capability label) with instructions
and scoped tools, and one tool-less general fallback. The runtime router picks exactly one node per user
turn, or a reserved `unsafe` / `out_of_scope` label that yields a deterministic refusal. Graphs are not
graded: a different agent design may supply its own graph without touching any task contract.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from contracts.catalog import GRAPHS_DIR, CatalogError, read_yaml

RESERVED_LABELS = ("unsafe", "out_of_scope")


class GraphNode(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    description: str = Field(min_length=8, description="What the router reads to choose this node.")
    instructions: str = Field(min_length=8)
    tools: list[str] = Field(default_factory=list)


class GraphConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    domain: str
    system_prompt: str = Field(min_length=20)
    entry_node: str
    """Where the first turn goes when the router gives no valid node."""
    fallback_node: str
    """The tool-less general node; later turns without a valid route go here."""
    refusals: dict[str, str] = Field(description="Deterministic replies for the reserved router labels.")
    nodes: list[GraphNode] = Field(min_length=2)

    @model_validator(mode="after")
    def _consistent(self) -> GraphConfig:
        names = [n.name for n in self.nodes]
        if len(set(names)) != len(names):
            raise ValueError("node names must be unique")
        for label in RESERVED_LABELS:
            if label in names:
                raise ValueError(f"{label!r} is a reserved router label, not a node name")
            if label not in self.refusals:
                raise ValueError(f"refusals must give the deterministic reply for {label!r}")
        for ref in (self.entry_node, self.fallback_node):
            if ref not in names:
                raise ValueError(f"node {ref!r} is referenced but not defined")
        if self.node(self.fallback_node).tools:
            raise ValueError("the general fallback node must have no tools")
        return self

    def node(self, name: str) -> GraphNode:
        for node in self.nodes:
            if node.name == name:
                return node
        raise KeyError(name)

    def expert_nodes(self) -> list[GraphNode]:
        return [n for n in self.nodes if n.name != self.fallback_node]

    def all_tools(self) -> set[str]:
        return {t for n in self.nodes for t in n.tools}

    def nodes_with_tool(self, tool: str) -> list[str]:
        return [n.name for n in self.nodes if tool in n.tools]


@cache
def load_graph(domain: str, graphs_dir: Path = GRAPHS_DIR) -> GraphConfig:
    """The domain's graph (parsed once per process: graphs are immutable during a run)."""
    return _parse_graph(domain, graphs_dir)


def _parse_graph(domain: str, graphs_dir: Path) -> GraphConfig:
    path = graphs_dir / f"{domain}.yaml"
    try:
        raw = read_yaml(path.read_text(encoding="utf-8"))
        return GraphConfig.model_validate(raw)
    except FileNotFoundError:
        raise CatalogError(f"{path}: no graph config for domain {domain!r}") from None
    except (yaml.YAMLError, ValidationError) as exc:
        raise CatalogError(f"{path}: {exc}") from None
