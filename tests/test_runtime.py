"""The trial runtime end to end: offline runs, spec appendix D cases A-C, the graph agent, the simulator
and the judge through scripted models, resume and infrastructure failures."""

from __future__ import annotations

import yaml

import json
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from contracts.catalog import get_task
from contracts.evidence import Message
from contracts.schema import ReplyCriterion
from grader.grade import JudgeFailure
from grader.llm_judge import LLMJudge
from harness.rundir import ResumeMismatch
from harness.runner.components import TrialComponents
from harness.runner.config import RunConfig
from harness.runner.plan import Plan, resolve_plan
from harness.runner.run import execute_run
from models.base import ConfigurationError, ModelError
from models.model import Model, RetryPolicy, UsageLedger
from models.scripted import ScriptedModel, calls, text, tool_call
from simulator.llm_user import STOP_TOKEN, LLMUser

pytestmark = pytest.mark.anyio
DATA = Path(__file__).parent / "data"
QUIET = Console(file=open("/dev/null", "w"), force_terminal=False)  # noqa: SIM115


def run(tmp_path: Path, **kwargs: Any):
    config = RunConfig(out=tmp_path / "run", **kwargs)
    return execute_run(config, console=QUIET)


def only(result, task_id: str):
    [record] = [r for r in result.records if r.key.task_id == task_id]
    return record


# ---- offline runs ------------------------------------------------------------------------------


async def test_offline_run_without_key_is_oracle_and_passes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    result = await run(tmp_path, domain=["payments"], difficulty=["easy"])
    assert result.plan.agent == "oracle" and result.plan.user == "scripted" and result.plan.judge == "evidence"
    assert any("offline run" in n for n in result.notes)
    assert result.records and all(r.strict for r in result.records)
    manifest = json.loads((result.directory / "manifest.json").read_text())
    for field in ("dataset_version", "dataset_lock_sha256", "git", "packages", "config_hash", "simulator", "judge", "price_table", "limits"):
        assert field in manifest
    assert manifest["limits"] == {"max_turns": 30, "task_timeout_s": 1200.0, "max_iterations": 10}
    traces = json.loads((result.directory / "payments" / "traces.json").read_text())
    assert len(traces) == len(result.records) and traces[0]["tool_trace"]
    assert "| **all** |" in (result.directory / "results.md").read_text()


async def test_noop_agent_fails_every_task_that_needs_an_effect(tmp_path: Path) -> None:
    result = await run(tmp_path, domain=["payments"], agent="noop", offline=True)
    assert len(result.records) == 73
    assert not any(r.strict for r in result.records)
    assert all(r.tool_trace == [] for r in result.records)


# ---- spec appendix D ---------------------------------------------------------------------------


async def test_case_a_refusal_then_fifty_passes_strictly(tmp_path: Path) -> None:
    result = await run(tmp_path, agent="script", script=DATA / "case_a.yaml", task=["payments_transfer_insufficient_then_retry_01"])
    record = only(result, "payments_transfer_insufficient_then_retry_01")
    assert record.strict, record.verdict.summary()
    assert [c.tool for c in record.tool_trace] == ["get_account_balance", "validate_transfer", "validate_transfer", "execute_transfer"]
    assert record.tool_trace[1].result["reason"] == "Insufficient funds" and record.tool_trace[1].result["status"] == 422
    assert record.final_state["accounts"]["ACC-1002"]["balance"] == 130.0
    assert record.final_state["accounts"]["ACC-1001"]["balance"] == 2500.75
    assert record.tool_trace[-1].result["transfer_id"].startswith("XFER-")


async def test_case_b_repeated_checkout_fails_state_only(tmp_path: Path) -> None:
    result = await run(tmp_path, agent="script", script=DATA / "case_b.yaml", task=["payments_checkout_full_chain_02"])
    record = only(result, "payments_checkout_full_chain_02")
    verdict = record.verdict
    assert not record.strict and record.failure_class is None
    assert verdict.components == {"action": True, "params": True, "order": True, "state": False, "reply": True, "collateral": True}
    assert verdict.primary_failure == "state"
    assert "accounts.ACC-1002.loyalty_points: expected 155, got 310" in [c.diff for c in verdict.failures()]
    assert len([c for c in record.tool_trace if c.tool == "process_payment"]) == 2


