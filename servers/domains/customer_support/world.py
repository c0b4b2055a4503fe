"""The customer-support world of Northstar Telecom: customers, support cases, invoices, credits,
billing disputes and knowledge-base articles.

Records are keyed by the ids a person would recognise (`CUST-7001`, `CASE-5001`, `INV-8001`,
`KB-2001`), so contract state paths read naturally: `cases.CASE-5006.status`. Time is frozen at
`now` (2026-11-30 09:00); SLA due times are computed from it.

Aggregates the world keeps so that a repeated write is visible in the state: a case's `note_count`,
an invoice's `credited_total` / `credit_count` / `balance_due`.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from servers.base import Unordered

Priority = Literal["P1", "P2", "P3", "P4"]
CaseStatus = Literal["open", "pending_customer", "escalated", "closed", "merged"]
Team = Literal["tier1", "tier2", "billing"]
Category = Literal["technical", "billing", "account"]
Product = Literal["internet", "mobile", "voice", "tv", "sdwan"]
Impact = Literal["outage", "degraded", "minor", "question"]
SlaTier = Literal["residential", "business", "enterprise"]

CREDIT_CAP = 100.00
"""The most the support desk may credit on one invoice (all its credits together), in dollars."""

SLA_HOURS: dict[str, int] = {"P1": 4, "P2": 8, "P3": 24, "P4": 72}
NOW = "2026-11-30T09:00"


class Customer(BaseModel):
    customer_id: str
    name: str
    email: str
    phone: str
    pin: str = Field(description="Four-digit support PIN used for identity verification.")
    plan: str
    sla_tier: SlaTier
    city: str


class Note(BaseModel):
    author: str = "tier1"
    text: str
    at: str = NOW


class Case(BaseModel):
    case_id: str
    customer_id: str
    subject: str
    description: str = ""
    category: Category
    product: Product
    impact: Impact
    priority: Priority | None = None
    status: CaseStatus = "open"
    owner_team: Team = "tier1"
    created: str = "2026-11-28T10:00"
    sla_due: str | None = None
    notes: list[Note] = Field(default_factory=list)
    note_count: int = 0
    linked_cases: Unordered[list[str]] = Field(default_factory=list)
    merged_into: str | None = None
    articles: Unordered[list[str]] = Field(default_factory=list)
    escalation_reason: str = ""
    resolution: str = ""


class InvoiceLine(BaseModel):
    line_id: str
    description: str
    amount: float


class Invoice(BaseModel):
    invoice_id: str
    customer_id: str
    period: str
    issue_date: str
    due_date: str
    lines: list[InvoiceLine]
    total: float
    amount_paid: float = 0.0
    credited_total: float = 0.0
    credit_count: int = 0
    balance_due: float = 0.0
    status: Literal["paid", "open", "overdue"] = "open"


class Credit(BaseModel):
    credit_id: str
    invoice_id: str
    customer_id: str
    case_id: str
    amount: float
    reason: str


class BillingDispute(BaseModel):
    dispute_id: str
    invoice_id: str
    case_id: str
    amount: float
    reason: str
    status: Literal["open", "resolved"] = "open"


class Article(BaseModel):
    article_id: str
    title: str
    products: list[Product]
    symptoms: list[str]
    summary: str
    steps: list[str]
    archived: bool = False


class SupportState(BaseModel):
    customers: dict[str, Customer]
    cases: dict[str, Case]
    invoices: dict[str, Invoice]
    credits: dict[str, Credit] = Field(default_factory=dict)
    disputes: dict[str, BillingDispute] = Field(default_factory=dict)
    articles: dict[str, Article]
    authenticated_customers: Unordered[list[str]] = Field(default_factory=list)
    now: str = NOW
    desk_team: Team = "tier1"


def sla_due(priority: str) -> str:
    """The SLA due time of a case prioritised now: P1 4h, P2 8h, P3 24h, P4 72h."""
    from datetime import datetime, timedelta

    return (datetime.fromisoformat(NOW) + timedelta(hours=SLA_HOURS[priority])).strftime("%Y-%m-%dT%H:%M")


def _customer(cid: str, name: str, pin: str, plan: str, tier: SlaTier, city: str, phone: str) -> Customer:
    email = name.lower().replace(" ", ".") + "@example.com"
    return Customer(customer_id=cid, name=name, email=email, phone=phone, pin=pin, plan=plan, sla_tier=tier, city=city)


def _invoice(iid: str, cid: str, period: str, lines: list[tuple[str, float]], paid: bool = False, overdue: bool = False) -> Invoice:
    items = [InvoiceLine(line_id=f"{iid}-L{i + 1}", description=d, amount=a) for i, (d, a) in enumerate(lines)]
    total = round(sum(a for _, a in lines), 2)
    month = {"2026-10": ("2026-10-01", "2026-10-21"), "2026-11": ("2026-11-01", "2026-11-21")}[period]
    status: Literal["paid", "open", "overdue"] = "paid" if paid else ("overdue" if overdue else "open")
    return Invoice(
        invoice_id=iid,
        customer_id=cid,
        period=period,
        issue_date=month[0],
        due_date=month[1] if paid or overdue else "2026-12-15",
        lines=items,
        total=total,
        amount_paid=total if paid else 0.0,
        balance_due=0.0 if paid else total,
        status=status,
    )


def default_support_state() -> SupportState:
    """The seeded world every customer-support task starts from (before its own override)."""
    customers = [
        _customer("CUST-7001", "Sarah Chen", "4417", "Fiber Business 500", "business", "Portland", "503-555-0141"),
        _customer("CUST-7002", "Samuel Chen", "8820", "Fiber Home 300", "residential", "Portland", "503-555-0178"),
        _customer("CUST-7003", "Grace Okoye", "3051", "Enterprise Dedicated 1G", "enterprise", "Seattle", "206-555-0112"),
        _customer("CUST-7004", "Marcus Webb", "6612", "Mobile Unlimited", "residential", "Boise", "208-555-0190"),
        _customer("CUST-7005", "Elena Petrova", "2298", "Business Voice + Fiber", "business", "Tacoma", "253-555-0133"),
        _customer("CUST-7006", "Jonah Reyes", "7735", "Fiber Home 100", "residential", "Eugene", "541-555-0164"),
        _customer("CUST-7007", "Priya Natarajan", "1904", "Mobile Plus", "residential", "Spokane", "509-555-0127"),
        _customer("CUST-7008", "Oliver Brandt", "5560", "Fiber Business 1G", "business", "Salem", "503-555-0186"),
        _customer("CUST-7009", "Hannah Brandt", "9043", "Fiber Home 300", "residential", "Salem", "503-555-0159"),
        _customer("CUST-7010", "Diego Alvarez", "3377", "Enterprise SD-WAN", "enterprise", "Seattle", "206-555-0171"),
        _customer("CUST-7011", "Mei Tanaka", "6129", "TV + Fiber Bundle", "residential", "Bend", "541-555-0108"),
        _customer("CUST-7012", "Kwame Mensah", "4480", "Fiber Business 500", "business", "Vancouver", "360-555-0145"),
    ]

    def case(cid: str, cust: str, subject: str, category: Category, product: Product, impact: Impact, priority: Priority, **kw: object) -> Case:
        notes = [Note(text=t, at="2026-11-28T10:05") for t in kw.pop("notes", [])]  # type: ignore[union-attr]
        return Case(
            case_id=cid,
            customer_id=cust,
            subject=subject,
            category=category,
            product=product,
            impact=impact,
            priority=priority,
            sla_due=kw.pop("sla", "2026-11-29T10:00"),  # type: ignore[arg-type]
            notes=notes,
            note_count=len(notes),
            **kw,  # type: ignore[arg-type]
        )

    cases = [
        case("CASE-5001", "CUST-7001", "Intermittent drops on office fiber", "technical", "internet", "degraded", "P2",
             description="Connection drops for a minute several times a day at the Portland office.",
             notes=["Customer reports drops since 2026-11-26; line test clean."]),
        case("CASE-5002", "CUST-7002", "Slow speeds in the evening", "technical", "internet", "degraded", "P3",
             description="Speeds fall to about 40 Mbps between 7 and 10 pm.", sla="2026-11-29T10:00"),
        case("CASE-5003", "CUST-7003", "Static IP routing question", "technical", "internet", "question", "P4",
             description="Asks how to route a second static IP block.", sla="2026-12-01T10:00"),
        case("CASE-5004", "CUST-7004", "Roaming charges on November bill", "billing", "mobile", "minor", "P3",
             description="Customer questions a $42.30 roaming charge on INV-8004."),
        case("CASE-5005", "CUST-7005", "Business voice line has no dial tone", "technical", "voice", "outage", "P1",
             status="escalated", owner_team="tier2", escalation_reason="Total voice outage at Tacoma office.",
             notes=["Escalated to tier 2 for a line fault."]),
        case("CASE-5006", "CUST-7006", "Router keeps rebooting", "technical", "internet", "degraded", "P3",
             description="Router restarts every few minutes since the firmware update."),
        case("CASE-5007", "CUST-7006", "Router rebooting again", "technical", "internet", "degraded", "P3",
             description="Same router restart problem, reported again by phone.", created="2026-11-29T16:20"),
        case("CASE-5008", "CUST-7007", "Charged twice for Mobile Plus in November", "billing", "mobile", "minor", "P3",
             description="INV-8005 shows the Mobile Plus plan twice.", notes=["Billing dispute DSP-3001 opened for $45.00."]),
        case("CASE-5009", "CUST-7008", "November invoice billed twice", "billing", "internet", "minor", "P3",
             description="INV-8006 lists the Fiber Business 1G plan twice."),
        case("CASE-5010", "CUST-7009", "Wi-Fi drops upstairs", "technical", "internet", "minor", "P3",
             status="pending_customer", description="Weak Wi-Fi in upstairs bedrooms."),
        case("CASE-5011", "CUST-7010", "SD-WAN site down in Bellevue", "technical", "sdwan", "outage", "P1",
             status="escalated", owner_team="tier2", escalation_reason="Bellevue branch offline."),
        case("CASE-5012", "CUST-7011", "TV channels missing", "technical", "tv", "degraded", "P3",
             description="Sports and news channels missing since 2026-11-27."),
        case("CASE-5013", "CUST-7012", "Late fee on November invoice", "billing", "internet", "minor", "P3",
             status="escalated", owner_team="billing", escalation_reason="Late fee waiver above desk authority."),
        case("CASE-5014", "CUST-7001", "Add a static IP", "account", "internet", "question", "P4",
             status="closed", resolution="Static IP added to the account."),
        case("CASE-5015", "CUST-7004", "Voicemail PIN forgotten", "technical", "mobile", "question", "P4",
             description="Cannot access voicemail."),
    ]
    invoices = [
        _invoice("INV-8001", "CUST-7001", "2026-11", [("Fiber Business 500 - November", 189.00), ("Static IP", 15.00)], paid=True),
        _invoice("INV-8002", "CUST-7001", "2026-10", [("Fiber Business 500 - October", 189.00), ("Static IP", 15.00)], paid=True),
        _invoice("INV-8003", "CUST-7002", "2026-11", [("Fiber Home 300 - November", 69.99)]),
        _invoice("INV-8004", "CUST-7004", "2026-11", [("Mobile Unlimited - November", 55.00), ("Roaming - Canada", 42.30)]),
        _invoice("INV-8005", "CUST-7007", "2026-11", [("Mobile Plus - November", 45.00), ("Mobile Plus - November", 45.00)], paid=True),
        _invoice("INV-8006", "CUST-7008", "2026-11", [("Fiber Business 1G - November", 249.00), ("Fiber Business 1G - November", 249.00)]),
        _invoice("INV-8007", "CUST-7006", "2026-11", [("Fiber Home 100 - November", 49.99), ("Fiber Home 100 - November", 49.99)], paid=True),
        _invoice("INV-8008", "CUST-7005", "2026-11", [("Business Voice + Fiber - November", 159.00)]),
        _invoice("INV-8009", "CUST-7011", "2026-11", [("TV + Fiber Bundle - November", 119.00), ("Premium Sports add-on", 24.99)]),
        _invoice("INV-8010", "CUST-7009", "2026-11", [("Fiber Home 300 - November", 69.99)], paid=True),
        _invoice("INV-8011", "CUST-7010", "2026-11", [("Enterprise SD-WAN - November", 1850.00)], paid=True),
        _invoice("INV-8012", "CUST-7012", "2026-11", [("Fiber Business 500 - November", 189.00), ("Late payment fee", 25.00)], overdue=True),
        _invoice("INV-8013", "CUST-7003", "2026-11", [("Enterprise Dedicated 1G - November", 1200.00), ("Installation - second circuit", 350.00)]),
        _invoice("INV-8014", "CUST-7006", "2026-10", [("Fiber Home 100 - October", 49.99)], paid=True),
    ]
    disputes = [
        BillingDispute(dispute_id="DSP-3001", invoice_id="INV-8005", case_id="CASE-5008", amount=45.00, reason="Plan charged twice"),
    ]
    articles = [
        Article(article_id="KB-2001", title="Router reboot loop after a firmware update", products=["internet"],
                symptoms=["router keeps rebooting", "restarts", "reboot loop", "firmware update", "power light blinking"],
                summary="A router stuck restarting after the November firmware update needs a factory reset.",
                steps=["Hold the reset button for 30 seconds", "Wait 5 minutes for the router to re-provision", "Reconnect devices"]),
        Article(article_id="KB-2002", title="Slow speeds in the evening: change the Wi-Fi channel", products=["internet"],
                symptoms=["slow speeds", "slow evening", "congestion", "wifi slow", "buffering"],
                summary="Evening slowdowns on Wi-Fi are usually channel congestion; switch to the 5 GHz band or an auto channel.",
                steps=["Open the router app", "Enable band steering or choose 5 GHz", "Set the channel to Auto"]),
        Article(article_id="KB-2003", title="No dial tone on a business voice line", products=["voice"],
                symptoms=["no dial tone", "phone dead", "voice outage", "cannot make calls"],
                summary="Check the voice adapter's power and line port; a line-wide outage needs tier 2.",
                steps=["Power-cycle the voice adapter", "Check the LINE 1 light", "If every handset is dead, escalate"]),
        Article(article_id="KB-2004", title="Missing TV channels after a lineup change: run a channel rescan", products=["tv"],
                symptoms=["channels missing", "missing channels", "no signal on some channels", "lineup change"],
                summary="The 2026-11-27 lineup change moved channels; a rescan on the set-top box restores them.",
                steps=["Menu > Settings > Channels", "Choose Rescan", "Wait for the scan to finish"]),
        Article(article_id="KB-2005", title="Reset your voicemail PIN", products=["mobile"],
                symptoms=["voicemail pin", "forgot voicemail", "cannot access voicemail"],
                summary="Dial *86, choose option 4 and follow the prompts to set a new voicemail PIN.",
                steps=["Dial *86", "Press 4", "Enter a new 4-digit PIN"]),
        Article(article_id="KB-2006", title="Roaming charges explained", products=["mobile"],
                symptoms=["roaming charges", "roaming", "international charges", "canada charges"],
                summary="Roaming in Canada is billed at $0.10 per MB unless a travel pass is active.",
                steps=["Check the usage date", "Compare with travel pass dates"]),
        Article(article_id="KB-2007", title="Understanding your invoice line items", products=["internet", "mobile", "voice", "tv", "sdwan"],
                symptoms=["invoice question", "bill explained", "line items", "charged twice", "late fee"],
                summary="Each service appears once per period; a repeated plan line is a billing error the desk can credit.",
                steps=["Compare the line descriptions", "Check the period"]),
        Article(article_id="KB-2008", title="Wi-Fi dead zones upstairs: set up a mesh extender", products=["internet"],
                symptoms=["wifi drops upstairs", "dead zone", "weak wifi", "wifi upstairs"],
                summary="Place a mesh extender halfway between the router and the weak area.",
                steps=["Plug in the extender halfway", "Press WPS on both", "Wait for a solid light"]),
        Article(article_id="KB-2009", title="SD-WAN site failover", products=["sdwan"],
                symptoms=["site down", "sd-wan outage", "branch offline", "failover"],
                summary="Branch outages on SD-WAN fail over to LTE; a site with no failover needs tier 2.",
                steps=["Check the edge device status", "Confirm the LTE backup"]),
        Article(article_id="KB-2010", title="Set up a static IP", products=["internet"],
                symptoms=["static ip", "fixed ip", "routing"],
                summary="Static IPs are configured in the business portal under Network > Addresses.",
                steps=["Open the business portal", "Network > Addresses", "Assign the block"]),
        Article(article_id="KB-2011", title="Mobile data not working after a SIM swap", products=["mobile"],
                symptoms=["no mobile data", "sim swap", "data not working", "apn"],
                summary="After a SIM swap, reset the APN to northstar.net and restart the phone.",
                steps=["Settings > Mobile network > APN", "Reset to default", "Restart"]),
        Article(article_id="KB-2012", title="Slow evening speeds on legacy DSL", products=["internet"],
                symptoms=["slow speeds", "slow evening", "dsl"],
                summary="Legacy DSL guidance (retired with the DSL network).",
                steps=["Replace the DSL filter"], archived=True),
    ]
    return SupportState(
        customers={c.customer_id: c for c in customers},
        cases={c.case_id: c for c in cases},
        invoices={i.invoice_id: i for i in invoices},
        disputes={d.dispute_id: d for d in disputes},
        articles={a.article_id: a for a in articles},
    )
