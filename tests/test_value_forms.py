"""Values in every written form (grader/text/values.py): money, percentages, times, dates, levels, phones and
counts in words or other layouts state the same value as the evidence's digits, and a value in another
form that is a DIFFERENT value still does not match (or contradicts the right one). Cases in words of our
own, not the calibration set's."""

from __future__ import annotations

from decimal import Decimal

import pytest

from contracts.schema import ReplyCriterion
from grader.text import conflicts
from grader.text.evidence import EvidenceJudge
from grader.text.values import Value, find_values, is_money, phrase_value, spoken_value, spoken_values


def judge(criterion: str, evidence: list, replies: list[str]):  # noqa: ANN001
    output = EvidenceJudge().judge_sync([ReplyCriterion(criterion=criterion, evidence=evidence)], replies)
    return output.criteria[0], output


def readings(text: str) -> list[tuple[str, object]]:
    return [(v.kind, v.value) for v in find_values(text)]


def minutes(hhmm: str) -> int:
    h, m = hhmm.split(":")
    return int(h) * 60 + int(m)


# ---- the reader ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "kind", "value"),
    [
        # money and numbers in words, of any size
        ("we owe you seventy-five dollars", "number", Decimal(75)),
        ("a refund of one hundred and twenty dollars", "number", Decimal(120)),
        ("two hundred thirty-four points", "number", Decimal(234)),
        ("six thousand seven hundred and fifty dollars", "number", Decimal(6750)),
        ("about eighty-one thousand five hundred miles", "number", Decimal(81500)),
        ("twelve hundred dollars", "number", Decimal(1200)),
        ("a thousand miles", "number", Decimal(1000)),
        ("it costs eighteen dollars and five cents", "number", Decimal("18.05")),
        ("it costs 18 dollars and 5 cents", "number", Decimal("18.05")),
        ("under two hundred bucks", "number", Decimal(200)),
        ("three grand", "number", Decimal(3000)),
        ("the fifty-dollar voucher", "number", Decimal(50)),
        ("the thousand-dollar threshold", "number", Decimal(1000)),
        ("$2.4k", "number", Decimal(2400)),
        ("22k points", "number", Decimal(22000)),
        ("12.5K miles", "number", Decimal(12500)),
        ("3 thousand miles", "number", Decimal(3000)),
        ("EUR 80.00", "number", Decimal(80)),
        ("seven point two", "number", Decimal("7.2")),
        # percentages
        ("a rate of nine percent", "percent", Decimal(9)),
        ("twelve per cent of sends", "percent", Decimal(12)),
        ("12 per cent of sends", "percent", Decimal(12)),
        ("two point five percent", "percent", Decimal("2.5")),
        # times
        ("quarter past nine", "time", minutes("09:15")),
        ("twenty minutes to 6 pm", "time", minutes("17:40")),
        ("half past eleven in the morning", "time", minutes("11:30")),
        ("nine thirty am", "time", minutes("09:30")),
        ("at seven in the evening", "time", minutes("19:00")),
        ("3 in the afternoon", "time", minutes("15:00")),
        ("09h45", "time", minutes("09:45")),
        ("1430 hrs", "time", minutes("14:30")),
        ("8.15am", "time", minutes("08:15")),
        ("eleven at night", "time", minutes("23:00")),
        # dates and days
        ("due 11/30", "date", (None, 11, 30)),
        ("due December the 4th", "date", (None, 12, 4)),
        ("due 12/09/26", "date", (2026, 12, 9)),
        ("Thursday the 3rd", "day", (3, 3)),
        ("Fri 4th", "day", (4, 4)),
        ("Tuesday the first", "day", (1, 1)),
        ("we can do it on the 9th", "day", (9, None)),
        ("payment is due by the 20th of the month", "day", (20, None)),
        # levels and phones
        ("a Priority-3 ticket", "level", ("priority", 3)),
        ("marked p4", "level", ("priority", 4)),
        ("a sev-2 outage", "level", ("severity", 2)),
        ("severity one", "level", ("severity", 1)),
        ("Level III support", "level", ("level", 3)),
        ("call 415-555-0123", "phone", "4155550123"),
        ("call (415)555-0123", "phone", "4155550123"),
        ("call 415 555 0123", "phone", "4155550123"),
        ("call 1.415.555.0123", "phone", "4155550123"),
        ("call +14155550123", "phone", "4155550123"),
        # counts
        ("we found a single duplicate", "number", Decimal(1)),
        ("a forty-five-day trial", "number", Decimal(45)),
    ],
)
def test_a_written_form_reads_as_its_value(text: str, kind: str, value: object) -> None:
    assert (kind, value) in readings(text), readings(text)


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("a dozen boxes", "number"),  # approximate words are no counts
        ("a couple of seats", "number"),
        ("hundreds of orders", "number"),
        ("thousands of miles", "number"),
        ("set up two-step login", "number"),  # hyphenated to a non-unit
        ("book a single room", "number"),  # a room type
        ("the one I picked", "number"),  # a pronoun
        ("the 4th floor", "day"),  # an ordinal of a thing
        ("your 3rd order", "day"),
        ("4 to 6 boxes", "time"),  # no mark of a time
        ("the stock sits at 10 units", "time"),
        ("within 24h", "time"),
    ],
)
def test_approximate_or_other_uses_are_not_read(text: str, kind: str) -> None:
    values = find_values(text)
    assert not any(v.kind == kind for v in values), values


