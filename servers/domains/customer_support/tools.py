"""Customer-support tools: plain business logic over `SupportState`.

The assistant works at the tier-1 desk. Every rule that can refuse raises `Refusal` with a status code
and a reason before anything is written; unknown ids raise `InvalidCall`. Amounts are dollars rounded
to cents. Gates the tools enforce:

- account changes (contact details), credits and billing disputes need the customer verified first (403);
- credits on one invoice are capped at $100.00 in total (403: escalate to billing instead);
- P1 only under the documented urgency criteria: a full outage for a business or enterprise customer (422);
- only the owning team may close, reprioritise or update a case (403);
- an open case for the same customer, product and category is a duplicate: create is refused (409);
- a case with an open billing dispute cannot be closed (409);
- a write that would change nothing (same priority, already attached, already escalated...) is refused (409).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Annotated, Any

from pydantic import Field

from servers.base import CaseFolded, Code, FreeText, InvalidCall, Money, NonBlank, Refusal, ToolEnvironment, Trimmed, tool
from servers.domains.customer_support.world import (
    CREDIT_CAP,
    BillingDispute,
    Case,
    Category,
    Credit,
    Customer,
    Impact,
    Invoice,
    Note,
    Priority,
    Product,
    SupportState,
    default_support_state,
    sla_due,
)

CustomerId = Annotated[NonBlank[str], Field(description="Customer id, e.g. CUST-7001.")]
CaseId = Annotated[NonBlank[str], Field(description="Support case id, e.g. CASE-5001.")]
InvoiceId = Annotated[NonBlank[str], Field(description="Invoice id, e.g. INV-8001.")]
ArticleId = Annotated[NonBlank[str], Field(description="Knowledge-base article id, e.g. KB-2001.")]

ACTIVE = ("open", "pending_customer", "escalated")
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[a-z]{2,}$", re.IGNORECASE)
_PHONE = re.compile(r"^\d{3}-\d{3}-\d{4}$")


def _cents(value: float) -> float:
    return round(value + 0.0, 2)


def _age_key(case: Case) -> tuple[str, int]:
    """Which of two cases is older: creation time, then the sequential case number."""
    number = case.case_id.split("-", 1)[-1]
    return case.created, int(number) if number.isdigit() else 0


def p1_criteria_met(case: Case, customer: Customer) -> bool:
    """The documented urgency criteria for P1: a full service outage for a business or enterprise customer."""
    return case.impact == "outage" and customer.sla_tier in ("business", "enterprise")


class CustomerSupportEnvironment(ToolEnvironment[SupportState]):
    """Northstar Telecom tier-1 support desk: identity, cases, triage and escalation, billing, knowledge base."""

    domain = "customer_support"
    state_model = SupportState

    @classmethod
    def default_state(cls) -> SupportState:
        return default_support_state()

    @classmethod
    def mutation_probes(cls, override: Mapping[str, Any] | None = None) -> list[tuple[str, list[Any]]]:
        return support_probes(cls.initial_state(override))

    # ---- lookups -------------------------------------------------------------------------------
    def _customer(self, customer_id: str) -> Customer:
        customer = self.state.customers.get(customer_id)
        if customer is None:
            raise InvalidCall(f"Unknown customer id {customer_id!r}.")
        return customer

    def _case(self, case_id: str) -> Case:
        case = self.state.cases.get(case_id)
        if case is None:
            raise InvalidCall(f"Unknown case id {case_id!r}.")
        return case

    def _invoice(self, invoice_id: str) -> Invoice:
        invoice = self.state.invoices.get(invoice_id)
        if invoice is None:
            raise InvalidCall(f"Unknown invoice id {invoice_id!r}.")
        return invoice

    def _require_verified(self, customer_id: str) -> None:
        if customer_id not in self.state.authenticated_customers:
            raise Refusal(403, "Customer identity must be verified before this action", customer_id=customer_id)

    def _require_active(self, case: Case) -> None:
        if case.status == "closed":
            raise Refusal(409, "Case is closed", case_id=case.case_id)
        if case.status == "merged":
            raise Refusal(409, "Case was merged into another case", case_id=case.case_id, merged_into=case.merged_into)

    def _require_billing_case(self, case: Case) -> None:
        if case.category != "billing":
            raise Refusal(422, "Credits and disputes are linked to a billing case; this case is not a billing case",
                          case_id=case.case_id, category=case.category)

    def _require_owned(self, case: Case) -> None:
        if case.owner_team != self.state.desk_team:
            raise Refusal(
                403,
                f"Case is owned by the {case.owner_team} team; only the owning team can change or close it",
                case_id=case.case_id,
                owner_team=case.owner_team,
            )

    def _next_case_id(self) -> str:
        """Case numbers are sequential, as in a real ticketing system (the next one after the highest):
        deterministic for every seed, so contracts can name the case a task creates."""
        numbers = [int(k.split("-", 1)[1]) for k in self.state.cases if k.startswith("CASE-") and k.split("-", 1)[1].isdigit()]
        return f"CASE-{max(numbers, default=5000) + 1}"

    def _open_disputes(self, **match: str) -> list[BillingDispute]:
        return [
            d for d in self.state.disputes.values() if d.status == "open" and all(getattr(d, k) == v for k, v in match.items())
        ]

    def _case_view(self, case: Case) -> dict[str, Any]:
        view = case.model_dump(mode="json")
        view["open_disputes"] = [d.dispute_id for d in self._open_disputes(case_id=case.case_id)]
        view["customer_name"] = self.state.customers[case.customer_id].name if case.customer_id in self.state.customers else ""
        return view

    # ---- authentication and account ------------------------------------------------------------
    @tool("compute")
    def authenticate_customer(
        self,
        customer_id: CustomerId,
        pin: Annotated[NonBlank[Code], Field(description="The customer's four-digit support PIN, exactly as they gave it.")],
    ) -> dict[str, Any]:
        """Verify a customer's identity with their support PIN. Required before contact-detail changes,
        billing credits and billing disputes; not needed to look up cases, invoices or articles."""
        customer = self._customer(customer_id)
        if pin != customer.pin:
            raise Refusal(403, "Identity verification failed: PIN does not match", customer_id=customer_id)
        if customer_id not in self.state.authenticated_customers:
            self.state.authenticated_customers.append(customer_id)
        return {"verified": True, "customer_id": customer_id, "name": customer.name}

    @tool("read")
    def get_customer(self, customer_id: CustomerId) -> dict[str, Any]:
        """Look up a customer's profile: name, plan, SLA tier (residential, business or enterprise), contact
        details, whether they are verified in this conversation, and their active case ids."""
        c = self._customer(customer_id)
        active = [k.case_id for k in self.state.cases.values() if k.customer_id == customer_id and k.status in ACTIVE]
        return {
            "customer_id": c.customer_id,
            "name": c.name,
            "plan": c.plan,
            "sla_tier": c.sla_tier,
            "city": c.city,
            "email": c.email,
            "phone": c.phone,
            "verified": customer_id in self.state.authenticated_customers,
            "active_cases": active,
        }

    @tool("read")
    def search_customers(self, name: Annotated[NonBlank[CaseFolded], Field(description="Full or partial customer name, e.g. 'Chen'.")]) -> dict[str, Any]:
        """Find customers whose name contains the text (case-insensitive). Several customers can share a
        surname: confirm the right one (city, plan) before acting."""
        needle = name.strip().lower()
        if not needle:
            raise InvalidCall("Give at least part of a name.")
        hits = [c for c in self.state.customers.values() if needle in c.name.lower()]
        return {"matches": [{"customer_id": c.customer_id, "name": c.name, "city": c.city, "plan": c.plan} for c in hits]}

    @tool("write")
    def update_contact_details(
        self,
        customer_id: CustomerId,
        email: Annotated[NonBlank[str] | None, Field(description="New email address, or omit to keep it.")] = None,
        phone: Annotated[NonBlank[str] | None, Field(description="New phone number as 555-555-5555, or omit to keep it.")] = None,
    ) -> dict[str, Any]:
        """Change a customer's email and/or phone number. The customer must be verified first."""
        customer = self._customer(customer_id)
        if email is None and phone is None:
            raise InvalidCall("Give a new email or a new phone number.")
        if email is not None and not _EMAIL.match(email):
            raise InvalidCall(f"{email!r} is not a valid email address.")
        if phone is not None and not _PHONE.match(phone):
            raise InvalidCall(f"{phone!r} is not a phone number of the form 555-555-5555.")
        self._require_verified(customer_id)
        if (email is None or email == customer.email) and (phone is None or phone == customer.phone):
            raise Refusal(409, "Contact details already have these values", customer_id=customer_id)
        if email is not None:
            customer.email = email
        if phone is not None:
            customer.phone = phone
        return {"customer_id": customer_id, "email": customer.email, "phone": customer.phone, "updated": True}

    # ---- cases ---------------------------------------------------------------------------------
    @tool("read")
    def list_cases(
        self,
        customer_id: CustomerId,
        include_closed: Annotated[bool, Field(description="Also list closed and merged cases.")] = False,
    ) -> dict[str, Any]:
        """List a customer's support cases (active ones by default) with subject, product, priority, status and owner."""
        self._customer(customer_id)
        rows = [
            {k: getattr(c, k) for k in ("case_id", "subject", "category", "product", "priority", "status", "owner_team", "created")}
            for c in self.state.cases.values()
            if c.customer_id == customer_id and (include_closed or c.status in ACTIVE)
        ]
        return {"customer_id": customer_id, "cases": rows}

    @tool("read")
    def get_case(self, case_id: CaseId) -> dict[str, Any]:
        """Look up one case: customer, subject, category, product, impact, priority, status, owning team, SLA
        due time, notes, linked and merged cases, attached articles and any open billing disputes."""
        return self._case_view(self._case(case_id))

    @tool("write")
    def create_case(
        self,
        customer_id: CustomerId,
        subject: Annotated[NonBlank[str], Field(description="Short summary of the problem."), FreeText],
        category: Annotated[Category, Field(description="technical, billing or account.")],
        product: Annotated[Product, Field(description="internet, mobile, voice, tv or sdwan.")],
        impact: Annotated[Impact, Field(description="outage (service completely down), degraded, minor, or question.")],
        description: Annotated[Trimmed, Field(description="The customer's account of the problem."), FreeText] = "",
    ) -> dict[str, Any]:
        """Open a new support case owned by tier 1, untriaged (no priority yet: set one with set_priority).
        Refused (409) when the customer already has an active case for the same product and category:
        that is a duplicate; add a note to the existing case instead."""
        self._customer(customer_id)
        for existing in self.state.cases.values():
            if existing.customer_id == customer_id and existing.status in ACTIVE and existing.product == product and existing.category == category:
                raise Refusal(
                    409,
                    "An active case for this customer, product and category already exists; do not create a duplicate",
                    existing_case_id=existing.case_id,
                )
        case = Case(
            case_id=self._next_case_id(),
            customer_id=customer_id,
            subject=subject,
            description=description,
            category=category,
            product=product,
            impact=impact,
            created=self.state.now,
        )
        self.state.cases[case.case_id] = case
        return {"case_id": case.case_id, "status": case.status, "owner_team": case.owner_team, "priority": None}

    @tool("write")
    def update_case(
        self,
        case_id: CaseId,
        impact: Annotated[Impact | None, Field(description="Corrected impact, or omit.")] = None,
        status: Annotated[NonBlank[str] | None, Field(description="open or pending_customer (waiting on the customer), or omit.")] = None,
    ) -> dict[str, Any]:
        """Correct a case's impact or move it between open and pending_customer. Closing uses close_case."""
        case = self._case(case_id)
        if status is not None and status not in ("open", "pending_customer"):
            raise InvalidCall("status must be open or pending_customer; use close_case or escalate_case otherwise.")
        if impact is None and status is None:
            raise InvalidCall("Give an impact or a status.")
        self._require_active(case)
        self._require_owned(case)
        if (impact is None or impact == case.impact) and (status is None or status == case.status):
            raise Refusal(409, "Case already has these values", case_id=case_id)
        if impact is not None:
            case.impact = impact
        if status is not None:
            case.status = status  # type: ignore[assignment]
        return {"case_id": case_id, "impact": case.impact, "status": case.status}

    @tool("write")
    def add_case_note(
        self,
        case_id: CaseId,
        note: Annotated[NonBlank[str], Field(description="What to record on the case."), FreeText],
    ) -> dict[str, Any]:
        """Add a note to an active case (any owning team). Use it to document what was done or reported."""
        case = self._case(case_id)
        self._require_active(case)
        case.notes.append(Note(text=note, at=self.state.now))
        case.note_count += 1
        return {"case_id": case_id, "note_count": case.note_count}

    @tool("write")
    def close_case(
        self,
        case_id: CaseId,
        resolution: Annotated[NonBlank[str], Field(description="How the problem was resolved."), FreeText],
    ) -> dict[str, Any]:
        """Close a resolved case. Refused for cases owned by another team (403) and for cases with an open
        billing dispute (409); merged and closed cases cannot be closed again (409)."""
        case = self._case(case_id)
        self._require_active(case)
        self._require_owned(case)
        self._require_no_open_dispute(case_id, "Case", "closed")
        case.status = "closed"
        case.resolution = resolution
        return {"case_id": case_id, "status": "closed"}

    def _require_no_open_dispute(self, case_id: str, which: str, ending: str) -> None:
        """A case with an open billing dispute cannot end (closed or merged) until billing resolves it (409)."""
        disputes = self._open_disputes(case_id=case_id)
        if disputes:
            raise Refusal(
                409,
                f"{which} has an open billing dispute; it cannot be {ending} until billing resolves the dispute",
                case_id=case_id,
                dispute_ids=[d.dispute_id for d in disputes],
            )

    @tool("write")
    def merge_cases(
        self,
        duplicate_case_id: Annotated[NonBlank[str], Field(description="The case to fold in (it becomes status merged).")],
        primary_case_id: Annotated[NonBlank[str], Field(description="The case that stays open and keeps the work.")],
    ) -> dict[str, Any]:
        """Merge a duplicate case into the primary case of the same customer. The duplicate becomes status
        merged and points at the primary; the primary lists the duplicate among its linked cases. The
        duplicate is the newer case (merging the older into the newer is refused, 422), and merging ends it
        like a closure: refused when another team owns it (403) or it has an open billing dispute (409)."""
        duplicate = self._case(duplicate_case_id)
        primary = self._case(primary_case_id)
        if duplicate_case_id == primary_case_id:
            raise InvalidCall("A case cannot be merged into itself.")
        if duplicate.customer_id != primary.customer_id:
            raise Refusal(422, "Cases belong to different customers and cannot be merged",
                          duplicate_case_id=duplicate_case_id, primary_case_id=primary_case_id)
        self._require_active(duplicate)
        self._require_active(primary)
        if _age_key(duplicate) < _age_key(primary):
            raise Refusal(
                422,
                "The duplicate is the newer case: merge the newer case into the older one",
                duplicate_case_id=duplicate_case_id,
                primary_case_id=primary_case_id,
                older_case_id=duplicate_case_id,
            )
        self._require_owned(duplicate)
        self._require_no_open_dispute(duplicate_case_id, "The duplicate case", "merged")
        duplicate.status = "merged"
        duplicate.merged_into = primary_case_id
        primary.linked_cases.append(duplicate_case_id)
        return {"primary_case_id": primary_case_id, "merged_case_id": duplicate_case_id, "linked_cases": list(primary.linked_cases)}

    # ---- triage and escalation -----------------------------------------------------------------
    @tool("write")
    def set_priority(
        self,
        case_id: CaseId,
        priority: Annotated[Priority, Field(description="P1 (critical) to P4 (low).")],
    ) -> dict[str, Any]:
        """Set a case's priority and its SLA due time (P1 4 h, P2 8 h, P3 24 h, P4 72 h from now). P1 is
        refused (422) unless the urgency criteria hold: a full outage for a business or enterprise customer."""
        case = self._case(case_id)
        self._require_active(case)
        self._require_owned(case)
        customer = self.state.customers[case.customer_id]
        if priority == "P1" and not p1_criteria_met(case, customer):
            raise Refusal(
                422,
                "P1 urgency criteria not met: P1 needs a full outage for a business or enterprise customer",
                impact=case.impact,
                sla_tier=customer.sla_tier,
            )
        if case.priority == priority:
            raise Refusal(409, f"Case is already {priority}", case_id=case_id)
        case.priority = priority
        case.sla_due = sla_due(priority)
        return {"case_id": case_id, "priority": priority, "sla_due": case.sla_due}

    @tool("write")
    def escalate_case(
        self,
        case_id: CaseId,
        team: Annotated[NonBlank[str], Field(description="tier2 (technical, P1/P2 only) or billing (billing cases).")],
        reason: Annotated[NonBlank[str], Field(description="Why it is escalated and what was already tried."), FreeText],
    ) -> dict[str, Any]:
        """Hand a tier-1 case to another team, which then owns it. tier2 takes only technical cases of
        priority P1 or P2 (422 otherwise); billing takes only billing cases (422 otherwise)."""
        case = self._case(case_id)
        if team not in ("tier2", "billing"):
            raise InvalidCall("team must be tier2 or billing.")
        self._require_active(case)
        self._require_owned(case)
        if team == "tier2" and (case.category != "technical" or case.priority not in ("P1", "P2")):
            raise Refusal(422, "Tier 2 takes only technical cases of priority P1 or P2", priority=case.priority, category=case.category)
        if team == "billing" and case.category != "billing":
            raise Refusal(422, "The billing team takes only billing cases", category=case.category)
        case.owner_team = team  # type: ignore[assignment]
        case.status = "escalated"
        case.escalation_reason = reason
        return {"case_id": case_id, "owner_team": team, "status": "escalated"}

    # ---- billing -------------------------------------------------------------------------------
    @tool("read")
    def list_invoices(self, customer_id: CustomerId) -> dict[str, Any]:
        """List a customer's invoices with period, total, balance due and status."""
        self._customer(customer_id)
        rows = [
            {k: getattr(i, k) for k in ("invoice_id", "period", "total", "balance_due", "status")}
            for i in self.state.invoices.values()
            if i.customer_id == customer_id
        ]
        return {"customer_id": customer_id, "invoices": rows}

    @tool("read")
    def get_invoice(self, invoice_id: InvoiceId) -> dict[str, Any]:
        """Look up one invoice: line items, total, amount paid, credits applied, balance due (negative means
        a credit carried to the next bill), status and any open billing dispute."""
        view = self._invoice(invoice_id).model_dump(mode="json")
        view["open_disputes"] = [d.dispute_id for d in self._open_disputes(invoice_id=invoice_id)]
        return view

    @tool("write")
    def apply_credit(
        self,
        invoice_id: InvoiceId,
        case_id: CaseId,
        amount: Annotated[Money, Field(description="Credit in US dollars, e.g. 49.99.")],
        reason: Annotated[NonBlank[str], Field(description="Why the credit is given."), FreeText],
    ) -> dict[str, Any]:
        """Credit an invoice, linked to the customer's billing case (422 for another customer's case or a case
        that is not a billing case). The customer must be verified (403). All
        credits on one invoice together may not exceed $100.00 (403: escalate the case to billing instead);
        not on a case another team owns (403: after escalation billing decides);
        one credit per case and invoice (409); not while the invoice has an open billing dispute (409)."""
        invoice = self._invoice(invoice_id)
        case = self._case(case_id)
        amount = _cents(amount)
        if amount <= 0:
            raise Refusal(422, "Credit amount must be positive")
        self._require_verified(invoice.customer_id)
        if case.customer_id != invoice.customer_id:
            raise Refusal(422, "Case belongs to another customer than the invoice", case_id=case_id, invoice_id=invoice_id)
        self._require_billing_case(case)
        self._require_active(case)
        self._require_owned(case)
        if self._open_disputes(invoice_id=invoice_id):
            raise Refusal(409, "Invoice has an open billing dispute; billing will settle it", invoice_id=invoice_id)
        if any(c.invoice_id == invoice_id and c.case_id == case_id for c in self.state.credits.values()):
            raise Refusal(409, "A credit for this case was already applied to this invoice", invoice_id=invoice_id, case_id=case_id)
        if invoice.credited_total + amount > CREDIT_CAP + 1e-9:
            raise Refusal(
                403,
                "Credit exceeds the $100.00 desk cap per invoice; escalate the case to the billing team instead",
                cap=CREDIT_CAP,
                already_credited=invoice.credited_total,
            )
        if amount > invoice.total - invoice.credited_total + 1e-9:
            raise Refusal(422, "Credit exceeds the invoice total", creditable=_cents(invoice.total - invoice.credited_total))
        credit = Credit(
            credit_id=self.ids.mint("CR"), invoice_id=invoice_id, customer_id=invoice.customer_id, case_id=case_id, amount=amount, reason=reason
        )
        self.state.credits[credit.credit_id] = credit
        invoice.credited_total = _cents(invoice.credited_total + amount)
        invoice.credit_count += 1
        invoice.balance_due = _cents(invoice.total - invoice.amount_paid - invoice.credited_total)
        return {"credit_id": credit.credit_id, "amount": amount, "credited_total": invoice.credited_total, "balance_due": invoice.balance_due}

    @tool("write")
    def open_billing_dispute(
        self,
        invoice_id: InvoiceId,
        case_id: CaseId,
        amount: Annotated[Money, Field(description="Disputed amount in US dollars.")],
        reason: Annotated[NonBlank[str], Field(description="What the customer disputes."), FreeText],
    ) -> dict[str, Any]:
        """Open a billing dispute on an invoice for the billing team to investigate, linked to the customer's
        billing case. The customer must be verified (403); not on a case another team owns (403); one open
        dispute per invoice (409). While the dispute is
        open the case cannot be closed and the invoice cannot be credited."""
        invoice = self._invoice(invoice_id)
        case = self._case(case_id)
        amount = _cents(amount)
        if amount <= 0 or amount > invoice.total:
            raise Refusal(422, "Disputed amount must be positive and at most the invoice total", total=invoice.total)
        self._require_verified(invoice.customer_id)
        if case.customer_id != invoice.customer_id:
            raise Refusal(422, "Case belongs to another customer than the invoice", case_id=case_id, invoice_id=invoice_id)
        self._require_billing_case(case)
        self._require_active(case)
        self._require_owned(case)
        existing = self._open_disputes(invoice_id=invoice_id)
        if existing:
            raise Refusal(409, "This invoice already has an open billing dispute", dispute_id=existing[0].dispute_id)
        dispute = BillingDispute(dispute_id=self.ids.mint("DSP"), invoice_id=invoice_id, case_id=case_id, amount=amount, reason=reason)
        self.state.disputes[dispute.dispute_id] = dispute
        return {"dispute_id": dispute.dispute_id, "status": "open", "amount": amount}

    # ---- knowledge base ------------------------------------------------------------------------
    @tool("read")
    def search_articles(
        self,
        query: Annotated[NonBlank[str], Field(description="Symptoms or keywords, e.g. 'router keeps rebooting'.")],
        product: Annotated[Product | None, Field(description="Only articles for this product.")] = None,
    ) -> dict[str, Any]:
        """Search the knowledge base. Matches words of the query against titles and symptoms; best first.
        Archived articles are listed with archived=true and must not be used."""
        words = [w for w in re.findall(r"[a-z0-9-]+", query.lower()) if len(w) > 2]
        scored = []
        for a in self.state.articles.values():
            if product is not None and product not in a.products:
                continue
            text = " ".join([a.title.lower(), *a.symptoms])
            score = sum(1 for w in words if w in text)
            if score:
                scored.append((score, a))
        scored.sort(key=lambda pair: -pair[0])
        return {
            "results": [
                {"article_id": a.article_id, "title": a.title, "products": a.products, "summary": a.summary, "archived": a.archived}
                for _, a in scored[:5]
            ]
        }

    @tool("read")
    def get_article(self, article_id: ArticleId) -> dict[str, Any]:
        """Read one knowledge-base article in full: products, symptoms, summary and steps."""
        article = self.state.articles.get(article_id)
        if article is None:
            raise InvalidCall(f"Unknown article id {article_id!r}.")
        return article.model_dump(mode="json")

    @tool("write")
    def attach_article(self, case_id: CaseId, article_id: ArticleId) -> dict[str, Any]:
        """Attach a knowledge-base article to an active case (what was suggested to the customer). The
        article must cover the case's product (422) and not be archived (422); each article once (409)."""
        case = self._case(case_id)
        article = self.state.articles.get(article_id)
        if article is None:
            raise InvalidCall(f"Unknown article id {article_id!r}.")
        self._require_active(case)
        if article.archived:
            raise Refusal(422, "Article is archived and must not be used", article_id=article_id)
        if case.product not in article.products:
            raise Refusal(422, "Article does not cover this case's product", article_id=article_id, product=case.product)
        if article_id in case.articles:
            raise Refusal(409, "Article is already attached to this case", article_id=article_id)
        case.articles.append(article_id)
        return {"case_id": case_id, "articles": list(case.articles)}


