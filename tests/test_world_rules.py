"""World rules that closed reliability holes (issues 23-27): the shared Date/DateTime/ClockTime argument
types, and per-domain business rules an agent could get around before (seats, capacity, ownership,
session identity, loyalty points, paging). Each test fails without its fix.

Business rules are exercised on an environment bound to a fresh world (a refusal raises `Refusal`);
argument-format rules go through the in-memory gateway, because only there are the tools' declared
types enforced (an invalid value is a tool error, never a refusal or a crash)."""

from __future__ import annotations

from typing import Any

import pytest
from fastmcp import Client
from pydantic import TypeAdapter, ValidationError

from servers.base import ClockTime, Date, DateTime, IdMinter, Refusal, ToolEnvironment
from servers.gateway import Gateway
from servers.recorder import TRIAL_META_KEY
from servers.registry import environment_class, known_domains


def _env(domain: str, override: dict[str, Any] | None = None) -> ToolEnvironment[Any]:
    cls = environment_class(domain)
    return cls(cls.initial_state(override), IdMinter("world-rules"))


async def _gateway_calls(domain: str, calls: list[tuple[str, dict[str, Any]]], override: dict[str, Any] | None = None) -> tuple[list[Any], Any]:
    gateway = Gateway([domain])
    trial = gateway.open_trial(domain, initial_state=override)
    out = []
    async with Client(gateway.server(domain)) as client:
        for tool, args in calls:
            out.append(await client.call_tool(tool, args, raise_on_error=False, meta={TRIAL_META_KEY: trial.trial_id}))
    return out, trial


def _refused(code: int, fn: Any, **args: Any) -> Refusal:
    with pytest.raises(Refusal) as info:
        fn(**args)
    assert info.value.code == code, info.value.as_result()
    return info.value


# ---- the shared types ------------------------------------------------------------------------------
@pytest.mark.parametrize("text", ["20261202", "2026-W50-4", "2026-336", "2026-02-30", "2026-13-01", "2026-12-2", "12/02/2026", "2026-12-02T10:00", ""])
def test_date_rejects_every_non_canonical_or_impossible_date(text: str) -> None:
    with pytest.raises(ValidationError):
        TypeAdapter(Date).validate_python(text)


def test_date_keeps_canonical_dates_far_future_included() -> None:
    assert TypeAdapter(Date).validate_python(" 2026-12-02 ") == "2026-12-02"
    assert TypeAdapter(Date).validate_python("9999-12-31") == "9999-12-31"


@pytest.mark.parametrize("text", ["2026-12-32T25:99", "2026-12-03T24:00", "2026-12-03T09:60", "2026-12-03 9:00", "20261203T0900", "2026-12-03T09:00Z", "2026-12-03", "2026-02-29T10:00"])
def test_datetime_rejects_malformed_or_out_of_range(text: str) -> None:
    with pytest.raises(ValidationError):
        TypeAdapter(DateTime).validate_python(text)


def test_datetime_normalises_separator_and_zero_seconds() -> None:
    adapter = TypeAdapter(DateTime)
    assert adapter.validate_python("2026-12-03 09:00") == "2026-12-03T09:00"
    assert adapter.validate_python("2026-12-03T09:00:00") == "2026-12-03T09:00"
    assert adapter.validate_python("2026-12-03T09:00:30") == "2026-12-03T09:00:30"


def test_clock_time_normalises_single_digit_hours_and_rejects_the_rest() -> None:
    adapter = TypeAdapter(ClockTime)
    assert adapter.validate_python("9:00") == "09:00"
    assert adapter.validate_python("16:00") == "16:00"
    for bad in ("24:00", "9", "09:5", "0900", "9am"):
        with pytest.raises(ValidationError):
            adapter.validate_python(bad)


def test_schemas_carry_the_format() -> None:
    assert TypeAdapter(Date).json_schema()["pattern"] == r"^\d{4}-\d{2}-\d{2}$"
    assert "pattern" in TypeAdapter(DateTime).json_schema() and "pattern" in TypeAdapter(ClockTime).json_schema()


