"""Play a fixed trajectory (the gold path, a mutation of it, or a script) through the real gateway.

The calls reach the gateway's domain server's recorder and tools exactly as an agent's calls would: by
default through the lean in-process path (`Gateway.call_tool`: the same recorder core, the same fastmcp
tool and argument validation, no MCP client stack), or (`lean=False`) over an in-memory MCP client, one
per domain serving every trial (each request names its trial in `_meta`). The recorded trace is
identical either way (tests/test_lean_path.py); the evidence comes from what the gateway recorded.
"""

from __future__ import annotations

import contextlib
import re
from dataclasses import dataclass
from collections.abc import AsyncIterator, Sequence
from typing import TYPE_CHECKING, Any

from contracts.evidence import Evidence, Message, ToolCallRecord
from contracts.schema import GoldCall, GoldTurn, Task
from servers.calls import RecordUnsent, unsendable
from servers.gateway import Gateway
from servers.journal import Journal
from servers.recorder import TRIAL_META_KEY

if TYPE_CHECKING:
    from fastmcp import Client

    from servers.trials import Trial

REF = re.compile(r"\$\{([a-z_][a-z0-9_]*)\.([A-Za-z0-9_.]+)\}")


class UnresolvedReference(ValueError):
    pass


def _lookup(tool: str, field: str, trace: Sequence[ToolCallRecord]) -> Any:
    for record in reversed(trace):
        if record.tool == tool and record.status == "executed" and isinstance(record.result, dict):
            node: Any = record.result
            for part in field.split("."):
                node = node.get(part) if isinstance(node, dict) else None
            if node is not None:
                return node
    raise UnresolvedReference(f"${{{tool}.{field}}} has no executed {tool} result to refer to")


def interpolate(value: Any, trace: Sequence[ToolCallRecord]) -> Any:
    """Resolve `${tool.field}` (the most recent executed result of `tool`) in a value. A string that is
    exactly one reference takes the referenced value's type; references inside text are formatted."""
    if not isinstance(value, str):
        return value
    whole = REF.fullmatch(value)
    if whole:
        return _lookup(whole.group(1), whole.group(2), trace)
    return REF.sub(lambda m: str(_lookup(m.group(1), m.group(2), trace)), value)


def resolve_args(args: dict[str, Any], trace: Sequence[ToolCallRecord], *, strict: bool = True) -> dict[str, Any]:
    """Arguments with references resolved. Lenient (`strict=False`): an argument whose reference cannot
    be resolved is left out, as an agent without that id would have to."""
    try:
        return {key: interpolate(value, trace) for key, value in args.items()}
    except UnresolvedReference:
        if strict:
            raise
        return {k: interpolate(v, trace) for k, v in args.items() if not (isinstance(v, str) and _unresolvable(v, trace))}


def render_reply(text: str, trace: Sequence[ToolCallRecord], *, strict: bool = True) -> str:
    """A reply with references resolved; lenient: unresolvable references read "(unavailable)"."""
    try:
        return str(interpolate(text, trace))
    except UnresolvedReference:
        if strict:
            raise
        return REF.sub(lambda m: "(unavailable)" if _unresolvable(m.group(0), trace) else str(_lookup(m.group(1), m.group(2), trace)), text)


def _unresolvable(value: str, trace: Sequence[ToolCallRecord]) -> bool:
    try:
        interpolate(value, trace)
    except UnresolvedReference:
        return True
    return False


@dataclass(frozen=True)
class Checkpoint:
    """The end of a played trajectory (its world, id counters, trace and conversation), so a case that
    only appends calls to it continues from here instead of replaying the whole prefix."""

    turns: tuple[GoldTurn, ...]
    seed: int
    final_state: dict[str, Any]
    counters: dict[str, int]
    evidence: Evidence


def _same_call(a: GoldCall, b: GoldCall) -> bool:
    """The same call, value types included (`180 == 180.0` in Python, but not on the wire)."""
    return a.tool == b.tool and repr(a.args) == repr(b.args)


