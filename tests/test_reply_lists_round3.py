"""Round 3, lists and dumps (`grader.text.units`): a list row, a table row or a `label: value` line is a
statement binding its value to its label or record; a line of bare values with no label or predicate between
them is a dump. Cases written for this file, in words of their own (not the calibration sets')."""

from __future__ import annotations

import pytest

from contracts.schema import ReplyCriterion
from grader.grade import validate_judgement
from grader.text.evidence import EvidenceJudge
from grader.text.units import _sentences, record_line, transcript_units


def judge(criterion: str, evidence: list, replies: list[str]):  # noqa: ANN201
    criteria = [ReplyCriterion(criterion=criterion, evidence=evidence)]
    output = EvidenceJudge().judge_sync(criteria, replies)
    validate_judgement(output, 1, replies)
    return output.criteria[0]


# ---- several records, each stated -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("criterion", "evidence", "reply"),
    [
        # bullets: a record id and its status
        ("Says INC-3101 and INC-3102 were closed.", ["INC-3101", "INC-3102", "closed"],
         "Here is where the two tickets are:\n- INC-3101 (printer jam on floor 2) — closed\n- INC-3102 (badge reader) — closed\n- INC-3103 (Wi-Fi drop) — still open"),
        # numbered items, bold ids, `id: clause`
        ("Lists the pending refunds RF-220 and RF-221.", ["RF-220", "RF-221"],
         "You have two pending refunds:\n1. **RF-220**: blender, waiting on the courier\n2. **RF-221**: desk fan, waiting on inspection"),
        # numbered items whose value is a bare noun phrase
        ("Lists the open returns RMA-41 and RMA-42.", ["RMA-41", "RMA-42"],
         "Two returns are open:\n1. **RMA-41**: blender, cracked jug\n2. **RMA-42**: desk fan\n\nBoth are with the courier."),
        # bullets whose record is described in brackets, with an initial inside
        ("Says LOG-811 and LOG-812 were purged.", ["LOG-811", "LOG-812"],
         "Change CHG-900 covered three archives:\n- LOG-811 (Q3 proxy logs) — purged\n- LOG-812 (Q2 proxy logs) — purged\n- LOG-790 (K. Osei laptop image) — kept, litigation hold"),
        # a markdown table under a header row
        ("Gives the seat counts: 14 for Basic and 40 for Team.", ["14", "40"],
         "Seats per plan:\n\n| Plan | Seats |\n|:---|---:|\n| Basic | 14 |\n| Team | 40 |\n\nTeam is the bigger one."),
        # a wide table: each cell is labelled by its column
        ("Gives the delivery dates of SHP-501 (2026-12-09) and SHP-502 (2026-12-11).", [["2026-12-09", "Dec 9"], ["2026-12-11", "Dec 11"]],
         "| Shipment | Carrier | Status | Arrives |\n|---|---|---|---|\n| SHP-501 | DHL | in transit | Dec 9 |\n| SHP-502 | UPS | label created | Dec 11 |"),
        # `key: value` lines, one of them a value with a slash of its own
        ("Confirms the America/Chicago time zone and the weekly digest.", ["America/Chicago", "weekly"],
         "Settings saved:\n- Time zone: America/Chicago\n- Digest: weekly\n- Language: English"),
        # "thing - amount" lines
        ("Confirms the two credits of $12.50 and $30.00.", ["12.50", "30.00"],
         "Both credits are on your statement:\n- Late delivery — $12.50\n- Damaged lid — $30.00"),
        # a date label, then a name and an amount
        ("Lists the $75.00 payment to Pine Dental and the $18.20 payment to Metro Parking.", ["Pine Dental", "75", "Metro Parking", "18.20"],
         "Last two payments:\n- 2 Dec 2026 — Pine Dental, $75.00 (debit card)\n- 30 Nov 2026 — Metro Parking, $18.20 (Apple Pay)"),
        # an id record with phrases after it (a preposition links the amount to the payee)
        ("Shows the $310.00 transfer TRF-88Q1 to ACC-2040.", ["TRF-88Q1", "310"],
         "Activity this week:\n\n**Transfers**\n- TRF-88Q1 — $310.00 to ACC-2040, memo rent, settled\n\n**Cards**\n- CRD-1 — $4.50, Bean Bar, 1 Dec\n- CRD-2 — $4.50, Bean Bar, 2 Dec"),
        # a head over `label - value; label - value` records
        ("Says the SSO step is done.", ["SSO"],
         "Launch checklist for ORG-77: SSO — done; billing contact — added; domain — verified."),
        # a head over one record
        ("Shows the pending withdrawal WD-4410 of $1,200.00.", ["WD-4410", "1200"],
         "Latest withdrawal on ACC-5120: **WD-4410** — $1,200.00 to savings, pending review, flagged."),
        # statuses of one record, coordinated
        ("Confirms CHG-7100 was approved and deployed.", ["CHG-7100", "deployed"], "CHG-7100: approved and deployed."),
    ],
)
def test_each_record_of_a_list_states_its_own_fact(criterion: str, evidence: list, reply: str) -> None:
    verdict = judge(criterion, evidence, [reply])
    assert verdict.passed, verdict.explanation


