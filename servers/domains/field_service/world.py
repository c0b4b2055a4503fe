"""The field service world: customers, sites and assets, work orders with notes, appointments, technicians.

Records are keyed by the ids a dispatcher would recognise (`CUST-3001`, `WO-5001`, `APT-7001`,
`TECH-101`), so contract state paths read naturally: `appointments.APT-7001.date`,
`work_orders.WO-5003.notes`. "Now" is frozen at Monday 2026-11-30 15:30; appointments are two-hour
windows on weekdays starting at 08:00, 10:00, 12:00, 14:00 or 16:00 (business hours 08:00-18:00).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from servers.base import Unordered

Skill = Literal["hvac", "refrigeration", "plumbing", "water_heater", "electrical", "ev_charger", "solar"]
Region = Literal["north", "south", "east"]
Priority = Literal["low", "normal", "high", "urgent"]
WorkOrderStatus = Literal["open", "scheduled", "completed", "cancelled"]
AppointmentStatus = Literal["scheduled", "completed", "cancelled"]

SLOT_STARTS = ("08:00", "10:00", "12:00", "14:00", "16:00")
"""Appointment windows are two hours long and start only at these times (Monday to Friday)."""
SLOT_HOURS = 2


class Customer(BaseModel):
    customer_id: str
    name: str
    phone: str


class Site(BaseModel):
    site_id: str
    customer_id: str
    address: str
    region: Region


class Asset(BaseModel):
    asset_id: str
    site_id: str
    kind: str
    model: str


class Note(BaseModel):
    note_id: str
    text: str
    created_at: str


class WorkOrder(BaseModel):
    work_order_id: str
    customer_id: str
    site_id: str
    asset_id: str
    summary: str
    required_skill: Skill
    priority: Priority = "normal"
    status: WorkOrderStatus = "open"
    notes: list[Note] = Field(default_factory=list)
    note_count: int = Field(default=0, description="How many notes the work order holds (kept by the world).")


class Appointment(BaseModel):
    appointment_id: str
    work_order_id: str
    customer_id: str = Field(description="The appointment's owner: only this customer may reschedule or cancel it.")
    date: str
    start_time: str
    end_time: str
    technician_id: str | None = None
    status: AppointmentStatus = "scheduled"
    cancel_reason: str = ""
    reschedule_count: int = 0


class Technician(BaseModel):
    technician_id: str
    name: str
    skills: Unordered[list[Skill]]
    region: Region
    days_off: Unordered[list[str]] = Field(default_factory=list)


class AuditEntry(BaseModel):
    """One successful change, as the desk's audit trail records it (who did what to which record)."""

    action: str
    record_id: str
    at: str


class FieldServiceState(BaseModel):
    customers: dict[str, Customer]
    sites: dict[str, Site]
    assets: dict[str, Asset]
    work_orders: dict[str, WorkOrder]
    appointments: dict[str, Appointment]
    technicians: dict[str, Technician]
    audit_log: list[AuditEntry] = Field(default_factory=list, description="Every successful change, oldest first.")
    business_date: str = "2026-11-30"
    business_time: str = "15:30"


def _wo(wid: str, cust: str, site: str, asset: str, summary: str, skill: Skill, **kw: object) -> WorkOrder:
    return WorkOrder(work_order_id=wid, customer_id=cust, site_id=site, asset_id=asset, summary=summary, required_skill=skill, **kw)  # type: ignore[arg-type]


def _apt(aid: str, wid: str, cust: str, date: str, start: str, tech: str | None, status: AppointmentStatus = "scheduled", **kw: object) -> Appointment:
    end = f"{int(start[:2]) + SLOT_HOURS:02d}:00"
    return Appointment(appointment_id=aid, work_order_id=wid, customer_id=cust, date=date, start_time=start, end_time=end, technician_id=tech, status=status, **kw)  # type: ignore[arg-type]


