"""Issue 38, item 3 (availability): a reply that calls a free slot taken, or offers a taken slot as free,
fails while the state is right - read with one reviewed vocabulary (grader/availability_lexicon.yaml) and
compared with the recorded tool results the agent had seen at that turn (grader/availability.py).

The replies below are written for this file, in other words than the gold dialogues'."""

from __future__ import annotations

import pytest

from contracts.catalog import load_catalog
from contracts.evidence import Evidence
from contracts.schema import Task
from grader.availability import lexicon, polarities, read_statements, wrong_statements
from grader.grade import grade_offline
from harness.release.guards import availability_cases
from harness.release.replay import GatewayReplayer
from harness.release.replies import reply_evidence
from servers.gateway import Gateway

pytestmark = pytest.mark.anyio

OWNER = "field_service_reschedule_owner_01"  # Thursday 3 Dec for WO-5001 (Alex): 10:00, 14:00, 16:00 bookable; 08:00, 12:00 not
TECH_BUSY = "field_service_reschedule_tech_busy_01"  # Wed 2 Dec with Priya: 08:00, 12:00, 16:00 free; 10:00 not
DOUBLE_BOOKED = "field_service_dispatch_double_booked_01"  # Priya's Wednesday schedule: jobs at 10:00 and 14:00
PRIORITY = "field_service_priority_and_dispatch_01"  # schedule read, then the assignment in the same turn
SOLD_OUT = "travel_sold_out_pick_other_01"  # search: AU214-1212 economy 0 left, AU210-1212 economy 7 left
ROOMS = "travel_room_type_unavailable_01"  # Riverside Inn: king 0 left, standard 4 left
BOOKED_HOTEL = "travel_book_miami_three_nights_01"  # Ocean Drive: 5 queen rooms read, one booked
SEAT_CHANGE = "travel_seat_change_simple_01"  # no seat map read: 12B -> 14A

_played: dict[str, Evidence] = {}


def _task(task_id: str) -> Task:
    return load_catalog()[task_id]


async def _gold(task_id: str) -> Evidence:
    if task_id not in _played:
        task = _task(task_id)
        async with GatewayReplayer(Gateway([task.domain])) as replayer:
            _played[task_id] = await replayer.play(task, task.gold)
    return _played[task_id]


async def _with_reply(task_id: str, turn: int, text: str) -> Evidence:
    gold = await _gold(task_id)
    replies = [m.content for m in gold.conversation if m.role == "assistant"]
    replies[turn] = text
    return reply_evidence(gold, tuple(replies))


async def _wrong(task_id: str, turn: int, text: str) -> list[str]:
    evidence = await _with_reply(task_id, turn, text)
    return [s.about for s, _ in wrong_statements(_task(task_id).domain, evidence)]


# ---- the vocabulary -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("clause", "free"),
    [
        ("the 2 pm slot has been snapped up", False),
        ("that window is spoken for", False),
        ("Thursday at ten is booked solid", False),
        ("she's tied up at 10:00", False),
        ("the flight is completely full", False),
        ("that cabin is sold out", False),
        ("14:00 is no longer open", False),
        ("he isn't free at noon", False),
        ("there aren't any seats left", False),
        ("zero rooms left of that kind", False),
        ("it can't be booked", False),
        ("nothing is available at 08:00", False),
        ("08:00 is still wide open", True),
        ("the 4 pm window has room", True),
        ("two economy seats left", True),
        ("he is not busy at 12:00", True),
        ("the noon slot isn't taken", True),
        ("there's an opening at 16:00", True),
        ("the suite is vacant", True),
    ],
)
def test_the_vocabulary_reads_free_or_taken_with_negation_and_counts(clause: str, free: bool) -> None:
    found = polarities(clause)
    assert found, clause
    assert found[-1][2] is free, (clause, found)


@pytest.mark.parametrize(
    "clause",
    ["the visit is free of charge", "you get a full refund", "$40.00 was taken from your card", "feel free to call back",
     "free cancellation until 15:00", "I can open a case for you", "to be clear, nothing changed"],
)
def test_words_that_say_nothing_about_a_slot(clause: str) -> None:
    assert polarities(clause) == []


def test_the_vocabulary_has_both_polarities_in_one_reviewed_file() -> None:
    lex = lexicon()
    assert {polarity for _, polarity, _ in lex.phrases} == {True, False, None}


# ---- field service: windows and technicians ----------------------------------------------------------------


@pytest.mark.parametrize(
    "reply",
    [
        # an offered free window called taken
        "For Thursday 3 December the 14:00 slot is already gone, but 10:00 and 16:00 are open. Want 10:00?",
        "Thursday's 4 pm window has been snapped up; 10 am is still available. Shall I move you there?",
        "I'm afraid Alex Moreno is tied up at 10:00 on Thursday. Would 14:00 suit you?",
        # a taken window offered as free
        "On Thursday the 3rd, 08:00 is open, as are 10:00 and 14:00. Which would you like?",
        "Good news: Alex has availability at 12:00 on December 3. Shall I book it?",
    ],
)
async def test_owner_wrong_availability_fails(reply: str) -> None:
    assert await _wrong(OWNER, 0, reply), reply
    verdict = grade_offline(_task(OWNER), await _with_reply(OWNER, 0, reply))
    assert not verdict.strict
    failing = [c for c in verdict.failures() if c.check.startswith("availability")]
    assert failing and all(c.component == "reply" for c in failing)
    assert "the world the agent saw shows it" in failing[0].reason and "find_available_slots at turn 0" in failing[0].reason


