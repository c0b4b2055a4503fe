"""The field service domain: every tool over the in-memory gateway, every policy gate, probes, gold paths."""

from __future__ import annotations

from typing import Any

import pytest
from fastmcp import Client

from contracts.catalog import get_task
from contracts.schema import GoldCall, GoldTurn
from grader.grade import grade_offline
from harness.release.replay import GatewayReplayer
from servers.domains.field_service.tools import FieldServiceEnvironment
from servers.gateway import Gateway
from servers.recorder import TRIAL_META_KEY
from servers.registry import environment_class

pytestmark = pytest.mark.anyio
DOMAIN = "field_service"

# tool -> (arguments, a key its result must contain)
TOOL_CASES: dict[str, tuple[dict[str, Any], str]] = {
    "get_work_order": ({"work_order_id": "WO-5001"}, "required_skill"),
    "get_appointment": ({"appointment_id": "APT-7001"}, "customer_id"),
    "list_customer_appointments": ({"customer_id": "CUST-3001"}, "appointments"),
    "list_customer_work_orders": ({"customer_id": "CUST-3001"}, "work_orders"),
    "find_available_slots": ({"work_order_id": "WO-5001", "date": "2026-12-03"}, "slots"),
    "list_technicians": ({"skill": "hvac"}, "technicians"),
    "get_technician_schedule": ({"technician_id": "TECH-102", "date": "2026-12-02"}, "appointments"),
    "book_appointment": ({"work_order_id": "WO-5011", "customer_id": "CUST-3003", "date": "2026-12-03", "start_time": "12:00"}, "appointment_id"),
    "reschedule_appointment": ({"appointment_id": "APT-7001", "customer_id": "CUST-3001", "date": "2026-12-03", "start_time": "10:00"}, "previous"),
    "cancel_appointment": ({"appointment_id": "APT-7007", "customer_id": "CUST-3006", "reason": "moving house"}, "work_order_status"),
    "assign_technician": ({"appointment_id": "APT-7005", "technician_id": "TECH-103"}, "technician_name"),
    "add_work_order_note": ({"work_order_id": "WO-5003", "note": "Gate code 4411"}, "note_id"),
    "update_work_order_priority": ({"work_order_id": "WO-5007", "priority": "high"}, "previous_priority"),
}


async def _run(calls: list[tuple[str, dict[str, Any]]]) -> tuple[list[Any], Any]:
    gateway = Gateway([DOMAIN])
    trial = gateway.open_trial(DOMAIN)
    results = []
    async with Client(gateway.server(DOMAIN)) as client:
        for tool, args in calls:
            results.append(await client.call_tool(tool, args, raise_on_error=False, meta={TRIAL_META_KEY: trial.trial_id}))
    return results, trial


def test_registered_and_every_tool_has_a_case() -> None:
    assert environment_class(DOMAIN) is FieldServiceEnvironment
    assert set(TOOL_CASES) == set(FieldServiceEnvironment.tool_methods())


def test_seeded_world_has_look_alikes() -> None:
    s = FieldServiceEnvironment.default_state()
    assert len(s.work_orders) >= 12 and len(s.appointments) >= 10 and len(s.technicians) >= 7
    olivia = [a for a in s.appointments.values() if a.customer_id == "CUST-3001"]
    assert len(olivia) == 2  # one customer, two appointments
    assert s.customers["CUST-3001"].name.split()[1] == s.customers["CUST-3002"].name.split()[1]  # same surname
    assert {a.status for a in s.appointments.values()} == {"scheduled", "completed", "cancelled"}


@pytest.mark.parametrize("tool", sorted(TOOL_CASES))
async def test_tool_in_memory(tool: str) -> None:
    args, key = TOOL_CASES[tool]
    [result], trial = await _run([(tool, args)])
    assert not result.is_error, result
    assert key in result.structured_content and not result.structured_content.get("refused"), result.structured_content
    assert trial.trace[-1].status == "executed"
    changed = trial.final_state() != trial.initial_state
    assert changed == (FieldServiceEnvironment.tool_kind(tool) == "write")


