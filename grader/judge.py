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


def phrase_pattern(phrase: str) -> re.Pattern[str]:
    """Whole-word, number-boundary matching of a normalised phrase: "50" matches "$50" and "50.00" but not
    "150", "0.50" or "50.75"; "paid" does not match "unpaid". A trailing `*` makes the phrase a word stem:
    "currenc*" matches "currency" and "currencies"."""
    text = normalise(phrase)
    stem = text.endswith("*")
    text = text.rstrip("*")
    left = r"(?<![a-z0-9])(?<!\d\.)" if re.match(r"[a-z0-9]", text[:1]) else ""
    right = r"(?![a-z0-9])(?!\.0*[1-9])" if re.search(r"[a-z0-9]$", text[-1:]) and not stem else ""
    return re.compile(left + re.escape(text) + right)


def contains(phrase: str, text: str) -> bool:
    return phrase_pattern(phrase).search(normalise(text)) is not None


def _sentences(message: str) -> list[str]:
    parts = re.split(r"(?<=[.!?])\s+|\n+", message)
    return [p for p in (part.strip() for part in parts) if p]


def find_quote(phrase: str, messages: list[str]) -> str | None:
    """An exact excerpt of the transcript (a sentence, else the message) that contains `phrase`."""
    pattern = phrase_pattern(phrase)
    for message in messages:
        if pattern.search(normalise(message)):
            for sentence in _sentences(message):
                if pattern.search(normalise(sentence)):
                    return sentence
            return message
    return None


class EvidenceJudge:
    """Deterministic offline judge: a criterion passes when each of its evidence items occurs in the
    visible assistant transcript as whole words (an item that is a list passes on any of its phrases)
    and none of its `absent` phrases does."""

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
            present = [a for a in criterion.absent or [] if find_quote(a, assistant_messages)]
            if missing:
                explanation = "no visible reply mentions: " + "; ".join(repr(m) for m in missing)
                results.append(CriterionJudgement(passed=False, explanation=explanation))
            elif present:
                explanation = "a visible reply says what it must not: " + "; ".join(repr(a) for a in present)
                results.append(CriterionJudgement(passed=False, quote=find_quote(present[0], assistant_messages) or "", explanation=explanation))
            else:
                results.append(
                    CriterionJudgement(passed=True, quote=quotes[0], explanation="all evidence phrases occur in the replies")
                )
        return JudgeOutput(judge=self.name, criteria=results, contradiction_found=False)
