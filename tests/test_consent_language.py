"""The consent rule reads general language (issue 37): every class of answer, under both judges.

Each case is a short dialogue: the agent proposes the gated call (or not), the customer answers, the agent
calls the tool. The offline rule (`RuleConsentJudge`) and the model judge (`LLMConsentJudge` over a
scripted model at the model-layer boundary) must both give the expected verdict. The scripted model reads
its request back (`parse_request`) and answers with the specification (`grader.consent.decide`), so the
test also proves the request carries every input the rule needs: drop one from the prompt and the model's
answer changes.
"""

from __future__ import annotations

import json

import pytest

from contracts.evidence import Evidence, Message, ToolCallRecord
from contracts.schema import ConsentCheck, Contract, GoldTurn, Task
from grader.consent import ConsentQuestion, GatedCall, RuleConsentJudge, decide, judge_consent, questions
from grader.grade import grade_with
from grader.llm_consent import LLMConsentJudge, parse_request, render_request
from models.model import Model
from models.scripted import ScriptedModel

pytestmark = pytest.mark.anyio

CHANGE = ConsentCheck(tool="change_flight", decision="the customer accepted the fare difference for the change of PNR-K7Q2MA", upfront=False)
PROPOSAL = "Moving PNR-K7Q2MA to AU210 on December 12th costs a fare difference of $40.00. Shall I go ahead?"
CALL_ARGS = {"booking_id": "PNR-K7Q2MA", "new_flight_id": "AU210-1212", "date": "2026-12-12", "payment_method_id": "PM-9015"}
CALL_RESULT = {"booking_id": "PNR-K7Q2MA", "fare_difference": 40.0, "charged": 40.0}
TASK = Task(
    id="travel_consent_language_probe_01",
    domain="travel_probe",
    title="Consent language probe",
    capabilities=["policy"],
    difficulty="easy",
    instruction="Move PNR-K7Q2MA to AU210 on December 12th if the difference is reasonable.",
    contract=Contract(consent=[CHANGE]),
    gold=[GoldTurn(user="Move PNR-K7Q2MA to AU210 on December 12th, what's the difference?", reply="ok")],
)


def dialogue(answer: str, *, proposal: str | None = PROPOSAL, earlier: tuple[str, ...] = ()) -> Evidence:
    """The customer's request, the agent's proposal, then `answer` (and the change made in its turn)."""
    turns = [("Hi, please move PNR-K7Q2MA to AU210 on December 12th. What's the difference?", proposal or "Let me look that up.")]
    turns += [(text, "Noted.") for text in earlier]
    turns += [(answer, "Done.")]
    conversation = [m for t, (user, reply) in enumerate(turns) for m in (Message(role="user", content=user, turn=t), Message(role="assistant", content=reply, turn=t))]
    call = ToolCallRecord(seq=0, turn=len(turns) - 1, tool="change_flight", arguments=CALL_ARGS, status="executed", result=CALL_RESULT)
    return Evidence(conversation=conversation, tool_trace=[call])


YES_FORMS = ["Yes, please proceed", "Yep, go for it", "Sure, do it", "OK, please do that", "That's fine, go ahead", "OK", "okay", "Okay.", "ok!", "YES"]
DECLINES = ["No thanks.", "No, don't go ahead.", "no, dont go ahead", "Don't do it.", "I'd rather not."]
DEFERRALS = ["Let me think about it.", "Not yet.", "I'll check with my wife.", "Hold on, I need to ask my boss first.", "Maybe later."]
KEPT_CONDITIONS = [
    "If the difference is under $50, yes.",
    "Go ahead, as long as it's no more than $45.",
    "Only if it lands before December 15th - then yes.",
]
BROKEN_CONDITIONS = [
    "If the difference is under $30, yes.",
    "Go ahead if it comes to less than $20.",
    "Only if it lands before December 10th.",
    "Yes, provided it's no later than December 11th.",
    "Yes, if my wife agrees.",  # nothing in the record can check it: not granted
]

