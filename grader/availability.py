"""Availability the replies state, checked against the world the agent saw (issue 38, item 3).

A slot time is named both when it is offered and when it is called taken, so an `absent` phrase cannot
tell a right reply from a wrong one. This family reads *whether* a reply says a slot is free or taken and
compares it with the world, at that point of the trial, as the recorded tool results showed it:

- **the world's facts** come from the trial record only, call by call: an availability read's result
  (field service: `find_available_slots` lists the bookable windows of a date - every other window of the
  day is not bookable - with the qualified technicians free in each; `get_technician_schedule` lists a
  technician's jobs and day off; travel: `search_flights` / `get_flight` give the seats left by cabin and
  the free seat labels, `search_hotels` the rooms left by room type), a refusal that says a slot is taken
  (`No qualified technician is available in that slot`, `Not enough seats on the new flight`, `No rooms
  of this type are left`, `That seat is not available`), a quote that allows a change. A write that gives
  the slot to the customer (a booking, a reschedule, an assignment, a seat) makes it *theirs*: what a
  reply says about it afterwards is a confirmation, never judged here. A reply at turn t is compared with
  the facts of the calls of turns 0..t (a turn's calls come before its reply); the latest fact wins.
- **the reply's statements** are read clause by clause with one reviewed vocabulary
  (`grader/availability_lexicon.yaml`: taken / booked up / busy / full / sold out / not available / no
  longer free / gone ... and free / open / available / has room / seats left ..., with negation, counts and
  the uses that say nothing about a slot: "free of charge", "a full refund"). Each slot the clause names
  (a window's start time, a technician, a flight and cabin, a seat label, a hotel and room type) takes the
  polarity of the nearest vocabulary phrase in its clause. A question, a condition ("if 14:00 is free")
  and the customer's own availability ("if you are free at 10:00") state nothing; a range's end ("10:00
  to 12:00") and a bound ("before noon") are not slots.
- **the verdict**: a statement fails when every slot it may be about (a time without a date is about
  each date the agent read) is known and the world says the opposite; a slot the agent never read is not
  judged. One failing check per wrong statement, component `reply`, with a sentence saying what the reply
  said, what the world showed and where the agent saw it. A trial with no wrong statement gets no check
  from this family (like the policy rule on refused attempts, `grader/refusals.py`).

Domains with availability today: field service and travel. The others (marketing's send times, sales,
support, payments, ...) have no slot that can be taken, so no facts and no checks.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

from contracts.evidence import Evidence, ToolCallRecord
from contracts.schema import Task
from contracts.yaml_io import read_yaml
from grader.text.units import split_question
from grader.text.values import NUMBER_WORDS, Value, find_values
from grader.verdicts import CheckVerdict

LEXICON_FILE = Path(__file__).with_name("availability_lexicon.yaml")

FREE, TAKEN = True, False
Key = tuple[str, ...]
"""A slot: ("window", work order, date, start), ("tech", technician, date, start), ("cabin", flight, cabin),
("seat", flight, label), ("room", hotel, room type), ("hotel", hotel)."""


# ---- the vocabulary ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Lexicon:
    phrases: tuple[tuple[re.Pattern[str], bool | None, bool], ...]
    """(pattern, polarity (None: counted, the count decides), carries its own negation)."""
    negator: re.Pattern[str]
    exceptions: tuple[re.Pattern[str], ...]


def _phrase_regex(phrase: str) -> str:
    parts = []
    for word in phrase.split():
        if word == "{w}":
            parts.append(r"(?:[A-Za-z]+\s+)?")
            continue
        if word == "{n}":
            parts.append(r"(?P<n>\d+|" + "|".join(sorted(NUMBER_WORDS, key=len, reverse=True)) + r")\s+")
            continue
        text = re.escape(word).replace("'", "['\u2019]")
        parts.append(text + r"\s+")
    body = "".join(parts)
    body = body[: -len(r"\s+")] if body.endswith(r"\s+") else body
    left = r"(?<![A-Za-z0-9-])" if re.match(r"[A-Za-z0-9{]", phrase) else ""
    right = r"(?![A-Za-z0-9])" if re.search(r"[A-Za-z0-9}]$", phrase) else ""
    return left + body + right


@cache
def lexicon(path: Path = LEXICON_FILE) -> Lexicon:
    data = read_yaml(path.read_text(encoding="utf-8"))
    own_negation = re.compile(r"^(?:no|not|un|cannot|can't|couldn't|none)\b|^un", re.I)
    phrases: list[tuple[str, bool | None]] = [(p, TAKEN) for p in data["taken"]] + [(p, FREE) for p in data["free"]]
    phrases += [(p, None) for p in data["counted"]]
    phrases.sort(key=lambda item: len(item[0]), reverse=True)  # the longer phrase is read first
    compiled = tuple(
        (re.compile(_phrase_regex(p), re.I), polarity, bool(own_negation.search(p)) or polarity is None) for p, polarity in phrases
    )
    negators = "|".join(re.escape(n).replace("'", "['\u2019]").replace(r"\ ", r"\s+") for n in sorted(data["negators"], key=len, reverse=True))
    negator = re.compile(r"(?<![A-Za-z'\u2019])(?:" + negators + r")\s+(?:(?:is|are|was|were|be|been|currently|still|any|really|actually|quite|at|all|longer)\s+){0,2}$", re.I)
    exceptions = tuple(re.compile(_phrase_regex(p), re.I) for p in data["not_availability"])
    return Lexicon(compiled, negator, exceptions)


def _count(text: str) -> int:
    return int(text) if text.isdigit() else NUMBER_WORDS.get(text.lower(), 0)


def polarities(clause: str) -> list[tuple[int, int, bool]]:
    """(start, end, free?) of every availability phrase of a clause, negation and counts applied."""
    return list(_polarities(clause))


@lru_cache(maxsize=16384)
def _polarities(clause: str) -> tuple[tuple[int, int, bool], ...]:
    """`polarities`, kept per clause: a trial's replies are read at every grade (the gate grades each
    task's reply many times over its battery cases)."""
    lex = lexicon()
    blocked = [(m.start(), m.end()) for e in lex.exceptions for m in e.finditer(clause)]
    taken_spans: list[tuple[int, int]] = []
    out: list[tuple[int, int, bool]] = []
    for pattern, polarity, own_negation in lex.phrases:
        for m in pattern.finditer(clause):
            start, end = m.start(), m.end()
            if any(s < end and start < e for s, e in taken_spans) or any(s <= start and end <= e or (s < end and start < e and s <= start) for s, e in blocked):
                continue
            taken_spans.append((start, end))
            if polarity is None:
                free = _count(m.group("n")) > 0
            else:
                free = polarity
                if not own_negation:
                    prefix = clause[max(0, start - 40) : start]
                    prefix = re.sub(r"n['\u2019]t\s", " n't ", prefix)
                    if lex.negator.search(prefix + (" " if prefix and not prefix.endswith(" ") else "")):
                        free = not free
            out.append((start, end, free))
    return tuple(sorted(out))