DATE_PARAMS: dict[str, list[tuple[str, str]]] = {
    "travel": [("search_flights", "date"), ("search_hotels", "check_in"), ("search_hotels", "check_out"), ("book_hotel", "check_in"), ("book_hotel", "check_out")],
    "field_service": [("find_available_slots", "date"), ("get_technician_schedule", "date"), ("book_appointment", "date"), ("reschedule_appointment", "date")],
}
DATETIME_PARAMS = {"itsm": [("submit_change", "scheduled_start")], "marketing": [("schedule_campaign", "send_at")]}
CLOCK_PARAMS = {"field_service": [("book_appointment", "start_time"), ("reschedule_appointment", "start_time")]}


@pytest.mark.parametrize(("domain", "tool", "param", "kind"), [(d, t, p, k) for k, table in (("date", DATE_PARAMS), ("datetime", DATETIME_PARAMS), ("clock", CLOCK_PARAMS)) for d, rows in table.items() for t, p in rows])
def test_every_date_and_time_parameter_uses_the_shared_type(domain: str, tool: str, param: str, kind: str) -> None:
    _, hints = environment_class(domain).tool_signature(tool)
    validator = {"date": "parse_date", "datetime": "parse_datetime", "clock": "parse_clock_time"}[kind]
    names = [getattr(getattr(m, "func", None), "__name__", "") for m in getattr(hints[param], "__metadata__", ())]
    assert validator in names, (domain, tool, param, names)


def test_no_other_tool_parameter_looks_like_a_date_or_time() -> None:
    """A date/time parameter that escaped the shared types would reopen the compact-date hole."""
    known = {(d, t, p) for table in (DATE_PARAMS, DATETIME_PARAMS, CLOCK_PARAMS) for d, rows in table.items() for t, p in rows}
    for domain in known_domains():
        cls = environment_class(domain)
        for tool in cls.tool_methods():
            sig, _ = cls.tool_signature(tool)
            for name in sig.parameters:
                if name in {"date", "check_in", "check_out", "start_time", "send_at", "scheduled_start"} or name.endswith(("_date", "_at", "_time")):
                    assert (domain, tool, name) in known, (domain, tool, name)


# ---- travel ----------------------------------------------------------------------------------------
def _five_seat_flight() -> dict[str, Any]:
    return {"flights": {"AU331-1207": {"free_seats": {"economy": ["12A", "12B", "12C", "14A", "14C"], "business": ["2A", "2C", "3D"]}}}}


PARTY = ["Ines Duarte", "Ana Ruiz", "Bo Lin", "Cy Park", "Di Moss"]


def test_travel_a_booking_takes_its_places_and_cancelling_returns_them() -> None:
    env = _env("travel", _five_seat_flight())
    first = env.book_flight(traveller_id="TRV-107", flight_id="AU331-1207", fare_class="standard", passengers=PARTY, payment_method_id="PM-2290")
    assert env.get_flight(flight_id="AU331-1207")["seats_left"]["economy"] == 0
    others = [f"Guest {i}" for i in range(5)]
    _refused(409, env.book_flight, traveller_id="TRV-107", flight_id="AU331-1207", fare_class="standard", passengers=others, payment_method_id="PM-2290")
    _refused(409, env.book_flight, traveller_id="TRV-107", flight_id="AU331-1207", fare_class="standard", passengers=others[:1], payment_method_id="PM-2290")
    env.cancel_booking(booking_id=first["booking_id"])
    assert env.get_flight(flight_id="AU331-1207")["seats_left"]["economy"] == 5
    env.book_flight(traveller_id="TRV-107", flight_id="AU331-1207", fare_class="standard", passengers=others, payment_method_id="PM-2290")


def test_travel_a_change_moves_the_places_to_the_new_flight() -> None:
    env = _env("travel", {"flights": {"AU210-1212": {"free_seats": {"economy": ["12A", "12B"], "business": []}}}})
    before = env.search_flights(origin="BOS", destination="ORD", date="2026-12-12")["flights"]
    left = {f["flight_id"]: f["economy_seats_left"] for f in before}["AU210-1212"]
    quote = env.quote_flight_change(booking_id="PNR-K7Q2MA", flight_id="AU210-1210", new_flight_id="AU210-1212")
    assert quote["allowed"], quote
    env.change_flight(booking_id="PNR-K7Q2MA", flight_id="AU210-1210", new_flight_id="AU210-1212", accepted_fare_difference=quote["fare_difference"], payment_method_id="PM-4421")
    after = {f["flight_id"]: f["economy_seats_left"] for f in env.search_flights(origin="BOS", destination="ORD", date="2026-12-12")["flights"]}
    assert after["AU210-1212"] == left - 1


