"""Agents from outside this project: `--agent module:Class`, or a name registered by an installed package
under the `crmbench.agents` entry-point group:

    # the plug-in package's pyproject.toml
    [project.entry-points."crmbench.agents"]
    my-agent = "my_package.agent:MyAgent"

The class implements `orchestrator.protocol.Agent`. One instance is built per trial: with
`Class.from_context(context)` when the class defines it (it receives an `AgentContext`: the redacted task
view, the `--agent-config` options, the agent model name and a usage-recorded `Model` when
`--agent-model` is set, the trial seed), else with `Class(**options)`.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.metadata
import inspect
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from models.base import ConfigurationError
from orchestrator.protocol import TaskView

ENTRY_POINT_GROUP = "crmbench.agents"


@dataclass(frozen=True)
class AgentContext:
    view: TaskView
    options: dict[str, Any] = field(default_factory=dict)
    agent_model: str | None = None
    model: Any = None
    """A `models.Model` for the `agent` role (usage lands in the trial's ledger), when `--agent-model` is set."""
    seed: int | None = None


@dataclass(frozen=True)
class PluginAgent:
    name: str
    """The label in plans, manifests, records and reports."""
    ref: str
    """`module:Class`: what was loaded."""
    cls: type

    @property
    def needs_mcp_url(self) -> bool:
        return bool(getattr(self.cls, "needs_mcp_url", True))

    def code_identity(self) -> str | None:
        """sha256 over the plug-in's source: its module file and, for a module inside a package, every
        `.py` file of the top-level package (bounded). Part of the run identity: an edited agent is a
        new configuration, not a silent resume. None when the source cannot be found (a C extension)."""
        module = sys.modules.get(self.cls.__module__)
        origin = getattr(module, "__file__", None)
        if not origin:
            return None
        files = [Path(origin)]
        top = sys.modules.get(self.cls.__module__.split(".")[0])
        top_file = getattr(top, "__file__", None)
        if "." in self.cls.__module__ and top_file and Path(top_file).name == "__init__.py":
            files = sorted(Path(top_file).parent.rglob("*.py"))[:2000]
        digest = hashlib.sha256()
        for path in files:
            try:
                digest.update(path.name.encode() + b"\0" + hashlib.sha256(path.read_bytes()).digest())
            except OSError:
                continue
        return digest.hexdigest()[:16]

    def build(self, context: AgentContext) -> Any:
        factory = getattr(self.cls, "from_context", None)
        try:
            if callable(factory):
                return factory(context)
            return self.cls(**context.options)
        except TypeError as exc:
            raise ConfigurationError(f"cannot build agent {self.ref} with options {context.options}: {exc}") from None


def _import_ref(ref: str) -> Any:
    module_name, _, attr = ref.partition(":")
    if not module_name or not attr:
        raise ConfigurationError(f"--agent {ref!r}: expected module:Class")
    if os.getcwd() not in sys.path:  # like `uvicorn module:app`: modules of the current folder are importable
        sys.path.insert(0, os.getcwd())
    try:
        target: Any = importlib.import_module(module_name)
    except ImportError as exc:
        raise ConfigurationError(f"--agent {ref}: cannot import {module_name!r}: {exc}") from None
    for part in attr.split("."):
        try:
            target = getattr(target, part)
        except AttributeError:
            raise ConfigurationError(f"--agent {ref}: {module_name} has no attribute {attr!r}") from None
    return target


def registered_agents() -> dict[str, str]:
    """Agents installed packages register under the `crmbench.agents` entry-point group: name -> ref."""
    return {ep.name: ep.value for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)}


def load_plugin(spec: str) -> PluginAgent:
    """`module:Class` or an entry-point name."""
    if ":" in spec:
        ref = spec
        cls = _import_ref(ref)
    else:
        registered = registered_agents()
        if spec not in registered:
            known = ", ".join(sorted(registered)) or "none installed"
            raise ConfigurationError(f"unknown agent {spec!r}: not built in, not module:Class, not a registered {ENTRY_POINT_GROUP} entry point ({known})")
        ref = registered[spec]
        cls = _import_ref(ref)
    if not inspect.isclass(cls):
        raise ConfigurationError(f"--agent {spec}: {ref} is not a class")
    missing = [m for m in ("start", "respond", "stop") if not callable(getattr(cls, m, None))]
    if missing:
        raise ConfigurationError(f"--agent {spec}: {ref} does not implement the Agent protocol (missing {', '.join(missing)})")
    name = getattr(cls, "name", None)
    if not isinstance(name, str) or not name:
        name = spec if ":" not in spec else cls.__name__
    return PluginAgent(name=name, ref=ref, cls=cls)