# ---- reading replies --------------------------------------------------------------------------------------

_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])|\n+")
_CLAUSE = re.compile(
    r";|\s[-\u2013\u2014]+\s|\u2014|,?\s+\b(?:but|however|whereas|while|although|though|because|since|so that|otherwise)\b|,\s+(?:so|which|then)\b|,?\s+(?=(?:if|whether|unless)\b)",
    re.I,
)
_CONDITION = re.compile(r"^\W*(?:if|whether|unless|in case|once|when)\b", re.I)
_CUSTOMER = re.compile(r"\byou(?:['\u2019]re|['\u2019]ll be| are| were| will be| would be)?\s+(?:[A-Za-z]+\s+)?$", re.I)
_RANGE_END = re.compile(r"^\s*(?:-|\u2013|\u2014|to|until|till|through|thru)\s*$", re.I)
_BOUND = re.compile(r"\b(?:before|after|by|until|till|since|past|than)\s*$", re.I)
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_DAY_WORD = re.compile(r"\b(?:(?P<wd>" + "|".join(WEEKDAYS) + r")|(?P<rel>today|tonight|tomorrow))\b", re.I)


def sentences(message: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(message) if s and s.strip()]


def clauses(sentence: str) -> list[tuple[int, str]]:
    """(offset, text) of the statement clauses of a sentence (its question part dropped)."""
    statement, _ = split_question(sentence)
    out, last = [], 0
    for m in _CLAUSE.finditer(statement):
        out.append((last, statement[last : m.start()]))
        last = m.end()
    out.append((last, statement[last:]))
    return [(o, c) for o, c in out if c.strip()]


