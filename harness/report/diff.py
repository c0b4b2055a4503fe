"""`crmbench diff RUN_A RUN_B --task ID` (or `RUN_A --gold --task ID`): two trajectories of one task lined
up turn by turn and call by call, with the first call where they diverge and the first write the
failing one got wrong.

Within a turn, calls are aligned on the tool names (difflib's longest matching blocks), so one extra
lookup does not shift every later call out of line; two aligned calls are the same when tool, arguments
and (where both have one) status agree. Whether a call writes is the tool's own kind in its domain's
world (`@tool(kind=...)`), never a list kept here. The gold path's `${tool.field}` references are
resolved against the other trial's results, call by call, as the oracle would have resolved them in that
world; an unresolvable reference stays as written (and so differs).
"""

from __future__ import annotations

import difflib
import functools
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from contracts.evidence import ToolCallRecord
from contracts.schema import Task
from harness.records import TrialRecord
from harness.release.replay import UnresolvedReference, interpolate

PREVIEW = 160
CHECKS_SHOWN = 6


@dataclass
class Call:
    turn: int
    tool: str
    arguments: dict[str, Any]
    status: str | None = None
    """None for the gold path (a plan, not an execution)."""
    result: Any = None
    write: bool | None = None
    """The tool's kind in its world is write; None when the world has no such tool."""

    def text(self) -> str:
        args = json.dumps(self.arguments, sort_keys=True, default=str)
        args = args if len(args) <= PREVIEW else args[: PREVIEW - 3] + "..."
        return f"{self.tool}({args})" + (f" -> {self.status}" if self.status else "")


@dataclass
class Turn:
    user: str = ""
    reply: str = ""
    calls: list[Call] = field(default_factory=list)


@dataclass
class Side:
    name: str
    strict: bool | None
    """True for the gold path; None for a ⊥ trial."""
    turns: list[Turn]
    record: TrialRecord | None = None
    path: Path | None = None

    @property
    def outcome(self) -> str:
        if self.record is None:
            return "gold path"
        if self.strict is None:
            return "⊥ (not scored)"
        if self.strict:
            return "PASS"
        primary = self.record.verdict.primary_failure if self.record.verdict else None
        return f"FAIL [{primary}]" if primary else "FAIL"


@dataclass
class Step:
    turn: int
    position: int
    """1-based position of the step within its turn."""
    a: Call | None
    b: Call | None

    @property
    def same(self) -> bool:
        if self.a is None or self.b is None:
            return False
        status_ok = self.a.status is None or self.b.status is None or self.a.status == self.b.status
        return self.a.tool == self.b.tool and _canon(self.a.arguments) == _canon(self.b.arguments) and status_ok

    @property
    def marker(self) -> str:
        if self.same:
            return "="
        if self.a is None:
            return ">"
        if self.b is None:
            return "<"
        return "~"

    @property
    def writes(self) -> bool:
        return bool((self.a and self.a.write) or (self.b and self.b.write))

    def explain(self, name_a: str = "A", name_b: str = "B") -> str:
        if self.same:
            return "same"
        if self.a is None:
            assert self.b is not None
            return f"only {name_b} calls {self.b.tool}"
        if self.b is None:
            return f"only {name_a} calls {self.a.tool}"
        if self.a.tool != self.b.tool:
            return f"{name_a} calls {self.a.tool}, {name_b} calls {self.b.tool}"
        parts = [f"{k}: {_short(self.a.arguments.get(k, '(absent)'))} vs {_short(self.b.arguments.get(k, '(absent)'))}"
                 for k in sorted(set(self.a.arguments) | set(self.b.arguments), key=str)
                 if _canon(self.a.arguments.get(k)) != _canon(self.b.arguments.get(k)) or (k in self.a.arguments) != (k in self.b.arguments)]
        if parts:
            return f"{self.a.tool}: arguments differ ({'; '.join(parts)})"
        return f"{self.a.tool}: {name_a} {self.a.status}, {name_b} {self.b.status}"


