"""The reply judge's protocol and output types (spec A.2), below every judge that implements them.

The judge sees only the user instruction, the ordered criteria and the user-visible assistant messages.
Two judges implement `Judge`: the offline evidence judge (`grader.text.evidence.EvidenceJudge`, its text
rules in the `grader.text` package) and the LLM judge (`grader.llm_judge`); every verdict records which
judge decided it.
"""

from __future__ import annotations

from typing import Protocol

from pydantic import BaseModel

from contracts.schema import ReplyCriterion


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