@dataclass
class Statement:
    """One thing a reply says about slots: the slots it may be about (any one of them) and free or taken."""

    turn: int
    text: str
    free: bool
    about: str
    """Readable subject ("the 14:00 window on 2026-12-03")."""
    keys: list[Key]


def _depth(clause: str, at: int) -> int:
    return clause.count("(", 0, at) - clause.count(")", 0, at)


def _nearest(spans: list[tuple[int, int, bool]], start: int, end: int, clause: str) -> bool | None:
    """The polarity of the phrase that governs a slot's mention, or None (no phrase, or the customer's own
    availability: "you're free at 10:00"): a heading phrase before a colon ("Still open: 10:00, 14:00")
    governs what follows it up to the next phrase; else the nearest phrase at the same bracket depth (a
    parenthesis is its own statement: "10:00 and 16:00 are open (12:00 is taken)"), the later on a tie."""
    if not spans:
        return None
    before = [s for s in spans if s[1] <= start]
    if before and re.match(r"^[^.;:]{0,30}?:\s", clause[before[-1][1] :]) and before[-1][1] + clause[before[-1][1] :].index(":") < start:
        best = before[-1]
    else:
        depth = _depth(clause, start)
        best = min(spans, key=lambda s: (_depth(clause, s[0]) != depth, max(s[0] - end, start - s[1], 0), s[0] < start))
    if _CUSTOMER.search(clause[: best[0]]):
        return None
    return best[2]


def _dates_in(text: str, today: dt.date | None) -> list[tuple[int, dt.date]]:
    """(position, date) of every date a text names: written dates (the world's year when none is written),
    weekday names (the next such day from today, today included) and today / tomorrow."""
    out = []
    for v in find_values(text):
        if v.kind == "date":
            year, month, day = v.value  # type: ignore[misc]
            try:
                out.append((v.start, dt.date(year or (today.year if today else 2026), month, day)))
            except ValueError:
                continue
    if today is not None:
        for m in _DAY_WORD.finditer(text):
            if any(abs(p - m.start()) < 12 for p, _ in out):
                continue  # "Thursday 3 December": the written date says it
            if m["wd"]:
                ahead = (WEEKDAYS.index(m["wd"].lower()) - today.weekday()) % 7
                out.append((m.start(), today + dt.timedelta(days=ahead)))
            else:
                out.append((m.start(), today + dt.timedelta(days=0 if m["rel"].lower() in ("today", "tonight") else 1)))
    return sorted(out, key=lambda item: item[0])


def _slot_times(clause: str) -> list[Value]:
    """The times of a clause that name a slot: not the end of a range, not a bound ("before noon")."""
    values = [v for v in find_values(clause) if v.kind in ("time", "date")]
    out: list[Value] = []
    for i, v in enumerate(values):
        if v.kind != "time":
            continue
        prev = values[i - 1] if i else None
        if prev is not None and prev.kind == "time":
            gap = clause[prev.end : v.start]
            if _RANGE_END.match(gap) or (re.match(r"^\s*and\s*$", gap, re.I) and re.search(r"between\s*$", clause[: prev.start], re.I)):
                continue
        if _BOUND.search(clause[: v.start]):
            continue
        out.append(v)
    return out


def _hhmm(minutes: object) -> str:
    m = int(minutes)  # type: ignore[call-overload]
    return f"{m // 60:02d}:{m % 60:02d}"


# ---- the world as the agent saw it ------------------------------------------------------------------------