@dataclass
class TrajectoryDiff:
    task_id: str
    a: Side
    b: Side
    steps: list[Step]
    turns: int
    failing: str | None
    """'a' or 'b': the side that failed while the other passed (the gold path always passes); None otherwise."""

    @property
    def first_divergence(self) -> Step | None:
        return next((s for s in self.steps if not s.same), None)

    @property
    def first_wrong_write(self) -> Step | None:
        """The first step touching a write where the failing side differs from the passing one: a wrong
        write (other tool or arguments, refused), an extra write, or a write it left out."""
        if self.failing is None:
            return None
        return next((s for s in self.steps if s.writes and not s.same), None)

    def user_differs(self, turn: int) -> bool:
        ta, tb = _turn(self.a, turn), _turn(self.b, turn)
        return ta.user.strip() != tb.user.strip()

    def render(self) -> str:
        a, b = self.a, self.b
        lines = [
            f"### Trajectory diff: {self.task_id}",
            "",
            f"A = {a.name}: {a.outcome}" + (f"  ({a.path})" if a.path else ""),
            f"B = {b.name}: {b.outcome}" + (f"  ({b.path})" if b.path else ""),
            "",
            "legend: '=' same call, '~' same place but another tool, arguments or status, '<' only A, '>' only B",
        ]
        for turn in range(self.turns):
            ta, tb = _turn(a, turn), _turn(b, turn)
            lines += ["", f"turn {turn + 1}"]
            if self.user_differs(turn):
                lines += [f"  user A: {_short(ta.user)}", f"  user B: {_short(tb.user)}"]
            else:
                lines.append(f"  user: {_short(ta.user)}")
            for step in (s for s in self.steps if s.turn == turn):
                tag = " [write]" if step.writes else ""
                if step.same:
                    assert step.a is not None
                    lines.append(f"  = {step.a.text()}{tag}")
                else:
                    lines.append(f"  {step.marker} A: {step.a.text() if step.a else '-'}{tag}")
                    lines.append(f"    B: {step.b.text() if step.b else '-'}   ({step.explain()})")
            if ta.reply.strip() == tb.reply.strip():
                lines.append(f"  reply: {_short(ta.reply)}")
            else:
                lines += [f"  reply A: {_short(ta.reply)}", f"  reply B: {_short(tb.reply)}"]
        lines.append("")
        first = self.first_divergence
        lines.append("first divergence: " + ("none: every call is the same" if first is None else
                                             f"turn {first.turn + 1}, call {first.position}: {first.explain()}"))
        if self.failing is None:
            both = "both failed" if a.strict is False and b.strict is False else "neither failed" if a.strict and b.strict else "one side is not scored"
            lines.append(f"first wrong write: not named ({both}; it needs one failing side and one passing side)")
        else:
            wrong = self.first_wrong_write
            who = "A" if self.failing == "a" else "B"
            lines.append(f"first wrong write ({who}, the failing side): " + ("none: every write matches; the failure is elsewhere (reply, reads, order)"
                                                                             if wrong is None else f"turn {wrong.turn + 1}, call {wrong.position}: {wrong.explain()}"))
            record = (a if self.failing == "a" else b).record
            if record is not None and record.verdict is not None:
                failures = record.verdict.failures()
                lines += [f"  failing check: {c.component}: {_short(c.reason, 240)}" for c in failures[:CHECKS_SHOWN]]
                if len(failures) > CHECKS_SHOWN:
                    lines.append(f"  ... and {len(failures) - CHECKS_SHOWN} more failing check(s) (crmbench report: the trial explorer shows all)")
        return "\n".join(lines) + "\n"

    def payload(self) -> dict[str, Any]:
        """Compact form for the HTML explorer: rows [turn, marker, A, B, explanation, write]."""
        first, wrong = self.first_divergence, self.first_wrong_write
        return {
            "a": f"{self.a.name}: {self.a.outcome}",
            "b": f"{self.b.name}: {self.b.outcome}",
            "rows": [[s.turn + 1, s.marker, s.a.text() if s.a else "", s.b.text() if s.b else "", "" if s.same else s.explain(), s.writes] for s in self.steps],
            "first": None if first is None else f"turn {first.turn + 1}, call {first.position}: {first.explain()}",
            "wrong": None if wrong is None else f"turn {wrong.turn + 1}, call {wrong.position}: {wrong.explain()}",
            "failing": self.failing,
        }