def test_a_range_runs_forward_from_or_up_to_noon_and_takes_a_part_of_the_day() -> None:
    times = lambda t: [v.value for v in find_values(t) if v.kind == "time"]  # noqa: E731
    assert times("we're there noon till three") == [minutes("12:00"), minutes("15:00")]
    assert times("open 9 until midday") == [minutes("09:00"), minutes("12:00")]
    assert times("from 1 to 3 in the afternoon") == [minutes("13:00"), minutes("15:00")]
    assert times("seven to nine in the morning") == [minutes("07:00"), minutes("09:00")]
    assert times("between 11 and 1 pm") == [minutes("11:00"), minutes("13:00")]
    assert times("8 till midnight") == [minutes("20:00"), 0]


def test_an_hour_without_am_or_pm_reads_both_halves_of_the_day() -> None:
    (value,) = find_values("three o'clock")
    assert value.same(phrase_value("15:00")) and value.same(phrase_value("03:00"))  # type: ignore[arg-type]
    assert not value.same(phrase_value("13:00"))  # type: ignore[arg-type]
    (bare,) = find_values("we'll be there at five.")
    assert bare.kind == "number" and bare.same(phrase_value("17:00")) and not bare.same(phrase_value("18:00"))  # type: ignore[arg-type]


def test_money_is_marked_and_a_count_is_not() -> None:
    values = find_values("ninety dollars, 90 bucks, a 90-dollar fee, 90 seats, ninety seats, $90")
    assert [v.value for v in values] == [Decimal(90)] * 6
    assert [is_money(v) for v in values] == [True, True, True, False, False, True]


def test_a_day_of_the_month_equals_a_date_only_on_that_day_and_weekday() -> None:
    day = find_values("Thursday the 3rd")[0]
    assert day.same(phrase_value("2026-12-03"))  # type: ignore[arg-type]  # a Thursday
    assert not day.same(phrase_value("2026-11-03"))  # type: ignore[arg-type]  # a Tuesday
    assert not day.same(phrase_value("2026-12-04"))  # type: ignore[arg-type]
    assert find_values("on the 3rd")[0].same(phrase_value("December 3"))  # type: ignore[arg-type]


# ---- the judge: same value in another form passes ----------------------------------------------------


