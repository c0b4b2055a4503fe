"""Which consent judge goes with a reply judge. Above both consent judges (`grader.consent`'s rule and
`grader.llm_consent`'s model judge), so that neither imports the other's module back."""

from __future__ import annotations

from grader.consent import ConsentJudge, RuleConsentJudge
from grader.llm_consent import LLMConsentJudge


def consent_judge_for(judge: object) -> ConsentJudge:
    """The consent judge that goes with a reply judge: the same model for an LLM judge, else the rule."""
    model = getattr(judge, "model", None)
    if model is not None:
        return LLMConsentJudge(model)
    return RuleConsentJudge()
