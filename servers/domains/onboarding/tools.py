"""Onboarding tools: plain business logic over `OnboardingState`.

The canonical chain is create → configure → verify → finalize. Every gate refuses with `Refusal`
before anything is written; unknown ids raise `InvalidCall`. Writes that would change nothing (the
same plan again, a user who is already there, a second verification after it passed, a second
go-live) are refused with 409, so a repeated write never silently succeeds. Every successful write
on an account increments its `revision`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

from pydantic import Field

from servers.base import CaseFolded, EmailAddress, FreeText, InvalidCall, NonBlank, Refusal, ToolEnvironment, Trimmed, tool
from servers.domains.onboarding.world import (
    REQUIRED_DOCUMENTS,
    Account,
    Activity,
    DataRegion,
    Document,
    Integration,
    OnboardingState,
    Plan,
    PlanName,
    Prospect,
    Role,
    Settings,
    Upload,
    User,
    default_onboarding_state,
)

AccountId = Annotated[NonBlank[str], Field(description="Account id, e.g. ACC-3004 (the number mirrors the prospect's PRO-3004).")]
ProspectId = Annotated[NonBlank[str], Field(description="Prospect id, e.g. PRO-3004.")]
PlanArg = Annotated[PlanName, Field(description="Plan name: starter, growth or enterprise.")]
Email = Annotated[NonBlank[EmailAddress], Field(description="The user's work email address, e.g. lea@example.com.")]

_SENSITIVE_ISSUES = {"sanctions_match"}


def _valid_timezone(value: str) -> bool:
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    if "/" not in value and value != "UTC":
        return False
    try:
        ZoneInfo(value)
    except (ZoneInfoNotFoundError, ValueError):
        return False
    return True


class OnboardingEnvironment(ToolEnvironment[OnboardingState]):
    """Business onboarding desk: open accounts for prospects, configure them, verify (KYC) and go live."""

    domain = "onboarding"
    state_model = OnboardingState

    @classmethod
    def default_state(cls) -> OnboardingState:
        return default_onboarding_state()

    @classmethod
    def mutation_probes(cls, override: Mapping[str, Any] | None = None) -> list[tuple[str, list[Any]]]:
        return onboarding_probes(cls.initial_state(override))

    # ---- helpers -------------------------------------------------------------------------------
    def _prospect(self, prospect_id: str) -> Prospect:
        prospect = self.state.prospects.get(prospect_id)
        if prospect is None:
            raise InvalidCall(f"Unknown prospect id {prospect_id!r}.")
        return prospect

    def _account(self, account_id: str) -> Account:
        account = self.state.accounts.get(account_id)
        if account is None:
            raise InvalidCall(f"Unknown account id {account_id!r}.")
        return account

    def _plan(self, name: str) -> Plan:
        plan = self.state.plans.get(name)
        if plan is None:
            raise InvalidCall(f"Unknown plan {name!r}.")
        return plan

    def _valid_document(self, account: Account, doc_type: str) -> Document | None:
        doc = account.documents.get(doc_type)
        if doc is None or (doc.expires_on is not None and doc.expires_on < self.state.business_date):
            return None
        return doc

    def _missing_documents(self, account: Account) -> list[str]:
        return [d for d in REQUIRED_DOCUMENTS[account.entity_type] if self._valid_document(account, d) is None]

    def _checklist(self, account: Account) -> dict[str, bool]:
        return {
            "plan_selected": True,
            "admin_user": any(u.role == "admin" for u in account.users),
            "timezone_configured": bool(account.settings.timezone),
            "verification_passed": account.verification_status == "passed",
            "live": account.status == "live",
        }

    def _touch(self, account: Account, action: str) -> None:
        """Record a successful change: the account's revision and the desk's activity log."""
        account.revision += 1
        self._log(account.account_id, action)

    def _log(self, account_id: str, action: str) -> None:
        log = self.state.activity_log
        log.append(Activity(activity_id=f"ACT-{len(log) + 1:04d}", account_id=account_id, action=action, date=self.state.business_date))

    def _account_view(self, account: Account) -> dict[str, Any]:
        plan = self.state.plans[account.plan]
        return {
            "account_id": account.account_id,
            "prospect_id": account.prospect_id,
            "company_name": account.company_name,
            "legal_entity_id": account.legal_entity_id,
            "entity_type": account.entity_type,
            "plan": account.plan,
            "plan_limits": {"max_users": plan.max_users, "max_integrations": plan.max_integrations, "sso_allowed": plan.sso_allowed, "data_regions": plan.data_regions},
            "status": account.status,
            "users": [u.model_dump(mode="json") for u in account.users],
            "seats_used": len(account.users),
            "settings": account.settings.model_dump(mode="json"),
            "integrations": list(account.integrations),
            "verification_status": account.verification_status,
            "verified_on": account.verified_on,
            "open_issues": [i.issue_id for i in account.issues.values() if i.status == "open"],
            "live_on": account.live_on,
            "revision": account.revision,
        }

    # ---- account creation ----------------------------------------------------------------------
    @tool("read")
    def get_prospect(self, prospect_id: ProspectId) -> dict[str, Any]:
        """Look up a prospect: company name, legal entity (registry number), entity type, country, contact,
        status (open / converted / disqualified) and the account id it has or would get."""
        p = self._prospect(prospect_id)
        existing = next((a.account_id for a in self.state.accounts.values() if a.legal_entity_id == p.legal_entity_id), None)
        return {**p.model_dump(mode="json"), "account_id_for_prospect": "ACC-" + prospect_id.split("-", 1)[1], "existing_account_for_legal_entity": existing}

    @tool("read")
    def search_prospects(
        self,
        company_name: Annotated[NonBlank[CaseFolded], Field(description="Part of the company name, case-insensitive, e.g. 'Brightwave'.")],
    ) -> dict[str, Any]:
        """Find prospects whose company name contains the text. Several companies can share a name:
        tell them apart by legal entity id and country."""
        needle = company_name.strip().lower()
        if not needle:
            raise InvalidCall("Give part of a company name to search for.")
        found = [
            {"prospect_id": p.prospect_id, "company_name": p.company_name, "legal_entity_id": p.legal_entity_id, "country": p.country, "status": p.status}
            for p in self.state.prospects.values()
            if needle in p.company_name.lower()
        ]
        return {"matches": found}

    @tool("read")
    def list_plans(self) -> dict[str, Any]:
        """The plans with their monthly price (USD) and limits: users, integrations, SSO, data regions."""
        return {"plans": [p.model_dump(mode="json") for p in self.state.plans.values()]}

    @tool("write")
    def create_account(self, prospect_id: ProspectId, plan: PlanArg) -> dict[str, Any]:
        """Open the customer account for a prospect on a plan. The account id mirrors the prospect number
        (PRO-3004 → ACC-3004) and the prospect's contact becomes the first admin user. Refused when the
        prospect is disqualified (422) or when its legal entity already has an account (409: one account
        per legal entity, even if the company name differs)."""
        prospect = self._prospect(prospect_id)
        plan_record = self._plan(plan)
        if prospect.status == "disqualified":
            raise Refusal(422, "Prospect is disqualified and cannot be onboarded", prospect_id=prospect_id, disqualified_reason=prospect.disqualified_reason)
        existing = next((a for a in self.state.accounts.values() if a.legal_entity_id == prospect.legal_entity_id), None)
        if existing is not None:
            raise Refusal(
                409,
                "This legal entity already has an account (one account per legal entity)",
                legal_entity_id=prospect.legal_entity_id,
                existing_account_id=existing.account_id,
            )
        account_id = "ACC-" + prospect_id.split("-", 1)[1]
        if account_id in self.state.accounts:  # pragma: no cover - guarded by the legal-entity rule
            raise Refusal(409, "Account already exists", account_id=account_id)
        account = Account(
            account_id=account_id,
            prospect_id=prospect_id,
            company_name=prospect.company_name,
            legal_entity_id=prospect.legal_entity_id,
            entity_type=prospect.entity_type,
            plan=plan_record.name,
            users=[User(email=prospect.contact_email, role="admin")],
        )
        self.state.accounts[account_id] = account
        prospect.status = "converted"
        self._log(account_id, "create_account")
        return {
            "account_id": account_id,
            "company_name": account.company_name,
            "plan": account.plan,
            "status": account.status,
            "admin_user": prospect.contact_email,
            "required_documents": REQUIRED_DOCUMENTS[account.entity_type],
        }

    # ---- configuration -------------------------------------------------------------------------
    @tool("read")
    def get_account(self, account_id: AccountId) -> dict[str, Any]:
        """Look up an account: plan and its limits, status (setup / live), users and seats used, settings
        (timezone, data region, SSO), integrations, verification status and open issue ids."""
        return self._account_view(self._account(account_id))

    @tool("write")
    def change_plan(self, account_id: AccountId, plan: PlanArg) -> dict[str, Any]:
        """Move an account to another plan. Refused (422) when the account's current users, integrations,
        SSO or data region do not fit the new plan's limits; 409 when it is already on that plan."""
        account = self._account(account_id)
        new = self._plan(plan)
        if account.plan == new.name:
            raise Refusal(409, "Account is already on this plan", account_id=account_id, plan=plan)
        problems = []
        if len(account.users) > new.max_users:
            problems.append(f"{len(account.users)} users exceed the {new.name} limit of {new.max_users}")
        if len(account.integrations) > new.max_integrations:
            problems.append(f"{len(account.integrations)} integrations exceed the {new.name} limit of {new.max_integrations}")
        if account.settings.sso_enabled and not new.sso_allowed:
            problems.append(f"SSO is enabled but the {new.name} plan does not include SSO")
        if account.settings.data_region not in new.data_regions:
            problems.append(f"data region {account.settings.data_region} is not available on the {new.name} plan")
        if problems:
            raise Refusal(422, "The account does not fit the new plan's limits", account_id=account_id, plan=plan, problems=problems)
        old = account.plan
        account.plan = new.name
        self._touch(account, "change_plan")
        return {"account_id": account_id, "previous_plan": old, "plan": new.name, "monthly_price": new.monthly_price}

    @tool("write")
    def add_user(
        self,
        account_id: AccountId,
        email: Email,
        role: Annotated[Role, Field(description="admin, member or billing.")] = "member",
    ) -> dict[str, Any]:
        """Add a user to an account. Every user takes a seat: refused (422) when the plan's user limit is
        reached, 409 when that email is already a user of the account."""
        account = self._account(account_id)
        email = email.strip().lower()
        if "@" not in email or "." not in email.split("@")[-1]:
            raise InvalidCall(f"{email!r} is not an email address.")
        if any(u.email == email for u in account.users):
            raise Refusal(409, "This email is already a user of the account", account_id=account_id, email=email)
        plan = self.state.plans[account.plan]
        if len(account.users) >= plan.max_users:
            raise Refusal(422, "The plan's user limit is reached", account_id=account_id, plan=account.plan, max_users=plan.max_users, seats_used=len(account.users))
        account.users.append(User(email=email, role=role))
        self._touch(account, "add_user")
        return {"account_id": account_id, "email": email, "role": role, "seats_used": len(account.users), "max_users": plan.max_users}

    @tool("write")
    def remove_user(self, account_id: AccountId, email: Email) -> dict[str, Any]:
        """Remove a user from an account, freeing a seat. The last admin cannot be removed (422)."""
        account = self._account(account_id)
        email = email.strip().lower()
        user = next((u for u in account.users if u.email == email), None)
        if user is None:
            raise InvalidCall(f"{email!r} is not a user of account {account_id}.")
        if user.role == "admin" and sum(u.role == "admin" for u in account.users) == 1:
            raise Refusal(422, "The last admin of an account cannot be removed", account_id=account_id, email=email)
        account.users.remove(user)
        self._touch(account, "remove_user")
        return {"account_id": account_id, "removed": email, "seats_used": len(account.users)}

    @tool("write")
    def update_settings(
        self,
        account_id: AccountId,
        timezone: Annotated[NonBlank[str] | None, Field(description="IANA time zone, e.g. Europe/Berlin or America/Chicago.")] = None,
        data_region: Annotated[DataRegion | None, Field(description="Where the account's data is stored: us, eu or apac.")] = None,
        sso_enabled: Annotated[bool | None, Field(description="Turn single sign-on on (true) or off (false).")] = None,
    ) -> dict[str, Any]:
        """Change account settings; give only what should change. Refused (422) for a data region or SSO
        the plan does not include, for an unknown time zone, and for a data region change once the
        account is live; 409 when nothing would change."""
        account = self._account(account_id)
        plan = self.state.plans[account.plan]
        new = account.settings.model_copy()
        if timezone is not None:
            if not _valid_timezone(timezone):
                raise Refusal(422, "Unknown time zone; use an IANA name such as Europe/Berlin", timezone=timezone)
            new.timezone = timezone
        if data_region is not None:
            if data_region not in plan.data_regions:
                raise Refusal(422, "The plan does not include this data region", plan=account.plan, data_region=data_region, available=plan.data_regions)
            if account.status == "live" and data_region != account.settings.data_region:
                raise Refusal(422, "The data region cannot change after go-live", account_id=account_id)
            new.data_region = data_region
        if sso_enabled is not None:
            if sso_enabled and not plan.sso_allowed:
                raise Refusal(422, "Single sign-on is not included in the plan", plan=account.plan)
            new.sso_enabled = sso_enabled
        if new == account.settings:
            raise Refusal(409, "Nothing to change: the settings already have these values", account_id=account_id)
        account.settings = Settings.model_validate(new.model_dump())
        self._touch(account, "update_settings")
        return {"account_id": account_id, "settings": account.settings.model_dump(mode="json")}

    @tool("write")
    def add_integration(
        self,
        account_id: AccountId,
        integration: Annotated[Integration, Field(description="slack, salesforce, hubspot, quickbooks, zendesk, shopify or google_workspace.")],
    ) -> dict[str, Any]:
        """Connect an integration. Refused (422) at the plan's integration limit; 409 if already connected."""
        account = self._account(account_id)
        if integration in account.integrations:
            raise Refusal(409, "This integration is already connected", account_id=account_id, integration=integration)
        plan = self.state.plans[account.plan]
        if len(account.integrations) >= plan.max_integrations:
            raise Refusal(422, "The plan's integration limit is reached", plan=account.plan, max_integrations=plan.max_integrations, connected=list(account.integrations))
        account.integrations.append(integration)
        self._touch(account, "add_integration")
        return {"account_id": account_id, "integrations": list(account.integrations), "max_integrations": plan.max_integrations}

    # ---- verification --------------------------------------------------------------------------
    @tool("read")
    def get_verification_status(self, account_id: AccountId) -> dict[str, Any]:
        """Verification (KYC) picture of an account: status, required documents, documents on file with
        expiry, which are missing or expired, issues (open and resolved) and the customer's portal uploads
        not yet registered on the account."""
        account = self._account(account_id)
        registered = {d.upload_reference for d in account.documents.values()}
        return {
            "account_id": account_id,
            "verification_status": account.verification_status,
            "verified_on": account.verified_on,
            "required_documents": REQUIRED_DOCUMENTS[account.entity_type],
            "documents": {k: d.model_dump(mode="json") for k, d in account.documents.items()},
            "missing_or_expired": self._missing_documents(account),
            "issues": [i.model_dump(mode="json") for i in account.issues.values()],
            "unregistered_uploads": [
                u.model_dump(mode="json")
                for u in self.state.uploads.values()
                if u.prospect_id == account.prospect_id and u.upload_reference not in registered
            ],
        }

    @tool("write")
    def register_document(
        self,
        account_id: AccountId,
        upload_reference: Annotated[NonBlank[str], Field(description="The portal upload reference the customer gives, e.g. UPL-7042.")],
    ) -> dict[str, Any]:
        """Register a document the customer uploaded to the portal as the account's document of its type
        (replacing an older one of that type). Refused (422) when the upload belongs to another company
        or has expired; 409 when it is already registered."""
        account = self._account(account_id)
        upload: Upload | None = self.state.uploads.get(upload_reference)
        if upload is None:
            raise InvalidCall(f"Unknown upload reference {upload_reference!r}.")
        if upload.prospect_id != account.prospect_id:
            raise Refusal(422, "This upload belongs to another company", upload_reference=upload_reference, account_id=account_id)
        if upload.expires_on is not None and upload.expires_on < self.state.business_date:
            raise Refusal(422, "The uploaded document has expired", upload_reference=upload_reference, expires_on=upload.expires_on)
        current = account.documents.get(upload.doc_type)
        if current is not None and current.upload_reference == upload_reference:
            raise Refusal(409, "This document is already registered", upload_reference=upload_reference)
        if account.verification_status == "passed":
            raise Refusal(409, "Verification has already passed; documents are locked", account_id=account_id)
        account.documents[upload.doc_type] = Document(doc_type=upload.doc_type, upload_reference=upload_reference, expires_on=upload.expires_on)
        self._touch(account, "register_document")
        return {"account_id": account_id, "doc_type": upload.doc_type, "upload_reference": upload_reference, "missing_or_expired": self._missing_documents(account)}

    @tool("write")
    def run_verification(self, account_id: AccountId) -> dict[str, Any]:
        """Run the verification (KYC) checks. Needs every required document on file and unexpired (422
        lists what is missing); refused (409) while issues are open or once verification has passed.
        Returns `passed`, or `issues_found` with the new issue ids to resolve."""
        account = self._account(account_id)
        if account.verification_status == "passed":
            raise Refusal(409, "Verification has already passed", account_id=account_id, verified_on=account.verified_on)
        missing = self._missing_documents(account)
        if missing:
            raise Refusal(422, "Required documents are missing or expired", account_id=account_id, missing_documents=missing)
        open_issues = [i.issue_id for i in account.issues.values() if i.status == "open"]
        if open_issues:
            raise Refusal(409, "Resolve the open verification issues before running verification again", open_issues=open_issues)
        new = []
        for finding in account.pending_findings:
            account.issues[finding.issue_id] = finding.model_copy()
            new.append(finding)
        account.pending_findings = []
        if new:
            account.verification_status = "issues_found"
        else:
            account.verification_status = "passed"
            account.verified_on = self.state.business_date
        self._touch(account, "run_verification")
        return {
            "account_id": account_id,
            "result": account.verification_status,
            "issues": [{"issue_id": i.issue_id, "kind": i.kind, "detail": i.detail} for i in new],
        }

    @tool("write")
    def resolve_verification_issue(
        self,
        account_id: AccountId,
        issue_id: Annotated[NonBlank[str], Field(description="Verification issue id, e.g. ISS-3002-1.")],
        resolution: Annotated[NonBlank[Trimmed], Field(description="What the customer confirmed or provided, in a sentence."), FreeText],
    ) -> dict[str, Any]:
        """Resolve an open verification issue with the customer's explanation. An expired or unreadable
        document is resolved only after a replacement is registered (422). Sanctions matches are never
        resolved by this desk (403: compliance reviews them). 409 if already resolved."""
        account = self._account(account_id)
        issue = account.issues.get(issue_id)
        if issue is None:
            raise InvalidCall(f"Unknown issue {issue_id!r} on account {account_id}.")
        if issue.status == "resolved":
            raise Refusal(409, "This issue is already resolved", issue_id=issue_id)
        if issue.kind in _SENSITIVE_ISSUES:
            raise Refusal(403, "Sanctions matches can only be cleared by the compliance team", issue_id=issue_id)
        if issue.document_type is not None:
            doc = self._valid_document(account, issue.document_type)
            if doc is None or doc.upload_reference == issue.document_reference:
                raise Refusal(422, "Register a valid replacement document before resolving this issue", issue_id=issue_id, document_type=issue.document_type)
        issue.status = "resolved"
        issue.resolution = resolution.strip()
        self._touch(account, "resolve_verification_issue")
        remaining = [i.issue_id for i in account.issues.values() if i.status == "open"]
        return {"account_id": account_id, "issue_id": issue_id, "status": "resolved", "open_issues": remaining}

    # ---- go-live -------------------------------------------------------------------------------
    @tool("read")
    def get_go_live_checklist(self, account_id: AccountId) -> dict[str, Any]:
        """The go-live checklist: admin user present, timezone configured, verification passed, live;
        what blocks go-live, including open verification issues and their kind."""
        account = self._account(account_id)
        items = self._checklist(account)
        blocking = [k for k, ok in items.items() if not ok and k != "live"]
        return {
            "account_id": account_id,
            "checklist": items,
            "ready_for_go_live": not blocking and account.status != "live",
            "blocking": blocking,
            "open_verification_issues": [{"issue_id": i.issue_id, "kind": i.kind} for i in account.issues.values() if i.status == "open"],
        }

    @tool("write")
    def finalize_go_live(self, account_id: AccountId) -> dict[str, Any]:
        """Take an account live. Refused (422) until verification has passed, an admin user exists and a
        timezone is configured; 409 when the account is already live."""
        account = self._account(account_id)
        if account.status == "live":
            raise Refusal(409, "Account is already live", account_id=account_id)
        items = self._checklist(account)
        if not items["verification_passed"]:
            raise Refusal(422, "Verification has not passed; the account cannot go live", account_id=account_id, verification_status=account.verification_status)
        blocking = [k for k, ok in items.items() if not ok and k != "live"]
        if blocking:
            raise Refusal(422, "The go-live checklist is incomplete", account_id=account_id, blocking=blocking)
        account.status = "live"
        account.live_on = self.state.business_date
        self._touch(account, "finalize_go_live")
        return {"account_id": account_id, "status": "live", "live_on": account.live_on}