@pytest.mark.parametrize(
    "reply",
    [
        "Alex can come on Thursday 3 December at 10:00 (until 12:00); 14:00 and 16:00 are also free. Does 10:00 work?",
        "Thursday 3 Dec: 08:00 and 12:00 are taken, while 10 am, 2 pm and 4 pm remain open. Shall I take 10 am?",
        "On Thursday nothing before 10:00 is free, and 12:00 is booked up; 10:00 itself is available. Shall I book it?",
        # the customer's own availability, a condition, a question: no statement about the world
        "If you're free at 08:00 on Thursday I can check again. Is 14:00 available for you? 10:00 works too.",
        "I can move it to 12:00 on Thursday if that window is open - shall I check?",
    ],
)
async def test_owner_right_availability_passes(reply: str) -> None:
    assert await _wrong(OWNER, 0, reply) == [], reply


async def test_a_technician_named_in_one_clause_carries_to_the_next() -> None:
    bad = "Priya Shah has a job at 10:00 on Wednesday but is busy at 12:00 as well."
    assert await _wrong(TECH_BUSY, 0, bad) == ["Priya Shah (TECH-102) at 12:00 on 2026-12-02"]
    good = "Priya Shah is booked up at 10:00 on Wednesday, but she's open at 8 am, noon and 4 pm."
    assert await _wrong(TECH_BUSY, 0, good) == []


async def test_a_schedule_read_decides_and_the_appointment_the_agent_assigns_is_its_own() -> None:
    assert await _wrong(DOUBLE_BOOKED, 0, "Priya Shah (TECH-102) is free at 10:00 on Wednesday 2 December, but I won't assign her yet.")
    assert await _wrong(DOUBLE_BOOKED, 0, "Priya is unavailable at 08:00 on 2 December.")
    # the reply after the assignment: the 14:00 job is now his, whatever the reply calls it
    assert await _wrong(PRIORITY, 1, "Alex Moreno is now booked at 14:00 on Thursday with APT-7007; his 08:00 and 12:00 are taken too.") == []
    assert await _wrong(PRIORITY, 1, "Alex Moreno is free at 08:00 on Thursday, and I've put him on APT-7007 at 14:00.")


async def test_a_reply_is_compared_with_what_the_agent_had_seen_by_then() -> None:
    # turn 0 of the furnace journey reads nothing about Wednesday: a claim there is not judged
    gold = await _gold("field_service_furnace_journey_01")
    replies = [m.content for m in gold.conversation if m.role == "assistant"]
    replies[0] = replies[0] + " By the way, Priya Shah is busy at 08:00 on Wednesday 2 December."
    assert wrong_statements("field_service", reply_evidence(gold, tuple(replies))) == []
    replies = [m.content for m in gold.conversation if m.role == "assistant"]
    replies[1] = replies[1] + " By the way, Priya Shah is busy at 08:00 on Wednesday 2 December."
    assert wrong_statements("field_service", reply_evidence(gold, tuple(replies)))


# ---- travel: flights, cabins and hotel rooms ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("task_id", "reply", "wrong"),
    [
        (SOLD_OUT, "Sorry, the morning AU210 on December 12 is full. AU214 still has seats; standard is $209.00.", True),
        (SOLD_OUT, "AU214 on 2026-12-12 is open for booking in economy. Shall I book it?", True),
        (SOLD_OUT, "AU210 on 12 December has no seats remaining, I'm afraid.", True),
        (SOLD_OUT, "The 17:30 AU214 on Dec 12 is out of seats in economy, but the 08:00 AU210 still has room at $229.00.", False),
        (SOLD_OUT, "AU214 on 2026-12-12 can't be booked (no economy seats), and AU210 has 7 seats left.", False),
        (ROOMS, "The Riverside Inn has king rooms available for those nights at $179.00.", True),
        (ROOMS, "Unfortunately the Riverside Inn's standard rooms are sold out; only kings remain.", True),
        (ROOMS, "The Riverside Inn is out of king rooms for the 10th to the 12th; standard rooms are still available at $149.00.", False),
    ],
)
async def test_travel_availability(task_id: str, reply: str, wrong: bool) -> None:
    assert bool(await _wrong(task_id, 0, reply)) is wrong, reply


async def test_a_slot_the_agent_never_read_is_not_judged() -> None:
    assert await _wrong(SEAT_CHANGE, 0, "Done: you're in 14A now. Seat 12B is already taken by someone else and 21D is free.") == []