def _canon(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


def _short(value: Any, limit: int = PREVIEW) -> str:
    text = value if isinstance(value, str) else _canon(value)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _turn(side: Side, index: int) -> Turn:
    return side.turns[index] if index < len(side.turns) else Turn()


@functools.cache
def _writes(domain: str) -> dict[str, bool]:
    """Tool → is a write, from the domain's world (no such domain: empty, every call unknown)."""
    from servers.registry import UnknownDomain, environment_class

    try:
        env = environment_class(domain)
    except UnknownDomain:
        return {}
    return {name: env.tool_kind(name) == "write" for name in env.tool_methods()}


def side_of_record(name: str, record: TrialRecord, path: Path | None = None) -> Side:
    kinds = _writes(record.domain)
    last = max([m.turn for m in record.conversation] + [c.turn for c in record.tool_trace] + [-1])
    turns = [Turn() for _ in range(last + 1)]
    for m in record.conversation:
        turn = turns[m.turn]
        if m.role == "user":
            turn.user = f"{turn.user}\n{m.content}".strip()
        else:
            turn.reply = f"{turn.reply}\n{m.content}".strip()
    for c in sorted(record.tool_trace, key=lambda c: c.seq):
        turns[c.turn].calls.append(Call(c.turn, c.tool, dict(c.arguments), c.status, c.result if c.error is None else c.error, kinds.get(c.tool)))
    strict = None if record.status != "scored" else bool(record.strict)
    return Side(name, strict, turns, record, path)


def side_of_gold(task: Task, against: TrialRecord | None) -> Side:
    """The task's gold path, its `${tool.field}` references resolved as the oracle would have resolved them
    in `against`'s world: each gold call takes as its result that of the trial's next unused executed call
    of the same tool in the same turn, and later references read those results in order."""
    kinds = _writes(task.domain)
    trace: list[ToolCallRecord] = sorted(against.tool_trace, key=lambda c: c.seq) if against else []
    played: list[ToolCallRecord] = []
    used: set[int] = set()
    turns = []
    for index, gold in enumerate(task.gold):
        calls = []
        for call in gold.calls:
            arguments = {}
            for key, value in call.args.items():
                try:
                    arguments[key] = interpolate(value, played)
                except UnresolvedReference:
                    arguments[key] = value
            twin = next((c for c in trace if c.turn == index and c.tool == call.tool and c.status == "executed" and c.seq not in used), None)
            if twin is not None:
                used.add(twin.seq)
                played.append(twin)
            calls.append(Call(index, call.tool, arguments, None, None, kinds.get(call.tool)))
        turns.append(Turn(user=gold.user, reply=gold.reply, calls=calls))
    return Side("gold path", True, turns)


def align(a: Side, b: Side) -> tuple[list[Step], int]:
    steps: list[Step] = []
    count = max(len(a.turns), len(b.turns))
    for turn in range(count):
        ca, cb = _turn(a, turn).calls, _turn(b, turn).calls
        matcher = difflib.SequenceMatcher(None, [c.tool for c in ca], [c.tool for c in cb], autojunk=False)
        pairs: list[tuple[Call | None, Call | None]] = []
        for op, i1, i2, j1, j2 in matcher.get_opcodes():
            left, right = ca[i1:i2], cb[j1:j2]
            for k in range(max(len(left), len(right))):
                pairs.append((left[k] if k < len(left) else None, right[k] if k < len(right) else None))
            del op
        steps += [Step(turn, i + 1, x, y) for i, (x, y) in enumerate(pairs)]
    return steps, count


def diff_sides(task_id: str, a: Side, b: Side) -> TrajectoryDiff:
    steps, turns = align(a, b)
    failing = "a" if a.strict is False and b.strict is True else "b" if b.strict is False and a.strict is True else None
    return TrajectoryDiff(task_id, a, b, steps, turns, failing)


class DiffInputError(ValueError):
    pass


def _trial(run: Path, task_id: str, round_number: int) -> tuple[str, TrialRecord, Path]:
    from harness.report.data import ReportInputError, load_runs
    from harness.rundir import RunDirectory

    try:
        data = load_runs([run], {run: run.name})
    except ReportInputError as exc:
        raise DiffInputError(str(exc)) from None
    [system] = data.systems
    if not 1 <= round_number <= len(system.rounds):
        raise DiffInputError(f"{run}: --round {round_number} does not exist (the run has {len(system.rounds)} round(s))")
    rnd = system.rounds[round_number - 1]
    record = rnd.records.get(task_id)
    if record is None:
        near = difflib.get_close_matches(task_id, list(rnd.records), n=3)
        raise DiffInputError(f"{run} round {round_number} has no trial of task {task_id!r}" + (f" (did you mean {', '.join(near)}?)" if near else ""))
    label = data.systems[0].manifest.get("plan", {}).get("agent_model") or data.systems[0].manifest.get("plan", {}).get("agent") or run.name
    return f"{label} {run} round {round_number}", record, RunDirectory(rnd.source).trial_path(record.domain, record.key)


def diff_runs(run_a: Path, run_b: Path | None, task_id: str, *, round_number: int = 1, gold: bool = False, catalog: dict[str, Task] | None = None) -> TrajectoryDiff:
    if gold == (run_b is not None):
        raise DiffInputError("give RUN_A RUN_B, or RUN_A --gold (not both)")
    name_a, record_a, path_a = _trial(run_a, task_id, round_number)
    a = side_of_record(name_a, record_a, path_a)
    if gold:
        if catalog is None:
            from contracts.catalog import load_catalog

            catalog = load_catalog()
        task = catalog.get(task_id)
        if task is None:
            raise DiffInputError(f"task {task_id!r} is not in the catalog on disk, so it has no gold path to compare with")
        return diff_sides(task_id, a, side_of_gold(task, record_a))
    assert run_b is not None
    name_b, record_b, path_b = _trial(run_b, task_id, round_number)
    return diff_sides(task_id, a, side_of_record(name_b, record_b, path_b))
