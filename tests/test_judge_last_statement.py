"""The evidence judge on a class the gate's wrong-value cases do not make: the last statement of a fact
wrong while an earlier reply states the right value (`scripts/judge_last_statement.py`). Each case starts
from gold replies that pass its criterion; the number caught may only rise."""

from __future__ import annotations

from tests.scripts import load_script

CAUGHT = 15
"""Caught on catalog 1.2.0 after this round's rules (7 of the same 38 before them): 17 of 38, then 16 of 37
once issue 38.5's audit removed a criterion for a fact the customer never asked for (the balance left after
a refused transfer, payments_balance_then_two_transfers_01) - a case gone, not a case missed; then 15 of 36
once phone numbers became values of their own (`grader.text.values`): the script shifted "206" inside
"206-555-0199" as if it were an amount, a case that is no longer made (customer_support_auth_change_mind_phone_01)."""


def test_the_last_statement_battery_catches_at_least_what_it_did() -> None:
    found = load_script("judge_last_statement").cases()
    assert len(found) >= 25  # the catalog's gold dialogues make these cases
    assert sum(c.caught for c in found) >= CAUGHT, [c for c in found if not c.caught][:3]

