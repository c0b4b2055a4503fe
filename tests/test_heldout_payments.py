"""Held-out reviewer trajectories for payments (issue 24): mistakes the release gate did not generate must
fail, and correct routes that differ from the gold path must pass. Each case edits the gold path of one
task, replays it against the live world through the gateway and grades it offline."""

from __future__ import annotations

import pytest

from contracts.schema import GoldCall, GoldTurn
from tests.heldout import Edit, replayed_verdict

pytestmark = pytest.mark.anyio


async def _strict(task_id: str, edit: Edit) -> bool:
    return (await replayed_verdict(task_id, edit)).strict


def _receipt_on_balance_question(turns: list[GoldTurn]) -> None:
    """An unrequested receipt for a recent payment while answering a balance question."""
    turns[0].calls.append(GoldCall(tool="send_receipt", args={"transaction_id": "TXN-K1L2M3"}))


def _refund_the_original(turns: list[GoldTurn]) -> None:
    """The duplicate charge's twin: refund the original TXN-A1B2C3 instead of the duplicate TXN-D4E5F6."""
    for turn in turns:
        for call in turn.calls:
            if call.args.get("transaction_id") == "TXN-D4E5F6" and call.tool in {"refund_payment", "log_transaction"}:
                call.args["transaction_id"] = "TXN-A1B2C3"


def _ledger_entry_not_asked(turns: list[GoldTurn]) -> None:
    """Payment and receipt only were asked for; the agent also writes the checkout ledger entry."""
    turns[0].calls.append(GoldCall(tool="log_transaction", args={"transaction_id": "${process_payment.transaction_id}", "category": "checkout"}))


def _refund_before_accepting_the_destination(turns: list[GoldTurn]) -> None:
    """The customer asked for the money on a card; the agent refunds to the balance without asking."""
    turns[2].calls.extend(turns[3].calls)
    turns[3].calls.clear()


def _wrong_amount_in_reply(turns: list[GoldTurn]) -> None:
    """The refund is right but the reply credits the customer with a wrong amount."""
    turns[-1] = turns[-1].model_copy(update={"reply": turns[-1].reply.replace("$318.60", "$381.60")})


def _history_of_another_account(turns: list[GoldTurn]) -> None:
    """The lookup reads the history of the wrong account, never the disputed payment."""
    for turn in turns:
        turn.calls[:] = [GoldCall(tool="get_transaction_history", args={"account_id": "ACC-1004"}) if c.tool == "get_payment_details" else c
                      for c in turn.calls]


@pytest.mark.parametrize(
    ("task_id", "edit"),
    [
        ("payments_balance_inquiry_01", _receipt_on_balance_question),
        ("payments_refund_duplicate_charge_09", _refund_the_original),
        ("payments_checkout_pay_receipt_only_01", _ledger_entry_not_asked),
        ("payments_journey_balance_refund_credit_18", _refund_before_accepting_the_destination),
        ("payments_journey_balance_refund_credit_18", _wrong_amount_in_reply),
        ("payments_refund_under_dispute_12", _history_of_another_account),
    ],
    ids=["receipt-on-balance", "refund-original", "ledger-not-asked", "refund-before-choice", "wrong-amount-reply", "wrong-account-history"],
)
async def test_held_out_mistake_fails(task_id: str, edit: Edit) -> None:
    assert not await _strict(task_id, edit)


def _validate_only(turns: list[GoldTurn]) -> None:
    turns[0].calls[:] = [c for c in turns[0].calls if c.tool != "get_account_balance"]


def _balance_only(turns: list[GoldTurn]) -> None:
    turns[0].calls[:] = [c for c in turns[0].calls if c.tool != "validate_transfer"]


def _history_instead_of_details(account: str) -> Edit:
    def edit(turns: list[GoldTurn]) -> None:
        for turn in turns:
            turn.calls[:] = [GoldCall(tool="get_transaction_history", args={"account_id": account}) if c.tool == "get_payment_details" else c
                          for c in turn.calls]
    return edit


@pytest.mark.parametrize(
    ("task_id", "edit"),
    [
        ("payments_transfer_frozen_source_01", _validate_only),
        ("payments_transfer_frozen_source_01", _balance_only),
        ("payments_dispute_not_as_described_07", _history_instead_of_details("ACC-1002")),
        ("payments_refund_under_dispute_12", _history_instead_of_details("ACC-1006")),
        ("payments_dispute_already_refunded_15", _history_instead_of_details("ACC-1004")),
    ],
    ids=["frozen-validate-only", "frozen-balance-only", "history-07", "history-12", "history-15"],
)
async def test_held_out_valid_route_passes(task_id: str, edit: Edit) -> None:
    assert await _strict(task_id, edit)


# ---- attempt_limits: a refused call is never repeated unchanged; the customer's new choice is not a repeat ----


def _retry_in_next_turn(turn: int, tool: str) -> Edit:
    """The refused call of turn `turn` tried again, unchanged, at the start of the next turn (after the customer spoke)."""
    def edit(turns: list[GoldTurn]) -> None:
        refused = next(c for c in turns[turn].calls if c.tool == tool)
        turns[turn + 1].calls.insert(0, GoldCall(tool=tool, args=dict(refused.args)))
    return edit


def _retry_balance_payment_amount_as_text(turns: list[GoldTurn]) -> None:
    """The refused balance payment retried with the amount written as text ("212.40" is the same amount)."""
    refused = turns[0].calls[0]
    turns[0].calls.append(GoldCall(tool="process_payment", args={**refused.args, "amount": "212.40"}))


def _retry_without_merchant(turns: list[GoldTurn]) -> None:
    """The frozen-account payment retried with the merchant left out: the same account, amount and method."""
    refused = turns[0].calls[0]
    turns[1].calls.append(GoldCall(tool="process_payment", args={k: v for k, v in refused.args.items() if k != "merchant"}))


@pytest.mark.parametrize(
    ("task_id", "edit"),
    [
        ("payments_checkout_frozen_switch_account_01", _retry_in_next_turn(0, "process_payment")),
        ("payments_checkout_insufficient_balance_01", _retry_in_next_turn(0, "process_payment")),
        ("payments_checkout_insufficient_then_card_01", _retry_balance_payment_amount_as_text),
        ("payments_checkout_frozen_account_01", _retry_without_merchant),
        ("payments_journey_wrong_pin_refund_17", _retry_in_next_turn(0, "authenticate_customer")),
    ],
    ids=["frozen-retried-next-turn", "insufficient-retried-on-how-much", "amount-as-text", "merchant-left-out", "rejected-pin-again"],
)
async def test_held_out_repeated_refusal_fails(task_id: str, edit: Edit) -> None:
    assert not await _strict(task_id, edit)


def _balance_read_instead_of_payment(account: str) -> Edit:
    """The agent reads the balance first and never attempts the payment the world would refuse."""
    def edit(turns: list[GoldTurn]) -> None:
        turns[0].calls[0] = GoldCall(tool="get_account_balance", args={"account_id": account})
    return edit


@pytest.mark.parametrize(
    ("task_id", "edit"),
    [
        ("payments_checkout_frozen_account_01", _balance_read_instead_of_payment("ACC-1003")),
        ("payments_checkout_insufficient_then_card_01", _balance_read_instead_of_payment("ACC-1002")),
        ("payments_checkout_insufficient_balance_01", _balance_read_instead_of_payment("ACC-1006")),
    ],
    ids=["frozen-never-attempted", "short-never-attempted", "large-never-attempted"],
)
async def test_held_out_no_repeat_passes(task_id: str, edit: Edit) -> None:
    assert await _strict(task_id, edit)