@dataclass
class World:
    """Facts of the calls read so far: slot -> (free? / None: the customer's own, where the agent saw it)."""

    initial: dict[str, Any]
    facts: dict[Key, tuple[bool | None, str]] = field(default_factory=dict)
    appointments: dict[str, tuple[str, str]] = field(default_factory=dict)
    written: set[str] = field(default_factory=set)
    counts: dict[Key, int] = field(default_factory=dict)
    """Seats or rooms left as last read (travel), less what the agent booked since."""
    """Appointments a successful write of this trial booked, moved or assigned (field service)."""

    def set(self, key: Key, free: bool | None, call: ToolCallRecord, what: str = "") -> None:
        self.facts[key] = (free, f"{call.tool} at turn {call.turn}" + (f" ({what})" if what else ""))

    def fact(self, key: Key) -> tuple[bool | None, str] | None:
        """What the agent saw about a slot, or None: a seat label missing from a seat map read is taken."""
        if key in self.facts:
            return self.facts[key]
        if key[0] == "seat" and ("seatmap", key[1]) in self.facts:
            return (TAKEN, f"get_flight ({key[1]}: seat {key[2]} not among the free seats)")
        return None

    def today(self) -> dt.date | None:
        raw = self.initial.get("business_date") or str(self.initial.get("now", ""))[:10]
        try:
            return dt.date.fromisoformat(str(raw))
        except ValueError:
            return None


def _refusal(call: ToolCallRecord) -> dict[str, Any] | None:
    result = call.result
    return result if isinstance(result, dict) and result.get("refused") is True else None


# field service ------------------------------------------------------------------------------------------


def _slot_starts() -> tuple[str, ...]:
    from servers.domains.field_service.world import SLOT_STARTS

    return tuple(SLOT_STARTS)


def _field_service_call(world: World, call: ToolCallRecord) -> None:
    result = call.result if isinstance(call.result, dict) else {}
    refusal = _refusal(call)
    if not world.appointments:
        for apt_id, apt in (world.initial.get("appointments") or {}).items():
            if isinstance(apt, dict):
                world.appointments[apt_id] = (apt.get("date", ""), apt.get("start_time", ""))
    if refusal is None and "appointment_id" in result and "date" in result and "start_time" in result:
        world.appointments[result["appointment_id"]] = (result["date"], result["start_time"])
    if call.succeeded and call.tool in ("book_appointment", "reschedule_appointment", "assign_technician"):
        world.written.add(str(result.get("appointment_id") or call.arguments.get("appointment_id")))
    if call.tool == "find_available_slots" and refusal is None and "slots" in result:
        date, wo = result.get("date", ""), result.get("work_order_id", "")
        current = result.get("current_window") or {}
        listed = {s.get("start_time"): s for s in result["slots"] if isinstance(s, dict)}
        techs = {t for s in listed.values() for t in s.get("qualified_technicians_free") or []}
        assigned = result.get("assigned_technician_id")
        for start in _slot_starts():
            if current.get("date") == date and current.get("start_time") == start:
                world.set(("window", wo, date, start), None, call)
                if assigned:
                    world.set(("tech", assigned, date, start), None, call)
                continue
            free = start in listed
            world.set(("window", wo, date, start), free, call, f"{date}: {'listed' if free else 'not listed'} among the bookable windows")
            if free:
                free_techs = set(listed[start].get("qualified_technicians_free") or [])
                for tech in techs | ({assigned} if assigned else set()):
                    world.set(("tech", tech, date, start), tech in free_techs, call, f"{date} {start}: {'free' if tech in free_techs else 'not among the free technicians'}")
            elif assigned:
                world.set(("tech", assigned, date, start), TAKEN, call, f"{date} {start}: not bookable with the assigned technician")
    elif call.tool == "get_technician_schedule" and refusal is None and "appointments" in result:
        tech, date = result.get("technician_id", ""), result.get("date", "")
        jobs = [a for a in result["appointments"] if isinstance(a, dict)]
        busy = {a.get("start_time") for a in jobs}
        own = {a.get("start_time") for a in jobs if a.get("appointment_id") in world.written}
        for start in _slot_starts():
            if start in own:  # the appointment this trial booked, moved or assigned: the customer's own
                world.set(("tech", tech, date, start), None, call)
                continue
            free = not result.get("day_off") and start not in busy
            world.set(("tech", tech, date, start), free, call, f"{date}: " + ("day off" if result.get("day_off") else "a job at " + start if start in busy else "no job at " + start))
    elif call.tool in ("book_appointment", "reschedule_appointment"):
        date, start = call.arguments.get("date"), call.arguments.get("start_time")
        if refusal is None and call.status == "executed":
            for key in [k for k in world.facts if k[0] == "window" and k[2:] == (date, start)]:
                world.set(key, None, call)
            if result.get("technician_id"):
                world.set(("tech", result["technician_id"], date, start), None, call)
            previous = result.get("previous") or {}
            for key in [k for k in world.facts if k[0] in ("window", "tech") and k[2:] == (previous.get("date"), previous.get("start_time"))]:
                del world.facts[key]  # the window it left: not read since
        elif refusal is not None and "available in that slot" in str(refusal.get("reason", "")):
            wo = call.arguments.get("work_order_id") or ""
            keys = [k for k in world.facts if k[0] == "window" and k[2:] == (date, start)] or [("window", wo, str(date), str(start))]
            for key in keys:
                world.set(key, TAKEN, call, f"refused: {refusal.get('reason')}")
            if refusal.get("technician_id"):
                world.set(("tech", refusal["technician_id"], str(date), str(start)), TAKEN, call, f"refused: {refusal.get('reason')}")
    elif call.tool == "assign_technician":
        tech = call.arguments.get("technician_id", "")
        window = world.appointments.get(call.arguments.get("appointment_id", ""))
        if refusal is None and call.status == "executed" and "date" in result:
            world.set(("tech", tech, result["date"], result["start_time"]), None, call)
        elif refusal is not None and window and re.search(r"already booked|off that day", str(refusal.get("reason", ""))):
            world.set(("tech", tech, *window), TAKEN, call, f"refused: {refusal.get('reason')}")