@pytest.mark.parametrize("variant", ["ines duarte", "INES DUARTE", "  Ines   Duarte "])
def test_travel_the_same_passenger_cannot_be_booked_twice_by_case_or_spacing(variant: str) -> None:
    env = _env("travel")
    env.book_flight(traveller_id="TRV-107", flight_id="AU331-1207", fare_class="standard", passengers=["Ines Duarte"], payment_method_id="PM-2290")
    _refused(409, env.book_flight, traveller_id="TRV-107", flight_id="AU331-1207", fare_class="standard", passengers=[variant], payment_method_id="PM-2290")
    _refused(422, env.book_flight, traveller_id="TRV-107", flight_id="AU720-1209", fare_class="standard", passengers=["Ines Duarte", variant], payment_method_id="PM-2290")


def test_travel_an_upgraded_flight_cannot_be_changed_and_cancelling_returns_its_miles() -> None:
    env = _env("travel")
    miles = env.get_loyalty_account(traveller_id="TRV-101")["miles"]
    up = env.redeem_miles_upgrade(booking_id="PNR-K7Q2MA", flight_id="AU210-1210")
    assert env.get_loyalty_account(traveller_id="TRV-101")["miles"] == miles - up["miles_redeemed"]
    quote = env.quote_flight_change(booking_id="PNR-K7Q2MA", flight_id="AU210-1210", new_flight_id="AU210-1212")
    assert not quote["allowed"] and quote["status"] == 409
    _refused(409, env.change_flight, booking_id="PNR-K7Q2MA", flight_id="AU210-1210", new_flight_id="AU210-1212", accepted_fare_difference=40, payment_method_id="PM-4421")
    assert env.quote_cancellation(booking_id="PNR-K7Q2MA")["upgrade_miles_returned"] == up["miles_redeemed"]
    result = env.cancel_booking(booking_id="PNR-K7Q2MA")
    assert result["upgrade_miles_returned"] == up["miles_redeemed"]
    assert env.get_loyalty_account(traveller_id="TRV-101")["miles"] == miles


def test_travel_hotel_stays_have_a_maximum_length_and_horizon() -> None:
    env = _env("travel")
    args = {"traveller_id": "TRV-104", "hotel_id": "HTL-204", "room_type": "queen", "payment_method_id": "PM-1264"}
    _refused(422, env.book_hotel, check_in="2026-12-18", check_out="9999-12-31", **args)
    _refused(422, env.book_hotel, check_in="2026-12-18", check_out="2027-01-18", **args)
    _refused(422, env.book_hotel, check_in="9999-12-01", check_out="9999-12-02", **args)
    assert env.book_hotel(check_in="2026-12-18", check_out="2027-01-17", **args)["nights"] == 30


@pytest.mark.anyio
async def test_travel_compact_dates_are_invalid_calls_not_a_way_past_the_date_rules() -> None:
    base = {"traveller_id": "TRV-104", "hotel_id": "HTL-204", "room_type": "queen", "payment_method_id": "PM-1264"}
    results, trial = await _gateway_calls("travel", [
        ("book_hotel", {**base, "check_in": "20261125", "check_out": "20261127"}),
        ("book_hotel", {**base, "check_in": "2026-W48-3", "check_out": "2026-12-02"}),
        ("search_flights", {"origin": "BOS", "destination": "ORD", "date": "20261210"}),
        ("book_hotel", {**base, "check_in": "2026-11-25", "check_out": "2026-11-27"}),
    ])
    assert [r.is_error for r in results] == [True, True, True, False]
    assert [c.status for c in trial.trace[:3]] == ["tool_error"] * 3
    assert results[3].structured_content["refused"] and results[3].structured_content["status"] == 422