async def test_case_c_credential_loop_is_model_attributable_non_convergence(tmp_path: Path) -> None:
    result = await run(tmp_path, agent="script", script=DATA / "case_c.yaml", task=["commerce_returns_01"], max_turns=19)
    record = only(result, "commerce_returns_01")
    assert record.status == "scored" and record.strict is False
    assert record.failure_class == "model:non_convergence" and "user-turn limit (19)" in record.error
    assert record.user_turns == 19
    auth = [c for c in record.tool_trace if c.tool == "authenticate_customer"]
    assert len(auth) == 18 and all(c.status == "refused" and c.result["status"] == 403 for c in auth)
    status = [c for c in record.tool_trace if c.tool == "get_order_status"]
    assert status[0].result["status"] == "Delivered"
    # the get_order_status evidence is still credited; the reply never reported it
    # issue 24: the order id is bound on the action entry (so get_order_details or list_customer_orders may answer),
    # and unrequested writes are forbidden; the spec's case C still passes action (with its arguments) and fails reply
    # the same rejected PIN sent 18 times also breaks the retail policy (a refused call is never repeated
    # unchanged; grader/refusals.py): `forbidden` fails on the policy's checks, the contract's own pass
    assert record.verdict.components == {"action": True, "forbidden": False, "reply": False}
    assert {c.check.split(" @")[0] for c in record.verdict.failures() if c.component == "forbidden"} == {"policy retail: repeated authenticate_customer"}
    assert record.verdict.primary_failure == "non_convergence"


async def test_hallucinated_tool_of_a_script_agent_scores_zero_from_the_gateway_record(tmp_path: Path) -> None:
    """Not only the reference agent: whatever the agent reports, the gateway's record decides."""
    task = "payments_checkout_full_chain_02"
    gold = get_task(task).gold[0]
    calls = [{"tool": c.tool, "args": c.args} for c in gold.calls]
    script = {"tasks": {task: [{"user": gold.user, "calls": [{"tool": "issue_gift_card", "args": {"amount": 5}}, *calls], "reply": gold.reply}]}}
    path = tmp_path / "hallucinating.yaml"
    path.write_text(yaml.safe_dump(script))
    result = await run(tmp_path / "run", agent="script", script=path, task=[task])
    record = only(result, task)
    assert record.status == "scored" and record.strict is False
    assert record.failure_class == "model:hallucinated_tool"
    assert record.tool_trace[0].status == "unknown_tool"
    assert all(record.verdict.components.values())  # every declared check passed; the made-up tool alone scores 0


# ---- graph agent, simulator and judge through scripted models ---------------------------------


def _plan(**kw: Any) -> Plan:
    base = {"agent": "graph", "agent_model": "mock:agent", "router_model": "mock:router", "user": "scripted", "judge": "evidence", "offline": False}
    return Plan(**{**base, **kw})


def _components(config: RunConfig, plan: Plan, **apis: Any) -> TrialComponents:
    return TrialComponents(config, plan, apis=apis)


async def test_graph_agent_routes_filters_tools_and_passes(tmp_path: Path) -> None:
    router = ScriptedModel([tool_call("route", node="transfer", reason="transfer request"), tool_call("route", node="transfer")])
    agent = ScriptedModel(
        [
            tool_call("get_account_balance", account_id="ACC-1002"),
            tool_call("validate_transfer", source_account_id="ACC-1002", destination_account_id="ACC-1001", amount=1000),
            text("Sorry, that can't be done: Insufficient funds (422). Your balance is $180.00."),
            calls(
                ("validate_transfer", {"source_account_id": "ACC-1002", "destination_account_id": "ACC-1001", "amount": 50}),
                ("execute_transfer", {"source_account_id": "ACC-1002", "destination_account_id": "ACC-1001", "amount": 50}),
            ),
            text("Done: $50 was transferred and the transfer is completed."),
        ]
    )
    config = RunConfig(out=tmp_path / "run", task=["payments_transfer_insufficient_then_retry_01"], agent="graph", agent_model="mock:agent")
    result = await execute_run(config, console=QUIET, components=_components(config, _plan(), agent=agent, router=router))
    record = only(result, "payments_transfer_insufficient_then_retry_01")
    assert record.strict, record.verdict.summary()
    assert [(r.turn, r.node) for r in record.routing] == [(0, "transfer"), (1, "transfer")]
    # the node's model saw only the transfer node's tools; the router was forced to call `route`
    _, tools, _ = agent.requests[0]
    assert sorted(t.name for t in tools) == ["execute_transfer", "get_account_balance", "validate_transfer"]
    assert router.requests[0][2].tool_choice == "route"
    assert record.usage["agent"].calls == 5 and record.usage["router"].calls == 2


