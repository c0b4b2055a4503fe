"""The `consent` check family (issues 30, 37): a gated write passes only after the customer granted the
decision (an answer to the agent's proposal, or an up-front request that decides everything), read from
general language, under both consent judges (the offline rule and the model judge, here a scripted model
that answers from the same specification)."""

from __future__ import annotations

import json

import pytest

from contracts.evidence import Evidence, Message, ToolCallRecord
from contracts.schema import ConsentCheck, Contract, GoldTurn, Task
from grader.consent import RuleConsentJudge, classify, consent_verdicts, judge_consent, questions, rule_consent
from grader.grade import JudgeFailure, grade_offline, grade_with
from grader.llm_consent import LLMConsentJudge, render_request
from models.model import Model
from models.scripted import ScriptedModel

pytestmark = pytest.mark.anyio

CHECK = ConsentCheck(
    tool="cancel_booking",
    params={"booking_id": "BK-1001"},
    decision="the customer agreed to cancel BK-1001 for travel credit after hearing the $75 fee",
    proposal=[["$75", "75.00"], ["travel credit"]],
)
TASK = Task(
    id="travel_consent_probe_01",
    domain="travel",
    title="Consent probe",
    capabilities=["policy"],
    difficulty="easy",
    instruction="You want to cancel booking BK-1001. Accept the fee if it is $75. Stop when it is cancelled.",
    contract=Contract(consent=[CHECK]),
    gold=[GoldTurn(user="Cancel BK-1001 please.", reply="ok")],
)
QUOTE = "Cancelling BK-1001 costs a $75 fee and you get travel credit. Shall I go ahead?"


def _call(turn: int, status: str = "executed", booking: str = "BK-1001") -> ToolCallRecord:
    return ToolCallRecord(seq=turn, turn=turn, tool="cancel_booking", arguments={"booking_id": booking}, status=status)  # type: ignore[arg-type]


def _ev(turns: list[tuple[str, str]], calls: list[ToolCallRecord]) -> Evidence:
    conversation = []
    for turn, (user, reply) in enumerate(turns):
        conversation += [Message(role="user", content=user, turn=turn), Message(role="assistant", content=reply, turn=turn)]
    return Evidence(conversation=conversation, tool_trace=calls)


ACTED_BEFORE_ASKED = _ev([("I want to cancel BK-1001.", "Done, BK-1001 is cancelled.")], [_call(0)])
ASKED_THEN_AGREED = _ev([("I want to cancel BK-1001.", QUOTE), ("Yes, go ahead.", "Cancelled.")], [_call(1)])
UPFRONT = _ev([("Cancel BK-1001 for travel credit, I accept the $75 fee, go ahead.", "Cancelled.")], [_call(0)])
DECLINED_THEN_ACTED = _ev([("I want to cancel BK-1001.", QUOTE), ("No, don't do that.", "Cancelled anyway.")], [_call(1)])
REFUSED_BEFORE_ASKED = _ev([("I want to cancel BK-1001.", "The system refused.")], [_call(0, "refused")])

CASES = [
    ("acted_before_asked", ACTED_BEFORE_ASKED, False),
    ("asked_then_agreed", ASKED_THEN_AGREED, True),
    ("authorised_up_front", UPFRONT, True),
    ("declined_then_acted", DECLINED_THEN_ACTED, False),
    ("refused_attempt_before_asked", REFUSED_BEFORE_ASKED, False),
]


_POLICY = {"refused_attempt_before_asked": {"forbidden": False}}
"""The travel policy fails a refused write on its own (grader/refusals.py), whatever consent says."""


@pytest.mark.parametrize(("name", "evidence", "passes"), CASES, ids=[c[0] for c in CASES])
def test_rule_judge(name: str, evidence: Evidence, passes: bool) -> None:
    verdict = grade_offline(TASK, evidence)
    assert verdict.components == {"consent": passes, **_POLICY.get(name, {})}, verdict.summary()
    if not passes:
        assert verdict.primary_failure == ("forbidden" if name in _POLICY else "consent")


