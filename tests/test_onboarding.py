"""The onboarding domain: every tool in memory and over streamable HTTP, every policy gate (refused,
state unchanged), the canonical create → configure → verify → finalize chain, probes, and contracts
that pass correct-but-different routes and fail plausible mistakes."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastmcp import Client

from contracts.catalog import get_task, load_catalog
from contracts.graph import load_graph
from contracts.schema import GoldCall, GoldTurn, Task
from grader.grade import grade_offline
from harness.release.debt import known_debt
from harness.release.gates import prove_task
from harness.release.replay import GatewayReplayer
from servers.domains.onboarding.tools import OnboardingEnvironment
from servers.gateway import Gateway
from servers.recorder import TRIAL_META_KEY, bind_trial
from servers.registry import environment_class
from tests.live_http import assert_gate_refuses

pytestmark = pytest.mark.anyio
DOMAIN = "onboarding"

# tool -> (calls to make first, arguments, a key its result must contain)
TOOL_CASES: dict[str, tuple[list[tuple[str, dict[str, Any]]], dict[str, Any], str]] = {
    "get_prospect": ([], {"prospect_id": "PRO-3004"}, "legal_entity_id"),
    "search_prospects": ([], {"company_name": "brightwave"}, "matches"),
    "list_plans": ([], {}, "plans"),
    "create_account": ([], {"prospect_id": "PRO-3005", "plan": "growth"}, "account_id"),
    "get_account": ([], {"account_id": "ACC-3003"}, "plan_limits"),
    "change_plan": ([], {"account_id": "ACC-3012", "plan": "growth"}, "previous_plan"),
    "add_user": ([], {"account_id": "ACC-3003", "email": "dispatch@cobaltridge.com", "role": "member"}, "seats_used"),
    "remove_user": ([], {"account_id": "ACC-3002", "email": "lea.fischer@brightwave.de"}, "removed"),
    "update_settings": ([], {"account_id": "ACC-3016", "timezone": "America/Los_Angeles"}, "settings"),
    "add_integration": ([], {"account_id": "ACC-3015", "integration": "slack"}, "integrations"),
    "get_verification_status": ([], {"account_id": "ACC-3012"}, "missing_or_expired"),
    "register_document": ([], {"account_id": "ACC-3012", "upload_reference": "UPL-7122"}, "doc_type"),
    "run_verification": ([], {"account_id": "ACC-3003"}, "result"),
    "resolve_verification_issue": ([], {"account_id": "ACC-3002", "issue_id": "ISS-3002-1", "resolution": "Address confirmed"}, "open_issues"),
    "get_go_live_checklist": ([], {"account_id": "ACC-3016"}, "blocking"),
    "finalize_go_live": ([], {"account_id": "ACC-3011"}, "live_on"),
}


def test_registered_and_every_tool_has_a_case() -> None:
    assert environment_class(DOMAIN) is OnboardingEnvironment
    assert set(TOOL_CASES) == set(OnboardingEnvironment.tool_methods())
    kinds = {name: OnboardingEnvironment.tool_kind(name) for name in TOOL_CASES}
    assert {n for n, k in kinds.items() if k == "read"} == {
        "get_prospect", "search_prospects", "list_plans", "get_account", "get_verification_status", "get_go_live_checklist"
    }


def test_seeded_world_has_lookalikes_and_fixed_date() -> None:
    state = OnboardingEnvironment.default_state()
    assert state.business_date == "2026-11-30" and not state.activity_log
    assert len(state.prospects) >= 12 and len(state.accounts) >= 10
    names = [p.company_name for p in state.prospects.values()]
    assert sum(n.startswith("Brightwave Analytics") for n in names) == 2
    assert sum(n.startswith("Kestrel Robotics") for n in names) == 2
    # a duplicate lead of a legal entity that already has an account
    assert state.prospects["PRO-3007"].legal_entity_id == state.accounts["ACC-3003"].legal_entity_id
    assert {p.name: (p.max_users, p.max_integrations, p.sso_allowed) for p in state.plans.values()} == {
        "starter": (3, 1, False), "growth": (15, 4, True), "enterprise": (100, 15, True)
    }


async def _call(client: Client, trial_id: str, tool: str, args: dict[str, Any]) -> Any:
    return await client.call_tool(tool, args, raise_on_error=False, meta={TRIAL_META_KEY: trial_id})


async def _exercise(client: Client, tool: str, meta: dict[str, Any] | None = None) -> dict[str, Any]:
    setup, args, key = TOOL_CASES[tool]
    for name, setup_args in setup:
        await client.call_tool(name, setup_args, meta=meta)
    result = await client.call_tool(tool, args, meta=meta)
    assert not result.is_error
    assert key in result.structured_content, result.structured_content
    assert not result.structured_content.get("refused"), result.structured_content
    return result.structured_content


@pytest.mark.parametrize("tool", sorted(TOOL_CASES))
async def test_tool_in_memory(tool: str) -> None:
    gateway = Gateway([DOMAIN])
    trial = gateway.open_trial(DOMAIN)
    with bind_trial(trial.trial_id):
        async with Client(gateway.server(DOMAIN)) as client:
            await _exercise(client, tool)
    assert trial.trace[-1].tool == tool and trial.trace[-1].status == "executed"
    writes = OnboardingEnvironment.tool_kind(tool) == "write"
    assert (trial.final_state() != trial.initial_state) is writes


class _LiveGateway:
    def __init__(self, gateway: Gateway, base_url: str) -> None:
        self.gateway = gateway
        self.base_url = base_url

    def mcp_url(self, trial_id: str) -> str:
        return f"{self.base_url}/{DOMAIN}/mcp?trial={trial_id}"


@pytest.fixture(scope="module")
def live_onboarding() -> Iterator[_LiveGateway]:
    """The real gateway app serving the onboarding domain under uvicorn on a loopback port."""
    from tests.live_http import serve_gateway

    with serve_gateway([DOMAIN]) as (gateway, base_url):
        yield _LiveGateway(gateway, base_url)


@pytest.mark.parametrize("tool", sorted(TOOL_CASES))
async def test_tool_over_streamable_http(live_onboarding: _LiveGateway, tool: str) -> None:
    trial = live_onboarding.gateway.open_trial(DOMAIN)
    async with Client(live_onboarding.mcp_url(trial.trial_id)) as client:
        await _exercise(client, tool)
    assert [r.tool for r in trial.trace][-1] == tool
    assert all(r.status == "executed" for r in trial.trace)


async def test_schemas_carry_docstrings_and_free_text() -> None:
    gateway = Gateway([DOMAIN])
    async with Client(gateway.server(DOMAIN)) as client:
        tools = {t.name: t for t in await client.list_tools()}
    create = tools["create_account"]
    assert "one account\nper legal entity" in create.description
    assert set(create.input_schema["required"]) == {"prospect_id", "plan"}
    assert create.input_schema["properties"]["plan"]["enum"] == ["starter", "growth", "enterprise"]
    settings = tools["update_settings"].input_schema
    assert set(settings["properties"]) == {"account_id", "timezone", "data_region", "sso_enabled"}
    assert settings["required"] == ["account_id"]
    _, hints = OnboardingEnvironment.tool_signature("resolve_verification_issue")
    from servers.base import is_free_text

    assert is_free_text(hints["resolution"]) and not is_free_text(hints["issue_id"])


# (calls to make first, tool, arguments, expected status, expected reason)
GATES: list[tuple[list[tuple[str, dict[str, Any]]], str, dict[str, Any], int, str]] = [
    ([], "create_account", {"prospect_id": "PRO-3007", "plan": "growth"}, 409, "This legal entity already has an account (one account per legal entity)"),
    ([], "create_account", {"prospect_id": "PRO-3008", "plan": "starter"}, 422, "Prospect is disqualified and cannot be onboarded"),
    ([("create_account", {"prospect_id": "PRO-3005", "plan": "growth"})], "create_account", {"prospect_id": "PRO-3005", "plan": "starter"}, 409,
     "This legal entity already has an account (one account per legal entity)"),
    ([], "change_plan", {"account_id": "ACC-3003", "plan": "growth"}, 409, "Account is already on this plan"),
    ([], "change_plan", {"account_id": "ACC-3003", "plan": "starter"}, 422, "The account does not fit the new plan's limits"),
    ([], "change_plan", {"account_id": "ACC-3011", "plan": "starter"}, 422, "The account does not fit the new plan's limits"),
    ([], "add_user", {"account_id": "ACC-3012", "email": "sam@kestrelrobotics.co.uk"}, 422, "The plan's user limit is reached"),
    ([], "add_user", {"account_id": "ACC-3003", "email": "Carla@CobaltRidge.com"}, 409, "This email is already a user of the account"),
    ([], "remove_user", {"account_id": "ACC-3016", "email": "rosa@orchidlane.com"}, 422, "The last admin of an account cannot be removed"),
    ([], "update_settings", {"account_id": "ACC-3016", "sso_enabled": True}, 422, "Single sign-on is not included in the plan"),
    ([], "update_settings", {"account_id": "ACC-3003", "data_region": "apac"}, 422, "The plan does not include this data region"),
    ([], "update_settings", {"account_id": "ACC-3001", "data_region": "us"}, 422, "The data region cannot change after go-live"),
    ([], "update_settings", {"account_id": "ACC-3016", "timezone": "Pacific Time"}, 422, "Unknown time zone; use an IANA name such as Europe/Berlin"),
    ([], "update_settings", {"account_id": "ACC-3003", "timezone": "America/Chicago"}, 409, "Nothing to change: the settings already have these values"),
    ([], "add_integration", {"account_id": "ACC-3012", "integration": "zendesk"}, 422, "The plan's integration limit is reached"),
    ([], "add_integration", {"account_id": "ACC-3003", "integration": "slack"}, 409, "This integration is already connected"),
    ([], "register_document", {"account_id": "ACC-3012", "upload_reference": "UPL-7153"}, 422, "This upload belongs to another company"),
    ([("create_account", {"prospect_id": "PRO-3009", "plan": "growth"})], "register_document", {"account_id": "ACC-3009", "upload_reference": "UPL-7092"}, 422,
     "The uploaded document has expired"),
    ([("register_document", {"account_id": "ACC-3012", "upload_reference": "UPL-7122"})], "register_document", {"account_id": "ACC-3012", "upload_reference": "UPL-7122"},
     409, "This document is already registered"),
    ([], "run_verification", {"account_id": "ACC-3012"}, 422, "Required documents are missing or expired"),
    ([], "run_verification", {"account_id": "ACC-3013"}, 422, "Required documents are missing or expired"),
    ([], "run_verification", {"account_id": "ACC-3002"}, 409, "Resolve the open verification issues before running verification again"),
    ([], "run_verification", {"account_id": "ACC-3011"}, 409, "Verification has already passed"),
    ([], "resolve_verification_issue", {"account_id": "ACC-3014", "issue_id": "ISS-3014-1", "resolution": "Not the same person"}, 403,
     "Sanctions matches can only be cleared by the compliance team"),
    ([], "resolve_verification_issue", {"account_id": "ACC-3013", "issue_id": "ISS-3013-1", "resolution": "New passport coming"}, 422,
     "Register a valid replacement document before resolving this issue"),
    ([("resolve_verification_issue", {"account_id": "ACC-3002", "issue_id": "ISS-3002-1", "resolution": "Confirmed"})], "resolve_verification_issue",
     {"account_id": "ACC-3002", "issue_id": "ISS-3002-1", "resolution": "Confirmed again"}, 409, "This issue is already resolved"),
    ([], "finalize_go_live", {"account_id": "ACC-3002"}, 422, "Verification has not passed; the account cannot go live"),
    ([], "finalize_go_live", {"account_id": "ACC-3014"}, 422, "Verification has not passed; the account cannot go live"),
    ([], "finalize_go_live", {"account_id": "ACC-3016"}, 422, "The go-live checklist is incomplete"),
    ([], "finalize_go_live", {"account_id": "ACC-3001"}, 409, "Account is already live"),
]


@pytest.mark.parametrize(("setup", "tool", "args", "code", "reason"), GATES, ids=[f"{g[1]}-{g[3]}-{i}" for i, g in enumerate(GATES)])
async def test_gates_refuse_and_change_nothing(setup: list[tuple[str, dict[str, Any]]], tool: str, args: dict[str, Any], code: int, reason: str) -> None:
    await assert_gate_refuses(DOMAIN, setup, tool, args, code, reason)


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("get_prospect", {"prospect_id": "PRO-0000"}),
        ("create_account", {"prospect_id": "PRO-0000", "plan": "growth"}),
        ("get_account", {"account_id": "ACC-0000"}),
        ("add_user", {"account_id": "ACC-3003", "email": "not-an-email"}),
        ("remove_user", {"account_id": "ACC-3003", "email": "nobody@cobaltridge.com"}),
        ("register_document", {"account_id": "ACC-3012", "upload_reference": "UPL-0000"}),
        ("resolve_verification_issue", {"account_id": "ACC-3002", "issue_id": "ISS-0000", "resolution": "x"}),
        ("create_account", {"prospect_id": "PRO-3005", "plan": "platinum"}),
    ],
)
async def test_unknown_ids_and_bad_arguments_are_invalid_calls(tool: str, args: dict[str, Any]) -> None:
    gateway = Gateway([DOMAIN])
    trial = gateway.open_trial(DOMAIN)
    before = trial.final_state()
    async with Client(gateway.server(DOMAIN)) as client:
        result = await _call(client, trial.trial_id, tool, args)
    assert result.is_error and trial.trace[0].status == "tool_error"
    assert trial.final_state() == before


async def test_canonical_chain_create_configure_verify_finalize() -> None:
    gateway = Gateway([DOMAIN])
    trial = gateway.open_trial(DOMAIN)
    t = trial.trial_id
    async with Client(gateway.server(DOMAIN)) as client:

        async def ok(tool: str, **args: Any) -> dict[str, Any]:
            result = await _call(client, t, tool, args)
            assert not result.is_error and not result.structured_content.get("refused"), (tool, result.structured_content)
            return result.structured_content

        created = await ok("create_account", prospect_id="PRO-3006", plan="starter")
        assert created["account_id"] == "ACC-3006" and created["required_documents"] == ["government_id", "proof_of_address"]
        assert created["admin_user"] == "maya@eastgateceramics.co.uk"
        # finalize refuses until verification passes
        early = (await _call(client, t, "finalize_go_live", {"account_id": "ACC-3006"})).structured_content
        assert early["refused"] and early["status"] == 422 and early["verification_status"] == "not_started"
        await ok("update_settings", account_id="ACC-3006", timezone="Europe/London", data_region="eu")
        status = await ok("get_verification_status", account_id="ACC-3006")
        assert status["missing_or_expired"] == ["government_id", "proof_of_address"]
        assert [u["upload_reference"] for u in status["unregistered_uploads"]] == ["UPL-7061", "UPL-7062"]
        await ok("register_document", account_id="ACC-3006", upload_reference="UPL-7061")
        left = await ok("register_document", account_id="ACC-3006", upload_reference="UPL-7062")
        assert left["missing_or_expired"] == []
        assert (await ok("run_verification", account_id="ACC-3006")) == {"account_id": "ACC-3006", "result": "passed", "issues": []}
        checklist = await ok("get_go_live_checklist", account_id="ACC-3006")
        assert checklist["ready_for_go_live"] and checklist["blocking"] == []
        live = await ok("finalize_go_live", account_id="ACC-3006")
        assert live == {"account_id": "ACC-3006", "status": "live", "live_on": "2026-11-30"}
    state = trial.final_state()
    account = state["accounts"]["ACC-3006"]
    assert account["revision"] == 6 and state["prospects"]["PRO-3006"]["status"] == "converted"
    assert [a["action"] for a in state["activity_log"]] == [
        "create_account", "update_settings", "register_document", "register_document", "run_verification", "finalize_go_live"
    ]
    assert [a["activity_id"] for a in state["activity_log"]][:2] == ["ACT-0001", "ACT-0002"]


async def test_verification_raises_pending_findings_then_passes_after_resolution() -> None:
    gateway = Gateway([DOMAIN])
    trial = gateway.open_trial(DOMAIN)
    async with Client(gateway.server(DOMAIN)) as client:
        first = (await _call(client, trial.trial_id, "run_verification", {"account_id": "ACC-3017"})).structured_content
        assert first["result"] == "issues_found" and [i["issue_id"] for i in first["issues"]] == ["ISS-3017-1"]
        blocked = (await _call(client, trial.trial_id, "finalize_go_live", {"account_id": "ACC-3017"})).structured_content
        assert blocked["refused"] and blocked["verification_status"] == "issues_found"
        await _call(client, trial.trial_id, "resolve_verification_issue", {"account_id": "ACC-3017", "issue_id": "ISS-3017-1", "resolution": "Full legal name confirmed"})
        second = (await _call(client, trial.trial_id, "run_verification", {"account_id": "ACC-3017"})).structured_content
    assert second["result"] == "passed"
    account = trial.final_state()["accounts"]["ACC-3017"]
    assert account["issues"]["ISS-3017-1"]["resolution"] == "Full legal name confirmed" and account["pending_findings"] == []


async def test_expired_document_issue_resolves_only_after_replacement() -> None:
    gateway = Gateway([DOMAIN])
    trial = gateway.open_trial(DOMAIN)
    resolve = {"account_id": "ACC-3013", "issue_id": "ISS-3013-1", "resolution": "Replaced"}
    async with Client(gateway.server(DOMAIN)) as client:
        assert (await _call(client, trial.trial_id, "resolve_verification_issue", resolve)).structured_content["status"] == 422
        await _call(client, trial.trial_id, "register_document", {"account_id": "ACC-3013", "upload_reference": "UPL-7133"})
        done = (await _call(client, trial.trial_id, "resolve_verification_issue", resolve)).structured_content
        verified = (await _call(client, trial.trial_id, "run_verification", {"account_id": "ACC-3013"})).structured_content
    assert done["status"] == "resolved" and verified["result"] == "passed"


def test_mutation_probes_all_succeed_and_reach_every_account_and_prospect() -> None:
    state = OnboardingEnvironment.default_state()
    probes = OnboardingEnvironment.mutation_probes()
    names = " | ".join(name for name, _ in probes)
    for account_id in state.accounts:
        assert account_id in names
    open_prospects = [p for p in state.prospects.values() if p.status == "open" and p.legal_entity_id not in {a.legal_entity_id for a in state.accounts.values()}]
    assert {f"create account for {p.prospect_id}" for p in open_prospects} <= {name for name, _ in probes}
    tools = {call.tool for _, calls in probes for call in calls}
    assert tools == {name for name in OnboardingEnvironment.tool_methods() if OnboardingEnvironment.tool_kind(name) == "write"}
    env = OnboardingEnvironment
    for name, calls in probes:
        world = env(env.default_state(), __import__("servers.base", fromlist=["IdMinter"]).IdMinter("t"))
        before = world.state.model_dump()
        for call in calls:
            result = getattr(world, call.tool)(**call.args)
            assert not result.get("refused"), (name, result)
        assert world.state.model_dump() != before, name


# ---- contracts: correct-but-different routes pass, plausible mistakes fail -----------------------


def _with_calls(task: Task, calls_per_turn: list[list[GoldCall]]) -> list[GoldTurn]:
    return [turn.model_copy(update={"calls": calls}) for turn, calls in zip(task.gold, calls_per_turn, strict=True)]


def _c(tool: str, **args: Any) -> GoldCall:
    return GoldCall(tool=tool, args=args)


async def _strict(task_id: str, calls_per_turn: list[list[GoldCall]]) -> bool:
    task = get_task(task_id)
    async with GatewayReplayer(Gateway([DOMAIN])) as replayer:
        evidence = await replayer.play(task, _with_calls(task, calls_per_turn))
    return grade_offline(task, evidence).strict


FULL_CHAIN = "onboarding_journey_full_chain_01"


async def test_full_chain_alternative_route_passes() -> None:
    """Reads first, users before settings, documents in the other order, a checklist before go-live."""
    route = [
        [_c("get_prospect", prospect_id="PRO-3005"), _c("list_plans"), _c("create_account", prospect_id="PRO-3005", plan="growth")],
        [_c("get_account", account_id="ACC-3005"), _c("add_user", account_id="ACC-3005", email="frontdesk@dunmoredental.com", role="member"),
         _c("update_settings", account_id="ACC-3005", timezone="America/New_York")],
        [_c("get_verification_status", account_id="ACC-3005"), _c("register_document", account_id="ACC-3005", upload_reference="UPL-7052"),
         _c("register_document", account_id="ACC-3005", upload_reference="UPL-7051"), _c("run_verification", account_id="ACC-3005")],
        [_c("get_go_live_checklist", account_id="ACC-3005"), _c("finalize_go_live", account_id="ACC-3005")],
    ]
    assert await _strict(FULL_CHAIN, route)


@pytest.mark.parametrize(
    "mistake",
    [
        "wrong_plan_then_fix",
        "go_live_skipped",
        "extra_integration",
        "admin_instead_of_member",
        "premature_finalize_then_redo",
    ],
)
async def test_full_chain_mistakes_fail(mistake: str) -> None:
    gold = [list(turn.calls) for turn in get_task(FULL_CHAIN).gold]
    if mistake == "wrong_plan_then_fix":  # opened on enterprise, then downgraded: an extra change
        gold[0] = [_c("create_account", prospect_id="PRO-3005", plan="enterprise")]
        gold[1].insert(0, _c("change_plan", account_id="ACC-3005", plan="growth"))
    elif mistake == "go_live_skipped":
        gold[3] = []
    elif mistake == "extra_integration":
        gold[1].append(_c("add_integration", account_id="ACC-3005", integration="slack"))
    elif mistake == "admin_instead_of_member":
        gold[1][1] = _c("add_user", account_id="ACC-3005", email="frontdesk@dunmoredental.com", role="admin")
    elif mistake == "premature_finalize_then_redo":  # refused early, which is fine, but then settings set twice
        gold[1].append(_c("update_settings", account_id="ACC-3005", data_region="eu"))
    assert not await _strict(FULL_CHAIN, gold)


async def test_lookalike_and_gate_mistakes_fail() -> None:
    # the German Brightwave instead of the UK one: refused, and the UK account never exists
    assert not await _strict("onboarding_create_account_lookalike_name_01", [[_c("create_account", prospect_id="PRO-3002", plan="starter")]])
    # going around the user limit by removing someone the customer wanted to keep
    assert not await _strict(
        "onboarding_config_user_limit_01",
        [[_c("remove_user", account_id="ACC-3012", email="raj@kestrelrobotics.co.uk"), _c("add_user", account_id="ACC-3012", email="sam@kestrelrobotics.co.uk")], [], []],
    )
    # trying to clear a sanctions match is forbidden even though the world refuses it
    gold = [list(turn.calls) for turn in get_task("onboarding_verify_sanctions_match_01").gold]
    gold[1].append(_c("resolve_verification_issue", account_id="ACC-3014", issue_id="ISS-3014-1", resolution="Customer says it is not him"))
    assert not await _strict("onboarding_verify_sanctions_match_01", gold)
    # the UK Kestrel taken live instead of the US one
    assert not await _strict("onboarding_golive_lookalike_account_01", [[_c("finalize_go_live", account_id="ACC-3011")]])


async def test_refusal_tasks_pass_with_any_sensible_reads() -> None:
    # the downgrade question answered from reads instead of an attempted plan change
    assert await _strict(
        "onboarding_config_downgrade_refused_01",
        [[_c("get_account", account_id="ACC-3003"), _c("list_plans")], []],
    )
    # the blocker read from the account or the verification status instead of the checklist
    assert await _strict("onboarding_golive_blocked_open_issue_01", [[_c("get_verification_status", account_id="ACC-3002")], [], []])
    # one rule for the domain (policy "Consent and refused attempts"): a refused go-live or add_user
    # attempt is a violation, even when the agent then explains the refusal correctly
    assert not await _strict("onboarding_golive_blocked_open_issue_01", [[_c("finalize_go_live", account_id="ACC-3002")], [], []])
    assert not await _strict("onboarding_config_user_limit_01", [[_c("add_user", account_id="ACC-3012", email="sam@kestrelrobotics.co.uk")], [_c("list_plans")], []])
    assert await _strict("onboarding_config_user_limit_01", [[_c("get_account", account_id="ACC-3012")], [_c("list_plans")], []])
    # the sanctions issue read from the go-live checklist instead of the verification status
    assert await _strict("onboarding_verify_sanctions_match_01", [[_c("get_go_live_checklist", account_id="ACC-3014")], []])
    # the two settings changed in two calls instead of one
    task = get_task("onboarding_journey_create_configure_01")
    turns = [list(t.calls) for t in task.gold]
    turns[1][-1:] = [_c("update_settings", account_id="ACC-3010", timezone="Europe/Paris"), _c("update_settings", account_id="ACC-3010", data_region="eu")]
    assert await _strict("onboarding_journey_create_configure_01", turns)
    # role left at its default (member)
    assert await _strict("onboarding_config_add_user_01", [[_c("add_user", account_id="ACC-3003", email="dispatch@cobaltridge.com")]])
    # ... but not as an admin
    assert not await _strict("onboarding_config_add_user_01", [[_c("add_user", account_id="ACC-3003", email="dispatch@cobaltridge.com", role="admin")]])


async def test_gold_paths_pass_and_noop_fails_for_every_task() -> None:
    load_catalog.cache_clear()
    tasks = [t for t in load_catalog().values() if t.domain == DOMAIN]
    assert len(tasks) == 41
    counts = {d: sum(t.difficulty == d for t in tasks) for d in ("easy", "medium", "hard")}
    assert counts == {"easy": 15, "medium": 15, "hard": 11}
    assert sorted(len(t.capabilities) for t in tasks).count(1) == 32
    env = OnboardingEnvironment
    async with GatewayReplayer(Gateway([DOMAIN])) as replayer:
        for task in tasks:
            proof = await prove_task(replayer, task, env, mutate=False)
            assert proof.gold.strict, (task.id, proof.gold.summary())
            assert proof.noop_ok, task.id


@pytest.mark.parametrize("task_id", ["onboarding_journey_verify_issue_golive_01", "onboarding_config_user_limit_01"])
async def test_batteries_and_mutations_on_a_sample(task_id: str) -> None:
    task = get_task(task_id)
    async with GatewayReplayer(Gateway([DOMAIN])) as replayer:
        proof = await prove_task(replayer, task, OnboardingEnvironment, graph=load_graph(DOMAIN), debt=known_debt(DOMAIN, task_id))
    assert proof.ok, (task_id, proof.unkilled)
    assert proof.batteries is not None and not proof.batteries.failures
