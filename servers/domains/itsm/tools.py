"""ITSM tools: plain business logic over `ItsmState`.

Every policy gate refuses with `Refusal` (a status code and a reason the agent can explain) before
anything is written; unknown ids raise `InvalidCall`. New records are numbered sequentially per collection (the next
incident after INC-2008 is INC-2009), as service-desk tools do, so contracts can name them. Writes that would repeat an earlier one (resolving
a resolved incident, approving an approved change, granting a role the user already holds, deleting a
deleted record) are refused with 409, so a repeated write never changes the world twice.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import Field

from servers.base import CaseFolded, DateTime, FreeText, InvalidCall, NonBlank, Refusal, ToolEnvironment, Trimmed, tool
from servers.domains.itsm.world import (
    AccessApproval,
    AccessGrant,
    AuditEntry,
    ChangeRequest,
    ChangeType,
    ConfigurationItem,
    GovernedRecord,
    Incident,
    ItsmState,
    Level,
    ServiceRequest,
    User,
    default_itsm_state,
    priority_of,
)

UserId = Annotated[NonBlank[str], Field(description="User id, e.g. USR-1001.")]
IncidentId = Annotated[NonBlank[str], Field(description="Incident id, e.g. INC-2001.")]
CiId = Annotated[NonBlank[str], Field(description="Configuration item id, e.g. CI-3001.")]
ChangeId = Annotated[NonBlank[str], Field(description="Change request id, e.g. CHG-4001.")]
RequestId = Annotated[NonBlank[str], Field(description="Service request id, e.g. REQ-5001.")]
RoleId = Annotated[NonBlank[str], Field(description="Role id, e.g. ROLE-CRM-USER.")]
RecordId = Annotated[NonBlank[str], Field(description="Governed record id, e.g. REC-6001.")]
ResolutionCode = Literal["fixed", "workaround", "hardware_replaced", "user_error", "no_fault_found", "duplicate"]
OpenStatus = Literal["new", "in_progress", "on_hold"]

CAB_GROUP = "GRP-CAB"


class ItsmEnvironment(ToolEnvironment[ItsmState]):
    """IT service desk: incidents, changes, service requests, access and governed records."""

    domain = "itsm"
    state_model = ItsmState

    @classmethod
    def default_state(cls) -> ItsmState:
        return default_itsm_state()

    @classmethod
    def mutation_probes(cls, override: Mapping[str, Any] | None = None) -> list[tuple[str, list[Any]]]:
        return itsm_probes(cls.initial_state(override))

    # ---- lookups -------------------------------------------------------------------------------
    def _user(self, user_id: str) -> User:
        user = self.state.users.get(user_id)
        if user is None:
            raise InvalidCall(f"Unknown user id {user_id!r}.")
        return user

    def _incident(self, incident_id: str) -> Incident:
        incident = self.state.incidents.get(incident_id)
        if incident is None:
            raise InvalidCall(f"Unknown incident id {incident_id!r}.")
        return incident

    def _ci(self, ci_id: str) -> ConfigurationItem:
        ci = self.state.cis.get(ci_id)
        if ci is None:
            raise InvalidCall(f"Unknown configuration item id {ci_id!r}.")
        return ci

    def _change(self, change_id: str) -> ChangeRequest:
        change = self.state.changes.get(change_id)
        if change is None:
            raise InvalidCall(f"Unknown change id {change_id!r}.")
        return change

    def _request(self, request_id: str) -> ServiceRequest:
        request = self.state.service_requests.get(request_id)
        if request is None:
            raise InvalidCall(f"Unknown service request id {request_id!r}.")
        return request

    def _record(self, record_id: str) -> GovernedRecord:
        record = self.state.records.get(record_id)
        if record is None:
            raise InvalidCall(f"Unknown record id {record_id!r}.")
        return record

    def _role(self, role_id: str) -> Any:
        role = self.state.roles.get(role_id)
        if role is None:
            raise InvalidCall(f"Unknown role id {role_id!r}.")
        return role

    def _name(self, user_id: str | None) -> str | None:
        return self.state.users[user_id].name if user_id in self.state.users else None

    @staticmethod
    def _next_id(prefix: str, existing: Any) -> str:
        """The next number in a collection's sequence (INC-2008 -> INC-2009): service-desk records are
        numbered sequentially, so a new record's id depends only on the state, never on the trial seed."""
        keys = [e.audit_id for e in existing] if isinstance(existing, list) else list(existing)
        numbers = [int(k.rsplit("-", 1)[1]) for k in keys if k.startswith(prefix + "-") and k.rsplit("-", 1)[1].isdigit()]
        return f"{prefix}-{max(numbers, default=0) + 1}"

    def _audit(self, action: str, target_id: str, change_id: str | None = None, detail: str = "") -> AuditEntry:
        entry = AuditEntry(
            audit_id=self._next_id("AUD", self.state.audit_log), timestamp=self.state.now, action=action, target_id=target_id, change_id=change_id, detail=detail
        )
        self.state.audit_log.append(entry)
        return entry

    def _incident_view(self, i: Incident) -> dict[str, Any]:
        return {
            **i.model_dump(mode="json"),
            "caller_name": self._name(i.user_id),
            "assignee_name": self._name(i.assignee_id),
            "paged_user_name": self._name(i.paged_user_id),
        }

    # ---- people and configuration items ---------------------------------------------------------
    @tool("read")
    def get_user(self, user_id: UserId) -> dict[str, Any]:
        """Look up a user: name, department, title, manager (id and name) and the roles they hold."""
        u = self._user(user_id)
        grants = [
            {"grant_id": g.grant_id, "role_id": g.role_id, "role_name": self.state.roles[g.role_id].name}
            for g in self.state.access_grants.values()
            if g.user_id == user_id and g.status == "active"
        ]
        return {**u.model_dump(mode="json"), "manager_name": self._name(u.manager_id), "active_roles": grants}

    @tool("read")
    def find_users(self, name: Annotated[NonBlank[CaseFolded], Field(description="Full or partial name, e.g. 'Chen'.")]) -> dict[str, Any]:
        """Find users whose name contains the text (case-insensitive). Several people can share a surname:
        confirm the right one by department or title before acting."""
        needle = name.strip().lower()
        if not needle:
            raise InvalidCall("Give part of a name to search for.")
        found = [
            {"user_id": u.user_id, "name": u.name, "department": u.department, "title": u.title}
            for u in self.state.users.values()
            if needle in u.name.lower()
        ]
        return {"query": name, "users": found}

    @tool("read")
    def get_ci(self, ci_id: CiId) -> dict[str, Any]:
        """Look up a configuration item: name, type, environment, support group and its on-call engineer."""
        ci = self._ci(ci_id)
        group = self.state.groups[ci.support_group]
        return {**ci.model_dump(mode="json"), "support_group_name": group.name, "on_call_user_id": group.on_call_user_id,
                "on_call_name": self._name(group.on_call_user_id)}

    # ---- incidents ------------------------------------------------------------------------------
    @tool("read")
    def get_incident(self, incident_id: IncidentId) -> dict[str, Any]:
        """Look up one incident: caller, priority (with impact and urgency), status, assignment, linked
        configuration items, whether on-call was paged, resolution and work notes."""
        return self._incident_view(self._incident(incident_id))

    @tool("read")
    def list_incidents(self, user_id: UserId) -> dict[str, Any]:
        """List the incidents a user has reported (id, title, priority, status), newest last."""
        self._user(user_id)
        found = [
            {"incident_id": i.incident_id, "title": i.title, "priority": i.priority, "status": i.status}
            for i in self.state.incidents.values()
            if i.user_id == user_id
        ]
        return {"user_id": user_id, "incidents": found}

    @tool("write")
    def create_incident(
        self,
        user_id: Annotated[NonBlank[str], Field(description="The caller: the user reporting or affected, e.g. USR-1001.")],
        ci_id: Annotated[NonBlank[str], Field(description="The affected configuration item, e.g. CI-3001.")],
        title: Annotated[NonBlank[str], Field(description="Short description of the problem."), FreeText],
        impact: Annotated[Level, Field(description="high (many users or a whole service), medium (a team), low (one user).")],
        urgency: Annotated[Level, Field(description="high (work stopped now), medium (degraded), low (can wait).")],
        description: Annotated[Trimmed, Field(description="Details the caller gave."), FreeText] = "",
    ) -> dict[str, Any]:
        """Log a new incident. Priority comes from impact x urgency (high/high = P1). The incident is
        assigned to the configuration item's support group. Refused (409) when the caller already has an
        open incident on the same configuration item: update that one instead. Creating a P1 does NOT page
        on-call by itself: call page_on_call next."""
        self._user(user_id)
        ci = self._ci(ci_id)
        for other in self.state.incidents.values():
            if other.user_id == user_id and ci_id in other.ci_ids and other.status != "resolved":
                raise Refusal(409, "The caller already has an open incident on this configuration item", incident_id=other.incident_id)
        incident = Incident(
            incident_id=self._next_id("INC", self.state.incidents),
            title=title,
            description=description,
            user_id=user_id,
            impact=impact,
            urgency=urgency,
            priority=priority_of(impact, urgency),
            assignment_group=ci.support_group,
            ci_ids=[ci_id],
            opened_at=self.state.now,
        )
        self.state.incidents[incident.incident_id] = incident
        return {
            "incident_id": incident.incident_id,
            "priority": incident.priority,
            "status": incident.status,
            "assignment_group": incident.assignment_group,
            "on_call_paged": False,
        }

    @tool("write")
    def update_incident(
        self,
        incident_id: IncidentId,
        impact: Annotated[Level | None, Field(description="New impact, if it changes.")] = None,
        urgency: Annotated[Level | None, Field(description="New urgency, if it changes.")] = None,
        status: Annotated[OpenStatus | None, Field(description="new, in_progress or on_hold (use resolve_incident to resolve).")] = None,
        assignee_id: Annotated[NonBlank[str] | None, Field(description="User id of the engineer to assign; must belong to the assignment group.")] = None,
        assignment_group: Annotated[NonBlank[str] | None, Field(description="Support group id to reassign to, e.g. GRP-NET.")] = None,
    ) -> dict[str, Any]:
        """Change an open incident's impact/urgency (priority is recomputed), status, assignment group or
        assignee. Refused for resolved incidents (409), when nothing would change (409), and for lowering a
        P1 that has not paged on-call yet (422: page first). Raising an incident to P1 does not page on-call
        by itself: call page_on_call next."""
        incident = self._incident(incident_id)
        if incident.status == "resolved":
            raise Refusal(409, "The incident is already resolved", incident_id=incident_id)
        group_id = assignment_group or incident.assignment_group
        if assignment_group is not None and assignment_group not in self.state.groups:
            raise InvalidCall(f"Unknown group id {assignment_group!r}.")
        assignee = assignee_id if assignee_id is not None else (incident.assignee_id if assignment_group in (None, incident.assignment_group) else None)
        if assignee_id is not None:
            self._user(assignee_id)
            if assignee_id not in self.state.groups[group_id].members:
                raise Refusal(422, "The assignee is not a member of the assignment group", assignee_id=assignee_id, assignment_group=group_id)
        new_impact = impact or incident.impact
        new_urgency = urgency or incident.urgency
        new = {
            "impact": new_impact,
            "urgency": new_urgency,
            "priority": priority_of(new_impact, new_urgency),
            "status": status or incident.status,
            "assignment_group": group_id,
            "assignee_id": assignee,
        }
        old = {k: getattr(incident, k) for k in new}
        if new == old:
            raise Refusal(409, "Nothing to change: the incident already has these values", incident_id=incident_id)
        if old["priority"] == "P1" and new["priority"] != "P1" and not incident.on_call_paged:
            # Otherwise lowering the impact would be a way around "a P1 must page before it is resolved".
            raise Refusal(422, "A P1 incident must page on-call before its priority can be lowered", incident_id=incident_id)
        for key, value in new.items():
            setattr(incident, key, value)
        return {"incident_id": incident_id, **new, "previous_priority": old["priority"], "on_call_paged": incident.on_call_paged}

    @tool("write")
    def add_work_note(
        self, incident_id: IncidentId, note: Annotated[NonBlank[str], Field(description="The note to add to the incident."), FreeText]
    ) -> dict[str, Any]:
        """Add a work note to an incident (visible to IT staff). The same note is not added twice (409)."""
        incident = self._incident(incident_id)
        if note in incident.work_notes:
            raise Refusal(409, "This note is already on the incident", incident_id=incident_id)
        incident.work_notes.append(note)
        return {"incident_id": incident_id, "work_notes": len(incident.work_notes)}

    @tool("write")
    def link_ci(self, incident_id: IncidentId, ci_id: CiId) -> dict[str, Any]:
        """Link another affected configuration item to an incident. Refused if already linked (409)."""
        incident = self._incident(incident_id)
        self._ci(ci_id)
        if ci_id in incident.ci_ids:
            raise Refusal(409, "This configuration item is already linked to the incident", ci_id=ci_id)
        incident.ci_ids.append(ci_id)
        return {"incident_id": incident_id, "ci_ids": list(incident.ci_ids)}

    @tool("write")
    def page_on_call(self, incident_id: IncidentId) -> dict[str, Any]:
        """Page the on-call engineer of the incident's assignment group. Only P1 incidents page on-call
        (422 otherwise); each incident is paged once (409)."""
        incident = self._incident(incident_id)
        if incident.status == "resolved":
            raise Refusal(409, "The incident is already resolved", incident_id=incident_id)
        if incident.priority != "P1":
            raise Refusal(422, "Only P1 incidents page on-call", priority=incident.priority)
        if incident.on_call_paged:
            raise Refusal(409, "On-call was already paged for this incident", paged_user_id=incident.paged_user_id)
        on_call = self.state.groups[incident.assignment_group].on_call_user_id
        if on_call is None:
            raise Refusal(422, "The assignment group has no on-call engineer", assignment_group=incident.assignment_group)
        incident.on_call_paged = True
        incident.paged_user_id = on_call
        return {"incident_id": incident_id, "paged": True, "paged_user_id": on_call, "paged_user_name": self._name(on_call)}

    @tool("write")
    def resolve_incident(
        self,
        incident_id: IncidentId,
        resolution_code: Annotated[ResolutionCode, Field(description="fixed, workaround, hardware_replaced, user_error, no_fault_found or duplicate.")],
        resolution_notes: Annotated[NonBlank[str], Field(description="What was done to restore service."), FreeText],
    ) -> dict[str, Any]:
        """Resolve an incident. Refused if already resolved (409) and for a P1 whose on-call was never
        paged (422: page on-call first)."""
        incident = self._incident(incident_id)
        if incident.status == "resolved":
            raise Refusal(409, "The incident is already resolved", incident_id=incident_id)
        if incident.priority == "P1" and not incident.on_call_paged:
            raise Refusal(422, "A P1 incident must page on-call before it can be resolved", incident_id=incident_id)
        incident.status = "resolved"
        incident.resolution_code = resolution_code
        incident.resolution_notes = resolution_notes
        return {"incident_id": incident_id, "status": "resolved", "resolution_code": resolution_code}

    # ---- changes --------------------------------------------------------------------------------
    @tool("read")
    def get_change(self, change_id: ChangeId) -> dict[str, Any]:
        """Look up a change request: type (standard/normal/emergency), status, CAB approval and approver,
        schedule, configuration item and the records it authorises deleting."""
        c = self._change(change_id)
        return {**c.model_dump(mode="json"), "requested_by_name": self._name(c.requested_by), "approved_by_name": self._name(c.approved_by),
                "cab_approval_required": c.change_type != "standard"}

    @tool("write")
    def submit_change(
        self,
        user_id: Annotated[NonBlank[str], Field(description="The requester's user id, e.g. USR-1005.")],
        ci_id: Annotated[NonBlank[str], Field(description="The configuration item being changed, e.g. CI-3003.")],
        title: Annotated[NonBlank[str], Field(description="What the change does."), FreeText],
        change_type: Annotated[ChangeType, Field(description="standard (pre-approved routine change), normal (needs CAB approval) or emergency (needs emergency CAB approval).")],
        scheduled_start: Annotated[DateTime, Field(description="Planned start, local time, YYYY-MM-DDTHH:MM, e.g. 2026-12-02T22:00.")],
        description: Annotated[Trimmed, Field(description="Implementation and back-out plan."), FreeText] = "",
    ) -> dict[str, Any]:
        """Submit a change request. Standard changes are pre-approved (status approved); normal and
        emergency changes wait for CAB approval (status pending_approval). Refused when the start is in the
        past (422) or another open change is already scheduled on the same item at the same time (409)."""
        self._user(user_id)
        self._ci(ci_id)
        if scheduled_start < self.state.now:
            raise Refusal(422, "The scheduled start is in the past", now=self.state.now)
        for other in self.state.changes.values():
            if other.ci_id == ci_id and other.scheduled_start == scheduled_start and other.status in ("pending_approval", "approved"):
                raise Refusal(409, "Another change is already scheduled on this item at that time", change_id=other.change_id)
        standard = change_type == "standard"
        change = ChangeRequest(
            change_id=self._next_id("CHG", self.state.changes),
            title=title,
            change_type=change_type,
            ci_id=ci_id,
            requested_by=user_id,
            status="approved" if standard else "pending_approval",
            scheduled_start=scheduled_start,
            description=description,
        )
        self.state.changes[change.change_id] = change
        return {"change_id": change.change_id, "status": change.status, "cab_approval_required": not standard}

    @tool("write")
    def approve_change(
        self, change_id: ChangeId, approver_id: Annotated[NonBlank[str], Field(description="User id of the CAB member approving, e.g. USR-1014.")]
    ) -> dict[str, Any]:
        """Record the Change Advisory Board's approval of a normal or emergency change. The approver must be
        a CAB member (403) and not the change's requester (403). Standard changes are pre-approved and take
        no CAB approval (409); only changes pending approval can be approved (409)."""
        change = self._change(change_id)
        self._user(approver_id)
        if change.change_type == "standard":
            raise Refusal(409, "Standard changes are pre-approved and need no CAB approval", change_id=change_id)
        if change.status != "pending_approval":
            raise Refusal(409, f"The change is {change.status}, not pending approval", current_status=change.status)
        if approver_id not in self.state.groups[CAB_GROUP].members:
            raise Refusal(403, "The approver is not a member of the Change Advisory Board", approver_id=approver_id)
        if approver_id == change.requested_by:
            raise Refusal(403, "A change cannot be approved by its own requester", approver_id=approver_id)
        change.status = "approved"
        change.cab_approved = True
        change.approved_by = approver_id
        self._audit("change_approved", change_id, change_id, f"approved by {approver_id}")
        return {"change_id": change_id, "status": "approved", "approved_by": approver_id}

    @tool("write")
    def implement_change(self, change_id: ChangeId) -> dict[str, Any]:
        """Mark a change as implemented. A normal or emergency change needs CAB approval first (403); a
        standard change does not. Refused if already implemented or rejected (409)."""
        change = self._change(change_id)
        if change.status in ("implemented", "rejected"):
            raise Refusal(409, f"The change is already {change.status}", current_status=change.status)
        if change.change_type != "standard" and not change.cab_approved:
            article = "An" if change.change_type == "emergency" else "A"
            raise Refusal(403, f"{article} {change.change_type} change needs CAB approval before implementation", change_id=change_id)
        change.status = "implemented"
        change.implemented_at = self.state.now
        self._audit("change_implemented", change_id, change_id)
        return {"change_id": change_id, "status": "implemented", "implemented_at": change.implemented_at}

    # ---- service requests -----------------------------------------------------------------------
    @tool("read")
    def list_catalog_items(self) -> dict[str, Any]:
        """The service catalogue: item ids, names and whether the item needs the manager's approval."""
        return {"items": [c.model_dump(mode="json") for c in self.state.catalog.values()]}

    @tool("read")
    def get_service_request(self, request_id: RequestId) -> dict[str, Any]:
        """Look up a service request: who it is for, the catalogue item, status and approval state."""
        r = self._request(request_id)
        return {**r.model_dump(mode="json"), "item_name": self.state.catalog[r.item_id].name, "user_name": self._name(r.user_id),
                "approver_name": self._name(r.approver_id)}

    @tool("read")
    def list_service_requests(self, user_id: UserId) -> dict[str, Any]:
        """List a user's service requests (id, item, status, approval)."""
        self._user(user_id)
        found = [
            {"request_id": r.request_id, "item_id": r.item_id, "item_name": self.state.catalog[r.item_id].name, "status": r.status, "approval": r.approval}
            for r in self.state.service_requests.values()
            if r.user_id == user_id
        ]
        return {"user_id": user_id, "service_requests": found}

    @tool("write")
    def create_service_request(
        self,
        user_id: Annotated[NonBlank[str], Field(description="Who the item is for, e.g. USR-1001.")],
        item_id: Annotated[NonBlank[str], Field(description="Catalogue item id, e.g. CAT-102.")],
        notes: Annotated[Trimmed, Field(description="Optional details (model, mailbox name...)."), FreeText] = "",
    ) -> dict[str, Any]:
        """Order a catalogue item for a user. Items that need approval start with approval pending (sent to
        the user's manager). Refused (409) when the user already has an open request for the same item."""
        user = self._user(user_id)
        item = self.state.catalog.get(item_id)
        if item is None:
            raise InvalidCall(f"Unknown catalogue item {item_id!r}.")
        for other in self.state.service_requests.values():
            if other.user_id == user_id and other.item_id == item_id and other.status == "open":
                raise Refusal(409, "The user already has an open request for this item", request_id=other.request_id)
        request = ServiceRequest(
            request_id=self._next_id("REQ", self.state.service_requests),
            user_id=user_id,
            item_id=item_id,
            approval="pending" if item.requires_approval else "not_required",
            approver_id=user.manager_id if item.requires_approval else None,
            notes=notes,
        )
        self.state.service_requests[request.request_id] = request
        return {"request_id": request.request_id, "item_name": item.name, "status": "open", "approval": request.approval,
                "approver_id": request.approver_id, "approver_name": self._name(request.approver_id)}

    @tool("write")
    def fulfil_service_request(
        self, request_id: RequestId, fulfilment_notes: Annotated[Trimmed, Field(description="What was delivered."), FreeText] = ""
    ) -> dict[str, Any]:
        """Fulfil (deliver and close) an open service request. Refused when the request is not open (409)
        or its required approval is pending or was rejected (403)."""
        request = self._request(request_id)
        if request.status != "open":
            raise Refusal(409, f"The request is already {request.status}", current_status=request.status)
        if request.approval in ("pending", "rejected"):
            raise Refusal(403, f"The request cannot be fulfilled: approval is {request.approval}", approval=request.approval)
        request.status = "fulfilled"
        request.fulfilment_notes = fulfilment_notes
        request.fulfilled_at = self.state.now
        return {"request_id": request_id, "status": "fulfilled", "fulfilled_at": request.fulfilled_at}

    @tool("write")
    def cancel_service_request(
        self, request_id: RequestId, reason: Annotated[NonBlank[str], Field(description="Why it is cancelled."), FreeText]
    ) -> dict[str, Any]:
        """Cancel an open service request at the user's wish. Refused when it is not open (409)."""
        request = self._request(request_id)
        if request.status != "open":
            raise Refusal(409, f"The request is already {request.status}", current_status=request.status)
        request.status = "cancelled"
        request.fulfilment_notes = reason
        return {"request_id": request_id, "status": "cancelled"}

    # ---- access -----------------------------------------------------------------------------------
    def _valid_approval(self, user: User, role_id: str) -> AccessApproval | None:
        for a in self.state.approvals.values():
            if a.user_id == user.user_id and a.role_id == role_id and a.status == "approved" and a.approver_id == user.manager_id:
                return a
        return None

    @tool("compute")
    def check_access_eligibility(self, user_id: UserId, role_id: RoleId) -> dict[str, Any]:
        """Check, without changing anything, whether a role can be granted to a user now: whether the role is
        privileged, who the user's manager is, whether that manager's approval is on file, and whether
        the user already holds the role. Policy: run it before every grant."""
        user = self._user(user_id)
        role = self._role(role_id)
        held = any(g.user_id == user_id and g.role_id == role_id and g.status == "active" for g in self.state.access_grants.values())
        approval = self._valid_approval(user, role_id)
        others = [
            {"approval_id": a.approval_id, "approver_id": a.approver_id, "status": a.status}
            for a in self.state.approvals.values()
            if a.user_id == user_id and a.role_id == role_id
        ]
        if held:
            eligible, reason = False, "The user already holds this role"
        elif role.privileged and approval is None:
            eligible, reason = False, "Privileged role: the user's manager has not approved this access"
        else:
            eligible, reason = True, "OK"
        return {
            "user_id": user_id,
            "role_id": role_id,
            "role_name": role.name,
            "privileged": role.privileged,
            "manager_id": user.manager_id,
            "manager_name": self._name(user.manager_id),
            "manager_approval_id": approval.approval_id if approval else None,
            "approvals_on_file": others,
            "already_granted": held,
            "eligible": eligible,
            "reason": reason,
        }

    @tool("write")
    def request_manager_approval(
        self,
        user_id: UserId,
        role_id: RoleId,
        justification: Annotated[NonBlank[str], Field(description="Why the user needs the role."), FreeText],
    ) -> dict[str, Any]:
        """Send a privileged-access approval request to the user's manager (status pending). Refused for
        roles that are not privileged (422) and when a pending or approved request already exists (409)."""
        user = self._user(user_id)
        role = self._role(role_id)
        if not role.privileged:
            raise Refusal(422, "This role is not privileged and needs no manager approval", role_id=role_id)
        if user.manager_id is None:
            raise Refusal(422, "The user has no manager on record", user_id=user_id)
        for a in self.state.approvals.values():
            if a.user_id == user_id and a.role_id == role_id and a.approver_id == user.manager_id and a.status in ("pending", "approved"):
                raise Refusal(409, f"An approval request is already {a.status}", approval_id=a.approval_id)
        approval = AccessApproval(
            approval_id=self._next_id("APR", self.state.approvals), user_id=user_id, role_id=role_id, approver_id=user.manager_id, status="pending", justification=justification
        )
        self.state.approvals[approval.approval_id] = approval
        self._audit("approval_requested", approval.approval_id, detail=f"{user_id} {role_id}")
        return {"approval_id": approval.approval_id, "status": "pending", "approver_id": user.manager_id, "approver_name": self._name(user.manager_id)}

    @tool("write")
    def grant_access(self, user_id: UserId, role_id: RoleId) -> dict[str, Any]:
        """Grant a role to a user. A privileged role needs an approval by the user's own manager on file
        (403 otherwise; an approval by anyone else does not count). Refused if the user already holds it (409)."""
        user = self._user(user_id)
        role = self._role(role_id)
        for g in self.state.access_grants.values():
            if g.user_id == user_id and g.role_id == role_id and g.status == "active":
                raise Refusal(409, "The user already holds this role", grant_id=g.grant_id)
        approval = self._valid_approval(user, role_id)
        if role.privileged and approval is None:
            raise Refusal(403, "Privileged access requires the user's manager's approval", manager_id=user.manager_id)
        grant = AccessGrant(
            grant_id=self._next_id("GRANT", self.state.access_grants), user_id=user_id, role_id=role_id, approval_id=approval.approval_id if approval else None,
            granted_at=self.state.now[:10],
        )
        self.state.access_grants[grant.grant_id] = grant
        self._audit("access_granted", grant.grant_id, detail=f"{user_id} {role_id}")
        return {"grant_id": grant.grant_id, "user_id": user_id, "role_id": role_id, "privileged": role.privileged, "status": "active"}

    @tool("write")
    def revoke_access(
        self, user_id: UserId, role_id: RoleId, reason: Annotated[NonBlank[str], Field(description="Why the access is removed."), FreeText]
    ) -> dict[str, Any]:
        """Revoke a role from a user. Refused (409) when the user does not hold the role."""
        self._user(user_id)
        self._role(role_id)
        for g in self.state.access_grants.values():
            if g.user_id == user_id and g.role_id == role_id and g.status == "active":
                g.status = "revoked"
                g.revoked_reason = reason
                self._audit("access_revoked", g.grant_id, detail=f"{user_id} {role_id}")
                return {"grant_id": g.grant_id, "user_id": user_id, "role_id": role_id, "status": "revoked"}
        raise Refusal(409, "The user does not hold this role", user_id=user_id, role_id=role_id)

    # ---- records ----------------------------------------------------------------------------------
    @tool("read")
    def get_record(self, record_id: RecordId) -> dict[str, Any]:
        """Look up a governed record: title, type, owner, status and legal hold (with the legal matter)."""
        r = self._record(record_id)
        return {**r.model_dump(mode="json"), "owner_name": self._name(r.owner_id)}

    @tool("read")
    def get_audit_log(
        self,
        record_id: Annotated[NonBlank[str] | None, Field(description="Only entries about this record (or other target id), e.g. REC-6007.")] = None,
        change_id: Annotated[NonBlank[str] | None, Field(description="Only entries made under this change, e.g. CHG-4010.")] = None,
    ) -> dict[str, Any]:
        """Read the audit log (deletions, access grants and revocations, change approvals and
        implementations), oldest first, optionally filtered by target record or change."""
        entries = [
            e.model_dump(mode="json")
            for e in self.state.audit_log
            if (record_id is None or e.target_id == record_id) and (change_id is None or e.change_id == change_id)
        ]
        return {"entries": entries}

    def _deletion_problem(self, record: GovernedRecord, change: ChangeRequest) -> Refusal | None:
        if record.status == "deleted":
            return Refusal(409, "The record is already deleted", record_id=record.record_id)
        if record.legal_hold:
            return Refusal(423, "The record is under legal hold and cannot be deleted", hold_matter=record.hold_matter)
        if record.record_id not in change.record_ids:
            return Refusal(403, "The change does not authorise deleting this record", change_id=change.change_id)
        approved = change.status in ("approved", "implemented") and (change.change_type == "standard" or change.cab_approved)
        if not approved:
            return Refusal(403, "Record deletion needs an approved change", change_status=change.status)
        return None

    @tool("compute")
    def check_deletion_eligibility(self, record_id: RecordId, change_id: ChangeId) -> dict[str, Any]:
        """Check, without deleting, whether a record may be deleted under a change: the change must be
        approved and list the record, and the record must not be under legal hold. Policy: run it before
        every deletion and before declining one."""
        record = self._record(record_id)
        change = self._change(change_id)
        problem = self._deletion_problem(record, change)
        if problem is None:
            return {"eligible": True, "reason": "OK", "status": 200, "record_id": record_id, "change_id": change_id}
        return {"eligible": False, "reason": problem.reason, "status": problem.code, "record_id": record_id, "change_id": change_id, **problem.details}

    @tool("write")
    def delete_record(
        self,
        record_id: RecordId,
        change_id: Annotated[NonBlank[str], Field(description="The approved change authorising the deletion, e.g. CHG-4004.")],
        reason: Annotated[NonBlank[str], Field(description="Why the record is deleted."), FreeText],
    ) -> dict[str, Any]:
        """Delete a governed record under an approved change that lists it. Refused under legal hold (423),
        without an approved change covering the record (403), or if already deleted (409). Every deletion
        writes an audit entry."""
        record = self._record(record_id)
        change = self._change(change_id)
        problem = self._deletion_problem(record, change)
        if problem is not None:
            raise problem
        record.status = "deleted"
        record.deleted_under_change = change_id
        record.deleted_at = self.state.now
        entry = self._audit("record_deleted", record_id, change_id, reason)
        return {"record_id": record_id, "status": "deleted", "change_id": change_id, "audit_id": entry.audit_id}


