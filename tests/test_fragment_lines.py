"""A list written one item per line is a list (the transcript's one-phrase-per-message rule, inside one
message): a reply of many short predicate-free lines carries none of them, while records under labels,
arrows and real sentences one per line still state their facts."""

from __future__ import annotations

import pytest

from contracts.schema import ReplyCriterion
from grader.text.evidence import EvidenceJudge
from grader.text.units import fragment_lines

GRANTED = ReplyCriterion(criterion="Confirms the VPN access role is granted to the customer.", evidence=["VPN", ["granted to you", "you now have"]])


@pytest.mark.parametrize(
    "message",
    [
        "CAB\nP3\nnot approved\nVPN\ngranted to you\nlegal hold\nrevoked",
        "- VPN\n- pending\n- granted to you\n- CAB member\n- P2\n- on hold",
        "Summary\nVPN\nROLE-VPN\ngranted to you\nclosed\ncancelled\nrefund",
    ],
)
def test_short_lines_of_phrases_state_nothing(message: str) -> None:
    assert fragment_lines(message)
    assert not EvidenceJudge().judge_sync([GRANTED], [message]).criteria[0].passed


@pytest.mark.parametrize(
    "message",
    [
        "Done! Your request is through:\n- Role: VPN user\n- Status: granted to you\n- Approver: Karen Wu\n- Ticket: REQ-4120",
        "Good news.\nThe VPN role has been granted to you this morning.\nYou can sign in right away.\nThe old token was revoked.\nShout if anything fails.",
        "Access update:\n- VPN → granted to you\n- Payroll viewer → unchanged\n- CRM admin → unchanged\n- Laptop → on order",
    ],
)
def test_records_and_sentences_one_per_line_still_state(message: str) -> None:
    assert EvidenceJudge().judge_sync([GRANTED], [message]).criteria[0].passed, message


def test_fewer_than_five_lines_are_left_to_the_other_rules() -> None:
    assert fragment_lines("VPN\ngranted to you\nCAB\nP3") == frozenset()


# Short phrases with a verb among bare ones ("can't delete", "not listed", "hasn't approved") do not make a list of
# phrases a conversation: nearly all short, over five or more messages or ten or more lines, is still a list (a dump of
# every itsm evidence phrase passed 52 tasks one per message and 11 one per line after round 9's catalog re-audit
# added negated-verb alternatives, which took the bare-fragment share under 60%).
DUMP = ["VPN", "can't delete", "granted to you", "not listed", "CAB", "hasn't approved", "P3", "cannot be implemented",
        "legal hold", "not deleted", "revoked", "doesn't cover"]


def test_one_phrase_per_message_with_verbs_among_them_is_a_list() -> None:
    assert not EvidenceJudge().judge_sync([GRANTED], DUMP).criteria[0].passed


def test_ten_lines_of_phrases_with_verbs_among_them_are_a_list() -> None:
    message = "\n".join(DUMP)
    assert fragment_lines(message)
    assert not EvidenceJudge().judge_sync([GRANTED], [message]).criteria[0].passed


@pytest.mark.parametrize(
    "messages",
    [
        ["Let me pull up your account.", "Thanks for waiting - I found the request.", "Done.",
         "The VPN role has been granted to you.", "Anything else I can help with today?"],
        ["Checking now.", "Approved by Karen.", "Granted to you just now: VPN.", "You can sign in.", "Bye for now - take care!"],
    ],
)
def test_a_conversation_with_a_few_short_turns_still_states(messages: list[str]) -> None:
    assert EvidenceJudge().judge_sync([GRANTED], messages).criteria[0].passed, messages


def test_a_short_bullet_list_of_terse_statements_still_states() -> None:
    message = "Here's what I did:\n- Checked the approval\n- Granted to you: VPN\n- Closed REQ-4120\n- Sent a receipt\n- Logged it"
    assert EvidenceJudge().judge_sync([GRANTED], [message]).criteria[0].passed
