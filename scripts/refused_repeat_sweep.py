"""The refused-repeat sweep: every gold write of every task sent again, unchanged, right after itself.

    uv run python scripts/refused_repeat_sweep.py [--domain D ...] [--show N]

For each task and each write of its gold path (a `write` tool, whether the gold call succeeded or was
refused), the gold path is replayed on a fresh world with an identical copy of the call inserted right
after it. Where the world refuses the copy (a 409 on a second cancel, a 422 on the same payment), the
trial must fail strictly: the domain policy says a refused call is never repeated unchanged and a call
the world already answered is not sent again (grader/refusals.py). The only writes a policy lets an agent
retry are those of `refusal_is_an_answer` tools *with new arguments* - never an identical copy - so every
refused copy must fail.

Prints, per domain: the tasks, the repeats tried, the repeats the world refused, the tasks where the
world refuses at least one repeat, how many of those fail strictly on every refused repeat, the refused
repeats that still pass (which fail this script, exit 1), and how many refused repeats would pass if the
policy's checks were left out (what the rule adds over the contracts' own checks). A real replay through
the gateway's recorder (`GatewayReplayer`), graded by the offline grader exactly as the release gate
grades (docs/grading.md and docs/guarantees.md name this script).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from contracts.catalog import load_catalog
from contracts.schema import GoldTurn, Task
from grader.grade import grade_offline
from grader.verdicts import roll_up
from servers.registry import environment_class

if TYPE_CHECKING:
    from harness.release.replay import GatewayReplayer


@dataclass
class DomainSweep:
    domain: str
    tasks: int = 0
    repeats: int = 0
    refused: int = 0
    """Repeats the world refused."""
    refused_tasks: set[str] = field(default_factory=set)
    passing: list[str] = field(default_factory=list)
    """`task: tool@position` of refused repeats that still pass strictly (must stay empty)."""
    without_rule: int = 0
    """Refused repeats that would pass strictly without the policy's checks (what the rule adds)."""
    gold_failures: list[str] = field(default_factory=list)

    @property
    def failing_tasks(self) -> int:
        """Tasks where the world refuses a repeat and every refused repeat fails strictly."""
        return len(self.refused_tasks - {p.split(":", 1)[0] for p in self.passing})


def repeated(turns: Sequence[GoldTurn], turn: int, index: int) -> list[GoldTurn]:
    """The gold turns with call `index` of `turn` sent twice in a row."""
    out = [t.model_copy(update={"calls": list(t.calls)}) for t in turns]
    out[turn].calls.insert(index + 1, turns[turn].calls[index])
    return out


async def sweep_task(replayer: GatewayReplayer, task: Task, report: DomainSweep) -> None:
    """Replay every refused-repeat mutation of `task`'s gold writes and record what the grader says."""
    env = environment_class(task.domain)
    report.tasks += 1
    gold = await replayer.play(task, task.gold, strict_refs=True)
    if not grade_offline(task, gold).strict:
        report.gold_failures.append(task.id)
        return
    flat = [(t, c) for t, turn in enumerate(task.gold) for c in range(len(turn.calls))]
    for k, (t, c) in enumerate(flat):
        call = task.gold[t].calls[c]
        if env.tool_kind(call.tool) != "write":
            continue
        report.repeats += 1
        evidence = await replayer.play(task, repeated(task.gold, t, c))
        copy = evidence.tool_trace[k + 1] if len(evidence.tool_trace) > k + 1 else None
        if copy is None or copy.tool != call.tool or copy.status != "refused":
            continue
        report.refused += 1
        report.refused_tasks.add(task.id)
        verdict = grade_offline(task, evidence)
        if verdict.strict:
            report.passing.append(f"{task.id}: {call.tool}@{t}.{c}")
        others = [check for check in verdict.checks if not check.check.startswith("policy ")]
        if roll_up(task.id, others, model_failure=verdict.model_failure).strict:
            report.without_rule += 1


async def sweep(domains: Sequence[str] | None = None) -> dict[str, DomainSweep]:
    from harness.release.replay import replayer as open_replayer

    catalog = load_catalog()
    chosen = sorted({t.domain for t in catalog.values()} if not domains else set(domains))
    out = {d: DomainSweep(d) for d in chosen}
    async with open_replayer(chosen) as replayer:
        for task in catalog.values():
            if task.domain in out:
                await sweep_task(replayer, task, out[task.domain])
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--domain", action="append", default=[])
    parser.add_argument("--show", type=int, default=20, help="how many passing refused repeats to list per domain")
    args = parser.parse_args(argv)
    reports = asyncio.run(sweep(args.domain or None))
    print("| domain | tasks | gold writes repeated | repeats refused | tasks with a refused repeat | of which fail strictly | refused repeats passing | would pass without the policy rule |")
    print("|---|---|---|---|---|---|---|---|")
    bad = 0
    for r in reports.values():
        print(f"| {r.domain} | {r.tasks} | {r.repeats} | {r.refused} | {len(r.refused_tasks)} | {r.failing_tasks} | {len(r.passing)} | {r.without_rule} |")
        bad += len(r.passing) + len(r.gold_failures)
    total = [sum(getattr(r, f) for r in reports.values()) for f in ("tasks", "repeats", "refused")]
    refused_tasks = sum(len(r.refused_tasks) for r in reports.values())
    failing = sum(r.failing_tasks for r in reports.values())
    print(f"| all | {total[0]} | {total[1]} | {total[2]} | {refused_tasks} | {failing} | {sum(len(r.passing) for r in reports.values())} | {sum(r.without_rule for r in reports.values())} |")
    for r in reports.values():
        for line in r.passing[: args.show]:
            print(f"PASSES  {line}")
        for task_id in r.gold_failures:
            print(f"GOLD FAILS  {task_id}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