def itsm_probes(state: ItsmState) -> list[tuple[str, list[Any]]]:
    """Write sequences touching every incident, change, request, grant, record and collection (for mutation tests)."""
    from contracts.schema import GoldCall

    def call(tool: str, **args: Any) -> GoldCall:
        return GoldCall(tool=tool, args=args)

    probes: list[tuple[str, list[Any]]] = []
    for i in state.incidents.values():
        if i.status == "resolved":
            continue
        probes.append((f"note {i.incident_id}", [call("add_work_note", incident_id=i.incident_id, note="probe note")]))
        probes.append((f"status {i.incident_id}", [call("update_incident", incident_id=i.incident_id, status="on_hold" if i.status != "on_hold" else "in_progress")]))
        other_ci = next(c for c in state.cis if c not in i.ci_ids)
        probes.append((f"link {i.incident_id}", [call("link_ci", incident_id=i.incident_id, ci_id=other_ci)]))
        if i.priority == "P1" and not i.on_call_paged:
            probes.append((f"page {i.incident_id}", [call("page_on_call", incident_id=i.incident_id)]))
        if i.priority != "P1" or i.on_call_paged:
            probes.append((f"resolve {i.incident_id}", [call("resolve_incident", incident_id=i.incident_id, resolution_code="fixed", resolution_notes="probe")]))
        if i.priority != "P1":
            raise_p1 = call("update_incident", incident_id=i.incident_id, impact="high", urgency="high")
            probes.append((f"raise {i.incident_id} to P1", [raise_p1]))
            probes.append((f"raise {i.incident_id} to P1 and page", [raise_p1, call("page_on_call", incident_id=i.incident_id)]))
    for user in list(state.users)[:3]:
        probes.append((f"incident for {user}", [call("create_incident", user_id=user, ci_id="CI-3006", title="probe", impact="low", urgency="low")]))
    cab = state.groups["GRP-CAB"].members if "GRP-CAB" in state.groups else []
    for c in state.changes.values():
        if c.status == "pending_approval" and c.change_type != "standard":
            approver = next((m for m in cab if m != c.requested_by), None)
            if approver:
                approve = call("approve_change", change_id=c.change_id, approver_id=approver)
                probes.append((f"approve {c.change_id}", [approve]))
                probes.append((f"approve and implement {c.change_id}", [approve, call("implement_change", change_id=c.change_id)]))
        if c.status == "approved":
            probes.append((f"implement {c.change_id}", [call("implement_change", change_id=c.change_id)]))
    probes.append(("submit change", [call("submit_change", user_id="USR-1006", ci_id="CI-3006", title="probe", change_type="standard", scheduled_start="2026-12-24T23:00")]))
    for r in state.service_requests.values():
        if r.status == "open":
            probes.append((f"cancel {r.request_id}", [call("cancel_service_request", request_id=r.request_id, reason="probe")]))
            if r.approval in ("approved", "not_required"):
                probes.append((f"fulfil {r.request_id}", [call("fulfil_service_request", request_id=r.request_id, fulfilment_notes="probe")]))
    probes.append(("order headset", [call("create_service_request", user_id="USR-1016", item_id="CAT-106")]))
    for g in state.access_grants.values():
        if g.status == "active":
            probes.append((f"revoke {g.grant_id}", [call("revoke_access", user_id=g.user_id, role_id=g.role_id, reason="probe")]))
    def holds(user_id: str, role_id: str) -> bool:
        return any(g.user_id == user_id and g.role_id == role_id and g.status == "active" for g in state.access_grants.values())

    for a in state.approvals.values():
        user = state.users.get(a.user_id)
        if a.status == "approved" and user is not None and a.approver_id == user.manager_id and not holds(a.user_id, a.role_id):
            probes.append((f"grant under {a.approval_id}", [call("grant_access", user_id=a.user_id, role_id=a.role_id)]))
    for uid in list(state.users)[:6]:
        if not holds(uid, "ROLE-VPN-USER"):
            probes.append((f"grant VPN to {uid}", [call("grant_access", user_id=uid, role_id="ROLE-VPN-USER")]))
        probes.append((f"approval for {uid}", [call("request_manager_approval", user_id=uid, role_id="ROLE-DOMAIN-ADMIN", justification="probe")]))
    for rec in state.records.values():
        if rec.status != "active" or rec.legal_hold:
            continue
        for c in state.changes.values():
            if rec.record_id in c.record_ids and c.status in ("approved", "implemented") and (c.cab_approved or c.change_type == "standard"):
                probes.append((f"delete {rec.record_id}", [call("delete_record", record_id=rec.record_id, change_id=c.change_id, reason="probe")]))
                break
            if rec.record_id in c.record_ids and c.status == "pending_approval" and c.change_type != "standard":
                approver = next((m for m in cab if m != c.requested_by), None)
                if approver:
                    probes.append((
                        f"approve {c.change_id} and delete {rec.record_id}",
                        [call("approve_change", change_id=c.change_id, approver_id=approver),
                         call("delete_record", record_id=rec.record_id, change_id=c.change_id, reason="probe")],
                    ))
    return probes
