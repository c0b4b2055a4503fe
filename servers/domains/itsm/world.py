"""The ITSM world: users and managers, support groups with on-call, configuration items, incidents,
change requests (standard / normal / emergency, CAB approval), a service catalogue and service
requests, roles and access grants with manager approvals, governed records under legal hold, and an
audit log.

Records are keyed by the ids a person would recognise (`INC-2001`, `CHG-4001`, `REC-6002`), so contract
state paths read naturally: `incidents.INC-2001.status`, `records.REC-6002.status`.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from servers.base import Unordered

Level = Literal["high", "medium", "low"]
Priority = Literal["P1", "P2", "P3", "P4"]
IncidentStatus = Literal["new", "in_progress", "on_hold", "resolved"]
ChangeType = Literal["standard", "normal", "emergency"]
ChangeStatus = Literal["pending_approval", "approved", "implemented", "rejected"]
ApprovalState = Literal["not_required", "pending", "approved", "rejected"]

PRIORITY_MATRIX: dict[tuple[str, str], Priority] = {
    ("high", "high"): "P1",
    ("high", "medium"): "P2",
    ("medium", "high"): "P2",
    ("high", "low"): "P3",
    ("medium", "medium"): "P3",
    ("low", "high"): "P3",
    ("medium", "low"): "P4",
    ("low", "medium"): "P4",
    ("low", "low"): "P4",
}
"""Priority from impact x urgency (the service desk's matrix; the policy states it)."""


def priority_of(impact: str, urgency: str) -> Priority:
    return PRIORITY_MATRIX[(impact, urgency)]


class User(BaseModel):
    user_id: str
    name: str
    email: str
    department: str
    title: str
    manager_id: str | None = None


class Group(BaseModel):
    group_id: str
    name: str
    members: Unordered[list[str]]
    on_call_user_id: str | None = None


class ConfigurationItem(BaseModel):
    ci_id: str
    name: str
    ci_type: Literal["service", "application", "server", "database", "network", "laptop"]
    environment: Literal["production", "staging", "end_user"] = "production"
    support_group: str
    owner_id: str | None = None


class Incident(BaseModel):
    incident_id: str
    title: str
    description: str = ""
    user_id: str = Field(description="The caller: who reported or is affected.")
    impact: Level
    urgency: Level
    priority: Priority
    status: IncidentStatus = "new"
    assignment_group: str
    assignee_id: str | None = None
    ci_ids: Unordered[list[str]] = Field(default_factory=list)
    on_call_paged: bool = False
    paged_user_id: str | None = None
    resolution_code: str | None = None
    resolution_notes: str = ""
    work_notes: list[str] = Field(default_factory=list)
    opened_at: str = "2026-11-30T09:00"


class ChangeRequest(BaseModel):
    change_id: str
    title: str
    change_type: ChangeType
    ci_id: str
    requested_by: str
    status: ChangeStatus
    cab_approved: bool = False
    approved_by: str | None = None
    scheduled_start: str
    implemented_at: str | None = None
    record_ids: Unordered[list[str]] = Field(default_factory=list, description="Records this change authorises deleting.")
    description: str = ""


class CatalogItem(BaseModel):
    item_id: str
    name: str
    requires_approval: bool = False


class ServiceRequest(BaseModel):
    request_id: str
    user_id: str
    item_id: str
    status: Literal["open", "fulfilled", "cancelled"] = "open"
    approval: ApprovalState = "not_required"
    approver_id: str | None = None
    notes: str = ""
    fulfilment_notes: str = ""
    fulfilled_at: str | None = None


class Role(BaseModel):
    role_id: str
    name: str
    system: str
    privileged: bool = False


class AccessGrant(BaseModel):
    grant_id: str
    user_id: str
    role_id: str
    status: Literal["active", "revoked"] = "active"
    approval_id: str | None = None
    granted_at: str = "2026-06-01"
    revoked_reason: str = ""


class AccessApproval(BaseModel):
    approval_id: str
    user_id: str
    role_id: str
    approver_id: str
    status: Literal["pending", "approved", "rejected"]
    justification: str = ""


class GovernedRecord(BaseModel):
    record_id: str
    title: str
    record_type: str
    owner_id: str
    status: Literal["active", "deleted"] = "active"
    legal_hold: bool = False
    hold_matter: str = ""
    deleted_under_change: str | None = None
    deleted_at: str | None = None


class AuditEntry(BaseModel):
    audit_id: str
    timestamp: str
    action: str
    target_id: str
    change_id: str | None = None
    detail: str = ""


class ItsmState(BaseModel):
    users: dict[str, User]
    groups: dict[str, Group]
    cis: dict[str, ConfigurationItem]
    incidents: dict[str, Incident]
    changes: dict[str, ChangeRequest]
    catalog: dict[str, CatalogItem]
    service_requests: dict[str, ServiceRequest]
    roles: dict[str, Role]
    access_grants: dict[str, AccessGrant]
    approvals: dict[str, AccessApproval]
    records: dict[str, GovernedRecord]
    audit_log: list[AuditEntry] = Field(default_factory=list)
    now: str = "2026-11-30T14:00"


def _user(uid: str, name: str, department: str, title: str, manager: str | None) -> User:
    email = name.lower().replace(" ", ".").replace("'", "") + "@northwind.example"
    return User(user_id=uid, name=name, email=email, department=department, title=title, manager_id=manager)


def default_itsm_state() -> ItsmState:
    """The seeded world every ITSM task starts from (before its own override)."""
    users = [
        _user("USR-1001", "Alice Chen", "Finance", "Financial Analyst", "USR-1010"),
        _user("USR-1002", "Alan Chen", "Engineering", "Software Engineer", "USR-1011"),
        _user("USR-1003", "Priya Nair", "Human Resources", "HR Specialist", "USR-1012"),
        _user("USR-1004", "Marcus Johnson", "Sales", "Account Executive", "USR-1013"),
        _user("USR-1005", "Elena Petrova", "IT Operations", "Database Administrator", "USR-1014"),
        _user("USR-1006", "Jamal Wright", "IT Operations", "Network Engineer", "USR-1014"),
        _user("USR-1007", "Hannah Schmidt", "Legal", "Records Manager", "USR-1015"),
        _user("USR-1008", "Kevin O'Brien", "IT Service Desk", "Service Desk Analyst", "USR-1014"),
        _user("USR-1009", "Grace Liu", "IT Operations", "Change Manager", "USR-1016"),
        _user("USR-1010", "Robert Hayes", "Finance", "Finance Director", "USR-1016"),
        _user("USR-1011", "Sofia Marquez", "Engineering", "Engineering Manager", "USR-1016"),
        _user("USR-1012", "Karen Wu", "Human Resources", "HR Director", "USR-1016"),
        _user("USR-1013", "David Okafor", "Sales", "Sales Director", "USR-1016"),
        _user("USR-1014", "Tom Brennan", "IT Operations", "IT Operations Manager", "USR-1016"),
        _user("USR-1015", "Laura Bennett", "Legal", "General Counsel", "USR-1016"),
        _user("USR-1016", "Nina Alvarez", "Executive", "Chief Information Officer", None),
        _user("USR-1017", "Ben Carter", "Engineering", "DevOps Engineer", "USR-1011"),
        _user("USR-1018", "Maria Santos", "Finance", "Payroll Specialist", "USR-1010"),
    ]
    groups = [
        Group(group_id="GRP-SD", name="Service Desk", members=["USR-1008"], on_call_user_id="USR-1008"),
        Group(group_id="GRP-NET", name="Network & Infrastructure", members=["USR-1006"], on_call_user_id="USR-1006"),
        Group(group_id="GRP-DB", name="Database Administration", members=["USR-1005"], on_call_user_id="USR-1005"),
        Group(group_id="GRP-APP", name="Application Support", members=["USR-1017", "USR-1002"], on_call_user_id="USR-1017"),
        Group(group_id="GRP-CAB", name="Change Advisory Board", members=["USR-1009", "USR-1014", "USR-1011"]),
    ]
    cis = [
        ConfigurationItem(ci_id="CI-3001", name="Corporate Email (Exchange Online)", ci_type="service", support_group="GRP-APP"),
        ConfigurationItem(ci_id="CI-3002", name="VPN Gateway VPN-GW-01", ci_type="network", support_group="GRP-NET"),
        ConfigurationItem(ci_id="CI-3003", name="Payroll Database PAYDB01", ci_type="database", support_group="GRP-DB"),
        ConfigurationItem(ci_id="CI-3004", name="Payroll Database Replica PAYDB02", ci_type="database", environment="staging", support_group="GRP-DB"),
        ConfigurationItem(ci_id="CI-3005", name="CRM Web Application", ci_type="application", support_group="GRP-APP"),
        ConfigurationItem(ci_id="CI-3006", name="Core Switch SW-CORE-01", ci_type="network", support_group="GRP-NET"),
        ConfigurationItem(ci_id="CI-3007", name="Laptop LT-4471", ci_type="laptop", environment="end_user", support_group="GRP-SD", owner_id="USR-1001"),
        ConfigurationItem(ci_id="CI-3008", name="Laptop LT-4472", ci_type="laptop", environment="end_user", support_group="GRP-SD", owner_id="USR-1002"),
        ConfigurationItem(ci_id="CI-3009", name="HR Portal", ci_type="application", support_group="GRP-APP"),
        ConfigurationItem(ci_id="CI-3010", name="File Server FS-02", ci_type="server", support_group="GRP-NET"),
    ]

    def inc(iid: str, title: str, user: str, ci: str, impact: str, urgency: str, group: str, **kw: object) -> Incident:
        return Incident(
            incident_id=iid, title=title, user_id=user, ci_ids=[ci], impact=impact, urgency=urgency,  # type: ignore[arg-type]
            priority=priority_of(impact, urgency), assignment_group=group, **kw,  # type: ignore[arg-type]
        )

    incidents = [
        inc("INC-2001", "Outlook keeps disconnecting", "USR-1001", "CI-3001", "medium", "medium", "GRP-APP", status="in_progress", assignee_id="USR-1017"),
        inc("INC-2002", "Outlook calendar not syncing", "USR-1002", "CI-3001", "low", "medium", "GRP-APP"),
        inc("INC-2003", "VPN drops every ten minutes", "USR-1004", "CI-3002", "medium", "high", "GRP-NET", status="in_progress", assignee_id="USR-1006"),
        inc("INC-2004", "HR portal login error", "USR-1003", "CI-3009", "medium", "medium", "GRP-APP"),
        inc("INC-2005", "Payroll report runs slowly", "USR-1018", "CI-3003", "low", "low", "GRP-DB", status="in_progress", assignee_id="USR-1005"),
        inc(
            "INC-2006", "CRM web app returns errors for all sales users", "USR-1004", "CI-3005", "high", "high", "GRP-APP",
            status="in_progress", assignee_id="USR-1017", on_call_paged=True, paged_user_id="USR-1017", opened_at="2026-11-30T11:20",
        ),
        inc("INC-2007", "Laptop battery swelling", "USR-1001", "CI-3007", "medium", "low", "GRP-SD"),
        inc(
            "INC-2008", "Laptop keyboard keys sticking", "USR-1002", "CI-3008", "low", "low", "GRP-SD",
            status="resolved", assignee_id="USR-1008", resolution_code="hardware_replaced", resolution_notes="Keyboard replaced", opened_at="2026-11-24T10:00",
        ),
    ]
    changes = [
        ChangeRequest(change_id="CHG-4001", title="Patch PAYDB01 to the latest cumulative update", change_type="normal", ci_id="CI-3003",
                      requested_by="USR-1005", status="pending_approval", scheduled_start="2026-12-02T22:00"),
        ChangeRequest(change_id="CHG-4002", title="Upgrade VPN gateway firmware", change_type="normal", ci_id="CI-3002",
                      requested_by="USR-1006", status="approved", cab_approved=True, approved_by="USR-1014", scheduled_start="2026-11-30T18:00"),
        ChangeRequest(change_id="CHG-4003", title="Add DNS record for crm-staging", change_type="standard", ci_id="CI-3005",
                      requested_by="USR-1017", status="approved", scheduled_start="2026-11-30T16:00"),
        ChangeRequest(change_id="CHG-4004", title="Purge expired CRM export files", change_type="normal", ci_id="CI-3005",
                      requested_by="USR-1007", status="approved", cab_approved=True, approved_by="USR-1009", scheduled_start="2026-11-30T12:00",
                      record_ids=["REC-6001", "REC-6002"]),
        ChangeRequest(change_id="CHG-4005", title="Clean up FS-02 finance archives", change_type="normal", ci_id="CI-3010",
                      requested_by="USR-1007", status="pending_approval", scheduled_start="2026-12-03T20:00", record_ids=["REC-6004"]),
        ChangeRequest(change_id="CHG-4006", title="Hotfix for CRM web app errors", change_type="emergency", ci_id="CI-3005",
                      requested_by="USR-1017", status="pending_approval", scheduled_start="2026-11-30T14:30"),
        ChangeRequest(change_id="CHG-4007", title="Replace core switch power supply", change_type="normal", ci_id="CI-3006",
                      requested_by="USR-1006", status="implemented", cab_approved=True, approved_by="USR-1014",
                      scheduled_start="2026-11-28T21:00", implemented_at="2026-11-28T21:40"),
        ChangeRequest(change_id="CHG-4008", title="Rotate HR portal TLS certificate", change_type="normal", ci_id="CI-3009",
                      requested_by="USR-1009", status="pending_approval", scheduled_start="2026-12-01T19:00"),
        ChangeRequest(change_id="CHG-4009", title="Clear HR portal application cache", change_type="standard", ci_id="CI-3009",
                      requested_by="USR-1017", status="approved", scheduled_start="2026-11-30T13:00"),
        ChangeRequest(change_id="CHG-4010", title="Purge legacy mailbox exports and old VPN logs", change_type="normal", ci_id="CI-3010",
                      requested_by="USR-1007", status="approved", cab_approved=True, approved_by="USR-1014", scheduled_start="2026-11-30T09:00",
                      record_ids=["REC-6005", "REC-6008", "REC-6009"]),
    ]
    catalog = [
        CatalogItem(item_id="CAT-101", name="Standard laptop", requires_approval=True),
        CatalogItem(item_id="CAT-102", name="Second monitor"),
        CatalogItem(item_id="CAT-103", name="Software: Visio Professional", requires_approval=True),
        CatalogItem(item_id="CAT-104", name="Shared mailbox access"),
        CatalogItem(item_id="CAT-105", name="Mobile phone", requires_approval=True),
        CatalogItem(item_id="CAT-106", name="USB headset"),
    ]
    requests = [
        ServiceRequest(request_id="REQ-5001", user_id="USR-1001", item_id="CAT-102"),
        ServiceRequest(request_id="REQ-5002", user_id="USR-1002", item_id="CAT-102"),
        ServiceRequest(request_id="REQ-5003", user_id="USR-1003", item_id="CAT-103", approval="approved", approver_id="USR-1012"),
        ServiceRequest(request_id="REQ-5004", user_id="USR-1004", item_id="CAT-105", approval="pending", approver_id="USR-1013"),
        ServiceRequest(request_id="REQ-5005", user_id="USR-1018", item_id="CAT-101", status="fulfilled", approval="approved",
                       approver_id="USR-1010", fulfilment_notes="Laptop LT-4490 delivered", fulfilled_at="2026-11-25T10:00"),
        ServiceRequest(request_id="REQ-5006", user_id="USR-1006", item_id="CAT-106"),
        ServiceRequest(request_id="REQ-5007", user_id="USR-1007", item_id="CAT-104", notes="legal-holds@ shared mailbox"),
        ServiceRequest(request_id="REQ-5008", user_id="USR-1017", item_id="CAT-103", approval="rejected", approver_id="USR-1011"),
    ]
    roles = [
        Role(role_id="ROLE-CRM-USER", name="CRM standard user", system="CRM Web Application"),
        Role(role_id="ROLE-CRM-ADMIN", name="CRM administrator", system="CRM Web Application", privileged=True),
        Role(role_id="ROLE-PAYROLL-VIEW", name="Payroll report viewer", system="Payroll"),
        Role(role_id="ROLE-PAYROLL-ADMIN", name="Payroll administrator", system="Payroll", privileged=True),
        Role(role_id="ROLE-DB-ADMIN", name="PAYDB01 database administrator", system="Payroll Database PAYDB01", privileged=True),
        Role(role_id="ROLE-VPN-USER", name="Remote VPN user", system="VPN Gateway"),
        Role(role_id="ROLE-HR-EDITOR", name="HR portal editor", system="HR Portal"),
        Role(role_id="ROLE-DOMAIN-ADMIN", name="Active Directory domain administrator", system="Active Directory", privileged=True),
    ]
    grants = [
        AccessGrant(grant_id="GRANT-7001", user_id="USR-1001", role_id="ROLE-CRM-USER"),
        AccessGrant(grant_id="GRANT-7002", user_id="USR-1002", role_id="ROLE-CRM-ADMIN", approval_id="APR-8000"),
        AccessGrant(grant_id="GRANT-7003", user_id="USR-1005", role_id="ROLE-DB-ADMIN"),
        AccessGrant(grant_id="GRANT-7004", user_id="USR-1018", role_id="ROLE-PAYROLL-ADMIN"),
        AccessGrant(grant_id="GRANT-7005", user_id="USR-1004", role_id="ROLE-VPN-USER"),
        AccessGrant(grant_id="GRANT-7006", user_id="USR-1001", role_id="ROLE-PAYROLL-VIEW"),
        AccessGrant(grant_id="GRANT-7007", user_id="USR-1002", role_id="ROLE-CRM-USER"),
    ]
    approvals = [
        AccessApproval(approval_id="APR-8000", user_id="USR-1002", role_id="ROLE-CRM-ADMIN", approver_id="USR-1011", status="approved"),
        AccessApproval(approval_id="APR-8001", user_id="USR-1001", role_id="ROLE-PAYROLL-ADMIN", approver_id="USR-1010", status="approved",
                       justification="Covering payroll close while Maria is on leave"),
        AccessApproval(approval_id="APR-8002", user_id="USR-1002", role_id="ROLE-DB-ADMIN", approver_id="USR-1014", status="approved",
                       justification="Performance investigation"),
        AccessApproval(approval_id="APR-8003", user_id="USR-1004", role_id="ROLE-CRM-ADMIN", approver_id="USR-1013", status="pending"),
        AccessApproval(approval_id="APR-8004", user_id="USR-1017", role_id="ROLE-DOMAIN-ADMIN", approver_id="USR-1011", status="rejected"),
        AccessApproval(approval_id="APR-8005", user_id="USR-1006", role_id="ROLE-DB-ADMIN", approver_id="USR-1014", status="approved",
                       justification="Backup DBA during Elena's leave"),
    ]
    records = [
        GovernedRecord(record_id="REC-6001", title="CRM customer export 2023-Q1", record_type="data_export", owner_id="USR-1004"),
        GovernedRecord(record_id="REC-6002", title="CRM customer export 2023-Q2", record_type="data_export", owner_id="USR-1004",
                       legal_hold=True, hold_matter="LH-0077 Northwind v. Acme Logistics"),
        GovernedRecord(record_id="REC-6003", title="CRM customer export 2023-Q3", record_type="data_export", owner_id="USR-1004"),
        GovernedRecord(record_id="REC-6004", title="FS-02 archive: Finance 2019", record_type="file_archive", owner_id="USR-1010"),
        GovernedRecord(record_id="REC-6005", title="Mailbox export: former employee J. Doe", record_type="mailbox_export", owner_id="USR-1012",
                       legal_hold=True, hold_matter="LH-0081 Doe employment claim"),
        GovernedRecord(record_id="REC-6007", title="Payroll extract 2020", record_type="data_export", owner_id="USR-1018",
                       status="deleted", deleted_under_change="CHG-4010", deleted_at="2026-11-29T10:15"),
        GovernedRecord(record_id="REC-6008", title="VPN connection logs 2026-10", record_type="log_archive", owner_id="USR-1006"),
        GovernedRecord(record_id="REC-6009", title="VPN connection logs 2026-09", record_type="log_archive", owner_id="USR-1006"),
    ]
    audit = [
        AuditEntry(audit_id="AUD-9001", timestamp="2026-11-29T10:15", action="record_deleted", target_id="REC-6007", change_id="CHG-4010",
                   detail="Payroll extract 2020 deleted after retention period"),
        AuditEntry(audit_id="AUD-9002", timestamp="2026-11-28T21:40", action="change_implemented", target_id="CHG-4007", change_id="CHG-4007"),
        AuditEntry(audit_id="AUD-9003", timestamp="2026-06-01T09:00", action="access_granted", target_id="GRANT-7002", detail="USR-1002 ROLE-CRM-ADMIN"),
    ]
    return ItsmState(
        users={u.user_id: u for u in users},
        groups={g.group_id: g for g in groups},
        cis={c.ci_id: c for c in cis},
        incidents={i.incident_id: i for i in incidents},
        changes={c.change_id: c for c in changes},
        catalog={c.item_id: c for c in catalog},
        service_requests={r.request_id: r for r in requests},
        roles={r.role_id: r for r in roles},
        access_grants={g.grant_id: g for g in grants},
        approvals={a.approval_id: a for a in approvals},
        records={r.record_id: r for r in records},
        audit_log=audit,
    )
