"""Sales tools: plain business logic over `SalesState`.

Every rule that can refuse raises `Refusal` with a status code and a reason before anything is
written; unknown ids raise `InvalidCall`. Amounts are US dollars (`Money`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

from pydantic import Field

from servers.base import CaseFolded, FreeText, InvalidCall, Money, NonBlank, Refusal, ToolEnvironment, tool
from servers.domains.sales.world import (
    PIPELINE,
    QUALIFY_THRESHOLD,
    Activity,
    ActivityKind,
    AuditEntry,
    Contact,
    DisqualifyReason,
    Email,
    Enrollment,
    Lead,
    LeadStatus,
    Opportunity,
    SalesState,
    Stage,
    default_sales_state,
)

LeadId = Annotated[NonBlank[str], Field(description="Lead id, e.g. LEAD-1001.")]
ContactId = Annotated[NonBlank[str], Field(description="Contact id, e.g. CON-3001.")]
OpportunityId = Annotated[NonBlank[str], Field(description="Opportunity id, e.g. OPP-4001.")]
SequenceId = Annotated[NonBlank[str], Field(description="Outreach sequence id, e.g. SEQ-01.")]

AMOUNT_MAX = 10_000_000.0


def _grade(score: int) -> str:
    return "A" if score >= 80 else "B" if score >= QUALIFY_THRESHOLD else "C"


class SalesEnvironment(ToolEnvironment[SalesState]):
    """An SDR desk: lead qualification, outreach with opt-outs respected, and the opportunity pipeline."""

    domain = "sales"
    state_model = SalesState

    @classmethod
    def default_state(cls) -> SalesState:
        return default_sales_state()

    @classmethod
    def mutation_probes(cls, override: Mapping[str, Any] | None = None) -> list[tuple[str, list[Any]]]:
        return sales_probes(cls.initial_state(override))

    # ---- lookups -------------------------------------------------------------------------------
    def _lead(self, lead_id: str) -> Lead:
        lead = self.state.leads.get(lead_id)
        if lead is None:
            raise InvalidCall(f"Unknown lead id {lead_id!r}.")
        return lead

    def _contact(self, contact_id: str) -> Contact:
        contact = self.state.contacts.get(contact_id)
        if contact is None:
            raise InvalidCall(f"Unknown contact id {contact_id!r}.")
        return contact

    def _opportunity(self, opportunity_id: str) -> Opportunity:
        opp = self.state.opportunities.get(opportunity_id)
        if opp is None:
            raise InvalidCall(f"Unknown opportunity id {opportunity_id!r}.")
        return opp

    def _rep(self, rep_id: str) -> None:
        if rep_id not in self.state.reps:
            raise InvalidCall(f"Unknown rep id {rep_id!r}.")

    def _audit(self, action: str, record_id: str) -> None:
        self.state.audit_log.append(AuditEntry(action=action, record_id=record_id, at=self.state.business_date))

    def _acting_rep(self) -> str:
        """The rep the assistant acts for: the session's signed-in rep (world state), never an argument,
        so no call can act as another rep."""
        rep_id = self.state.session_rep_id
        if rep_id not in self.state.reps:
            raise InvalidCall(f"The session's rep {rep_id!r} is not a rep of this CRM.")
        return rep_id

    def _owned_lead(self, lead_id: str, verb: str) -> tuple[Lead, str]:
        lead = self._lead(lead_id)
        rep_id = self._acting_rep()
        if lead.owner_rep_id != rep_id:
            # No owner id in the refusal: it would only invite acting as the owner.
            raise Refusal(403, f"Lead is owned by another rep; only its owner can {verb} it", lead_id=lead_id)
        return lead, rep_id

    def _lead_view(self, lead: Lead) -> dict[str, Any]:
        contact = self.state.contacts[lead.contact_id]
        return {
            **lead.model_dump(mode="json", exclude={"factors"}),
            "contact_name": contact.name,
            "contact_title": contact.title,
            "contact_opted_out": contact.opted_out,
            "company": self.state.accounts[lead.account_id].name,
            "owner_name": self.state.reps[lead.owner_rep_id].name,
        }

    def _reachable(self, contact: Contact, action: str) -> None:
        if contact.opted_out:
            raise Refusal(403, f"Contact has opted out of marketing and sales email; cannot {action}", contact_id=contact.contact_id)

    # ---- reads ---------------------------------------------------------------------------------
    @tool("read")
    def get_lead(self, lead_id: LeadId) -> dict[str, Any]:
        """Look up a lead: contact (and whether they opted out), company, owner rep, source, score and status."""
        return self._lead_view(self._lead(lead_id))

    @tool("read")
    def search_leads(
        self,
        owner_rep_id: Annotated[NonBlank[str] | None, Field(description="Only leads owned by this rep, e.g. REP-01.")] = None,
        status: Annotated[LeadStatus | None, Field(description="Only leads with this status: new, working, qualified, disqualified, converted.")] = None,
        company: Annotated[NonBlank[CaseFolded] | None, Field(description="Only leads whose company name contains this text (case-insensitive).")] = None,
    ) -> dict[str, Any]:
        """Search leads by owner, status and company name; every filter is optional."""
        rows = [
            lead
            for lead in self.state.leads.values()
            if (owner_rep_id is None or lead.owner_rep_id == owner_rep_id)
            and (status is None or lead.status == status)
            and (company is None or company.lower() in self.state.accounts[lead.account_id].name.lower())
        ]
        return {"leads": [self._lead_view(lead) for lead in rows]}

    @tool("compute")
    def score_lead(self, lead_id: LeadId) -> dict[str, Any]:
        """Explain a lead's score: fit, engagement and intent points, the grade (A >= 80, B >= 60, C below) and
        whether it meets the qualification threshold of 60. Changes nothing."""
        lead = self._lead(lead_id)
        return {
            "lead_id": lead_id,
            "score": lead.score,
            "factors": lead.factors.model_dump(),
            "grade": _grade(lead.score),
            "threshold": QUALIFY_THRESHOLD,
            "meets_threshold": lead.score >= QUALIFY_THRESHOLD,
        }

    @tool("read")
    def get_contact(self, contact_id: ContactId) -> dict[str, Any]:
        """Look up a contact: name, email, title, company, opt-out flag and the sequences they are enrolled in."""
        contact = self._contact(contact_id)
        enrolled = [e.sequence_id for e in self.state.enrollments.values() if e.contact_id == contact_id]
        return {**contact.model_dump(mode="json"), "company": self.state.accounts[contact.account_id].name, "enrolled_sequences": enrolled}

    @tool("read")
    def list_sequences(self) -> dict[str, Any]:
        """List the outreach sequences (id, name, number of steps)."""
        return {"sequences": [s.model_dump(mode="json") for s in self.state.sequences.values()]}

    @tool("read")
    def get_opportunity(self, opportunity_id: OpportunityId) -> dict[str, Any]:
        """Look up an opportunity: name, company, owner rep, stage, the next stage in the pipeline, amount."""
        opp = self._opportunity(opportunity_id)
        return {**opp.model_dump(mode="json"), "company": self.state.accounts[opp.account_id].name, "next_stage": _next_stage(opp.stage)}

    @tool("read")
    def list_opportunities(self, owner_rep_id: Annotated[NonBlank[str], Field(description="The rep whose opportunities to list, e.g. REP-01.")]) -> dict[str, Any]:
        """List the opportunities a rep owns, with company, stage and amount."""
        self._rep(owner_rep_id)
        rows = [o for o in self.state.opportunities.values() if o.owner_rep_id == owner_rep_id]
        return {"opportunities": [{**o.model_dump(mode="json"), "company": self.state.accounts[o.account_id].name} for o in rows]}

    # ---- lead qualification --------------------------------------------------------------------
    @tool("write")
    def qualify_lead(self, lead_id: LeadId) -> dict[str, Any]:
        """Mark a new or working lead as qualified. Only the lead's owner (the signed-in rep) may; the score
        must be at least 60."""
        lead, _ = self._owned_lead(lead_id, "qualify")
        if lead.status not in ("new", "working"):
            raise Refusal(409, f"Lead is already {lead.status}", lead_id=lead_id)
        if lead.score < QUALIFY_THRESHOLD:
            raise Refusal(422, "Lead score is below the qualification threshold", score=lead.score, threshold=QUALIFY_THRESHOLD)
        lead.status = "qualified"
        self._audit("qualify_lead", lead_id)
        return {"lead_id": lead_id, "status": "qualified", "score": lead.score}

    @tool("write")
    def disqualify_lead(
        self,
        lead_id: LeadId,
        reason: Annotated[DisqualifyReason, Field(description="no_budget, no_authority, no_need, bad_timing, competitor or unresponsive.")],
    ) -> dict[str, Any]:
        """Mark a new or working lead as disqualified with a reason code. Only the lead's owner (the signed-in
        rep) may."""
        lead, _ = self._owned_lead(lead_id, "disqualify")
        if lead.status not in ("new", "working"):
            raise Refusal(409, f"Lead is already {lead.status}", lead_id=lead_id)
        lead.status = "disqualified"
        lead.disqualify_reason = reason
        self._audit("disqualify_lead", lead_id)
        return {"lead_id": lead_id, "status": "disqualified", "reason": reason}

    # ---- outreach ------------------------------------------------------------------------------
    @tool("write")
    def enroll_in_sequence(self, contact_id: ContactId, sequence_id: SequenceId) -> dict[str, Any]:
        """Enrol a contact in an outreach sequence (automated emails). Refused for opted-out contacts and
        for a contact already in that sequence."""
        contact = self._contact(contact_id)
        if sequence_id not in self.state.sequences:
            raise InvalidCall(f"Unknown sequence id {sequence_id!r}.")
        self._reachable(contact, "enrol them in a sequence")
        if any(e.contact_id == contact_id and e.sequence_id == sequence_id for e in self.state.enrollments.values()):
            raise Refusal(409, "Contact is already enrolled in this sequence", contact_id=contact_id, sequence_id=sequence_id)
        enrollment = Enrollment(enrollment_id=self.ids.mint("ENR"), contact_id=contact_id, sequence_id=sequence_id)
        self.state.enrollments[enrollment.enrollment_id] = enrollment
        self._audit("enroll_in_sequence", contact_id)
        return {"enrollment_id": enrollment.enrollment_id, "contact_id": contact_id, "sequence_id": sequence_id, "sequence_name": self.state.sequences[sequence_id].name}

    @tool("write")
    def send_email(
        self,
        contact_id: ContactId,
        subject: Annotated[NonBlank[str], Field(description="Email subject line."), FreeText],
        body: Annotated[NonBlank[str], Field(description="Email body text."), FreeText],
    ) -> dict[str, Any]:
        """Send a one-off sales email to a contact. Refused for opted-out contacts."""
        contact = self._contact(contact_id)
        self._reachable(contact, "email them")
        email = Email(email_id=self.ids.mint("EML"), contact_id=contact_id, subject=subject, body=body)
        self.state.emails[email.email_id] = email
        self._audit("send_email", contact_id)
        return {"email_id": email.email_id, "contact_id": contact_id, "sent_to": contact.email}

    @tool("write")
    def log_activity(
        self,
        contact_id: ContactId,
        kind: Annotated[ActivityKind, Field(description="call, meeting or note (emails are recorded by send_email).")],
        summary: Annotated[NonBlank[str], Field(description="What happened, in a sentence or two."), FreeText],
    ) -> dict[str, Any]:
        """Record a call, meeting or note against a contact. Allowed for opted-out contacts (it sends nothing)."""
        self._contact(contact_id)
        activity = Activity(activity_id=self.ids.mint("ACT"), contact_id=contact_id, kind=kind, summary=summary)
        self.state.activities[activity.activity_id] = activity
        self._audit("log_activity", contact_id)
        return {"activity_id": activity.activity_id, "contact_id": contact_id, "kind": kind}

    # ---- opportunities -------------------------------------------------------------------------
    @tool("write")
    def convert_lead(
        self,
        lead_id: LeadId,
        opportunity_name: Annotated[NonBlank[str], Field(description="Name of the new opportunity, e.g. 'Orbit Retail eCommerce platform'."), FreeText],
        amount: Annotated[Money, Field(description="Expected deal value in US dollars.")],
    ) -> dict[str, Any]:
        """Convert a qualified lead into an opportunity (stage 'qualification') on the lead's account. Only
        the lead's owner (the signed-in rep) may convert it; the opportunity is theirs."""
        lead, rep_id = self._owned_lead(lead_id, "convert")
        if lead.status != "qualified":
            raise Refusal(409, f"Only qualified leads can be converted; this lead is {lead.status}", lead_id=lead_id)
        if not 0 < amount <= AMOUNT_MAX:
            raise Refusal(422, "Amount must be positive and at most 10,000,000", amount=amount)
        opp = Opportunity(
            opportunity_id=self.ids.mint("OPP"),
            name=opportunity_name,
            account_id=lead.account_id,
            owner_rep_id=rep_id,
            stage="qualification",
            amount=amount,
            lead_id=lead_id,
        )
        self.state.opportunities[opp.opportunity_id] = opp
        lead.status = "converted"
        lead.opportunity_id = opp.opportunity_id
        self._audit("convert_lead", lead_id)
        return {"opportunity_id": opp.opportunity_id, "stage": opp.stage, "amount": amount, "account_id": lead.account_id, "lead_status": "converted"}

    @tool("write")
    def update_opportunity_stage(
        self,
        opportunity_id: OpportunityId,
        stage: Annotated[Stage, Field(description="prospecting, qualification, proposal, negotiation, closed_won or closed_lost.")],
    ) -> dict[str, Any]:
        """Move an opportunity to another stage. Stages follow the pipeline order, one step at a time
        (prospecting -> qualification -> proposal -> negotiation -> closed_won); closed_lost is allowed from
        any open stage; closed stages are final. Only the opportunity's owner (the signed-in rep) may change it."""
        opp = self._opportunity(opportunity_id)
        if opp.owner_rep_id != self._acting_rep():
            raise Refusal(403, "Opportunity is owned by another rep; only its owner can change it", opportunity_id=opportunity_id)
        if opp.stage in ("closed_won", "closed_lost"):
            raise Refusal(409, f"Opportunity is {opp.stage}; closed stages are final", opportunity_id=opportunity_id)
        if stage == opp.stage:
            raise Refusal(409, f"Opportunity is already in {stage}", opportunity_id=opportunity_id)
        allowed = _next_stage(opp.stage)
        if stage != "closed_lost" and stage != allowed:
            raise Refusal(422, "Stage changes follow the pipeline order, one stage at a time", current_stage=opp.stage, next_stage=allowed)
        previous = opp.stage
        opp.stage = stage
        self._audit("update_opportunity_stage", opportunity_id)
        return {"opportunity_id": opportunity_id, "stage": stage, "previous_stage": previous}