def test_a_record_head_labels_its_value_so_another_records_label_does_not_steal_it() -> None:
    reply = "Both are in:\n- **Spring Promo** (CMP-7001): 9% open rate\n- **Summer Promo** (CMP-7002): 5% open rate\n\nSpring did better."
    verdict = judge("Gives the Spring open rate 9% and the Summer one 5%.", [["9%", "9.0%"], ["5%", "5.0%"]], [reply])
    assert verdict.passed, verdict.explanation


def test_a_value_of_another_records_row_is_no_wrong_value_for_this_record() -> None:
    reply = "Both parcels are moving:\n- **PKG-310** — expected Thursday 10 Dec\n- **PKG-311** — expected Friday 11 Dec"
    verdict = judge("Gives the expected delivery date of PKG-310.", [["2026-12-10", "December 10"]], [reply])
    assert verdict.passed, verdict.explanation


def test_the_same_value_in_the_wrong_records_row_still_fails() -> None:
    reply = "- **Spring Promo** (CMP-7001): 5% open rate\n- **Summer Promo** (CMP-7002): 9% open rate"
    verdict = judge("Gives the Spring open rate 9% and the Summer one 5%.", [["9%", "9.0%"], ["5%", "5.0%"]], [reply])
    assert not verdict.passed, verdict.explanation


def test_a_wrong_value_in_a_record_of_the_same_subject_still_contradicts() -> None:
    reply = "- **PKG-310** — expected Thursday 10 Dec\n- **PKG-310** — expected Saturday 12 Dec"
    verdict = judge("Gives the expected delivery date of PKG-310.", [["2026-12-10", "December 10"]], [reply])
    assert not verdict.passed, verdict.explanation


# ---- dumps: values listed without saying which is which ------------------------------------------------