def divergence(played: Sequence[GoldTurn], turns: Sequence[GoldTurn]) -> tuple[int, int]:
    """(turn, call): where `turns` first leaves `played` - every turn before `turn` is the same, and the
    first `call` calls of `turn` are. A turn that differs only in its texts shares all of its calls."""
    for t in range(min(len(played), len(turns))):
        a, b = played[t], turns[t]
        c = 0
        while c < min(len(a.calls), len(b.calls)) and _same_call(a.calls[c], b.calls[c]):
            c += 1
        if c < len(a.calls) or c < len(b.calls) or a.user != b.user or a.reply != b.reply:
            return t, c
    return min(len(played), len(turns)), 0


@dataclass(frozen=True)
class Snapshot:
    """A played trajectory at one call boundary: the world (JSON), id counters and trace so far, and the
    conversation of the turns before (the current turn's messages are the continuing case's own)."""

    world: dict[str, Any]
    counters: dict[str, int]
    trace: tuple[ToolCallRecord, ...]
    conversation: tuple[Message, ...]


@dataclass(frozen=True)
class Prefixes:
    """Snapshots of a played trajectory (the gold path) at every call boundary, keyed (turn, call): a
    trajectory that shares a prefix with it starts from the snapshot where it leaves it, instead of
    replaying the prefix from a fresh world (`GatewayReplayer.play_from`)."""

    turns: tuple[GoldTurn, ...]
    seed: int
    initial_state: dict[str, Any]
    at: dict[tuple[int, int], Snapshot]


