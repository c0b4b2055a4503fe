"""The onboarding world: prospects, plans, accounts, documents, verification issues and go-live.

A prospect (`PRO-3004`) becomes an account whose id mirrors the prospect number (`ACC-3004`), so a
contract can name the account an agent is about to create: `accounts.ACC-3004.plan`. Every successful
write on an account increments its `revision` (the account's change counter) and appends an entry to the
desk's `activity_log`; contracts use both to prove that exactly the requested changes were made.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from servers.base import Unordered

PlanName = Literal["starter", "growth", "enterprise"]
Role = Literal["admin", "member", "billing"]
DataRegion = Literal["us", "eu", "apac"]
Integration = Literal["slack", "salesforce", "hubspot", "quickbooks", "zendesk", "shopify", "google_workspace"]
EntityType = Literal["company", "sole_trader"]
DocType = Literal["certificate_of_incorporation", "proof_of_address", "government_id"]
IssueKind = Literal["address_mismatch", "director_name_mismatch", "expired_document", "sanctions_match"]
VerificationStatus = Literal["not_started", "issues_found", "passed"]

REQUIRED_DOCUMENTS: dict[str, list[str]] = {
    "company": ["certificate_of_incorporation", "proof_of_address"],
    "sole_trader": ["government_id", "proof_of_address"],
}
"""What verification needs on file, by entity type."""


class Plan(BaseModel):
    name: PlanName
    monthly_price: float
    max_users: int
    max_integrations: int
    sso_allowed: bool
    data_regions: Unordered[list[DataRegion]]


class Prospect(BaseModel):
    prospect_id: str
    company_name: str
    legal_entity_id: str = Field(description="Company registry number; one account per legal entity.")
    entity_type: EntityType = "company"
    country: str
    contact_name: str
    contact_email: str
    status: Literal["open", "converted", "disqualified"] = "open"
    disqualified_reason: str = ""


class User(BaseModel):
    email: str
    role: Role


class Settings(BaseModel):
    timezone: str = Field(default="", description="IANA time zone, e.g. Europe/Berlin; empty until configured.")
    data_region: DataRegion = "us"
    sso_enabled: bool = False


class Document(BaseModel):
    doc_type: DocType
    upload_reference: str
    expires_on: str | None = None


class Upload(BaseModel):
    """A file the customer put in the onboarding portal; it counts only once registered on the account."""

    upload_reference: str
    prospect_id: str
    doc_type: DocType
    file_name: str
    expires_on: str | None = None


class Issue(BaseModel):
    issue_id: str
    kind: IssueKind
    detail: str
    status: Literal["open", "resolved"] = "open"
    document_type: DocType | None = None
    document_reference: str | None = None
    resolution: str = ""


class Account(BaseModel):
    account_id: str
    prospect_id: str
    company_name: str
    legal_entity_id: str
    entity_type: EntityType = "company"
    plan: PlanName
    status: Literal["setup", "live"] = "setup"
    users: Unordered[list[User]] = Field(default_factory=list)
    settings: Settings = Field(default_factory=Settings)
    integrations: Unordered[list[Integration]] = Field(default_factory=list)
    documents: dict[str, Document] = Field(default_factory=dict)
    verification_status: VerificationStatus = "not_started"
    verified_on: str | None = None
    issues: dict[str, Issue] = Field(default_factory=dict)
    pending_findings: list[Issue] = Field(
        default_factory=list, description="What the screening provider will report on the next verification run (hidden from reads)."
    )
    live_on: str | None = None
    revision: int = 1


class Activity(BaseModel):
    """One entry of the desk's activity log: every successful change to an account, in order."""

    activity_id: str
    account_id: str
    action: str
    date: str


class OnboardingState(BaseModel):
    plans: dict[str, Plan]
    prospects: dict[str, Prospect]
    accounts: dict[str, Account]
    uploads: dict[str, Upload]
    activity_log: list[Activity] = Field(default_factory=list, description="Today's changes made by the desk.")
    business_date: str = "2026-11-30"


PLANS = [
    Plan(name="starter", monthly_price=49.0, max_users=3, max_integrations=1, sso_allowed=False, data_regions=["us", "eu"]),
    Plan(name="growth", monthly_price=299.0, max_users=15, max_integrations=4, sso_allowed=True, data_regions=["us", "eu"]),
    Plan(name="enterprise", monthly_price=1200.0, max_users=100, max_integrations=15, sso_allowed=True, data_regions=["us", "eu", "apac"]),
]


def _prospect(pid: str, name: str, le: str, country: str, contact: str, email: str, **extra: object) -> Prospect:
    return Prospect(prospect_id=pid, company_name=name, legal_entity_id=le, country=country, contact_name=contact, contact_email=email, **extra)  # type: ignore[arg-type]