# What a model answers for each case, with a quote copied from the customer's message.
LLM_ANSWERS = {
    "acted_before_asked": {"granted": False, "declined": False, "message": None, "quote": "", "explanation": "only a request, no agreement to the fee"},
    "asked_then_agreed": {"granted": True, "message": 3, "quote": "Yes, go ahead.", "explanation": "agreed after hearing the fee"},
    "authorised_up_front": {"granted": True, "message": 1, "quote": "I accept the $75 fee", "explanation": "authorised up front"},
    "declined_then_acted": {"granted": False, "declined": True, "message": 3, "quote": "No, don't do that.", "explanation": "declined"},
    "refused_attempt_before_asked": {"granted": False, "message": None, "quote": "", "explanation": "no agreement"},
}


def _llm(answers: list[str]) -> tuple[LLMConsentJudge, ScriptedModel]:
    api = ScriptedModel(answers)
    return LLMConsentJudge(Model(api, role="judge"), retries=1), api


@pytest.mark.parametrize(("name", "evidence", "passes"), CASES, ids=[c[0] for c in CASES])
async def test_llm_judge(name: str, evidence: Evidence, passes: bool) -> None:
    judge, api = _llm([json.dumps(LLM_ANSWERS[name])])
    output = await judge_consent(TASK, evidence, judge)
    assert output is not None and output.judge.startswith("llm-consent:")
    verdict = grade_with(TASK, evidence, None, consent=output)
    assert verdict.components == {"consent": passes, **_POLICY.get(name, {})}
    request = api.requests[0][0][-1].content  # type: ignore[attr-defined]
    assert "BK-1001" in request and "cancel_booking" in request and '"upfront": true' in request and "travel credit" in request
    # The judge sees the conversation up to the call: never the agent's reply of the call's turn.
    after = [m.content for m in evidence.conversation if m.role == "assistant" and m.turn >= evidence.tool_trace[0].turn]
    assert all(json.dumps(a)[1:-1] not in request for a in after)


async def test_llm_judge_fabricated_quote_is_a_judge_failure() -> None:
    bad = json.dumps({"granted": True, "message": 3, "quote": "Yes, cancel it and waive the fee.", "explanation": "x"})
    judge, _ = _llm([bad, bad])
    with pytest.raises(JudgeFailure, match="invalid output after 2"):
        await judge_consent(TASK, ASKED_THEN_AGREED, judge)


async def test_llm_judge_must_cite_a_customer_message() -> None:
    bad = json.dumps({"granted": True, "message": 2, "quote": "Shall I go ahead?", "explanation": "x"})
    good = json.dumps(LLM_ANSWERS["asked_then_agreed"])
    judge, api = _llm([bad, good])
    output = await judge_consent(TASK, ASKED_THEN_AGREED, judge)
    assert output is not None and output.items[0].judgement.granted and len(api.requests) == 2  # type: ignore[attr-defined]
    retry = api.requests[1][0]  # type: ignore[attr-defined]
    assert retry[:2] == api.requests[0][0] and retry[2].content == bad  # type: ignore[attr-defined]
    assert "That answer is invalid" in retry[3].content and "not a customer message" in retry[3].content


def test_request_is_data_and_ends_at_the_call() -> None:
    [(_, question)] = questions(TASK.contract, ASKED_THEN_AGREED)
    text = render_request(question)
    body = text.split('<conversation_json untrusted="true">\n', 1)[1].rsplit("\n</conversation_json>", 1)[0]
    items = json.loads(body)
    assert [i["role"] for i in items] == ["customer", "assistant", "customer"] and items[-1]["text"] == "Yes, go ahead."
    assert "right after message 3" in text


@pytest.mark.parametrize(
    ("message", "previous", "kind"),
    [
        ("Yes, go ahead.", QUOTE, "agree"),
        ("Don't go ahead yet, I need to think.", QUOTE, "decline"),
        ("No, don't.", QUOTE, "decline"),
        ("Not yet.", QUOTE, "decline"),
        ("No problem, please do.", QUOTE, "agree"),
        ("Before you go ahead, what is the fee?", None, None),
        ("No, I don't have the booking number.", "What is your booking number?", None),
        ("What would the total be?", None, None),
        ("Wait until I confirm with my wife.", QUOTE, "decline"),
    ],
)
def test_classify_is_negation_aware(message: str, previous: str | None, kind: str | None) -> None:
    """`classify`: 'agree', or 'decline' for any refusal of the proposal (a decline or a deferral), or None."""
    assert classify(CHECK, message, previous) == kind


