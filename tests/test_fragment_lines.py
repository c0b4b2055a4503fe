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
