"""A value corrected by an unlabelled correction ("ACC-1005 has $640.20. Sorry, it's actually $590.20.") is the
reply's last statement of the fact, though nothing names the fact ("balance") beside the right value: the right
value first stated does not pass. Found by trying replies of my own on a real criterion (none a calibration case):
the correction path was skipped when no word named the fact. A correction that restates a right value of the task
reasons with its other values ("Correction - you have 15,000 miles, so you'd keep 5,000"): they are other facts."""

from __future__ import annotations

import pytest

from tests.reply_judge import passes_in_catalog as _passes

BALANCE = ("payments_balance_inquiry_01", "States the balance of ACC-1005 as $640.20 and the loyalty points as 310.")


@pytest.mark.parametrize(
    "reply",
    [
        "ACC-1005 has $640.20. Sorry, it's actually $590.20. You have 310 points.",
        "ACC-1005 is sitting at $640.20 and 310 points. Correction: it's $604.20.",
        ["ACC-1005 has $640.20 with 310 loyalty points.", "Apologies - that was $460.20."],
    ],
)
def test_a_correction_to_another_value_is_the_last_word(reply: str | list[str]) -> None:
    assert not _passes(BALANCE, reply)


@pytest.mark.parametrize(
    "reply",
    [
        "ACC-1005 has $590.20. Sorry, it's actually $640.20. You have 310 points.",
        "ACC-1005 has $640.20. Sorry for the wait! You have 310 points.",
        "ACC-1005 has $640.20. Actually, you also have $20.00 pending. You have 310 points.",
        "ACC-1005 has $640.20 and 310 points. Correction: the points are 310, not 301.",
    ],
)
def test_a_correction_to_the_right_value_or_of_another_fact_keeps_it(reply: str) -> None:
    assert _passes(BALANCE, reply)
