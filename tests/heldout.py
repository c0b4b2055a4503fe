"""Shared helpers of the held-out trajectory tests: replay a task's gold dialogue after an edit through the
real gateway and grade it offline (the edit is a reviewer's mistake or valid route, not a generated case)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from contracts.catalog import get_task
from contracts.schema import GoldCall, GoldTurn
from grader.grade import grade_offline
from grader.verdicts import TrialVerdict
from harness.release.replay import GatewayReplayer
from servers.gateway import Gateway

Edit = Callable[[list[GoldTurn]], None]


async def replayed_verdict(task_id: str, edit: Edit) -> TrialVerdict:
    """The offline verdict of the task's gold dialogue after `edit` (which changes a copy of the turns)."""
    task = get_task(task_id)
    turns = [GoldTurn(user=t.user, calls=[GoldCall(tool=c.tool, args=dict(c.args)) for c in t.calls], reply=t.reply) for t in task.gold]
    edit(turns)
    async with GatewayReplayer(Gateway([task.domain])) as replayer:
        evidence = await replayer.play(task, turns, seed=0)
    return grade_offline(task, evidence)


def call(tool: str, **args: Any) -> GoldCall:
    return GoldCall(tool=tool, args=args)


def set_turn(turns: list[GoldTurn], i: int, **update: Any) -> None:
    """Replace turn `i` with a copy carrying `update` (gold turns are frozen)."""
    turns[i] = turns[i].model_copy(update=update)