@pytest.mark.parametrize(
    ("criterion", "evidence", "reply"),
    [
        ("States the deposit of $85.00.", ["85.00"], "We're holding eighty-five dollars as the deposit."),
        ("States the credit of $19.75.", ["$19.75"], "A credit of nineteen dollars and seventy-five cents is on the account."),
        ("States the cap of $250.", ["250"], "That would go past the two-hundred-fifty-dollar cap."),
        ("States the limit of $1,200.", ["1,200"], "Your card limit is twelve hundred dollars."),
        ("States the 2,750 points earned.", ["2750"], "You earned two thousand seven hundred and fifty points."),
        ("States 64,000 miles.", [["64,000", "64000"]], "The account shows 64k miles."),
        ("States the $3,500 budget.", ["3500"], "Marketing approved a $3.5k budget."),
        ("Gives the open rate 22%.", [["22%", "22.0%"]], "The open rate was twenty-two percent."),
        ("Gives the bounce rate 3%.", ["3%"], "Only three per cent bounced."),
        ("Confirms the 09:30 slot.", ["09:30"], "You're down for half past nine in the morning."),
        ("Confirms the 15:45 slot.", ["15:45"], "You're down for a quarter to four in the afternoon."),
        ("Confirms the 17:00 slot.", ["17:00"], "She'll arrive at five o'clock."),
        ("Confirms the 11:00 slot.", ["11:00"], "The installer will be there at eleven on Friday."),
        ("Confirms the 13:00-15:00 window.", ["13:00", "15:00"], "The crew comes 1 to 3 in the afternoon."),
        ("Confirms the 12:00 start.", ["12:00"], "Your window is now noon-4."),
        ("Confirms the 14:00-16:00 window.", ["16:00"], "We'll see you noon to four."),
        ("Confirms the 18:20 pickup.", ["18:20"], "Pickup is at 18h20."),
        ("Confirms delivery on 2026-12-09.", ["2026-12-09"], "It now arrives Wednesday the 9th."),
        ("Confirms delivery on 2026-12-09.", ["2026-12-09"], "It now arrives 12/9."),
        ("Confirms delivery on 2026-11-30.", ["2026-11-30"], "It was delivered on November 30th."),
        ("Says INC-1 is P3.", ["P3"], "INC-1 sits at priority three."),
        ("Says INC-1 is P3.", ["P3"], "INC-1 is a P-3."),
        ("Says the account is tier 3.", ["tier 3"], "The account is on Tier III."),
        ("Confirms the new number 503-555-0177.", ["503-555-0177"], "Your number is now 503.555.0177."),
        ("Confirms the new number 503-555-0177.", ["503-555-0177"], "Your number is now +1 503 555 0177."),
        ("Confirms the email li.na@example.org.", ["li.na@example.org"], "The address on file is Li.Na@Example.ORG."),
        ("Says the plan allows 1 admin.", ["1"], "The plan allows a single admin."),
        ("Says there are 4 open orders.", ["4"], "There are four orders still open."),
    ],
)
def test_the_same_value_in_another_written_form_passes(criterion: str, evidence: list, reply: str) -> None:
    verdict, _ = judge(criterion, evidence, [reply])
    assert verdict.passed, verdict.explanation


# ---- the judge: another value in another form fails ---------------------------------------------------


@pytest.mark.parametrize(
    ("criterion", "evidence", "reply"),
    [
        ("States the deposit of $85.00.", ["85.00"], "We're holding eighty dollars as the deposit."),
        ("States the credit of $19.75.", ["$19.75"], "A credit of nineteen dollars and fifty cents is on the account."),
        ("States the limit of $1,200.", ["1,200"], "Your card limit is one hundred and twenty dollars."),
        ("States 64,000 miles.", [["64,000", "64000"]], "The account shows 6.4k miles."),
        ("States 64,000 miles.", [["64,000", "64000"]], "The account shows sixty-four hundred miles."),
        ("Gives the open rate 22%.", [["22%", "22.0%"]], "The open rate was twenty percent."),
        ("Gives the open rate 22%.", [["22%", "22.0%"]], "The open rate was twenty-two."),  # a number is no percentage
        ("Confirms the 09:30 slot.", ["09:30"], "You're down for half past ten."),
        ("Confirms the 09:30 slot.", ["09:30"], "You're down for nine thirty in the evening."),
        ("Confirms the 15:45 slot.", ["15:45"], "You're down for a quarter past four."),
        ("Confirms the 17:00 slot.", ["17:00"], "She'll arrive at six o'clock."),
        ("Confirms the 08:00 slot.", ["08:00"], "The crew comes 8 to 10 in the evening."),
        ("Confirms delivery on 2026-12-09.", ["2026-12-09"], "It now arrives Thursday the 9th."),  # Dec 9 2026 is a Wednesday
        ("Confirms delivery on 2026-12-09.", ["2026-12-09"], "It now arrives on the 10th."),
        ("Confirms delivery on 2026-12-09.", ["2026-12-09"], "It now arrives 9/12."),  # month first: September 12
        ("Says INC-1 is P3.", ["P3"], "INC-1 sits at priority two."),
        ("Says the account is tier 3.", ["tier 3"], "The account is on tier two."),
        ("Confirms the new number 503-555-0177.", ["503-555-0177"], "Your number is now (503) 555-0171."),
        ("Says the plan allows 1 admin.", ["1"], "The plan allows a couple of admins."),
        ("Says there are 4 open orders.", ["4"], "There are fourteen orders still open."),
    ],
)
def test_another_value_in_another_written_form_fails(criterion: str, evidence: list, reply: str) -> None:
    verdict, _ = judge(criterion, evidence, [reply])
    assert not verdict.passed, verdict.explanation