def default_field_service_state() -> FieldServiceState:
    """The seeded world every field service task starts from (before its own override)."""
    customers = [
        Customer(customer_id="CUST-3001", name="Olivia Bennett", phone="555-0101"),
        Customer(customer_id="CUST-3002", name="James Bennett", phone="555-0102"),
        Customer(customer_id="CUST-3003", name="Sofia Alvarez", phone="555-0103"),
        Customer(customer_id="CUST-3004", name="Marcus Reed", phone="555-0104"),
        Customer(customer_id="CUST-3005", name="Hannah Cho", phone="555-0105"),
        Customer(customer_id="CUST-3006", name="Ethan Park", phone="555-0106"),
        Customer(customer_id="CUST-3007", name="Grace Liu", phone="555-0107"),
        Customer(customer_id="CUST-3008", name="Noah Fischer", phone="555-0108"),
    ]
    sites = [
        Site(site_id="SITE-301", customer_id="CUST-3001", address="14 Maple Row", region="north"),
        Site(site_id="SITE-302", customer_id="CUST-3002", address="88 Maple Row", region="north"),
        Site(site_id="SITE-303", customer_id="CUST-3003", address="2 Harbor View", region="south"),
        Site(site_id="SITE-304", customer_id="CUST-3004", address="51 Quarry Lane", region="south"),
        Site(site_id="SITE-305", customer_id="CUST-3005", address="9 Sunridge Court", region="east"),
        Site(site_id="SITE-306", customer_id="CUST-3006", address="300 Elm Street", region="east"),
        Site(site_id="SITE-307", customer_id="CUST-3007", address="77 Birch Avenue", region="north"),
        Site(site_id="SITE-308", customer_id="CUST-3008", address="5 Mill Road, Unit 2", region="south"),
    ]
    assets = [
        Asset(asset_id="AST-401", site_id="SITE-301", kind="gas furnace", model="Carrier 59TP6"),
        Asset(asset_id="AST-402", site_id="SITE-301", kind="water heater", model="Rheem Performance 50"),
        Asset(asset_id="AST-403", site_id="SITE-302", kind="heat pump", model="Trane XR15"),
        Asset(asset_id="AST-404", site_id="SITE-303", kind="EV charger", model="ChargePoint Home Flex"),
        Asset(asset_id="AST-405", site_id="SITE-304", kind="kitchen plumbing", model="n/a"),
        Asset(asset_id="AST-406", site_id="SITE-305", kind="solar inverter", model="SolarEdge SE7600H"),
        Asset(asset_id="AST-407", site_id="SITE-306", kind="air conditioner", model="Lennox ML14XC1"),
        Asset(asset_id="AST-408", site_id="SITE-307", kind="electrical panel", model="Square D QO 200A"),
        Asset(asset_id="AST-409", site_id="SITE-308", kind="walk-in cooler", model="Kolpak KF7"),
        Asset(asset_id="AST-410", site_id="SITE-304", kind="tankless water heater", model="Navien NPE-240A"),
    ]
    work_orders = [
        _wo("WO-5001", "CUST-3001", "SITE-301", "AST-401", "Furnace not producing heat", "hvac", priority="high", status="scheduled",
            notes=[Note(note_id="NOTE-0001", text="Customer reports the pilot light keeps going out.", created_at="2026-11-28 09:12")], note_count=1),
        _wo("WO-5002", "CUST-3001", "SITE-301", "AST-402", "Water heater annual flush", "water_heater", priority="low", status="scheduled"),
        _wo("WO-5003", "CUST-3002", "SITE-302", "AST-403", "Heat pump annual maintenance", "hvac", status="scheduled"),
        _wo("WO-5004", "CUST-3003", "SITE-303", "AST-404", "EV charger installation", "ev_charger", status="scheduled"),
        _wo("WO-5005", "CUST-3004", "SITE-304", "AST-405", "Leak under the kitchen sink", "plumbing", priority="high", status="scheduled"),
        _wo("WO-5006", "CUST-3005", "SITE-305", "AST-406", "Solar inverter shows error 18xB", "solar", status="scheduled"),
        _wo("WO-5007", "CUST-3006", "SITE-306", "AST-407", "Air conditioner tune-up before summer", "hvac", priority="low", status="scheduled"),
        _wo("WO-5008", "CUST-3007", "SITE-307", "AST-408", "Electrical panel breaker trips", "electrical", status="completed",
            notes=[Note(note_id="NOTE-0002", text="Replaced the 20A breaker on circuit 7; tested OK.", created_at="2026-11-27 11:40")], note_count=1),
        _wo("WO-5009", "CUST-3008", "SITE-308", "AST-409", "Walk-in cooler not holding temperature", "refrigeration", priority="urgent", status="scheduled"),
        _wo("WO-5010", "CUST-3004", "SITE-304", "AST-410", "Tankless water heater error code E003", "water_heater", status="open"),
        _wo("WO-5011", "CUST-3003", "SITE-303", "AST-404", "EV charger second circuit inspection", "electrical", status="open"),
        _wo("WO-5012", "CUST-3007", "SITE-307", "AST-408", "Whole-home surge protector quote", "electrical", status="cancelled"),
        _wo("WO-5013", "CUST-3002", "SITE-302", "AST-403", "Smart thermostat replacement", "hvac", status="scheduled"),
        _wo("WO-5014", "CUST-3006", "SITE-306", "AST-407", "Condenser fan motor replacement", "hvac", status="scheduled"),
    ]
    appointments = [
        _apt("APT-7001", "WO-5001", "CUST-3001", "2026-12-02", "10:00", "TECH-101"),
        _apt("APT-7002", "WO-5002", "CUST-3001", "2026-12-03", "08:00", "TECH-103"),
        _apt("APT-7003", "WO-5003", "CUST-3002", "2026-12-02", "14:00", "TECH-102"),
        _apt("APT-7004", "WO-5004", "CUST-3003", "2026-12-01", "10:00", "TECH-104"),
        _apt("APT-7005", "WO-5005", "CUST-3004", "2026-12-01", "08:00", None),
        _apt("APT-7006", "WO-5006", "CUST-3005", "2026-12-04", "12:00", "TECH-106"),
        _apt("APT-7007", "WO-5007", "CUST-3006", "2026-12-03", "14:00", None),
        _apt("APT-7008", "WO-5008", "CUST-3007", "2026-11-27", "10:00", "TECH-101", status="completed"),
        _apt("APT-7009", "WO-5009", "CUST-3008", "2026-12-02", "10:00", "TECH-102"),
        _apt("APT-7010", "WO-5010", "CUST-3004", "2026-12-01", "14:00", None, status="cancelled", cancel_reason="Customer travelling"),
        _apt("APT-7011", "WO-5013", "CUST-3002", "2026-12-03", "08:00", "TECH-101"),
        _apt("APT-7012", "WO-5014", "CUST-3006", "2026-12-03", "12:00", "TECH-101"),
    ]
    technicians = [
        Technician(technician_id="TECH-101", name="Alex Moreno", skills=["hvac", "electrical"], region="north"),
        Technician(technician_id="TECH-102", name="Priya Shah", skills=["hvac", "refrigeration"], region="north"),
        Technician(technician_id="TECH-103", name="Ben Carter", skills=["plumbing", "water_heater"], region="south"),
        Technician(technician_id="TECH-104", name="Dana Wright", skills=["electrical", "ev_charger"], region="south"),
        Technician(technician_id="TECH-105", name="Luis Ortega", skills=["plumbing"], region="south", days_off=["2026-12-01"]),
        Technician(technician_id="TECH-106", name="Mei Tanaka", skills=["solar", "electrical"], region="east"),
        Technician(technician_id="TECH-107", name="Sam Okoro", skills=["hvac", "water_heater"], region="east", days_off=["2026-12-04"]),
    ]
    return FieldServiceState(
        customers={c.customer_id: c for c in customers},
        sites={s.site_id: s for s in sites},
        assets={a.asset_id: a for a in assets},
        work_orders={w.work_order_id: w for w in work_orders},
        appointments={a.appointment_id: a for a in appointments},
        technicians={t.technician_id: t for t in technicians},
    )