def _technicians(world: World) -> dict[str, str]:
    """Name, first name or id (lower case) -> technician id."""
    names: dict[str, str] = {}
    firsts: dict[str, set[str]] = {}
    for tech_id, tech in (world.initial.get("technicians") or {}).items():
        if not isinstance(tech, dict):
            continue
        names[tech_id.lower()] = tech_id
        name = str(tech.get("name", "")).strip()
        if name:
            names[name.lower()] = tech_id
            firsts.setdefault(name.split()[0].lower(), set()).add(tech_id)
    for first, ids in firsts.items():
        if len(ids) == 1:
            names.setdefault(first, next(iter(ids)))
    return names


_ELLIPSIS = re.compile(r"^\W*(?:is|are|was|has|had|isn't|hasn't|remains|stays|still|also|can|could|will|would)\b", re.I)
"""A clause without a subject of its own ("... has jobs at 08:00 but is free at 14:00"): the previous one's."""
_PRONOUN = re.compile(r"\b(?:he|she|him|her|his|they|them)\b", re.I)


def _field_service_statements(world: World, turn: int, message: str) -> Iterator[Statement]:
    techs = _technicians(world)
    tech_re = re.compile(r"\b(" + "|".join(re.escape(n) for n in sorted(techs, key=len, reverse=True)) + r")\b", re.I) if techs else None
    today = world.today()
    last_date: dt.date | None = None
    last_tech: str | None = None
    for sentence in sentences(message):
        dates = _dates_in(sentence, today)
        clause_tech: str | None = None  # the technician the previous clause of the sentence is about
        for offset, clause in clauses(sentence):
            spans = polarities(clause)
            named = [(m.start(), techs[m.group(1).lower()]) for m in tech_re.finditer(clause)] if tech_re else []
            carried = _PRONOUN.search(clause) or (clause_tech is not None and _ELLIPSIS.match(clause))
            tech = named[0][1] if named else (last_tech if carried else None)
            if named:
                last_tech = named[-1][1]
            clause_tech = tech
            if not spans or _CONDITION.search(clause):
                continue
            for value in _slot_times(clause):
                free = _nearest(spans, value.start, value.end, clause)
                if free is None:
                    continue
                start = _hhmm(value.value)
                if start not in _slot_starts():
                    continue
                at = offset + value.start
                day = min(dates, key=lambda item: abs(item[0] - at))[1] if dates else last_date
                days = [day.isoformat()] if day else sorted({k[2] for k in world.facts if k[0] in ("window", "tech")})
                if tech:
                    keys: list[Key] = [("tech", tech, d, start) for d in days]
                    about = f"{_tech_name(world, tech)} at {start}" + (f" on {days[0]}" if len(days) == 1 else "")
                else:
                    keys = [k for k in world.facts if k[0] == "window" and k[2] in days and k[3] == start]
                    about = f"the {start} window" + (f" on {days[0]}" if len(days) == 1 else "")
                yield Statement(turn, clause.strip(), free, about, keys)
        if dates:
            last_date = dates[-1][1]