def onboarding_probes(state: OnboardingState) -> list[tuple[str, list[Any]]]:
    """Write sequences touching every prospect and account of the world (for mutation tests).

    Candidates are generated per record and kept only when every call of the sequence succeeds on
    `state`, so each probe really changes the world."""
    return [(name, calls) for name, calls in _probe_candidates(state) if _succeeds(state, calls)]


def _succeeds(state: OnboardingState, calls: list[Any]) -> bool:
    from servers.base import IdMinter

    env = OnboardingEnvironment(state.model_copy(deep=True), IdMinter("probe"))
    for c in calls:
        try:
            result = getattr(env, c.tool)(**c.args)
        except (Refusal, InvalidCall):
            return False
        if isinstance(result, dict) and result.get("refused"):
            return False
    return True


def _probe_candidates(state: OnboardingState) -> list[tuple[str, list[Any]]]:
    from contracts.schema import GoldCall

    def call(tool: str, **args: Any) -> GoldCall:
        return GoldCall(tool=tool, args=args)

    probes: list[tuple[str, list[Any]]] = []
    taken = {a.legal_entity_id for a in state.accounts.values()}
    for p in state.prospects.values():
        if p.status != "disqualified" and p.legal_entity_id not in taken:
            probes.append((f"create account for {p.prospect_id}", [call("create_account", prospect_id=p.prospect_id, plan="enterprise")]))
    for a in state.accounts.values():
        aid = a.account_id
        plan = state.plans[a.plan]
        if len(a.users) < plan.max_users:
            probes.append((f"add user to {aid}", [call("add_user", account_id=aid, email="probe@example.com", role="member")]))
        other = "enterprise" if a.plan != "enterprise" else "growth"
        probes.append((f"change plan of {aid}", [call("change_plan", account_id=aid, plan=other)]))
        probes.append((f"timezone of {aid}", [call("update_settings", account_id=aid, timezone="Pacific/Auckland")]))
        free = [i for i in ("zendesk", "shopify", "hubspot") if i not in a.integrations]
        if len(a.integrations) < plan.max_integrations and free:
            probes.append((f"integration on {aid}", [call("add_integration", account_id=aid, integration=free[0])]))
        members = [u for u in a.users if u.role != "admin"]
        if members:
            probes.append((f"remove user from {aid}", [call("remove_user", account_id=aid, email=members[0].email)]))
        for u in state.uploads.values():
            if u.prospect_id == a.prospect_id and (u.expires_on is None or u.expires_on >= state.business_date):
                probes.append((f"register {u.upload_reference} on {aid}", [call("register_document", account_id=aid, upload_reference=u.upload_reference)]))
        for issue in a.issues.values():
            if issue.status == "open" and issue.kind not in _SENSITIVE_ISSUES and issue.document_type is None:
                probes.append((f"resolve {issue.issue_id}", [call("resolve_verification_issue", account_id=aid, issue_id=issue.issue_id, resolution="probe")]))
        probes.append((f"verify {aid}", [call("run_verification", account_id=aid)]))
        uploads = [
            call("register_document", account_id=aid, upload_reference=u.upload_reference)
            for u in state.uploads.values()
            if u.prospect_id == a.prospect_id and (u.expires_on is None or u.expires_on >= state.business_date)
        ]
        if uploads:
            probes.append((f"register all uploads and verify {aid}", [*uploads, call("run_verification", account_id=aid)]))
        probes.append((f"go live {aid}", [call("finalize_go_live", account_id=aid)]))
        if a.status != "live":
            chain = [] if a.settings.timezone else [call("update_settings", account_id=aid, timezone="America/Chicago")]
            chain += uploads
            doc_issue_types = {i.document_type for i in a.issues.values() if i.status == "open" and i.document_type}
            chain += [
                call("resolve_verification_issue", account_id=aid, issue_id=i.issue_id, resolution="probe")
                for i in a.issues.values()
                if i.status == "open" and i.kind not in _SENSITIVE_ISSUES
            ]
            if a.verification_status != "passed" or doc_issue_types:
                chain.append(call("run_verification", account_id=aid))
            chain.append(call("finalize_go_live", account_id=aid))
            probes.append((f"complete and go live {aid}", chain))
    return probes