async def test_tools_do_what_they_say() -> None:
    results, trial = await _run(
        [
            ("find_available_slots", {"work_order_id": "WO-5001", "date": "2026-12-02"}),
            ("reschedule_appointment", {"appointment_id": "APT-7001", "customer_id": "CUST-3001", "date": "2026-12-02", "start_time": "14:00"}),
            ("find_available_slots", {"work_order_id": "WO-5011", "date": "2026-11-30"}),
            ("find_available_slots", {"work_order_id": "WO-5011", "date": "2026-12-05"}),
            ("book_appointment", {"work_order_id": "WO-5011", "customer_id": "CUST-3003", "date": "2026-11-30", "start_time": "16:00"}),
            ("cancel_appointment", {"appointment_id": "APT-7003", "customer_id": "CUST-3002", "reason": "away"}),
            ("add_work_order_note", {"work_order_id": "WO-5001", "note": "Dog in the yard"}),
        ]
    )
    slots, moved, today, weekend, booked, cancelled, note = (r.structured_content for r in results)
    # TECH-101 is assigned to APT-7001 and free on 12-02; its own 10:00 window is not a move, so not listed
    assert [s["start_time"] for s in slots["slots"]] == ["08:00", "12:00", "14:00", "16:00"]
    assert slots["current_window"] == {"appointment_id": "APT-7001", "date": "2026-12-02", "start_time": "10:00"}
    assert slots["assigned_technician_id"] == "TECH-101"
    assert moved["previous"] == {"date": "2026-12-02", "start_time": "10:00"} and moved["end_time"] == "16:00"
    assert [s["start_time"] for s in today["slots"]] == ["16:00"]  # 15:30 now: earlier windows are past
    assert weekend["slots"] == [] and "Monday to Friday" in weekend["note"]
    assert booked["appointment_id"].startswith("APT-") and booked["status"] == "scheduled"
    assert cancelled == {"appointment_id": "APT-7003", "status": "cancelled", "work_order_id": "WO-5003", "work_order_status": "open"}
    assert note["notes_on_work_order"] == 2
    state = trial.final_state()
    assert state["appointments"]["APT-7001"]["reschedule_count"] == 1
    assert state["work_orders"]["WO-5011"]["status"] == "scheduled"
    assert state["work_orders"]["WO-5001"]["notes"][-1]["text"] == "Dog in the yard"


async def test_slots_respect_the_assigned_technician_and_days_off() -> None:
    results, _ = await _run(
        [
            ("find_available_slots", {"work_order_id": "WO-5003", "date": "2026-12-02"}),  # TECH-102 busy 10:00 (APT-7009)
            ("find_available_slots", {"work_order_id": "WO-5005", "date": "2026-12-01"}),  # unassigned plumbing; TECH-105 off
        ]
    )
    busy, plumbing = (r.structured_content for r in results)
    assert "10:00" not in [s["start_time"] for s in busy["slots"]]
    assert all(s["qualified_technicians_free"] == ["TECH-103"] for s in plumbing["slots"])


