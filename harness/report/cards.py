"""Trajectory demo cards (spec appendix D, Fig. 17): contract → routing and tool observations → visible
replies → the verdict of every declared check, for one trial."""

from __future__ import annotations

import html
import json
from dataclasses import dataclass
from typing import Any

from contracts.schema import Task
from harness.records import TrialRecord
from harness.report.data import ReportData, System

RESULT_PREVIEW = 240


@dataclass
class Card:
    system: str
    record: TrialRecord
    task: Task | None
    role: str
    """Why it was chosen: success, graded failure, timeout, or requested."""

    @property
    def outcome(self) -> str:
        r = self.record
        if r.status != "scored":
            return f"⊥ infrastructure failure ({r.failure_class})"
        if r.failure_class == "model:non_convergence":
            return f"non-convergence ({r.error})"
        if r.strict:
            return "strict success"
        return f"graded failure (primary: {r.verdict.primary_failure if r.verdict else '?'})"


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True, default=str)
    return text if len(text) <= RESULT_PREVIEW else text[: RESULT_PREVIEW - 3] + "..."


def _contract_lines(task: Task | None) -> list[str]:
    if task is None:
        return ["(task no longer in the catalog)"]
    declared = task.contract.model_dump(exclude_none=True)
    return [f"{family}: {_short(items)}" for family, items in declared.items()]


def choose_cards(data: ReportData, task_ids: list[str]) -> list[Card]:
    """Requested `TASK[@SYSTEM[#ROUND]]` (default: the first system and round that ran the task), else a
    success, a graded failure and a timeout, each on a different task where possible."""
    cards: list[Card] = []

    def card(system: System, record: TrialRecord, role: str) -> Card:
        return Card(system.label, record, data.task(record.key.task_id), role)

    if task_ids:
        for spec in task_ids:
            task_id, _, rest = spec.partition("@")
            system_name, _, round_text = rest.partition("#")
            systems = [s for s in data.systems if not system_name or s.label == system_name]
            if system_name and not systems:
                raise KeyError(f"--card {spec!r}: no system named {system_name!r} (systems: {', '.join(s.label for s in data.systems)})")
            if round_text and not round_text.isdigit():
                raise KeyError(f"--card {spec!r}: the round after '#' is a number from 1")
            found = next(
                ((s, r.records[task_id]) for s in systems for n, r in enumerate(s.rounds, start=1)
                 if task_id in r.records and (not round_text or n == int(round_text))),
                None,
            )
            if found is None:
                raise KeyError(f"no run holds a trial of task {task_id!r}" + (f" for {rest!r}" if rest else ""))
            cards.append(card(found[0], found[1], "requested"))
        return cards
    wanted = {
        "success": lambda r: r.status == "scored" and r.strict,
        "graded failure": lambda r: r.status == "scored" and not r.strict and r.failure_class is None,
        "timeout": lambda r: r.failure_class == "model:non_convergence",
    }
    used: set[str] = set()
    for role, predicate in wanted.items():
        for system in data.systems:
            candidates = [r for round_ in system.rounds for r in sorted(round_.records.values(), key=lambda x: x.key.task_id) if predicate(r)]
            match = next((r for r in candidates if r.key.task_id not in used), candidates[0] if candidates else None)
            if match is not None:
                used.add(match.key.task_id)
                cards.append(card(system, match, role))
                break
    return cards


def card_markdown(card: Card) -> str:
    r = card.record
    lines = [
        f"### Demo card ({card.role}): {r.key.task_id} - {card.system}",
        "",
        f"outcome: **{card.outcome}**; seed {r.key.seed}, round {r.key.round + 1}; {r.user_turns} user turns, {len(r.tool_trace)} tool calls, {r.wall_s:.2f} s",
        "",
        "**1. Contract**",
        *[f"- {line}" for line in _contract_lines(card.task)],
        "",
        "**2. Routing and tool observations**",
        *[f"- turn {d.turn}: node `{d.node}`" + (f" ({d.reason})" if d.reason else "") for d in r.routing],
        *[f"- turn {c.turn}: `{c.tool}({_short(c.arguments)})` -> {c.status}: {_short(c.result if c.error is None else c.error)}" for c in r.tool_trace],
        "",
        "**3. Visible conversation**",
        *[f"- {m.role} (turn {m.turn}): {m.content}" for m in r.conversation],
        "",
        "**4. Grader verdicts**",
    ]
    if r.verdict is None:
        lines.append(f"- no verdict: {r.error}")
    else:
        for check in r.verdict.checks:
            mark = "PASS" if check.passed else "FAIL"
            extra = f" [{check.diff}]" if check.diff else ""
            judge = f" (judge: {check.judge})" if check.judge else ""
            lines.append(f"- {mark} {check.component}: {check.check}: {check.reason}{extra}{judge}")
        lines.append(f"- strict: {r.verdict.strict}; primary failure: {r.verdict.primary_failure}")
    return "\n".join(lines) + "\n"


def card_html(card: Card) -> str:
    r = card.record
    esc = html.escape
    verdict_rows = ""
    if r.verdict:
        for c in r.verdict.checks:
            cls = "pass" if c.passed else "fail"
            verdict_rows += (
                f"<tr class='{cls}'><td>{'PASS' if c.passed else 'FAIL'}</td><td>{esc(c.component)}</td><td>{esc(c.check)}</td>"
                f"<td>{esc(c.reason)}</td><td>{esc(c.diff or '')}</td><td>{esc(c.judge or '')}</td></tr>"
            )
    else:
        verdict_rows = f"<tr><td colspan='6'>no verdict: {esc(r.error or '')}</td></tr>"
    tools = "".join(
        f"<tr><td>{c.turn}</td><td><code>{esc(c.tool)}</code></td><td><code>{esc(_short(c.arguments))}</code></td><td>{esc(c.status)}</td><td><code>{esc(_short(c.result if c.error is None else c.error))}</code></td></tr>"
        for c in r.tool_trace
    )
    routing = "".join(f"<li>turn {d.turn}: <b>{esc(d.node)}</b> {esc(d.reason)}</li>" for d in r.routing)
    dialogue = "".join(f"<p class='{m.role}'><b>{m.role}</b> (turn {m.turn}): {esc(m.content)}</p>" for m in r.conversation)
    contract = "".join(f"<li><code>{esc(line)}</code></li>" for line in _contract_lines(card.task))
    return f"""
<section class="card" id="card-{esc(r.key.task_id)}">
<h3>Demo card ({esc(card.role)}): {esc(r.key.task_id)} - {esc(card.system)}</h3>
<p>outcome: <b>{esc(card.outcome)}</b>; seed {r.key.seed}, round {r.key.round + 1}; {r.user_turns} user turns, {len(r.tool_trace)} tool calls, {r.wall_s:.2f} s</p>
<h4>1. Contract</h4><ul>{contract}</ul>
<h4>2. Routing and tool observations</h4><ul>{routing}</ul>
<table><tr><th>turn</th><th>tool</th><th>arguments</th><th>status</th><th>result</th></tr>{tools}</table>
<h4>3. Visible conversation</h4>{dialogue}
<h4>4. Grader verdicts</h4>
<table><tr><th></th><th>component</th><th>check</th><th>reason</th><th>diff</th><th>judge</th></tr>{verdict_rows}</table>
</section>"""
