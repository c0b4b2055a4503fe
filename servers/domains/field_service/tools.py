"""Field service tools: plain business logic over `FieldServiceState`.

Every rule that can refuse raises `Refusal` with a status code and a reason before anything is
written; unknown ids raise `InvalidCall`. Times are local, "HH:MM"; dates are "YYYY-MM-DD".
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Annotated, Any

from pydantic import Field

from servers.base import ClockTime, Date, FreeText, IdMinter, InvalidCall, NonBlank, Refusal, ToolEnvironment, Trimmed, tool
from servers.domains.field_service.world import (
    SLOT_HOURS,
    SLOT_STARTS,
    Appointment,
    AuditEntry,
    FieldServiceState,
    Note,
    Priority,
    Region,
    Skill,
    Technician,
    WorkOrder,
    default_field_service_state,
)

WorkOrderId = Annotated[NonBlank[str], Field(description="Work order id, e.g. WO-5001.")]
AppointmentId = Annotated[NonBlank[str], Field(description="Appointment id, e.g. APT-7001.")]
CustomerId = Annotated[NonBlank[str], Field(description="The id of the customer making the request, e.g. CUST-3001.")]
TechnicianId = Annotated[NonBlank[str], Field(description="Technician id, e.g. TECH-101.")]
StartTime = Annotated[ClockTime, Field(description="Start of the two-hour window, HH:MM: one of 08:00, 10:00, 12:00, 14:00, 16:00.")]

CLOSED = ("completed", "cancelled")


def _end(start: str) -> str:
    return f"{int(start[:2]) + SLOT_HOURS:02d}:{start[3:]}"


class FieldServiceEnvironment(ToolEnvironment[FieldServiceState]):
    """Home and commercial field service: work orders, customer appointments and technician dispatch."""

    domain = "field_service"
    state_model = FieldServiceState

    @classmethod
    def default_state(cls) -> FieldServiceState:
        return default_field_service_state()

    @classmethod
    def mutation_probes(cls, override: Mapping[str, Any] | None = None) -> list[tuple[str, list[Any]]]:
        return field_service_probes(cls.initial_state(override))

    # ---- lookups -------------------------------------------------------------------------------
    def _work_order(self, work_order_id: str) -> WorkOrder:
        wo = self.state.work_orders.get(work_order_id)
        if wo is None:
            raise InvalidCall(f"Unknown work order id {work_order_id!r}.")
        return wo

    def _appointment(self, appointment_id: str) -> Appointment:
        apt = self.state.appointments.get(appointment_id)
        if apt is None:
            raise InvalidCall(f"Unknown appointment id {appointment_id!r}.")
        return apt

    def _technician(self, technician_id: str) -> Technician:
        tech = self.state.technicians.get(technician_id)
        if tech is None:
            raise InvalidCall(f"Unknown technician id {technician_id!r}.")
        return tech

    def _customer(self, customer_id: str) -> None:
        if customer_id not in self.state.customers:
            raise InvalidCall(f"Unknown customer id {customer_id!r}.")

    @staticmethod
    def _date(value: str) -> dt.date:
        try:
            return dt.date.fromisoformat(value)
        except ValueError:
            raise InvalidCall(f"Dates are YYYY-MM-DD, got {value!r}.") from None

    def _slot_problem(self, date: str, start_time: str) -> Refusal | None:
        """Business hours and the past, for one (date, start) window."""
        day = self._date(date)
        if day.weekday() >= 5:
            return Refusal(422, "Outside business hours: appointments are Monday to Friday", date=date, weekday=day.strftime("%A"))
        if start_time not in SLOT_STARTS:
            return Refusal(422, "Outside business hours: windows start at 08:00, 10:00, 12:00, 14:00 or 16:00", start_time=start_time)
        if (date, start_time) <= (self.state.business_date, self.state.business_time):
            return Refusal(422, "That time slot is in the past", now=f"{self.state.business_date} {self.state.business_time}")
        return None

    def _window(self, date: str, start_time: str, exclude: str | None = None) -> list[Appointment]:
        """The scheduled appointments of one window (all technicians, assigned or not)."""
        return [
            a
            for a in self.state.appointments.values()
            if a.status == "scheduled" and a.date == date and a.start_time == start_time and a.appointment_id != exclude
        ]

    def _staffable(self, date: str, demands: list[tuple[str, str | None]]) -> bool:
        """Whether one window's appointments can all be staffed: every (skill, technician) demand with a
        technician needs that technician at work and booked once; the unassigned ones need distinct
        qualified technicians at work who are not booked in the window (a bipartite matching).

        Why a matching and not "some qualified technician is free": an unassigned appointment still
        takes a technician when it is dispatched, so two solar jobs cannot share one solar technician."""
        techs = self.state.technicians
        busy: set[str] = set()
        for _, tech_id in demands:
            if tech_id is None:
                continue
            tech = techs.get(tech_id)
            if tech is None or tech_id in busy or date in tech.days_off:
                return False
            busy.add(tech_id)
        open_skills = [skill for skill, tech_id in demands if tech_id is None]
        options = [[t.technician_id for t in techs.values() if skill in t.skills and t.technician_id not in busy and date not in t.days_off] for skill in open_skills]
        matched: dict[str, int] = {}

        def place(i: int, seen: set[str]) -> bool:
            for tech_id in options[i]:
                if tech_id in seen:
                    continue
                seen.add(tech_id)
                if tech_id not in matched or place(matched[tech_id], seen):
                    matched[tech_id] = i
                    return True
            return False

        return all(place(i, set()) for i in range(len(open_skills)))

    def _demands(self, appointments: list[Appointment]) -> list[tuple[str, str | None]]:
        return [(self.state.work_orders[a.work_order_id].required_skill, a.technician_id) for a in appointments]

    def _booking(self, technician_id: str, date: str, start_time: str, exclude: str | None = None) -> Appointment | None:
        for apt in self.state.appointments.values():
            if apt.technician_id == technician_id and apt.status == "scheduled" and apt.date == date and apt.start_time == start_time and apt.appointment_id != exclude:
                return apt
        return None

    def _free(self, tech: Technician, date: str, start_time: str, exclude: str | None = None) -> bool:
        return date not in tech.days_off and self._booking(tech.technician_id, date, start_time, exclude) is None

    def _qualified_free(self, skill: str, date: str, start_time: str, exclude: str | None = None) -> list[str]:
        """Qualified technicians who could take one more job of `skill` in the window while every
        appointment already in it stays staffed."""
        others = self._demands(self._window(date, start_time, exclude))
        return [
            t.technician_id
            for t in self.state.technicians.values()
            if skill in t.skills and self._free(t, date, start_time, exclude) and self._staffable(date, [*others, (skill, t.technician_id)])
        ]

    def _capacity_problem(self, wo: WorkOrder, date: str, start_time: str, technician_id: str | None, exclude: str | None = None) -> Refusal | None:
        """Whether one more appointment for `wo` (with `technician_id`, or unassigned) fits the window."""
        others = self._demands(self._window(date, start_time, exclude))
        if self._staffable(date, [*others, (wo.required_skill, technician_id)]):
            return None
        if technician_id is not None:
            return Refusal(409, "The assigned technician is not available in that slot", technician_id=technician_id)
        return Refusal(409, "No qualified technician is available in that slot", required_skill=wo.required_skill)

    def _audit(self, action: str, record_id: str) -> None:
        self.state.audit_log.append(AuditEntry(action=action, record_id=record_id, at=f"{self.state.business_date} {self.state.business_time}"))

    def _active_appointment(self, work_order_id: str) -> Appointment | None:
        return next((a for a in self.state.appointments.values() if a.work_order_id == work_order_id and a.status == "scheduled"), None)

    # ---- reads ---------------------------------------------------------------------------------
    @tool("read")
    def get_work_order(self, work_order_id: WorkOrderId) -> dict[str, Any]:
        """Look up a work order: customer, site address and region, asset, summary, required skill,
        priority, status, notes, and its active (scheduled) appointment if any."""
        wo = self._work_order(work_order_id)
        site = self.state.sites[wo.site_id]
        asset = self.state.assets[wo.asset_id]
        active = self._active_appointment(work_order_id)
        return {
            **wo.model_dump(mode="json"),
            "site_address": site.address,
            "region": site.region,
            "asset": asset.model_dump(mode="json"),
            "active_appointment_id": active.appointment_id if active else None,
        }

    @tool("read")
    def get_appointment(self, appointment_id: AppointmentId) -> dict[str, Any]:
        """Look up an appointment: owner (customer_id), work order, date and window, technician, status."""
        apt = self._appointment(appointment_id)
        wo = self.state.work_orders[apt.work_order_id]
        tech = self.state.technicians.get(apt.technician_id or "")
        return {
            **apt.model_dump(mode="json", exclude={"reschedule_count"}),
            "work_order_summary": wo.summary,
            "required_skill": wo.required_skill,
            "technician_name": tech.name if tech else None,
        }

    @tool("read")
    def list_customer_appointments(self, customer_id: CustomerId) -> dict[str, Any]:
        """List every appointment a customer owns (any status), oldest first, with its work order summary."""
        self._customer(customer_id)
        rows = sorted((a for a in self.state.appointments.values() if a.customer_id == customer_id), key=lambda a: (a.date, a.start_time))
        return {
            "customer_id": customer_id,
            "appointments": [
                {
                    "appointment_id": a.appointment_id,
                    "work_order_id": a.work_order_id,
                    "work_order_summary": self.state.work_orders[a.work_order_id].summary,
                    "date": a.date,
                    "start_time": a.start_time,
                    "end_time": a.end_time,
                    "technician_id": a.technician_id,
                    "status": a.status,
                }
                for a in rows
            ],
        }

    @tool("read")
    def list_customer_work_orders(self, customer_id: CustomerId) -> dict[str, Any]:
        """List every work order of a customer (any status) with its summary, asset, priority and status."""
        self._customer(customer_id)
        rows = [w for w in self.state.work_orders.values() if w.customer_id == customer_id]
        return {
            "customer_id": customer_id,
            "work_orders": [
                {
                    "work_order_id": w.work_order_id,
                    "summary": w.summary,
                    "asset_kind": self.state.assets[w.asset_id].kind,
                    "priority": w.priority,
                    "status": w.status,
                }
                for w in rows
            ],
        }

    @tool("read")
    def find_available_slots(self, work_order_id: WorkOrderId, date: Date) -> dict[str, Any]:
        """List the bookable two-hour windows on one date for a work order. A window is bookable when it is
        in business hours (Mon-Fri, starts 08:00-16:00), not in the past, and - if the work order's
        appointment already has a technician - that technician is free, otherwise at least one technician
        with the required skill is free (appointments without a technician count: each needs one). The work
        order's current appointment window is not listed (it is returned as current_window). Each window
        lists the qualified technicians free in it."""
        wo = self._work_order(work_order_id)
        day = self._date(date)
        active = self._active_appointment(work_order_id)
        assigned = active.technician_id if active else None
        exclude = active.appointment_id if active else None
        slots = []
        for start in SLOT_STARTS:
            if active is not None and (active.date, active.start_time) == (date, start):
                continue  # the appointment's own window is not a move (reschedule refuses it, 409)
            if self._slot_problem(date, start) is not None:
                continue
            if self._capacity_problem(wo, date, start, assigned, exclude) is not None:
                continue
            slots.append({"start_time": start, "end_time": _end(start), "qualified_technicians_free": self._qualified_free(wo.required_skill, date, start, exclude)})
        result: dict[str, Any] = {"work_order_id": work_order_id, "date": date, "weekday": day.strftime("%A"), "required_skill": wo.required_skill, "assigned_technician_id": assigned, "slots": slots}
        if active is not None:
            result["current_window"] = {"appointment_id": active.appointment_id, "date": active.date, "start_time": active.start_time}
        if not slots:
            problem = self._slot_problem(date, "16:00")
            result["note"] = problem.reason if problem else "No bookable window on this date"
        return result

    @tool("read")
    def list_technicians(
        self,
        skill: Annotated[Skill | None, Field(description="Only technicians with this skill, e.g. hvac, plumbing, electrical.")] = None,
        region: Annotated[Region | None, Field(description="Only technicians based in this region: north, south or east.")] = None,
    ) -> dict[str, Any]:
        """List technicians with their skills, region and days off, optionally filtered by skill and region."""
        rows = [t for t in self.state.technicians.values() if (skill is None or skill in t.skills) and (region is None or t.region == region)]
        return {"technicians": [t.model_dump(mode="json") for t in rows]}

    @tool("read")
    def get_technician_schedule(self, technician_id: TechnicianId, date: Date) -> dict[str, Any]:
        """A technician's scheduled appointments on one date, and whether that date is a day off."""
        tech = self._technician(technician_id)
        self._date(date)
        booked = sorted((a for a in self.state.appointments.values() if a.technician_id == technician_id and a.status == "scheduled" and a.date == date), key=lambda a: a.start_time)
        return {
            "technician_id": technician_id,
            "name": tech.name,
            "skills": list(tech.skills),
            "date": date,
            "day_off": date in tech.days_off,
            "appointments": [{"appointment_id": a.appointment_id, "start_time": a.start_time, "end_time": a.end_time, "work_order_id": a.work_order_id} for a in booked],
        }

    # ---- appointment writes --------------------------------------------------------------------
    @tool("write")
    def book_appointment(self, work_order_id: WorkOrderId, customer_id: CustomerId, date: Date, start_time: StartTime) -> dict[str, Any]:
        """Book a new appointment for an open work order with no active appointment. Only the work order's
        customer may book it. The window must be bookable (see find_available_slots). The appointment
        starts unassigned; a dispatcher assigns the technician."""
        wo = self._work_order(work_order_id)
        self._customer(customer_id)
        if wo.customer_id != customer_id:
            raise Refusal(403, "Only the work order's customer can book an appointment for it", work_order_id=work_order_id)
        if wo.status in CLOSED:
            raise Refusal(409, f"Work order is {wo.status}", work_order_id=work_order_id)
        active = self._active_appointment(work_order_id)
        if active is not None:
            raise Refusal(409, "Work order already has a scheduled appointment; reschedule it instead", appointment_id=active.appointment_id)
        problem = self._slot_problem(date, start_time) or self._capacity_problem(wo, date, start_time, None)
        if problem is not None:
            raise problem
        apt = Appointment(
            appointment_id=self.ids.mint("APT"),
            work_order_id=work_order_id,
            customer_id=customer_id,
            date=date,
            start_time=start_time,
            end_time=_end(start_time),
        )
        self.state.appointments[apt.appointment_id] = apt
        wo.status = "scheduled"
        self._audit("book_appointment", apt.appointment_id)
        return {"appointment_id": apt.appointment_id, "work_order_id": work_order_id, "date": date, "start_time": start_time, "end_time": apt.end_time, "status": "scheduled"}

    @tool("write")
    def reschedule_appointment(self, appointment_id: AppointmentId, customer_id: CustomerId, date: Date, start_time: StartTime) -> dict[str, Any]:
        """Move a scheduled appointment to another two-hour window. Only the appointment's owner (its
        customer) may reschedule it. Refused for windows in the past, outside business hours, or when the
        assigned technician (or, if unassigned, every qualified technician) is busy."""
        apt = self._appointment(appointment_id)
        self._customer(customer_id)
        if apt.customer_id != customer_id:
            raise Refusal(403, "Only the appointment's owner can reschedule it", appointment_id=appointment_id)
        if apt.status != "scheduled":
            raise Refusal(409, f"Appointment is {apt.status} and cannot be rescheduled", appointment_id=appointment_id)
        if (apt.date, apt.start_time) == (date, start_time):
            raise Refusal(409, "Appointment is already in that window", appointment_id=appointment_id)
        wo = self.state.work_orders[apt.work_order_id]
        problem = self._slot_problem(date, start_time) or self._capacity_problem(wo, date, start_time, apt.technician_id, appointment_id)
        if problem is not None:
            raise problem
        previous = {"date": apt.date, "start_time": apt.start_time}
        apt.date, apt.start_time, apt.end_time = date, start_time, _end(start_time)
        apt.reschedule_count += 1
        self._audit("reschedule_appointment", appointment_id)
        return {"appointment_id": appointment_id, "previous": previous, "date": date, "start_time": start_time, "end_time": apt.end_time, "technician_id": apt.technician_id, "status": apt.status}

    @tool("write")
    def cancel_appointment(
        self,
        appointment_id: AppointmentId,
        customer_id: CustomerId,
        reason: Annotated[NonBlank[str], Field(description="Why the customer cancels, in their words."), FreeText],
    ) -> dict[str, Any]:
        """Cancel a scheduled appointment. Only the appointment's owner (its customer) may cancel it. The
        work order goes back to open so it can be booked again later."""
        apt = self._appointment(appointment_id)
        self._customer(customer_id)
        if apt.customer_id != customer_id:
            raise Refusal(403, "Only the appointment's owner can cancel it", appointment_id=appointment_id)
        if apt.status != "scheduled":
            raise Refusal(409, f"Appointment is {apt.status} and cannot be cancelled", appointment_id=appointment_id)
        apt.status = "cancelled"
        apt.cancel_reason = reason
        wo = self.state.work_orders[apt.work_order_id]
        if wo.status == "scheduled":
            wo.status = "open"
        self._audit("cancel_appointment", appointment_id)
        return {"appointment_id": appointment_id, "status": "cancelled", "work_order_id": wo.work_order_id, "work_order_status": wo.status}

    # ---- dispatch ------------------------------------------------------------------------------
    @tool("write")
    def assign_technician(self, appointment_id: AppointmentId, technician_id: TechnicianId) -> dict[str, Any]:
        """Assign (or reassign) the technician of a scheduled appointment. The technician must have the
        work order's required skill, must not be off that day, and must not already be booked in that
        window (no double-booking), nor be the only qualified technician left for another unassigned
        appointment in that window."""
        apt = self._appointment(appointment_id)
        tech = self._technician(technician_id)
        if apt.status != "scheduled":
            raise Refusal(409, f"Appointment is {apt.status}; only scheduled appointments can be assigned", appointment_id=appointment_id)
        if apt.technician_id == technician_id:
            raise Refusal(409, "Technician is already assigned to this appointment", appointment_id=appointment_id, technician_id=technician_id)
        wo = self.state.work_orders[apt.work_order_id]
        if wo.required_skill not in tech.skills:
            raise Refusal(422, "Technician does not have the required skill", required_skill=wo.required_skill, technician_skills=list(tech.skills))
        if apt.date in tech.days_off:
            raise Refusal(409, "Technician is off that day", technician_id=technician_id, date=apt.date)
        clash = self._booking(technician_id, apt.date, apt.start_time, exclude=appointment_id)
        if clash is not None:
            raise Refusal(409, "Technician is already booked in that window", technician_id=technician_id, conflicting_appointment_id=clash.appointment_id)
        others = self._demands(self._window(apt.date, apt.start_time, exclude=appointment_id))
        if not self._staffable(apt.date, [*others, (wo.required_skill, technician_id)]):
            raise Refusal(
                409,
                "Assigning this technician would leave another appointment in that window without a qualified technician",
                technician_id=technician_id,
            )
        previous = apt.technician_id
        apt.technician_id = technician_id
        self._audit("assign_technician", appointment_id)
        return {"appointment_id": appointment_id, "technician_id": technician_id, "technician_name": tech.name, "previous_technician_id": previous, "date": apt.date, "start_time": apt.start_time}

    # ---- work orders ---------------------------------------------------------------------------
    @tool("write")
    def add_work_order_note(
        self,
        work_order_id: WorkOrderId,
        note: Annotated[NonBlank[Trimmed], Field(description="The note to record, e.g. gate code, access instructions, symptoms."), FreeText],
    ) -> dict[str, Any]:
        """Add a note to an open or scheduled work order (closed work orders - completed or cancelled -
        do not take notes)."""
        wo = self._work_order(work_order_id)
        if wo.status in CLOSED:
            raise Refusal(409, f"Work order is {wo.status}; notes cannot be added to a closed work order", work_order_id=work_order_id)
        entry = Note(note_id=self.ids.mint("NOTE"), text=note.strip(), created_at=f"{self.state.business_date} {self.state.business_time}")
        wo.notes.append(entry)
        wo.note_count = len(wo.notes)
        self._audit("add_work_order_note", work_order_id)
        return {"work_order_id": work_order_id, "note_id": entry.note_id, "notes_on_work_order": len(wo.notes)}

    @tool("write")
    def update_work_order_priority(
        self,
        work_order_id: WorkOrderId,
        priority: Annotated[Priority, Field(description="low, normal, high or urgent.")],
    ) -> dict[str, Any]:
        """Change the priority of an open or scheduled work order."""
        wo = self._work_order(work_order_id)
        if wo.status in CLOSED:
            raise Refusal(409, f"Work order is {wo.status}; its priority cannot change", work_order_id=work_order_id)
        if wo.priority == priority:
            raise Refusal(409, f"Work order already has priority {priority}", work_order_id=work_order_id)
        previous = wo.priority
        wo.priority = priority
        self._audit("update_work_order_priority", work_order_id)
        return {"work_order_id": work_order_id, "priority": priority, "previous_priority": previous}