async def test_graph_agent_hallucinated_tool_is_blocked_and_fails(tmp_path: Path) -> None:
    router = ScriptedModel([tool_call("route", node="balance_inquiry")])
    agent = ScriptedModel(
        [
            tool_call("process_payment", account_id="ACC-1005", amount=200, method="card"),
            tool_call("get_account_balance", account_id="ACC-1005"),
            text("Your balance is $640.20 with 310 loyalty points."),
        ]
    )
    config = RunConfig(out=tmp_path / "run", task=["payments_balance_inquiry_01"], agent="graph", agent_model="mock:agent")
    result = await execute_run(config, console=QUIET, components=_components(config, _plan(), agent=agent, router=router))
    record = only(result, "payments_balance_inquiry_01")
    assert record.tool_trace[0].tool == "process_payment" and record.tool_trace[0].status == "blocked"
    assert record.hallucinated_tools == ["process_payment"]
    assert record.failure_class == "model:hallucinated_tool" and not record.strict
    assert record.final_state["payments"].keys() == get_initial_payments()
    # the blocked attempt of a forbidden tool still fails the forbidden check
    assert record.verdict.components["forbidden"] is False


def get_initial_payments() -> set[str]:
    from servers.domains.payments.tools import PaymentsEnvironment

    return set(PaymentsEnvironment.default_state().payments)


async def test_graph_agent_unsafe_label_gives_deterministic_refusal(tmp_path: Path) -> None:
    router = ScriptedModel([tool_call("route", node="unsafe")])
    config = RunConfig(out=tmp_path / "run", task=["payments_balance_inquiry_01"], agent="graph", agent_model="mock:agent")
    result = await execute_run(config, console=QUIET, components=_components(config, _plan(), agent=ScriptedModel([]), router=router))
    record = only(result, "payments_balance_inquiry_01")
    assert record.conversation[1].content == "I'm sorry, but I can't help with that request."
    assert record.tool_trace == [] and not record.strict


async def test_iteration_limit_stops_the_node(tmp_path: Path) -> None:
    router = ScriptedModel([tool_call("route", node="balance_inquiry")])
    agent = ScriptedModel(lambda messages, tools: tool_call("get_account_balance", account_id="ACC-1005"))
    config = RunConfig(out=tmp_path / "run", task=["payments_balance_inquiry_01"], agent="graph", agent_model="mock:agent", max_iterations=3)
    result = await execute_run(config, console=QUIET, components=_components(config, _plan(), agent=agent, router=router))
    record = only(result, "payments_balance_inquiry_01")
    assert len(record.tool_trace) == 3 and len(agent.requests) == 3


async def test_llm_user_sees_only_visible_dialogue_and_stops() -> None:
    model = Model(ScriptedModel(["Hi, what's my balance on ACC-1005?", STOP_TOKEN]), role="user")
    user = LLMUser(model, "You are Aisha, account ACC-1005. Ask for your balance; stop when you have it.")
    first = await user.next_message([])
    assert first == "Hi, what's my balance on ACC-1005?"
    conversation = [Message(role="user", content=first, turn=0), Message(role="assistant", content="It's $640.20.", turn=0)]
    assert await user.next_message(conversation) is None
    messages = model.api.requests[1][0]
    assert messages[0].role == "system" and "ACC-1005" in messages[0].content
    assert [m.role for m in messages[1:]] == ["assistant", "user"]  # mirrored roles, no tools anywhere
    assert model.api.requests[1][1] == []


async def test_llm_user_answers_a_pending_question_before_stopping() -> None:
    model = Model(ScriptedModel([STOP_TOKEN, "Yes, go ahead."]), role="user")
    user = LLMUser(model, "You are Daniel. Transfer $50 to ACC-1001; confirm if asked; stop when done.")
    conversation = [Message(role="user", content="Send $50 to ACC-1001", turn=0), Message(role="assistant", content="Shall I proceed with the $50 transfer?", turn=0)]
    assert await user.next_message(conversation) == "Yes, go ahead."
    assert "waiting for you" in model.api.requests[1][0][-1].content


CRITERIA = [ReplyCriterion(criterion="States the balance of $640.20", evidence=["640.20"])]


