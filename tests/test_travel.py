"""The travel domain: every tool over the in-memory gateway, every policy gate (refused, state unchanged),
the settlement rules, the probes, and gold / alternative / mistaken trajectories of sample tasks."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import pytest
from fastmcp import Client

from contracts.catalog import get_task, load_catalog
from contracts.schema import GoldCall, GoldTurn, Task
from grader.grade import grade_offline
from harness.release.replay import GatewayReplayer
from servers.domains.travel.tools import TravelEnvironment
from servers.gateway import Gateway
from servers.recorder import TRIAL_META_KEY
from servers.registry import environment_class
from tests.live_http import assert_gate_refuses

pytestmark = pytest.mark.anyio

# tool -> (arguments, a key its result must contain)
TOOL_CASES: dict[str, tuple[dict[str, Any], str]] = {
    "get_traveller_profile": ({"traveller_id": "TRV-101"}, "payment_methods"),
    "get_booking": ({"booking_id": "PNR-K7Q2MA"}, "segments"),
    "search_flights": ({"origin": "BOS", "destination": "ORD", "date": "2026-12-10"}, "flights"),
    "get_flight": ({"flight_id": "AU210-1210"}, "free_seats"),
    "get_fare_rules": ({"fare_class": "basic"}, "changes"),
    "get_loyalty_account": ({"traveller_id": "TRV-101"}, "miles"),
    "search_hotels": ({"city": "Chicago", "check_in": "2026-12-10", "check_out": "2026-12-12"}, "hotels"),
    "get_hotel_stay": ({"stay_id": "STAY-4001"}, "cancel_deadline"),
    "quote_flight_change": ({"booking_id": "PNR-K7Q2MA", "flight_id": "AU210-1210", "new_flight_id": "AU210-1212"}, "fare_difference"),
    "quote_cancellation": ({"booking_id": "PNR-K7Q2MA"}, "outcome"),
    "book_flight": ({"traveller_id": "TRV-107", "flight_id": "AU331-1207", "fare_class": "standard", "passengers": ["Ines Duarte"], "payment_method_id": "PM-2290"}, "booking_id"),
    "change_flight": ({"booking_id": "PNR-K7Q2MA", "flight_id": "AU210-1210", "new_flight_id": "AU210-1212", "accepted_fare_difference": 40, "payment_method_id": "PM-4421"}, "fare_difference"),
    "change_seat": ({"booking_id": "PNR-E2KU9W", "flight_id": "AU330-1206", "passenger_name": "Marcus Bell", "seat": "14A"}, "seat"),
    "add_bags": ({"booking_id": "PNR-M3ZP9D", "passenger_name": "Omar Haddad", "bags": 1, "payment_method_id": "PM-3307"}, "fee_charged"),
    "cancel_booking": ({"booking_id": "PNR-M3ZP9D", "reason": "plans changed"}, "outcome"),
    "book_hotel": ({"traveller_id": "TRV-104", "hotel_id": "HTL-204", "room_type": "queen", "check_in": "2026-12-18", "check_out": "2026-12-21", "payment_method_id": "PM-1264"}, "stay_id"),
    "cancel_hotel_stay": ({"stay_id": "STAY-4003"}, "cancellation_fee"),
    "redeem_miles_upgrade": ({"booking_id": "PNR-V6RM1B", "flight_id": "AU512-1218"}, "miles_redeemed"),
    "credit_missing_miles": ({"booking_id": "PNR-H1LX8P", "flight_id": "AU330-1120"}, "miles_credited"),
}
ALWAYS_REFUSED = {"update_passenger_name"}


async def _call(client: Client, trial_id: str, tool: str, args: dict[str, Any]) -> Any:
    return await client.call_tool(tool, args, raise_on_error=False, meta={TRIAL_META_KEY: trial_id})


async def _run(calls: list[tuple[str, dict[str, Any]]], override: dict[str, Any] | None = None) -> tuple[list[Any], Any]:
    gateway = Gateway(["travel"])
    trial = gateway.open_trial("travel", initial_state=override)
    results = []
    async with Client(gateway.server("travel")) as client:
        for tool, args in calls:
            results.append(await _call(client, trial.trial_id, tool, args))
    return results, trial


def test_registered_and_every_tool_has_a_case() -> None:
    assert environment_class("travel") is TravelEnvironment
    assert set(TOOL_CASES) | ALWAYS_REFUSED == set(TravelEnvironment.tool_methods())


def test_seeded_world() -> None:
    state = TravelEnvironment.default_state()
    assert state.now == "2026-11-30T15:30"
    assert len(state.travellers) == 8 and len(state.bookings) == 16 and len(state.hotel_stays) == 7
    assert [t.name for t in state.travellers.values()].count("Nora Haddad") == 1
    assert sum(t.name.endswith("Haddad") for t in state.travellers.values()) == 2  # look-alike surnames
    assert {b.fare_class for b in state.bookings.values()} == {"basic", "standard", "flexible"}
    nora_bos_ord = [b for b in state.bookings.values() if b.traveller_id == "TRV-101" and b.segments[0].flight_id[-4:] in ("1210", "1212") and b.segments[0].flight_id.startswith("AU21")]
    assert len(nora_bos_ord) == 2  # look-alike bookings on the same route
    for booking in state.bookings.values():  # an assigned seat is never also free
        for seg in booking.segments:
            free = state.flights[seg.flight_id].free_seats[seg.cabin]
            assert not set(seg.seats) & set(free), booking.booking_id


@pytest.fixture(scope="module")
def travel_http() -> Iterator[tuple[Gateway, str]]:
    """The real gateway app serving the travel domain over streamable HTTP; yields (gateway, its /travel/mcp url)."""
    from tests.live_http import serve_gateway

    with serve_gateway(["travel"]) as (gateway, base_url):
        yield gateway, f"{base_url}/travel/mcp"


async def test_every_tool_over_streamable_http(travel_http: tuple[Gateway, str]) -> None:
    gateway, url = travel_http
    for tool, (args, key) in sorted(TOOL_CASES.items()):
        trial = gateway.open_trial("travel")
        async with Client(f"{url}?trial={trial.trial_id}") as client:
            result = await client.call_tool(tool, args, raise_on_error=False)
        assert key in result.structured_content, (tool, result.structured_content)
        assert [(r.tool, r.status) for r in trial.trace] == [(tool, "executed")]


@pytest.mark.parametrize("tool", sorted(TOOL_CASES))
async def test_tool_in_memory(tool: str) -> None:
    args, key = TOOL_CASES[tool]
    [result], trial = await _run([(tool, args)])
    assert not result.is_error
    assert key in result.structured_content and not result.structured_content.get("refused"), result.structured_content
    assert trial.trace[-1].status == "executed"


# (calls made first, the refused call, status, reason)
GATES: list[tuple[list[tuple[str, dict[str, Any]]], tuple[str, dict[str, Any]], int, str]] = [
    ([], ("change_flight", {"booking_id": "PNR-R4T8VX", "flight_id": "AU214-1212", "new_flight_id": "AU214-1210", "accepted_fare_difference": -20}), 403, "Basic fares cannot be changed"),
    ([], ("change_seat", {"booking_id": "PNR-B6HN4S", "flight_id": "AU512-1218", "passenger_name": "Samuel Okoye", "seat": "12A"}), 403, "Basic fares cannot select or change seats"),
    ([], ("redeem_miles_upgrade", {"booking_id": "PNR-W5AK3N", "flight_id": "AU512-1220"}), 403, "Basic fares are not eligible for upgrades"),
    ([], ("update_passenger_name", {"booking_id": "PNR-F8WL2C", "passenger_name": "Wei Liu", "new_name": "William Liu"}), 403, "Passenger names cannot be changed"),
    ([], ("book_flight", {"traveller_id": "TRV-104", "flight_id": "AU720-1209", "fare_class": "basic", "passengers": ["Samuel Okoye"], "payment_method_id": "PM-9015"}), 403, "Payment must use a method on the traveller's profile"),
    ([], ("add_bags", {"booking_id": "PNR-E2KU9W", "passenger_name": "Marcus Bell", "bags": 1, "payment_method_id": "PM-7788"}), 403, "Payment must use a method on the traveller's profile"),
    ([], ("change_flight", {"booking_id": "PNR-K7Q2MA", "flight_id": "AU210-1210", "new_flight_id": "AU210-1212", "accepted_fare_difference": 40, "payment_method_id": "PM-3307"}), 403, "Payment must use a method on the traveller's profile"),
    ([], ("book_hotel", {"traveller_id": "TRV-102", "hotel_id": "HTL-201", "room_type": "suite", "check_in": "2026-12-12", "check_out": "2026-12-14", "payment_method_id": "PM-4421"}), 403, "Payment must use a method on the traveller's profile"),
    ([], ("change_flight", {"booking_id": "PNR-K7Q2MA", "flight_id": "AU210-1210", "new_flight_id": "AU210-1212", "accepted_fare_difference": 0, "payment_method_id": "PM-4421"}), 409, "The fare difference was not quoted and accepted as given"),
    ([], ("change_flight", {"booking_id": "PNR-K7Q2MA", "flight_id": "AU210-1210", "new_flight_id": "AU214-1212", "accepted_fare_difference": 20, "payment_method_id": "PM-4421"}), 409, "Not enough seats on the new flight"),
    ([], ("change_flight", {"booking_id": "PNR-K7Q2MA", "flight_id": "AU210-1210", "new_flight_id": "AU211-1214", "accepted_fare_difference": 10, "payment_method_id": "PM-4421"}), 422, "A change must keep the same route"),
    ([], ("redeem_miles_upgrade", {"booking_id": "PNR-M3ZP9D", "flight_id": "AU211-1214"}), 422, "Not enough miles for this upgrade"),
    ([], ("credit_missing_miles", {"booking_id": "PNR-M3ZP9D", "flight_id": "AU211-1214"}), 422, "Only flown flights can earn miles"),
    ([], ("credit_missing_miles", {"booking_id": "PNR-D4VE6R", "flight_id": "AU211-1127"}), 409, "Miles for this flight were already credited"),
    ([], ("credit_missing_miles", {"booking_id": "PNR-N8GS2U", "flight_id": "AU211-1127"}), 409, "Miles for this flight were already credited"),
    ([], ("cancel_booking", {"booking_id": "PNR-J5UB2Y"}), 422, "A flight of this booking has already been flown"),
    ([], ("cancel_booking", {"booking_id": "PNR-Z0CX4L"}), 409, "The booking is cancelled"),
    ([], ("add_bags", {"booking_id": "PNR-D4VE6R", "passenger_name": "Nora Haddad", "bags": 1, "payment_method_id": "PM-4421"}), 422, "Bags cannot be added to a booking with a flown flight"),
    ([], ("book_flight", {"traveller_id": "TRV-101", "flight_id": "AU210-1210", "fare_class": "standard", "passengers": ["Nora Haddad"], "payment_method_id": "PM-4421"}), 409, "A passenger is already booked on this flight"),
    # The same one-passenger-one-flight rule when a change would put Marcus on AU330-1206, where PNR-E2KU9W already has him.
    ([], ("change_flight", {"booking_id": "PNR-Q9YC5G", "flight_id": "AU334-1205", "new_flight_id": "AU330-1206", "accepted_fare_difference": 30, "payment_method_id": "PM-8842"}), 409, "A passenger is already booked on this flight"),
    ([], ("book_flight", {"traveller_id": "TRV-108", "flight_id": "AU214-1212", "fare_class": "standard", "passengers": ["Kenji Watanabe"], "payment_method_id": "PM-4713"}), 409, "Not enough economy seats left on this flight"),
    ([], ("book_hotel", {"traveller_id": "TRV-107", "hotel_id": "HTL-202", "room_type": "king", "check_in": "2026-12-10", "check_out": "2026-12-12", "payment_method_id": "PM-2290"}), 409, "No rooms of this type are left"),
    ([], ("book_hotel", {"traveller_id": "TRV-105", "hotel_id": "HTL-205", "room_type": "standard", "check_in": "2026-12-09", "check_out": "2026-12-10", "payment_method_id": "PM-5550"}), 409, "The traveller already has a stay at this hotel on these dates"),
    ([("cancel_hotel_stay", {"stay_id": "STAY-4003"})], ("cancel_hotel_stay", {"stay_id": "STAY-4003"}), 409, "The stay is already cancelled"),
    ([("add_bags", {"booking_id": "PNR-M3ZP9D", "passenger_name": "Omar Haddad", "bags": 3, "payment_method_id": "PM-3307"})], ("add_bags", {"booking_id": "PNR-M3ZP9D", "passenger_name": "Omar Haddad", "bags": 1, "payment_method_id": "PM-3307"}), 422, "At most 3 checked bags per passenger"),
]


@pytest.mark.parametrize(("setup", "call", "code", "reason"), GATES)
async def test_policy_gates_refuse_and_change_nothing(setup: list[tuple[str, dict[str, Any]]], call: tuple[str, dict[str, Any]], code: int, reason: str) -> None:
    await assert_gate_refuses("travel", setup, *call, code, reason)


# booking, expected outcome, amount, where it goes
CANCELLATIONS = [
    ("PNR-F8WL2C", "refund", 298.0, "PM-7788"),  # standard, booked 6 h ago: free 24-hour window
    ("PNR-B6HN4S", "refund", 368.0, "PM-1264"),  # basic, booked 23.5 h ago: still inside the window
    ("PNR-Q9YC5G", "travel_credit", 139.0, None),  # standard, booked 24.5 h ago: credit
    ("PNR-W5AK3N", "none", 0.0, None),  # basic after 24 h: nothing
    ("PNR-M3ZP9D", "refund", 289.0, "PM-3307"),  # flexible: refund to the original method
]


@pytest.mark.parametrize(("booking_id", "outcome", "amount", "method"), CANCELLATIONS)
async def test_cancellation_rules(booking_id: str, outcome: str, amount: float, method: str | None) -> None:
    [quote, result], trial = await _run([("quote_cancellation", {"booking_id": booking_id}), ("cancel_booking", {"booking_id": booking_id})])
    assert (quote.structured_content["outcome"], quote.structured_content["amount"]) == (outcome, amount)
    content = result.structured_content
    assert (content["outcome"], content["amount"]) == (outcome, amount)
    state = trial.final_state()
    assert state["bookings"][booking_id]["status"] == "cancelled"
    refunds = [r for r in state["refunds"].values() if r["booking_id"] == booking_id]
    credits = [c for c in state["travel_credits"].values() if c["booking_id"] == booking_id]
    assert [(r["amount"], r["payment_method_id"]) for r in refunds] == ([(amount, method)] if outcome == "refund" else [])
    assert [c["amount"] for c in credits] == ([amount] if outcome == "travel_credit" else [])


async def test_change_settlements_charge_credit_or_refund() -> None:
    results, trial = await _run(
        [
            ("change_flight", {"booking_id": "PNR-K7Q2MA", "flight_id": "AU210-1210", "new_flight_id": "AU214-1210", "accepted_fare_difference": -20}),
            ("change_flight", {"booking_id": "PNR-T2JD7E", "flight_id": "AU720-1208", "new_flight_id": "AU720-1209", "accepted_fare_difference": "-30"}),
            ("change_flight", {"booking_id": "PNR-C3PF7K", "flight_id": "AU720-1209", "new_flight_id": "AU720-1208", "accepted_fare_difference": 10.0, "payment_method_id": "PM-4713"}),
        ]
    )
    assert [r.structured_content["fare_difference"] for r in results] == [-20.0, -30.0, 10.0]
    state = trial.final_state()
    assert [(c["booking_id"], c["amount"]) for c in state["travel_credits"].values()] == [("PNR-K7Q2MA", 20.0)]  # standard: credit
    assert [(r["booking_id"], r["amount"], r["payment_method_id"]) for r in state["refunds"].values()] == [("PNR-T2JD7E", 30.0, "PM-5550")]  # flexible: refund
    assert state["bookings"]["PNR-C3PF7K"]["total_paid"] == 159.0
    t2 = state["bookings"]["PNR-T2JD7E"]
    assert t2["segments"][0]["seats"] == ["", "", ""] and {"12A", "12B", "12C"} <= set(state["flights"]["AU720-1208"]["free_seats"]["economy"])


async def test_hotel_cancellation_deadline_charges_one_night() -> None:
    [early, late], trial = await _run([("cancel_hotel_stay", {"stay_id": "STAY-4003"}), ("cancel_hotel_stay", {"stay_id": "STAY-4002"})])
    assert early.structured_content["cancellation_fee"] == 0.0 and early.structured_content["refunded"] == 558.0
    assert late.structured_content["cancellation_fee"] == 149.0 and late.structured_content["refunded"] == 149.0
    assert trial.final_state()["hotels"]["HTL-203"]["room_types"]["king"]["rooms_left"] == 3


async def test_gold_first_bag_free_and_upgrade_costs_per_passenger() -> None:
    [bags, upgrade], trial = await _run(
        [
            ("add_bags", {"booking_id": "PNR-T2JD7E", "passenger_name": "Ivan Petrov", "bags": 2, "payment_method_id": "PM-5550"}),
            ("redeem_miles_upgrade", {"booking_id": "PNR-T2JD7E", "flight_id": "AU720-1208"}),
        ]
    )
    assert bags.structured_content["fee_charged"] == 40.0  # gold: the first of the two bags is free
    assert upgrade.structured_content["miles_redeemed"] == 33000 and upgrade.structured_content["seats"] == ["2A", "2C", "3D"]
    assert trial.final_state()["loyalty_accounts"]["AM-100105"]["miles"] == 57500


async def test_quote_reports_refusals_without_changing_anything() -> None:
    [basic, sold_out], trial = await _run(
        [
            ("quote_flight_change", {"booking_id": "PNR-R4T8VX", "flight_id": "AU214-1212", "new_flight_id": "AU214-1210"}),
            ("quote_flight_change", {"booking_id": "PNR-K7Q2MA", "flight_id": "AU210-1210", "new_flight_id": "AU214-1212"}),
        ]
    )
    assert basic.structured_content["allowed"] is False and basic.structured_content["status"] == 403
    assert sold_out.structured_content["allowed"] is False and sold_out.structured_content["status"] == 409
    assert trial.final_state() == trial.initial_state


async def test_change_keeps_one_passenger_on_one_flight() -> None:
    """change_flight and its quote apply book_flight's rule: a passenger already on the new flight in another
    confirmed booking cannot be moved onto it; once that booking is cancelled, the same change is allowed."""
    move = {"booking_id": "PNR-Q9YC5G", "flight_id": "AU334-1205", "new_flight_id": "AU330-1206"}
    [quoted, refused, _, requoted], trial = await _run(
        [
            ("quote_flight_change", move),
            ("change_flight", {**move, "accepted_fare_difference": 30, "payment_method_id": "PM-8842"}),
            ("cancel_booking", {"booking_id": "PNR-E2KU9W", "reason": "no longer needed"}),
            ("quote_flight_change", move),
        ]
    )
    assert quoted.structured_content["allowed"] is False and quoted.structured_content["booking_id"] == "PNR-E2KU9W"
    assert refused.structured_content["refused"] and trial.trace[1].status == "refused"
    assert requoted.structured_content["allowed"] is True and requoted.structured_content["fare_difference"] == 30.0


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("get_booking", {"booking_id": "PNR-000000"}),
        ("get_traveller_profile", {"traveller_id": "TRV-999"}),
        ("change_seat", {"booking_id": "PNR-E2KU9W", "flight_id": "AU330-1206", "passenger_name": "Nobody", "seat": "14A"}),
        ("credit_missing_miles", {"booking_id": "PNR-H1LX8P", "flight_id": "AU330-1205"}),
        ("book_hotel", {"traveller_id": "TRV-104", "hotel_id": "HTL-204", "room_type": "penthouse", "check_in": "2026-12-18", "check_out": "2026-12-21", "payment_method_id": "PM-1264"}),
    ],
)
async def test_unknown_ids_are_invalid_calls(tool: str, args: dict[str, Any]) -> None:
    [result], trial = await _run([(tool, args)])
    assert result.is_error and trial.trace[0].status == "tool_error"
    assert trial.final_state() == trial.initial_state


async def test_mutation_probes_all_execute_and_change_the_world() -> None:
    probes = TravelEnvironment.mutation_probes()
    kinds = {name.split()[0] for name, _ in probes}
    assert {"cancel", "bags", "credit", "seat", "upgrade", "change", "book", "hotel"} <= kinds
    gateway = Gateway(["travel"])
    async with Client(gateway.server("travel")) as client:
        for name, calls in probes:
            trial = gateway.open_trial("travel")
            outcomes = [await _call(client, trial.trial_id, c.tool, c.args) for c in calls]
            assert all(not r.is_error and not r.structured_content.get("refused") for r in outcomes), (name, outcomes[-1].structured_content)
            assert trial.final_state() != trial.initial_state, name


# ---- catalog: gold paths, alternatives that must pass, mistakes that must fail -----------------------------


def _travel_tasks() -> list[Task]:
    return [t for t in load_catalog().values() if t.domain == "travel"]


def test_catalog_shape() -> None:
    tasks = _travel_tasks()
    assert len(tasks) == 93
    assert [sum(t.difficulty == d for t in tasks) for d in ("easy", "medium", "hard")] == [33, 35, 25]
    assert [sum(len(t.capabilities) == n for t in tasks) for n in (1, 2, 3, 4)] == [70, 12, 7, 4]
    labels = {label for t in tasks for label in t.capabilities}
    assert labels == {"flight_booking", "booking_changes", "cancellations", "hotel_booking", "loyalty_program"}


async def _grade(task: Task, turns: list[GoldTurn]) -> Any:
    async with GatewayReplayer(Gateway(["travel"])) as replayer:
        evidence = await replayer.play(task, turns, seed=0)
    return grade_offline(task, evidence)


def _with_calls(task: Task, per_turn: list[list[GoldCall]]) -> list[GoldTurn]:
    return [turn.model_copy(update={"calls": calls}) for turn, calls in zip(task.gold, per_turn, strict=True)]


async def test_sample_gold_paths_pass_and_noop_fails() -> None:
    for task_id in ("travel_change_date_pay_difference_01", "travel_standard_after_24h_credit_01", "travel_cancel_then_rebook_flexible_01", "travel_reshuffle_december_01"):
        task = get_task(task_id)
        assert (await _grade(task, list(task.gold))).strict, task_id
        noop = [GoldTurn(user=t.user, calls=[], reply="Sorry, I can't help.") for t in task.gold]
        assert not (await _grade(task, noop)).strict, task_id


async def test_change_before_the_customer_accepts_the_quote_fails() -> None:
    """The fare difference must be quoted and accepted first: changing in the first turn, before the quote, fails."""
    task = get_task("travel_change_date_pay_difference_01")
    change = task.gold[1].calls[0]
    first = [change] + list(task.gold[0].calls)
    verdict = await _grade(task, _with_calls(task, [first, []]))
    assert not verdict.strict and verdict.components["order"] is False


async def test_change_in_the_quote_turn_before_acceptance_fails() -> None:
    """Quoting and changing in one turn, without waiting for the customer to accept the amount, fails: the
    consent check (the customer's acceptance comes in turn 1) replaced the fixed `separate_turns` rule."""
    task = get_task("travel_change_date_pay_difference_01")
    change = task.gold[1].calls[0]
    verdict = await _grade(task, _with_calls(task, [list(task.gold[0].calls) + [change], []]))
    assert not verdict.strict and verdict.components["consent"] is False


async def test_correct_but_different_routes_pass() -> None:
    # extra reads, a re-quote after the customer accepts, and the amount written as a string
    task = get_task("travel_change_date_pay_difference_01")
    quote, change = task.gold[0].calls[-1], task.gold[1].calls[0]
    extra = [GoldCall(tool="get_traveller_profile", args={"traveller_id": "TRV-101"}), GoldCall(tool="get_fare_rules", args={"fare_class": "standard"})]
    spelled = change.model_copy(update={"args": {**change.args, "accepted_fare_difference": "40"}})
    verdict = await _grade(task, _with_calls(task, [extra + list(task.gold[0].calls), [quote, spelled]]))
    assert verdict.strict, verdict.summary()
    # cancelling via quote_cancellation instead of get_booking
    task = get_task("travel_standard_after_24h_credit_01")
    verdict = await _grade(task, _with_calls(task, [[GoldCall(tool="quote_cancellation", args={"booking_id": "PNR-Q9YC5G"})], list(task.gold[1].calls)]))
    assert verdict.strict, verdict.summary()


async def test_plausible_mistakes_fail() -> None:
    # the look-alike basic booking is cancelled instead of the standard one
    task = get_task("travel_standard_credit_keep_hotel_01")
    wrong = GoldCall(tool="cancel_booking", args={"booking_id": "PNR-R4T8VX"})
    assert not (await _grade(task, _with_calls(task, [list(task.gold[0].calls), [wrong]]))).strict
    # the hotel linked to the flight is cancelled too
    extra = GoldCall(tool="cancel_hotel_stay", args={"stay_id": "STAY-4001"})
    assert not (await _grade(task, _with_calls(task, [list(task.gold[0].calls), list(task.gold[1].calls) + [extra]]))).strict
    # rebooking before cancelling (the world refuses the duplicate, then the order is wrong)
    task = get_task("travel_cancel_then_rebook_flexible_01")
    cancel, book = task.gold[1].calls
    assert not (await _grade(task, _with_calls(task, [list(task.gold[0].calls), [book, cancel]]))).strict
    # an unrequested bag on the booking whose seat was changed
    task = get_task("travel_seat_change_simple_01")
    bag = GoldCall(tool="add_bags", args={"booking_id": "PNR-E2KU9W", "passenger_name": "Marcus Bell", "bags": 1, "payment_method_id": "PM-8842"})
    assert not (await _grade(task, _with_calls(task, [list(task.gold[0].calls) + [bag]]))).strict
    # attempting the name change the policy forbids, even though the world refuses it
    task = get_task("travel_name_change_refused_01")
    attempt = GoldCall(tool="update_passenger_name", args={"booking_id": "PNR-F8WL2C", "passenger_name": "Wei Liu", "new_name": "William Liu"})
    assert not (await _grade(task, _with_calls(task, [list(task.gold[0].calls) + [attempt], []]))).strict


def test_contracts_do_not_assume_a_minted_id() -> None:
    """Minted ids depend on the trial seed: no contract may name one."""
    for task in _travel_tasks():
        text = str(copy.deepcopy(task.contract.model_dump()))
        for prefix in ("STAY-", "PNR-", "CR-", "RF-"):
            for token in text.replace("'", " ").replace('"', " ").split():
                token = token.strip(",:}{[]")
                if token.startswith(prefix):
                    state = TravelEnvironment.initial_state(task.initial_state)
                    assert token in state.bookings or token in state.hotel_stays, (task.id, token)