def test_a_request_before_the_terms_fails_without_upfront() -> None:
    """With `upfront: false` a request grants only when it decides everything, the terms included: "Cancel
    BK-1001." before hearing the fee does not; naming the terms does; answering the proposal does."""
    strict = CHECK.model_copy(update={"upfront": False})
    task = TASK.model_copy(update={"contract": Contract(consent=[strict])})
    early = _ev([("Cancel BK-1001.", "Cancelled.")], [_call(0)])
    assert grade_offline(task, early).components == {"consent": False}
    named = _ev([("Cancel BK-1001 for travel credit, I accept the $75 fee.", "Cancelled.")], [_call(0)])
    assert grade_offline(task, named).components == {"consent": True}
    assert grade_offline(task, ASKED_THEN_AGREED).components == {"consent": True}


def test_params_narrow_the_gated_calls_and_no_call_passes() -> None:
    other = _ev([("Cancel BK-2002.", "Done.")], [_call(0, booking="BK-2002")])
    assert grade_offline(TASK, other).components == {"consent": True}
    assert grade_offline(TASK, _ev([("hi", "hello")], [])).components == {"consent": True}


def test_every_turn_of_a_gated_call_is_judged() -> None:
    # Agreed for the first call, then a second call after the customer declined: fails.
    ev = _ev([("Cancel BK-1001.", QUOTE), ("Yes, go ahead.", "Cancelled."), ("Please don't go ahead with anything else.", "Cancelled again.")], [_call(1), _call(2)])
    output = rule_consent(TASK.contract, ev)
    assert [i.turn for i in output.items] == [1, 2]
    [verdict] = consent_verdicts(TASK.contract, ev, output)
    assert not verdict.passed and "turn 2" in verdict.reason
    assert RuleConsentJudge.name == output.judge


