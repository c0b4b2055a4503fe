"""Travel tools: plain business logic over `TravelState`.

Every rule that can refuse raises `Refusal` with a status code and a reason before anything is
written; unknown ids raise `InvalidCall`. Amounts are US dollars rounded to cents, miles are integers.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date, datetime, timedelta
from typing import Annotated, Any

from pydantic import Field

from servers.base import CaseFolded, Date, FreeText, InvalidCall, Money, NonBlank, Refusal, ToolEnvironment, Trimmed, UpperCode, tool
from servers.domains.travel.world import (
    Booking,
    BookingPayment,
    FareClass,
    Flight,
    Hotel,
    HotelStay,
    Refund,
    Segment,
    Traveller,
    TravelCredit,
    TravelState,
    default_travel_state,
)

TravellerId = Annotated[NonBlank[str], Field(description="Traveller profile id, e.g. TRV-101.")]
BookingId = Annotated[NonBlank[str], Field(description="Booking locator, e.g. PNR-K7Q2MA.")]
FlightId = Annotated[NonBlank[str], Field(description="Flight id: flight number and departure month/day, e.g. AU210-1210.")]
PaymentMethodId = Annotated[NonBlank[str], Field(description="A payment method id from the traveller's profile, e.g. PM-4421.")]
StayId = Annotated[NonBlank[str], Field(description="Hotel stay id, e.g. STAY-4001.")]
PassengerName = Annotated[NonBlank[str], Field(description="The passenger's full name exactly as on the booking.")]

BAG_FEE = 40.0
MAX_BAGS_PER_PASSENGER = 3
FREE_CANCELLATION_HOURS = 24
HOTEL_CHECK_IN_TIME = "15:00"
MAX_STAY_NIGHTS = 30
"""The longest hotel stay the desk books (partner hotels' long-stay limit)."""
HOTEL_BOOKING_HORIZON_DAYS = 365
"""Partner hotels take reservations at most this many days ahead of check-in."""

FARE_RULES: dict[str, dict[str, Any]] = {
    "basic": {
        "changes": "not allowed (no flight, date or seat changes, no upgrades)",
        "cancellation_after_24h": "no refund and no travel credit",
        "seat_selection": "not available; seats are assigned at check-in",
    },
    "standard": {
        "changes": "allowed without a change fee; the fare difference is charged, or returned as travel credit",
        "cancellation_after_24h": "the full amount paid becomes travel credit",
        "seat_selection": "free",
    },
    "flexible": {
        "changes": "allowed without a change fee; the fare difference is charged, or refunded to the original payment method",
        "cancellation_after_24h": "full refund to the original payment method",
        "seat_selection": "free",
    },
}


def _cents(value: float) -> float:
    return round(value + 0.0, 2)


def _parse(stamp: str) -> datetime:
    return datetime.fromisoformat(stamp)


def _person(name: str) -> str:
    """The identity of a passenger name: case and spacing carry no meaning ("ana  RUIZ" is Ana Ruiz)."""
    return " ".join(name.split()).casefold()


class TravelEnvironment(ToolEnvironment[TravelState]):
    """Meridian Travel desk: Aurora Air flights, bookings, changes, cancellations, hotels and Aurora Miles."""

    domain = "travel"
    state_model = TravelState

    @classmethod
    def default_state(cls) -> TravelState:
        return default_travel_state()

    @classmethod
    def mutation_probes(cls, override: Mapping[str, Any] | None = None) -> list[tuple[str, list[Any]]]:
        return travel_probes(cls.initial_state(override))

    # ---- lookups -------------------------------------------------------------------------------
    def _traveller(self, traveller_id: str) -> Traveller:
        traveller = self.state.travellers.get(traveller_id)
        if traveller is None:
            raise InvalidCall(f"Unknown traveller id {traveller_id!r}.")
        return traveller

    def _booking(self, booking_id: str) -> Booking:
        booking = self.state.bookings.get(booking_id)
        if booking is None:
            raise InvalidCall(f"Unknown booking {booking_id!r}.")
        return booking

    def _flight(self, flight_id: str) -> Flight:
        flight = self.state.flights.get(flight_id)
        if flight is None:
            raise InvalidCall(f"Unknown flight id {flight_id!r}.")
        return flight

    def _hotel(self, hotel_id: str) -> Hotel:
        hotel = self.state.hotels.get(hotel_id)
        if hotel is None:
            raise InvalidCall(f"Unknown hotel id {hotel_id!r}.")
        return hotel

    def _stay(self, stay_id: str) -> HotelStay:
        stay = self.state.hotel_stays.get(stay_id)
        if stay is None:
            raise InvalidCall(f"Unknown hotel stay {stay_id!r}.")
        return stay

    def _segment(self, booking: Booking, flight_id: str) -> Segment:
        for segment in booking.segments:
            if segment.flight_id == flight_id:
                return segment
        raise InvalidCall(f"Flight {flight_id!r} is not part of booking {booking.booking_id}.")

    def _passenger_index(self, booking: Booking, passenger_name: str) -> int:
        if passenger_name not in booking.passengers:
            raise InvalidCall(f"{passenger_name!r} is not a passenger on booking {booking.booking_id} (passengers: {', '.join(booking.passengers)}).")
        return booking.passengers.index(passenger_name)

    def _require_confirmed(self, booking: Booking) -> None:
        if booking.status != "confirmed":
            raise Refusal(409, "The booking is cancelled", booking_id=booking.booking_id)

    def _require_profile_method(self, traveller_id: str, payment_method_id: str | None) -> str:
        traveller = self._traveller(traveller_id)
        if not payment_method_id or payment_method_id not in traveller.payment_methods:
            raise Refusal(
                403,
                "Payment must use a method on the traveller's profile",
                payment_method_id=payment_method_id or "",
                methods_on_profile=sorted(traveller.payment_methods),
            )
        return payment_method_id

    def _now(self) -> datetime:
        return _parse(self.state.now)

    def _hours_since_booking(self, booking: Booking) -> float:
        return (self._now() - _parse(booking.booked_at)).total_seconds() / 3600

    def _seats_left(self, flight: Flight, cabin: str) -> int:
        """Seats still sellable in a cabin: the free seat labels minus the booked passengers who hold a
        place in that cabin without a seat assigned yet (a booking takes its places when it is made, seats
        are chosen later; a cancelled booking or a moved segment no longer holds them)."""
        held = sum(
            1
            for b in self.state.bookings.values()
            if b.status == "confirmed"
            for s in b.segments
            if s.flight_id == flight.flight_id and s.cabin == cabin
            for seat in s.seats
            if not seat
        )
        return max(0, len(flight.free_seats[cabin]) - held)

    def _release_seats(self, segment: Segment) -> None:
        flight = self.state.flights.get(segment.flight_id)
        if flight is None:
            return
        for seat in segment.seats:
            if seat and seat not in flight.free_seats[segment.cabin]:
                flight.free_seats[segment.cabin].append(seat)

    def _change_quote(self, booking: Booking, flight_id: str, new_flight_id: str) -> tuple[float, Refusal | None]:
        segment = self._segment(booking, flight_id)
        old = self._flight(segment.flight_id)
        new = self._flight(new_flight_id)
        n = len(booking.passengers)
        difference = _cents((new.prices[booking.fare_class] - old.prices[booking.fare_class]) * n)
        if booking.status != "confirmed":
            return difference, Refusal(409, "The booking is cancelled", booking_id=booking.booking_id)
        if booking.fare_class == "basic":
            return difference, Refusal(403, "Basic fares cannot be changed", booking_id=booking.booking_id, fare_class="basic")
        if old.status == "landed":
            return difference, Refusal(422, "This flight has already been flown", flight_id=old.flight_id)
        if new.flight_id == old.flight_id:
            return difference, Refusal(422, "The new flight is the flight already booked", flight_id=new.flight_id)
        if (new.origin, new.destination) != (old.origin, old.destination):
            return difference, Refusal(422, "A change must keep the same route", booked_route=f"{old.origin}-{old.destination}", new_route=f"{new.origin}-{new.destination}")
        if new.status != "scheduled":
            return difference, Refusal(422, "The new flight is not open for booking", flight_id=new.flight_id)
        if segment.cabin == "business":
            return difference, Refusal(
                409,
                "This flight was upgraded to business with miles; an upgraded flight cannot be changed",
                flight_id=old.flight_id,
                cabin="business",
            )
        seats_left = self._seats_left(new, "economy")
        if seats_left < n:
            return difference, Refusal(409, "Not enough seats on the new flight", flight_id=new.flight_id, seats_left=seats_left)
        if (clash := self._passenger_clash(new.flight_id, {_person(p) for p in booking.passengers}, booking.booking_id)) is not None:
            return difference, clash
        return difference, None

    def _passenger_clash(self, flight_id: str, people: set[str], moving: str | None = None) -> Refusal | None:
        """The policy's one-passenger-one-flight rule, shared by booking and changing: a passenger already on
        `flight_id` in another confirmed booking (not `moving`, the booking being changed) cannot be put
        on it again."""
        for other in self.state.bookings.values():
            if other.booking_id == moving or other.status != "confirmed" or not any(s.flight_id == flight_id for s in other.segments):
                continue
            clash = sorted(p for p in other.passengers if _person(p) in people)
            if clash:
                return Refusal(409, "A passenger is already booked on this flight", flight_id=flight_id, booking_id=other.booking_id, passengers=clash)
        return None

    # ---- reads ---------------------------------------------------------------------------------
    @tool("read")
    def get_traveller_profile(self, traveller_id: TravellerId) -> dict[str, Any]:
        """Look up a traveller: name, email, payment methods on file, loyalty number, bookings and hotel stays."""
        t = self._traveller(traveller_id)
        return {
            "traveller_id": t.traveller_id,
            "name": t.name,
            "email": t.email,
            "loyalty_id": t.loyalty_id,
            "payment_methods": [m.model_dump(mode="json") for m in t.payment_methods.values()],
            "bookings": [b.booking_id for b in self.state.bookings.values() if b.traveller_id == traveller_id],
            "hotel_stays": [s.stay_id for s in self.state.hotel_stays.values() if s.traveller_id == traveller_id],
        }

    @tool("read")
    def get_booking(self, booking_id: BookingId) -> dict[str, Any]:
        """Look up a flight booking: passengers, fare class, flights with seats and cabin, bags, status,
        when it was booked, what was paid, and whether each flown segment has earned its miles."""
        b = self._booking(booking_id)
        segments = []
        for s in b.segments:
            f = self.state.flights.get(s.flight_id)
            segments.append(
                {
                    **s.model_dump(mode="json"),
                    "route": f"{f.origin}-{f.destination}" if f else "",
                    "date": f.date if f else "",
                    "departs": f.departs if f else "",
                    "flight_status": f.status if f else "",
                }
            )
        return {**b.model_dump(mode="json"), "segments": segments, "hours_since_booking": round(self._hours_since_booking(b), 1)}

    @tool("read")
    def search_flights(
        self,
        origin: Annotated[NonBlank[UpperCode], Field(description="Three-letter airport code, e.g. BOS.")],
        destination: Annotated[NonBlank[UpperCode], Field(description="Three-letter airport code, e.g. ORD.")],
        date: Annotated[Date, Field(description="Departure date, YYYY-MM-DD.")],
    ) -> dict[str, Any]:
        """Find scheduled Aurora Air flights on a route and date, with per-passenger prices by fare class
        (basic, standard, flexible), economy and business seats left, and the miles needed to upgrade."""
        found = [
            {
                "flight_id": f.flight_id,
                "flight_number": f.flight_number,
                "origin": f.origin,
                "destination": f.destination,
                "date": f.date,
                "departs": f.departs,
                "arrives": f.arrives,
                "prices": f.prices,
                "economy_seats_left": self._seats_left(f, "economy"),
                "business_seats_left": self._seats_left(f, "business"),
                "upgrade_miles": f.upgrade_miles,
            }
            for f in self.state.flights.values()
            if f.origin == origin.upper() and f.destination == destination.upper() and f.date == date and f.status == "scheduled"
        ]
        return {"flights": found}

    @tool("read")
    def get_flight(self, flight_id: FlightId) -> dict[str, Any]:
        """Look up one flight: schedule, status (scheduled or landed), prices, distance, the free seats by
        cabin (seat labels one can choose) and the seats left to sell by cabin."""
        flight = self._flight(flight_id)
        return {**flight.model_dump(mode="json"), "seats_left": {cabin: self._seats_left(flight, cabin) for cabin in flight.free_seats}}

    @tool("read")
    def get_fare_rules(self, fare_class: Annotated[FareClass, Field(description="basic, standard or flexible.")]) -> dict[str, Any]:
        """The rules of a fare class: changes, cancellation after the 24-hour window, seat selection.
        Any booking can be cancelled for a full refund within 24 hours of being booked."""
        return {"fare_class": fare_class, **FARE_RULES[fare_class], "free_cancellation_window_hours": FREE_CANCELLATION_HOURS}

    @tool("read")
    def get_loyalty_account(self, traveller_id: TravellerId) -> dict[str, Any]:
        """A traveller's Aurora Miles account: loyalty number, tier (blue, silver, gold) and miles balance.
        Gold members check their first bag free on every booking."""
        t = self._traveller(traveller_id)
        return self.state.loyalty_accounts[t.loyalty_id].model_dump(mode="json")

    @tool("read")
    def search_hotels(
        self,
        city: Annotated[NonBlank[CaseFolded], Field(description="City name, e.g. Chicago.")],
        check_in: Annotated[Date, Field(description="Check-in date, YYYY-MM-DD.")],
        check_out: Annotated[Date, Field(description="Check-out date, YYYY-MM-DD.")],
    ) -> dict[str, Any]:
        """Find partner hotels in a city with room types, nightly rates, rooms left, and the free-cancellation
        deadline that would apply to a stay with this check-in date."""
        nights = self._nights(check_in, check_out)
        found = []
        for h in self.state.hotels.values():
            if h.city.lower() != city.strip().lower():
                continue
            found.append(
                {
                    "hotel_id": h.hotel_id,
                    "name": h.name,
                    "city": h.city,
                    "room_types": {k: v.model_dump(mode="json") for k, v in h.room_types.items()},
                    "nights": nights,
                    "free_cancellation_until": self._deadline(h, check_in),
                }
            )
        return {"hotels": found}

    @tool("read")
    def get_hotel_stay(self, stay_id: StayId) -> dict[str, Any]:
        """Look up a hotel stay: hotel, room, dates, nightly rate, total, status and free-cancellation deadline."""
        stay = self._stay(stay_id)
        hotel = self._hotel(stay.hotel_id)
        return {**stay.model_dump(mode="json"), "hotel_name": hotel.name, "city": hotel.city, "deadline_passed": self._now() > _parse(stay.cancel_deadline)}

    # ---- compute -------------------------------------------------------------------------------
    @tool("compute")
    def quote_flight_change(self, booking_id: BookingId, flight_id: FlightId, new_flight_id: FlightId) -> dict[str, Any]:
        """Quote moving a booking's flight to another flight on the same route, without changing anything.
        Returns allowed/reason and the total fare difference for all passengers (positive: the customer
        pays; negative: returned). The customer must accept the quoted amount before change_flight."""
        booking = self._booking(booking_id)
        difference, problem = self._change_quote(booking, flight_id, new_flight_id)
        if problem is not None:
            return {"allowed": False, "reason": problem.reason, "status": problem.code, **problem.details}
        settlement = "charge" if difference > 0 else ("none" if difference == 0 else ("travel_credit" if booking.fare_class == "standard" else "refund"))
        return {
            "allowed": True,
            "booking_id": booking_id,
            "flight_id": flight_id,
            "new_flight_id": new_flight_id,
            "passengers": len(booking.passengers),
            "fare_difference": difference,
            "settlement": settlement,
        }

    @tool("compute")
    def quote_cancellation(self, booking_id: BookingId) -> dict[str, Any]:
        """What cancelling a booking would return, without cancelling: full refund within 24 hours of
        booking; after that by fare class (basic nothing, standard travel credit, flexible refund)."""
        booking = self._booking(booking_id)
        if booking.status != "confirmed":
            return {"allowed": False, "reason": "The booking is cancelled", "status": 409}
        if any(self._flight(s.flight_id).status == "landed" for s in booking.segments):
            return {"allowed": False, "reason": "A flight of this booking has already been flown", "status": 422}
        outcome, amount = self._cancellation_outcome(booking)
        quote: dict[str, Any] = {"allowed": True, "booking_id": booking_id, "outcome": outcome, "amount": amount, "hours_since_booking": round(self._hours_since_booking(booking), 1)}
        miles_back = self._upgrade_miles_spent(booking)
        if miles_back:
            quote["upgrade_miles_returned"] = miles_back
        return quote

    def _upgrade_miles_spent(self, booking: Booking) -> int:
        """Miles the owner spent on upgrades of this booking's (unflown) flights.

        The desk sells economy only, so a business segment exists only through `redeem_miles_upgrade`,
        which costs the flight's fixed `upgrade_miles` per passenger; an upgraded flight cannot be changed.
        The spend is therefore exactly upgrade_miles x passengers for each business segment."""
        return sum(
            self._flight(s.flight_id).upgrade_miles * len(booking.passengers)
            for s in booking.segments
            if s.cabin == "business" and self._flight(s.flight_id).status != "landed"
        )

    def _cancellation_outcome(self, booking: Booking) -> tuple[str, float]:
        if self._hours_since_booking(booking) <= FREE_CANCELLATION_HOURS:
            return "refund", booking.total_paid
        if booking.fare_class == "basic":
            return "none", 0.0
        if booking.fare_class == "standard":
            return "travel_credit", booking.total_paid
        return "refund", booking.total_paid

    # ---- flight booking ------------------------------------------------------------------------
    @tool("write")
    def book_flight(
        self,
        traveller_id: TravellerId,
        flight_id: FlightId,
        fare_class: Annotated[FareClass, Field(description="basic, standard or flexible.")],
        passengers: Annotated[list[NonBlank[Trimmed]], Field(description="Full names of every passenger, as on their ID; the traveller first if flying.")],
        payment_method_id: PaymentMethodId,
    ) -> dict[str, Any]:
        """Book economy seats on one flight for one or more passengers and charge the total fare
        (price of the fare class x passengers) to a payment method on the traveller's profile.
        Seats are unassigned until chosen with change_seat, but the booking takes its places at once:
        refused when fewer economy places are left than passengers, or when a passenger (names compared
        ignoring case and spacing) is already booked on this flight."""
        self._traveller(traveller_id)
        flight = self._flight(flight_id)
        names = [p.strip() for p in passengers]
        if not names or any(not p for p in names) or len(names) > 6:
            raise Refusal(422, "Between one and six named passengers are required")
        people = {_person(p) for p in names}
        if len(people) != len(names):
            raise Refusal(422, "A passenger is listed twice")
        if flight.status != "scheduled":
            raise Refusal(422, "This flight is not open for booking", flight_id=flight_id)
        seats_left = self._seats_left(flight, "economy")
        if seats_left < len(names):
            raise Refusal(409, "Not enough economy seats left on this flight", flight_id=flight_id, seats_left=seats_left)
        if (clash := self._passenger_clash(flight_id, people)) is not None:
            raise clash
        method = self._require_profile_method(traveller_id, payment_method_id)
        total = _cents(flight.prices[fare_class] * len(names))
        booking = Booking(
            booking_id=self.ids.mint("PNR"),
            traveller_id=traveller_id,
            passengers=names,
            fare_class=fare_class,
            segments=[Segment(flight_id=flight_id, seats=[""] * len(names))],
            bags=[0] * len(names),
            booked_at=self.state.now,
            payment_method_id=method,
            total_paid=total,
            payments=[BookingPayment(kind="charge", amount=total, payment_method_id=method, note="original booking")],
        )
        self.state.bookings[booking.booking_id] = booking
        return {"booking_id": booking.booking_id, "status": "confirmed", "flight_id": flight_id, "fare_class": fare_class, "passengers": names, "total_charged": total, "payment_method_id": method}

    # ---- booking changes -----------------------------------------------------------------------
    @tool("write")
    def change_flight(
        self,
        booking_id: BookingId,
        flight_id: Annotated[NonBlank[str], Field(description="The booked flight being replaced, e.g. AU210-1210.")],
        new_flight_id: Annotated[NonBlank[str], Field(description="The flight to move to (same route), e.g. AU214-1210.")],
        accepted_fare_difference: Annotated[Money, Field(description="The total fare difference the customer accepted, exactly as quote_flight_change returned it (negative when money comes back; 0 when none).")],
        payment_method_id: Annotated[NonBlank[str] | None, Field(description="Profile payment method that pays a positive fare difference; not needed otherwise.")] = None,
    ) -> dict[str, Any]:
        """Move a booking from one flight to another on the same route (a date or time change) for all
        passengers. Basic fares are refused. A positive fare difference is charged to a profile payment
        method; a negative one becomes travel credit (standard) or a refund (flexible). Seats are released
        and must be chosen again. A flight upgraded to business with miles cannot be changed (409)."""
        booking = self._booking(booking_id)
        difference, problem = self._change_quote(booking, flight_id, new_flight_id)
        if problem is not None:
            raise problem
        if abs(difference - accepted_fare_difference) > 1e-6:
            raise Refusal(409, "The fare difference was not quoted and accepted as given", fare_difference=difference, accepted_fare_difference=accepted_fare_difference)
        method = None
        if difference > 0:
            method = self._require_profile_method(booking.traveller_id, payment_method_id)
        segment = self._segment(booking, flight_id)
        self._release_seats(segment)
        segment.flight_id = new_flight_id
        segment.cabin = "economy"
        segment.seats = [""] * len(booking.passengers)
        settlement: dict[str, Any] = {"fare_difference": difference}
        if difference > 0:
            assert method is not None
            booking.payments.append(BookingPayment(kind="charge", amount=difference, payment_method_id=method, note=f"fare difference {flight_id} -> {new_flight_id}"))
            booking.total_paid = _cents(booking.total_paid + difference)
            settlement["charged_to"] = method
        elif difference < 0:
            back = _cents(-difference)
            booking.total_paid = _cents(booking.total_paid - back)
            if booking.fare_class == "standard":
                credit = TravelCredit(credit_id=self.ids.mint("CR"), traveller_id=booking.traveller_id, booking_id=booking_id, amount=back)
                self.state.travel_credits[credit.credit_id] = credit
                booking.payments.append(BookingPayment(kind="travel_credit", amount=back, note=credit.credit_id))
                settlement["travel_credit_id"] = credit.credit_id
            else:
                refund = Refund(refund_id=self.ids.mint("RF"), booking_id=booking_id, payment_method_id=booking.payment_method_id, amount=back)
                self.state.refunds[refund.refund_id] = refund
                booking.payments.append(BookingPayment(kind="refund", amount=back, payment_method_id=booking.payment_method_id, note=refund.refund_id))
                settlement["refund_id"] = refund.refund_id
        return {"booking_id": booking_id, "status": "changed", "flight_id": new_flight_id, **settlement, "total_paid": booking.total_paid}

    @tool("write")
    def change_seat(self, booking_id: BookingId, flight_id: FlightId, passenger_name: PassengerName, seat: Annotated[NonBlank[str], Field(description="A free seat in the booked cabin, e.g. 14A.")]) -> dict[str, Any]:
        """Assign or change one passenger's seat on one flight of a booking. The seat must be free in the
        booked cabin. Basic fares cannot select or change seats."""
        booking = self._booking(booking_id)
        self._require_confirmed(booking)
        segment = self._segment(booking, flight_id)
        index = self._passenger_index(booking, passenger_name)
        if booking.fare_class == "basic":
            raise Refusal(403, "Basic fares cannot select or change seats", booking_id=booking_id, fare_class="basic")
        flight = self._flight(flight_id)
        if flight.status == "landed":
            raise Refusal(422, "This flight has already been flown", flight_id=flight_id)
        free = flight.free_seats[segment.cabin]
        if seat not in free:
            raise Refusal(409, "That seat is not available", seat=seat, cabin=segment.cabin, free_seats=list(free))
        old = segment.seats[index]
        free.remove(seat)
        if old:
            free.append(old)
        segment.seats[index] = seat
        return {"booking_id": booking_id, "flight_id": flight_id, "passenger_name": passenger_name, "seat": seat, "previous_seat": old}

    @tool("write")
    def add_bags(
        self,
        booking_id: BookingId,
        passenger_name: PassengerName,
        bags: Annotated[int, Field(ge=1, le=3, description="How many checked bags to add for this passenger.")],
        payment_method_id: PaymentMethodId,
    ) -> dict[str, Any]:
        """Add checked bags for one passenger: $40 per bag, at most 3 per passenger. For gold members'
        bookings the passenger's first checked bag is free. Charged to a profile payment method."""
        booking = self._booking(booking_id)
        self._require_confirmed(booking)
        index = self._passenger_index(booking, passenger_name)
        if any(self._flight(s.flight_id).status == "landed" for s in booking.segments):
            raise Refusal(422, "Bags cannot be added to a booking with a flown flight", booking_id=booking_id)
        if bags < 1 or booking.bags[index] + bags > MAX_BAGS_PER_PASSENGER:
            raise Refusal(422, "At most 3 checked bags per passenger", passenger_name=passenger_name, bags_already=booking.bags[index])
        method = self._require_profile_method(booking.traveller_id, payment_method_id)
        owner = self.state.travellers[booking.traveller_id]
        gold = self.state.loyalty_accounts[owner.loyalty_id].tier == "gold"
        chargeable = bags - (1 if gold and booking.bags[index] == 0 else 0)
        fee = _cents(BAG_FEE * chargeable)
        booking.bags[index] += bags
        if fee > 0:
            booking.payments.append(BookingPayment(kind="charge", amount=fee, payment_method_id=method, note=f"{bags} bag(s) for {passenger_name}"))
            booking.total_paid = _cents(booking.total_paid + fee)
        return {"booking_id": booking_id, "passenger_name": passenger_name, "bags": booking.bags[index], "fee_charged": fee, "payment_method_id": method}

    @tool("write")
    def update_passenger_name(self, booking_id: BookingId, passenger_name: PassengerName, new_name: Annotated[NonBlank[str], Field(description="The requested new name.")]) -> dict[str, Any]:
        """Request a change of a passenger's name on a booking. Aurora Air does not allow passenger name
        changes or transfers of tickets to another person: this is always refused."""
        booking = self._booking(booking_id)
        self._passenger_index(booking, passenger_name)
        raise Refusal(403, "Passenger names cannot be changed", booking_id=booking_id, passenger_name=passenger_name)

    # ---- cancellations -------------------------------------------------------------------------
    @tool("write")
    def cancel_booking(self, booking_id: BookingId, reason: Annotated[Trimmed, Field(description="The customer's reason, in a few words."), FreeText] = "") -> dict[str, Any]:
        """Cancel a whole booking. Within 24 hours of booking: full refund to the original payment method.
        After that by fare class: basic gets nothing back, standard gets the amount paid as travel credit,
        flexible gets a full refund. Bookings with a flown flight cannot be cancelled. Miles spent on
        upgrades of the booking go back to the owner's miles account."""
        booking = self._booking(booking_id)
        self._require_confirmed(booking)
        if any(self._flight(s.flight_id).status == "landed" for s in booking.segments):
            raise Refusal(422, "A flight of this booking has already been flown", booking_id=booking_id)
        outcome, amount = self._cancellation_outcome(booking)
        miles_back = self._upgrade_miles_spent(booking)
        for segment in booking.segments:
            self._release_seats(segment)
        booking.status = "cancelled"
        result: dict[str, Any] = {"booking_id": booking_id, "status": "cancelled", "outcome": outcome, "amount": amount}
        if miles_back:
            account = self.state.loyalty_accounts[self.state.travellers[booking.traveller_id].loyalty_id]
            account.miles += miles_back
            result.update(upgrade_miles_returned=miles_back, miles_balance=account.miles)
        if outcome == "refund":
            refund = Refund(refund_id=self.ids.mint("RF"), booking_id=booking_id, payment_method_id=booking.payment_method_id, amount=amount)
            self.state.refunds[refund.refund_id] = refund
            booking.payments.append(BookingPayment(kind="refund", amount=amount, payment_method_id=booking.payment_method_id, note=refund.refund_id))
            result.update(refund_id=refund.refund_id, refunded_to=booking.payment_method_id)
        elif outcome == "travel_credit":
            credit = TravelCredit(credit_id=self.ids.mint("CR"), traveller_id=booking.traveller_id, booking_id=booking_id, amount=amount)
            self.state.travel_credits[credit.credit_id] = credit
            booking.payments.append(BookingPayment(kind="travel_credit", amount=amount, note=credit.credit_id))
            result["travel_credit_id"] = credit.credit_id
        return result

    # ---- hotels --------------------------------------------------------------------------------
    def _nights(self, check_in: str, check_out: str) -> int:
        try:
            start, end = date.fromisoformat(check_in), date.fromisoformat(check_out)
        except ValueError:
            raise InvalidCall("Dates must be YYYY-MM-DD.") from None
        return (end - start).days

    def _deadline(self, hotel: Hotel, check_in: str) -> str:
        start = datetime.fromisoformat(f"{check_in}T{HOTEL_CHECK_IN_TIME}")
        return (start - timedelta(hours=hotel.cancellation_hours)).strftime("%Y-%m-%dT%H:%M")

    @tool("write")
    def book_hotel(
        self,
        traveller_id: TravellerId,
        hotel_id: Annotated[NonBlank[str], Field(description="Hotel id from search_hotels, e.g. HTL-201.")],
        room_type: Annotated[NonBlank[str], Field(description="Room type offered by the hotel, e.g. standard, king.")],
        check_in: Annotated[Date, Field(description="Check-in date, YYYY-MM-DD.")],
        check_out: Annotated[Date, Field(description="Check-out date, YYYY-MM-DD.")],
        payment_method_id: PaymentMethodId,
        booking_id: Annotated[Trimmed, Field(description="Optional flight booking this stay belongs to, e.g. PNR-K7Q2MA.")] = "",
    ) -> dict[str, Any]:
        """Book one hotel room for a traveller and charge nightly rate x nights to a profile payment method.
        Optionally link it to one of the traveller's flight bookings. Stays are 1 to 30 nights, with
        check-in not in the past and at most 365 days ahead (422)."""
        self._traveller(traveller_id)
        hotel = self._hotel(hotel_id)
        room = hotel.room_types.get(room_type)
        if room is None:
            raise InvalidCall(f"{hotel.name} has no room type {room_type!r} (has: {', '.join(hotel.room_types)}).")
        nights = self._nights(check_in, check_out)
        if nights < 1:
            raise Refusal(422, "Check-out must be after check-in")
        if check_in < self.state.now[:10]:
            raise Refusal(422, "Check-in cannot be in the past")
        if nights > MAX_STAY_NIGHTS:
            raise Refusal(422, f"A hotel stay is at most {MAX_STAY_NIGHTS} nights", nights=nights, max_nights=MAX_STAY_NIGHTS)
        horizon = (date.fromisoformat(self.state.now[:10]) + timedelta(days=HOTEL_BOOKING_HORIZON_DAYS)).isoformat()
        if check_in > horizon:
            raise Refusal(422, f"Hotels take reservations at most {HOTEL_BOOKING_HORIZON_DAYS} days ahead", latest_check_in=horizon)
        if booking_id:
            booking = self._booking(booking_id)
            if booking.traveller_id != traveller_id:
                raise Refusal(422, "The flight booking belongs to another traveller", booking_id=booking_id)
        for other in self.state.hotel_stays.values():
            if other.traveller_id == traveller_id and other.hotel_id == hotel_id and other.status == "confirmed" and other.check_in < check_out and check_in < other.check_out:
                raise Refusal(409, "The traveller already has a stay at this hotel on these dates", stay_id=other.stay_id)
        if room.rooms_left < 1:
            raise Refusal(409, "No rooms of this type are left", hotel_id=hotel_id, room_type=room_type)
        method = self._require_profile_method(traveller_id, payment_method_id)
        room.rooms_left -= 1
        stay = HotelStay(
            stay_id=self.ids.mint("STAY"),
            traveller_id=traveller_id,
            hotel_id=hotel_id,
            room_type=room_type,
            check_in=check_in,
            check_out=check_out,
            nights=nights,
            nightly_rate=room.nightly_rate,
            total=_cents(room.nightly_rate * nights),
            payment_method_id=method,
            booking_id=booking_id,
            cancel_deadline=self._deadline(hotel, check_in),
        )
        self.state.hotel_stays[stay.stay_id] = stay
        return {"stay_id": stay.stay_id, "status": "confirmed", "hotel": hotel.name, "nights": nights, "total": stay.total, "free_cancellation_until": stay.cancel_deadline}

    @tool("write")
    def cancel_hotel_stay(self, stay_id: StayId) -> dict[str, Any]:
        """Cancel a hotel stay. Free until its cancellation deadline; after the deadline one night's rate is charged."""
        stay = self._stay(stay_id)
        if stay.status != "confirmed":
            raise Refusal(409, "The stay is already cancelled", stay_id=stay_id)
        late = self._now() > _parse(stay.cancel_deadline)
        stay.status = "cancelled"
        stay.cancellation_fee = stay.nightly_rate if late else 0.0
        room = self.state.hotels[stay.hotel_id].room_types.get(stay.room_type)
        if room is not None:
            room.rooms_left += 1
        return {"stay_id": stay_id, "status": "cancelled", "cancellation_fee": stay.cancellation_fee, "refunded": _cents(stay.total - stay.cancellation_fee)}

    # ---- loyalty -------------------------------------------------------------------------------
    @tool("write")
    def redeem_miles_upgrade(self, booking_id: BookingId, flight_id: FlightId) -> dict[str, Any]:
        """Upgrade every passenger of a booking to business on one flight, paid with the booking owner's
        miles (the flight's upgrade_miles per passenger). Refused for basic fares, without enough miles,
        or without enough free business seats. Business seats are assigned automatically. An upgraded flight
        cannot be changed afterwards; cancelling the booking returns the miles of its upgrades."""
        booking = self._booking(booking_id)
        self._require_confirmed(booking)
        segment = self._segment(booking, flight_id)
        flight = self._flight(flight_id)
        if booking.fare_class == "basic":
            raise Refusal(403, "Basic fares are not eligible for upgrades", booking_id=booking_id, fare_class="basic")
        if flight.status == "landed":
            raise Refusal(422, "This flight has already been flown", flight_id=flight_id)
        if segment.cabin == "business":
            raise Refusal(409, "This flight is already in business", flight_id=flight_id)
        n = len(booking.passengers)
        if len(flight.free_seats["business"]) < n:
            raise Refusal(409, "Not enough business seats left", flight_id=flight_id, business_seats_left=len(flight.free_seats["business"]))
        account = self.state.loyalty_accounts[self.state.travellers[booking.traveller_id].loyalty_id]
        cost = flight.upgrade_miles * n
        if account.miles < cost:
            raise Refusal(422, "Not enough miles for this upgrade", miles_needed=cost, miles_balance=account.miles)
        self._release_seats(segment)
        seats = flight.free_seats["business"][:n]
        flight.free_seats["business"] = flight.free_seats["business"][n:]
        segment.cabin = "business"
        segment.seats = seats
        account.miles -= cost
        return {"booking_id": booking_id, "flight_id": flight_id, "cabin": "business", "seats": seats, "miles_redeemed": cost, "miles_balance": account.miles}

    @tool("write")
    def credit_missing_miles(self, booking_id: BookingId, flight_id: FlightId) -> dict[str, Any]:
        """Credit the booking owner's miles account for a flown flight that never earned its miles (the
        flight's distance in miles). Only landed flights that were not already credited qualify."""
        booking = self._booking(booking_id)
        segment = self._segment(booking, flight_id)
        flight = self._flight(flight_id)
        if flight.status != "landed" or booking.status != "confirmed":
            raise Refusal(422, "Only flown flights can earn miles", flight_id=flight_id, flight_status=flight.status)
        if segment.miles_credited:
            raise Refusal(409, "Miles for this flight were already credited", flight_id=flight_id)
        account = self.state.loyalty_accounts[self.state.travellers[booking.traveller_id].loyalty_id]
        account.miles += flight.distance_miles
        segment.miles_credited = True
        return {"booking_id": booking_id, "flight_id": flight_id, "miles_credited": flight.distance_miles, "miles_balance": account.miles, "loyalty_id": account.loyalty_id}


def travel_probes(state: TravelState) -> list[tuple[str, list[Any]]]:
    """Write sequences touching every booking, flight, stay, hotel and account of the world (for mutation tests)."""
    from contracts.schema import GoldCall

    def call(tool: str, **args: Any) -> GoldCall:
        return GoldCall(tool=tool, args=args)

    probes: list[tuple[str, list[Any]]] = []
    flights = state.flights
    for b in state.bookings.values():
        owner = state.travellers.get(b.traveller_id)
        pm = next(iter(owner.payment_methods), "") if owner else ""
        flown = any(flights[s.flight_id].status == "landed" for s in b.segments if s.flight_id in flights)
        if b.status == "confirmed" and not flown:
            probes.append((f"cancel {b.booking_id}", [call("cancel_booking", booking_id=b.booking_id, reason="probe")]))
            probes.append((f"bags on {b.booking_id}", [call("add_bags", booking_id=b.booking_id, passenger_name=b.passengers[-1], bags=1, payment_method_id=pm)]))
        for s in b.segments:
            f = flights.get(s.flight_id)
            if f is None:
                continue
            if f.status == "landed" and not s.miles_credited:
                probes.append((f"credit miles {b.booking_id}/{f.flight_id}", [call("credit_missing_miles", booking_id=b.booking_id, flight_id=f.flight_id)]))
            if b.status != "confirmed" or b.fare_class == "basic" or f.status != "scheduled":
                continue
            if f.free_seats[s.cabin]:
                probes.append((f"seat on {b.booking_id}/{f.flight_id}", [call("change_seat", booking_id=b.booking_id, flight_id=f.flight_id, passenger_name=b.passengers[0], seat=f.free_seats[s.cabin][0])]))
            account = state.loyalty_accounts.get(owner.loyalty_id) if owner else None
            n = len(b.passengers)
            if s.cabin == "economy" and account is not None and account.miles >= f.upgrade_miles * n and len(f.free_seats["business"]) >= n:
                probes.append((f"upgrade {b.booking_id}/{f.flight_id}", [call("redeem_miles_upgrade", booking_id=b.booking_id, flight_id=f.flight_id)]))
            for other in flights.values():
                if other.flight_id != f.flight_id and (other.origin, other.destination) == (f.origin, f.destination) and other.status == "scheduled" and len(other.free_seats["economy"]) >= len(b.passengers):
                    diff = round((other.prices[b.fare_class] - f.prices[b.fare_class]) * len(b.passengers), 2)
                    probes.append((f"change {b.booking_id} to {other.flight_id}", [call("change_flight", booking_id=b.booking_id, flight_id=f.flight_id, new_flight_id=other.flight_id, accepted_fare_difference=diff, payment_method_id=pm)]))
                    break
    for stay in state.hotel_stays.values():
        if stay.status == "confirmed":
            probes.append((f"cancel {stay.stay_id}", [call("cancel_hotel_stay", stay_id=stay.stay_id)]))
    for t in state.travellers.values():
        pm = next(iter(t.payment_methods), "")
        taken = {s.flight_id for b in state.bookings.values() if b.status == "confirmed" and t.name in b.passengers for s in b.segments}
        flight = next((f for f in flights.values() if f.status == "scheduled" and f.free_seats["economy"] and f.flight_id not in taken), None)
        if flight is not None:
            probes.append((f"book flight for {t.traveller_id}", [call("book_flight", traveller_id=t.traveller_id, flight_id=flight.flight_id, fare_class="standard", passengers=[t.name], payment_method_id=pm)]))
        for h in state.hotels.values():
            room = next((k for k, v in h.room_types.items() if v.rooms_left > 0), None)
            if room is not None:
                probes.append((f"hotel {h.hotel_id} for {t.traveller_id}", [call("book_hotel", traveller_id=t.traveller_id, hotel_id=h.hotel_id, room_type=room, check_in="2026-12-20", check_out="2026-12-21", payment_method_id=pm)]))
    return probes