class GatewayReplayer:
    """Executes trajectories against a gateway, one isolated trial per trajectory."""

    def __init__(self, gateway: Gateway, *, lean: bool = True) -> None:
        self.gateway = gateway
        self.lean = lean
        """`play(..., lean=None)` replays through `Gateway.call_tool` (the same recorder core and tools,
        no MCP client stack; ~10x cheaper per call) unless this is False; `lean=False` per play goes
        through an in-memory MCP client. The trace is identical either way (tests/test_lean_path.py)."""
        self._clients: dict[str, Client] = {}
        self._stack = contextlib.AsyncExitStack()

    async def __aenter__(self) -> GatewayReplayer:
        await self._stack.__aenter__()
        self._clients = await self._stack.enter_async_context(self.gateway.in_memory_clients())
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self._stack.__aexit__(*exc)
        self._clients = {}

    async def play(
        self,
        task: Task,
        turns: Sequence[GoldTurn],
        *,
        seed: int = 0,
        strict_refs: bool = False,
        lean: bool | None = None,
        keep: list[Checkpoint] | None = None,
        prefixes: list[Prefixes] | None = None,
    ) -> Evidence:
        """Run `turns` on a fresh trial of `task` and return the frozen evidence. The trial is closed.

        With `strict_refs` (gold paths) an unresolvable `${tool.field}` is an error; otherwise (mutations,
        scripts) the argument is left out, as an agent without that id would have to. `keep` receives the
        end's checkpoint, `prefixes` the snapshots at every call boundary (batteries continue from them)."""
        lean = self.lean if lean is None else lean
        client = None if lean else self._clients[task.domain]
        trial = self.gateway.open_trial(task.domain, initial_state=task.initial_state, seed=seed, task_id=task.id)
        conversation: list[Message] = []
        at: dict[tuple[int, int], Snapshot] = {}
        world: dict[str, Any] | None = None  # the world of the last snapshot (unchanged until a call)

        def snap(t: int, c: int, changed: bool) -> None:
            nonlocal world
            if prefixes is None:
                return
            if changed or world is None:
                world = trial.final_state()
            at[(t, c)] = Snapshot(world, trial.ids.snapshot(), tuple(trial.trace), tuple(conversation))

        try:
            for index, turn in enumerate(turns):
                self.gateway.set_turn(trial.trial_id, index)
                snap(index, 0, False)
                conversation.append(Message(role="user", content=turn.user, turn=index))
                for c, call in enumerate(turn.calls):
                    if client is None:
                        await self.call_lean(self.gateway, trial.trial_id, call, trial.trace, strict_refs=strict_refs)
                    else:
                        await self.call(client, trial.trial_id, call, trial.trace, strict_refs=strict_refs, record_unsent=self.gateway.record_unsent)
                    if prefixes is not None:
                        at[(index, c + 1)] = Snapshot(world := trial.final_state(), trial.ids.snapshot(), tuple(trial.trace), tuple(conversation[:-1]))
                reply = render_reply(turn.reply, trial.trace, strict=strict_refs)
                conversation.append(Message(role="assistant", content=reply, turn=index))
            snap(len(turns), 0, False)
        finally:
            self.gateway.close_trial(trial.trial_id)
        evidence = Evidence(
            conversation=conversation,
            tool_trace=list(trial.trace),
            initial_state=trial.initial_state,
            final_state=trial.final_state(),
        )
        if keep is not None:  # `keep`: the caller wants to continue from this end (batteries)
            keep.append(Checkpoint(tuple(turns), seed, evidence.final_state, trial.ids.snapshot(), evidence))
        if prefixes is not None:
            prefixes.append(Prefixes(tuple(turns), seed, evidence.initial_state, at))
        return evidence

    async def play_from(self, task: Task, prefixes: Prefixes, turns: Sequence[GoldTurn]) -> Evidence:
        """The evidence of `turns` (lean, lenient references, as `play`), started from the snapshot where
        they leave the trajectory `prefixes` was taken from: the shared prefix is not replayed. A trial
        starts from that snapshot's world, id counters, trace and conversation (so minted ids and `${...}`
        references continue exactly). The result equals `play(task, turns)` (tests/test_gate_speed.py)."""
        t0, c0 = divergence(prefixes.turns, turns)
        start = prefixes.at[(t0, c0)]
        trial = self.gateway.open_trial(task.domain, world=start.world, seed=prefixes.seed, task_id=task.id)
        conversation = list(start.conversation)
        try:
            trial.ids.restore(start.counters)
            trial.trace.extend(start.trace)
            await self._play_turns(trial, conversation, turns, (t0, c0))
        finally:
            self.gateway.close_trial(trial.trial_id)
        return Evidence(
            conversation=conversation,
            tool_trace=list(trial.trace),
            initial_state=prefixes.initial_state,
            final_state=trial.final_state(),
        )

    async def play_many(self, task: Task, prefixes: Prefixes, cases: Sequence[Sequence[GoldTurn]]) -> list[Evidence]:
        """The evidence of each trajectory of `cases` (as `play_from`: lean, lenient references), all on ONE
        live world: a trial walks the played trajectory's calls once, in order; at each case's divergence
        point the case's own calls run under the trial's undo log, its evidence is taken, and the world,
        id counters, trace and turn are taken back (`servers.journal`). No world is built or copied per
        case. The results, in the order of `cases`, equal `play_from`'s (tests/test_gate_speed.py)."""
        starts = [divergence(prefixes.turns, turns) for turns in cases]
        results: list[Evidence | None] = [None] * len(cases)
        played = prefixes.turns
        trial = self.gateway.open_trial(task.domain, initial_state=task.initial_state, seed=prefixes.seed, task_id=task.id)
        position = (0, 0)
        try:
            for i in sorted(range(len(cases)), key=lambda i: starts[i]):
                while position < starts[i]:  # walk the played trajectory up to where this case leaves it
                    t, c = position
                    if c < len(played[t].calls):
                        self.gateway.set_turn(trial.trial_id, t)
                        await self.call_lean(self.gateway, trial.trial_id, played[t].calls[c], trial.trace)
                        position = (t, c + 1)
                    else:
                        position = (t + 1, 0)
                results[i] = await self._fork(trial, prefixes, cases[i], starts[i])
        finally:
            self.gateway.close_trial(trial.trial_id)
        return [r for r in results if r is not None]

    async def _play_turns(self, trial: Trial, conversation: list[Message], turns: Sequence[GoldTurn], start: tuple[int, int]) -> None:
        """Play `turns` on the live trial from `start` (turn, call) to the end: each turn's remaining calls,
        lean, then its reply rendered against the trace so far (lenient references), into `conversation`."""
        t0, c0 = start
        for index in range(t0, len(turns)):
            turn = turns[index]
            self.gateway.set_turn(trial.trial_id, index)
            conversation.append(Message(role="user", content=turn.user, turn=index))
            for call in turn.calls[c0:] if index == t0 else turn.calls:
                await self.call_lean(self.gateway, trial.trial_id, call, trial.trace)
            reply = render_reply(turn.reply, trial.trace, strict=False)
            conversation.append(Message(role="assistant", content=reply, turn=index))

    async def _fork(self, trial: Trial, prefixes: Prefixes, turns: Sequence[GoldTurn], start: tuple[int, int]) -> Evidence:
        """Play `turns` from `start` on the live trial (which is at `start`), then take the trial back."""
        undo: list[tuple[Any, ...]] = []
        length, counters, turn = len(trial.trace), trial.ids.snapshot(), trial.turn
        conversation = list(prefixes.at[start].conversation)
        trial.undo_log = undo
        try:
            await self._play_turns(trial, conversation, turns, start)
            final, trace = trial.final_state(), list(trial.trace)
        finally:
            trial.undo_log = None
            Journal.undo_all(undo)
            del trial.trace[length:]
            trial.ids.restore(counters)
            self.gateway.set_turn(trial.trial_id, turn)
        return Evidence(conversation=conversation, tool_trace=trace, initial_state=prefixes.initial_state, final_state=final)

    async def continue_from(self, task: Task, checkpoint: Checkpoint, calls: Sequence[GoldCall]) -> Evidence:
        """The evidence of `checkpoint.turns` with `calls` appended to the last turn, without replaying
        the prefix: a trial starts from the checkpoint's world, id counters and trace (so minted ids and
        `${...}` references continue exactly), and the last reply is rendered against the whole trace.
        The result equals a full replay (tests/test_widened_batteries.py)."""
        trial = self.gateway.open_trial(task.domain, world=checkpoint.final_state, seed=checkpoint.seed, task_id=task.id)
        try:
            trial.ids.restore(checkpoint.counters)
            trial.trace.extend(checkpoint.evidence.tool_trace)
            last = len(checkpoint.turns) - 1
            self.gateway.set_turn(trial.trial_id, last)
            for call in calls:
                await self.call_lean(self.gateway, trial.trial_id, call, trial.trace)
            reply = render_reply(checkpoint.turns[-1].reply, trial.trace, strict=False)
        finally:
            self.gateway.close_trial(trial.trial_id)
        conversation = list(checkpoint.evidence.conversation)
        if conversation and conversation[-1].role == "assistant":
            conversation[-1] = Message(role="assistant", content=reply, turn=last)
        return Evidence(
            conversation=conversation,
            tool_trace=list(trial.trace),
            initial_state=checkpoint.evidence.initial_state,
            final_state=trial.final_state(),
        )

    @staticmethod
    async def call(
        client: Client,
        trial_id: str,
        call: GoldCall,
        trace: Sequence[ToolCallRecord],
        *,
        record_unsent: RecordUnsent,
        strict_refs: bool = False,
    ) -> None:
        arguments = resolve_args(call.args, trace, strict=strict_refs)
        problem = unsendable(arguments)
        if problem:  # refused before the wire, as the lean path refuses it; recorded as the lean path records it
            await record_unsent(trial_id, call.tool, arguments, problem)
            return
        await client.call_tool(call.tool, arguments, raise_on_error=False, meta={TRIAL_META_KEY: trial_id})


    @staticmethod
    async def call_lean(
        gateway: Gateway, trial_id: str, call: GoldCall, trace: Sequence[ToolCallRecord], *, strict_refs: bool = False
    ) -> None:
        arguments = resolve_args(call.args, trace, strict=strict_refs)
        try:
            await gateway.call_tool(trial_id, call.tool, arguments)
        except Exception:  # noqa: BLE001 - an error result, as `raise_on_error=False` gives over MCP; recorded
            pass


@contextlib.asynccontextmanager
async def replayer(domains: Sequence[str] | None = None) -> AsyncIterator[GatewayReplayer]:
    async with GatewayReplayer(Gateway(domains)) as r:
        yield r