async def test_a_failing_consent_judge_leaves_the_trial_ungraded_not_passed(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Online, the LLM consent judge decides; an answer that cannot be validated after retries makes the
    trial ungraded (counted as a non-pass), exactly as a failing reply judge does."""
    from rich.console import Console

    from harness.runner.components import TrialComponents
    from harness.runner.config import RunConfig
    from harness.runner.plan import Plan
    from harness.runner.run import execute_run

    def judge(messages, tools):  # noqa: ANN001
        content = messages[1].content
        if "<conversation_json" in content:  # consent: cites the assistant's message, which is invalid
            return json.dumps({"granted": True, "message": 2, "quote": "Insufficient funds", "explanation": "x"})
        transcript = json.loads(content.split('<transcript_json untrusted="true">\n', 1)[1].split("\n</transcript_json>", 1)[0])
        n = content.count("\n", content.index("<criteria>"), content.index("</criteria>")) - 1
        items = [{"index": i + 1, "verdict": True, "message": 1, "evidence": transcript[0].split("\n")[0], "explanation": "ok"} for i in range(n)]
        return json.dumps({"criteria": items, "contradiction_found": False})

    task = "payments_transfer_insufficient_then_retry_01"
    plan = Plan(agent="oracle", user="scripted", judge="llm", judge_model="mock:judge", offline=False)
    config = RunConfig(out=tmp_path / "run", task=[task], judge="llm", infra_retries=0)
    quiet = Console(file=open("/dev/null", "w"), force_terminal=False)  # noqa: SIM115
    result = await execute_run(config, console=quiet, components=TrialComponents(config, plan, apis={"judge": ScriptedModel(judge)}))
    [record] = result.records
    assert record.status == "scored" and record.strict is False and record.failure_class == "ungraded:judge"
    assert "consent judge" in (record.ungraded or "")
    assert any(c.component == "consent" and c.judge == "ungraded" and not c.passed for c in record.verdict.checks)  # type: ignore[union-attr]


def test_the_premature_mutation_moves_the_gated_call_before_the_decision() -> None:
    from contracts import catalog as cat
    from harness.release.mutations import generic_mutations
    from servers.registry import environment_class

    task = cat.load_catalog(cat.TASKS_DIR)["payments_transfer_daily_limit_01"]
    [mutation] = [m for m in generic_mutations(task, environment_class("payments")) if "before the customer decided" in m.name]
    assert [c.tool for c in mutation.turns[0].calls][-2:] == ["validate_transfer", "execute_transfer"]
    assert all(c.tool != "execute_transfer" for c in mutation.turns[1].calls)


def test_simulator_v2_is_the_default_and_recorded() -> None:
    from harness.manifest import build_manifest
    from harness.runner.components import TrialComponents
    from harness.runner.config import RunConfig
    from harness.runner.plan import Plan
    from models.prices import PriceTable
    from simulator.llm_user import PROMPT

    assert PROMPT.version == "user_v2" and RunConfig().user_prompt == "user_v2"
    for name in ("user_v1", "user_v2"):
        config = RunConfig(user="llm", user_prompt=name)  # type: ignore[arg-type]
        plan = Plan(agent="oracle", user="llm", user_model="mock:user", judge="evidence", offline=False)
        manifest = build_manifest(config, plan, PriceTable(models={}), ["t"])
        assert manifest["simulator"]["prompt"].startswith(name + ":") and manifest["simulator"]["prompt_version"] == name
        assert manifest["judge"]["consent_prompt"].startswith("consent_v2:")
        user = TrialComponents(config, plan, apis={"user": ScriptedModel(["hi"])}).user(TASK, __import__("models.model", fromlist=["UsageLedger"]).UsageLedger())
        assert user.prompt.version == name  # type: ignore[attr-defined]
        text = user.prompt.text.format(instruction="I", stop_token="###STOP###")  # type: ignore[attr-defined]
        assert "###STOP###" in text


async def test_gold_paths_pass_the_llm_consent_judge_through_the_model_driven_runtime(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Every payments consent task, played by the model-driven runtime (graph agent, LLM user, LLM judge
    and LLM consent judge, all scripted from the gold path): the consent judge is asked and grants."""
    from rich.console import Console

    from contracts import catalog as cat
    from harness.runner.config import RunConfig
    from harness.runner.gold_models import GoldPlayedModels
    from harness.runner.plan import Plan
    from harness.runner.run import execute_run

    tasks = tuple(t.id for t in cat.load_catalog(cat.TASKS_DIR).values() if t.contract.consent)
    assert len(tasks) >= 12
    plan = Plan(agent="graph", agent_model="mock:gold", router_model="mock:gold", user="llm", user_model="mock:gold", judge="llm", judge_model="mock:gold", offline=True)
    config = RunConfig(out=tmp_path / "run", task=list(tasks), concurrency=8, agent="graph", agent_model="mock:gold")
    result = await execute_run(config, console=Console(quiet=True), components=GoldPlayedModels.of(tasks)(config, plan))
    assert len(result.records) == len(tasks)
    for record in result.records:
        assert record.consent_judgement is not None and record.consent_judgement.judge.startswith("llm-consent:"), record.key
        assert record.verdict is not None and record.verdict.components.get("consent") is True, record.verdict.summary()


async def test_the_consent_judge_answers_checks_bound_to_a_result_reference() -> None:
    """A consent check whose params name a record the trial creates (`${create_case.case_id}`) is asked of the
    judge with the reference resolved, as the grader then reads it: without it the judge asked nothing and the
    gold path itself failed consent with "no consent answer for a gated call" (found by the offline run)."""
    from grader.consent import judge_consent
    from grader.grade import grade_with
    from harness.release.replay import GatewayReplayer
    from servers.gateway import Gateway

    from contracts.catalog import load_catalog

    task = load_catalog()["customer_support_jour_credit_then_close_billing_case_01"]
    assert any("${" in str(c.params) for c in task.contract.consent or [])
    async with GatewayReplayer(Gateway([task.domain])) as replayer:
        evidence = await replayer.play(task, task.gold)
    answers = await judge_consent(task, evidence)
    assert answers is not None and answers.items
    assert grade_with(task, evidence, None, consent=answers).components.get("consent") is True
