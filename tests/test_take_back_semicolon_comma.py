"""A correction after a semicolon or a comma ("ACC-1005 has $640.20; no wait, it's $590.20"), and one that names the
fact in the criterion's own words ("we have 14. Sorry, 41 in stock."), end on the corrected value. Found by trying
replies of my own on real criteria (none of them a calibration case): the dash rule parted only at dashes and
ellipses, "no wait" was no correction cue for values, and a correction whose value carried the criterion's own
label ("in stock") was read as a statement of another fact."""

from __future__ import annotations

import pytest

from grader.text.units import _sentences
from tests.reply_judge import passes_in_catalog as _passes

BALANCE = ("payments_balance_inquiry_01", "States the balance of ACC-1005 as $640.20 and the loyalty points as 310.")
STOCK = ("retail_catalog_headphones_count_01", "Gives the price $129.99 and 14 in stock.")
DELIVERED = ("commerce_returns_01", "Tells the customer that order ORD-9001 has been delivered.")


@pytest.mark.parametrize(
    ("where", "reply"),
    [
        (BALANCE, "ACC-1005 has $640.20; no wait, it's $590.20. You have 310 points."),
        (BALANCE, "ACC-1005 has $640.20, no wait, it's $590.20. You have 310 points."),
        (BALANCE, "ACC-1005 has $640.20. Wait, no, it's $590.20. You have 310 points."),
        (BALANCE, "ACC-1005 has $640.20, sorry, I misread: it's $590.20. You have 310 points."),
        (BALANCE, "ACC-1005 has $640.20; sorry, that's the wrong figure, it's $590.20. Points: you have 310."),
        (BALANCE, "ACC-1005 has $640.20 \u2014 scratch that, it's $590.20. You've got 310 points."),
        (STOCK, "The headphones cost $129.99, and we have 14. Sorry, 41 in stock."),
        (STOCK, "The headphones cost $129.99, and we have 14, no wait, it's 41 in stock."),
        (STOCK, "The headphones cost $129.99, and we have 14 - sorry, 41 in stock."),
        (STOCK, "The headphones cost $129.99, and we have 14; no wait, there are 41 in stock."),
        (DELIVERED, "ORD-9001 has been delivered; no wait, that's wrong, it's still in transit."),
        (DELIVERED, "ORD-9001 has been delivered, sorry, I misread: it's still with the courier."),
    ],
)
def test_a_value_or_statement_corrected_after_a_semicolon_or_comma_is_not_the_final_word(where: tuple[str, str], reply: str) -> None:
    assert not _passes(where, reply)


@pytest.mark.parametrize(
    ("where", "reply"),
    [
        (BALANCE, "ACC-1005 has $590.20; no wait, it's $640.20. You have 310 points."),
        (BALANCE, "ACC-1005 has $590.20, sorry, I misread: it's $640.20. You have 310 points."),
        (BALANCE, "ACC-1005 has $640.20, sorry for the wait. You have 310 points."),
        (BALANCE, "ACC-1005 has $640.20; that's your available balance, and you have 310 points."),
        (STOCK, "The headphones cost $129.99, and we have 41. Sorry, 14 in stock."),
        (STOCK, "The headphones cost $129.99; sorry for the wait, we have 14 in stock."),
        (DELIVERED, "ORD-9001 has been delivered; sorry it took longer than promised."),
        (DELIVERED, "ORD-9001 has been delivered, sorry, that was a typo in my notes: it arrived Tuesday, not Monday."),
    ],
)
def test_a_semicolon_or_comma_that_corrects_to_the_right_value_or_takes_nothing_back_keeps_it(where: tuple[str, str], reply: str) -> None:
    assert _passes(where, reply)


def test_a_comma_parts_the_sentence_only_before_a_take_back_with_a_clause_of_its_own() -> None:
    assert _sentences("ACC-1005 has $640.20; no wait, it's $590.20.") == ["ACC-1005 has $640.20", "no wait, it's $590.20."]
    assert _sentences("ACC-1005 has $640.20, no wait, it's $590.20.") == ["ACC-1005 has $640.20", "no wait, it's $590.20."]
    # a slip put right in the same breath is read whole by the correction rule
    assert _sentences("We have 14, sorry, 41 in stock.") == ["We have 14, sorry, 41 in stock."]
    assert _sentences("It was charged twice, that's wrong and I've refunded it.") == ["It was charged twice, that's wrong and I've refunded it."]
    assert _sentences("Done, sorry for the wait.") == ["Done, sorry for the wait."]
    assert _sentences("Sorry; no wait, it is pending.") == ["Sorry; no wait, it is pending."]  # a marker, read whole
