"""Payments tools: plain business logic over `PaymentsState`.

Every rule that can refuse raises `Refusal` with a status code and a reason before anything is
written; unknown ids raise `InvalidCall`. Amounts are dollars rounded to cents.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Annotated, Any

from pydantic import Field

from servers.base import Code, FreeText, InvalidCall, Money, NonBlank, Refusal, ToolEnvironment, Trimmed, tool
from servers.domains.payments.world import (
    Account,
    LedgerCategory,
    Dispute,
    DisputeReason,
    LedgerEntry,
    LoyaltyAward,
    Payment,
    PaymentMethod,
    PaymentsState,
    Receipt,
    Refund,
    Transfer,
    default_payments_state,
)

AccountId = Annotated[NonBlank[str], Field(description="Account id, e.g. ACC-1001.")]
TransactionId = Annotated[NonBlank[str], Field(description="Payment transaction id, e.g. TXN-A1B2C3.")]
Amount = Money

POINTS_PER_DOLLAR = 10


def _points(dollars: float) -> int:
    """Loyalty points for an amount kept: 10 per dollar, rounded down."""
    return max(0, math.floor(round(dollars * POINTS_PER_DOLLAR, 6)))


def _cents(value: float) -> float:
    return round(value + 0.0, 2)


class PaymentsEnvironment(ToolEnvironment[PaymentsState]):
    """Retail banking and checkout: balances, transfers, card/PayPal payments, loyalty, refunds, disputes."""

    domain = "payments"
    state_model = PaymentsState

    @classmethod
    def default_state(cls) -> PaymentsState:
        return default_payments_state()

    @classmethod
    def mutation_probes(cls, override: Mapping[str, Any] | None = None) -> list[tuple[str, list[Any]]]:
        return payments_probes(cls.initial_state(override))

    # ---- lookups -------------------------------------------------------------------------------
    def _account(self, account_id: str) -> Account:
        account = self.state.accounts.get(account_id)
        if account is None:
            raise InvalidCall(f"Unknown account id {account_id!r}.")
        return account

    def _payment(self, transaction_id: str) -> Payment:
        payment = self.state.payments.get(transaction_id)
        if payment is None:
            raise InvalidCall(f"Unknown transaction id {transaction_id!r}.")
        return payment

    def _require_authenticated(self, account: Account) -> None:
        if account.customer_id not in self.state.authenticated_customers:
            raise Refusal(403, "Customer identity must be verified before this action", customer_id=account.customer_id)

    def _transfer_problem(self, source: Account, destination: Account, amount: float) -> Refusal | None:
        if amount <= 0:
            return Refusal(422, "Transfer amount must be positive")
        if source.account_id == destination.account_id:
            return Refusal(422, "Source and destination must be different accounts")
        if source.frozen:
            return Refusal(403, "Source account is frozen")
        if source.currency != destination.currency:
            return Refusal(422, "Currency mismatch between accounts")
        sent_today = sum(
            t.amount
            for t in self.state.transfers.values()
            if t.source_account_id == source.account_id and t.date == self.state.business_date
        )
        if amount + sent_today > source.daily_transfer_limit + 1e-9:
            return Refusal(
                422,
                "Amount exceeds the daily transfer limit",
                daily_transfer_limit=source.daily_transfer_limit,
                remaining_today=_cents(max(source.daily_transfer_limit - sent_today, 0.0)),
            )
        if amount > source.balance:
            return Refusal(422, "Insufficient funds", available_balance=source.balance)
        return None

    # ---- authentication ------------------------------------------------------------------------
    @tool("compute")
    def authenticate_customer(
        self,
        customer_id: Annotated[NonBlank[str], Field(description="Customer id, e.g. CUST-2001.")],
        pin: Annotated[NonBlank[Code], Field(description="The customer's four-digit PIN.")],
    ) -> dict[str, Any]:
        """Verify a customer's identity with their PIN. Required before refunds, disputes and freezes."""
        customer = self.state.customers.get(customer_id)
        if customer is None:
            raise InvalidCall(f"Unknown customer id {customer_id!r}.")
        if pin != customer.pin:
            raise Refusal(403, "Authentication failed: PIN does not match", customer_id=customer_id)
        if customer_id not in self.state.authenticated_customers:
            self.state.authenticated_customers.append(customer_id)
        return {"authenticated": True, "customer_id": customer_id, "name": customer.name}

    @tool("write")
    def freeze_account(
        self,
        account_id: AccountId,
        reason: Annotated[NonBlank[str], Field(description="Why the account is frozen, e.g. 'lost card'."), FreeText],
    ) -> dict[str, Any]:
        """Freeze an account so that no money can leave it. The owner must be authenticated."""
        account = self._account(account_id)
        self._require_authenticated(account)
        if account.frozen:
            raise Refusal(409, "Account is already frozen", account_id=account_id)
        account.frozen = True
        account.freeze_reason = reason
        return {"account_id": account_id, "frozen": True, "freeze_reason": reason}

    # ---- balance inquiry -----------------------------------------------------------------------
    @tool("read")
    def get_account_balance(self, account_id: AccountId) -> dict[str, Any]:
        """Look up an account's balance, currency, loyalty points and frozen flag."""
        a = self._account(account_id)
        return {
            "account_id": a.account_id,
            "owner_name": a.owner_name,
            "account_type": a.account_type,
            "balance": a.balance,
            "currency": a.currency,
            "loyalty_points": a.loyalty_points,
            "frozen": a.frozen,
            "daily_transfer_limit": a.daily_transfer_limit,
        }

    @tool("read")
    def get_transaction_history(
        self,
        account_id: AccountId,
        limit: Annotated[int, Field(ge=1, le=50, description="How many recent payments to return.")] = 10,
    ) -> dict[str, Any]:
        """List an account's most recent card/PayPal/balance payments and transfers, newest first."""
        self._account(account_id)
        ordered = [(p.date, p.time, i, p) for i, p in enumerate(self.state.payments.values()) if p.account_id == account_id]
        payments = [entry[-1] for entry in sorted(ordered, key=lambda e: e[:3], reverse=True)]
        transfers = [
            t
            for t in self.state.transfers.values()
            if account_id in (t.source_account_id, t.destination_account_id)
        ]
        transfers.reverse()  # newest first: later transfers were recorded later
        transfers.sort(key=lambda t: t.date or "", reverse=True)
        return {
            "account_id": account_id,
            "payments": [p.model_dump(mode="json") for p in payments[:limit]],
            "transfers": [t.model_dump(mode="json") for t in transfers[:limit]],
        }

    @tool("read")
    def get_payment_details(self, transaction_id: TransactionId) -> dict[str, Any]:
        """Look up one payment: amount, merchant, method, date, status and amount already refunded."""
        return self._payment(transaction_id).model_dump(mode="json")

    # ---- transfers -----------------------------------------------------------------------------
    @tool("compute")
    def validate_transfer(
        self,
        source_account_id: AccountId,
        destination_account_id: AccountId,
        amount: Amount,
    ) -> dict[str, Any]:
        """Check whether a transfer would be allowed, without moving money. Policy: validate before executing."""
        source = self._account(source_account_id)
        destination = self._account(destination_account_id)
        problem = self._transfer_problem(source, destination, _cents(amount))
        if problem is None:
            return {"valid": True, "reason": "OK", "status": 200}
        return {"valid": False, "reason": problem.reason, "status": problem.code, **problem.details}

    @tool("write")
    def execute_transfer(
        self,
        source_account_id: AccountId,
        destination_account_id: AccountId,
        amount: Amount,
        memo: Annotated[Trimmed, Field(description="Optional note shown on both statements."), FreeText] = "",
    ) -> dict[str, Any]:
        """Move money between two accounts. Refused for frozen accounts, insufficient funds, or above the
        daily limit (all of today's outgoing transfers from the source count towards it)."""
        amount = _cents(amount)
        source = self._account(source_account_id)
        destination = self._account(destination_account_id)
        problem = self._transfer_problem(source, destination, amount)
        if problem is not None:
            raise problem
        source.balance = _cents(source.balance - amount)
        destination.balance = _cents(destination.balance + amount)
        transfer = Transfer(
            transfer_id=self.ids.mint("XFER"),
            source_account_id=source.account_id,
            destination_account_id=destination.account_id,
            amount=amount,
            memo=memo,
            date=self.state.business_date,
        )
        self.state.transfers[transfer.transfer_id] = transfer
        return {
            "transfer_id": transfer.transfer_id,
            "status": "completed",
            "amount": amount,
            "source_balance": source.balance,
            "destination_balance": destination.balance,
        }

    # ---- checkout ------------------------------------------------------------------------------
    @tool("write")
    def process_payment(
        self,
        account_id: AccountId,
        amount: Amount,
        method: Annotated[PaymentMethod, Field(description="card, paypal, bank_transfer or account_balance.")],
        merchant: Annotated[NonBlank[str], Field(description="Who is being paid.")] = "CRM Store",
    ) -> dict[str, Any]:
        """Charge a payment to an account. `account_balance` debits the balance; other methods charge externally."""
        amount = _cents(amount)
        account = self._account(account_id)
        if amount <= 0:
            raise Refusal(422, "Payment amount must be positive")
        if account.frozen:
            raise Refusal(403, "Account is frozen")
        if method == "account_balance":
            if amount > account.balance:
                raise Refusal(422, "Insufficient funds", available_balance=account.balance)
            account.balance = _cents(account.balance - amount)
        payment = Payment(
            transaction_id=self.ids.mint("TXN"),
            account_id=account_id,
            amount=amount,
            method=method,
            merchant=merchant,
            date=self.state.business_date,
            time=self.state.business_time,
        )
        self.state.payments[payment.transaction_id] = payment
        return {"transaction_id": payment.transaction_id, "status": "captured", "amount": amount, "method": method}

    @tool("write")
    def send_receipt(
        self,
        transaction_id: TransactionId,
        email: Annotated[NonBlank[str] | None, Field(description="Where to send it; defaults to the account owner's email.")] = None,
    ) -> dict[str, Any]:
        """Email a receipt for a payment. One receipt per transaction."""
        payment = self._payment(transaction_id)
        if any(r.transaction_id == transaction_id for r in self.state.receipts.values()):
            raise Refusal(409, "A receipt was already sent for this transaction", transaction_id=transaction_id)
        owner = self.state.customers[self.state.accounts[payment.account_id].customer_id]
        receipt = Receipt(receipt_id=self.ids.mint("RCPT"), transaction_id=transaction_id, email=email or owner.email)
        self.state.receipts[receipt.receipt_id] = receipt
        return {"receipt_id": receipt.receipt_id, "transaction_id": transaction_id, "sent_to": receipt.email}

    @tool("write")
    def award_loyalty_points(self, account_id: AccountId, transaction_id: TransactionId) -> dict[str, Any]:
        """Award loyalty points for a payment: 10 points per dollar kept, rounded down, after the receipt is sent.
        Points are earned on the amount not refunded: a fully refunded payment earns none (409), a partly
        refunded one earns on the rest; a payment under dispute earns none (409)."""
        account = self._account(account_id)
        payment = self._payment(transaction_id)
        if payment.account_id != account_id:
            raise Refusal(422, "Transaction does not belong to this account", transaction_id=transaction_id)
        if transaction_id in self.state.loyalty_awards:
            raise Refusal(409, "Points were already awarded for this transaction", transaction_id=transaction_id)
        if payment.status == "refunded":
            raise Refusal(409, "A fully refunded payment earns no loyalty points", transaction_id=transaction_id)
        if payment.status == "disputed":
            raise Refusal(409, "A payment under dispute earns no loyalty points", transaction_id=transaction_id)
        if not any(r.transaction_id == transaction_id for r in self.state.receipts.values()):
            raise Refusal(422, "Send the receipt before awarding loyalty points", transaction_id=transaction_id)
        points = _points(payment.amount - payment.refunded_amount)
        account.loyalty_points += points
        self.state.loyalty_awards[transaction_id] = LoyaltyAward(transaction_id=transaction_id, account_id=account_id, points=points)
        return {"points_awarded": points, "loyalty_balance": account.loyalty_points}

    @tool("write")
    def log_transaction(
        self,
        transaction_id: TransactionId,
        category: Annotated[LedgerCategory, Field(description="Ledger category: 'checkout', 'refund' or 'dispute'.")] = "checkout",
        note: Annotated[Trimmed, Field(description="Optional free-text note."), FreeText] = "",
    ) -> dict[str, Any]:
        """Record a payment in the transaction log (the ledger). Each transaction is logged once per category;
        a refund is logged only after the payment was refunded, a dispute only after one was filed."""
        payment = self._payment(transaction_id)
        if category == "refund" and payment.refunded_amount <= 0:
            raise Refusal(409, "No refund has been issued for this transaction yet", transaction_id=transaction_id)
        if category == "dispute" and not any(d.transaction_id == transaction_id for d in self.state.disputes.values()):
            raise Refusal(409, "No dispute has been filed for this transaction yet", transaction_id=transaction_id)
        if any(e.transaction_id == transaction_id and e.category == category for e in self.state.transaction_log):
            raise Refusal(409, "Transaction already logged in this category", transaction_id=transaction_id)
        entry = LedgerEntry(
            entry_id=self.ids.mint("LOG"),
            transaction_id=transaction_id,
            account_id=payment.account_id,
            amount=payment.amount,
            category=category,
            note=note,
        )
        self.state.transaction_log.append(entry)
        return {"entry_id": entry.entry_id, "logged": True}

    # ---- refunds and disputes ------------------------------------------------------------------
    @tool("write")
    def refund_payment(
        self,
        transaction_id: TransactionId,
        amount: Amount,
        reason: Annotated[NonBlank[str], Field(description="Why the refund is issued, e.g. 'duplicate charge'."), FreeText],
    ) -> dict[str, Any]:
        """Refund all or part of a payment to its original method. The owner must be authenticated. Loyalty
        points awarded for the payment follow the money: they are reduced to 10 per dollar of what is kept."""
        amount = _cents(amount)
        payment = self._payment(transaction_id)
        account = self.state.accounts[payment.account_id]
        self._require_authenticated(account)
        if payment.status == "disputed":
            raise Refusal(409, "Payment is under dispute and cannot be refunded", transaction_id=transaction_id)
        remaining = _cents(payment.amount - payment.refunded_amount)
        if amount <= 0 or amount > remaining:
            raise Refusal(422, "Refund amount exceeds the refundable balance", refundable=remaining)
        payment.refunded_amount = _cents(payment.refunded_amount + amount)
        payment.status = "refunded" if payment.refunded_amount >= payment.amount else "partially_refunded"
        if payment.method == "account_balance":
            account.balance = _cents(account.balance + amount)
        refund = Refund(refund_id=self.ids.mint("RFND"), transaction_id=transaction_id, amount=amount, reason=reason)
        self.state.refunds[refund.refund_id] = refund
        result: dict[str, Any] = {"refund_id": refund.refund_id, "amount": amount, "payment_status": payment.status, "refunded_to": payment.method}
        award = self.state.loyalty_awards.get(transaction_id)
        if award is not None:
            kept = _points(payment.amount - payment.refunded_amount)
            reversed_points = min(award.points - kept, account.loyalty_points)
            if reversed_points > 0:
                award.points -= reversed_points
                account.loyalty_points -= reversed_points
                result.update(loyalty_points_reversed=reversed_points, loyalty_balance=account.loyalty_points)
        return result

    @tool("write")
    def file_dispute(
        self,
        transaction_id: TransactionId,
        reason: Annotated[DisputeReason, Field(description="Dispute reason code.")],
        description: Annotated[Trimmed, Field(description="The customer's account of the problem."), FreeText] = "",
    ) -> dict[str, Any]:
        """Open a dispute on a payment. The owner must be authenticated; refunded payments cannot be disputed."""
        payment = self._payment(transaction_id)
        account = self.state.accounts[payment.account_id]
        self._require_authenticated(account)
        if payment.status == "disputed":
            raise Refusal(409, "A dispute is already open for this payment", transaction_id=transaction_id)
        if payment.status == "refunded":
            raise Refusal(409, "Payment was already refunded in full", transaction_id=transaction_id)
        dispute = Dispute(
            dispute_id=self.ids.mint("DSP"),
            transaction_id=transaction_id,
            reason=reason,
            description=description,
            amount=_cents(payment.amount - payment.refunded_amount),
        )
        payment.status = "disputed"
        self.state.disputes[dispute.dispute_id] = dispute
        return {"dispute_id": dispute.dispute_id, "status": "open", "amount": dispute.amount}


