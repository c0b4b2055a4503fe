"""The one-criterion question the reply-judge rule tests ask: does the offline evidence judge pass this
criterion (statement and evidence) on these replies?"""

from __future__ import annotations

from contracts.schema import ReplyCriterion
from grader.text.evidence import EvidenceJudge


def passes(criterion: str, evidence: list, messages: list[str] | str) -> bool:
    """The verdict on one criterion; a single string is one message."""
    messages = [messages] if isinstance(messages, str) else messages
    out = EvidenceJudge().judge_sync([ReplyCriterion(criterion=criterion, evidence=evidence)], messages)
    return out.criteria[0].passed
