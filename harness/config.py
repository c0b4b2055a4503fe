"""Typed configuration. The CLI is derived from these models (pydantic-settings), never re-declared."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import AliasChoices, BaseModel, Field


class ServeConfig(BaseModel):
    """Serve the domain MCP servers (the gateway) for any MCP client."""

    domain: list[str] = Field(default_factory=list, description="serve only these domains (default: all)")
    transport: Literal["http", "stdio"] = Field(default="http", description="streamable HTTP, or stdio (one domain, one trial)")
    host: str = Field(default="127.0.0.1", description="HTTP bind address")
    port: int = Field(default=8000, ge=0, le=65535, description="HTTP port")
    task: str | None = Field(default=None, description="start the default trial from this task's initial state")
    seed: int = Field(default=0, description="seed for ids the world mints in the default trial")
    require_trial: bool = Field(default=False, description="refuse tool calls that name no trial (no sandbox trial)")
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = "WARNING"


class TasksConfig(BaseModel):
    """List the task catalog."""

    domain: list[str] = Field(default_factory=list, description="only these domains")
    show_instruction: bool = Field(default=False, description="print each task's user instruction")


class ReleaseConfig(BaseModel):
    """Release gates: structural validation, gold paths, no-op and mutation proofs, the lock."""

    gold: bool = Field(default=False, description="execute gold paths, the no-op run and mutations")
    write_lock: bool = Field(default=False, description="rewrite contracts/catalog.lock.json when all gates pass")
    tasks_dir: Path | None = Field(default=None, description="task YAML directory (default: contracts/tasks)")
    domain: list[str] = Field(default_factory=list, description="only these domains")
    task: list[str] = Field(default_factory=list, description="only these task ids")
    mutations: bool = Field(default=True, description="with --gold: run the mutation kill-rate proof")
    json_report: Path | None = Field(default=None, description="also write the full report as JSON here")
    verbose: bool = Field(
        default=False, validation_alias=AliasChoices("verbose", "v"), description="list which mutation killed each check"
    )
