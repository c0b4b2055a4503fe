"""How often the evidence judge catches a wrong value in the *last* statement of a fact whose right value
the transcript also states earlier (a proposal, a quote, a listing) — a class the release gate's
wrong-value cases do not make, because they replace every written form of the value.

    uv run python scripts/judge_last_statement.py [--show N]

Cases come from the catalog's gold dialogues: for every reply criterion whose evidence holds an amount
or a count that two or more gold replies state, the last reply stating it gets another value in the same
written form ($159.00 → $222.00, 5 → 68); every other reply is left as the gold has it. The criterion
is judged on those replies alone, and only where the gold replies as written pass it (their minted ids
are still `${...}` references), so a case caught is caught for its value. Not every case is a wrong reply for that criterion (the last statement
may be of another fact than the criterion's: a listing criterion whose amount is restated later as a
refund), so the figure is an upper bound on the misses, and the cases that pass are printed to be read.
`tests/test_judge_last_statement.py` keeps the number caught from falling.
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

SHIFT = Decimal("63")
"""Added to the right value: never a value of the task's own (no task names one 63 away from another)."""


@dataclass(frozen=True)
class Case:
    task_id: str
    criterion: str
    sentence: str
    caught: bool


def _restated(text: str, value: Decimal) -> str:
    """`text` (one written value) with `value` in its place, in the same form: decimals, thousands commas
    and any currency sign kept."""
    decimals = len(m.group(1)) if (m := re.search(r"\.(\d+)", text)) else 0
    digits = f"{value:,.{decimals}f}" if "," in text else f"{value:.{decimals}f}"
    return re.sub(r"\d[\d,]*(?:\.\d+)?", digits, text, count=1)


def cases() -> list[Case]:
    from contracts.catalog import load_selection
    from grader.text.evidence import EvidenceJudge
    from grader.text.values import find_values

    judge = EvidenceJudge()
    out: list[Case] = []
    for task in load_selection().values():
        replies = [turn.reply for turn in task.gold]
        for criterion in task.contract.reply_criteria or []:
            for item in criterion.evidence:
                values = find_values(item) if isinstance(item, str) else []
                if not values or values[0].kind != "number":
                    continue
                right = values[0].value
                stated = [(i, v) for i, reply in enumerate(replies) for v in find_values(reply) if v.kind == "number" and v.value == right]
                if len({i for i, _ in stated}) < 2:
                    continue
                if not judge.judge_sync([criterion], replies, instruction=task.instruction).criteria[0].passed:
                    continue  # the gold replies as written (ids still `${...}`) do not pass it: no case to make
                index, last = stated[-1]
                edited = list(replies)
                edited[index] = replies[index][: last.start] + _restated(last.text, right + SHIFT) + replies[index][last.end :]
                if any(v.value == right for v in find_values(edited[index])):
                    continue  # the reply states the value twice: not its last statement alone
                verdict = judge.judge_sync([criterion], edited, instruction=task.instruction)
                sentence = edited[index][max(0, last.start - 60) : last.start + 80]
                out.append(Case(task.id, criterion.criterion, sentence, not verdict.criteria[0].passed))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--show", type=int, default=40, help="how many of the cases that pass to print")
    args = parser.parse_args()
    found = cases()
    caught = [c for c in found if c.caught]
    print(f"{len(caught)} of {len(found)} cases caught (the last statement of the fact wrong, the right value stated earlier)")
    for case in [c for c in found if not c.caught][: args.show]:
        print(f"  passes: {case.task_id}: {case.criterion!r}\n          ...{case.sentence}...")


if __name__ == "__main__":
    main()
