"""The reply judge's protocol and output types (spec A.2), below every judge that implements them.

The judge sees only the user instruction, the ordered criteria and the user-visible assistant messages.
Two judges implement `Judge`: the offline evidence judge (`grader.text.evidence.EvidenceJudge`, its text
rules in the `grader.text` package) and the LLM judge (`grader.llm_judge`); every verdict records which
judge decided it.
"""

from __future__ import annotations

import re
from typing import Protocol

from pydantic import BaseModel

from contracts.schema import ReplyCriterion
from models.types import ChatMessage


class CriterionJudgement(BaseModel):
    passed: bool
    quote: str = ""
    explanation: str


class JudgeOutput(BaseModel):
    judge: str
    criteria: list[CriterionJudgement]
    contradiction_found: bool = False


class Judge(Protocol):
    name: str

    async def judge(self, instruction: str, criteria: list[ReplyCriterion], assistant_messages: list[str]) -> JudgeOutput: ...


_JUDGE_NAME = re.compile(r"^(?:consent )?judge \S+: ")


def asked_again(request: list[ChatMessage], answer: str, problem: str) -> list[ChatMessage]:
    """A model judge's request after an invalid answer: the same request, the answer it gave and what was wrong
    with it. Asking the same request again at temperature 0 mostly gets the same answer back; told what failed
    ("the quote states none of the criterion's values"), a model can mend it. Only the latest invalid answer is
    shown, so a retry's request stays the size of the first one plus one answer."""
    reason = _JUDGE_NAME.sub("", problem)  # the reason, not the judge's own name: a retry's request is the same whoever answers
    return [
        *request,
        ChatMessage(role="assistant", content=answer),
        ChatMessage(role="user", content=f"That answer is invalid: {reason}. Answer the same request again, with one JSON "
                    "object that follows the rules (quotes copied character for character from the message they cite)."),
    ]