def _tech_name(world: World, tech: str) -> str:
    record = (world.initial.get("technicians") or {}).get(tech) or {}
    return f"{record.get('name', tech)} ({tech})" if isinstance(record, dict) else tech


# travel ----------------------------------------------------------------------------------------------------


def _travel_call(world: World, call: ToolCallRecord) -> None:
    result = call.result if isinstance(call.result, dict) else {}
    refusal = _refusal(call)
    if call.tool == "search_flights" and refusal is None:
        for f in result.get("flights") or []:
            for cabin in ("economy", "business"):
                left = f.get(f"{cabin}_seats_left")
                if isinstance(left, int):
                    world.counts[("cabin", f["flight_id"], cabin)] = left
                    world.set(("cabin", f["flight_id"], cabin), left > 0, call, f"{f['flight_id']}: {left} {cabin} seats left")
    elif call.tool == "get_flight" and refusal is None and "flight_id" in result:
        flight = result["flight_id"]
        for cabin, left in (result.get("seats_left") or {}).items():
            world.counts[("cabin", flight, cabin)] = left
            world.set(("cabin", flight, cabin), left > 0, call, f"{flight}: {left} {cabin} seats left")
        free_seats = {s for seats in (result.get("free_seats") or {}).values() for s in seats}
        world.facts[("seatmap", flight)] = (None, ",".join(sorted(free_seats)))
        for seat in free_seats:
            world.set(("seat", flight, seat), FREE, call, f"{flight}: seat {seat} among the free seats")
    elif call.tool in ("quote_flight_change", "change_flight"):
        new = call.arguments.get("new_flight_id")
        reason = str((refusal or result).get("reason", ""))
        if "seats" in reason.lower() and new:
            world.set(("cabin", new, "economy"), TAKEN, call, f"{new}: {reason}")
        elif result.get("allowed") is True and new:
            world.set(("cabin", new, "economy"), FREE, call, f"{new}: the change is allowed")
    elif call.tool == "book_flight" and refusal is not None and "seats" in str(refusal.get("reason", "")).lower():
        world.set(("cabin", call.arguments.get("flight_id", ""), "economy"), TAKEN, call, f"refused: {refusal.get('reason')}")
    elif call.tool == "upgrade_with_miles" and refusal is not None and "business seats" in str(refusal.get("reason", "")).lower():
        world.set(("cabin", call.arguments.get("flight_id", ""), "business"), TAKEN, call, f"refused: {refusal.get('reason')}")
    elif call.tool == "change_seat":
        flight, seat = call.arguments.get("flight_id", ""), str(call.arguments.get("seat", "")).upper()
        if refusal is not None and "seat is not available" in str(refusal.get("reason", "")):
            world.set(("seat", flight, seat), TAKEN, call, f"refused: {refusal.get('reason')}")
            for free in refusal.get("free_seats") or []:
                world.set(("seat", flight, free), FREE, call, f"{flight}: seat {free} among the free seats")
        elif refusal is None and call.status == "executed":
            world.set(("seat", flight, seat), None, call)
    elif call.tool == "search_hotels" and refusal is None:
        for h in result.get("hotels") or []:
            for room, info in (h.get("room_types") or {}).items():
                left = info.get("rooms_left") if isinstance(info, dict) else None
                if isinstance(left, int):
                    world.counts[("room", h["hotel_id"], room)] = left
                    world.set(("room", h["hotel_id"], room), left > 0, call, f"{h.get('name', h['hotel_id'])}: {left} {room} rooms left")
    elif call.tool == "book_hotel" and refusal is not None and "rooms" in str(refusal.get("reason", "")).lower():
        world.set(("room", call.arguments.get("hotel_id", ""), call.arguments.get("room_type", "")), TAKEN, call, f"refused: {refusal.get('reason')}")
    if call.succeeded and refusal is None:  # a booking the agent made takes what it booked from the counts read
        taken: list[tuple[Key, int]] = []
        if call.tool == "book_hotel":
            taken.append((("room", call.arguments.get("hotel_id", ""), call.arguments.get("room_type", "")), 1))
        elif call.tool == "book_flight":
            taken.append((("cabin", call.arguments.get("flight_id", ""), "economy"), len(call.arguments.get("passengers") or [1])))
        elif call.tool == "change_flight" and call.arguments.get("new_flight_id"):
            taken.append((("cabin", call.arguments["new_flight_id"], "economy"), 1))
        for key, n in taken:
            if key in world.counts:
                world.counts[key] -= n
                world.set(key, world.counts[key] > 0, call, f"{world.counts[key]} left after this booking")


