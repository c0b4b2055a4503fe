"""A condition that restates what the agent said of the option it proposes, with the visit's own verb in "-ing"
("as long as it's Alex coming out" when the agent said "Alex Moreno has one morning window free"), is kept by
that statement; a condition naming another person, or anything the agent did not say, still cannot be checked.
Found by trying answers of my own (no calibration case uses them)."""

from __future__ import annotations

import pytest

from contracts.schema import ConsentCheck
from grader.consent import decide
from tests.consent_model import ask

RESCHEDULE = ConsentCheck(tool="reschedule_appointment", decision="the customer agreed to the new window", upfront=False)
OFFER = ("On Thursday 3 December Alex Moreno has one morning window free, 10:00-12:00; 14:00 and 16:00 are open in "
         "the afternoon. Shall I move APT-7001 to 10:00 on Thursday?")
CALL = {"appointment_id": "APT-7001", "date": "2026-12-03", "start_time": "10:00"}


@pytest.mark.parametrize(("answer", "expected"), [
    ("Yes, as long as it's Alex coming out.", True),
    ("ok if Alex is doing it", True),
    ("Fine, provided it's Alex handling the visit in the morning.", True),
    ("Yes, as long as it's Priya coming out.", False),
    ("yes if it's Alex doing the work and he's bringing the part", False),  # the part: nothing the agent said
    ("Yes, as long as Alex isn't coming late.", False),
])
def test_a_condition_on_what_the_agent_said_of_the_option(answer: str, expected: bool) -> None:
    turns = [("user", "Can APT-7001 go to Thursday morning instead?"), ("assistant", OFFER), ("user", answer)]
    assert decide(ask(RESCHEDULE, turns, CALL)).granted is expected