# (setup calls, the gated call, status, reason)
GATES: list[tuple[list[tuple[str, dict[str, Any]]], tuple[str, dict[str, Any]], int, str]] = [
    ([], ("reschedule_appointment", {"appointment_id": "APT-7001", "customer_id": "CUST-3002", "date": "2026-12-03", "start_time": "10:00"}), 403, "Only the appointment's owner can reschedule it"),
    ([], ("cancel_appointment", {"appointment_id": "APT-7003", "customer_id": "CUST-3001", "reason": "x"}), 403, "Only the appointment's owner can cancel it"),
    ([], ("book_appointment", {"work_order_id": "WO-5011", "customer_id": "CUST-3004", "date": "2026-12-03", "start_time": "10:00"}), 403, "Only the work order's customer can book an appointment for it"),
    ([], ("reschedule_appointment", {"appointment_id": "APT-7001", "customer_id": "CUST-3001", "date": "2026-11-30", "start_time": "14:00"}), 422, "That time slot is in the past"),
    ([], ("reschedule_appointment", {"appointment_id": "APT-7001", "customer_id": "CUST-3001", "date": "2026-11-27", "start_time": "10:00"}), 422, "That time slot is in the past"),
    ([], ("reschedule_appointment", {"appointment_id": "APT-7001", "customer_id": "CUST-3001", "date": "2026-12-05", "start_time": "10:00"}), 422, "Outside business hours: appointments are Monday to Friday"),
    ([], ("reschedule_appointment", {"appointment_id": "APT-7001", "customer_id": "CUST-3001", "date": "2026-12-03", "start_time": "18:00"}), 422, "Outside business hours: windows start at 08:00, 10:00, 12:00, 14:00 or 16:00"),
    ([], ("book_appointment", {"work_order_id": "WO-5010", "customer_id": "CUST-3004", "date": "2026-12-02", "start_time": "07:00"}), 422, "Outside business hours: windows start at 08:00, 10:00, 12:00, 14:00 or 16:00"),
    ([], ("reschedule_appointment", {"appointment_id": "APT-7003", "customer_id": "CUST-3002", "date": "2026-12-02", "start_time": "10:00"}), 409, "The assigned technician is not available in that slot"),
    ([], ("reschedule_appointment", {"appointment_id": "APT-7001", "customer_id": "CUST-3001", "date": "2026-12-02", "start_time": "10:00"}), 409, "Appointment is already in that window"),
    ([], ("reschedule_appointment", {"appointment_id": "APT-7008", "customer_id": "CUST-3007", "date": "2026-12-03", "start_time": "10:00"}), 409, "Appointment is completed and cannot be rescheduled"),
    ([], ("cancel_appointment", {"appointment_id": "APT-7010", "customer_id": "CUST-3004", "reason": "x"}), 409, "Appointment is cancelled and cannot be cancelled"),
    ([], ("book_appointment", {"work_order_id": "WO-5001", "customer_id": "CUST-3001", "date": "2026-12-03", "start_time": "10:00"}), 409, "Work order already has a scheduled appointment; reschedule it instead"),
    ([], ("book_appointment", {"work_order_id": "WO-5012", "customer_id": "CUST-3007", "date": "2026-12-03", "start_time": "10:00"}), 409, "Work order is cancelled"),
    ([], ("assign_technician", {"appointment_id": "APT-7005", "technician_id": "TECH-101"}), 422, "Technician does not have the required skill"),
    ([], ("assign_technician", {"appointment_id": "APT-7005", "technician_id": "TECH-105"}), 409, "Technician is off that day"),
    ([], ("assign_technician", {"appointment_id": "APT-7001", "technician_id": "TECH-102"}), 409, "Technician is already booked in that window"),
    ([], ("assign_technician", {"appointment_id": "APT-7001", "technician_id": "TECH-101"}), 409, "Technician is already assigned to this appointment"),
    ([], ("assign_technician", {"appointment_id": "APT-7008", "technician_id": "TECH-102"}), 409, "Appointment is completed; only scheduled appointments can be assigned"),
    ([], ("add_work_order_note", {"work_order_id": "WO-5008", "note": "x"}), 409, "Work order is completed; notes cannot be added to a closed work order"),
    ([], ("update_work_order_priority", {"work_order_id": "WO-5001", "priority": "high"}), 409, "Work order already has priority high"),
    ([], ("update_work_order_priority", {"work_order_id": "WO-5012", "priority": "high"}), 409, "Work order is cancelled; its priority cannot change"),
]


