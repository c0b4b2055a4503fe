"""An apology that opens a contrast ("Sorry, but 2 of them are reserved") or a count of part of what was counted
("$50 of that is on hold") brings a new fact; it does not correct the value stated before it. Found by trying
replies of my own on real criteria (none of them a calibration case): "sorry" was read as a correction cue
wherever it stood, so such a reply's second value was taken for the fact's last, wrong statement."""

from __future__ import annotations

import pytest

from tests.reply_judge import passes_in_catalog as _passes

BALANCE = ("payments_balance_inquiry_01", "States the balance of ACC-1005 as $640.20 and the loyalty points as 310.")
STOCK = ("retail_catalog_headphones_count_01", "Gives the price $129.99 and 14 in stock.")


@pytest.mark.parametrize(
    ("where", "reply"),
    [
        (STOCK, "The headphones cost $129.99, and we have 14 in stock. Sorry, but 2 of them are reserved for pickup."),
        (STOCK, "They're $129.99 with 14 in stock; sorry, 3 of those are already promised to click-and-collect orders."),
        (STOCK, "$129.99 each, 14 in stock. Apologies, but 5 of the 14 are the black colourway."),
        (BALANCE, "ACC-1005 has $640.20 and 310 points. Sorry, but $50 of that is on hold until Monday."),
        (BALANCE, "ACC-1005 holds $640.20 and you have 310 points. I'm sorry, but $40 of it is a pending card payment."),
        (BALANCE, "ACC-1005 has $640.20 and 310 points. I'm sorry, but the daily transfer limit is $500."),
    ],
)
def test_a_new_fact_after_an_apology_keeps_the_value_stated_before(where: tuple[str, str], reply: str) -> None:
    assert _passes(where, reply)


@pytest.mark.parametrize(
    ("where", "reply"),
    [
        (STOCK, "The headphones cost $129.99, and we have 14 in stock. Sorry - it's actually 41."),
        (STOCK, "The headphones cost $129.99, and we have 14. Sorry, 41 in stock."),
        (BALANCE, "ACC-1005 has $640.20 and 310 points. Sorry, it's $590.20."),
        (BALANCE, "ACC-1005 has $640.20 and 310 points. Apologies, I misread: $590.20."),
        (BALANCE, "ACC-1005 has $640.20 and 310 points. Sorry, but I misread it: the balance is $590.20."),
    ],
)
def test_an_apology_that_restates_the_fact_still_corrects_it(where: tuple[str, str], reply: str) -> None:
    assert not _passes(where, reply)
