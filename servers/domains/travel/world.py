"""The travel world of the Meridian Travel desk: travellers, Aurora Air flights, bookings, hotels, miles.

Records are keyed by the ids a person would recognise: travellers `TRV-101`, flights `AU210-1210`
(flight number and departure month/day), bookings by a PNR-like locator `PNR-K7Q2MA`, hotels `HTL-201`,
hotel stays `STAY-4001`, loyalty accounts `AM-100101`. The clock is frozen at `now`.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from servers.base import Unordered

FareClass = Literal["basic", "standard", "flexible"]
Cabin = Literal["economy", "business"]


class PaymentMethod(BaseModel):
    payment_method_id: str
    kind: Literal["credit_card", "debit_card"] = "credit_card"
    label: str


class Traveller(BaseModel):
    traveller_id: str
    name: str
    email: str
    loyalty_id: str
    payment_methods: dict[str, PaymentMethod]


class LoyaltyAccount(BaseModel):
    loyalty_id: str
    traveller_id: str
    tier: Literal["blue", "silver", "gold"] = "blue"
    miles: int = 0


class Flight(BaseModel):
    flight_id: str
    flight_number: str
    origin: str
    destination: str
    date: str
    departs: str
    arrives: str
    distance_miles: int
    prices: dict[str, float] = Field(description="Economy price per passenger by fare class: basic, standard, flexible.")
    upgrade_miles: int = Field(description="Miles per passenger to upgrade this flight to business.")
    free_seats: dict[str, Unordered[list[str]]] = Field(description="Free seats by cabin (economy, business).")
    status: Literal["scheduled", "landed"] = "scheduled"


class Segment(BaseModel):
    flight_id: str
    cabin: Cabin = "economy"
    seats: list[str] = Field(description="One seat per passenger, in passenger order ('' = unassigned).")
    miles_credited: bool = False


class BookingPayment(BaseModel):
    kind: Literal["charge", "refund", "travel_credit"]
    amount: float
    payment_method_id: str = ""
    note: str = ""


class Booking(BaseModel):
    booking_id: str
    traveller_id: str
    passengers: list[str]
    fare_class: FareClass
    segments: list[Segment]
    bags: list[int] = Field(description="Checked bags per passenger, in passenger order.")
    status: Literal["confirmed", "cancelled"] = "confirmed"
    booked_at: str
    payment_method_id: str
    total_paid: float
    payments: list[BookingPayment] = Field(default_factory=list)


class RoomType(BaseModel):
    nightly_rate: float
    rooms_left: int


class Hotel(BaseModel):
    hotel_id: str
    name: str
    city: str
    cancellation_hours: int = Field(description="Free cancellation until this many hours before 15:00 on the check-in day.")
    room_types: dict[str, RoomType]


class HotelStay(BaseModel):
    stay_id: str
    traveller_id: str
    hotel_id: str
    room_type: str
    check_in: str
    check_out: str
    nights: int
    nightly_rate: float
    total: float
    payment_method_id: str
    booking_id: str = ""
    cancel_deadline: str
    status: Literal["confirmed", "cancelled"] = "confirmed"
    cancellation_fee: float = 0.0


class TravelCredit(BaseModel):
    credit_id: str
    traveller_id: str
    booking_id: str
    amount: float


class Refund(BaseModel):
    refund_id: str
    booking_id: str
    payment_method_id: str
    amount: float


class TravelState(BaseModel):
    travellers: dict[str, Traveller]
    loyalty_accounts: dict[str, LoyaltyAccount]
    flights: dict[str, Flight]
    bookings: dict[str, Booking]
    hotels: dict[str, Hotel]
    hotel_stays: dict[str, HotelStay]
    travel_credits: dict[str, TravelCredit] = Field(default_factory=dict)
    refunds: dict[str, Refund] = Field(default_factory=dict)
    now: str = "2026-11-30T15:30"


def _traveller(tid: str, name: str, loyalty_id: str, *cards: tuple[str, str]) -> Traveller:
    email = name.lower().replace(" ", ".") + "@example.com"
    methods = {pid: PaymentMethod(payment_method_id=pid, label=label) for pid, label in cards}
    return Traveller(traveller_id=tid, name=name, email=email, loyalty_id=loyalty_id, payment_methods=methods)


ECONOMY = ["12A", "12B", "12C", "14A", "14C", "21D", "21F"]
BUSINESS = ["2A", "2C", "3D"]


def _flight(fid: str, origin: str, dest: str, date: str, departs: str, arrives: str, distance: int, basic: float, standard: float, flexible: float, upgrade: int, *, landed: bool = False, economy: list[str] | None = None, business: list[str] | None = None) -> Flight:
    return Flight(
        flight_id=fid,
        flight_number=fid.split("-")[0],
        origin=origin,
        destination=dest,
        date=date,
        departs=departs,
        arrives=arrives,
        distance_miles=distance,
        prices={"basic": basic, "standard": standard, "flexible": flexible},
        upgrade_miles=upgrade,
        free_seats={"economy": list(ECONOMY if economy is None else economy), "business": list(BUSINESS if business is None else business)},
        status="landed" if landed else "scheduled",
    )


def _booking(bid: str, tid: str, passengers: list[str], fare: FareClass, flights: list[tuple[str, list[str]]], booked_at: str, pm: str, total: float, *, bags: list[int] | None = None, credited: bool = False, status: Literal["confirmed", "cancelled"] = "confirmed") -> Booking:
    return Booking(
        booking_id=bid,
        traveller_id=tid,
        passengers=passengers,
        fare_class=fare,
        segments=[Segment(flight_id=f, seats=seats, miles_credited=credited) for f, seats in flights],
        bags=bags or [0] * len(passengers),
        status=status,
        booked_at=booked_at,
        payment_method_id=pm,
        total_paid=total,
        payments=[BookingPayment(kind="charge", amount=total, payment_method_id=pm, note="original booking")],
    )


def default_travel_state() -> TravelState:
    """The seeded world every travel task starts from (before its own override)."""
    travellers = [
        _traveller("TRV-101", "Nora Haddad", "AM-100101", ("PM-4421", "Visa ending 4421"), ("PM-9015", "Amex ending 9015")),
        _traveller("TRV-102", "Omar Haddad", "AM-100102", ("PM-3307", "Mastercard ending 3307")),
        _traveller("TRV-103", "Grace Liu", "AM-100103", ("PM-7788", "Visa ending 7788")),
        _traveller("TRV-104", "Samuel Okoye", "AM-100104", ("PM-1264", "Mastercard ending 1264")),
        _traveller("TRV-105", "Elena Petrova", "AM-100105", ("PM-5550", "Visa ending 5550"), ("PM-6061", "Mastercard ending 6061")),
        _traveller("TRV-106", "Marcus Bell", "AM-100106", ("PM-8842", "Amex ending 8842")),
        _traveller("TRV-107", "Ines Duarte", "AM-100107", ("PM-2290", "Visa ending 2290")),
        _traveller("TRV-108", "Kenji Watanabe", "AM-100108", ("PM-4713", "Visa ending 4713")),
    ]
    loyalty = [
        LoyaltyAccount(loyalty_id="AM-100101", traveller_id="TRV-101", tier="gold", miles=48200),
        LoyaltyAccount(loyalty_id="AM-100102", traveller_id="TRV-102", tier="blue", miles=6200),
        LoyaltyAccount(loyalty_id="AM-100103", traveller_id="TRV-103", tier="silver", miles=21500),
        LoyaltyAccount(loyalty_id="AM-100104", traveller_id="TRV-104", tier="blue", miles=3100),
        LoyaltyAccount(loyalty_id="AM-100105", traveller_id="TRV-105", tier="gold", miles=90500),
        LoyaltyAccount(loyalty_id="AM-100106", traveller_id="TRV-106", tier="silver", miles=15000),
        LoyaltyAccount(loyalty_id="AM-100107", traveller_id="TRV-107", tier="blue", miles=12000),
        LoyaltyAccount(loyalty_id="AM-100108", traveller_id="TRV-108", tier="silver", miles=30000),
    ]
    flights = [
        # Boston <-> Chicago
        _flight("AU210-1210", "BOS", "ORD", "2026-12-10", "08:00", "09:55", 867, 129.0, 189.0, 279.0, 12000),
        _flight("AU214-1210", "BOS", "ORD", "2026-12-10", "17:30", "19:25", 867, 119.0, 169.0, 259.0, 12000),
        _flight("AU210-1212", "BOS", "ORD", "2026-12-12", "08:00", "09:55", 867, 149.0, 229.0, 309.0, 12000),
        _flight("AU214-1212", "BOS", "ORD", "2026-12-12", "17:30", "19:25", 867, 139.0, 209.0, 299.0, 12000, economy=[]),
        _flight("AU211-1214", "ORD", "BOS", "2026-12-14", "11:15", "14:40", 867, 139.0, 199.0, 289.0, 12000),
        _flight("AU211-1215", "ORD", "BOS", "2026-12-15", "11:15", "14:40", 867, 119.0, 179.0, 269.0, 12000),
        # Seattle -> San Francisco
        _flight("AU330-1205", "SEA", "SFO", "2026-12-05", "07:45", "09:55", 679, 99.0, 149.0, 219.0, 10000),
        _flight("AU334-1205", "SEA", "SFO", "2026-12-05", "18:20", "20:30", 679, 89.0, 139.0, 209.0, 10000),
        _flight("AU330-1206", "SEA", "SFO", "2026-12-06", "07:45", "09:55", 679, 109.0, 169.0, 239.0, 10000),
        _flight("AU331-1207", "SFO", "SEA", "2026-12-07", "16:10", "18:15", 679, 99.0, 159.0, 229.0, 10000),
        # New York <-> Miami
        _flight("AU512-1218", "JFK", "MIA", "2026-12-18", "09:30", "12:45", 1089, 179.0, 249.0, 349.0, 15000),
        _flight("AU512-1220", "JFK", "MIA", "2026-12-20", "09:30", "12:45", 1089, 199.0, 279.0, 379.0, 15000),
        _flight("AU513-1227", "MIA", "JFK", "2026-12-27", "14:00", "17:05", 1089, 189.0, 269.0, 369.0, 15000, business=[]),
        # Denver -> Austin
        _flight("AU720-1208", "DEN", "AUS", "2026-12-08", "10:05", "13:10", 775, 109.0, 159.0, 229.0, 11000),
        _flight("AU720-1209", "DEN", "AUS", "2026-12-09", "10:05", "13:10", 775, 99.0, 149.0, 219.0, 11000),
        # Flown (landed) flights
        _flight("AU330-1120", "SEA", "SFO", "2026-11-20", "07:45", "09:55", 679, 99.0, 149.0, 219.0, 10000, landed=True),
        _flight("AU210-1124", "BOS", "ORD", "2026-11-24", "08:00", "09:55", 867, 129.0, 189.0, 279.0, 12000, landed=True),
        _flight("AU211-1127", "ORD", "BOS", "2026-11-27", "11:15", "14:40", 867, 139.0, 199.0, 289.0, 12000, landed=True),
        _flight("AU512-1126", "JFK", "MIA", "2026-11-26", "09:30", "12:45", 1089, 179.0, 249.0, 349.0, 15000, landed=True),
    ]
    bookings = [
        _booking("PNR-K7Q2MA", "TRV-101", ["Nora Haddad"], "standard", [("AU210-1210", ["14B"])], "2026-11-20T10:00", "PM-4421", 189.0),
        _booking("PNR-R4T8VX", "TRV-101", ["Nora Haddad"], "basic", [("AU214-1212", [""])], "2026-11-22T19:40", "PM-4421", 139.0),
        _booking("PNR-M3ZP9D", "TRV-102", ["Omar Haddad"], "flexible", [("AU211-1214", ["12C"])], "2026-11-18T08:30", "PM-3307", 289.0),
        _booking("PNR-F8WL2C", "TRV-103", ["Grace Liu", "Wei Liu"], "standard", [("AU330-1205", ["21D", "21F"])], "2026-11-30T09:10", "PM-7788", 298.0),
        _booking("PNR-B6HN4S", "TRV-104", ["Samuel Okoye"], "basic", [("AU512-1218", [""]), ("AU513-1227", [""])], "2026-11-29T16:00", "PM-1264", 368.0),
        _booking("PNR-T2JD7E", "TRV-105", ["Elena Petrova", "Ivan Petrov", "Mila Petrova"], "flexible", [("AU720-1208", ["12A", "12B", "12C"])], "2026-11-10T12:00", "PM-5550", 687.0),
        _booking("PNR-Q9YC5G", "TRV-106", ["Marcus Bell"], "standard", [("AU334-1205", ["14A"])], "2026-11-29T15:00", "PM-8842", 139.0),
        _booking("PNR-W5AK3N", "TRV-107", ["Ines Duarte"], "basic", [("AU512-1220", [""])], "2026-11-15T11:25", "PM-2290", 199.0),
        _booking("PNR-H1LX8P", "TRV-101", ["Nora Haddad"], "standard", [("AU330-1120", ["14C"])], "2026-11-02T09:00", "PM-9015", 149.0),
        _booking("PNR-D4VE6R", "TRV-101", ["Nora Haddad"], "standard", [("AU211-1127", ["12A"])], "2026-11-03T09:00", "PM-4421", 199.0, credited=True),
        _booking("PNR-N8GS2U", "TRV-108", ["Kenji Watanabe"], "flexible", [("AU210-1124", ["12B"]), ("AU211-1127", ["14A"])], "2026-11-01T14:00", "PM-4713", 568.0),
        _booking("PNR-C3PF7K", "TRV-108", ["Kenji Watanabe"], "standard", [("AU720-1209", ["14C"])], "2026-11-01T14:30", "PM-4713", 149.0),
        _booking("PNR-V6RM1B", "TRV-105", ["Elena Petrova"], "standard", [("AU512-1218", ["21D"])], "2026-11-05T17:00", "PM-6061", 249.0),
        _booking("PNR-E2KU9W", "TRV-106", ["Marcus Bell"], "flexible", [("AU330-1206", ["12B"])], "2026-11-12T07:20", "PM-8842", 239.0),
        _booking("PNR-Z0CX4L", "TRV-103", ["Grace Liu"], "standard", [("AU331-1207", ["12A"])], "2026-11-08T13:00", "PM-7788", 159.0, status="cancelled"),
        _booking("PNR-J5UB2Y", "TRV-104", ["Samuel Okoye"], "standard", [("AU512-1126", ["14A"])], "2026-11-10T10:00", "PM-1264", 249.0),
    ]
    # The 2026-11-27 return of Kenji's round trip was credited; the outbound was not.
    bookings[10].segments[1].miles_credited = True
    flight_map = {f.flight_id: f for f in flights}
    for booking in bookings:
        for segment in booking.segments:
            free = flight_map[segment.flight_id].free_seats[segment.cabin]
            for seat in segment.seats:
                if seat in free:
                    free.remove(seat)
    hotels = [
        Hotel(hotel_id="HTL-201", name="Lakeview Hotel", city="Chicago", cancellation_hours=48, room_types={"standard": RoomType(nightly_rate=189.0, rooms_left=6), "king": RoomType(nightly_rate=229.0, rooms_left=3), "suite": RoomType(nightly_rate=349.0, rooms_left=1)}),
        Hotel(hotel_id="HTL-202", name="Riverside Inn", city="Chicago", cancellation_hours=24, room_types={"standard": RoomType(nightly_rate=149.0, rooms_left=4), "king": RoomType(nightly_rate=179.0, rooms_left=0)}),
        Hotel(hotel_id="HTL-203", name="Bayfront Suites", city="San Francisco", cancellation_hours=72, room_types={"king": RoomType(nightly_rate=279.0, rooms_left=2), "suite": RoomType(nightly_rate=399.0, rooms_left=1)}),
        Hotel(hotel_id="HTL-204", name="Ocean Drive Hotel", city="Miami", cancellation_hours=48, room_types={"queen": RoomType(nightly_rate=219.0, rooms_left=5), "king": RoomType(nightly_rate=259.0, rooms_left=2)}),
        Hotel(hotel_id="HTL-205", name="Congress Avenue Lodge", city="Austin", cancellation_hours=24, room_types={"standard": RoomType(nightly_rate=169.0, rooms_left=5), "family": RoomType(nightly_rate=239.0, rooms_left=2)}),
        Hotel(hotel_id="HTL-206", name="Harbor Point Hotel", city="Boston", cancellation_hours=48, room_types={"standard": RoomType(nightly_rate=199.0, rooms_left=3)}),
        Hotel(hotel_id="HTL-207", name="Golden Gate Inn", city="San Francisco", cancellation_hours=24, room_types={"standard": RoomType(nightly_rate=189.0, rooms_left=4), "king": RoomType(nightly_rate=219.0, rooms_left=2)}),
    ]
    stays = [
        HotelStay(stay_id="STAY-4001", traveller_id="TRV-101", hotel_id="HTL-201", room_type="standard", check_in="2026-12-10", check_out="2026-12-12", nights=2, nightly_rate=189.0, total=378.0, payment_method_id="PM-4421", booking_id="PNR-K7Q2MA", cancel_deadline="2026-12-08T15:00"),
        HotelStay(stay_id="STAY-4002", traveller_id="TRV-102", hotel_id="HTL-202", room_type="standard", check_in="2026-12-01", check_out="2026-12-03", nights=2, nightly_rate=149.0, total=298.0, payment_method_id="PM-3307", cancel_deadline="2026-11-30T15:00"),
        HotelStay(stay_id="STAY-4003", traveller_id="TRV-103", hotel_id="HTL-203", room_type="king", check_in="2026-12-05", check_out="2026-12-07", nights=2, nightly_rate=279.0, total=558.0, payment_method_id="PM-7788", booking_id="PNR-F8WL2C", cancel_deadline="2026-12-02T15:00"),
        HotelStay(stay_id="STAY-4004", traveller_id="TRV-105", hotel_id="HTL-205", room_type="family", check_in="2026-12-08", check_out="2026-12-11", nights=3, nightly_rate=239.0, total=717.0, payment_method_id="PM-5550", booking_id="PNR-T2JD7E", cancel_deadline="2026-12-07T15:00"),
        HotelStay(stay_id="STAY-4005", traveller_id="TRV-106", hotel_id="HTL-207", room_type="standard", check_in="2026-12-01", check_out="2026-12-02", nights=1, nightly_rate=189.0, total=189.0, payment_method_id="PM-8842", cancel_deadline="2026-11-30T15:00"),
        HotelStay(stay_id="STAY-4006", traveller_id="TRV-104", hotel_id="HTL-204", room_type="queen", check_in="2026-12-01", check_out="2026-12-04", nights=3, nightly_rate=219.0, total=657.0, payment_method_id="PM-1264", cancel_deadline="2026-11-29T15:00"),
        HotelStay(stay_id="STAY-4007", traveller_id="TRV-101", hotel_id="HTL-206", room_type="standard", check_in="2026-12-14", check_out="2026-12-16", nights=2, nightly_rate=199.0, total=398.0, payment_method_id="PM-9015", cancel_deadline="2026-12-12T15:00"),
    ]
    return TravelState(
        travellers={t.traveller_id: t for t in travellers},
        loyalty_accounts={a.loyalty_id: a for a in loyalty},
        flights={f.flight_id: f for f in flights},
        bookings={b.booking_id: b for b in bookings},
        hotels={h.hotel_id: h for h in hotels},
        hotel_stays={s.stay_id: s for s in stays},
    )