def field_service_probes(state: FieldServiceState) -> list[tuple[str, list[Any]]]:
    """Write sequences touching every appointment, work order and technician assignment (for mutation tests)."""
    from contracts.schema import GoldCall

    def call(tool: str, **args: Any) -> GoldCall:
        return GoldCall(tool=tool, args=args)

    def works(method: str, **args: Any) -> bool:
        # a copy through the model's own dump and validation: 3-4x cheaper than deepcopy of the models,
        # and the probe tries many slots per appointment
        env = FieldServiceEnvironment(type(state).model_validate(state.model_dump()), IdMinter("probe"))
        try:
            getattr(env, method)(**args)
        except (Refusal, InvalidCall):
            return False
        return True

    days = ["2026-12-01", "2026-12-02", "2026-12-03", "2026-12-04", "2026-12-07"]
    probes: list[tuple[str, list[Any]]] = []
    for apt in state.appointments.values():
        if apt.status != "scheduled":
            continue
        slot = next(((d, s) for d in days for s in SLOT_STARTS if works("reschedule_appointment", appointment_id=apt.appointment_id, customer_id=apt.customer_id, date=d, start_time=s)), None)
        if slot is not None:
            probes.append((f"reschedule {apt.appointment_id}", [call("reschedule_appointment", appointment_id=apt.appointment_id, customer_id=apt.customer_id, date=slot[0], start_time=slot[1])]))
        probes.append((f"cancel {apt.appointment_id}", [call("cancel_appointment", appointment_id=apt.appointment_id, customer_id=apt.customer_id, reason="probe")]))
        tech = next((t for t in state.technicians if works("assign_technician", appointment_id=apt.appointment_id, technician_id=t)), None)
        if tech is not None:
            probes.append((f"assign {tech} to {apt.appointment_id}", [call("assign_technician", appointment_id=apt.appointment_id, technician_id=tech)]))
    for wo in state.work_orders.values():
        if wo.status in CLOSED:
            continue
        probes.append((f"note on {wo.work_order_id}", [call("add_work_order_note", work_order_id=wo.work_order_id, note="probe")]))
        other = "low" if wo.priority != "low" else "urgent"
        probes.append((f"priority of {wo.work_order_id}", [call("update_work_order_priority", work_order_id=wo.work_order_id, priority=other)]))
        slot = next(((d, s) for d in days for s in SLOT_STARTS if works("book_appointment", work_order_id=wo.work_order_id, customer_id=wo.customer_id, date=d, start_time=s)), None)
        if slot is not None:
            probes.append((f"book {wo.work_order_id}", [call("book_appointment", work_order_id=wo.work_order_id, customer_id=wo.customer_id, date=slot[0], start_time=slot[1])]))
    return probes
