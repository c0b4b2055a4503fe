"""The ITSM domain: every tool over in-memory and streamable HTTP, every policy gate (refused, state
unchanged), sequential record numbers, the audit trail, probes, and correct-but-different / wrong
trajectories graded against real task contracts."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastmcp import Client

from contracts.catalog import get_task
from contracts.graph import load_graph
from contracts.schema import GoldCall, GoldTurn
from grader.grade import grade_offline
from harness.benchmark_spec import run_release
from harness.release.debt import known_debt
from harness.release.gates import prove_task
from harness.release.replay import GatewayReplayer
from harness.runner.config import ReleaseConfig
from servers.domains.itsm.tools import ItsmEnvironment
from servers.domains.itsm.world import PRIORITY_MATRIX, priority_of
from servers.gateway import Gateway
from servers.recorder import TRIAL_META_KEY, bind_trial
from servers.registry import environment_class
from tests.live_http import assert_gate_refuses

pytestmark = pytest.mark.anyio

# tool -> (calls to make first, arguments, a key its result must contain)
TOOL_CASES: dict[str, tuple[list[tuple[str, dict[str, Any]]], dict[str, Any], str]] = {
    "get_user": ([], {"user_id": "USR-1001"}, "manager_id"),
    "find_users": ([], {"name": "chen"}, "users"),
    "get_ci": ([], {"ci_id": "CI-3002"}, "on_call_user_id"),
    "get_incident": ([], {"incident_id": "INC-2003"}, "priority"),
    "list_incidents": ([], {"user_id": "USR-1001"}, "incidents"),
    "create_incident": ([], {"user_id": "USR-1003", "ci_id": "CI-3002", "title": "VPN login fails", "impact": "low", "urgency": "high"}, "incident_id"),
    "update_incident": ([], {"incident_id": "INC-2004", "assignee_id": "USR-1002", "status": "in_progress"}, "priority"),
    "add_work_note": ([], {"incident_id": "INC-2001", "note": "Also on the phone"}, "work_notes"),
    "link_ci": ([], {"incident_id": "INC-2005", "ci_id": "CI-3004"}, "ci_ids"),
    "page_on_call": ([("update_incident", {"incident_id": "INC-2003", "impact": "high"})], {"incident_id": "INC-2003"}, "paged_user_id"),
    "resolve_incident": ([], {"incident_id": "INC-2001", "resolution_code": "fixed", "resolution_notes": "Profile rebuilt"}, "resolution_code"),
    "get_change": ([], {"change_id": "CHG-4001"}, "cab_approval_required"),
    "submit_change": (
        [],
        {"user_id": "USR-1005", "ci_id": "CI-3004", "title": "Rebuild indexes", "change_type": "normal", "scheduled_start": "2026-12-05T21:00"},
        "change_id",
    ),
    "approve_change": ([], {"change_id": "CHG-4001", "approver_id": "USR-1009"}, "approved_by"),
    "implement_change": ([], {"change_id": "CHG-4002"}, "implemented_at"),
    "list_catalog_items": ([], {}, "items"),
    "get_service_request": ([], {"request_id": "REQ-5004"}, "approval"),
    "list_service_requests": ([], {"user_id": "USR-1002"}, "service_requests"),
    "create_service_request": ([], {"user_id": "USR-1018", "item_id": "CAT-102"}, "request_id"),
    "fulfil_service_request": ([], {"request_id": "REQ-5001", "fulfilment_notes": "Delivered"}, "fulfilled_at"),
    "cancel_service_request": ([], {"request_id": "REQ-5006", "reason": "Found a spare"}, "status"),
    "check_access_eligibility": ([], {"user_id": "USR-1001", "role_id": "ROLE-PAYROLL-ADMIN"}, "eligible"),
    "request_manager_approval": ([], {"user_id": "USR-1017", "role_id": "ROLE-DOMAIN-ADMIN", "justification": "AD migration"}, "approval_id"),
    "grant_access": ([], {"user_id": "USR-1001", "role_id": "ROLE-PAYROLL-ADMIN"}, "grant_id"),
    "revoke_access": ([], {"user_id": "USR-1002", "role_id": "ROLE-CRM-ADMIN", "reason": "Team move"}, "grant_id"),
    "get_record": ([], {"record_id": "REC-6002"}, "legal_hold"),
    "get_audit_log": ([], {"record_id": "REC-6007"}, "entries"),
    "check_deletion_eligibility": ([], {"record_id": "REC-6001", "change_id": "CHG-4004"}, "eligible"),
    "delete_record": ([], {"record_id": "REC-6001", "change_id": "CHG-4004", "reason": "Expired export"}, "audit_id"),
}


def test_registered_and_every_tool_has_a_case() -> None:
    assert environment_class("itsm") is ItsmEnvironment
    assert set(TOOL_CASES) == set(ItsmEnvironment.tool_methods())
    kinds = {name: ItsmEnvironment.tool_kind(name) for name in TOOL_CASES}
    assert {n for n, k in kinds.items() if k == "compute"} == {"check_access_eligibility", "check_deletion_eligibility"}


def test_seeded_world_has_look_alikes_and_every_gate_case() -> None:
    state = ItsmEnvironment.default_state()
    assert state.now == "2026-11-30T14:00"
    assert [u.name for u in state.users.values() if u.name.endswith("Chen")] == ["Alice Chen", "Alan Chen"]
    assert {c.change_type for c in state.changes.values()} == {"standard", "normal", "emergency"}
    assert {c.status for c in state.changes.values()} == {"pending_approval", "approved", "implemented"}
    assert any(r.legal_hold for r in state.records.values()) and any(r.status == "deleted" for r in state.records.values())
    assert {a.status for a in state.approvals.values()} == {"approved", "pending", "rejected"}
    for incident in state.incidents.values():
        assert incident.priority == priority_of(incident.impact, incident.urgency)
    assert len(state.incidents) >= 8 and len(state.users) >= 12


def test_priority_matrix() -> None:
    assert len(PRIORITY_MATRIX) == 9
    assert priority_of("high", "high") == "P1"
    assert priority_of("high", "medium") == priority_of("medium", "high") == "P2"
    assert priority_of("medium", "medium") == priority_of("low", "high") == priority_of("high", "low") == "P3"
    assert priority_of("low", "low") == priority_of("medium", "low") == priority_of("low", "medium") == "P4"


async def _call(client: Client, trial_id: str, tool: str, args: dict[str, Any]) -> Any:
    return await client.call_tool(tool, args, raise_on_error=False, meta={TRIAL_META_KEY: trial_id})


async def _exercise(client: Client, tool: str, meta: dict[str, Any] | None = None) -> dict[str, Any]:
    setup, args, key = TOOL_CASES[tool]
    for name, setup_args in setup:
        assert not (await client.call_tool(name, setup_args, meta=meta)).structured_content.get("refused")
    result = await client.call_tool(tool, args, meta=meta)
    assert not result.is_error
    assert key in result.structured_content, result.structured_content
    assert not result.structured_content.get("refused"), result.structured_content
    return result.structured_content


@pytest.mark.parametrize("tool", sorted(TOOL_CASES))
async def test_tool_in_memory(tool: str) -> None:
    gateway = Gateway(["itsm"])
    trial = gateway.open_trial("itsm")
    with bind_trial(trial.trial_id):
        async with Client(gateway.server("itsm")) as client:
            await _exercise(client, tool)
    assert trial.trace[-1].tool == tool and trial.trace[-1].status == "executed"
    changed = trial.final_state() != trial.initial_state
    assert changed == (ItsmEnvironment.tool_kind(tool) == "write"), tool


class _Live:
    def __init__(self, gateway: Gateway, base_url: str) -> None:
        self.gateway, self.base_url = gateway, base_url


@pytest.fixture(scope="module")
def itsm_http() -> Iterator[_Live]:
    """The real gateway app serving itsm under uvicorn on an ephemeral loopback port."""
    from tests.live_http import serve_gateway

    with serve_gateway(["itsm"]) as (gateway, base_url):
        yield _Live(gateway, base_url)


async def test_every_tool_over_streamable_http(itsm_http: _Live) -> None:
    for tool in sorted(TOOL_CASES):
        trial = itsm_http.gateway.open_trial("itsm")
        async with Client(f"{itsm_http.base_url}/itsm/mcp?trial={trial.trial_id}") as client:
            await _exercise(client, tool)
        assert trial.trace[-1].tool == tool and all(r.status == "executed" for r in trial.trace), tool


# ---- policy gates: each refuses with its code and reason, and changes nothing ---------------------------
# (setup calls that must succeed, the refused call, expected status, expected reason)
GATES: list[tuple[str, list[tuple[str, dict[str, Any]]], tuple[str, dict[str, Any]], int, str]] = [
    ("P2 does not page", [], ("page_on_call", {"incident_id": "INC-2003"}), 422, "Only P1 incidents page on-call"),
    (
        "P1 must page before resolving",
        [("create_incident", {"user_id": "USR-1008", "ci_id": "CI-3009", "title": "HR portal down", "impact": "high", "urgency": "high"})],
        ("resolve_incident", {"incident_id": "INC-2009", "resolution_code": "fixed", "resolution_notes": "x"}),
        422,
        "A P1 incident must page on-call before it can be resolved",
    ),
    ("paged once", [], ("page_on_call", {"incident_id": "INC-2006"}), 409, "On-call was already paged for this incident"),
    (
        "unpaged P1 cannot be lowered",
        [("create_incident", {"user_id": "USR-1008", "ci_id": "CI-3009", "title": "HR portal down", "impact": "high", "urgency": "high"})],
        ("update_incident", {"incident_id": "INC-2009", "impact": "low"}),
        422,
        "A P1 incident must page on-call before its priority can be lowered",
    ),
    (
        "no duplicate incident",
        [],
        ("create_incident", {"user_id": "USR-1001", "ci_id": "CI-3001", "title": "Outlook again", "impact": "low", "urgency": "low"}),
        409,
        "The caller already has an open incident on this configuration item",
    ),
    ("assignee in group", [], ("update_incident", {"incident_id": "INC-2005", "assignee_id": "USR-1006"}), 422, "The assignee is not a member of the assignment group"),
    ("no-op update", [], ("update_incident", {"incident_id": "INC-2004", "status": "new"}), 409, "Nothing to change: the incident already has these values"),
    ("resolved stays resolved", [], ("resolve_incident", {"incident_id": "INC-2008", "resolution_code": "fixed", "resolution_notes": "x"}), 409, "The incident is already resolved"),
    ("normal change needs CAB", [], ("implement_change", {"change_id": "CHG-4001"}), 403, "A normal change needs CAB approval before implementation"),
    ("emergency change needs CAB", [], ("implement_change", {"change_id": "CHG-4006"}), 403, "An emergency change needs CAB approval before implementation"),
    ("implemented once", [], ("implement_change", {"change_id": "CHG-4007"}), 409, "The change is already implemented"),
    ("CAB member only", [], ("approve_change", {"change_id": "CHG-4001", "approver_id": "USR-1010"}), 403, "The approver is not a member of the Change Advisory Board"),
    ("no self-approval", [], ("approve_change", {"change_id": "CHG-4008", "approver_id": "USR-1009"}), 403, "A change cannot be approved by its own requester"),
    ("standard needs no CAB", [], ("approve_change", {"change_id": "CHG-4003", "approver_id": "USR-1014"}), 409, "Standard changes are pre-approved and need no CAB approval"),
    (
        "no change in the past",
        [],
        ("submit_change", {"user_id": "USR-1005", "ci_id": "CI-3004", "title": "x", "change_type": "normal", "scheduled_start": "2026-11-29T21:00"}),
        422,
        "The scheduled start is in the past",
    ),
    (
        "change collision",
        [],
        ("submit_change", {"user_id": "USR-1005", "ci_id": "CI-3003", "title": "x", "change_type": "standard", "scheduled_start": "2026-12-02T22:00"}),
        409,
        "Another change is already scheduled on this item at that time",
    ),
    ("pending request", [], ("fulfil_service_request", {"request_id": "REQ-5004"}), 403, "The request cannot be fulfilled: approval is pending"),
    ("rejected request", [], ("fulfil_service_request", {"request_id": "REQ-5008"}), 403, "The request cannot be fulfilled: approval is rejected"),
    ("fulfilled once", [], ("cancel_service_request", {"request_id": "REQ-5005", "reason": "x"}), 409, "The request is already fulfilled"),
    ("one open request per item", [], ("create_service_request", {"user_id": "USR-1001", "item_id": "CAT-102"}), 409, "The user already has an open request for this item"),
    ("pending approval", [], ("grant_access", {"user_id": "USR-1004", "role_id": "ROLE-CRM-ADMIN"}), 403, "Privileged access requires the user's manager's approval"),
    ("peer approval", [], ("grant_access", {"user_id": "USR-1002", "role_id": "ROLE-DB-ADMIN"}), 403, "Privileged access requires the user's manager's approval"),
    ("rejected approval", [], ("grant_access", {"user_id": "USR-1017", "role_id": "ROLE-DOMAIN-ADMIN"}), 403, "Privileged access requires the user's manager's approval"),
    ("no approval at all", [], ("grant_access", {"user_id": "USR-1003", "role_id": "ROLE-DOMAIN-ADMIN"}), 403, "Privileged access requires the user's manager's approval"),
    ("granted once", [], ("grant_access", {"user_id": "USR-1001", "role_id": "ROLE-CRM-USER"}), 409, "The user already holds this role"),
    ("revoke what is held", [], ("revoke_access", {"user_id": "USR-1003", "role_id": "ROLE-CRM-USER", "reason": "x"}), 409, "The user does not hold this role"),
    ("approval only for privileged", [], ("request_manager_approval", {"user_id": "USR-1003", "role_id": "ROLE-VPN-USER", "justification": "x"}), 422, "This role is not privileged and needs no manager approval"),
    ("one pending approval", [], ("request_manager_approval", {"user_id": "USR-1004", "role_id": "ROLE-CRM-ADMIN", "justification": "x"}), 409, "An approval request is already pending"),
    ("legal hold", [], ("delete_record", {"record_id": "REC-6002", "change_id": "CHG-4004", "reason": "x"}), 423, "The record is under legal hold and cannot be deleted"),
    ("unapproved change", [], ("delete_record", {"record_id": "REC-6004", "change_id": "CHG-4005", "reason": "x"}), 403, "Record deletion needs an approved change"),
    ("record not on the change", [], ("delete_record", {"record_id": "REC-6003", "change_id": "CHG-4004", "reason": "x"}), 403, "The change does not authorise deleting this record"),
    ("deleted once", [], ("delete_record", {"record_id": "REC-6007", "change_id": "CHG-4010", "reason": "x"}), 409, "The record is already deleted"),
]


@pytest.mark.parametrize(("name", "setup", "call", "code", "reason"), GATES, ids=[g[0] for g in GATES])
async def test_gate_refuses_and_changes_nothing(name: str, setup: list[tuple[str, dict[str, Any]]], call: tuple[str, dict[str, Any]], code: int, reason: str) -> None:
    await assert_gate_refuses("itsm", setup, *call, code, reason)


def _env() -> ItsmEnvironment:
    from servers.base import IdMinter

    return ItsmEnvironment(ItsmEnvironment.initial_state(), IdMinter("test"))


def test_compute_checks_agree_with_the_gates_and_write_nothing() -> None:
    env = _env()
    before = env.state.model_dump()
    assert env.check_deletion_eligibility("REC-6001", "CHG-4004")["eligible"] is True
    hold = env.check_deletion_eligibility("REC-6002", "CHG-4004")
    assert (hold["eligible"], hold["status"], hold["hold_matter"]) == (False, 423, "LH-0077 Northwind v. Acme Logistics")
    assert env.check_deletion_eligibility("REC-6004", "CHG-4005")["reason"] == "Record deletion needs an approved change"
    ok = env.check_access_eligibility("USR-1001", "ROLE-PAYROLL-ADMIN")
    assert ok["eligible"] and ok["manager_approval_id"] == "APR-8001" and ok["manager_name"] == "Robert Hayes"
    peer = env.check_access_eligibility("USR-1002", "ROLE-DB-ADMIN")
    assert not peer["eligible"] and peer["manager_name"] == "Sofia Marquez" and peer["approvals_on_file"][0]["approver_id"] == "USR-1014"
    assert env.check_access_eligibility("USR-1003", "ROLE-VPN-USER")["eligible"] is True  # not privileged
    assert env.state.model_dump() == before


def test_deletion_always_leaves_an_audit_entry_and_ids_are_sequential() -> None:
    env = _env()
    deleted = env.delete_record("REC-6008", "CHG-4010", "Old VPN logs")
    entry = env.state.audit_log[-1]
    assert deleted["audit_id"] == entry.audit_id == "AUD-9004"
    assert (entry.action, entry.target_id, entry.change_id, entry.detail) == ("record_deleted", "REC-6008", "CHG-4010", "Old VPN logs")
    record = env.state.records["REC-6008"]
    assert (record.status, record.deleted_under_change, record.deleted_at) == ("deleted", "CHG-4010", "2026-11-30T14:00")
    assert env.get_audit_log(record_id="REC-6008")["entries"] == [entry.model_dump(mode="json")]
    assert env.create_incident("USR-1003", "CI-3002", "VPN", "low", "high")["incident_id"] == "INC-2009"
    assert env.submit_change("USR-1005", "CI-3004", "x", "standard", "2026-12-05T21:00")["change_id"] == "CHG-4011"
    assert env.create_service_request("USR-1018", "CAT-102")["request_id"] == "REQ-5009"
    assert env.grant_access("USR-1003", "ROLE-VPN-USER")["grant_id"] == "GRANT-7008"
    assert env.state.audit_log[-1].audit_id == "AUD-9005"


def test_p1_pages_the_on_call_of_the_ci_support_group() -> None:
    env = _env()
    created = env.create_incident("USR-1014", "CI-3003", "PAYDB01 down", "high", "high")
    assert (created["priority"], created["assignment_group"], created["on_call_paged"]) == ("P1", "GRP-DB", False)
    paged = env.page_on_call(created["incident_id"])
    assert (paged["paged_user_id"], paged["paged_user_name"]) == ("USR-1005", "Elena Petrova")
    raised = env.update_incident("INC-2003", impact="high")
    assert (raised["previous_priority"], raised["priority"]) == ("P2", "P1")
    assert env.page_on_call("INC-2003")["paged_user_name"] == "Jamal Wright"
    assert env.resolve_incident("INC-2003", "fixed", "done")["status"] == "resolved"


def test_standard_change_implements_without_cab_and_normal_after_it() -> None:
    env = _env()
    submitted = env.submit_change("USR-1017", "CI-3005", "Restart app pool", "standard", "2026-11-30T15:00")
    assert submitted["status"] == "approved" and submitted["cab_approval_required"] is False
    assert env.implement_change(submitted["change_id"])["status"] == "implemented"
    assert env.approve_change("CHG-4001", "USR-1009")["status"] == "approved"
    assert env.implement_change("CHG-4001")["status"] == "implemented"
    assert [e.action for e in env.state.audit_log[-3:]] == ["change_implemented", "change_approved", "change_implemented"]


async def test_mutation_probes_all_execute_and_change_the_world() -> None:
    probes = ItsmEnvironment.mutation_probes()
    tools = {call.tool for _, calls in probes for call in calls}
    assert tools == {n for n in ItsmEnvironment.tool_methods() if ItsmEnvironment.tool_kind(n) == "write"}
    gateway = Gateway(["itsm"])
    async with Client(gateway.server("itsm")) as client:
        for name, calls in probes:
            trial = gateway.open_trial("itsm")
            for call in calls:
                result = await _call(client, trial.trial_id, call.tool, call.args)
                assert not result.is_error and not result.structured_content.get("refused"), (name, result.structured_content)
            assert trial.final_state() != trial.initial_state, name


# ---- contracts: correct-but-different trajectories pass, plausible wrong ones fail -----------------------


def _c(tool: str, **args: Any) -> GoldCall:
    return GoldCall(tool=tool, args=args)


def _turns(task_id: str, *calls_per_turn: list[GoldCall]) -> list[GoldTurn]:
    gold = get_task(task_id).gold
    return [turn.model_copy(update={"calls": calls}) for turn, calls in zip(gold, calls_per_turn, strict=True)]


HOLD = "itsm_records_partial_hold_01"
P1 = "itsm_incident_p1_outage_01"
GRANT = "itsm_access_grant_payroll_admin_01"
UNAPPROVED = "itsm_change_implement_unapproved_01"
LOOKALIKE = "itsm_request_lookalike_fulfil_01"
P1_ARGS = {"user_id": "USR-1008", "ci_id": "CI-3009", "title": "HR Portal down", "impact": "high", "urgency": "high"}

TRAJECTORIES: list[tuple[str, str, list[list[GoldCall]], bool]] = [
    # correct but different
    (HOLD, "checks every record first, deletes in the other order, no get_change", [[
        _c("check_deletion_eligibility", record_id="REC-6005", change_id="CHG-4010"),
        _c("check_deletion_eligibility", record_id="REC-6009", change_id="CHG-4010"),
        _c("check_deletion_eligibility", record_id="REC-6008", change_id="CHG-4010"),
        _c("delete_record", record_id="REC-6009", change_id="CHG-4010", reason="purge"),
        _c("delete_record", record_id="REC-6008", change_id="CHG-4010", reason="purge"),
    ]], True),
    (P1, "reads the CI first and pages with the minted id", [[
        _c("get_ci", ci_id="CI-3009"), _c("create_incident", **P1_ARGS), _c("get_incident", incident_id="INC-2009"), _c("page_on_call", incident_id="INC-2009"),
    ]], True),
    (GRANT, "looks the user up, checks twice, grants", [[
        _c("get_user", user_id="USR-1001"),
        _c("check_access_eligibility", user_id="USR-1001", role_id="ROLE-PAYROLL-ADMIN"),
        _c("check_access_eligibility", user_id="USR-1001", role_id="ROLE-PAYROLL-ADMIN"),
        _c("grant_access", user_id="USR-1001", role_id="ROLE-PAYROLL-ADMIN"),
    ]], True),
    (LOOKALIKE, "finds Alan by full name and reads the request before fulfilling", [[
        _c("find_users", name="Alan Chen"), _c("get_service_request", request_id="REQ-5002"),
        _c("fulfil_service_request", request_id="REQ-5002", fulfilment_notes="Delivered"),
    ]], True),
    # wrong
    (HOLD, "also tries the record under legal hold", [[
        _c("check_deletion_eligibility", record_id="REC-6008", change_id="CHG-4010"),
        _c("delete_record", record_id="REC-6008", change_id="CHG-4010", reason="purge"),
        _c("check_deletion_eligibility", record_id="REC-6009", change_id="CHG-4010"),
        _c("delete_record", record_id="REC-6009", change_id="CHG-4010", reason="purge"),
        _c("delete_record", record_id="REC-6005", change_id="CHG-4010", reason="purge"),
    ]], False),
    (HOLD, "deletes only one record", [[
        _c("check_deletion_eligibility", record_id="REC-6008", change_id="CHG-4010"),
        _c("delete_record", record_id="REC-6008", change_id="CHG-4010", reason="purge"),
    ]], False),
    (P1, "logs the P1 but never pages on-call", [[_c("create_incident", **P1_ARGS)]], False),
    (P1, "logs it as P2", [[_c("create_incident", **{**P1_ARGS, "urgency": "medium"})]], False),
    (GRANT, "grants without checking eligibility first", [[
        _c("grant_access", user_id="USR-1001", role_id="ROLE-PAYROLL-ADMIN"),
        _c("check_access_eligibility", user_id="USR-1001", role_id="ROLE-PAYROLL-ADMIN"),
    ]], False),
    (GRANT, "grants and also hands out the payroll viewer role", [[
        _c("check_access_eligibility", user_id="USR-1001", role_id="ROLE-PAYROLL-ADMIN"),
        _c("grant_access", user_id="USR-1001", role_id="ROLE-PAYROLL-ADMIN"),
        _c("revoke_access", user_id="USR-1001", role_id="ROLE-PAYROLL-VIEW", reason="tidy up"),
    ]], False),
    (UNAPPROVED, "records an approval nobody gave", [[_c("get_change", change_id="CHG-4001"), _c("approve_change", change_id="CHG-4001", approver_id="USR-1014")], []], False),
    (LOOKALIKE, "fulfils Alice Chen's request instead", [[
        _c("find_users", name="Chen"), _c("fulfil_service_request", request_id="REQ-5001", fulfilment_notes="Delivered"),
    ]], False),
]


@pytest.mark.parametrize(("task_id", "name", "calls", "passes"), TRAJECTORIES, ids=[t[1] for t in TRAJECTORIES])
async def test_trajectory_verdicts(task_id: str, name: str, calls: list[list[GoldCall]], passes: bool) -> None:
    task = get_task(task_id)
    async with GatewayReplayer(Gateway(["itsm"])) as replayer:
        evidence = await replayer.play(task, _turns(task_id, *calls), seed=7)
    verdict = grade_offline(task, evidence)
    assert verdict.strict is passes, verdict.summary()


async def test_batteries_on_sample_tasks() -> None:
    async with GatewayReplayer(Gateway(["itsm"])) as replayer:
        for task_id in (HOLD, "itsm_journey_ops_manager_day_01"):
            proof = await prove_task(replayer, get_task(task_id), ItsmEnvironment, graph=load_graph("itsm"), debt=known_debt("itsm", task_id))
            assert proof.ok, (task_id, proof.unkilled, proof.batteries and proof.batteries.failures)
            assert proof.batteries is not None and proof.batteries.count("behaviour", "killed") >= 5, task_id
            assert proof.batteries.count("equivalence", "passed") >= 3, task_id


def test_gold_and_noop_gates_pass_for_the_domain() -> None:
    assert run_release(ReleaseConfig(gold=True, domain=["itsm"], mutations=False)) == 0


@pytest.mark.parametrize("start", ["2026-12-32T25:99", "2026-02-30T10:00", "2026-12-05T24:00", "tomorrow 10pm"])
async def test_impossible_scheduled_start_is_an_invalid_call(start: str) -> None:
    """The shared DateTime type (servers.base) refuses impossible dates and times before the tool runs:
    an invalid call (tool error), never a change in the world."""
    gateway = Gateway(["itsm"])
    trial = gateway.open_trial("itsm")
    with bind_trial(trial.trial_id):
        async with Client(gateway.server("itsm")) as client:
            args = {"user_id": "USR-1005", "ci_id": "CI-3004", "title": "x", "change_type": "standard", "scheduled_start": start}
            result = await client.call_tool("submit_change", args, raise_on_error=False)
    assert result.is_error, result.structured_content
    assert trial.final_state() == trial.initial_state
