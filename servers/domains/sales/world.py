"""The sales world (an SDR desk): reps, accounts, contacts with opt-out flags, leads with scores and
owners, opportunities with stages and amounts, outreach sequences and enrolments, emails and activities.

Records are keyed by readable ids (`LEAD-1001`, `CON-3003`, `OPP-4001`, `SEQ-01`), so contract state
paths read naturally: `leads.LEAD-1004.status`, `opportunities.OPP-4002.stage`. Today is 2026-11-30.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

LeadStatus = Literal["new", "working", "qualified", "disqualified", "converted"]
Stage = Literal["prospecting", "qualification", "proposal", "negotiation", "closed_won", "closed_lost"]
DisqualifyReason = Literal["no_budget", "no_authority", "no_need", "bad_timing", "competitor", "unresponsive"]
ActivityKind = Literal["call", "meeting", "note"]

PIPELINE: tuple[Stage, ...] = ("prospecting", "qualification", "proposal", "negotiation", "closed_won")
"""Open stages in order; an opportunity moves forward one stage at a time. closed_lost is reachable from
any open stage; closed_won only from negotiation; closed stages are final."""
QUALIFY_THRESHOLD = 60


class Rep(BaseModel):
    rep_id: str
    name: str


class Account(BaseModel):
    account_id: str
    name: str
    industry: str
    employees: int


class Contact(BaseModel):
    contact_id: str
    name: str
    email: str
    title: str
    account_id: str
    opted_out: bool = Field(default=False, description="The contact unsubscribed: never email or enrol them.")


class ScoreFactors(BaseModel):
    fit: int
    engagement: int
    intent: int


class Lead(BaseModel):
    lead_id: str
    contact_id: str
    account_id: str
    owner_rep_id: str
    source: str
    score: int
    factors: ScoreFactors
    status: LeadStatus = "new"
    disqualify_reason: DisqualifyReason | None = None
    opportunity_id: str | None = None


class Opportunity(BaseModel):
    opportunity_id: str
    name: str
    account_id: str
    owner_rep_id: str
    stage: Stage
    amount: float
    lead_id: str | None = None


class Sequence(BaseModel):
    sequence_id: str
    name: str
    steps: int


class Enrollment(BaseModel):
    enrollment_id: str
    contact_id: str
    sequence_id: str


class Email(BaseModel):
    email_id: str
    contact_id: str
    subject: str
    body: str


class Activity(BaseModel):
    activity_id: str
    contact_id: str
    kind: ActivityKind
    summary: str


class AuditEntry(BaseModel):
    """One successful change, as the CRM's audit trail records it."""

    action: str
    record_id: str
    at: str


class SalesState(BaseModel):
    reps: dict[str, Rep]
    accounts: dict[str, Account]
    contacts: dict[str, Contact]
    leads: dict[str, Lead]
    opportunities: dict[str, Opportunity]
    sequences: dict[str, Sequence]
    enrollments: dict[str, Enrollment] = Field(default_factory=dict)
    emails: dict[str, Email] = Field(default_factory=dict)
    activities: dict[str, Activity] = Field(default_factory=dict)
    audit_log: list[AuditEntry] = Field(default_factory=list, description="Every successful change, oldest first.")
    business_date: str = "2026-11-30"
    session_rep_id: str = Field(
        default="REP-01",
        description="The rep signed in to this CRM session: the user the assistant works for. Every ownership "
        "rule is checked against it, never against an argument; a task names another rep through its initial state.",
    )


def _lead(lid: str, cid: str, aid: str, rep: str, source: str, fit: int, eng: int, intent: int, status: LeadStatus = "new", **kw: object) -> Lead:
    return Lead(lead_id=lid, contact_id=cid, account_id=aid, owner_rep_id=rep, source=source, score=fit + eng + intent,
                factors=ScoreFactors(fit=fit, engagement=eng, intent=intent), status=status, **kw)  # type: ignore[arg-type]