_SEAT = re.compile(r"(?<![A-Za-z0-9-])([1-9]\d?[A-K])(?![A-Za-z0-9])")


def _travel_statements(world: World, turn: int, message: str) -> Iterator[Statement]:
    flights = (world.initial.get("flights") or {})
    numbers: dict[str, list[str]] = {}
    for flight_id, f in flights.items():
        if isinstance(f, dict):
            numbers.setdefault(str(f.get("flight_number", flight_id)).upper(), []).append(flight_id)
    hotels = {str(h.get("name", hid)).lower(): hid for hid, h in (world.initial.get("hotels") or {}).items() if isinstance(h, dict)}
    hotels.update({hid.lower(): hid for hid in world.initial.get("hotels") or {}})
    rooms = {k[2] for k in world.facts if k[0] == "room"}
    flight_re = re.compile(r"\b(" + "|".join(sorted(map(re.escape, [*numbers, *flights]), key=len, reverse=True)) + r")\b", re.I) if numbers else None
    hotel_re = re.compile(r"\b(" + "|".join(sorted(map(re.escape, hotels), key=len, reverse=True)) + r")\b", re.I) if hotels else None
    room_re = re.compile(r"\b(" + "|".join(map(re.escape, sorted(rooms, key=len, reverse=True))) + r")\b(?=\s+rooms?\b)", re.I) if rooms else None
    today = world.today()
    last_flights: list[str] = []
    last_hotel: str | None = None
    last_date: str | None = None
    for sentence in sentences(message):
        dates = _dates_in(sentence, today)
        if dates:
            last_date = dates[-1][1].isoformat()
        for offset, clause in clauses(sentence):
            spans = polarities(clause)
            mentioned: list[tuple[int, int, str]] = []  # (start, end, flight id) of the clause's flights
            for m in flight_re.finditer(clause) if flight_re else ():
                word = m.group(1).upper()
                ids = [word] if word in flights else numbers.get(word, [])
                at = offset + m.start()
                near = min(dates, key=lambda item: abs(item[0] - at))[1].isoformat() if dates else last_date
                chosen = [i for i in ids if not near or str(flights[i].get("date")) == near] or ([] if near else ids)
                mentioned += [(m.start(), m.end(), i) for i in chosen]
            if mentioned:
                last_flights = sorted({i for _, _, i in mentioned})
            hotel_m = list(hotel_re.finditer(clause)) if hotel_re else []
            if hotel_m:
                last_hotel = hotels[hotel_m[-1].group(1).lower()]
            if not spans or _CONDITION.search(clause):
                continue
            seat_ms = list(_SEAT.finditer(clause))
            for m in seat_ms:
                free = _nearest(spans, m.start(), m.end(), clause)
                candidates = last_flights or sorted({k[1] for k in world.facts if k[0] == "seatmap"})
                keys: list[Key] = [("seat", flight, m.group(1)) for flight in candidates]
                if free is not None:
                    yield Statement(turn, clause.strip(), free, f"seat {m.group(1)}", keys)
            if not seat_ms:
                cabin = "business" if re.search(r"\bbusiness\b", clause, re.I) else "economy"
                for start, end, flight in mentioned:
                    free = _nearest(spans, start, end, clause)
                    if free is not None:
                        yield Statement(turn, clause.strip(), free, f"{cabin} on {flight}", [("cabin", flight, cabin)])
            for m in room_re.finditer(clause) if room_re else ():
                free = _nearest(spans, m.start(), m.end(), clause)
                hotel = hotels[hotel_m[0].group(1).lower()] if hotel_m else last_hotel
                keys = [("room", hotel, m.group(1).lower())] if hotel else [k for k in world.facts if k[0] == "room" and k[2] == m.group(1).lower()]
                if free is not None:
                    yield Statement(turn, clause.strip(), free, f"{m.group(1).lower()} rooms" + (f" at {hotel}" if hotel else ""), keys)


