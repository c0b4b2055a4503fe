"""The one-criterion question the reply-judge rule tests ask: does the offline evidence judge pass this
criterion (statement and evidence, or a real criterion of the catalog found by its statement) on these replies?"""

from __future__ import annotations

from contracts.catalog import load_catalog
from contracts.schema import ReplyCriterion
from grader.text.evidence import EvidenceJudge


def passes(criterion: str, evidence: list, messages: list[str] | str) -> bool:
    """The verdict on one criterion; a single string is one message."""
    messages = [messages] if isinstance(messages, str) else messages
    out = EvidenceJudge().judge_sync([ReplyCriterion(criterion=criterion, evidence=evidence)], messages)
    return out.criteria[0].passed


def passes_in_catalog(where: tuple[str, str], messages: list[str] | str) -> bool:
    """The verdict on a real criterion of the catalog: `where` is (task id, the criterion's exact statement)."""
    task_id, statement = where
    criterion = next(c for c in load_catalog()[task_id].contract.reply_criteria or [] if c.criterion == statement)
    messages = [messages] if isinstance(messages, str) else messages
    return EvidenceJudge().judge_sync([criterion], messages).criteria[0].passed