# ---- field service ---------------------------------------------------------------------------------
def test_field_service_slots_never_list_a_window_reschedule_refuses() -> None:
    """Every window find_available_slots lists for a booked work order is one reschedule accepts."""
    for apt_id, wo_id, customer in (("APT-7001", "WO-5001", "CUST-3001"), ("APT-7005", "WO-5005", "CUST-3004"), ("APT-7007", "WO-5007", "CUST-3006")):
        for day in ("2026-12-01", "2026-12-02", "2026-12-03", "2026-12-04"):
            listed = _env("field_service").find_available_slots(work_order_id=wo_id, date=day)
            for slot in listed["slots"]:
                env = _env("field_service")
                env.reschedule_appointment(appointment_id=apt_id, customer_id=customer, date=day, start_time=slot["start_time"])
    env = _env("field_service")
    listed = env.find_available_slots(work_order_id="WO-5001", date="2026-12-02")
    assert "10:00" not in [s["start_time"] for s in listed["slots"]]
    _refused(409, env.reschedule_appointment, appointment_id="APT-7001", customer_id="CUST-3001", date="2026-12-02", start_time="10:00")


def _second_solar_job() -> dict[str, Any]:
    return {
        "work_orders": {"WO-5090": {"work_order_id": "WO-5090", "customer_id": "CUST-3005", "site_id": "SITE-305", "asset_id": "AST-406",
                                    "summary": "Second solar inverter check", "required_skill": "solar", "status": "open"},
                        "WO-5091": {"work_order_id": "WO-5091", "customer_id": "CUST-3005", "site_id": "SITE-305", "asset_id": "AST-406",
                                    "summary": "Solar panel inspection", "required_skill": "solar", "status": "open"}},
    }


def test_field_service_unassigned_appointments_use_capacity() -> None:
    env = _env("field_service", _second_solar_job())  # one solar technician (TECH-106)
    env.book_appointment(work_order_id="WO-5090", customer_id="CUST-3005", date="2026-12-07", start_time="10:00")
    _refused(409, env.book_appointment, work_order_id="WO-5091", customer_id="CUST-3005", date="2026-12-07", start_time="10:00")
    assert "10:00" not in [s["start_time"] for s in env.find_available_slots(work_order_id="WO-5091", date="2026-12-07")["slots"]]
    env.book_appointment(work_order_id="WO-5091", customer_id="CUST-3005", date="2026-12-07", start_time="12:00")
    # APT-7006 (solar, TECH-106 assigned) cannot move into a window whose unassigned solar job needs TECH-106
    _refused(409, env.reschedule_appointment, appointment_id="APT-7006", customer_id="CUST-3005", date="2026-12-07", start_time="10:00")


def test_field_service_assigning_the_last_qualified_technician_away_is_refused() -> None:
    # TECH-106 (solar+electrical) and TECH-101/104 (electrical): an electrical job may not take the only solar technician
    env = _env("field_service", _second_solar_job())
    solar = env.book_appointment(work_order_id="WO-5090", customer_id="CUST-3005", date="2026-12-07", start_time="10:00")
    electrical = env.book_appointment(work_order_id="WO-5011", customer_id="CUST-3003", date="2026-12-07", start_time="10:00")
    _refused(409, env.assign_technician, appointment_id=electrical["appointment_id"], technician_id="TECH-106")
    env.assign_technician(appointment_id=electrical["appointment_id"], technician_id="TECH-104")
    env.assign_technician(appointment_id=solar["appointment_id"], technician_id="TECH-106")


@pytest.mark.anyio
async def test_field_service_compact_dates_and_bad_times_are_invalid_calls() -> None:
    book = {"work_order_id": "WO-5011", "customer_id": "CUST-3003"}
    results, trial = await _gateway_calls("field_service", [
        ("book_appointment", {**book, "date": "20261130", "start_time": "08:00"}),  # was: past-date rule bypassed
        ("book_appointment", {**book, "date": "2026-W49-2", "start_time": "10:00"}),  # 2026-12-01: TECH-105's day off
        ("find_available_slots", {"work_order_id": "WO-5011", "date": "20261202"}),
        ("book_appointment", {**book, "date": "2026-12-02", "start_time": "25:00"}),
        ("book_appointment", {**book, "date": "2026-12-02", "start_time": "8:00"}),  # normalised to 08:00
    ])
    assert [r.is_error for r in results] == [True, True, True, True, False]
    assert results[4].structured_content["start_time"] == "08:00"
    assert trial.final_state()["appointments"][results[4].structured_content["appointment_id"]]["start_time"] == "08:00"


