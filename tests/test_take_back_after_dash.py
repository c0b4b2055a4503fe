"""A take-back after a dash or an ellipsis inside one sentence ("ORD-9001 has been delivered - sorry, that's wrong,
it hasn't arrived yet") is read as the same words after a full stop are: the statement before it is taken back.
Found by trying replies of my own on real criteria (none of them a calibration case): the take-back rules
(`grader.text.withdrawal`) work on sentences, and a dash kept the statement and its take-back in one."""

from __future__ import annotations

import pytest

from grader.text.units import _sentences
from tests.reply_judge import passes_in_catalog as _passes

DELIVERED = ("commerce_returns_01", "Tells the customer that order ORD-9001 has been delivered.")
PAGED = ("itsm_incident_raise_to_p1_01", "Confirms INC-2003 is now P1 and that Jamal Wright was paged.")



@pytest.mark.parametrize(
    ("where", "reply"),
    [
        (DELIVERED, "ORD-9001 has been delivered \u2014 sorry, that's wrong, it hasn't arrived yet."),
        (DELIVERED, "ORD-9001: delivered - no wait, not anymore, that was the old order; it's still in transit."),
        (DELIVERED, "ORD-9001 has been delivered - my mistake, it's still with the courier."),
        (DELIVERED, "ORD-9001 has been delivered - sorry, I misread: it's still with the courier."),
        (DELIVERED, "ORD-9001 has been delivered \u2014 wait, no, that's ORD-9002; ORD-9001 is still in transit."),
        (DELIVERED, "ORD-9001 has been delivered \u2013 scratch that, the courier hasn't dropped it off yet."),
        (PAGED, "INC-2003 is P1 now and Jamal Wright has been paged - sorry, that's wrong, the page never went out."),
        (PAGED, "INC-2003 is P1 now and Jamal Wright was paged... correction, I couldn't reach the paging service."),
    ],
)
def test_a_statement_taken_back_after_a_dash_states_nothing(where: tuple[str, str], reply: str) -> None:
    assert not _passes(where, reply)


@pytest.mark.parametrize(
    ("where", "reply"),
    [
        (DELIVERED, "ORD-9001 has been delivered \u2014 sorry for the wait!"),
        (DELIVERED, "Sorry for the delay - ORD-9001 has been delivered."),
        (DELIVERED, "Sorry \u2014 correction: ORD-9001 has been delivered, I had the wrong order open."),
        (DELIVERED, "ORD-9001 has been delivered - sorry, that was a typo in my notes: it arrived Tuesday, not Monday."),
        (DELIVERED, "Good news - ORD-9001 has been delivered; wait, I'll also check the return label for you."),
        (PAGED, "INC-2003 is now P1 \u2014 and I've paged Jamal Wright, the on-call engineer."),
        (PAGED, "Oops, sorry - INC-2003 is P1 now, and Jamal Wright has been paged."),
    ],
)
def test_a_dash_that_takes_nothing_back_keeps_the_statement(where: tuple[str, str], reply: str) -> None:
    assert _passes(where, reply)


def test_the_sentence_parts_before_a_take_back_only_after_words_that_state_something() -> None:
    assert _sentences("ORD-9001 has been delivered \u2014 sorry, that's wrong.") == ["ORD-9001 has been delivered", "sorry, that's wrong."]
    assert _sentences("It went out... oops, no, it is still pending.") == ["It went out...", "oops, no, it is still pending."]
    assert _sentences("Sorry \u2014 correction: it is pending.") == ["Sorry \u2014 correction: it is pending."]  # a marker, read whole
    assert _sentences("Correction, sorry - I misread it.") == ["Correction, sorry - I misread it."]
    assert _sentences("Delivered - wait for it - on Tuesday.") == ["Delivered - wait for it - on Tuesday."]  # no take-back cue
    assert _sentences("Delivered \u2014 sorry for the wait!") == ["Delivered \u2014 sorry for the wait!"]
