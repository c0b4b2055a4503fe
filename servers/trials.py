"""Per-trial worlds. Many trials share one gateway process; each owns its state, id minter and trace.

MCP sessions are stateless in the 2026-07-28 protocol era, so a trial is keyed by an explicit id
that the client sends (URL query `?trial=`, header `X-Trial-Id`), never by the MCP session.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import secrets
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from contracts.evidence import ToolCallRecord
from contracts.text import json_problem, short
from servers.base import IdMinter
from servers.journal import track
from servers.registry import environment_class

SANDBOX_PREFIX = "sandbox-"
MAX_PRIVATE_SANDBOXES = 256
"""Private sandbox worlds (per client-chosen `sandbox-…` id or per MCP session) kept at once, so anonymous
clients cannot grow the process without bound. A world in use is never dropped: beyond this count only
worlds idle for `SANDBOX_IDLE_S` are, and when none is, a new sandbox is refused (`SandboxesFull`)."""

SANDBOX_MAC_CHARS = 32
"""Hex characters of a sandbox id's HMAC (128 bits): an id no client can forge or guess."""

SANDBOX_IDLE_S = 1800.0
"""A private sandbox with no tool call for this long is no longer in use and may be dropped for a new one."""


class UnknownTrial(KeyError):
    def __str__(self) -> str:
        if isinstance(self.args[0], str) and self.args[0].startswith(SANDBOX_PREFIX):
            return (
                f"unknown trial id {short(self.args[0])}: private sandbox ids are issued by the gateway (GET /sandbox), "
                "so no one can reach another client's world by guessing its id"
            )
        return f"unknown trial id {short(self.args[0])} (open one first via the control plane)"


class SandboxesFull(UnknownTrial):
    def __str__(self) -> str:
        return (
            f"no new sandbox: {MAX_PRIVATE_SANDBOXES} private sandboxes are in use (none idle for {SANDBOX_IDLE_S:g}s); "
            "reuse your sandbox id, open a trial via the control plane, or wait"
        )


class NoTrialGiven(UnknownTrial):
    def __str__(self) -> str:
        return "this gateway has no sandbox (--require-trial): name a trial opened via the control plane with ?trial= or X-Trial-Id"


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
    closed: bool = False
    """Set when the trial is closed: a call that was waiting for the trial's lock then runs no tool."""
    undo_log: list[tuple[Any, ...]] | None = None
    """While a list: every committed call's undo entries are appended to it, so a caller (the release
    gate trying many cases on one live world) can take the world back past several calls (`servers.journal`)."""

    def final_state(self) -> dict[str, Any]:
        return self.state.model_dump(mode="json")

    def tool_exposed(self, tool: str) -> bool:
        return self.allowed_tools is None or tool in self.allowed_tools


_WORLDS: OrderedDict[tuple[str, str], tuple[dict[str, Any], str]] = OrderedDict()
_WORLDS_MAX = 512
_worlds_guard = threading.Lock()


def _initial_world(domain: str, override: dict[str, Any] | None) -> tuple[BaseModel, str]:
    """A fresh, journaled world for `domain` from `override`, and its JSON text. The merge, the strict-JSON
    check and the dumps are done once per distinct (domain, override) and cached; every trial still gets
    its own objects (validated from the cached data)."""
    key = (domain, json.dumps(override or {}, sort_keys=True, default=repr))
    with _worlds_guard:
        cached = _WORLDS.get(key)
        if cached is not None:
            _WORLDS.move_to_end(key)
    env = environment_class(domain)
    if cached is None:
        state = env.initial_state(override)
        data = state.model_dump(mode="python", warnings=False)
        problem = json_problem(data)
        if problem:  # a world holding NaN or invalid text would poison every call and the record
            raise ValueError(f"initial_state holds {problem}")
        cached = (data, json.dumps(state.model_dump(mode="json")))
        with _worlds_guard:
            _WORLDS[key] = cached
            while len(_WORLDS) > _WORLDS_MAX:
                _WORLDS.popitem(last=False)
    else:
        state = env.state_model.model_validate(cached[0])
    return track(state), cached[1]  # journaled: a call costs what it touches


