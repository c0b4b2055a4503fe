"""The reply judge's protocol and output types (spec A.2), below every judge that implements them.

The judge sees only the user instruction, the ordered criteria and the user-visible assistant messages.
Two judges implement `Judge`: the offline evidence judge (`grader.text.evidence.EvidenceJudge`, its text
rules in the `grader.text` package) and the LLM judge (`grader.llm_judge`); every verdict records which
judge decided it.
"""

from __future__ import annotations

from typing import Any, Protocol

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


_MOVED = {"normalise": "grader.text.units", "phrase_pattern": "grader.text.units"}
"""Names that lived here before the text rules moved to `grader.text` (issue 40), still importable from
here for branches written against the old place; resolved on first use, so this module imports nothing of
the package that imports it."""


def __getattr__(name: str) -> Any:
    if name in _MOVED:
        import importlib

        return getattr(importlib.import_module(_MOVED[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