async def test_what_the_agent_booked_is_taken_from_the_counts_it_read() -> None:
    assert await _wrong(BOOKED_HOTEL, 0, "Booked: the queen room at the Ocean Drive Hotel, 2026-12-18 to 2026-12-21. It still has queen rooms left.") == []
    assert await _wrong(BOOKED_HOTEL, 0, "Booked. That was the last one: the Ocean Drive Hotel has no queen rooms left now.")


# ---- the battery and the gold paths -------------------------------------------------------------------------


async def test_the_battery_cases_fail_and_the_gold_dialogue_passes() -> None:
    for task_id in (OWNER, SOLD_OUT, ROOMS):
        task, gold = _task(task_id), await _gold(task_id)
        assert grade_offline(task, gold).strict
        cases = {c.id.rsplit("/", 1)[-1]: c for c in availability_cases(task, gold)}
        assert set(cases) == {"free_called_taken", "taken_called_free"}, task_id
        for case in cases.values():
            assert case.expects == "fail"
            assert not grade_offline(task, reply_evidence(gold, case.replies or ())).strict, case.description


async def test_every_gold_dialogue_of_the_slot_domains_states_availability_right() -> None:
    catalog = load_catalog()
    stated = 0
    for domain in ("field_service", "travel"):
        tasks = [t for t in catalog.values() if t.domain == domain]
        async with GatewayReplayer(Gateway([domain])) as replayer:
            for task in tasks:
                gold = await replayer.play(task, task.gold)
                assert wrong_statements(domain, gold) == [], task.id
                stated += sum(1 for _, known, _ in read_statements(domain, gold) if known)
    assert stated >= 25  # the gold dialogues do talk about slots the agent read


@pytest.mark.parametrize(
    ("reply", "wrong"),
    [
        ("Thursday 3 December - open: 10:00, 14:00, 16:00; taken: 08:00 and 12:00. Which one?", False),
        ("Thursday 3 December, still free: 10:00, 14:00 and 16:00, already booked: 08:00 and 12:00.", False),
        ("Thursday 3 December, still free: 08:00 and 10:00, already booked: 14:00.", True),
        ("On Thursday 3 December the open windows are 10:00, 14:00 and 16:00 (08:00 and 12:00 are taken).", False),
        ("On Thursday 3 December the open windows are 10:00 and 12:00 (16:00 is taken).", True),
        ("On Thursday 3 December the only windows left are 10:00, 14:00 and 16:00.", False),
    ],
)
async def test_headings_lists_and_brackets(reply: str, wrong: bool) -> None:
    assert bool(await _wrong(OWNER, 0, reply)) is wrong, reply


async def test_a_seat_the_seat_map_does_not_list_is_taken() -> None:
    task_id = "travel_upgrade_not_enough_miles_01"  # get_flight AU211-1214: economy 12A 12B 14A 14C 21D 21F free
    assert await _wrong(task_id, 0, "Seat 12C on AU211 is open if you'd like it; 14A is taken.") == ["seat 12C", "seat 14A"]
    assert await _wrong(task_id, 0, "On AU211, 21F is still free and 12C is already taken.") == []


@pytest.mark.parametrize(
    ("task_id", "reply", "wrong"),
    [
        (OWNER, "Thursday the 3rd looks good: Alex can do 10 am, 2 pm or 4 pm, as those are open. The 8 am and noon slots are already spoken for.", False),
        (OWNER, "Thursday the 3rd: Alex can do 8 am or noon, as those are open. The 2 pm and 4 pm slots are already spoken for.", True),
        (OWNER, "There is no availability at 8:00 or at noon on Thursday, Dec 3, but Alex has an opening at 10:00.", False),
        (OWNER, "There is no availability at 10:00 on Thursday, Dec 3, but Alex has an opening at 12:00.", True),
        (TECH_BUSY, "Priya can't do 10:00 on Wednesday since she's already booked then. She does have free time at 08:00, 12:00 and 16:00 on December 2.", False),
        (TECH_BUSY, "Priya is already booked at 12:00 on Wednesday. She does have free time at 10:00 on December 2.", True),
        (SOLD_OUT, "Bad news - the evening flight AU214 is fully booked on the 12th. Good news - the 08:00 AU210 isn't full.", False),
        (SOLD_OUT, "Bad news - the morning flight AU210 is fully booked on the 12th. Good news - the 17:30 AU214 isn't full.", True),
        (ROOMS, "The Riverside Inn's kings are all gone for 10-12 December, though standard rooms are available at $149.00 a night.", False),
        (ROOMS, "The Riverside Inn's standard rooms are all gone for 10-12 December, though king rooms are available at $179.00 a night.", True),
    ],
)
async def test_pairs_in_other_words(task_id: str, reply: str, wrong: bool) -> None:
    assert bool(await _wrong(task_id, 0, reply)) is wrong, reply


async def test_after_the_move_the_new_window_is_the_customers_and_the_old_one_unknown() -> None:
    reply = ("All set: APT-7001 moved to Thursday 3 December, 10:00-12:00, with Alex Moreno. That 10:00 slot is now taken by "
             "your visit, and your old Wednesday 10:00 window is free again.")
    assert await _wrong(OWNER, 1, reply) == []