class TrialStore:
    """Opens, finds and closes trials. Thread-safe for bookkeeping; calls within a trial are serialised
    by the trial's own lock in the recorder."""

    def __init__(self, *, sandbox: bool = True) -> None:
        self._trials: dict[str, Trial] = {}
        self._guard = threading.Lock()
        self.sandbox_enabled = sandbox
        self.sandbox_templates: dict[str, dict[str, Any]] = {}
        """Per domain: `open()` keyword arguments every sandbox world of that domain starts from
        (`crmbench serve --task` sets a task's initial state and seed). Default: the default world."""
        self._private: OrderedDict[str, float] = OrderedDict()
        """Private sandbox ids, least recently used first, with the time of their last use."""
        self.incidents: list[dict[str, Any]] = []
        """Every refused access (unknown trial id, unauthorised control-plane request, bad Origin)."""
        self._sandbox_secret = secrets.token_bytes(32)
        """Signs the private sandbox ids this store issues (`mint_sandbox_id`); never leaves the process."""

    def mint_sandbox_id(self) -> str:
        """A new private sandbox id, `sandbox-<nonce>.<hmac>`: its world is opened on first use, and only a
        client holding the id reaches it (issue 41: a client-chosen `sandbox-dev` was open to anyone who
        guessed it)."""
        nonce = secrets.token_hex(8)
        return f"{SANDBOX_PREFIX}{nonce}.{self._sandbox_mac(nonce)}"

    def is_minted_sandbox_id(self, trial_id: str) -> bool:
        """Whether `trial_id` is a private sandbox id this store issued (a forged or guessed one is not)."""
        nonce, _, mac = trial_id.removeprefix(SANDBOX_PREFIX).partition(".")
        return trial_id.startswith(SANDBOX_PREFIX) and len(mac) == SANDBOX_MAC_CHARS and hmac.compare_digest(mac, self._sandbox_mac(nonce))

    def _sandbox_mac(self, nonce: str) -> str:
        return hmac.new(self._sandbox_secret, nonce.encode(), hashlib.sha256).hexdigest()[:SANDBOX_MAC_CHARS]

    def incident(self, trial_id: str | None, what: str) -> None:
        """Record a refused access; attribute it to the trial it names, when that trial is open."""
        with self._guard:
            self.incidents.append({"trial_id": trial_id, "what": what})
            del self.incidents[:-1000]  # bounded: a flood of bad requests must not grow memory
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
        world: dict[str, Any] | None = None,
    ) -> Trial:
        """A new trial on the default world merged with `initial_state`, or - `world`, a checkpoint the
        release batteries continue from - on exactly that JSON world (validated, not merged)."""
        if world is not None:  # shared, never mutated: the trial's state is its own validated copy
            state, initial = track(environment_class(domain).state_model.model_validate(world)), world
        else:
            state, initial_json = _initial_world(domain, initial_state)
            initial = json.loads(initial_json)
        trial_id = trial_id or f"trial-{secrets.token_urlsafe(18)}"  # unguessable: 144 random bits
        trial = Trial(
            trial_id=trial_id,
            domain=domain,
            seed=seed,
            state=state,
            initial_state=initial,
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
            self._private.pop(trial_id, None)
        if trial is None:
            raise UnknownTrial(trial_id)
        trial.closed = True
        return trial

    def sandbox(self, domain: str, key: str | None = None) -> Trial:
        """A sandbox world, for clients that did not open a trial through the control plane.

        `key=None`: the domain's shared sandbox (`sandbox-<domain>`), which every such client shares (the
        gateway says so in `tools/list`). With a key (a client-chosen `sandbox-…` trial id, or an MCP
        session), a private world of its own, opened on first use. None at all when the store requires
        explicit trials (`--require-trial`)."""
        if not self.sandbox_enabled:
            raise NoTrialGiven(None)
        trial_id = SANDBOX_PREFIX + domain if key is None else key
        now = time.monotonic()
        with self._guard:
            existing = self._trials.get(trial_id)
            if existing is not None and key is not None:
                self._private[trial_id] = now
                self._private.move_to_end(trial_id, last=True)
        if existing is not None:
            return existing
        if key is not None:
            self._make_room(now)
        try:
            trial = self.open(domain, trial_id=trial_id, **self.sandbox_templates.get(domain, {}))
        except ValueError:  # opened concurrently by another request
            return self.get(trial_id)
        if key is not None:
            with self._guard:
                self._private[trial_id] = now
        return trial

    def _make_room(self, now: float) -> None:
        """Room for one more private sandbox: drop worlds idle for `SANDBOX_IDLE_S` (least recently used
        first) while at the limit; refuse (`SandboxesFull`) when every one is in use. Never LRU on live
        worlds: another client's next call must not silently get a fresh world."""
        with self._guard:
            while len(self._private) >= MAX_PRIVATE_SANDBOXES:
                oldest, used = next(iter(self._private.items()))
                if now - used < SANDBOX_IDLE_S:
                    raise SandboxesFull(None)
                del self._private[oldest]
                dropped = self._trials.pop(oldest, None)
                if dropped is not None:
                    dropped.closed = True

    def __len__(self) -> int:
        return len(self._trials)

    def ids(self) -> list[str]:
        with self._guard:
            return list(self._trials)