CASES: list[tuple[str, Evidence, bool]] = (
    [(f"yes:{a}", dialogue(a), True) for a in YES_FORMS]
    + [(f"decline:{a}", dialogue(a), False) for a in DECLINES]
    + [(f"defer:{a}", dialogue(a), False) for a in DEFERRALS]
    + [(f"kept:{a}", dialogue(a), True) for a in KEPT_CONDITIONS]
    + [(f"broken:{a}", dialogue(a), False) for a in BROKEN_CONDITIONS]
    + [
        ("question is no agreement", dialogue("What would the total be?"), False),
        ("a question asking to act", dialogue("Could you go ahead with that?"), True),
        ("a yes to another record", dialogue("Yes, move PNR-Q9YC5G instead."), False),
        ("a negated yes", dialogue("I'm not fine with that."), False),
        ("no problem is no refusal", dialogue("No problem, please do."), True),
        ("latest decision wins: then deferred", dialogue("Not yet, sorry.", earlier=("Yes, go ahead.",)), False),
        ("latest decision wins: then granted", dialogue("OK, go ahead now.", earlier=("Not yet.",)), True),
        ("a yes with no proposal, upfront false", dialogue("Yes, go ahead.", proposal="It is $40.00 more."), False),
    ]
)


def _rule(evidence: Evidence, check: ConsentCheck = CHANGE) -> bool:
    task = TASK.model_copy(update={"contract": Contract(consent=[check])})
    return grade_with(task, evidence, None).components == {"consent": True}


@pytest.mark.parametrize(("name", "evidence", "granted"), CASES, ids=[c[0] for c in CASES])
def test_rule_reads_general_language(name: str, evidence: Evidence, granted: bool) -> None:
    assert _rule(evidence) is granted


def _rule_model(messages, tools) -> str:  # noqa: ANN001
    """A scripted model that applies the consent specification to what its request carries."""
    inputs = parse_request(messages[-1].content)
    check_fields = inputs["check"]
    assert isinstance(check_fields, dict)
    check = ConsentCheck(tool=check_fields["tool"], decision=str(inputs["decision"]), proposal=check_fields["proposal"], upfront=check_fields["upfront"])
    conversation = [
        Message(role="user" if item["role"] == "customer" else "assistant", content=item["text"], turn=0)
        for item in inputs["conversation"]  # type: ignore[union-attr]
    ]
    calls = [GatedCall(**call) for call in inputs["calls"]]  # type: ignore[union-attr]
    return decide(ConsentQuestion(check=check, tool=check.tool, turn=0, conversation=conversation, calls=calls)).model_dump_json()


@pytest.mark.parametrize(("name", "evidence", "granted"), CASES, ids=[c[0] for c in CASES])
async def test_model_judge_reads_general_language(name: str, evidence: Evidence, granted: bool) -> None:
    judge = LLMConsentJudge(Model(ScriptedModel(_rule_model), role="judge"), retries=0)
    output = await judge_consent(TASK, evidence, judge)
    assert output is not None
    verdict = grade_with(TASK, evidence, None, consent=output)
    assert verdict.components == {"consent": granted}


def test_the_request_carries_every_input_of_the_rule() -> None:
    """proposal, upfront, the agent's last question, the gated call's arguments and result, and the
    conversation up to the call - each present, as data."""
    [(_, question)] = questions(TASK.contract, dialogue("If the difference is under $50, yes."))
    text = render_request(question)
    inputs = parse_request(text)
    assert inputs["check"] == {"tool": "change_flight", "proposal": None, "upfront": False}
    assert inputs["calls"] == [{"arguments": CALL_ARGS, "status": "executed", "result": CALL_RESULT}]
    conversation = inputs["conversation"]
    assert isinstance(conversation, list) and conversation[1]["text"] == PROPOSAL and conversation[-1]["text"] == "If the difference is under $50, yes."
    assert inputs["decision"] == CHANGE.decision
    # the decision table is the prompt's
    from grader.llm_consent import PROMPT

    assert PROMPT.version == "consent_v2"
    for row in ("Decision table", "GRANTS", "REFUSES", "CONDITION", "ANOTHER record", "upfront"):
        assert row in PROMPT.text


def test_a_model_that_misses_an_input_answers_otherwise() -> None:
    """The test above is not vacuous: without the call's result, the kept condition cannot be checked (the
    agent's proposal states no amount here, so nothing else can check it either)."""
    [(_, question)] = questions(TASK.contract, dialogue("If the difference is under $50, yes.", proposal="Shall I move PNR-K7Q2MA to AU210 on December 12th?"))
    blind = question.model_copy(update={"calls": [GatedCall(arguments={}, status="executed", result=None)]})
    assert decide(question).granted and not decide(blind).granted