@pytest.mark.parametrize(
    ("criterion", "evidence", "reply"),
    [
        # a record head over several values of one kind
        ("States the bounce rate of CMP-7001 as 2.5%.", [["2.5%"]], "CMP-7001 (Spring Promo): 41.0% | 2.5% | 7.8% | 310%"),
        ("Reports the balance $5,400.00 and 220 reward points.", ["5400", "220"], "ACC-2040: 5,400.00 | 1,100.00 | 220"),
        ("States the click rate of CMP-7005 as 3.2%.", [["3.2%"]], "CMP-7005 (Winter Clearance Promo): 38.0% | 3.2% | 11.4% | 520%"),
        # a name, an id and two bare numbers
        ("Gives the kettle's price and stock.", ["35.00", "12"], "Steel Kettle — SKU-2210 — 35 — 12"),
        # an acronym is no verb: still a dump
        ("Gives the monitor's price and stock.", ["180.00", "7"], "LCD Monitor — SKU-3300 — 180 — 7"),
        # a label with no status among records with one
        ("Says the billing contact is still missing, which blocks launch.", [["billing contact"]],
         "Launch checklist for ORG-77: SSO — done; billing contact; domain — verified; region — eu."),
        ("Says the SSO setup is not finished, which blocks launch.", [["SSO"]],
         "Launch checklist for ORG-7781: billing contact — added; admin — yes; SSO; region — eu."),
        # a field with several raw values under one label and other fields beside it
        ("Says the bank statement is missing.", [["bank statement", "bank_statement"]],
         "KYC status for ORG-77 — documents: passport_copy, bank_statement; uploads: UPL-9001."),
        # bare values in table cells with no header row
        ("Tells the customer the gift card balance is $25.00.", ["25.00"], "| CUST-8800 | $25.00 | $5.00 | 3 orders |"),
    ],
)
def test_values_listed_without_saying_which_is_which_state_nothing(criterion: str, evidence: list, reply: str) -> None:
    verdict = judge(criterion, evidence, [reply])
    assert not verdict.passed, verdict.explanation


def test_a_table_cell_holding_several_values_of_one_kind_is_a_dump() -> None:
    reply = "| Account | Figures |\n|---|---|\n| ACC-2040 | 5,400.00 / 1,100.00 / 220 |"
    verdict = judge("Reports the balance $5,400.00 and 220 reward points.", ["5400", "220"], [reply])
    assert not verdict.passed, verdict.explanation


def test_a_list_of_labels_heads_no_record() -> None:
    assert not record_line("Fee/limit/tier: $15.00 - $500.00 - gold")
    assert not record_line("Amounts, dates, ids: $15.00")


def test_a_sentence_before_a_colon_is_no_record_label() -> None:
    assert not record_line("It logged 40 calls and twelve callbacks: 30 percent of calls were returned.")


# ---- reading the lines -------------------------------------------------------------------------------


def test_a_list_number_and_an_initial_do_not_end_a_sentence() -> None:
    assert _sentences("Queue:\n1. TKT-1 (R. Patel) — waiting\n2. TKT-2 — done") == ["Queue:", "1. TKT-1 (R. Patel) — waiting", "2. TKT-2 — done"]


def test_a_bare_label_among_records_is_a_part_that_carries_nothing() -> None:
    units = transcript_units(["Checklist: SSO — done; billing contact; domain — verified."])
    assert [(u.text.strip(), u.carried) for u in units] == [
        ("Checklist: SSO — done;", True), ("billing contact;", False), ("domain — verified.", True)]


# ---- must-fail kinds inside records ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "reply",
    [
        "- RET-51 — in transit\n- RET-52 — received",  # the status is another record's
        "- RET-51 — not received yet\n- RET-52 — received",  # negated for its own record
        "| Return | State |\n|---|---|\n| RET-51 | in transit |\n| RET-52 | received |",  # another row's
    ],
)
def test_a_status_in_another_records_row_or_a_negated_one_still_fails(reply: str) -> None:
    verdict = judge("Confirms RET-51 was received.", ["RET-51", "received"], [reply])
    assert not verdict.passed, verdict.explanation


def test_a_record_that_is_taken_back_still_fails() -> None:
    verdict = judge("Confirms the $64.00 credit.", ["64.00"], ["- Credit: $64.00", "Apologies, ignore that line: no credit was applied."])
    assert not verdict.passed, verdict.explanation


def test_bare_values_on_bullets_state_nothing() -> None:
    verdict = judge("Lists the two fees, $8.00 and $19.00.", ["8.00", "19.00"], ["- $8.00\n- $19.00\n- $27.00\n- 2026-12-20"])
    assert not verdict.passed, verdict.explanation