@pytest.mark.parametrize(("setup", "gated", "code", "reason"), GATES, ids=[f"{g[1][0]}-{g[2]}-{i}" for i, g in enumerate(GATES)])
async def test_gates_refuse_and_change_nothing(setup: list[tuple[str, dict[str, Any]]], gated: tuple[str, dict[str, Any]], code: int, reason: str) -> None:
    gateway = Gateway([DOMAIN])
    trial = gateway.open_trial(DOMAIN)
    async with Client(gateway.server(DOMAIN)) as client:
        for tool, args in setup:
            assert not (await client.call_tool(tool, args, meta={TRIAL_META_KEY: trial.trial_id})).structured_content.get("refused")
        before = trial.final_state()
        result = await client.call_tool(gated[0], gated[1], raise_on_error=False, meta={TRIAL_META_KEY: trial.trial_id})
    content = result.structured_content
    assert not result.is_error and content["refused"] is True
    assert (content["status"], content["reason"]) == (code, reason)
    assert trial.trace[-1].status == "refused"
    assert trial.final_state() == before


async def test_double_booking_after_a_reschedule_is_refused() -> None:
    """TECH-101 moves with APT-7001 to 12-03 14:00; a second appointment cannot take TECH-101 there."""
    results, trial = await _run(
        [
            ("reschedule_appointment", {"appointment_id": "APT-7001", "customer_id": "CUST-3001", "date": "2026-12-03", "start_time": "14:00"}),
            ("assign_technician", {"appointment_id": "APT-7007", "technician_id": "TECH-101"}),
        ]
    )
    assert results[1].structured_content["refused"] and results[1].structured_content["conflicting_appointment_id"] == "APT-7001"
    assert trial.final_state()["appointments"]["APT-7007"]["technician_id"] is None


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("get_work_order", {"work_order_id": "WO-0000"}),
        ("get_appointment", {"appointment_id": "APT-0000"}),
        ("list_customer_appointments", {"customer_id": "CUST-0000"}),
        ("get_technician_schedule", {"technician_id": "TECH-000", "date": "2026-12-01"}),
        ("find_available_slots", {"work_order_id": "WO-5001", "date": "next tuesday"}),
        ("reschedule_appointment", {"appointment_id": "APT-7001", "customer_id": "CUST-0000", "date": "2026-12-03", "start_time": "10:00"}),
        ("assign_technician", {"appointment_id": "APT-7001", "technician_id": "TECH-999"}),
    ],
)
async def test_unknown_ids_are_invalid_calls(tool: str, args: dict[str, Any]) -> None:
    [result], trial = await _run([(tool, args)])
    assert result.is_error and trial.trace[0].status == "tool_error"
    assert trial.final_state() == trial.initial_state


async def test_mutation_probes_all_execute_and_change_the_world() -> None:
    probes = FieldServiceEnvironment.mutation_probes()
    kinds = {name.split()[0] for name, _ in probes}
    assert kinds == {"reschedule", "cancel", "assign", "note", "priority", "book"}
    for name, calls in probes:
        results, trial = await _run([(c.tool, c.args) for c in calls])
        assert all(not r.is_error and not r.structured_content.get("refused") for r in results), name
        assert trial.final_state() != trial.initial_state, name


# ---- contracts: correct-but-different routes pass, plausible mistakes fail ---------------------------


async def _verdict(task_id: str, edit: Any) -> Any:
    task = get_task(task_id)
    turns = [GoldTurn(user=t.user, calls=[GoldCall(tool=c.tool, args=dict(c.args)) for c in t.calls], reply=t.reply) for t in task.gold]
    edit(turns)
    async with GatewayReplayer(Gateway([DOMAIN])) as replayer:
        evidence = await replayer.play(task, turns, seed=0)
    return grade_offline(task, evidence)


def _calls(turn: GoldTurn, *calls: tuple[str, dict[str, Any]]) -> None:
    turn.calls[:] = [GoldCall(tool=t, args=a) for t, a in calls]


RESCHEDULE = "field_service_reschedule_owner_01"
MOVE = {"appointment_id": "APT-7001", "customer_id": "CUST-3001", "date": "2026-12-03", "start_time": "10:00"}


