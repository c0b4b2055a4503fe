"""The LLM consent judge (online counterpart of `grader.consent.RuleConsentJudge`).

Input: the decision sentence, the gated tool's name, and the visible conversation up to the call (the
messages of earlier turns and the customer's message of the call's turn, the last being the one the call
came after) - never tool results or arguments' outcomes. Output: one JSON object with a verdict, the
deciding customer message's number and a verbatim quote, validated by `grader.consent.validate_consent`;
an invalid answer is asked again, still invalid after the retries → `JudgeFailure` (the trial is
ungraded, as for reply judging); a provider outage is a `ModelError` (⊥).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from pydantic import BaseModel, ValidationError

from grader.consent import ConsentJudgement, ConsentQuestion, validate_consent
from grader.prepared import JudgeFailure, unescape_quote
from models.model import Model
from models.prompts import VersionedPrompt
from models.types import ChatMessage, GenerateConfig

PROMPT = VersionedPrompt(Path(__file__).parent / "prompts", "consent_v1")


class _Answer(BaseModel):
    granted: bool
    declined: bool = False
    message: int | None = None
    quote: str = ""
    explanation: str


def render_request(question: ConsentQuestion) -> str:
    items = [
        {"number": i, "role": "customer" if m.role == "user" else "assistant", "text": m.content}
        for i, m in enumerate(question.conversation, start=1)
    ]
    text = json.dumps(items, ensure_ascii=False, indent=1).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    last = len(question.conversation)
    return (
        f"<decision>\n{question.check.decision.strip()}\n</decision>\n\n"
        f"<action>\nThe assistant called {question.tool} right after message {last} (turn {question.turn + 1} of the customer).\n</action>\n\n"
        f'<conversation_json untrusted="true">\n{text}\n</conversation_json>'
    )


def parse_answer(text: str) -> _Answer:
    match = re.search(r"\{.*\}", text, re.DOTALL)
    if match is None:
        raise JudgeFailure("consent judge answer contains no JSON object")
    try:
        return _Answer.model_validate(json.loads(match.group(0)))
    except (json.JSONDecodeError, ValidationError) as exc:
        raise JudgeFailure(f"consent judge answer is not valid JSON for the schema: {exc}") from None


class LLMConsentJudge:
    def __init__(self, model: Model, *, retries: int = 2, config: GenerateConfig | None = None) -> None:
        self.model = model
        self.retries = retries
        self.config = config or GenerateConfig(temperature=0.0)
        self.name = f"llm-consent:{model.name}"

    async def judge(self, question: ConsentQuestion) -> ConsentJudgement:
        messages = [ChatMessage(role="system", content=PROMPT.text), ChatMessage(role="user", content=render_request(question))]
        problem = ""
        for _ in range(self.retries + 1):
            output = await self.model.generate(messages, config=self.config)
            try:
                answer = parse_answer(output.text)
                judgement = ConsentJudgement(
                    granted=answer.granted, declined=answer.declined, message=answer.message, quote=unescape_quote(answer.quote), explanation=answer.explanation
                )
                validate_consent(judgement, question, self.name)
                return judgement
            except JudgeFailure as exc:
                problem = str(exc)
        raise JudgeFailure(f"{self.name}: invalid output after {self.retries + 1} attempt(s): {problem}")