def _next_stage(stage: str) -> str | None:
    if stage not in PIPELINE or stage == "closed_won":
        return None
    return PIPELINE[PIPELINE.index(stage) + 1]


def sales_probes(state: SalesState) -> list[tuple[str, list[Any]]]:
    """Write sequences touching every lead, contact and opportunity (for mutation tests)."""
    from contracts.schema import GoldCall

    def call(tool: str, **args: Any) -> GoldCall:
        return GoldCall(tool=tool, args=args)

    probes: list[tuple[str, list[Any]]] = []
    me = state.session_rep_id  # only the signed-in rep's own records can change
    for lead in state.leads.values():
        if lead.owner_rep_id != me:
            continue
        if lead.status in ("new", "working"):
            if lead.score >= QUALIFY_THRESHOLD:
                probes.append((f"qualify {lead.lead_id}", [call("qualify_lead", lead_id=lead.lead_id)]))
            probes.append((f"disqualify {lead.lead_id}", [call("disqualify_lead", lead_id=lead.lead_id, reason="no_need")]))
        if lead.status == "qualified":
            probes.append((f"convert {lead.lead_id}", [call("convert_lead", lead_id=lead.lead_id, opportunity_name="probe", amount=1000)]))
    for contact in state.contacts.values():
        probes.append((f"log call {contact.contact_id}", [call("log_activity", contact_id=contact.contact_id, kind="call", summary="probe")]))
        if not contact.opted_out:
            probes.append((f"email {contact.contact_id}", [call("send_email", contact_id=contact.contact_id, subject="probe", body="probe")]))
            seq = next((s for s in state.sequences if not any(e.contact_id == contact.contact_id and e.sequence_id == s for e in state.enrollments.values())), None)
            if seq is not None:
                probes.append((f"enrol {contact.contact_id}", [call("enroll_in_sequence", contact_id=contact.contact_id, sequence_id=seq)]))
    for opp in state.opportunities.values():
        nxt = _next_stage(opp.stage)
        if nxt is not None and opp.owner_rep_id == me:
            probes.append((f"advance {opp.opportunity_id}", [call("update_opportunity_stage", opportunity_id=opp.opportunity_id, stage=nxt)]))
            probes.append((f"lose {opp.opportunity_id}", [call("update_opportunity_stage", opportunity_id=opp.opportunity_id, stage="closed_lost")]))
    return probes