@pytest.mark.parametrize(
    ("criterion", "evidence", "replies"),
    [
        ("Confirms the 17:00 slot.", ["17:00"], ["Your slot is 17:00.", "Your slot is at six o'clock."]),
        ("Confirms the 09:30 slot.", ["09:30"], ["Your slot is half past nine.", "Your slot is 10:30."]),
    ],
)
def test_a_wrong_value_in_words_contradicts_the_right_one_in_digits(criterion: str, evidence: list, replies: list[str]) -> None:
    verdict, output = judge(criterion, evidence, replies)
    assert not verdict.passed and output.contradiction_found, verdict.explanation


def test_the_conflict_rule_reads_money_in_words_as_money() -> None:
    assert conflicts.is_money(Value("number", Decimal(45), 0, 12, "forty-five", money=True))


@pytest.mark.parametrize(
    "replies",
    [
        ["Your refund is forty-five dollars. The refund is $40."],
        ["Your refund is $45.00.", "To confirm, the refund is forty dollars."],
        ["Your refund is $45.00.", "To confirm, the refund is 40 bucks."],
        ["The refund is forty-five dollars.", "So the refund is $80.00."],
    ],
)
def test_money_in_words_and_money_in_digits_are_compared(replies: list[str]) -> None:
    verdict, output = judge("States the refund of $45.00.", ["45.00"], replies)
    assert not verdict.passed and output.contradiction_found, verdict.explanation


# ---- a customer's answer, when the kind of value being decided is known -------------------------------


@pytest.mark.parametrize(
    ("answer", "expect", "value"),
    [
        ("put me down for ten", "time", "10:00"),
        ("ten works for me", "time", "10:00"),
        ("2 is fine", "time", "14:00"),
        ("let's say half past three", "time", "15:30"),
        ("the 4 pm one", "time", "16:00"),
        ("noon, please", "time", "12:00"),
        ("anything under fifty bucks", "money", "50"),
        ("up to 200 is ok", "money", "200"),
        ("no more than one hundred and twenty dollars", "money", "120"),
        ("how about the 9th", "date", "2026-12-09"),
        ("Dec 9 works", "date", "2026-12-09"),
    ],
)
def test_spoken_value_reads_an_answer_as_the_kind_being_decided(answer: str, expect: str, value: str) -> None:
    found = spoken_value(answer, expect)
    assert found is not None and found.same(phrase_value(value)), (answer, found)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("answer", "expect"),
    [
        ("for 2 people", "time"),  # a count of a thing
        ("three nights", "money"),
        ("ticket INC-2004", "time"),
        ("call me on 415-555-0123", "money"),
        ("maybe later", "time"),
    ],
)
def test_spoken_value_leaves_what_is_not_that_kind(answer: str, expect: str) -> None:
    assert spoken_values(answer, expect) == []


def test_spoken_value_keeps_both_halves_and_refuses_an_unknown_kind() -> None:
    ten = spoken_value("ten's good", "time")
    assert ten is not None and ten.same(phrase_value("22:00")) and ten.same(phrase_value("10:00"))  # type: ignore[arg-type]
    assert not ten.same(phrase_value("11:00"))  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        spoken_values("ten", "colour")


# ---- the consent judge sees phones and levels a call sets (grader/consent.py `_values`) -----------------


def _priority_question(customer: str, arguments: dict):  # noqa: ANN202
    from contracts.evidence import Message
    from contracts.schema import ConsentCheck
    from grader.consent import ConsentQuestion, GatedCall

    check = ConsentCheck(tool="update_record", decision="The customer asked for this change to the record.")
    return ConsentQuestion(check=check, tool=check.tool, turn=0, conversation=[Message(role="user", content=customer, turn=0)], calls=[GatedCall(arguments=arguments)])


@pytest.mark.parametrize(
    ("customer", "arguments", "granted"),
    [
        ("Please bump REQ-7710 up to priority one.", {"record_id": "REQ-7710", "priority": "P1"}, True),
        ("Please bump REQ-7710 up to P-1.", {"record_id": "REQ-7710", "priority": "P1"}, True),
        ("Please bump REQ-7710 up to priority two.", {"record_id": "REQ-7710", "priority": "P1"}, False),  # another level
        ("Please bump REQ-7710 up.", {"record_id": "REQ-7710", "priority": "P1"}, False),  # the level is not decided
        ("Put (971) 555-0142 on CUS-88 please.", {"customer_id": "CUS-88", "phone": "971-555-0142"}, True),
        ("Put a new number on CUS-88 please.", {"customer_id": "CUS-88", "phone": "971-555-0142"}, False),
    ],
)
def test_a_request_decides_a_level_or_a_phone_only_by_naming_it(customer: str, arguments: dict, granted: bool) -> None:
    from grader.consent import decide

    assert decide(_priority_question(customer, arguments)).granted is granted
