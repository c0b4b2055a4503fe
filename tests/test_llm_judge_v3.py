"""The LLM judge's judge_v3 contract (issue 23): quotes may come from several messages, each a real span of
a few words that states the fact; the older one-quote answer shape is still read."""

from __future__ import annotations

import json

import pytest

from contracts.schema import ReplyCriterion
from grader.grade import JudgeFailure
from grader.llm_judge import PROMPT, LLMJudge
from models.model import Model
from models.scripted import ScriptedModel

pytestmark = pytest.mark.anyio
CRITERIA = [ReplyCriterion(criterion="Confirms the $350 transfer was completed.", evidence=["350", ["completed", "went through"]])]
REPLIES = ["The transfer of $350 to ACC-1001 is ready.", "It went through just now."]


def answer(quotes: list[dict], verdict: bool = True) -> str:
    return json.dumps({"criteria": [{"index": 1, "verdict": verdict, "quotes": quotes, "explanation": "x"}], "contradiction_found": False})


async def run(*outputs: str, retries: int = 0):  # noqa: ANN201
    return await LLMJudge(Model(ScriptedModel(list(outputs)), role="judge"), retries=retries).judge("Send $350.", CRITERIA, REPLIES)


async def test_a_criterion_met_over_two_messages_is_quoted_from_both() -> None:
    output = await run(answer([{"message": 1, "text": "The transfer of $350"}, {"message": 2, "text": "It went through just now."}]))
    assert output.criteria[0].passed and output.criteria[0].quote == "The transfer of $350 … It went through just now."


@pytest.mark.parametrize(
    "quotes",
    [
        [{"message": 1, "text": "transfer"}],  # one word: not a span
        [{"message": 2, "text": "went through"}],  # two words
        [{"message": 2, "text": "It went through just now."}, {"message": 1, "text": "$350"}],  # one part is a fragment
        [{"message": 1, "text": "to ACC-1001 is ready."}],  # a span, but not the fact ($350)
        [{"message": 2, "text": "The transfer of $350"}],  # cites the wrong message
    ],
)
async def test_fragments_wrong_messages_and_quotes_without_the_fact_are_rejected(quotes: list[dict]) -> None:
    with pytest.raises(JudgeFailure):
        await run(answer(quotes))


async def test_a_bad_quote_is_re_judged_and_a_good_second_answer_is_used() -> None:
    output = await run(answer([{"message": 1, "text": "$350"}]), answer([{"message": 1, "text": "The transfer of $350 to ACC-1001"}]), retries=1)
    assert output.criteria[0].passed


async def test_the_older_single_quote_shape_is_still_read() -> None:
    old = json.dumps({"criteria": [{"index": 1, "verdict": True, "message": 1, "evidence": "The transfer of $350", "explanation": "x"}], "contradiction_found": False})
    output = await run(old)
    assert output.criteria[0].quote == "The transfer of $350"


def test_the_prompt_is_judge_v3_and_states_the_contradiction_rules() -> None:
    assert PROMPT.fingerprint.startswith("judge_v3:")
    text = PROMPT.text
    assert "refused and then succeeded" in text and "corrected in a later message" in text and "LAST message" in text
    assert "one quote per message" in text and "at least three words" in text


async def test_a_retry_tells_the_model_what_was_wrong_with_its_answer() -> None:
    """At temperature 0 the same request mostly gets the same answer back: the retry shows the model its invalid
    answer and the reason, and keeps the original request whole (system prompt, request) before them."""
    bad, good = answer([{"message": 1, "text": "$350"}]), answer([{"message": 1, "text": "The transfer of $350 to ACC-1001"}])
    api = ScriptedModel([bad, good])
    output = await LLMJudge(Model(api, role="judge"), retries=2).judge("Send $350.", CRITERIA, REPLIES)
    assert output.criteria[0].passed
    first, retry = api.requests[0][0], api.requests[1][0]
    assert retry[:2] == first and [m.role for m in retry] == ["system", "user", "assistant", "user"]
    assert retry[2].content == bad and "That answer is invalid: criterion 1, assistant message 1: the quote '$350' is not substantive" in retry[3].content


async def test_each_retry_shows_only_the_latest_invalid_answer() -> None:
    bad1, bad2 = answer([{"message": 1, "text": "$350"}]), answer([{"message": 2, "text": "The transfer of $350"}])
    api = ScriptedModel([bad1, bad2, bad2])
    with pytest.raises(JudgeFailure, match="invalid output after 3"):
        await LLMJudge(Model(api, role="judge"), retries=2).judge("Send $350.", CRITERIA, REPLIES)
    assert [len(r[0]) for r in api.requests] == [2, 4, 4] and api.requests[2][0][2].content == bad2


async def test_a_retry_names_the_problem_not_the_judge() -> None:
    """The reason shown to the model carries no judge name, so a retry's request is the same whichever model (or
    recording) answers it: `replay:` recordings stay valid across model names."""
    no_value = answer([{"message": 1, "text": "to ACC-1001 is ready."}])  # true, but the quote states no $350
    for name in ("judge-a", "judge-b"):
        api = ScriptedModel([no_value, no_value, no_value], model=name)
        with pytest.raises(JudgeFailure):
            await LLMJudge(Model(api, role="judge"), retries=1).judge("Send $350.", CRITERIA, REPLIES)
        feedback = api.requests[1][0][3].content
        assert feedback.startswith("That answer is invalid: criterion 1: the quote states none of the criterion's values") and name not in feedback