def _doc(doc_type: str, ref: str, expires_on: str | None = None) -> Document:
    return Document(doc_type=doc_type, upload_reference=ref, expires_on=expires_on)  # type: ignore[arg-type]


def default_onboarding_state() -> OnboardingState:
    """The seeded world every onboarding task starts from (before its own override)."""
    prospects = [
        _prospect("PRO-3001", "Alder & Finch Bakery Ltd", "GB-08812345", "GB", "Hannah Finch", "hannah@alderfinch.co.uk", status="converted"),
        _prospect("PRO-3002", "Brightwave Analytics GmbH", "DE-HRB-20417", "DE", "Jonas Weber", "jonas.weber@brightwave.de", status="converted"),
        _prospect("PRO-3003", "Cobalt Ridge Logistics Inc", "US-DE-5581203", "US", "Carla Ruiz", "carla@cobaltridge.com", status="converted"),
        _prospect("PRO-3004", "Brightwave Analytics Ltd", "GB-11930277", "GB", "Oliver Grant", "oliver.grant@brightwave.co.uk"),
        _prospect("PRO-3005", "Dunmore Dental Group LLC", "US-NY-7720114", "US", "Sean Dunmore", "sean@dunmoredental.com"),
        _prospect("PRO-3006", "Eastgate Ceramics", "GB-ST-448120", "GB", "Maya Eastgate", "maya@eastgateceramics.co.uk", entity_type="sole_trader"),
        _prospect("PRO-3007", "Cobalt Ridge Logistics", "US-DE-5581203", "US", "Derek Hale", "derek.hale@cobaltridge.com"),
        _prospect(
            "PRO-3008",
            "Fernhill Legal LLP",
            "GB-OC-390551",
            "GB",
            "Ruth Fernhill",
            "ruth@fernhill-legal.co.uk",
            status="disqualified",
            disqualified_reason="Company is dissolved according to the registry",
        ),
        _prospect("PRO-3009", "Granite Peak Outfitters Inc", "US-CO-2209871", "US", "Ben Okoro", "ben@granitepeak.com"),
        _prospect("PRO-3010", "Harbor & Vine Wines SARL", "FR-RCS-841552190", "FR", "Claire Dubois", "claire@harborvine.fr"),
        _prospect("PRO-3011", "Juniper Health Clinics Inc", "US-MA-6650032", "US", "Priya Shah", "priya.shah@juniperhealth.com", status="converted"),
        _prospect("PRO-3012", "Kestrel Robotics Ltd", "GB-12455890", "GB", "Tom Avery", "tom@kestrelrobotics.co.uk", status="converted"),
        _prospect("PRO-3013", "Lumen Yoga Studio", "GB-ST-512904", "GB", "Lena Marsh", "lena@lumenyoga.co.uk", entity_type="sole_trader", status="converted"),
        _prospect("PRO-3014", "Meridian Freight Ltd", "GB-09977120", "GB", "Victor Lane", "victor@meridianfreight.co.uk", status="converted"),
        _prospect("PRO-3015", "Kestrel Robotics Inc", "US-CA-4410987", "US", "Amy Chen", "amy@kestrelrobotics.com", status="converted"),
        _prospect("PRO-3016", "Orchid Lane Florists LLC", "US-OR-3302115", "US", "Rosa Ortiz", "rosa@orchidlane.com", status="converted"),
        _prospect("PRO-3017", "Pinecrest Accounting LLP", "US-IL-7781240", "US", "Marcus Bell", "marcus@pinecrestcpa.com", status="converted"),
    ]

    accounts = [
        Account(
            account_id="ACC-3001",
            prospect_id="PRO-3001",
            company_name="Alder & Finch Bakery Ltd",
            legal_entity_id="GB-08812345",
            plan="starter",
            status="live",
            users=[User(email="hannah@alderfinch.co.uk", role="admin")],
            settings=Settings(timezone="Europe/London", data_region="eu"),
            integrations=["quickbooks"],
            documents={
                "certificate_of_incorporation": _doc("certificate_of_incorporation", "UPL-7001"),
                "proof_of_address": _doc("proof_of_address", "UPL-7002", "2027-03-31"),
            },
            verification_status="passed",
            verified_on="2026-10-02",
            live_on="2026-10-05",
            revision=6,
        ),
        Account(
            account_id="ACC-3002",
            prospect_id="PRO-3002",
            company_name="Brightwave Analytics GmbH",
            legal_entity_id="DE-HRB-20417",
            plan="growth",
            users=[
                User(email="jonas.weber@brightwave.de", role="admin"),
                User(email="lea.fischer@brightwave.de", role="member"),
                User(email="finance@brightwave.de", role="billing"),
            ],
            settings=Settings(timezone="Europe/Berlin", data_region="eu"),
            integrations=["slack"],
            documents={
                "certificate_of_incorporation": _doc("certificate_of_incorporation", "UPL-7011"),
                "proof_of_address": _doc("proof_of_address", "UPL-7012", "2027-02-28"),
            },
            verification_status="issues_found",
            issues={
                "ISS-3002-1": Issue(
                    issue_id="ISS-3002-1",
                    kind="address_mismatch",
                    detail="The registered address (Torstrasse 12, Berlin) differs from the proof of address (Torstrasse 21, Berlin).",
                )
            },
            revision=5,
        ),
        Account(
            account_id="ACC-3003",
            prospect_id="PRO-3003",
            company_name="Cobalt Ridge Logistics Inc",
            legal_entity_id="US-DE-5581203",
            plan="growth",
            users=[User(email="carla@cobaltridge.com", role="admin"), User(email="ops@cobaltridge.com", role="member")],
            settings=Settings(timezone="America/Chicago", data_region="us"),
            integrations=["salesforce", "slack"],
            documents={
                "certificate_of_incorporation": _doc("certificate_of_incorporation", "UPL-7021"),
                "proof_of_address": _doc("proof_of_address", "UPL-7022", "2027-05-31"),
            },
            revision=4,
        ),
        Account(
            account_id="ACC-3011",
            prospect_id="PRO-3011",
            company_name="Juniper Health Clinics Inc",
            legal_entity_id="US-MA-6650032",
            plan="enterprise",
            users=[
                User(email="priya.shah@juniperhealth.com", role="admin"),
                User(email="it@juniperhealth.com", role="admin"),
                User(email="billing@juniperhealth.com", role="billing"),
            ],
            settings=Settings(timezone="America/New_York", data_region="us", sso_enabled=True),
            integrations=["salesforce", "zendesk", "google_workspace"],
            documents={
                "certificate_of_incorporation": _doc("certificate_of_incorporation", "UPL-7111"),
                "proof_of_address": _doc("proof_of_address", "UPL-7112", "2027-06-30"),
            },
            verification_status="passed",
            verified_on="2026-11-27",
            revision=8,
        ),
        Account(
            account_id="ACC-3012",
            prospect_id="PRO-3012",
            company_name="Kestrel Robotics Ltd",
            legal_entity_id="GB-12455890",
            plan="starter",
            users=[
                User(email="tom@kestrelrobotics.co.uk", role="admin"),
                User(email="nina@kestrelrobotics.co.uk", role="member"),
                User(email="raj@kestrelrobotics.co.uk", role="member"),
            ],
            settings=Settings(timezone="Europe/London", data_region="eu"),
            integrations=["slack"],
            documents={"certificate_of_incorporation": _doc("certificate_of_incorporation", "UPL-7121")},
            revision=5,
        ),
        Account(
            account_id="ACC-3013",
            prospect_id="PRO-3013",
            company_name="Lumen Yoga Studio",
            legal_entity_id="GB-ST-512904",
            entity_type="sole_trader",
            plan="starter",
            users=[User(email="lena@lumenyoga.co.uk", role="admin")],
            settings=Settings(timezone="Europe/London", data_region="eu"),
            documents={
                "government_id": _doc("government_id", "UPL-7131", "2026-09-14"),
                "proof_of_address": _doc("proof_of_address", "UPL-7132", "2027-01-31"),
            },
            verification_status="issues_found",
            issues={
                "ISS-3013-1": Issue(
                    issue_id="ISS-3013-1",
                    kind="expired_document",
                    detail="The government ID on file (UPL-7131) expired on 2026-09-14.",
                    document_type="government_id",
                    document_reference="UPL-7131",
                )
            },
            revision=4,
        ),
        Account(
            account_id="ACC-3014",
            prospect_id="PRO-3014",
            company_name="Meridian Freight Ltd",
            legal_entity_id="GB-09977120",
            plan="growth",
            users=[User(email="victor@meridianfreight.co.uk", role="admin")],
            settings=Settings(timezone="Europe/London", data_region="eu"),
            documents={
                "certificate_of_incorporation": _doc("certificate_of_incorporation", "UPL-7141"),
                "proof_of_address": _doc("proof_of_address", "UPL-7142", "2027-04-30"),
            },
            verification_status="issues_found",
            issues={
                "ISS-3014-1": Issue(
                    issue_id="ISS-3014-1",
                    kind="sanctions_match",
                    detail="A director's name is a potential match on a sanctions list; compliance review required.",
                )
            },
            revision=4,
        ),
        Account(
            account_id="ACC-3015",
            prospect_id="PRO-3015",
            company_name="Kestrel Robotics Inc",
            legal_entity_id="US-CA-4410987",
            plan="growth",
            users=[User(email="amy@kestrelrobotics.com", role="admin"), User(email="dev@kestrelrobotics.com", role="member")],
            settings=Settings(timezone="America/Los_Angeles", data_region="us"),
            integrations=["hubspot"],
            documents={
                "certificate_of_incorporation": _doc("certificate_of_incorporation", "UPL-7151"),
                "proof_of_address": _doc("proof_of_address", "UPL-7152", "2027-08-31"),
            },
            verification_status="passed",
            verified_on="2026-11-20",
            revision=6,
        ),
        Account(
            account_id="ACC-3016",
            prospect_id="PRO-3016",
            company_name="Orchid Lane Florists LLC",
            legal_entity_id="US-OR-3302115",
            plan="starter",
            users=[User(email="rosa@orchidlane.com", role="admin")],
            documents={
                "certificate_of_incorporation": _doc("certificate_of_incorporation", "UPL-7161"),
                "proof_of_address": _doc("proof_of_address", "UPL-7162", "2027-02-28"),
            },
            verification_status="passed",
            verified_on="2026-11-24",
            revision=4,
        ),
        Account(
            account_id="ACC-3017",
            prospect_id="PRO-3017",
            company_name="Pinecrest Accounting LLP",
            legal_entity_id="US-IL-7781240",
            plan="growth",
            users=[User(email="marcus@pinecrestcpa.com", role="admin"), User(email="june@pinecrestcpa.com", role="member")],
            settings=Settings(timezone="America/Chicago", data_region="us"),
            documents={
                "certificate_of_incorporation": _doc("certificate_of_incorporation", "UPL-7171"),
                "proof_of_address": _doc("proof_of_address", "UPL-7172", "2027-03-31"),
            },
            pending_findings=[
                Issue(
                    issue_id="ISS-3017-1",
                    kind="director_name_mismatch",
                    detail="The registry lists the managing partner as 'Marcus J. Bell-Hargreaves', the application says 'Marcus Bell'.",
                )
            ],
            revision=4,
        ),
    ]

    uploads = [
        Upload(upload_reference="UPL-7041", prospect_id="PRO-3004", doc_type="certificate_of_incorporation", file_name="brightwave_ltd_incorporation.pdf"),
        Upload(upload_reference="UPL-7042", prospect_id="PRO-3004", doc_type="proof_of_address", file_name="brightwave_ltd_utility_bill.pdf", expires_on="2027-02-28"),
        Upload(upload_reference="UPL-7051", prospect_id="PRO-3005", doc_type="certificate_of_incorporation", file_name="dunmore_articles_of_organization.pdf"),
        Upload(upload_reference="UPL-7052", prospect_id="PRO-3005", doc_type="proof_of_address", file_name="dunmore_lease.pdf", expires_on="2027-06-30"),
        Upload(upload_reference="UPL-7061", prospect_id="PRO-3006", doc_type="government_id", file_name="maya_eastgate_passport.pdf", expires_on="2031-04-18"),
        Upload(upload_reference="UPL-7062", prospect_id="PRO-3006", doc_type="proof_of_address", file_name="eastgate_council_tax.pdf", expires_on="2027-03-31"),
        Upload(upload_reference="UPL-7091", prospect_id="PRO-3009", doc_type="certificate_of_incorporation", file_name="granite_peak_incorporation.pdf"),
        Upload(upload_reference="UPL-7092", prospect_id="PRO-3009", doc_type="proof_of_address", file_name="granite_peak_bank_letter_2025.pdf", expires_on="2026-08-31"),
        Upload(upload_reference="UPL-7093", prospect_id="PRO-3009", doc_type="proof_of_address", file_name="granite_peak_bank_letter_2026.pdf", expires_on="2027-05-31"),
        Upload(upload_reference="UPL-7101", prospect_id="PRO-3010", doc_type="certificate_of_incorporation", file_name="harbor_vine_kbis.pdf"),
        Upload(upload_reference="UPL-7102", prospect_id="PRO-3010", doc_type="proof_of_address", file_name="harbor_vine_facture.pdf", expires_on="2027-01-31"),
        Upload(upload_reference="UPL-7122", prospect_id="PRO-3012", doc_type="proof_of_address", file_name="kestrel_ltd_lease.pdf", expires_on="2027-07-31"),
        Upload(upload_reference="UPL-7133", prospect_id="PRO-3013", doc_type="government_id", file_name="lena_marsh_passport_2026.pdf", expires_on="2036-10-02"),
        Upload(upload_reference="UPL-7153", prospect_id="PRO-3015", doc_type="proof_of_address", file_name="kestrel_inc_lease.pdf", expires_on="2027-09-30"),
    ]
    return OnboardingState(
        plans={p.name: p for p in PLANS},
        prospects={p.prospect_id: p for p in prospects},
        accounts={a.account_id: a for a in accounts},
        uploads={u.upload_reference: u for u in uploads},
    )