DOMAINS = {
    "field_service": (_field_service_call, _field_service_statements),
    "travel": (_travel_call, _travel_statements),
}


# ---- the verdict ------------------------------------------------------------------------------------------


def _word(free: bool) -> str:
    return "free" if free else "taken"


def read_statements(domain: str, evidence: Evidence) -> Iterator[tuple[Statement, list[tuple[bool | None, str]], dict[Key, tuple[bool | None, str]]]]:
    """Every availability statement of the replies, with the facts known about the slots it may be about
    (free?, where the agent saw it; None: the customer's own) and every fact known at that turn."""
    reader = DOMAINS.get(domain)
    if reader is None:
        return
    read_call, read_message = reader
    world = World(evidence.initial_state)
    calls = sorted((c for c in evidence.tool_trace if c.status in ("executed", "refused")), key=lambda c: c.seq)
    i = 0
    for message in evidence.conversation:
        if message.role != "assistant":
            continue
        while i < len(calls) and calls[i].turn <= message.turn:
            read_call(world, calls[i])
            i += 1
        for statement in read_message(world, message.turn, message.content):
            known = [f for f in (world.fact(k) for k in statement.keys) if f is not None]
            yield statement, known, {k: v for k, v in world.facts.items() if k[0] != "seatmap"}


def turn_facts(domain: str, evidence: Evidence) -> dict[int, dict[Key, tuple[bool | None, str]]]:
    """Turn -> every fact known when that turn's reply was written (the domain's calls of turns 0..t)."""
    reader = DOMAINS.get(domain)
    if reader is None:
        return {}
    world = World(evidence.initial_state)
    calls = sorted((c for c in evidence.tool_trace if c.status in ("executed", "refused")), key=lambda c: c.seq)
    out: dict[int, dict[Key, tuple[bool | None, str]]] = {}
    i = 0
    for message in evidence.conversation:
        if message.role == "assistant":
            while i < len(calls) and calls[i].turn <= message.turn:
                reader[0](world, calls[i])
                i += 1
            out[message.turn] = {k: v for k, v in world.facts.items() if k[0] != "seatmap"}
    return out


def wrong_statements(domain: str, evidence: Evidence) -> list[tuple[Statement, str]]:
    """(statement, what the world showed) for every statement of the replies that the world, as the agent
    saw it at that turn, contradicts for every slot it may be about (a slot never read is not judged; the
    customer's own slot is not judged)."""
    out: list[tuple[Statement, str]] = []
    for statement, known, _ in read_statements(domain, evidence):
        if known and all(free is not None and free != statement.free for free, _ in known):
            out.append((statement, known[0][1]))
    return out


def availability_checks(task: Task, evidence: Evidence) -> list[CheckVerdict]:
    """The failing checks of this family on a trial (none when every availability a reply states is right)."""
    out = []
    for k, (statement, source) in enumerate(wrong_statements(task.domain, evidence)):
        said = _word(statement.free)
        out.append(
            CheckVerdict(
                component="reply",
                check=f"availability @turn{statement.turn}#{k}",
                passed=False,
                reason=(
                    f"The reply at turn {statement.turn} says {statement.about} is {said} "
                    f"({statement.text!r}), but the world the agent saw shows it {_word(not statement.free)}: {source}."
                ),
                diff=f"stated {said}, the world shows {_word(not statement.free)} ({source})",
            )
        )
    return out


__all__ = ["availability_checks", "lexicon", "polarities", "read_statements", "turn_facts", "wrong_statements"]