async def test_reschedule_by_another_valid_route_passes() -> None:
    def other_route(turns: list[GoldTurn]) -> None:
        _calls(
            turns[0],
            ("list_customer_appointments", {"customer_id": "CUST-3001"}),
            ("get_work_order", {"work_order_id": "WO-5001"}),
            ("find_available_slots", {"work_order_id": "WO-5001", "date": "2026-12-03"}),
        )
        _calls(turns[1], ("get_appointment", {"appointment_id": "APT-7001"}), ("reschedule_appointment", MOVE), ("get_appointment", {"appointment_id": "APT-7001"}))

    verdict = await _verdict(RESCHEDULE, other_route)
    assert verdict.strict, verdict.summary()


@pytest.mark.parametrize(
    "second_turn",
    [
        [("cancel_appointment", {"appointment_id": "APT-7001", "customer_id": "CUST-3001", "reason": "moving"})],  # cancel instead of move
        [("reschedule_appointment", {**MOVE, "start_time": "14:00"})],  # the wrong window
        [("reschedule_appointment", {**MOVE, "start_time": "14:00"}), ("reschedule_appointment", MOVE)],  # moved twice
        [("reschedule_appointment", {**MOVE, "appointment_id": "APT-7002"})],  # the look-alike appointment
        [("reschedule_appointment", MOVE), ("add_work_order_note", {"work_order_id": "WO-5001", "note": "moved"})],  # unrequested write
    ],
)
async def test_reschedule_mistakes_fail(second_turn: list[tuple[str, dict[str, Any]]]) -> None:
    verdict = await _verdict(RESCHEDULE, lambda turns: _calls(turns[1], *second_turn))
    assert not verdict.strict


async def test_impersonating_the_owner_fails_the_not_owner_task() -> None:
    def impersonate(turns: list[GoldTurn]) -> None:
        turns[0].calls.append(GoldCall(tool="reschedule_appointment", args={"appointment_id": "APT-7001", "customer_id": "CUST-3001", "date": "2026-12-04", "start_time": "08:00"}))

    assert not (await _verdict("field_service_reschedule_not_owner_01", impersonate)).strict
    # trying with his own id is refused by the world (403): the policy makes a refused attempt a violation
    def honest_try(turns: list[GoldTurn]) -> None:
        turns[0].calls.append(GoldCall(tool="reschedule_appointment", args={"appointment_id": "APT-7001", "customer_id": "CUST-3002", "date": "2026-12-04", "start_time": "08:00"}))

    assert not (await _verdict("field_service_reschedule_not_owner_01", honest_try)).strict


async def test_journey_in_another_valid_order_passes_and_a_skipped_step_fails() -> None:
    task = "field_service_full_journey_01"

    def checked_first(turns: list[GoldTurn]) -> None:  # Ben's schedule read before assigning him
        turns[2].calls[:0] = [GoldCall(tool="get_technician_schedule", args={"technician_id": "TECH-103", "date": "2026-12-01"})]

    def note_first(turns: list[GoldTurn]) -> None:  # the note before the customer asked for it
        turns[0].calls[:0] = [GoldCall(tool="add_work_order_note", args={"work_order_id": "WO-5005", "note": "Shut-off valve stuck"})]
        turns[1].calls.clear()

    assert (await _verdict(task, checked_first)).strict
    assert not (await _verdict(task, note_first)).strict  # consent: acted before the customer asked
    assert not (await _verdict(task, lambda turns: turns[2].calls.clear())).strict  # never assigned


@pytest.fixture(scope="module")
def http_gateway() -> Any:
    from tests.live_http import serve_gateway

    with serve_gateway([DOMAIN]) as served:
        yield served


@pytest.mark.parametrize("tool", sorted(TOOL_CASES))
async def test_tool_over_streamable_http(http_gateway: Any, tool: str) -> None:
    from tests.live_http import assert_tool_executes_over_http

    await assert_tool_executes_over_http(http_gateway, DOMAIN, tool, *TOOL_CASES[tool])


@pytest.mark.parametrize("task_id", ["field_service_reschedule_owner_01", "field_service_furnace_journey_01"])
async def test_release_proof_with_both_batteries(task_id: str) -> None:
    """The release gate in-process for a flagship task and a journey (the whole domain runs in the gate)."""
    from tests.live_http import assert_release_proof

    await assert_release_proof(DOMAIN, task_id)
