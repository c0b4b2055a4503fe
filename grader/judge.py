"""Semantic reply judging (spec A.2). This module holds the judge interface and the offline evidence judge.

The judge sees only the user instruction, the ordered criteria and the user-visible assistant messages.
The LLM judge (runtime issue) implements the same `Judge` protocol; every verdict records which judge
decided it.
"""

from __future__ import annotations

import re
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


def normalise(text: str) -> str:
    """Lowercase, drop thousands separators and currency signs, fold whitespace: '$1,000.00' ~ '1000.00'."""
    text = text.lower().replace("\u2019", "'")
    text = re.sub(r"(?<=\d),(?=\d{3})", "", text)
    text = text.replace("$", "")
    return re.sub(r"\s+", " ", text).strip()


def _sentences(message: str) -> list[str]:
    parts = re.split(r"(?<=[.!?])\s+|\n+", message)
    return [p for p in (part.strip() for part in parts) if p]


def find_quote(phrase: str, messages: list[str]) -> str | None:
    """An exact excerpt of the transcript (a sentence, else the message) that contains `phrase`."""
    target = normalise(phrase)
    for message in messages:
        if target in normalise(message):
            for sentence in _sentences(message):
                if target in normalise(sentence):
                    return sentence
            return message
    return None


class EvidenceJudge:
    """Deterministic offline judge: a criterion passes when each of its evidence items occurs in the
    visible assistant transcript (an item that is a list passes on any of its phrases)."""

    name = "evidence"

    async def judge(self, instruction: str, criteria: list[ReplyCriterion], assistant_messages: list[str]) -> JudgeOutput:
        return self.judge_sync(criteria, assistant_messages)

    def judge_sync(self, criteria: list[ReplyCriterion], assistant_messages: list[str]) -> JudgeOutput:
        results: list[CriterionJudgement] = []
        for criterion in criteria:
            quotes: list[str] = []
            missing: list[str] = []
            for item in criterion.evidence:
                phrases = [item] if isinstance(item, str) else item
                quote = next((q for p in phrases if (q := find_quote(p, assistant_messages))), None)
                if quote is None:
                    missing.append(" | ".join(phrases))
                else:
                    quotes.append(quote)
            if missing:
                explanation = "no visible reply mentions: " + "; ".join(repr(m) for m in missing)
                results.append(CriterionJudgement(passed=False, explanation=explanation))
            else:
                results.append(
                    CriterionJudgement(passed=True, quote=quotes[0], explanation="all evidence phrases occur in the replies")
                )
        return JudgeOutput(judge=self.name, criteria=results, contradiction_found=False)