# ---- customer support ------------------------------------------------------------------------------
def test_customer_support_no_credit_or_dispute_on_a_case_another_team_owns() -> None:
    env = _env("customer_support")
    env.authenticate_customer(customer_id="CUST-7012", pin="4480")
    _refused(403, env.apply_credit, invoice_id="INV-8012", case_id="CASE-5013", amount=20.0, reason="double charge")
    _refused(403, env.open_billing_dispute, invoice_id="INV-8012", case_id="CASE-5013", amount=20.0, reason="never ordered")
    assert env.state.credits == {} and env.state.invoices["INV-8012"].credited_total == 0


def _older_case(case_id: str, customer: str, product: str) -> dict[str, Any]:
    return {"cases": {case_id: {"case_id": case_id, "customer_id": customer, "subject": "Earlier report", "category": "technical",
                                "product": product, "impact": "minor", "created": "2026-11-20T10:00"}}}


def test_customer_support_merge_folds_the_newer_case_into_the_older() -> None:
    env = _env("customer_support")
    _refused(422, env.merge_cases, duplicate_case_id="CASE-5006", primary_case_id="CASE-5007")
    assert env.state.cases["CASE-5006"].status == "open"
    env.merge_cases(duplicate_case_id="CASE-5007", primary_case_id="CASE-5006")
    assert env.state.cases["CASE-5007"].status == "merged"


def test_customer_support_merge_has_the_guards_of_close() -> None:
    env = _env("customer_support", _older_case("CASE-5090", "CUST-7007", "mobile"))
    _refused(409, env.merge_cases, duplicate_case_id="CASE-5008", primary_case_id="CASE-5090")  # open dispute DSP-3001
    _refused(409, env.close_case, case_id="CASE-5008", resolution="done")
    env = _env("customer_support", _older_case("CASE-5091", "CUST-7005", "voice"))
    _refused(403, env.merge_cases, duplicate_case_id="CASE-5005", primary_case_id="CASE-5091")  # owned by tier2
    _refused(403, env.close_case, case_id="CASE-5005", resolution="done")
    assert env.state.cases["CASE-5005"].status == "escalated"


# ---- sales -----------------------------------------------------------------------------------------
def test_sales_ownership_follows_the_session_rep_not_an_argument() -> None:
    for tool in ("qualify_lead", "disqualify_lead", "convert_lead", "update_opportunity_stage"):
        sig, _ = environment_class("sales").tool_signature(tool)
        assert "rep_id" not in sig.parameters, tool
    env = _env("sales")  # signed in: REP-01 (Jordan Lee)
    refusal = _refused(403, env.convert_lead, lead_id="LEAD-1004", opportunity_name="Cedar", amount=90000)
    assert "REP-02" not in str(refusal.as_result()) and "Avery" not in str(refusal.as_result())
    refusal = _refused(403, env.update_opportunity_stage, opportunity_id="OPP-4003", stage="closed_won")
    assert "REP-02" not in str(refusal.as_result())
    # the same world with Avery Stone (REP-02) signed in: her lead converts, Jordan's cannot be touched
    env = _env("sales", {"session_rep_id": "REP-02"})
    _refused(403, env.qualify_lead, lead_id="LEAD-1001")
    _refused(403, env.update_opportunity_stage, opportunity_id="OPP-4001", stage="proposal")
    env.update_opportunity_stage(opportunity_id="OPP-4003", stage="closed_won")
    assert env.state.opportunities["OPP-4003"].stage == "closed_won"


# ---- payments --------------------------------------------------------------------------------------
def _paid_with_points(env: Any, amount: float) -> str:
    txn = env.process_payment(account_id="ACC-1002", amount=amount, method="account_balance", merchant="Bluebird Cafe")["transaction_id"]
    env.send_receipt(transaction_id=txn)
    env.award_loyalty_points(account_id="ACC-1002", transaction_id=txn)
    return txn


def test_payments_a_refund_takes_back_the_points_of_the_refunded_amount() -> None:
    env = _env("payments")
    env.authenticate_customer(customer_id="CUST-2002", pin="7314")
    txn = _paid_with_points(env, 45.80)
    assert env.state.accounts["ACC-1002"].loyalty_points == 458
    partial = env.refund_payment(transaction_id=txn, amount=5.00, reason="overcharged")
    assert partial["loyalty_points_reversed"] == 50 and env.state.accounts["ACC-1002"].loyalty_points == 408
    env.refund_payment(transaction_id=txn, amount=40.80, reason="cancelled")
    assert env.state.accounts["ACC-1002"].loyalty_points == 0 and env.state.loyalty_awards[txn].points == 0