def payments_probes(state: PaymentsState) -> list[tuple[str, list[Any]]]:
    """Write sequences touching every account, payment and collection of the world (for mutation tests)."""
    from contracts.schema import GoldCall

    def call(tool: str, **args: Any) -> GoldCall:
        return GoldCall(tool=tool, args=args)

    probes: list[tuple[str, list[Any]]] = []
    accounts = list(state.accounts.values())
    liquid = [a for a in accounts if not a.frozen and a.balance >= 1]
    for account in accounts:
        sink = next((a for a in accounts if a.account_id != account.account_id and a.currency == account.currency), None)
        source = next((a for a in liquid if a.account_id != account.account_id and a.currency == account.currency), None)
        if sink is not None and account in liquid:
            probes.append((f"transfer out of {account.account_id}", [call("execute_transfer", source_account_id=account.account_id, destination_account_id=sink.account_id, amount=1.0)]))
        if source is not None:
            probes.append((f"transfer into {account.account_id}", [call("execute_transfer", source_account_id=source.account_id, destination_account_id=account.account_id, amount=1.0)]))
        if not account.frozen:
            probes.append(
                (
                    f"checkout on {account.account_id}",
                    [
                        call("process_payment", account_id=account.account_id, amount=1.0, method="card", merchant="Probe"),
                        call("send_receipt", transaction_id="${process_payment.transaction_id}"),
                        call("award_loyalty_points", account_id=account.account_id, transaction_id="${process_payment.transaction_id}"),
                        call("log_transaction", transaction_id="${process_payment.transaction_id}"),
                    ],
                )
            )
        customer = state.customers.get(account.customer_id)
        if customer is not None and not account.frozen:
            auth = call("authenticate_customer", customer_id=customer.customer_id, pin=customer.pin)
            probes.append((f"freeze {account.account_id}", [auth, call("freeze_account", account_id=account.account_id, reason="probe")]))
    for payment in state.payments.values():
        owner = state.customers.get(state.accounts[payment.account_id].customer_id) if payment.account_id in state.accounts else None
        if owner is None:
            continue
        auth = call("authenticate_customer", customer_id=owner.customer_id, pin=owner.pin)
        if payment.status in ("captured", "partially_refunded"):
            probes.append((f"refund {payment.transaction_id}", [auth, call("refund_payment", transaction_id=payment.transaction_id, amount=1.0, reason="probe")]))
            probes.append((f"dispute {payment.transaction_id}", [auth, call("file_dispute", transaction_id=payment.transaction_id, reason="incorrect_amount")]))
            probes.append((f"log {payment.transaction_id}", [call("log_transaction", transaction_id=payment.transaction_id, category="probe")]))
    for customer in state.customers.values():
        probes.append((f"authenticate {customer.customer_id}", [call("authenticate_customer", customer_id=customer.customer_id, pin=customer.pin)]))
    return probes
