"""The payments world: customers, accounts, payments, transfers, receipts, ledger, refunds, disputes.

Records are keyed by the ids a person would recognise (`ACC-1001`, `TXN-…`), so contract state paths
read naturally: `accounts.ACC-1002.loyalty_points`.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from servers.base import Unordered

PaymentMethod = Literal["card", "paypal", "bank_transfer", "account_balance"]
DisputeReason = Literal["duplicate_charge", "unauthorized", "not_received", "not_as_described", "incorrect_amount"]


class Customer(BaseModel):
    customer_id: str
    name: str
    email: str
    pin: str = Field(description="Four-digit telephone banking PIN used for identity verification.")


class Account(BaseModel):
    account_id: str
    customer_id: str
    owner_name: str
    account_type: Literal["checking", "savings", "business"] = "checking"
    currency: str = "USD"
    balance: float
    frozen: bool = False
    freeze_reason: str = ""
    loyalty_points: int = 0
    daily_transfer_limit: float = 5000.0


LedgerCategory = Literal["checkout", "refund", "dispute"]


class Payment(BaseModel):
    transaction_id: str
    account_id: str
    amount: float
    method: PaymentMethod
    merchant: str
    date: str
    time: str = Field(default="12:00", description="Local time of the charge, HH:MM; tells duplicates apart.")
    status: Literal["captured", "refunded", "partially_refunded", "disputed"] = "captured"
    refunded_amount: float = 0.0


class Transfer(BaseModel):
    transfer_id: str
    source_account_id: str
    destination_account_id: str
    amount: float
    memo: str = ""
    date: str | None = None
    status: Literal["completed"] = "completed"


class Receipt(BaseModel):
    receipt_id: str
    transaction_id: str
    email: str


class LedgerEntry(BaseModel):
    entry_id: str
    transaction_id: str
    account_id: str
    amount: float
    category: LedgerCategory
    note: str = ""


class LoyaltyAward(BaseModel):
    transaction_id: str
    account_id: str
    points: int


class Refund(BaseModel):
    refund_id: str
    transaction_id: str
    amount: float
    reason: str


class Dispute(BaseModel):
    dispute_id: str
    transaction_id: str
    reason: DisputeReason
    description: str = ""
    amount: float
    status: Literal["open"] = "open"


class PaymentsState(BaseModel):
    customers: dict[str, Customer]
    accounts: dict[str, Account]
    payments: dict[str, Payment]
    transfers: dict[str, Transfer] = Field(default_factory=dict)
    receipts: dict[str, Receipt] = Field(default_factory=dict)
    loyalty_awards: dict[str, LoyaltyAward] = Field(default_factory=dict)
    transaction_log: list[LedgerEntry] = Field(default_factory=list)
    refunds: dict[str, Refund] = Field(default_factory=dict)
    disputes: dict[str, Dispute] = Field(default_factory=dict)
    authenticated_customers: Unordered[list[str]] = Field(default_factory=list)
    business_date: str = "2026-11-30"
    business_time: str = "15:30"


def _customer(cid: str, name: str, pin: str) -> Customer:
    email = name.lower().replace(" ", ".") + "@example.com"
    return Customer(customer_id=cid, name=name, email=email, pin=pin)


def default_payments_state() -> PaymentsState:
    """The seeded world every payments task starts from (before its own override)."""
    customers = [
        _customer("CUST-2001", "Maria Lopez", "4821"),
        _customer("CUST-2002", "Daniel Kim", "7314"),
        _customer("CUST-2003", "Priya Raman", "2590"),
        _customer("CUST-2004", "Tom Becker", "6047"),
        _customer("CUST-2005", "Aisha Okafor", "1138"),
        _customer("CUST-2006", "Lucas Moreau", "9402"),
    ]
    accounts = [
        Account(account_id="ACC-1001", customer_id="CUST-2001", owner_name="Maria Lopez", balance=2450.75, loyalty_points=820),
        Account(account_id="ACC-1002", customer_id="CUST-2002", owner_name="Daniel Kim", balance=180.00, loyalty_points=0),
        Account(
            account_id="ACC-1003",
            customer_id="CUST-2003",
            owner_name="Priya Raman",
            balance=5200.00,
            frozen=True,
            freeze_reason="Suspicious activity review",
            loyalty_points=1340,
        ),
        Account(account_id="ACC-1004", customer_id="CUST-2004", owner_name="Tom Becker", account_type="savings", balance=12850.40, loyalty_points=45),
        Account(account_id="ACC-1005", customer_id="CUST-2005", owner_name="Aisha Okafor", balance=640.20, loyalty_points=310),
        Account(
            account_id="ACC-1006",
            customer_id="CUST-2006",
            owner_name="Lucas Moreau",
            account_type="business",
            balance=30410.00,
            loyalty_points=2200,
            daily_transfer_limit=20000.0,
        ),
        Account(account_id="ACC-1007", customer_id="CUST-2001", owner_name="Maria Lopez", account_type="savings", balance=9100.00),
    ]
    payments = [
        Payment(transaction_id="TXN-A1B2C3", account_id="ACC-1001", amount=89.99, method="card", merchant="Northwind Outfitters", date="2026-11-20", time="14:02"),
        Payment(transaction_id="TXN-D4E5F6", account_id="ACC-1001", amount=89.99, method="card", merchant="Northwind Outfitters", date="2026-11-20", time="14:03"),
        Payment(transaction_id="TXN-G7H8J9", account_id="ACC-1002", amount=42.50, method="account_balance", merchant="Bluebird Cafe", date="2026-11-22"),
        Payment(transaction_id="TXN-K1L2M3", account_id="ACC-1005", amount=249.00, method="paypal", merchant="Summit Electronics", date="2026-11-18"),
        Payment(transaction_id="TXN-N4P5Q6", account_id="ACC-1005", amount=120.00, method="card", merchant="Harbor Grocers", date="2026-11-25"),
        Payment(transaction_id="TXN-R7S8T9", account_id="ACC-1004", amount=560.00, method="bank_transfer", merchant="Cedar Home Repair", date="2026-11-10"),
        Payment(
            transaction_id="TXN-U1V2W3",
            account_id="ACC-1006",
            amount=1899.00,
            method="card",
            merchant="Vertex Office Supply",
            date="2026-11-15",
            status="disputed",
        ),
        Payment(transaction_id="TXN-X4Y5Z6", account_id="ACC-1004", amount=75.25, method="card", merchant="Lakeside Books", date="2026-11-26"),
    ]
    disputes = [
        Dispute(dispute_id="DSP-000417", transaction_id="TXN-U1V2W3", reason="not_received", amount=1899.00, description="Order never arrived"),
    ]
    return PaymentsState(
        customers={c.customer_id: c for c in customers},
        accounts={a.account_id: a for a in accounts},
        payments={p.transaction_id: p for p in payments},
        disputes={d.dispute_id: d for d in disputes},
    )