def support_probes(state: SupportState) -> list[tuple[str, list[Any]]]:
    """Write sequences touching every customer, case, invoice and collection of the world (for mutation tests)."""
    from contracts.schema import GoldCall

    def call(tool: str, **args: Any) -> GoldCall:
        return GoldCall(tool=tool, args=args)

    probes: list[tuple[str, list[Any]]] = []
    for customer in state.customers.values():
        auth = call("authenticate_customer", customer_id=customer.customer_id, pin=customer.pin)
        probes.append((f"authenticate {customer.customer_id}", [auth]))
        probes.append((f"phone {customer.customer_id}", [auth, call("update_contact_details", customer_id=customer.customer_id, phone="555-555-0000")]))
        probes.append((f"email {customer.customer_id}", [auth, call("update_contact_details", customer_id=customer.customer_id, email="probe@example.com")]))
        probes.append(
            (
                f"new case for {customer.customer_id}",
                [call("create_case", customer_id=customer.customer_id, subject="probe", category="account", product="tv", impact="question")],
            )
        )
    for case in state.cases.values():
        if case.status not in ACTIVE:
            continue
        cid = case.case_id
        probes.append((f"note {cid}", [call("add_case_note", case_id=cid, note="probe")]))
        owned = case.owner_team == state.desk_team
        if owned:
            other = "P4" if case.priority != "P4" else "P3"
            probes.append((f"priority {cid}", [call("set_priority", case_id=cid, priority=other)]))
            probes.append((f"status {cid}", [call("update_case", case_id=cid, status="pending_customer" if case.status != "pending_customer" else "open")]))
            if not any(d.case_id == cid and d.status == "open" for d in state.disputes.values()):
                probes.append((f"close {cid}", [call("close_case", case_id=cid, resolution="probe")]))
            team = "billing" if case.category == "billing" else "tier2"
            steps = [] if team == "billing" or case.priority in ("P1", "P2") else [call("set_priority", case_id=cid, priority="P2")]
            probes.append((f"escalate {cid}", [*steps, call("escalate_case", case_id=cid, team=team, reason="probe")]))
        for other_case in state.cases.values():
            if other_case.case_id != cid and other_case.customer_id == case.customer_id and other_case.status in ACTIVE:
                probes.append((f"merge {cid} into {other_case.case_id}", [call("merge_cases", duplicate_case_id=cid, primary_case_id=other_case.case_id)]))
        article = next((a for a in state.articles.values() if case.product in a.products and not a.archived and a.article_id not in case.articles), None)
        if article is not None:
            probes.append((f"article on {cid}", [call("attach_article", case_id=cid, article_id=article.article_id)]))
    for invoice in state.invoices.values():
        customer = state.customers.get(invoice.customer_id)
        if customer is None:
            continue
        auth = call("authenticate_customer", customer_id=customer.customer_id, pin=customer.pin)
        new_case = call("create_case", customer_id=customer.customer_id, subject="probe", category="billing", product="tv", impact="minor")
        ref = "${create_case.case_id}"
        disputed = any(d.invoice_id == invoice.invoice_id and d.status == "open" for d in state.disputes.values())
        if not disputed and invoice.credited_total + 1 <= 100:
            probes.append((f"credit {invoice.invoice_id}", [auth, new_case, call("apply_credit", invoice_id=invoice.invoice_id, case_id=ref, amount=1.0, reason="probe")]))
        if not disputed:
            probes.append((f"dispute {invoice.invoice_id}", [auth, new_case, call("open_billing_dispute", invoice_id=invoice.invoice_id, case_id=ref, amount=1.0, reason="probe")]))
    return probes