def test_payments_refunded_or_disputed_payments_earn_no_points() -> None:
    env = _env("payments")
    env.authenticate_customer(customer_id="CUST-2002", pin="7314")
    txn = env.process_payment(account_id="ACC-1002", amount=20.00, method="account_balance")["transaction_id"]
    env.send_receipt(transaction_id=txn)
    env.refund_payment(transaction_id=txn, amount=20.00, reason="cancelled")
    _refused(409, env.award_loyalty_points, account_id="ACC-1002", transaction_id=txn)
    part = env.process_payment(account_id="ACC-1002", amount=30.00, method="account_balance")["transaction_id"]
    env.send_receipt(transaction_id=part)
    env.refund_payment(transaction_id=part, amount=10.00, reason="one item back")
    assert env.award_loyalty_points(account_id="ACC-1002", transaction_id=part)["points_awarded"] == 200
    env.authenticate_customer(customer_id="CUST-2006", pin="9402")
    env.send_receipt(transaction_id="TXN-U1V2W3")
    _refused(409, env.award_loyalty_points, account_id="ACC-1006", transaction_id="TXN-U1V2W3")


# ---- marketing -------------------------------------------------------------------------------------
@pytest.mark.anyio
async def test_marketing_send_times_use_the_shared_datetime() -> None:
    results, trial = await _gateway_calls("marketing", [
        ("schedule_campaign", {"campaign_id": "CMP-5007", "send_at": "next Thursday"}),
        ("schedule_campaign", {"campaign_id": "CMP-5007", "send_at": "2026-12-03 9:00"}),  # single-digit hour
        ("schedule_campaign", {"campaign_id": "CMP-5007", "send_at": "2026-12-32T25:99"}),
        ("schedule_campaign", {"campaign_id": "CMP-5007", "send_at": "2026-11-30T09:00"}),  # well-formed, past: 422
        ("schedule_campaign", {"campaign_id": "CMP-5007", "send_at": "2026-12-03 09:00"}),
    ])
    assert [r.is_error for r in results] == [True, True, True, False, False]
    assert [c.status for c in trial.trace[:3]] == ["tool_error"] * 3
    assert results[3].structured_content["status"] == 422
    assert results[4].structured_content["send_at"] == "2026-12-03T09:00"
    assert trial.final_state()["campaigns"]["CMP-5007"]["send_at"] == "2026-12-03T09:00"


# ---- itsm ------------------------------------------------------------------------------------------
def test_itsm_a_p1_cannot_shed_its_page_by_lowering_its_impact() -> None:
    env = _env("itsm")
    env.update_incident(incident_id="INC-2003", impact="high")  # medium/high -> high/high = P1, not paged
    assert env.state.incidents["INC-2003"].priority == "P1"
    _refused(422, env.update_incident, incident_id="INC-2003", impact="medium")
    _refused(422, env.resolve_incident, incident_id="INC-2003", resolution_code="fixed", resolution_notes="router restarted")
    env.page_on_call(incident_id="INC-2003")
    env.update_incident(incident_id="INC-2003", impact="medium")  # paged: the correction is allowed
    env.resolve_incident(incident_id="INC-2003", resolution_code="fixed", resolution_notes="router restarted")


@pytest.mark.anyio
async def test_itsm_scheduled_start_is_a_real_datetime() -> None:
    base = {"user_id": "USR-1005", "ci_id": "CI-3003", "title": "Patch", "change_type": "standard"}
    results, trial = await _gateway_calls("itsm", [
        ("submit_change", {**base, "scheduled_start": "2026-12-32T25:99"}),
        ("submit_change", {**base, "scheduled_start": "2026-02-30T10:00"}),
        ("submit_change", {**base, "scheduled_start": "20261205T2200"}),
        ("submit_change", {**base, "scheduled_start": "2026-12-05 22:00"}),
    ])
    assert [r.is_error for r in results] == [True, True, True, False]
    change_id = results[3].structured_content["change_id"]
    assert trial.final_state()["changes"][change_id]["scheduled_start"] == "2026-12-05T22:00"
