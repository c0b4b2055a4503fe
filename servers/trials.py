"""Per-trial worlds. Many trials share one gateway process; each owns its state, id minter and trace.

MCP sessions are stateless in the 2026-07-28 protocol era, so a trial is keyed by an explicit id
that the client sends (URL query `?trial=`, header `X-Trial-Id`), never by the MCP session.
"""

from __future__ import annotations

import asyncio
import secrets
import threading
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from contracts.evidence import ToolCallRecord
from servers.base import IdMinter
from servers.registry import environment_class

SANDBOX_PREFIX = "sandbox-"


class UnknownTrial(KeyError):
    def __str__(self) -> str:
        return f"unknown trial id {self.args[0]!r} (open one first via the control plane)"


@dataclass
class Trial:
    trial_id: str
    domain: str
    seed: int
    state: BaseModel
    initial_state: dict[str, Any]
    ids: IdMinter
    task_id: str | None = None
    turn: int = 0
    allowed_tools: frozenset[str] | None = None
    trace: list[ToolCallRecord] = field(default_factory=list)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    incidents: list[str] = field(default_factory=list)
    """Refused attempts attributed to this trial's agent outside tool calls (e.g. the control plane)."""

    def final_state(self) -> dict[str, Any]:
        return self.state.model_dump(mode="json")

    def tool_exposed(self, tool: str) -> bool:
        return self.allowed_tools is None or tool in self.allowed_tools


class TrialStore:
    """Opens, finds and closes trials. Thread-safe for bookkeeping; calls within a trial are serialised
    by the trial's own lock in the recorder."""

    def __init__(self, *, sandbox: bool = True) -> None:
        self._trials: dict[str, Trial] = {}
        self._guard = threading.Lock()
        self.sandbox_enabled = sandbox
        self.incidents: list[dict[str, Any]] = []
        """Every refused access (unknown trial id, unauthorised control-plane request, bad Origin)."""

    def incident(self, trial_id: str | None, what: str) -> None:
        """Record a refused access; attribute it to the trial it names, when that trial is open."""
        with self._guard:
            self.incidents.append({"trial_id": trial_id, "what": what})
            trial = self._trials.get(trial_id) if trial_id else None
        if trial is not None:
            trial.incidents.append(what)

    def open(
        self,
        domain: str,
        *,
        initial_state: dict[str, Any] | None = None,
        seed: int = 0,
        task_id: str | None = None,
        trial_id: str | None = None,
    ) -> Trial:
        env = environment_class(domain)
        state = env.initial_state(initial_state)
        trial_id = trial_id or f"trial-{secrets.token_urlsafe(18)}"  # unguessable: 144 random bits
        trial = Trial(
            trial_id=trial_id,
            domain=domain,
            seed=seed,
            state=state,
            initial_state=state.model_dump(mode="json"),
            ids=IdMinter(f"{seed}|{task_id or domain}"),
            task_id=task_id,
        )
        with self._guard:
            if trial_id in self._trials:
                raise ValueError(f"trial id {trial_id!r} is already open")
            self._trials[trial_id] = trial
        return trial

    def get(self, trial_id: str) -> Trial:
        with self._guard:
            trial = self._trials.get(trial_id)
        if trial is None:
            raise UnknownTrial(trial_id)
        return trial

    def close(self, trial_id: str) -> Trial:
        with self._guard:
            trial = self._trials.pop(trial_id, None)
        if trial is None:
            raise UnknownTrial(trial_id)
        return trial

    def sandbox(self, domain: str) -> Trial:
        """The default trial of a domain, for people poking at a server without opening a trial."""
        if not self.sandbox_enabled:
            raise UnknownTrial("(none given; this gateway requires ?trial= or X-Trial-Id)")
        trial_id = SANDBOX_PREFIX + domain
        with self._guard:
            existing = self._trials.get(trial_id)
        if existing is not None:
            return existing
        try:
            return self.open(domain, trial_id=trial_id)
        except ValueError:  # opened concurrently by another request
            return self.get(trial_id)

    def __len__(self) -> int:
        return len(self._trials)

    def ids(self) -> list[str]:
        with self._guard:
            return list(self._trials)
