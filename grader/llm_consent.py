"""The LLM consent judge (online counterpart of `grader.consent.RuleConsentJudge`).

One consent specification, two judges: the model gets the inputs the rule gets - the decision sentence,
the check (`tool`, `proposal`, `upfront`), the gated calls (arguments and results, on which a customer's
condition is checked) and the visible conversation up to the call (the messages of earlier turns and the
customer's message of the call's turn; the agent's last question is in it) - and the rule's decision
table (`grader/prompts/consent_v2.md`, the same table as `grader.consent`'s docstring and
docs/judges.md). Output: one JSON object with a verdict, the deciding customer message's number and a
verbatim quote, validated by `grader.consent.validate_consent`; an invalid answer is asked again, still
invalid after the retries → `JudgeFailure` (the trial is ungraded, as for reply judging); a provider
outage is a `ModelError` (⊥).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from pydantic import BaseModel, ValidationError

from grader.consent import ConsentJudgement, ConsentQuestion, validate_consent
from grader.judge import asked_again
from grader.prepared import JudgeFailure, unescape_quote
from models.model import Model
from models.prompts import VersionedPrompt
from models.types import ChatMessage, GenerateConfig

PROMPT = VersionedPrompt(Path(__file__).parent / "prompts", "consent_v2")


class _Answer(BaseModel):
    granted: bool
    declined: bool = False
    message: int | None = None
    quote: str = ""
    explanation: str


def _data(value: object) -> str:
    """JSON with the markup characters escaped, so no data can close or open an element of the request."""
    return json.dumps(value, ensure_ascii=False, indent=1, default=str).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def render_request(question: ConsentQuestion) -> str:
    """The model's input: every input the offline rule reads (see the module docstring)."""
    items = [
        {"number": i, "role": "customer" if m.role == "user" else "assistant", "text": m.content}
        for i, m in enumerate(question.conversation, start=1)
    ]
    check = {"tool": question.tool, "proposal": question.check.proposal, "upfront": question.check.upfront}
    calls = [{"arguments": c.arguments, "status": c.status, "result": c.result} for c in question.calls]
    last = len(question.conversation)
    return (
        f"<decision>\n{question.check.decision.strip()}\n</decision>\n\n"
        f'<check_json untrusted="true">\n{_data(check)}\n</check_json>\n\n'
        f"<action>\nThe assistant called {question.tool} right after message {last} (turn {question.turn + 1} of the customer).\n</action>\n\n"
        f'<calls_json untrusted="true">\n{_data(calls)}\n</calls_json>\n\n'
        f'<conversation_json untrusted="true">\n{_data(items)}\n</conversation_json>'
    )


def parse_request(text: str) -> dict[str, object]:
    """The inputs back from a rendered request (for scripted models that answer with the rule)."""

    def element(name: str) -> object:
        body = text.split(f"<{name}", 1)[1].split(">", 1)[1].rsplit(f"</{name}>", 1)[0]
        return json.loads(body)

    decision = text.split("<decision>\n", 1)[1].split("\n</decision>", 1)[0]
    return {"decision": decision, "check": element("check_json"), "calls": element("calls_json"), "conversation": element("conversation_json")}


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
        request = [ChatMessage(role="system", content=PROMPT.text), ChatMessage(role="user", content=render_request(question))]
        messages, problem = request, ""
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
                messages = asked_again(request, output.text, problem)
        raise JudgeFailure(f"{self.name}: invalid output after {self.retries + 1} attempt(s): {problem}")
