"""The LLM semantic judge, exactly per spec A.2.

Input: the user instruction, the ordered criteria, and the user-visible assistant messages only (never
tools, routing, hidden reasoning or state), with the transcript delimited and labelled untrusted.
Output: per criterion a binary verdict, an exact evidence quote and an explanation, plus a transcript-
level contradiction flag. Locally validated (JSON schema, quotes occur in the transcript); a bad answer
is re-judged (never re-running the conversation); still invalid after the retries → `JudgeFailure`,
which the runner records as an infrastructure failure (⊥).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from pydantic import BaseModel, ValidationError

from contracts.schema import ReplyCriterion
from grader.grade import JudgeFailure, quote_problem, unescape_quote, validate_judgement
from grader.judge import CriterionJudgement, JudgeOutput, asked_again
from models.model import Model
from models.prompts import VersionedPrompt
from models.types import ChatMessage, GenerateConfig

PROMPT = VersionedPrompt(Path(__file__).parent / "prompts", "judge_v3")


class _Quote(BaseModel):
    message: int | None = None
    text: str


class _Item(BaseModel):
    """One criterion's answer. `quotes` (judge_v3) may cite several messages; `message`/`evidence` (one
    quote, judge_v2) are still read so an older answer shape is not a failure."""

    index: int
    verdict: bool
    quotes: list[_Quote] = []
    message: int | None = None
    evidence: str = ""
    explanation: str

    def all_quotes(self) -> list[_Quote]:
        return self.quotes or ([_Quote(message=self.message, text=self.evidence)] if self.evidence or self.message else [])


class _Answer(BaseModel):
    criteria: list[_Item]
    contradiction_found: bool


def render_request(instruction: str, criteria: list[ReplyCriterion], assistant_messages: list[str]) -> str:
    numbered = "\n".join(
        f"{i}. {c.criterion}" + (f" (Fails if the replies say: {'; '.join(repr(a) for a in c.absent)}.)" if c.absent else "")
        for i, c in enumerate(criteria, start=1)
    )
    return (
        f"<user_instruction>\n{instruction.strip()}\n</user_instruction>\n\n"
        f"<criteria>\n{numbered}\n</criteria>\n\n"
        f'<transcript_json untrusted="true">\n{transcript_json(assistant_messages)}\n</transcript_json>'
    )


def transcript_json(assistant_messages: list[str]) -> str:
    """The transcript as data the model cannot close: a JSON array of strings, with `<`, `>` and `&`
    escaped as `\\u003c` etc., so no message can end the element, open a tag or inject criteria."""
    text = json.dumps(list(assistant_messages), ensure_ascii=False, indent=1)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def parse_answer(text: str, n_criteria: int) -> _Answer:
    match = re.search(r"\{.*\}", text, re.DOTALL)
    if match is None:
        raise JudgeFailure("judge answer contains no JSON object")
    try:
        answer = _Answer.model_validate(json.loads(match.group(0)))
    except (json.JSONDecodeError, ValidationError) as exc:
        raise JudgeFailure(f"judge answer is not valid JSON for the schema: {exc}") from None
    if sorted(item.index for item in answer.criteria) != list(range(1, n_criteria + 1)):
        raise JudgeFailure(f"judge answered criteria {[i.index for i in answer.criteria]}, expected 1..{n_criteria}")
    return answer


class LLMJudge:
    def __init__(self, model: Model, *, retries: int = 2, config: GenerateConfig | None = None) -> None:
        self.model = model
        self.retries = retries
        self.config = config or GenerateConfig(temperature=0.0)
        self.name = f"llm:{model.name}"

    async def judge(self, instruction: str, criteria: list[ReplyCriterion], assistant_messages: list[str]) -> JudgeOutput:
        request = [
            ChatMessage(role="system", content=PROMPT.text),
            ChatMessage(role="user", content=render_request(instruction, criteria, assistant_messages)),
        ]
        messages, problem = request, ""
        for _ in range(self.retries + 1):
            output = await self.model.generate(messages, config=self.config)
            try:
                answer = parse_answer(output.text, len(criteria))
                result = JudgeOutput(
                    judge=self.name,
                    criteria=[
                        CriterionJudgement(
                            passed=item.verdict,
                            quote=" … ".join(unescape_quote(q.text) for q in item.all_quotes()),
                            explanation=item.explanation,
                        )
                        for item in sorted(answer.criteria, key=lambda i: i.index)
                    ],
                    contradiction_found=answer.contradiction_found,
                )
                for item in answer.criteria:
                    for quote in item.all_quotes() if item.verdict else []:
                        cited = quote.message
                        if cited is not None and not 1 <= cited <= len(assistant_messages):
                            raise JudgeFailure(f"criterion {item.index}: there is no assistant message {cited}")
                        if cited is not None and (wrong := quote_problem(quote.text, [assistant_messages[cited - 1]])):
                            # the reason itself: it goes back to the model with the retry (`asked_again`)
                            raise JudgeFailure(f"criterion {item.index}, assistant message {cited}: {wrong}")
                validate_judgement(result, len(criteria), assistant_messages, criteria)
                return result
            except JudgeFailure as exc:
                problem = str(exc)
                messages = asked_again(request, output.text, problem)
        raise JudgeFailure(f"{self.name}: invalid output after {self.retries + 1} attempt(s): {problem}")