def default_sales_state() -> SalesState:
    """The seeded world every sales task starts from (before its own override)."""
    reps = [Rep(rep_id="REP-01", name="Jordan Lee"), Rep(rep_id="REP-02", name="Avery Stone"), Rep(rep_id="REP-03", name="Sam Patel")]
    accounts = [
        Account(account_id="ACCT-2001", name="Northwind Logistics", industry="logistics", employees=1200),
        Account(account_id="ACCT-2002", name="Bluefin Analytics", industry="software", employees=300),
        Account(account_id="ACCT-2003", name="Cedar Health", industry="healthcare", employees=4500),
        Account(account_id="ACCT-2004", name="Orbit Retail", industry="retail", employees=800),
        Account(account_id="ACCT-2005", name="Northwind Foods", industry="food distribution", employees=650),
        Account(account_id="ACCT-2006", name="Pinecrest Schools", industry="education", employees=220),
        Account(account_id="ACCT-2007", name="Summit Outdoor", industry="retail", employees=150),
    ]
    contacts = [
        Contact(contact_id="CON-3001", name="Laura Chen", email="laura.chen@northwindlogistics.com", title="VP Operations", account_id="ACCT-2001"),
        Contact(contact_id="CON-3002", name="Mark Chen", email="mark.chen@northwindfoods.com", title="IT Manager", account_id="ACCT-2005"),
        Contact(contact_id="CON-3003", name="Priya Natarajan", email="priya@bluefinanalytics.io", title="CTO", account_id="ACCT-2002", opted_out=True),
        Contact(contact_id="CON-3004", name="Diego Ramos", email="d.ramos@cedarhealth.org", title="Director of Analytics", account_id="ACCT-2003"),
        Contact(contact_id="CON-3005", name="Emma Schultz", email="emma.schultz@orbitretail.com", title="Head of eCommerce", account_id="ACCT-2004"),
        Contact(contact_id="CON-3006", name="Tom Reilly", email="treilly@pinecrest.edu", title="Principal", account_id="ACCT-2006", opted_out=True),
        Contact(contact_id="CON-3007", name="Nina Kowalski", email="nina@bluefinanalytics.io", title="Data Lead", account_id="ACCT-2002"),
        Contact(contact_id="CON-3008", name="Owen Price", email="o.price@cedarhealth.org", title="Procurement Manager", account_id="ACCT-2003"),
        Contact(contact_id="CON-3009", name="Hiro Tanaka", email="hiro@summitoutdoor.com", title="COO", account_id="ACCT-2007"),
    ]
    leads = [
        _lead("LEAD-1001", "CON-3001", "ACCT-2001", "REP-01", "webinar", 40, 22, 20, "working"),
        _lead("LEAD-1002", "CON-3002", "ACCT-2005", "REP-01", "trade show", 20, 15, 10, "working"),
        _lead("LEAD-1003", "CON-3003", "ACCT-2002", "REP-01", "inbound demo request", 35, 14, 25),
        _lead("LEAD-1004", "CON-3004", "ACCT-2003", "REP-02", "referral", 45, 20, 23, "qualified"),
        _lead("LEAD-1005", "CON-3005", "ACCT-2004", "REP-01", "webinar", 30, 20, 18, "qualified"),
        _lead("LEAD-1006", "CON-3006", "ACCT-2006", "REP-01", "cold list", 15, 5, 10),
        _lead("LEAD-1007", "CON-3007", "ACCT-2002", "REP-01", "content download", 30, 16, 15),
        _lead("LEAD-1008", "CON-3008", "ACCT-2003", "REP-01", "trade show", 30, 15, 10, "working"),
        _lead("LEAD-1009", "CON-3009", "ACCT-2007", "REP-01", "inbound demo request", 35, 24, 20, "qualified"),
    ]
    opportunities = [
        Opportunity(opportunity_id="OPP-4001", name="Northwind Logistics fleet tracking", account_id="ACCT-2001", owner_rep_id="REP-01", stage="qualification", amount=48000.0),
        Opportunity(opportunity_id="OPP-4002", name="Northwind Foods POS upgrade", account_id="ACCT-2005", owner_rep_id="REP-01", stage="proposal", amount=22000.0),
        Opportunity(opportunity_id="OPP-4003", name="Cedar Health analytics suite", account_id="ACCT-2003", owner_rep_id="REP-02", stage="negotiation", amount=120000.0),
        Opportunity(opportunity_id="OPP-4004", name="Orbit Retail loyalty add-on", account_id="ACCT-2004", owner_rep_id="REP-01", stage="prospecting", amount=15000.0),
        Opportunity(opportunity_id="OPP-4005", name="Pinecrest Schools pilot", account_id="ACCT-2006", owner_rep_id="REP-01", stage="closed_won", amount=9000.0),
    ]
    sequences = [
        Sequence(sequence_id="SEQ-01", name="Cold intro", steps=5),
        Sequence(sequence_id="SEQ-02", name="Webinar follow-up", steps=3),
        Sequence(sequence_id="SEQ-03", name="Re-engagement", steps=4),
    ]
    enrollments = [Enrollment(enrollment_id="ENR-0001", contact_id="CON-3005", sequence_id="SEQ-02")]
    return SalesState(
        reps={r.rep_id: r for r in reps},
        accounts={a.account_id: a for a in accounts},
        contacts={c.contact_id: c for c in contacts},
        leads={lead.lead_id: lead for lead in leads},
        opportunities={o.opportunity_id: o for o in opportunities},
        sequences={s.sequence_id: s for s in sequences},
        enrollments={e.enrollment_id: e for e in enrollments},
    )