async def test_llm_judge_validates_and_rejudges_only() -> None:
    good = json.dumps({"criteria": [{"index": 1, "verdict": True, "evidence": "Your balance is $640.20.", "explanation": "stated"}], "contradiction_found": False})
    fabricated = good.replace("Your balance is $640.20.", "Balance: 640.20")
    model = Model(ScriptedModel(["not json at all", fabricated, good]), role="judge")
    judge = LLMJudge(model, retries=2)
    output = await judge.judge("instruction", CRITERIA, ["Your balance is $640.20."])
    assert output.criteria[0].passed and output.judge == "llm:mock:scripted" and len(model.api.requests) == 3
    request = model.api.requests[0][0][1].content
    assert '<transcript_json untrusted="true">' in request and "Your balance is $640.20." in request


async def test_llm_judge_invalid_after_retries_is_infrastructure(tmp_path: Path) -> None:
    model = Model(ScriptedModel(["nope", "still nope"]), role="judge")
    with pytest.raises(JudgeFailure):
        await LLMJudge(model, retries=1).judge("i", CRITERIA, ["x"])


async def test_invalid_judge_leaves_the_trial_ungraded_counted_and_rerun_rejudges_it(tmp_path: Path) -> None:
    plan = Plan(agent="oracle", user="scripted", judge="llm", judge_model="mock:judge", offline=False)
    config = RunConfig(out=tmp_path / "run", task=["payments_balance_inquiry_01", "payments_transfer_frozen_source_01"], judge="llm", infra_retries=0)
    broken = ScriptedModel(lambda m, t: "I refuse to answer in JSON")
    result = await execute_run(config, console=QUIET, components=TrialComponents(config, plan, apis={"judge": broken}))
    # not ⊥: a derailed judge must not remove the trial from the denominator
    assert [r.status for r in result.records] == ["scored", "scored"]
    assert all(r.strict is False and r.ungraded and r.failure_class == "ungraded:judge" for r in result.records)
    assert "| **all** | 2 | 2 | 0 | 0 | 0.00% |" in result.summary_markdown
    assert "run incomplete" in result.summary_markdown and "2 trial(s) ungraded" in result.summary_markdown

    def answer(messages, tools):  # a working judge: says yes and quotes the first visible message line
        transcript = json.loads(messages[1].content.split('<transcript_json untrusted="true">\n', 1)[1].split("\n</transcript_json>", 1)[0])
        first = transcript[0].split("\n", 1)[0]
        n = messages[1].content.count("\n", messages[1].content.index("<criteria>"), messages[1].content.index("</criteria>")) - 1
        items = [{"index": i + 1, "verdict": True, "message": 1, "evidence": first, "explanation": "ok"} for i in range(n)]
        return json.dumps({"criteria": items, "contradiction_found": False})

    rerun = await execute_run(config, console=QUIET, components=TrialComponents(config, plan, apis={"judge": ScriptedModel(answer)}))
    # re-judged from the record, never re-run (spec A.2): no trial ran again
    assert rerun.ran == 0 and [r.status for r in rerun.records] == ["scored", "scored"]
    assert all(r.ungraded is None for r in rerun.records) and "run incomplete" not in rerun.summary_markdown


async def test_provider_outage_is_bottom(tmp_path: Path) -> None:
    class Down(ScriptedModel):
        async def generate(self, messages, tools, config):  # noqa: ANN001
            raise ConnectionError("provider down")

        def classify_error(self, error):  # noqa: ANN001
            from models.base import RetryDecision

            return RetryDecision("transient")

    config = RunConfig(out=tmp_path / "run", task=["payments_balance_inquiry_01"], agent="graph", agent_model="mock:agent", infra_retries=1)
    components = _components(config, _plan(), agent=Down([]), router=Down([]))
    original = Model.__init__

    def fast_retry(self, *a, **kw):  # noqa: ANN001, ANN002, ANN003
        kw["retry"] = RetryPolicy(max_retries=1, base_delay_s=0.0)
        original(self, *a, **kw)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(Model, "__init__", fast_retry)
        result = await execute_run(config, console=QUIET, components=components)
    record = only(result, "payments_balance_inquiry_01")
    assert record.status == "infra_error" and record.failure_class == "infra:provider" and record.attempts == 2
    assert "provider down" in record.error


# ---- resume ------------------------------------------------------------------------------------


async def test_rerun_resumes_and_never_duplicates(tmp_path: Path) -> None:
    first = await run(tmp_path, domain=["payments"], difficulty=["easy"], rounds=2)
    n = len(first.records)
    files = sorted((first.directory / "trials" / "payments").glob("*.json"))
    assert len(files) == n
    for path in files[:3]:
        path.unlink()
    second = await run(tmp_path, domain=["payments"], difficulty=["easy"], rounds=2)
    assert second.ran == 3 and second.skipped == n - 3 and len(second.records) == n
    assert len({r.key for r in second.records}) == n


