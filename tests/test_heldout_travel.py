"""Held-out trajectories for the travel contracts: mistakes a reviewer would make that the generated
batteries do not try (each must fail strictly), and correct routes other than the gold path (each must
pass). Every trajectory is the gold dialogue with one edit, played through the real gateway and graded
offline, so a verdict here is what a recorded run would get."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest

from contracts.catalog import get_task
from contracts.schema import GoldCall, GoldTurn
from grader.grade import grade_offline
from harness.release.replay import GatewayReplayer
from servers.gateway import Gateway

pytestmark = pytest.mark.anyio

DOMAIN = "travel"


@dataclass
class Call:
    tool: str
    args: dict[str, Any]


@dataclass
class Turn:
    """A mutable copy of one gold turn (the schema's turns are frozen)."""

    user: str
    calls: list[Call] = field(default_factory=list)
    reply: str = ""


Edit = Callable[[list[Turn]], None]


async def _verdict(task_id: str, edit: Edit) -> Any:
    task = get_task(task_id)
    turns = [Turn(t.user, [Call(c.tool, dict(c.args)) for c in t.calls], t.reply) for t in task.gold]
    edit(turns)
    played = [GoldTurn(user=t.user, calls=[GoldCall(tool=c.tool, args=c.args) for c in t.calls], reply=t.reply) for t in turns]
    async with GatewayReplayer(Gateway([DOMAIN])) as replayer:
        evidence = await replayer.play(task, played, seed=0)
    return grade_offline(task, evidence)


def _call(turns: list[Turn], tool: str) -> Call:
    return next(c for t in turns for c in t.calls if c.tool == tool)


def _reply(turn: int, old: str, new: str) -> Edit:
    def edit(turns: list[Turn]) -> None:
        assert old in turns[turn].reply
        turns[turn].reply = turns[turn].reply.replace(old, new)

    return edit


def _unlink_stay(turns: list[Turn]) -> None:
    _call(turns, "book_hotel").args.pop("booking_id")


def _link_stay(turns: list[Turn]) -> None:
    _call(turns, "book_hotel").args["booking_id"] = "PNR-B6HN4S"


def _also_cancel_another_booking(turns: list[Turn]) -> None:
    turns[-1].calls.append(Call("cancel_booking", {"booking_id": "PNR-R4T8VX", "reason": "tidy up"}))


def _try_refused_upgrade(turns: list[Turn]) -> None:
    turns[0].calls.append(Call("redeem_miles_upgrade", {"booking_id": "PNR-M3ZP9D", "flight_id": "AU211-1214"}))


def _try_credited_leg(turns: list[Turn]) -> None:
    turns[0].calls.append(Call("credit_missing_miles", {"booking_id": "PNR-N8GS2U", "flight_id": "AU211-1127"}))


def _try_flown_lookalike(turns: list[Turn]) -> None:
    turns[2].calls.insert(0, Call("cancel_booking", {"booking_id": "PNR-J5UB2Y"}))


def _book_the_wrong_passenger(turns: list[Turn]) -> None:
    _call(turns, "book_flight").args["passengers"] = ["Elena Petrova"]


def _quote_and_cancel_in_one_reply(turns: list[Turn]) -> None:
    """The agent explains the travel credit and cancels in the same reply, before the customer decided."""
    turns[0].calls.append(turns[1].calls.pop())


MISTAKES: dict[str, tuple[str, Edit]] = {
    # a wrong fact in a reply: the refund of a flexible fare described as travel credit
    "refund_told_as_credit": ("travel_flexible_refund_simple_01", _reply(0, "the full $239.00 is refunded to your Amex PM-8842", "the $239.00 becomes travel credit")),
    # a wrong amount for the asked bag fee
    "bag_fee_wrong_value": ("travel_add_one_bag_01", _reply(0, "$40.00", "$80.00")),
    # a created record that is not what the customer asked for: the stay not linked to the new flight
    "stay_not_linked": ("travel_flight_plus_hotel_01", _unlink_stay),
    # ... or linked where the customer said not to link it
    "stay_linked_against_the_ask": ("travel_book_miami_three_nights_01", _link_stay),
    # collateral: another of the traveller's bookings cancelled on a read-only task
    "collateral_cancel": ("travel_balance_and_tier_01", _also_cancel_another_booking),
    # refused attempts the reads predicted (the policy makes them violations)
    "upgrade_without_miles": ("travel_upgrade_not_enough_miles_01", _try_refused_upgrade),
    "credit_an_already_credited_leg": ("travel_missing_miles_one_of_two_01", _try_credited_leg),
    "cancel_the_flown_lookalike_first": ("travel_flown_lookalike_identify_01", _try_flown_lookalike),
    # the wrong passenger on a booking for someone else
    "wrong_passenger": ("travel_book_for_daughter_01", _book_the_wrong_passenger),
    # acting before the customer decided: credit explained and booking cancelled in the same reply
    "credit_cancel_before_decision": ("travel_standard_after_24h_credit_01", _quote_and_cancel_in_one_reply),
}


@pytest.mark.parametrize("name", sorted(MISTAKES))
async def test_held_out_mistake_fails(name: str) -> None:
    task_id, edit = MISTAKES[name]
    verdict = await _verdict(task_id, edit)
    assert not verdict.strict, f"{name}: {verdict.summary()}"


def _lower_case_search(turns: list[Turn]) -> None:
    _call(turns, "search_flights").args.update(origin="sfo", destination="sea")


def _quote_before_cancelling(turns: list[Turn]) -> None:
    turns[0].calls.insert(0, Call("quote_cancellation", {"booking_id": "PNR-E2KU9W"}))


def _authorise_change_up_front(turns: list[Turn]) -> None:
    """The customer accepts the difference in the first message; the agent quotes and changes at once."""
    turns[0].user += " Yes, $40 is fine, put it on my Amex PM-9015."
    turns[0].calls.extend(turns[1].calls)
    turns[1].calls = []


def _hotel_city_other_case(turns: list[Turn]) -> None:
    _call(turns, "search_hotels").args["city"] = "miami"


ROUTES: dict[str, tuple[str, Edit]] = {
    "search_in_lower_case": ("travel_book_one_way_standard_01", _lower_case_search),
    "quote_then_cancel": ("travel_flexible_refund_simple_01", _quote_before_cancelling),
    "fare_difference_accepted_up_front": ("travel_change_date_pay_difference_01", _authorise_change_up_front),
    "hotel_search_lower_case_city": ("travel_book_miami_three_nights_01", _hotel_city_other_case),
}


@pytest.mark.parametrize("name", sorted(ROUTES))
async def test_held_out_valid_route_passes(name: str) -> None:
    task_id, edit = ROUTES[name]
    verdict = await _verdict(task_id, edit)
    assert verdict.strict, f"{name}: {verdict.summary()}"