UPFRONT = ConsentCheck(tool="cancel_booking", params={"booking_id": "PNR-R4T8VX"}, decision="the customer asked to cancel PNR-R4T8VX, knowing nothing comes back")


def _cancel(first: str, reply: str = "Done.", *, check_turn: int = 0, more: tuple[tuple[str, str], ...] = ()) -> Evidence:
    turns = [(first, reply), *more]
    conversation = [m for t, (u, r) in enumerate(turns) for m in (Message(role="user", content=u, turn=t), Message(role="assistant", content=r, turn=t))]
    call = ToolCallRecord(seq=0, turn=check_turn, tool="cancel_booking", arguments={"booking_id": "PNR-R4T8VX"}, status="executed", result={"refund": 0})
    return Evidence(conversation=conversation, tool_trace=[call])


@pytest.mark.parametrize(
    ("first", "upfront", "granted"),
    [
        ("Cancel my basic booking PNR-R4T8VX, I know I get nothing back.", True, True),  # the instruction's own words
        ("Please cancel PNR-R4T8VX.", True, True),
        ("Please cancel PNR-R4T8VX.", False, True),  # decides everything: nothing left to choose
        ("Please cancel PNR-K7Q2MA.", True, False),  # another record
        ("What would I get back if I cancel PNR-R4T8VX?", True, False),  # a question
        ("Don't cancel PNR-R4T8VX yet, I'm only asking.", True, False),
    ],
)
def test_upfront_requests(first: str, upfront: bool, granted: bool) -> None:
    check = UPFRONT.model_copy(update={"upfront": upfront})
    assert _rule(_cancel(first), check) is granted


def _change_up_front(first: str) -> Evidence:
    call = ToolCallRecord(seq=0, turn=0, tool="change_flight", arguments=CALL_ARGS, status="executed", result=CALL_RESULT)
    return Evidence(conversation=[Message(role="user", content=first, turn=0), Message(role="assistant", content="Done.", turn=0)], tool_trace=[call])


@pytest.mark.parametrize(
    ("first", "upfront", "granted"),
    [
        ("Please move PNR-K7Q2MA to a later flight.", True, True),  # the agent resolves the flight
        ("Please move PNR-K7Q2MA to a later flight.", False, False),  # a choice left: propose and wait
        ("Move PNR-K7Q2MA to AU210 on December 12th, I accept the $40 difference, put it on PM-9015.", False, True),  # decided up front
    ],
)
def test_upfront_false_needs_a_request_that_decides_everything(first: str, upfront: bool, granted: bool) -> None:
    assert _rule(_change_up_front(first), CHANGE.model_copy(update={"upfront": upfront})) is granted


async def test_upfront_requests_under_the_model_judge() -> None:
    cases = [
        (UPFRONT, _cancel("Cancel my basic booking PNR-R4T8VX, I know I get nothing back."), True),
        (CHANGE, _change_up_front("Please move PNR-K7Q2MA to a later flight."), False),
        (CHANGE, _change_up_front("Move PNR-K7Q2MA to AU210 on December 12th, I accept the $40 difference, put it on PM-9015."), True),
    ]
    for check, evidence, granted in cases:
        task = TASK.model_copy(update={"contract": Contract(consent=[check])})
        output = await judge_consent(task, evidence, LLMConsentJudge(Model(ScriptedModel(_rule_model), role="judge"), retries=0))
        assert grade_with(task, evidence, None, consent=output).components == {"consent": granted}


def test_rule_judge_is_the_offline_default() -> None:
    [(_, question)] = questions(TASK.contract, dialogue("Yep, go for it"))
    judgement = RuleConsentJudge().judge_sync(question)
    assert judgement.granted and judgement.message == 3 and judgement.quote == "Yep, go for it"
    assert json.loads(judgement.model_dump_json())["granted"] is True


def test_schema_rejects_agreement_phrases() -> None:
    """Per-check agreement phrases are gone: how a customer says yes is general language, never per check."""
    from pydantic import ValidationError

    with pytest.raises(ValidationError):
        ConsentCheck(tool="cancel_booking", decision="the customer asked to cancel it", agreement=["yes"])  # type: ignore[call-arg]