async def test_resume_refuses_a_different_configuration(tmp_path: Path) -> None:
    await run(tmp_path, task=["payments_balance_inquiry_01"])
    with pytest.raises(ResumeMismatch, match="different configuration"):
        await run(tmp_path, task=["payments_balance_inquiry_01"], max_turns=5)


def test_plan_without_keys_is_offline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    plan = resolve_plan(RunConfig())
    assert plan.agent == "oracle" and plan.offline and "no --agent-model" in plan.notes[0]
    with pytest.raises(ConfigurationError, match="OPENAI_API_KEY"):  # never silently an oracle run
        resolve_plan(RunConfig(agent_model="openai:gpt-5-mini"))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    plan = resolve_plan(RunConfig(agent_model="openai:gpt-5-mini"))
    assert plan.agent == "graph" and plan.user == "llm" and plan.judge == "llm" and plan.router_model == "openai:gpt-5-mini"


def test_usage_is_summed_per_role() -> None:
    ledger = UsageLedger()
    from models.types import Usage

    ledger.add("agent", Usage(prompt_tokens=10, completion_tokens=2, calls=1))
    ledger.add("agent", Usage(prompt_tokens=5, completion_tokens=1, calls=1))
    ledger.add("judge", Usage(prompt_tokens=7, completion_tokens=3, calls=1))
    snap = ledger.snapshot()
    assert snap["agent"].prompt_tokens == 15 and snap["agent"].calls == 2 and snap["judge"].completion_tokens == 3


async def test_model_error_is_not_swallowed() -> None:
    model = Model(ScriptedModel([]), role="agent", retry=RetryPolicy(max_retries=0))
    with pytest.raises(ModelError, match="ran out of outputs"):
        await model.generate([])


async def test_fatal_model_error_stops_the_run(tmp_path: Path) -> None:
    """A rejected key or request will not heal by re-running: the run stops with a clear error."""
    from models.base import ConfigurationError

    class Rejected(ScriptedModel):
        async def generate(self, messages, tools, config):  # noqa: ANN001
            raise PermissionError("401 invalid api key")

    config = RunConfig(out=tmp_path / "run", task=["payments_balance_inquiry_01"], agent="graph", agent_model="mock:agent")
    with pytest.raises(ConfigurationError, match="stopping the run: .*401 invalid api key"):
        await execute_run(config, console=QUIET, components=_components(config, _plan(), agent=Rejected([]), router=Rejected([])))


def test_provider_limit_follows_the_latest_configuration() -> None:
    from models.model import provider_limiter

    assert provider_limiter("limit-test", 2).total_tokens == 2
    assert provider_limiter("limit-test", 64).total_tokens == 64


async def test_llm_user_does_not_stop_while_an_action_is_announced() -> None:
    model = Model(ScriptedModel([STOP_TOKEN, STOP_TOKEN]), role="user")
    user = LLMUser(model, "You are Daniel. Pay $15.50; stop when it is done.")
    conversation = [Message(role="user", content="Pay $15.50 please", turn=0), Message(role="assistant", content="I'll process that payment now.", turn=0)]
    assert await user.next_message(conversation) is None  # it insisted twice: then it may stop
    assert len(model.api.requests) == 2


async def test_trial_seed_reaches_the_agent_model(tmp_path: Path) -> None:
    router = ScriptedModel([tool_call("route", node="general")])
    agent = ScriptedModel([text("Hello!")])
    config = RunConfig(out=tmp_path / "run", task=["payments_balance_inquiry_01"], agent="graph", agent_model="mock:agent")
    result = await execute_run(config, console=QUIET, components=_components(config, _plan(), agent=agent, router=router))
    assert agent.requests[0][2].seed == result.records[0].key.seed


async def test_invalid_route_goes_to_the_entry_node_first(tmp_path: Path) -> None:
    router = ScriptedModel([text("I think balance?")])  # no route call at all
    agent = ScriptedModel([text("Hello! How can I help?")])
    config = RunConfig(out=tmp_path / "run", task=["payments_balance_inquiry_01"], agent="graph", agent_model="mock:agent")
    result = await execute_run(config, console=QUIET, components=_components(config, _plan(), agent=agent, router=router))
    decision = result.records[0].routing[0]
    assert decision.node == "general" and "no valid node" in decision.reason
    assert agent.requests[0][1] == []  # the general node exposes no tools
