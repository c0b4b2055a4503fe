"""Round 4, reply words (branch r4-words): classes of English the evidence judge reads, each with sentences of
our own (not the calibration sets') that must pass and counterparts that must fail (a wrong value, a wrong
status, a negation, an offer)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from grader.text.units import _sentences
from grader.text.values import find_values
from tests.reply_judge import passes


def _number(text: str) -> list[Decimal]:
    return [v.value for v in find_values(text) if v.kind == "number"]


# ---- class: money in other written forms (decimal comma, cents in words after any word, dollars + bare cents) ----


@pytest.mark.parametrize(
    ("reply", "ok"),
    [
        ("Your balance stands at $1.204,75 this morning.", True),
        ("Available: €1.204,75", True),
        ("Balance is US$1.204,75 after the transfer.", True),
        ("You have one thousand two hundred four dollars seventy-five in savings.", True),
        ("Balance is $1.204,57 this morning.", False),  # wrong cents
        ("Balance is $1,204 this morning.", False),  # twelve hundred and four, not the amount
        ("Your balance isn't $1.204,75 any more; it's lower.", False),
    ],
)
def test_money_forms(reply: str, ok: bool) -> None:
    assert passes("Gives the balance of $1,204.75.", ["1204.75"], reply) is ok


def test_cents_in_words_after_any_word_and_a_comma_list_is_no_money() -> None:
    assert Decimal("0.25") in _number("Calls are charged at twenty-five cents a minute.")
    assert Decimal("0.05") in _number("It's billed at five cents per text.")
    assert passes("States the $0.15 per MB rate.", ["0.15"], "Data is charged at fifteen cents per MB abroad.")
    assert not passes("States the $0.15 per MB rate.", ["0.15"], "Data is charged at fifty cents per MB abroad.")
    assert not any(v.money for v in find_values("Pick rows 3,20 or 4."))


# ---- class: a full numeric date in day-first order (both readings) -------------------------------------------


def test_day_first_full_dates() -> None:
    c, e = "Gives the delivery date of the order.", ["2026-12-04"]
    assert passes(c, e, "It should arrive on 04/12/2026 (the 4th of December).")
    assert passes(c, e, "Expected delivery: 12/04/2026.")
    assert not passes(c, e, "It should arrive on 05/12/2026.")
    assert not passes(c, e, "It should arrive on 04/11/2026.")


def test_month_abbreviation_with_a_point_does_not_end_the_sentence() -> None:
    assert _sentences("It went out on Dec. 3rd, 2026. Anything else?") == ["It went out on Dec. 3rd, 2026.", "Anything else?"]
    assert passes("Gives the ship date.", ["2026-12-03"], "It went out on Dec. 3rd, 2026.")
    assert not passes("Gives the ship date.", ["2026-12-03"], "It went out on Dec. 13th, 2026.")


# ---- class: a count said by "only <verb> one" --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reply", "ok"),
    [
        ("The Basic plan only allows one, and you have three.", True),
        ("Basic only covers one - you've got three connected.", True),
        ("The Basic plan only allows two, and you have three.", False),
        ("Basic only covers the one you picked.", False),
    ],
)
def test_only_verb_one(reply: str, ok: bool) -> None:
    assert passes("Explains the Basic plan allows only 1 integration.", ["1"], reply) is ok


# ---- class: codes, addresses and names in other writings ---------------------------------------------------------


def test_codes_addresses_and_initials() -> None:
    assert passes("Confirms seat 21C.", ["21C"], "Moved you to 21 C, an aisle seat.")
    assert not passes("Confirms seat 21C.", ["21C"], "Moved you to 21 D, an aisle seat.")
    assert not passes("Confirms seat 21C.", ["21C"], "It's 21 c of the total.")
    assert passes("Confirms the address.", ["42 Birch Avenue"], "It'll go to 42 Birch Ave. from now on.")
    assert passes("Confirms the address.", ["15 Harbour Street"], "Shipping to 15 Harbour St, apartment 2.")
    assert not passes("Confirms the address.", ["42 Birch Avenue"], "It'll go to 24 Birch Ave. from now on.")
    assert not passes("Confirms the address.", ["42 Birch Avenue"], "It'll go to 42 Birch Rd from now on.")
    assert passes("Names the assignee.", ["Lena Ortiz"], "Assignee: L. Ortiz (Service Desk).")
    assert not passes("Names the assignee.", ["Lena Ortiz"], "Assignee: M. Ortiz (Service Desk).")


# ---- class: a time stated with its date (a value is mislabelled only by an item of its own kind) -----------------


def test_a_time_said_with_its_date() -> None:
    c = "States that the change is scheduled for 2026-12-09 at 21:00."
    e = ["2026-12-09", "21:00"]
    assert passes(c, e, "It's scheduled to begin at 9 pm on Wednesday 9 December.")
    assert passes(c, e, "Kick-off is planned for 9 December, 9pm.")
    assert not passes(c, e, "It's scheduled to begin at 8 pm on Wednesday 9 December.")
    assert not passes(c, e, "It's scheduled to begin at 9 pm on Thursday 10 December.")


def test_an_answer_no_before_a_dash_does_not_negate_the_value() -> None:
    c, e = "Explains that $9,000 exceeds the daily limit of $5,000.", ["9000", "5000"]
    assert passes(c, e, "No - $9k is over your $5k daily limit, so it would bounce.")
    assert not passes(c, e, "No - $8k is over your $5k daily limit, so it would bounce.")


# ---- class: a state said by where the thing is now, or by an everyday verb ------------------------------------------


@pytest.mark.parametrize(
    ("criterion", "evidence", "reply", "ok"),
    [
        ("Confirms the quote email was sent.", ["sent"], "Your quote is on its way to Dana now.", True),
        ("Confirms the quote email was sent.", ["sent"], "It should already be in her inbox.", True),
        ("Confirms the quote email was sent.", ["sent"], "The quote isn't on its way yet; it's a draft.", False),
        ("Confirms the quote email was sent.", ["sent"], "It's still in draft.", False),
        ("Confirms Raj was added to the list.", ["added"], "Raj is now in the Spring leads list.", True),
        ("Confirms Raj was added to the list.", ["added"], "Raj isn't now in the Spring leads list.", False),
        ("Confirms the viewer role is granted.", ["granted"], "Viewer role: added.", True),
        ("Confirms the viewer role is granted.", ["granted"], "Viewer role: not added, it needs approval.", False),
        ("Confirms the viewer role is granted.", ["granted"], "The viewer role is a standard role.", False),
        ("Explains the technician is booked then.", [["booked", "busy"]], "Sorry, Omar is taken at 14:00.", True),
        ("Explains the technician is booked then.", [["booked", "busy"]], "Omar isn't taken at 14:00, he's free.", False),
        ("Confirms the booking was left unchanged.", ["unchanged"], "No worries, I've kept it as it was.", True),
        ("Confirms the booking was left unchanged.", ["unchanged"], "I've changed it to the 9th.", False),
        ("States the full refund.", [["refunded", "refund"]], "The full $88 goes back to your card within 5 days.", True),
        ("States the full refund.", [["refunded", "refund"]], "I can put it back on your card once you confirm.", False),
        ("Says the record is already deleted.", ["already deleted"], "That file is already gone; it was purged last week.", True),
        ("Says the record is already deleted.", ["already deleted"], "That file isn't gone; it's still on record.", False),
        ("Confirms the incident is degraded.", ["degraded"], "It's logged as a slowdown, not a full outage.", True),
        ("Confirms the incident is degraded.", ["degraded"], "It's logged as a full outage.", False),
        ("Says to check the edge device.", ["edge device"], "When a site drops, have a look at the edge appliance first and then the backup link.", True),
        ("Says to check the edge device.", ["edge device"], "When a site drops, have a look at the edge cabling first and then the backup link.", False),
    ],
)
def test_states_in_everyday_words(criterion: str, evidence: list, reply: str, ok: bool) -> None:
    assert passes(criterion, evidence, reply) is ok


# ---- class: a refusal said by a verb of permission/inclusion, or by a negated predicate after its subject --------------


@pytest.mark.parametrize(
    ("reply", "ok"),
    [
        ("On a saver fare, picking your seat isn't included.", True),
        ("Saver fares don't include choosing a seat; you get one at the gate.", True),
        ("Seat choice is not included with saver fares.", True),
        ("Seat selection is included with your fare.", False),
        ("Choosing a seat is allowed on this fare.", False),
        ("You're free to choose any seat.", False),
    ],
)
def test_seat_selection_refused(reply: str, ok: bool) -> None:
    assert passes("Explains the saver fare does not allow seat selection.", [["no seat selection", "cannot select"]], reply) is ok


@pytest.mark.parametrize(
    ("reply", "ok"),
    [
        ("The hotel has run out of twin rooms that week.", True),
        ("They're out of twin rooms on the 14th.", True),
        ("The hotel isn't out of twin rooms.", False),
        ("We still have twin rooms.", False),
        ("2 out of 6 twin rooms are free.", False),
    ],
)
def test_out_of_is_none_left(reply: str, ok: bool) -> None:
    assert passes("Tells the customer there are no twin rooms left.", [["no twin rooms", "no twin"]], reply) is ok


@pytest.mark.parametrize(
    ("reply", "ok"),
    [
        ("The carrier doesn't allow names on a ticket to be edited.", True),
        ("The carrier doesn't permit the name to be amended.", True),
        ("The carrier allows names to be edited for a fee.", False),
        ("Names can be changed online.", False),
    ],
)
def test_refusal_by_a_permission_verb(reply: str, ok: bool) -> None:
    assert passes("Explains that passenger names cannot be changed.", [["names cannot be changed", "name cannot be changed"]], reply) is ok


@pytest.mark.parametrize(
    ("reply", "ok"),
    [
        ("ORD-5 is already with the courier, so it's past the point where I can stop it.", True),
        ("It's too far along to pull it back now.", True),
        ("It hasn't shipped, so I can still cancel it.", False),
    ],
)
def test_too_far_along_to_cancel(reply: str, ok: bool) -> None:
    assert passes("Explains the order cannot be cancelled.", [["cannot be cancelled", "can't cancel"]], reply) is ok


@pytest.mark.parametrize(
    ("reply", "ok"),
    [
        ("I'm not able to pull up his bookings until he verifies.", True),
        ("I can't bring up her orders without her own PIN.", True),
        ("Here are her orders: ORD-1 and ORD-2.", False),
    ],
)
def test_cannot_show(reply: str, ok: bool) -> None:
    assert passes("Declines to show the other customer's orders.", [["can't show", "cannot show"]], reply) is ok
